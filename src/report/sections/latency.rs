//! Latency: one chart per family ([`chart`]) and the table of every statistic of every timed
//! operation of the primary run.

pub mod chart;

use super::common::{primary, say};
use super::{Context, Section};
use crate::report::doc::{Block, Table};
use crate::table::Described;

/// The latency section.
pub const SECTION: Section = Section::new("latency", "Latency", build);

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let Some(input) = primary(ctx, blocks) else {
        return Ok(());
    };
    let run = &input.record;
    let charts = chart::charts(run)?;
    if charts.is_empty() {
        say(blocks, "Nothing was timed.");
        return Ok(());
    }
    say(
        blocks,
        "One chart per family, grouped by operation, log scale; whiskers are the 95% \
         bootstrap confidence interval of the median. The table has every statistic; click \
         a header to sort.",
    );
    blocks.push(Block::Charts {
        id: "chart-latency".into(),
        charts,
    });
    let t = Table::described(
        "table-latency",
        [(input.label.as_str(), &run.tables(&run.results))],
    );
    blocks.push(Block::Table(t));
    Ok(())
}
