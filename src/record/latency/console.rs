//! What only the console shows of a run, beside its latency table: the instruction counts of
//! `run --instructions`, the builds matrix (per algorithm, rows of source × compiler, a column
//! per flag set, each cell the build's fastest-round median with its ratio to the baseline and
//! its deepest stack), and the notes on timers, counters, heap, drift and operations cut short.
//!
//! The console's default view ([`FIT`]) gives the exchange's matrix and summarises the notes
//! with the worst few (ending with where the rest is: [`crate::table::Tables::elsewhere`]);
//! `--wide` ([`WIDE`]) gives every operation's matrix and lists every note in full.

use super::matrix::{matrices, Matrix};
use super::{BenchResult, OperationResult, LatencyRecord, DRIFT};
use crate::kem::Op;
use crate::measure::sampler::StopReason;
use crate::record::Benchmark;
use crate::table::{Cell, Column, Table, Targets, ALL, CONSOLE, FIT, MARKDOWN, REPORT, WIDE};
use crate::units;

/// How many drifting or imprecise operations [`FIT`] names.
const WORST: usize = 3;

/// The instruction counts `run --instructions` added, beside the medians; no rows when none.
pub fn instructions(results: &[BenchResult]) -> Table {
    let mut t = Table::new("instructions");
    let cols = [
        t.add(Column::text("algorithm")),
        t.add(Column::text("implementation")),
        t.add(Column::text("op")),
        t.add(Column::num("instructions (callgrind)")),
        t.add(Column::num("median")),
        t.add(Column::num("instructions/ns")),
    ];
    t.view(CONSOLE, 0, &cols).caption(
        CONSOLE,
        "Instructions of one call under callgrind (exact; `kembench profile` shows where they go):",
    );
    for r in results {
        for o in &r.operations {
            let Some(n) = o.callgrind_instructions else {
                continue;
            };
            let per_ns = n as f64 / o.median_ns.max(f64::MIN_POSITIVE);
            let cells = [
                Cell::text(&r.algorithm),
                Cell::text(&r.implementation),
                Cell::text(o.operation.as_str()),
                Cell::num(units::thousands(n), n as f64),
                Cell::ns(o.median_ns),
                Cell::num(format!("{per_ns:.2}"), per_ns),
            ];
            let row = t.row(None);
            for (c, cell) in cols.iter().zip(cells) {
                row.set(*c, cell);
            }
        }
    }
    t
}

/// The builds matrices of a run (none when the run measured fewer than two builds of an
/// algorithm): the exchange's on the console, every operation's (keygen, encaps, decaps too)
/// with `--wide`; a blank line between two.
pub fn matrix_tables(rec: &LatencyRecord) -> Vec<Table> {
    let mut out: Vec<Table> = Vec::new();
    for (op, targets) in [
        (Op::Exchange, CONSOLE),
        (Op::Keygen, WIDE),
        (Op::Encaps, WIDE),
        (Op::Decaps, WIDE),
    ] {
        for m in matrices(rec, op) {
            if !out.is_empty() {
                out.push(Table::block("matrix-gap", targets, "\n"));
            }
            out.push(matrix(&m, targets));
        }
    }
    // Under the first matrix, the exchange's, which both views show.
    if let (Some(said), Some(first)) = (tree_sources(rec), out.first_mut()) {
        first.note(CONSOLE, said);
    }
    out
}

