//! Latency: one chart per family ([`chart`]) and the table of every statistic of every timed
//! operation of the primary run.

pub mod chart;

use super::common::run_heading;
use super::common::{primary, say};
use super::environment::record_facts;
use super::intro::line;
use super::{Context, KindParts, Section};
use crate::record::latency::Latency;
use crate::report::data::Dataset;
use crate::report::doc::{text, Para};

use crate::report::doc::{Block, Table};
use crate::table::Described;

/// The latency section.
pub const SECTION: Section = Section::new("latency", "Latency", build);

/// What the report's intro, environment and method say of this kind's records.
pub const PARTS: KindParts = KindParts {
    intro,
    environment,
    method: KindParts::nothing,
};

/// The intro's line for each record of this kind.
fn intro(data: &Dataset) -> Vec<Para> {
    let mut out = Vec::new();
    for (i, r) in data.of::<Latency>().iter().enumerate() {
        let n = r.record.results.len();
        out.push(line(
            run_heading(i, r),
            "latency run ",
            &r.record,
            vec![
                text(format!(
                    ", {n} implementation{}",
                    if n == 1 { "" } else { "s" }
                )),
                text(if i == 0 && data.of::<Latency>().len() > 1 {
                    " (the baseline of the comparison)."
                } else if i + 1 == data.of::<Latency>().len() && data.of::<Latency>().len() > 1 {
                    " (the run the charts and tables describe)."
                } else {
                    "."
                }),
            ],
        ));
    }
    out
}

/// Each record's heading and facts under "Environment".
fn environment(data: &Dataset, blocks: &mut Vec<Block>) {
    for (i, input) in data.of::<Latency>().iter().enumerate() {
        let r = &input.record;
        let facts = vec![
            (
                "selection".into(),
                format!(
                    "{} ({} implementations)",
                    r.config.selection,
                    r.results.len()
                ),
            ),
            (
                "measuring thread".into(),
                r.config
                    .pinned_cpu
                    .map_or("not pinned".into(), |c| format!("pinned to CPU {c}")),
            ),
        ];
        let id = format!("environment-run-{}", i + 1);
        record_facts(blocks, &id, &run_heading(i, input), r, facts);
    }
}

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
