//! Console rendering: the table printer shared by every command.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};

/// A table with kembench's look: condensed borders, wrapping to the terminal when there is one.
pub fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header.iter().map(Cell::new));
    t
}

/// A right-aligned cell, for numbers.
pub fn num(v: impl ToString) -> Cell {
    Cell::new(v.to_string()).set_alignment(CellAlignment::Right)
}
