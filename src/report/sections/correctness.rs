//! Correctness: the outcome of every implementation's check before timing, in every run, with
//! any error that stopped its measurement.

use super::common::{primary, say, tags};
use super::{Context, Section};
use crate::record::latency::Latency;
use crate::report::doc::{Block, Cell, Mark, Table};
use crate::verify::Outcome;

/// The correctness section.
pub const SECTION: Section = Section::new("correctness", "Correctness", build);

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    if primary(ctx, blocks).is_none() {
        return Ok(());
    }
    say(
        blocks,
        "Before timing, every implementation makes three round trips with 64-byte canaries \
         around every output buffer; a failure is shown here and the implementation is \
         not timed. The full gate is `kembench verify`.",
    );
    let mut t = Table::new(
        "table-correctness",
        &[
            "run",
            "algorithm",
            "implementation",
            "version",
            "status",
            "detail",
        ],
    );
    for (i, input) in ctx.data.of::<Latency>().iter().enumerate() {
        for r in &input.record.results {
            let (status, detail) = match &r.correctness {
                Outcome::Pass(d) => (Cell::text("pass").marked(Mark::Good), d.clone()),
                Outcome::Fail(d) => (Cell::text("FAIL").marked(Mark::Bad), d.clone()),
                Outcome::Skip(d) => (Cell::text("skipped"), d.clone()),
            };
            let detail = match &r.error {
                Some(e) => {
                    Cell::text(format!("{detail}; stopped with an error: {e}")).marked(Mark::Bad)
                }
                None => Cell::text(detail),
            };
            t.push(
                vec![
                    Cell::num((i + 1).to_string(), i as f64),
                    Cell::text(&r.algorithm),
                    Cell::text(&r.implementation),
                    Cell::text(&r.version),
                    status,
                    detail,
                ],
                tags(r),
            );
        }
    }
    blocks.push(Block::Table(t));
    Ok(())
}
