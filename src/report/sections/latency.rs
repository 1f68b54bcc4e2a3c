//! Latency: one chart per family ([`chart`]) and the table of every statistic of every timed
//! operation of the primary run; where it measured a library at two versions, their table and
//! one chart per library ([`versions`]).

pub mod chart;
pub mod versions;

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
    let tables = run.tables(&run.results);
    let t = Table::described("table-latency", [(input.label.as_str(), &tables)]);
    blocks.push(Block::Table(t));
    // Two versions of one build measured in this run: the newer against the older.
    if tables.get("table-versions").is_some() {
        let t = Table::described("table-versions", [(input.label.as_str(), &tables)]);
        blocks.push(Block::Table(t));
        // The view per library across its versions.
        let charts = versions::charts(run)?;
        if !charts.is_empty() {
            blocks.push(Block::Charts {
                id: "chart-versions".into(),
                charts,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::report::data::AnyRecord;

    fn blocks(rec: crate::record::latency::LatencyRecord) -> Vec<Block> {
        let d = Dataset::from_records(vec![("r.json".into(), AnyRecord::from(rec))]);
        let ctx = Context {
            data: &d,
            primary: d.primary(),
            noise: 0.02,
        };
        let mut b = Vec::new();
        build(&ctx, &mut b).unwrap();
        b
    }

    fn table_ids(rec: crate::record::latency::LatencyRecord) -> Vec<String> {
        super::super::common::tables(&blocks(rec))
            .into_iter()
            .map(|t| t.id.clone())
            .collect()
    }

    fn chart_ids(rec: crate::record::latency::LatencyRecord) -> Vec<String> {
        blocks(rec)
            .iter()
            .flat_map(|b| match b {
                Block::Charts { charts, .. } => charts.iter().map(|c| c.id.clone()).collect(),
                _ => Vec::new(),
            })
            .collect()
    }

    #[test]
    fn two_versions_of_a_build_get_their_table_and_one_version_none() {
        assert_eq!(table_ids(fixture::run_with_builds()), ["table-latency"]);
        assert_eq!(
            table_ids(fixture::run_with_versions(1.25)),
            ["table-latency", "table-versions"]
        );
        // The view per library: a chart of its versions beside the family charts.
        let ids = chart_ids(fixture::run_with_versions(1.25));
        assert_eq!(
            ids.last().map(String::as_str),
            Some("chart-versions-pqclean")
        );
        assert!(!chart_ids(fixture::run_with_builds())
            .iter()
            .any(|c| c.starts_with("chart-versions")));
    }
}