/// Versions side by side ([`super::versions`]): each operation of a build measured at two
/// versions of its library in this run, the newer over the older, with its interval and
/// verdict, among `items` (a streamed result alone has none); nothing when they hold one
/// version of each build.
pub fn versions(items: &[BenchResult]) -> Vec<Table> {
    let pairs = super::versions::side_by_side(items);
    if pairs.is_empty() {
        return Vec::new();
    }
    let mut t = Table::new("table-versions");
    let algorithm = t.add(Column::text("algorithm"));
    let op = t.add(Column::text("op"));
    // The console's cells take two lines (the older version above the newer); the Markdown
    // export's and the report's one value each.
    let pair = t.add(Column::text("from →\nto"));
    let medians = t.add(Column::num("median"));
    let ratio_ci = t.add(Column::num("to/from\n95% CI"));
    let from = t.add(Column::text("from"));
    let to = t.add(Column::text("to"));
    let from_median = t.add(Column::num("from median"));
    let to_median = t.add(Column::num("to median"));
    let ratio = t.add(Column::num("to/from"));
    let ci = t.add(Column::num("95% CI"));
    let verdict = t.add(Column::text("verdict"));
    let caption = "Versions side by side: the same build of two versions of one library, measured \
                   in the same interleaved rounds (median per call; ratio of medians with its \
                   bootstrap interval)";
    t.view(CONSOLE, 0, &[algorithm, op, pair, medians, ratio_ci, verdict])
        .view(
            MARKDOWN | REPORT,
            0,
            &[algorithm, op, from, to, from_median, to_median, ratio, ci, verdict],
        )
        .caption(ALL, caption);
    for v in &pairs {
        let c = &v.comparison;
        let (r, interval) = (
            format!("×{:.3}", c.ratio),
            format!("{:.3}–{:.3}", c.ratio_ci_low, c.ratio_ci_high),
        );
        let row = t.row(None);
        row.set(algorithm, v.algorithm.clone());
        row.set(op, v.operation.as_str().to_string());
        row.set(pair, format!("{} →\n{}", v.from, v.to));
        row.set(
            medians,
            format!(
                "{}\n{}",
                units::ns(v.from_median_ns),
                units::ns(v.to_median_ns)
            ),
        );
        row.set(ratio_ci, format!("{r}\n{interval}"));
        row.set(from, v.from.clone());
        row.set(to, v.to.clone());
        row.set(from_median, units::ns(v.from_median_ns));
        row.set(to_median, units::ns(v.to_median_ns));
        row.set(ratio, r);
        row.set(ci, interval);
        row.set(
            verdict,
            match c.verdict {
                crate::stats::Verdict::Faster => "faster",
                crate::stats::Verdict::Slower => "slower",
                crate::stats::Verdict::WithinNoise => "within noise",
            }
            .to_string(),
        );
    }
    vec![t]
}

/// The source trees (`builds --source`) the run's builds were compiled from, one line each:
/// which version of which tree, at which commit or content digest.
fn tree_sources(rec: &LatencyRecord) -> Option<String> {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for b in &rec.environment.builds {
        let source = b.source.split('/').next().unwrap_or_default();
        if source.contains('+') && !seen.iter().any(|(s, _)| *s == source) {
            seen.push((source, &b.source_version));
        }
    }
    (!seen.is_empty()).then(|| {
        let said: Vec<String> = seen
            .iter()
            .map(|(s, v)| format!("{s}: {}", units::visible(v)))
            .collect();
        format!("Source trees: {}.", said.join("; "))
    })
}

/// One algorithm's matrix for `targets`.
fn matrix(m: &Matrix, targets: Targets) -> Table {
    let mut t = Table::new(&format!("matrix-{}-{}", m.algorithm, m.operation.as_str()));
    let mut cols = vec![t.add(Column::text("source / compiler"))];
    for f in &m.flag_sets {
        let f = if f.is_empty() { "(no flags)" } else { f };
        cols.push(t.add(Column::text(&if crate::kem::flags_unoptimised(f) {
            format!("{f} (unoptimised)")
        } else {
            f.to_string()
        })));
    }
    t.view(targets, 0, &cols).caption(
        targets,
        format!(
            "Builds of {}: {} per build (fastest round's median; ratio to {}); ★ fastest",
            m.algorithm,
            m.operation.as_str(),
            m.baseline.as_deref().unwrap_or("no baseline")
        ),
    );
    for r in &m.rows {
        let row = t.row(None);
        row.set(cols[0], format!("{}\n{}", r.source, r.compiler));
        for (c, cell) in cols[1..].iter().zip(&r.cells) {
            row.set(
                *c,
                match cell {
                    None => "–".to_string(),
                    Some(c) => format!(
                        "{}{}\n{}stack {}",
                        units::ns(c.median_ns),
                        if c.fastest { " ★" } else { "" },
                        c.ratio
                            .map(|r| format!("×{}  ", units::sig3(r)))
                            .unwrap_or_default(),
                        c.max_stack_bytes.map_or("–".into(), units::bytes),
                    ),
                },
            );
        }
    }
    if let Some(f) = &m.fastest {
        t.note(
            targets,
            format!("Fastest build (SUPERCOP's choice; every timed build passed the gate): {f}."),
        );
    }
    if let Some((r, f, x)) = &m.speedup {
        t.note(
            targets,
            format!("Reference → fastest: {r} → {f}, {x:.2}× faster."),
        );
    }
    if m.rows
        .iter()
        .flat_map(|r| &r.cells)
        .flatten()
        .any(|c| c.unoptimised)
    {
        t.note(
            targets,
            "Columns marked unoptimised were built without -O: no speed-up is quoted against \
             them unless nothing else was built.",
        );
    }
    t
}

