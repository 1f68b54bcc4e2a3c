//! The comparison of runs: each run after the first against the first (the baseline), with
//! what differs between them, the count of verdicts, the chart of ratios ([`chart`]) and the
//! table of every operation.

pub mod chart;

use super::common::{h3, ns_cell, op_cell, para, say, tags};
use super::{Context, Section};
use crate::record::latency::Latency;
use crate::record::latency::LatencyRecord;
use crate::report::data::Input;
use crate::report::doc::{code, strong, text, Block, Cell, Mark, Table};
use crate::stats::Verdict;

/// The comparison section.
pub const SECTION: Section = Section::new("comparison", "Comparison of runs", build);

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let Some((base, later)) = ctx.data.of::<Latency>().split_first() else {
        say(blocks, "No latency run given.");
        return Ok(());
    };
    if later.is_empty() {
        say(
            blocks,
            "One run given. Give two or more run files to compare them; the first is the \
             baseline.",
        );
        return Ok(());
    }
    para(
        blocks,
        vec![
            text("Baseline: "),
            code(&base.label),
            text(format!(
                ". A ratio is the later run's median over the baseline's (below 1 is \
                 faster), with a 95% bootstrap interval. The verdict is faster or slower \
                 only when the change is significant (p < 0.05) and beyond ±{:.1}%; \
                 otherwise within noise.",
                ctx.noise * 100.0
            )),
        ],
    );
    for (k, input) in later.iter().enumerate() {
        against(blocks, base, input, k + 2, ctx.noise)?;
    }
    Ok(())
}

/// The comparison of `input`, the `number`-th run given, with the baseline `base`.
fn against(
    blocks: &mut Vec<Block>,
    base: &Input<LatencyRecord>,
    input: &Input<LatencyRecord>,
    number: usize,
    noise: f64,
) -> anyhow::Result<()> {
    let report = crate::record::latency::compare::compare(&base.record, &input.record, noise);
    h3(
        blocks,
        &format!("comparison-{number}"),
        &format!("{} against {}", input.label, base.label),
    );
    if report.differences.is_empty() {
        say(
            blocks,
            "Same environment and provider versions as the baseline.",
        );
    } else {
        para(
            blocks,
            vec![strong(
                "Differences between the runs (read the ratios with these in mind):",
            )],
        );
        blocks.push(Block::List(
            report
                .differences
                .iter()
                .map(|d| {
                    vec![
                        text(format!("{}: ", d.what)),
                        code(&d.old),
                        text(" → "),
                        code(&d.new),
                    ]
                })
                .collect(),
        ));
    }
    let count = |v: Verdict| {
        report
            .rows
            .iter()
            .filter(|r| r.comparison.verdict == v)
            .count()
    };
    let (slower, faster) = (count(Verdict::Slower), count(Verdict::Faster));
    let mut verdicts = vec![text(format!("{} operations compared: ", report.rows.len()))];
    verdicts.push(if slower > 0 {
        strong(format!("{slower} slower"))
    } else {
        text("0 slower")
    });
    verdicts.push(text(format!(
        ", {faster} faster, {} within noise.",
        count(Verdict::WithinNoise)
    )));
    para(blocks, verdicts);
    if let Some(c) = chart::chart(number, &base.label, &input.label, &report)? {
        blocks.push(Block::Charts {
            id: String::new(),
            charts: vec![c],
        });
    }
    let mut t = Table::new(
        &format!("table-compare-{number}"),
        &[
            "algorithm",
            "implementation",
            "op",
            "baseline median#",
            "median#",
            "ratio#",
            "95% CI of ratio",
            "speed-up#",
            "p#",
            "verdict",
        ],
    )
    .folded();
    let meta = |alg: &str, imp: &str| {
        (input.record.result(alg, imp))
            .or_else(|| base.record.result(alg, imp))
            .and_then(tags)
    };
    for row in &report.rows {
        let c = &row.comparison;
        let verdict = match c.verdict {
            Verdict::Faster => Cell::text("faster").marked(Mark::Good),
            Verdict::Slower => Cell::text("SLOWER").marked(Mark::Bad),
            Verdict::WithinNoise => Cell::text("within noise"),
        };
        t.push(
            vec![
                Cell::text(&row.algorithm),
                Cell::text(&row.implementation),
                op_cell(row.operation),
                ns_cell(row.old_median_ns),
                ns_cell(row.new_median_ns),
                Cell::num(format!("{:.3}", c.ratio), c.ratio),
                Cell::num(
                    format!("{:.3} – {:.3}", c.ratio_ci_low, c.ratio_ci_high),
                    c.ratio_ci_low,
                ),
                Cell::num(format!("{:.2}×", 1.0 / c.ratio), 1.0 / c.ratio),
                Cell::num(format!("{:.3}", c.p_value), c.p_value),
                verdict,
            ],
            meta(&row.algorithm, &row.implementation),
        );
    }
    blocks.push(Block::Table(t));
    if !report.unmatched.is_empty() {
        say(blocks, "In one run only:");
        blocks.push(Block::List(
            report
                .unmatched
                .iter()
                .map(|(label, side)| {
                    let run = if *side == "old" {
                        &base.label
                    } else {
                        &input.label
                    };
                    vec![code(label), text(format!(" (only in {run})"))]
                })
                .collect(),
        ));
    }
    Ok(())
}
