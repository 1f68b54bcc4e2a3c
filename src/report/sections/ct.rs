//! Constant-time screening: for every ct run given, per implementation and build the verdict
//! of each screen on each operation, every finding with its function and line and the
//! exception that explains it (or that none does), dudect's figures, and what was not
//! screened and why.

use super::common::{h3, say};
use super::environment::record_facts;
use super::intro::line;
use super::method::para;
use super::{Context, KindParts, Section};
use crate::record::ct::Ct;
use crate::record::Benchmark;
use crate::report::data::Dataset;
use crate::report::doc::{strong, text, Block, Para, Table};
use crate::table::{Described, Tables};

/// The ct section.
pub const SECTION: Section = Section::new("ct", "Constant-time screening", build);

/// What the report's intro, environment and method say of this kind's records.
pub const PARTS: KindParts = KindParts {
    intro,
    environment,
    method,
};

/// The intro's line for each record of this kind.
fn intro(data: &Dataset) -> Vec<Para> {
    data.of::<Ct>()
        .iter()
        .map(|c| {
            let n = c.record.results.len();
            let unexplained = c
                .record
                .results
                .iter()
                .filter(|r| !r.verdict().advisable())
                .count();
            line(
                format!("ct ({})", c.label),
                "",
                &c.record,
                vec![text(format!(
                    ", {n} implementation{} screened, {unexplained} with unexplained findings.",
                    if n == 1 { "" } else { "s" }
                ))],
            )
        })
        .collect()
}

/// Each record's heading and facts under "Environment".
fn environment(data: &Dataset, blocks: &mut Vec<Block>) {
    for (i, input) in data.of::<Ct>().iter().enumerate() {
        let r = &input.record;
        let c = &r.config;
        let facts = vec![
            (
                "screens".into(),
                format!(
                    "{} on {}; seed {}; timing budget {} s per operation",
                    c.screens
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    c.operations
                        .iter()
                        .map(|o| o.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    c.seed,
                    c.timing_budget_s
                ),
            ),
            (
                "valgrind".into(),
                r.measured
                    .valgrind
                    .clone()
                    .unwrap_or_else(|| "not found".into()),
            ),
            (
                "exceptions".into(),
                if c.exceptions.is_empty() {
                    "none".into()
                } else {
                    c.exceptions.join(", ")
                },
            ),
        ];
        let id = format!("environment-ct-{}", i + 1);
        let heading = format!("ct ({})", input.label);
        record_facts(blocks, &id, &heading, r, facts);
    }
}

/// What the method says of this kind, when the report has records of it.
fn method(data: &Dataset, blocks: &mut Vec<Block>) {
    if !data.of::<Ct>().is_empty() {
        para(
            blocks,
            vec![
                strong("Constant-time screening. "),
                text(
                    "Three screens per secret-handling operation. Secret flow: every random \
                     byte and the secret key are marked undefined under memcheck, the public \
                     key and ciphertext declassified, and every branch, memory index or \
                     system-call argument that depends on them is a finding. Latency: the \
                     instructions executed in the call joined with the disassembly, every \
                     instruction whose latency depends on its operands (division) a finding. \
                     Timing: dudect's fixed-against-random test, Welch's t on raw and cropped \
                     timings and a second-order test; below its thresholds it says no leak was \
                     detected at that many measurements, nothing more. A finding an exception \
                     lists as benign passes; one listed as a known issue is shown, not excused, \
                     and like one no list explains makes the build not advisable: the speed \
                     tables pass over it when they name the fastest.",
                ),
            ],
        );
    }
}

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let records = &ctx.data.of::<Ct>();
    if records.is_empty() {
        say(blocks, "No ct run given (`kembench ct --json FILE`).");
        return Ok(());
    }
    say(
        blocks,
        "Per implementation and build, each screen's verdict on each operation: findings \
         counted by kind, with what explains them; the timing screen's |t| or the measurements \
         at which it detected no leak. The verdict is over every screen: unexplained findings, \
         a known issue, incomplete (a screen could not run), benign findings only, or no \
         finding.",
    );
    let described: Vec<(&str, Tables)> = records
        .iter()
        .map(|i| (i.label.as_str(), i.record.tables(&i.record.results)))
        .collect();
    let table = |id: &str| Table::described(id, described.iter().map(|(l, t)| (*l, t)));
    blocks.push(Block::Table(table("table-ct-verdicts")));
    for input in records.iter() {
        for r in input
            .record
            .results
            .iter()
            .filter(|r| !r.verdict().advisable())
        {
            say(
                blocks,
                format!(
                    "{}: {} finding{} no exception explains; not advised until explained.",
                    r.label(),
                    r.unexplained().count(),
                    if r.unexplained().count() == 1 {
                        ""
                    } else {
                        "s"
                    }
                ),
            );
        }
    }
    let with_rows = |t: Table| (!t.rows.is_empty()).then_some(t);
    if let Some(t) = with_rows(table("table-ct-findings")) {
        h3(blocks, "ct-findings", "Findings and their exceptions");
        blocks.push(Block::Table(t));
    }
    if let Some(t) = with_rows(table("table-ct-timing")) {
        h3(blocks, "ct-timing", "Timing (dudect)");
        say(
            blocks,
            "dudect's thresholds: |t| above 10 probably leaks, above 500 definitely; no verdict \
             before 10,000 measurements. The noise floor is the same test on two halves of one \
             class.",
        );
        blocks.push(Block::Table(t));
    }
    if let Some(t) = with_rows(table("table-ct-not-screened")) {
        h3(blocks, "ct-not-screened", "Not screened");
        blocks.push(Block::Table(t));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::data::{AnyRecord, Dataset};

    fn blocks(data: &Dataset) -> Vec<Block> {
        let ctx = Context {
            data,
            primary: None,
            noise: 0.02,
        };
        let mut b = Vec::new();
        build(&ctx, &mut b).unwrap();
        b
    }

    #[test]
    fn the_fixture_gets_its_verdicts_findings_timing_and_gaps() {
        let data = Dataset::from_records(vec![(
            "ct.json".into(),
            AnyRecord::from(crate::export::fixture::ct()),
        )]);
        let b = blocks(&data);
        let tables: Vec<&Table> = b
            .iter()
            .filter_map(|x| match x {
                Block::Table(t) => Some(t),
                _ => None,
            })
            .collect();
        let ids: Vec<&str> = tables.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "table-ct-verdicts",
                "table-ct-findings",
                "table-ct-timing",
                "table-ct-not-screened"
            ]
        );
        assert_eq!(tables[0].rows.len(), 4);
        let findings = tables[1];
        let row: Vec<&str> = findings.rows[1]
            .cells
            .iter()
            .map(|c| c.text.as_str())
            .collect();
        assert!(row.contains(&"src/providers/mock.rs:412"), "{row:?}");
        assert!(row.contains(&"unexplained"), "{row:?}");
        let text = format!("{b:?}");
        assert!(
            text.contains("MockKEM@mock/ct-branch: 2 findings no exception explains"),
            "{text}"
        );
        assert!(!text.to_lowercase().contains("constant time"), "{text}");
    }

    #[test]
    fn without_a_ct_run_it_says_so() {
        let b = blocks(&Dataset::from_records(Vec::new()));
        assert!(format!("{b:?}").contains("No ct run given"), "{b:?}");
    }
}