/// Every operation that `pick` selects, as `algorithm@implementation operation`, in table
/// order.
fn picked(
    record: &LatencyRecord,
    pick: impl Fn(&OperationResult) -> bool,
) -> Vec<(String, &OperationResult)> {
    let mut out = Vec::new();
    for r in &record.results {
        for o in r.operations.iter().filter(|o| pick(o)) {
            out.push((format!("{} {}", r.label(), o.operation.as_str()), o));
        }
    }
    out
}

/// `label: detail` for every operation in `ops`, for [`WIDE`].
fn all_of(
    ops: &[(String, &OperationResult)],
    detail: impl Fn(&OperationResult) -> String,
) -> Vec<String> {
    ops.iter()
        .map(|(label, o)| format!("{label}: {}", detail(o)))
        .collect()
}

/// `label detail` for the [`WORST`] operations of `ops` by `key`, largest first, for [`FIT`].
fn worst_of(
    ops: &[(String, &OperationResult)],
    key: impl Fn(&OperationResult) -> f64,
    detail: impl Fn(&OperationResult) -> String,
) -> String {
    let mut v: Vec<&(String, &OperationResult)> = ops.iter().collect();
    v.sort_by(|a, b| key(b.1).total_cmp(&key(a.1)));
    v.iter()
        .take(WORST)
        .map(|(label, o)| format!("{label} {}", detail(o)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Timers, counters, heap, drift and cut-short notes below the tables. [`FIT`] counts the
/// drifting and imprecise operations and names the worst few; [`WIDE`] lists them all.
pub fn notes(record: &LatencyRecord) -> Vec<(Targets, String)> {
    let t = &record.measured.timers;
    let timers = |wide: bool| {
        let tsc = match (t.tsc, t.tsc_ticks_per_ns) {
            (Some(p), Some(r)) => format!(
                "; TSC resolution {:.0} / read {:.0} ticks at {:.3} ticks/ns{}",
                p.resolution,
                p.overhead,
                r,
                // Said beside the TSC column, which only the wide table has.
                if wide {
                    " (TSC ticks are not core cycles)"
                } else {
                    ""
                }
            ),
            _ => String::new(),
        };
        format!(
            "Timers: clock resolution {} / read {}{tsc}.",
            units::ns(t.clock.resolution),
            units::ns(t.clock.overhead),
        )
    };
    let mut out = vec![(FIT, timers(false)), (WIDE, timers(true))];
    if let Some(why) = &record.measured.counters_unavailable {
        out.push((
            CONSOLE,
            format!("Hardware counters (cycles, instructions, branch and cache misses) unavailable: {why}."),
        ));
    }
    if !record.measured.heap_includes_c_allocations {
        out.push((
            CONSOLE,
            "Heap figures unavailable: the malloc interposer is not active in this binary.".into(),
        ));
    }
    out.extend(lists(record).into_iter().map(|s| (WIDE, s)));
    out.extend(summary(record).into_iter().map(|s| (FIT, s)));
    out
}

/// [`WIDE`]: every drifting and every imprecise operation.
fn lists(record: &LatencyRecord) -> Vec<String> {
    let mut out = Vec::new();
    let drifted = all_of(&picked(record, OperationResult::drifted), |o| {
        format!("rounds {:.0}% apart", o.round_spread * 100.0)
    });
    if !drifted.is_empty() {
        out.push(format!(
            "Round medians more than {:.0}% apart, so the machine's speed changed during the run ({} operations): {}",
            DRIFT * 100.0,
            drifted.len(),
            drifted.join(", ")
        ));
    }
    let cut = all_of(
        &picked(record, |o| o.stop_reason != StopReason::Precision),
        |o| {
            format!(
                "{} samples, ±{:.1}% ({})",
                o.samples,
                o.achieved_precision * 100.0,
                o.stop_reason.as_str()
            )
        },
    );
    if !cut.is_empty() {
        let mut s = format!(
            "Stopped before the median's 95% interval reached ±{:.1}% ({} of the operations):",
            record.config.sampler.target_precision * 100.0,
            cut.len()
        );
        for c in cut {
            s.push_str(&format!("\n  {c}"));
        }
        out.push(s);
    }
    out
}

/// [`FIT`]: how many operations drifted or stopped short, and the worst few of each.
fn summary(record: &LatencyRecord) -> Vec<String> {
    let mut out = Vec::new();
    let total: usize = record.results.iter().map(|r| r.operations.len()).sum();
    let drifted = picked(record, OperationResult::drifted);
    if !drifted.is_empty() {
        out.push(format!(
            "Drift: in {} of {total} operations the round medians are more than {:.0}% apart, so the machine's speed changed during the run{}: {}.",
            drifted.len(),
            DRIFT * 100.0,
            if drifted.len() > WORST { "; the widest" } else { "" },
            worst_of(&drifted, |o| o.round_spread, |o| format!("{:.0}%", o.round_spread * 100.0)),
        ));
    }
    let cut = picked(record, |o| o.stop_reason != StopReason::Precision);
    if !cut.is_empty() {
        out.push(format!(
            "Imprecise: {} of {total} operations stopped before the median's 95% interval reached ±{:.1}%{}: {}.",
            cut.len(),
            record.config.sampler.target_precision * 100.0,
            if cut.len() > WORST { "; the least precise" } else { "" },
            worst_of(&cut, |o| o.achieved_precision, |o| format!(
                "±{:.1}% ({}, {} samples)",
                o.achieved_precision * 100.0,
                o.stop_reason.label(),
                o.samples
            )),
        ));
    }
    out
}

/// The constant-time verdicts of a run's builds (`run` looks them up in the store's ct
/// records): per algorithm with two builds or more, each build's verdict and exchange figure,
/// the fastest build among those advised (★: neither an unexplained finding nor a known issue)
/// and the faster ones passed over. No table when the run measured no builds matrix or no
/// build was screened.
pub fn screening(rec: &LatencyRecord, verdicts: &crate::record::ct::Verdicts) -> Vec<Table> {
    if verdicts.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for m in super::matrix::matrices_with(rec, Op::Exchange, verdicts) {
        let mut t = Table::new(&format!("screening-{}", m.algorithm));
        let cols = [
            t.add(Column::text("build")),
            t.add(Column::text("constant-time verdict")),
            t.add(Column::num("exchange")),
        ];
        t.view(CONSOLE, 0, &cols).caption(
            CONSOLE,
            format!(
                "Builds of {} with their constant-time verdicts (latest ct record in the store \
                 per build); ★ fastest among builds with neither an unexplained finding nor a \
                 known issue",
                m.algorithm
            ),
        );
        let mut cells: Vec<&super::matrix::Cell> =
            m.rows.iter().flat_map(|r| r.cells.iter().flatten()).collect();
        cells.sort_by(|a, b| a.median_ns.total_cmp(&b.median_ns));
        for c in cells {
            let row = t.row(None);
            row.set(cols[0], c.implementation.clone());
            row.set(cols[1], c.screening.unwrap_or("not screened").to_string());
            row.set(
                cols[2],
                Cell::num(
                    format!("{}{}", units::ns(c.median_ns), if c.fastest { " ★" } else { "" }),
                    c.median_ns,
                ),
            );
        }
        if !m.passed_over.is_empty() {
            let names: Vec<String> = m
                .passed_over
                .iter()
                .map(|(id, v)| format!("{id} ({})", v.as_str()))
                .collect();
            t.note(
                CONSOLE,
                format!(
                    "Faster, passed over for their verdict: {}; `kembench show` of the ct run \
                     names the findings.",
                    names.join(", ")
                ),
            );
        }
        out.push(t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::output::{Width, WIDTH};
    use crate::record::latency::tables::latency;
    use crate::record::{Failure, FailureKind};

    /// The latency table as the console shows it in `layout`.
    fn table(results: &[BenchResult], layout: Width) -> String {
        crate::output::shown(&latency(results), layout)
    }

    /// What the console says under the tables in `layout`, from the timers on.
    fn notes(r: &LatencyRecord, layout: Width, elsewhere: &[String]) -> String {
        let all = crate::output::tables(r, layout, elsewhere);
        all[all.find("Timers:").expect("the timers are said")..].to_string()
    }

    /// The fixture under the longest real names, with a crash, a failed check and a stopped
    /// benchmark whose messages are long, and `drifted` operations with growing spreads.
    fn record(drifted: usize) -> LatencyRecord {
        let mut r = fixture::run();
        let good = r.results[0].clone();
        let named = |alg: &str, imp: &str| BenchResult {
            algorithm: alg.into(),
            implementation: imp.into(),
            ..good.clone()
        };
        let long =
            "the worker's last words were a very long explanation that goes on and on about \
                    what it was doing when it died, far beyond any terminal's width";
        let mut crashed = named("Classic-McEliece-6688128", "libcrux/portable");
        crashed.operations.truncate(1);
        crashed.failure = Some(Failure {
            kind: FailureKind::Crashed,
            signal: Some(11),
            signal_name: Some("SIGSEGV".into()),
            exit_code: None,
            during: "encaps round 3/5".into(),
            detail: format!("killed by SIGSEGV during encaps round 3/5: {long}"),
        });
        let mut broken = named("X25519MLKEM768", "openssl");
        broken.operations.clear();
        broken.correctness = crate::verify::Outcome::Fail(long.into());
        let mut stopped = named("ntruhps4096821", "pqclean/avx2");
        stopped.error = Some(long.into());
        r.results = vec![
            named("Classic-McEliece-6688128", "liboqs"),
            crashed,
            broken,
            stopped,
        ];
        let mut k = 0;
        for b in &mut r.results {
            for o in &mut b.operations {
                if k < drifted {
                    o.round_spread = 0.06 + k as f64 / 100.0;
                    o.stop_reason = StopReason::RoundsDisagree;
                    o.achieved_precision = 0.011 + k as f64 / 1000.0;
                }
                k += 1;
            }
        }
        r
    }

    fn widest(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    #[test]
    fn the_default_table_fits_and_names_each_algorithm_once() {
        let r = record(6);
        let text = table(&r.results, Width::Fit);
        assert!(widest(&text) <= WIDTH, "{text}");
        assert_eq!(
            text.matches("Classic-McEliece-6688128").count(),
            2,
            "{text}"
        );
        assert!(
            !text.contains("TSC ticks") && !text.contains("cycles"),
            "{text}"
        );
        for word in ["CRASHED", "NOT TIMED", "STOPPED"] {
            assert!(text.contains(word), "{word}: {text}");
        }
        // The messages follow the table whole, wrapped.
        let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words(&text).contains(
            "[1] Classic-McEliece-6688128@libcrux/portable CRASHED: killed by SIGSEGV during encaps round 3/5: the worker's"
        ), "{text}");
        assert!(
            words(&text).contains("far beyond any terminal's width"),
            "{text}"
        );
        assert!(text.contains("drift 6%"), "{text}");
        assert!(text.contains("µs ±"), "{text}");
    }

    #[test]
    fn the_wide_table_has_every_column_and_every_message_in_its_row() {
        let r = record(1);
        let text = table(&r.results, Width::Wide);
        for col in [
            "TSC ticks",
            "cycles",
            "p25 – p75",
            "allocs",
            "share",
            "±CI95",
        ] {
            assert!(text.contains(col), "{col}: {text}");
        }
        assert!(text.lines().any(|l| l
            .contains("NOT TIMED: correctness check failed: the worker's")
            && l.contains("far beyond any terminal's width")));
        assert!(text.contains("rounds differ 6%, best round"), "{text}");
        assert!(widest(&text) > WIDTH);
    }

    #[test]
    fn default_notes_count_and_name_the_worst_three() {
        let r = record(7);
        let where_ = crate::output::elsewhere(
            Some("20261123-193239-b4df30e4"),
            Some(std::path::Path::new("r.json")),
        );
        let text = notes(&r, Width::Fit, &where_);
        assert!(widest(&text) <= WIDTH, "{text}");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("Drift: in 7 of 9 operations"), "{flat}");
        assert!(flat.contains("the widest: ntruhps4096821@pqclean/avx2 encaps 12%, ntruhps4096821@pqclean/avx2 keygen 11%, Classic-McEliece-6688128@libcrux/portable keygen 10%."), "{flat}");
        assert!(flat.contains("Imprecise: 8 of 9 operations"), "{flat}");
        assert!(
            flat.contains("±1.7% (rounds disagree, 40 samples)"),
            "{flat}"
        );
        assert!(flat.contains(
            "`kembench show 20261123-193239-b4df30e4 --wide`, `kembench report 20261123-193239-b4df30e4`, r.json."
        ), "{flat}");
        assert_eq!(flat.matches("@").count(), 6, "three of each: {flat}");
        // Nothing stored, nothing written: say how to see the rest.
        assert!(notes(&r, Width::Fit, &[]).contains("`--wide` shows every column"));
    }

    #[test]
    fn builds_show_the_exchange_matrix_by_default_and_every_operation_wide() {
        let r = fixture::run_with_builds();
        let fit = crate::output::tables(&r, Width::Fit, &[]);
        let wide = crate::output::tables(&r, Width::Wide, &[]);
        let count = |t: &str, what: &str| t.matches(what).count();
        let algorithms = count(&fit, "Builds of ");
        assert!(algorithms >= 1, "{fit}");
        assert_eq!(count(&fit, ": exchange per build"), algorithms, "{fit}");
        assert_eq!(count(&fit, ": keygen per build"), 0, "{fit}");
        for op in ["exchange", "keygen", "encaps", "decaps"] {
            assert_eq!(count(&wide, &format!(": {op} per build")), algorithms, "{op}: {wide}");
        }
        assert!(fit.contains("★") && fit.contains("Fastest build (SUPERCOP's choice"));
        // One blank line between two matrices, none before the first.
        assert_eq!(count(&wide, "\n\nBuilds of "), 4 * algorithms - 1, "{wide}");
        assert!(!fit.contains("Instructions of one call"), "no counts, no table");
        assert!(!fit.contains("Source trees"), "builds of carried sources only");
    }

    /// Builds from a source tree (`builds --source`): the tree each came from is said.
    #[test]
    fn builds_from_source_trees_name_their_trees() {
        let mut r = fixture::run_with_builds();
        let b = &mut r.environment.builds[0];
        b.source = "liboqs-0.16.0+g1a2b3c4/generic".into();
        b.source_version = "liboqs 0.16.0 tree /src/liboqs (git 1a2b3c4d)".into();
        let fit = crate::output::tables(&r, Width::Fit, &[]);
        assert!(
            fit.contains(
                "Source trees: liboqs-0.16.0+g1a2b3c4: liboqs 0.16.0 tree /src/liboqs (git 1a2b3c4d)."
            ),
            "{fit}"
        );
    }

    #[test]
    fn instruction_counts_get_their_table_on_both_views() {
        let mut r = fixture::run();
        r.results[0].operations[0].callgrind_instructions = Some(123_456);
        for layout in [Width::Fit, Width::Wide] {
            let text = crate::output::tables(&r, layout, &[]);
            let at = text.find("Instructions of one call under callgrind").expect("caption");
            assert!(text[at..].contains("123,456"), "{text}");
        }
    }

    #[test]
    fn wide_notes_list_every_operation() {
        let r = record(7);
        let text = notes(&r, Width::Wide, &[]);
        assert!(text.contains("(7 operations)"), "{text}");
        assert!(text.contains("(8 of the operations)"), "{text}");
        assert_eq!(text.matches(": rounds ").count(), 7, "{text}");
        assert_eq!(text.matches(" samples, ±").count(), 8, "{text}");
        assert!(text.contains("(TSC ticks are not core cycles)"));
        assert!(!text.contains("kembench show"));
    }
}

