//! The console tables of a latency run (`run`, `show`): one row per operation (described once,
//! with the record: [`crate::record::run::tables`]), the instruction counts of
//! `run --instructions`, then the notes on timers, counters, drift and operations cut short.
//!
//! [`Width::Fit`] shows the headline columns within [`super::WIDTH`] columns and summarises
//! the notes with the worst few; [`Width::Wide`] shows every column and lists every note in
//! full.

use super::{num, prose, wrap, Width};
use crate::measure::sampler::StopReason;
use crate::record::run::tables::latency;
use crate::record::run::{BenchResult, OperationResult, RunRecord, DRIFT};
use crate::record::Benchmark;
use crate::units;
use comfy_table::Cell;
use std::path::Path;

/// How many drifting or imprecise operations [`Width::Fit`] names.
const WORST: usize = 3;

/// The console table of a run's results, with a newline after it (and in [`Width::Fit`],
/// the failure messages its rows point to), then the instruction counts if any.
pub fn table(results: &[BenchResult], layout: Width) -> String {
    let mut out = super::shown(&latency(results), layout);
    out.push_str(&instructions(results));
    out
}

/// The instruction counts `run --instructions` added, beside the medians; empty when none.
fn instructions(results: &[BenchResult]) -> String {
    let mut t = super::table(&[
        "algorithm",
        "implementation",
        "op",
        "instructions (callgrind)",
        "median",
        "instructions/ns",
    ]);
    let mut any = false;
    for r in results {
        for o in &r.operations {
            let Some(n) = o.callgrind_instructions else {
                continue;
            };
            any = true;
            t.add_row(vec![
                Cell::new(&r.algorithm),
                Cell::new(&r.implementation),
                Cell::new(o.operation.as_str()),
                num(crate::units::thousands(n)),
                num(units::ns(o.median_ns)),
                num(format!(
                    "{:.2}",
                    n as f64 / o.median_ns.max(f64::MIN_POSITIVE)
                )),
            ]);
        }
    }
    if any {
        format!("Instructions of one call under callgrind (exact; `kembench profile` shows where they go):\n{t}\n")
    } else {
        String::new()
    }
}

/// Every operation that `pick` selects, as `algorithm@implementation operation`, in table
/// order.
fn picked(
    record: &RunRecord,
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

/// `label: detail` for every operation in `ops`, for [`Width::Wide`].
fn all_of(
    ops: &[(String, &OperationResult)],
    detail: impl Fn(&OperationResult) -> String,
) -> Vec<String> {
    ops.iter()
        .map(|(label, o)| format!("{label}: {}", detail(o)))
        .collect()
}

/// `label detail` for the [`WORST`] operations of `ops` by `key`, largest first, for
/// [`Width::Fit`].
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

/// Where a run's full detail can be read: `show --wide` and `report` when it is in the store
/// (`stored_id`), and its JSON file when one was written.
pub fn elsewhere(stored_id: Option<&str>, json: Option<&Path>) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(id) = stored_id {
        v.push(format!("`kembench show {id} --wide`"));
        v.push(format!("`kembench report {id}`"));
    }
    if let Some(p) = json {
        v.push(p.display().to_string());
    }
    v
}

/// Timers, counters, heap, drift and cut-short notes below the table. [`Width::Fit`]
/// counts the drifting and imprecise operations, names the worst few and ends with where the
/// full detail is (`elsewhere`, from [`elsewhere`]); [`Width::Wide`] lists them all.
pub fn notes(record: &RunRecord, layout: Width, elsewhere: &[String]) -> String {
    let t = &record.measured.timers;
    let tsc = match (t.tsc, t.tsc_ticks_per_ns) {
        (Some(p), Some(r)) => format!(
            "; TSC resolution {:.0} / read {:.0} ticks at {:.3} ticks/ns{}",
            p.resolution,
            p.overhead,
            r,
            // Said beside the TSC column, which only the wide table has.
            if layout == Width::Wide {
                " (TSC ticks are not core cycles)"
            } else {
                ""
            }
        ),
        _ => String::new(),
    };
    let mut out = prose(
        layout,
        &format!(
            "Timers: clock resolution {} / read {}{tsc}.",
            units::ns(t.clock.resolution),
            units::ns(t.clock.overhead),
        ),
    );
    if let Some(why) = &record.measured.counters_unavailable {
        out.push_str(&prose(
            layout,
            &format!("Hardware counters (cycles, instructions, branch and cache misses) unavailable: {why}."),
        ));
    }
    if !record.measured.heap_includes_c_allocations {
        out.push_str(
            "Heap figures unavailable: the malloc interposer is not active in this binary.\n",
        );
    }
    out.push_str(&match layout {
        Width::Wide => lists(record),
        Width::Fit => summary(record, elsewhere),
    });
    out
}

/// [`Width::Wide`]: every drifting and every imprecise operation.
fn lists(record: &RunRecord) -> String {
    let mut out = String::new();
    let drifted = all_of(&picked(record, OperationResult::drifted), |o| {
        format!("rounds {:.0}% apart", o.round_spread * 100.0)
    });
    if !drifted.is_empty() {
        out.push_str(&format!(
            "Round medians more than {:.0}% apart, so the machine's speed changed during the run ({} operations): {}\n",
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
        out.push_str(&format!(
            "Stopped before the median's 95% interval reached ±{:.1}% ({} of the operations):\n",
            record.config.sampler.target_precision * 100.0,
            cut.len()
        ));
        for c in cut {
            out.push_str(&format!("  {c}\n"));
        }
    }
    out
}

/// [`Width::Fit`]: how many operations drifted or stopped short, the worst few of each, and
/// where the rest is.
fn summary(record: &RunRecord, elsewhere: &[String]) -> String {
    let mut out = String::new();
    let total: usize = record.results.iter().map(|r| r.operations.len()).sum();
    let drifted = picked(record, OperationResult::drifted);
    if !drifted.is_empty() {
        out.push_str(&wrap(
            &format!(
                "Drift: in {} of {total} operations the round medians are more than {:.0}% apart, so the machine's speed changed during the run{}: {}.",
                drifted.len(),
                DRIFT * 100.0,
                if drifted.len() > WORST { "; the widest" } else { "" },
                worst_of(&drifted, |o| o.round_spread, |o| format!("{:.0}%", o.round_spread * 100.0)),
            ),
            2,
        ));
    }
    let cut = picked(record, |o| o.stop_reason != StopReason::Precision);
    if !cut.is_empty() {
        out.push_str(&wrap(
            &format!(
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
            ),
            2,
        ));
    }
    out.push_str(&wrap(
        &if elsewhere.is_empty() {
            "This run is not stored: `--wide` shows every column and every note, `--json FILE` keeps every figure.".to_string()
        } else {
            format!("Every column and the full lists: {}.", elsewhere.join(", "))
        },
        2,
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::output::WIDTH;
    use crate::record::run::{Failure, FailureKind};

    /// The fixture under the longest real names, with a crash, a failed check and a stopped
    /// benchmark whose messages are long, and `drifted` operations with growing spreads.
    fn record(drifted: usize) -> RunRecord {
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
        let where_ = elsewhere(Some("20261123-193239-b4df30e4"), Some(Path::new("r.json")));
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
