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
/// cache (counts of one build differ between valgrind versions). The gate cannot compare
/// them, and fails unless the user accepts an ungated result (`--allow-ungated`): a gate
/// that did not compare must never pass in silence.
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
/// instructions per operation. What cannot be compared (another valgrind or simulated cache;
/// an operation whose draws the seed did not fix, over the threshold, with one seed) fails the
/// gate, naming the fix, unless `allow_ungated`: then it passes, saying what was not gated.
/// Operations whose draws the seed did not fix are gated by their ranges over seeds.
pub fn gate(
    baseline_name: &str,
    baseline: &ProfileRecord,
    new: &ProfileRecord,
    threshold_pct: f64,
    allow_ungated: bool,
) -> Gate {
    let report = compare(baseline, new);
    let over = report.regressions(threshold_pct);
    let apart = incomparable(&report);
    let one_seed = report.ungated(threshold_pct);
    let accept = "or pass --allow-ungated to accept an ungated result";
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
        let why = format!(
            "the counts are not comparable with {baseline_name} ({})",
            apart.join("; ")
        );
        if allow_ungated {
            (true, format!("NOT GATED (accepted by --allow-ungated): {why}"))
        } else {
            (
                false,
                format!(
                    "FAILED: not gated: {why}; profile the baseline again under the same valgrind and simulated cache, {accept}"
                ),
            )
        }
    } else if !over.is_empty() {
        (
            false,
            format!(
                "FAILED: {} operation(s) execute more than {threshold_pct}% more instructions than {baseline_name}: {}",
                over.len(),
                over.iter()
                    .map(|r| format!("{}{}", row_label(r), by_ranges(r)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    } else if !one_seed.is_empty() {
        let why = format!(
            "{} operation(s) execute more than {threshold_pct}% more instructions than {baseline_name}, but their random draws were not fixed by the seed and one side has one seed, so chance and change look alike: {}",
            one_seed.len(),
            one_seed.iter().map(|r| row_label(r)).collect::<Vec<_>>().join(", ")
        );
        if allow_ungated {
            (true, format!("NOT GATED (accepted by --allow-ungated): {why}"))
        } else {
            (
                false,
                format!(
                    "FAILED: not gated: {why}; profile both with --seeds 3 (their ranges over seeds are then compared), {accept}"
                ),
            )
        }
    } else {
        let unfixed = report
            .rows
            .iter()
            .filter(|r| !r.randomness_fixed && r.old_instructions != r.new_instructions)
            .count();
        (
            true,
            format!(
                "passed: no operation executes more than {threshold_pct}% more instructions than {baseline_name} ({} compared{})",
                report.rows.len(),
                if unfixed == 0 {
                    String::new()
                } else {
                    format!(
                        "; {unfixed} whose random draws the seed did not fix gated by their ranges over seeds"
                    )
                }
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

/// `ALG@IMPL op +1.234%`.
fn row_label(r: &ProfileRow) -> String {
    format!(
        "{}@{} {} {}",
        r.algorithm,
        r.implementation,
        r.operation.as_str(),
        change(r.old_instructions, r.new_instructions)
    )
}

/// How a regression of an operation whose draws were not fixed was judged.
fn by_ranges(r: &ProfileRow) -> &'static str {
    if r.randomness_fixed {
        ""
    } else {
        " (random draws not fixed: its range over seeds lies above the baseline's)"
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
    if report.rows.iter().any(|r| !r.randomness_fixed) {
        let _ = writeln!(
            out,
            "Where the seed did not fix an implementation's random draws, its counts vary across seeds: it fails when its range over seeds lies entirely above the baseline's and the medians differ by more than the threshold; overlapping ranges are within the draws' spread.\n"
        );
    }
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
                    Certainty::NotFixed => "random draws not fixed: within the seeds' spread",
                    Certainty::NotFixedOneSeed => {
                        "random draws not fixed, one seed: not gated"
                    }
                    Certainty::RangesOverlap => "within the seeds' spread",
                    Certainty::RangesApart if !r.randomness_fixed => {
                        "random draws not fixed: ranges over seeds apart"
                    }
                    Certainty::Exact | Certainty::RangesApart => "",
                }
            };
            let _ = writeln!(
                out,
                "| {}@{} | {} | {} | {} | {} | {} |",
                cell(&r.algorithm),
                cell(&r.shown_implementation()),
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
        let same = gate("base.json", &base, &base.clone(), 0.5, false);
        assert!(same.passed, "{}", same.verdict);
        assert!(same.markdown.contains("+0.000%"), "{}", same.markdown);

        let mut worse = base.clone();
        let op = &mut worse.results[0].operations[0];
        let before = op.instructions.median;
        let more = before + before / 100; // +1%
        op.instructions.per_seed.iter_mut().for_each(|n| *n = more);
        op.instructions = crate::record::profile::Spread::of(op.instructions.per_seed.clone());
        // The instructions added in a small function, not among the stored top functions
        // (those by inclusive count): the gate names it from the stacks.
        let function = "a_small_helper_made_slower".to_string();
        assert!(!op.analysis.functions.iter().any(|f| f.name == function));
        assert!(!op.analysis.folded.is_empty(), "the fixture has stacks");
        let root = op.analysis.folded[0].stack.clone();
        op.analysis.folded.push(crate::callgrind::FoldedStack {
            stack: format!("{root};{function}"),
            instructions: before / 100,
        });
        let g = gate("base.json", &base, &worse, 0.5, false);
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
        assert!(gate("base.json", &base, &worse, 2.0, false).passed);
        assert!(gate("new.json", &worse, &base, 0.5, false).passed);

        let mut other_valgrind = worse.clone();
        other_valgrind.measured.valgrind = "valgrind-3.99.0".into();
        let g = gate("base.json", &base, &other_valgrind, 0.5, false);
        assert!(!g.passed, "{}", g.verdict);
        assert!(
            g.verdict.starts_with("FAILED: not gated")
                && g.verdict.contains("valgrind-3.99.0")
                && g.verdict.contains("same valgrind")
                && g.verdict.contains("--allow-ungated"),
            "{}",
            g.verdict
        );
        let g = gate("base.json", &base, &other_valgrind, 0.5, true);
        assert!(g.passed && g.verdict.starts_with("NOT GATED (accepted by --allow-ungated)"), "{}", g.verdict);
        let mut other_cache = base.clone();
        other_cache.config.cache_geometry = "I1=65536,8,64".into();
        let g = gate("base.json", &base, &other_cache, 0.5, false);
        assert!(!g.passed && g.verdict.contains("simulated cache"), "{}", g.verdict);

        let mut nothing = base.clone();
        for r in &mut nothing.results {
            r.implementation = format!("{}-other", r.implementation);
        }
        let g = gate("base.json", &base, &nothing, 0.5, false);
        assert!(!g.passed && g.verdict.contains("nothing in common"), "{}", g.verdict);
    }

    /// The fixture with its working result's encaps counted `per_seed`, its draws fixed by
    /// the seed or not.
    fn encaps_counted(per_seed: Vec<u64>, fixed: bool) -> ProfileRecord {
        let mut p = fixture::profile();
        let r = &mut p.results[0];
        r.randomness.fixed = fixed;
        let op = &mut r.operations[1];
        assert_eq!(op.operation, crate::kem::Op::Encaps);
        op.instructions = crate::record::profile::Spread::of(per_seed);
        p
    }

    /// The certainty the gate's comparison gave encaps.
    fn encaps_certainty(old: &ProfileRecord, new: &ProfileRecord) -> Certainty {
        compare(old, new).rows[1].certainty
    }

    /// Counts that vary across seeds (the fixture's encaps: 19,800 to 20,600): a median 1%
    /// higher whose range overlaps the baseline's is within the spread and passes; a range
    /// entirely above it fails, naming the operation.
    #[test]
    fn varying_counts_are_gated_by_their_ranges() {
        let base = encaps_counted(vec![20_000, 20_600, 19_800], true);
        let overlap = encaps_counted(vec![20_200, 20_800, 20_000], true);
        assert_eq!(encaps_certainty(&base, &overlap), Certainty::RangesOverlap);
        let g = gate("base.json", &base, &overlap, 0.5, false);
        assert!(g.passed, "{}", g.verdict);
        assert!(g.markdown.contains("| encaps | 20,000 | 20,200 | +1.000% | within the seeds' spread |"), "{}", g.markdown);

        let apart = encaps_counted(vec![21_000, 21_600, 20_800], true);
        assert_eq!(encaps_certainty(&base, &apart), Certainty::RangesApart);
        let g = gate("base.json", &base, &apart, 0.5, false);
        assert!(!g.passed, "{}", g.verdict);
        assert!(g.verdict.contains("1 operation(s)") && g.verdict.contains("MockKEM@mock/correct encaps +5.000%"), "{}", g.verdict);
        assert!(!g.verdict.contains("not fixed"), "{}", g.verdict);
    }

    /// An implementation whose draws the seed did not fix (the PQClean crates, prebuilt
    /// libraries) is gated by its ranges over seeds: overlapping ranges pass as within the
    /// draws' spread, a range entirely above the baseline's fails and says how it was judged.
    #[test]
    fn unfixed_draws_are_gated_by_their_ranges_over_seeds() {
        let base = encaps_counted(vec![20_000, 20_600, 19_800], false);
        let overlap = encaps_counted(vec![20_200, 20_800, 20_000], false);
        assert_eq!(encaps_certainty(&base, &overlap), Certainty::NotFixed);
        let g = gate("base.json", &base, &overlap, 0.5, false);
        assert!(g.passed, "{}", g.verdict);
        assert!(g.verdict.contains("1 whose random draws the seed did not fix gated by their ranges"), "{}", g.verdict);
        assert!(g.markdown.contains("random draws not fixed: within the seeds' spread"), "{}", g.markdown);

        let apart = encaps_counted(vec![21_000, 21_600, 20_800], false);
        assert_eq!(encaps_certainty(&base, &apart), Certainty::RangesApart);
        let g = gate("base.json", &base, &apart, 0.5, false);
        assert!(!g.passed, "{}", g.verdict);
        assert!(
            g.verdict.contains("MockKEM@mock/correct encaps +5.000% (random draws not fixed: its range over seeds lies above the baseline's)"),
            "{}",
            g.verdict
        );
        assert!(g.markdown.contains("over the threshold"), "{}", g.markdown);
        // Fixed on one side only is not fixed.
        let half = encaps_counted(vec![21_000, 21_600, 20_800], true);
        assert_eq!(encaps_certainty(&base, &half), Certainty::RangesApart);
        assert!(!gate("base.json", &base, &half, 0.5, false).passed);
        // Fewer instructions, ranges apart, pass.
        let better = encaps_counted(vec![19_000, 19_200, 18_900], false);
        assert!(gate("base.json", &base, &better, 0.5, false).passed);
    }

    /// Unfixed draws over one seed give no spread to judge a difference by: more than the
    /// threshold fails as not gated (naming `--seeds` and `--allow-ungated`), and passes,
    /// saying so, with `--allow-ungated`; within the threshold it passes.
    #[test]
    fn unfixed_draws_over_one_seed_are_not_gated_and_fail_unless_accepted() {
        let base = encaps_counted(vec![20_000], false);
        let more = encaps_counted(vec![21_000], false);
        assert_eq!(encaps_certainty(&base, &more), Certainty::NotFixedOneSeed);
        let g = gate("base.json", &base, &more, 0.5, false);
        assert!(!g.passed, "{}", g.verdict);
        assert!(
            g.verdict.starts_with("FAILED: not gated: 1 operation(s)")
                && g.verdict.contains("MockKEM@mock/correct encaps +5.000%")
                && g.verdict.contains("--seeds 3")
                && g.verdict.contains("--allow-ungated"),
            "{}",
            g.verdict
        );
        assert!(g.markdown.contains("one seed: not gated"), "{}", g.markdown);
        let g = gate("base.json", &base, &more, 0.5, true);
        assert!(g.passed && g.verdict.starts_with("NOT GATED (accepted by --allow-ungated)"), "{}", g.verdict);
        let within = encaps_counted(vec![20_050], false);
        assert!(gate("base.json", &base, &within, 0.5, false).passed);
    }
}
