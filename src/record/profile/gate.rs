//! `profile --baseline REF`: the gate a maintainers' CI runs on every pull request. Exact
//! instruction counts are identical run to run, so a tight threshold (0.5% by default) catches
//! what timing gates on shared runners (3–5%) cannot. The verdict, a Markdown summary for a
//! pull-request comment (per operation: before, after, change; the functions whose self counts
//! changed most), and the exit code.

use super::compare::{compare, Certainty, ProfileReport, ProfileRow};
use super::ProfileRecord;
use std::fmt::Write;

/// The gate's threshold when none is given, percent.
pub const DEFAULT_THRESHOLD_PCT: f64 = 0.5;

/// What the gate found.
#[derive(Debug, Clone)]
pub struct Gate {
    /// Whether the change may land: nothing over the threshold, something compared, and the
    /// counts comparable.
    pub passed: bool,
    /// The one line that says why, for the console and the log.
    pub verdict: String,
    /// The summary, as Markdown.
    pub markdown: String,
}

/// What makes two profiles' counts incomparable: another valgrind or another simulated
/// cache (counts of one build differ between valgrind versions). The gate then warns and does
/// not fail: a number from another provenance is not a regression.
fn incomparable(report: &ProfileReport) -> Vec<String> {
    report
        .differences
        .iter()
        .filter(|d| d.what == "valgrind" || d.what == "simulated cache")
        .map(|d| format!("{}: {} → {}", d.what, d.old, d.new))
        .collect()
}

/// Renames the baseline's implementation `old` to `new` (results and plan), so that the gate
/// compares it with this profile's `new` (`profile --pair OLD=NEW`).
pub fn pair(baseline: &mut ProfileRecord, old: &str, new: &str) {
    for r in &mut baseline.results {
        if r.implementation == old {
            r.implementation = new.to_string();
        }
    }
    for l in &mut baseline.config.planned {
        if let Some(alg) = l.strip_suffix(&format!("@{old}")) {
            *l = format!("{alg}@{new}");
        }
    }
}

