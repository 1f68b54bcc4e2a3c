//! Time distribution: the chart of each implementation's shares of the exchange ([`chart`])
//! and their table.

pub mod chart;

use super::common::{pct_cell, single_chart, tags, timed};
use super::{Context, Section};
use crate::kem::Op;
use crate::record::latency::OperationResult;
use crate::report::doc::{Block, Cell, Table};

/// The time-distribution section.
pub const SECTION: Section = Section::new("shares", "Time distribution", build);

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let Some(run) = single_chart(
        ctx,
        blocks,
        chart::chart,
        "No implementation has keygen, encaps and decaps all measured.",
    )?
    else {
        return Ok(());
    };
    let mut t = Table::new(
        "table-shares",
        &[
            "algorithm",
            "implementation",
            "keygen#",
            "encaps#",
            "decaps#",
        ],
    );
    for r in timed(run) {
        let share = |op| r.op(op).and_then(|o: &OperationResult| o.share_of_exchange);
        let (Some(k), Some(e), Some(d)) = (share(Op::Keygen), share(Op::Encaps), share(Op::Decaps))
        else {
            continue;
        };
        t.push(
            vec![
                Cell::text(&r.algorithm),
                Cell::text(&r.implementation),
                pct_cell(k),
                pct_cell(e),
                pct_cell(d),
            ],
            tags(r),
        );
    }
    blocks.push(Block::Table(t));
    Ok(())
}
