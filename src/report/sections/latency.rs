//! Latency: one chart per family ([`chart`]) and the table of every statistic of every timed
//! operation of the primary run.

pub mod chart;

use super::common::{int_cell, level_cell, ns_cell, op_cell, primary, say, tags, timed_ops};
use super::{Context, Section};
use crate::measure::counters::Counters;
use crate::measure::sampler::StopReason;
use crate::report::doc::{Block, Cell, Mark, Table};
use crate::units;

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
    let mut t = Table::new(
        "table-latency",
        &[
            "algorithm",
            "implementation",
            "family",
            "level#",
            "op",
            "median#",
            "95% CI of median",
            "p25 – p75",
            "ops/s#",
            "TSC ticks#",
            "cycles#",
            "samples#",
            "stop",
        ],
    )
    .folded();
    for (r, o) in timed_ops(run) {
        let cycles = match &o.counters {
            Counters::Measured(c) => Cell::num(units::count(c.cycles), c.cycles),
            Counters::Unavailable(_) => Cell::text("n/a"),
        };
        let stop = Cell::text(o.stop_reason.label());
        t.push(
            vec![
                Cell::text(&r.algorithm),
                Cell::text(&r.implementation),
                Cell::text(&r.family),
                level_cell(r.nist_level),
                op_cell(o.operation),
                ns_cell(o.median_ns),
                Cell::num(
                    format!(
                        "{} – {}",
                        units::ns(o.median_ci95_low_ns),
                        units::ns(o.median_ci95_high_ns)
                    ),
                    o.median_ci95_high_ns - o.median_ci95_low_ns,
                ),
                Cell::num(
                    format!("{} – {}", units::ns(o.p25_ns), units::ns(o.p75_ns)),
                    o.p75_ns - o.p25_ns,
                ),
                Cell::num(units::count(o.ops_per_sec), o.ops_per_sec),
                o.tsc_median_ticks
                    .map_or(Cell::text("n/a"), |t| Cell::num(units::count(t), t)),
                cycles,
                int_cell(o.samples as u64),
                if o.stop_reason == StopReason::Precision {
                    stop
                } else {
                    stop.marked(Mark::Warn)
                },
            ],
            tags(r),
        );
    }
    blocks.push(Block::Table(t));
    Ok(())
}