/// Gates `new` against `baseline` (named `baseline_name`) at `threshold_pct` percent more
/// instructions per operation.
pub fn gate(
    baseline_name: &str,
    baseline: &ProfileRecord,
    new: &ProfileRecord,
    threshold_pct: f64,
) -> Gate {
    let report = compare(baseline, new);
    let over = report.regressions(threshold_pct);
    let apart = incomparable(&report);
    let (passed, verdict) = if report.rows.is_empty() {
        (
            false,
            format!(
                "FAILED: nothing in common with the baseline {baseline_name} (it has {}; this profile has {}): a gate that compares nothing never passes",
                list(&baseline.config.planned),
                list(&new.config.planned)
            ),
        )
    } else if !apart.is_empty() {
        (
            true,
            format!(
                "NOT GATED: the counts are not comparable with {baseline_name} ({}); profile the baseline again under the same valgrind",
                apart.join("; ")
            ),
        )
    } else if over.is_empty() {
        (
            true,
            format!(
                "passed: no operation executes more than {threshold_pct}% more instructions than {baseline_name} ({} compared)",
                report.rows.len()
            ),
        )
    } else {
        (
            false,
            format!(
                "FAILED: {} operation(s) execute more than {threshold_pct}% more instructions than {baseline_name}: {}",
                over.len(),
                over.iter()
                    .map(|r| format!(
                        "{}@{} {} {}",
                        r.algorithm,
                        r.implementation,
                        r.operation.as_str(),
                        change(r.old_instructions, r.new_instructions)
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    };
    let markdown = markdown(baseline_name, &report, &over, threshold_pct, &verdict, &apart);
    Gate {
        passed,
        verdict,
        markdown,
    }
}

/// `+1.234%` (three decimals: exact counts make them meaningful).
fn change(old: u64, new: u64) -> String {
    if old == 0 {
        return "n/a".into();
    }
    format!("{:+.3}%", 100.0 * (new as f64 / old as f64 - 1.0))
}

fn list(labels: &[String]) -> String {
    if labels.is_empty() {
        "nothing".into()
    } else {
        labels.join(", ")
    }
}

/// Text for a Markdown table cell: pipes and line breaks escaped.
fn cell(s: &str) -> String {
    crate::table::markdown_escape_cell(s)
}

fn markdown(
    baseline_name: &str,
    report: &ProfileReport,
    over: &[&ProfileRow],
    threshold_pct: f64,
    verdict: &str,
    apart: &[String],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## kembench: exact instruction counts against {}\n",
        cell(baseline_name)
    );
    let _ = writeln!(out, "**{}**\n", cell(verdict));
    let _ = writeln!(
        out,
        "Exact counts of one call per operation under callgrind (identical run to run); the gate fails above +{threshold_pct}%.\n"
    );
    for d in &report.differences {
        if !apart.iter().any(|a| a.starts_with(&d.what)) {
            let _ = writeln!(
                out,
                "- differs from the baseline: {} {} → {}",
                cell(&d.what),
                cell(&d.old),
                cell(&d.new)
            );
        }
    }
    if !report.differences.is_empty() {
        out.push('\n');
    }
    if !report.rows.is_empty() {
        out.push_str("| benchmark | operation | before | after | change | |\n");
        out.push_str("|---|---|---:|---:|---:|---|\n");
        for r in &report.rows {
            let mark = if over.iter().any(|o| std::ptr::eq(*o, r)) {
                "over the threshold"
            } else {
                match r.certainty {
                    Certainty::NotFixed => "random draws not fixed: may be chance",
                    Certainty::RangesOverlap => "within the seeds' spread",
                    Certainty::Exact | Certainty::RangesApart => "",
                }
            };
            let _ = writeln!(
                out,
                "| {}@{} | {} | {} | {} | {} | {} |",
                cell(&r.algorithm),
                cell(&r.implementation),
                r.operation.as_str(),
                crate::units::thousands(r.old_instructions),
                crate::units::thousands(r.new_instructions),
                change(r.old_instructions, r.new_instructions),
                mark
            );
        }
        out.push('\n');
    }
    if !report.functions.is_empty() {
        out.push_str("### Functions whose self counts changed most\n\n");
        out.push_str("| benchmark | operation | function | before | after | change |\n");
        out.push_str("|---|---|---|---:|---:|---:|\n");
        for f in &report.functions {
            let _ = writeln!(
                out,
                "| {} | {} | `{}` | {} | {} | {:+} |",
                cell(&f.label),
                f.operation.as_str(),
                cell(&f.function).replace('`', "'"),
                crate::units::thousands(f.old_self),
                crate::units::thousands(f.new_self),
                f.delta()
            );
        }
        out.push('\n');
    }
    for (label, side) in &report.unmatched {
        let _ = writeln!(
            out,
            "- only in the {}: {}",
            if *side == "old" { "baseline" } else { "new profile" },
            cell(label)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    /// The same profile passes with 0.000%; more instructions than the threshold fail, naming
    /// the operation and the function; fewer pass; another valgrind is not gated; nothing in
    /// common fails loudly.
    #[test]
    fn the_gate_fails_on_more_instructions_and_says_where() {
        let base = fixture::profile();
        let same = gate("base.json", &base, &base.clone(), 0.5);
        assert!(same.passed, "{}", same.verdict);
        assert!(same.markdown.contains("+0.000%"), "{}", same.markdown);

        let mut worse = base.clone();
        let op = &mut worse.results[0].operations[0];
        let before = op.instructions.median;
        let more = before + before / 100; // +1%
        op.instructions.per_seed.iter_mut().for_each(|n| *n = more);
        op.instructions = crate::record::profile::Spread::of(op.instructions.per_seed.clone());
        let f = &mut op.analysis.functions[0];
        f.self_instructions += before / 100;
        let function = f.name.clone();
        let g = gate("base.json", &base, &worse, 0.5);
        assert!(!g.passed);
        let label = format!(
            "{}@{} {}",
            worse.results[0].algorithm,
            worse.results[0].implementation,
            worse.results[0].operations[0].operation.as_str()
        );
        assert!(g.verdict.contains(&label), "{}", g.verdict);
        assert!(g.markdown.contains("over the threshold"), "{}", g.markdown);
        assert!(g.markdown.contains(&function), "{}", g.markdown);
        // Under a 2% threshold the same change passes; the reverse change always does.
        assert!(gate("base.json", &base, &worse, 2.0).passed);
        assert!(gate("new.json", &worse, &base, 0.5).passed);

        let mut other_valgrind = worse.clone();
        other_valgrind.measured.valgrind = "valgrind-3.99.0".into();
        let g = gate("base.json", &base, &other_valgrind, 0.5);
        assert!(g.passed && g.verdict.starts_with("NOT GATED"), "{}", g.verdict);

        let mut nothing = base.clone();
        for r in &mut nothing.results {
            r.implementation = format!("{}-other", r.implementation);
        }
        let g = gate("base.json", &base, &nothing, 0.5);
        assert!(!g.passed && g.verdict.contains("nothing in common"), "{}", g.verdict);
    }
}
