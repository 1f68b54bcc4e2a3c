//! Console rendering: every command's tables (one module each), the table printer and unit
//! formatting they share. Tables go to stdout; progress and warnings to stderr.

pub mod compare;
pub mod list;
pub mod run;
pub mod runs;
pub mod throughput;

pub mod verify;

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};

/// A table with kembench's look: condensed borders, no wrapping.
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

/// A stored record as `show` prints it: the command line, the environment, the tables.
pub fn print_record(r: &crate::record::AnyRecord) {
    use crate::record::AnyRecord;
    println!("Command: {}", r.command_line().join(" "));
    for l in r.environment().summary_lines() {
        println!("{l}");
    }
    match r {
        AnyRecord::Run(r) => {
            run::print_table(&r.results);
            run::print_footer(r);
        }
        AnyRecord::Throughput(t) => throughput::print(t),
    }
}
