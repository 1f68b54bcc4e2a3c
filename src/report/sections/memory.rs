//! Memory: the chart of peak heap and deepest stack ([`chart`]), what the heap figures
//! include, and the table of every operation's figures.

pub mod chart;

use super::common::{bytes_cell, int_cell, op_cell, say, single_chart, tags, timed_ops};
use super::{Context, Section};
use crate::report::doc::{Block, Cell, Table};

/// The memory section.
pub const SECTION: Section = Section::new("memory", "Memory", build);

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let Some(run) = single_chart(ctx, blocks, chart::chart, "Nothing was measured.")? else {
        return Ok(());
    };
    say(
        blocks,
        if run.measured.heap_includes_c_allocations {
            "Heap figures include the C libraries' allocations (malloc is interposed)."
        } else {
            "Heap figures count Rust allocations only: the malloc interposer was not active."
        },
    );
    let mut t = Table::new(
        "table-memory",
        &[
            "algorithm",
            "implementation",
            "op",
            "peak heap#",
            "allocations#",
            "max stack#",
        ],
    )
    .folded();
    for (r, o) in timed_ops(run) {
        t.push(
            vec![
                Cell::text(&r.algorithm),
                Cell::text(&r.implementation),
                op_cell(o.operation),
                bytes_cell(o.peak_heap_bytes),
                o.allocations.map_or(Cell::text("n/a"), int_cell),
                bytes_cell(o.max_stack_bytes),
            ],
            tags(r),
        );
    }
    blocks.push(Block::Table(t));
    Ok(())
}
