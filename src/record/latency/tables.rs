//! The latency table of a run, described once for the console, the Markdown export and the
//! report: one row per operation, with how a benchmark ended badly after (or instead of) its
//! operations; with what only the console shows ([`super::console`]).
//!
//! The console's default view shows the headline columns (median with its interval, ops/s,
//! heap, stack, a short note) within 120 columns, failure messages as numbered notes under the
//! table; `--wide` shows every column and every message in its row. The Markdown export has
//! every figure; the report the timed operations with their family, level and why sampling
//! stopped.

use super::{console, BenchResult, FailureKind, OperationResult, LatencyRecord};
use crate::measure::counters::Counters;
use crate::kem::Op;
use crate::measure::sampler::StopReason;
use crate::record::Benchmark;
use crate::table::{
    level_text, Cell, Column, Mark, Table, Tables, Tags, Target, CONSOLE, FIT, MARKDOWN, REPORT,
    WIDE,
};
use crate::units;
use crate::verify::Outcome;

/// Every table of `record` over `items` (its results, or while the Markdown export streams,
/// one result or the first few), with what is said around them.
pub fn tables(record: &LatencyRecord, items: &[BenchResult]) -> Tables {
    let e = &record.environment;
    Tables {
        title: format!("kembench run, {}", record.started_at),
        intro: vec![(
            MARKDOWN,
            format!(
                "Host {}: {} ({} logical CPUs), {}; kembench {} ({}), {}.",
                crate::table::code(&e.hostname),
                e.cpu.model,
                e.cpu.logical_cpus,
                e.kernel,
                e.build.kembench_version,
                e.build.git_commit,
                e.build.rustc,
            ),
        )],
        tables: [vec![latency(items), console::instructions(items)], console::versions(items), console::matrix_tables(record)].concat(),
        outro: [vec![(
            MARKDOWN,
            format!(
                "Method: per-call latency from the monotonic clock after warm-up; median with a 95% bootstrap interval; TSC ticks are time-stamp-counter ticks, not core cycles; cycles come from hardware counters{}.",
                record.measured
                    .counters_unavailable
                    .as_ref()
                    .map_or(String::new(), |w| format!(" (unavailable here: {w})"))
            ),
        )], console::notes(record)].concat(),
        rest_elsewhere: true,
    }
}

/// Why sampling stopped, when it was not the target precision.
fn stop_note(o: &OperationResult) -> Option<String> {
    match o.stop_reason {
        StopReason::Precision => None,
        StopReason::BelowMinimum => Some("BELOW MIN SAMPLES".to_string()),
        other => Some(other.label().to_string()),
    }
}

/// The note of `--wide`: stop reason, drift with the best round, batch size.
fn wide_note(o: &OperationResult) -> String {
    let mut n: Vec<String> = stop_note(o).into_iter().collect();
    if o.drifted() {
        n.push(format!(
            "rounds differ {:.0}%{}",
            o.round_spread * 100.0,
            o.best_round_median_ns
                .map_or(String::new(), |b| format!(", best round {}", units::ns(b)))
        ));
    }
    if o.batch > 1 {
        n.push(format!("×{} per sample", o.batch));
    }
    n.join(", ")
}

/// The note of the console's default view, in words short enough that it takes two lines at
/// most in a narrow column: why sampling stopped short, and drift. Rounds that disagree
/// because the machine drifted are said once, as the drift.
fn short_note(o: &OperationResult) -> String {
    let stop = match o.stop_reason {
        StopReason::Precision => None,
        StopReason::RoundsDisagree if o.drifted() => None,
        StopReason::RoundsDisagree => Some("rounds vary"),
        StopReason::Budget => Some("budget"),
        StopReason::MaxSamples => Some("sample cap"),
        StopReason::BelowMinimum => Some("few samples"),
    };
    let drift = o
        .drifted()
        .then(|| format!("drift {:.0}%", o.round_spread * 100.0));
    stop.map(str::to_string)
        .into_iter()
        .chain(drift)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The median's 95% interval as a percentage of the median, either side.
fn half_interval_pct(o: &OperationResult) -> f64 {
    (o.median_ci95_high_ns - o.median_ci95_low_ns) / 2.0 / o.median_ns * 100.0
}

/// How a benchmark ended badly, as console rows after its operations (or instead of them): a
/// word for the row (`CRASHED`) and the detail.
fn problems(r: &BenchResult) -> Vec<(&'static str, String)> {
    let failure = r.failure.as_ref().map(|f| {
        let word = match f.kind {
            FailureKind::Crashed => "CRASHED",
            FailureKind::TimedOut => "TIMED OUT",
            FailureKind::Interrupted => "INTERRUPTED",
        };
        (word, f.detail.clone())
    });
    if r.operations.is_empty() {
        let why = match (&r.correctness, failure) {
            (Outcome::Fail(w), _) => ("NOT TIMED", format!("correctness check failed: {w}")),
            (_, Some(f)) => f,
            _ => (
                "NOT MEASURED",
                r.error.clone().unwrap_or_else(|| "unknown".into()),
            ),
        };
        return vec![why];
    }
    r.error
        .iter()
        .map(|e| ("STOPPED", e.clone()))
        .chain(failure)
        .collect()
}

/// An optional figure: its cell, or `none` (right-aligned) when it was not measured.
fn or(v: Option<Cell>, none: &str) -> Cell {
    v.unwrap_or_else(|| Cell::right(none))
}

/// One row per operation of `items`; the Markdown export streams it. The report shows the
/// operations of the benchmarks that passed their check.
pub fn latency(items: &[BenchResult]) -> Table {
    let mut t = Table::new("table-latency");
    let algorithm = t.add(Column::text("algorithm"));
    let implementation = t.add(Column::text("implementation"));
    let family = t.add(Column::text("family"));
    let level = t.add(Column::num("level"));
    let op = t.add(Column::text("op").named(MARKDOWN, "operation"));
    let median_ci = t.add(Column::num("median ±CI95"));
    let median = t.add(Column::num("median"));
    let half = t.add(Column::num("±CI95"));
    let ci = t.add(Column::num("95% CI of median").text_in(REPORT));
    let quartiles = t.add(Column::num("p25 – p75").text_in(REPORT));
    // The console's default view leaves these out, the last first, when long names (a build
    // id with its flags) would push it past 120 columns: `--wide` has them.
    let rate = t.add(Column::num("ops/s").optional());
    let tsc = t.add(Column::num("TSC ticks"));
    let cycles = t.add(Column::num("cycles"));
    let heap = t.add(Column::num("peak heap").named(FIT, "heap").optional());
    let allocs = t.add(Column::num("allocs"));
    let stack = t.add(Column::num("stack").optional());
    let share = t.add(Column::num("share"));
    let samples = t.add(Column::num("n").named(MARKDOWN | REPORT, "samples"));
    let short = t.add(Column::text("note").wraps());
    let note = t.add(Column::text("note"));
    let stop = t.add(Column::text("stop"));
    let names = [algorithm, implementation, op];
    let counts = [rate, tsc, cycles, heap, allocs, stack, share, samples];
    let fit = [median_ci, rate, heap, stack, short];
    t.view(FIT, 2, &[&names[..], &fit].concat())
        .view(
            WIDE,
            0,
            &[&names[..], &[median, half, quartiles], &counts, &[note]].concat(),
        )
        .view(
            MARKDOWN,
            0,
            &[&names[..], &[median, ci, quartiles], &counts].concat(),
        )
        .view(
            REPORT,
            0,
            &[
                algorithm,
                implementation,
                family,
                level,
                op,
                median,
                ci,
                quartiles,
                rate,
                tsc,
                cycles,
                samples,
                stop,
            ],
        )
        .always(CONSOLE | MARKDOWN)
        .folded()
        .streamed();
    for r in items {
        let tags = Some(Tags::new(&r.family, r.nist_level, &r.implementation));
        let timed = if r.correctness.failed() {
            CONSOLE | MARKDOWN
        } else {
            CONSOLE | MARKDOWN | REPORT
        };
        for o in &r.operations {
            let half_pct = half_interval_pct(o);
            let interval = if half_pct < 9.95 {
                format!("±{half_pct:.1}%")
            } else {
                format!("±{half_pct:.0}%")
            };
            let index = Op::ALL.iter().position(|x| *x == o.operation).unwrap_or(0);
            let (low, high) = (o.median_ci95_low_ns, o.median_ci95_high_ns);
            let batch = if o.batch > 1 {
                format!(" ×{}", o.batch)
            } else {
                String::new()
            };
            t.row(tags.clone())
                .only(timed)
                .set(algorithm, &r.algorithm)
                .set(implementation, &r.implementation)
                .set(family, &r.family)
                .set(
                    level,
                    Cell::num(
                        level_text(r.nist_level),
                        r.nist_level.map_or(0.0, f64::from),
                    ),
                )
                .set(op, Cell::text(o.operation.as_str()).sorted(index as f64))
                .set(
                    median_ci,
                    Cell::right(format!("{} {interval}", units::ns(o.median_ns))),
                )
                .set(median, Cell::ns(o.median_ns))
                .set(half, Cell::right(format!("{half_pct:.1}%")))
                .set(
                    ci,
                    Cell::num(
                        format!("{} – {}", units::ns(low), units::ns(high)),
                        high - low,
                    ),
                )
                .set(
                    quartiles,
                    Cell::num(
                        format!("{} – {}", units::ns(o.p25_ns), units::ns(o.p75_ns)),
                        o.p75_ns - o.p25_ns,
                    ),
                )
                .set(rate, Cell::count(o.ops_per_sec))
                .set(
                    tsc,
                    o.tsc_median_ticks
                        .map_or(Cell::right("-").on(REPORT, "n/a"), Cell::count),
                )
                .set(
                    cycles,
                    match &o.counters {
                        Counters::Measured(c) => Cell::count(c.cycles),
                        Counters::Unavailable(_) => Cell::right("n/a"),
                    },
                )
                .set(
                    heap,
                    or(
                        o.peak_heap_bytes.map(|b| Cell::right(units::bytes(b))),
                        "n/a",
                    ),
                )
                .set(
                    allocs,
                    or(o.allocations.map(|a| Cell::right(a.to_string())), "n/a"),
                )
                .set(
                    stack,
                    or(
                        o.max_stack_bytes.map(|b| Cell::right(units::bytes(b))),
                        "n/a",
                    ),
                )
                .set(
                    share,
                    or(
                        o.share_of_exchange
                            .map(|x| Cell::right(format!("{:.0}%", x * 100.0))),
                        "-",
                    ),
                )
                .set(
                    samples,
                    Cell::int(o.samples as u64).on(MARKDOWN, format!("{}{batch}", o.samples)),
                )
                .set(short, short_note(o))
                .set(note, wide_note(o))
                .set(
                    stop,
                    Cell::text(o.stop_reason.label())
                        .marked_if(o.stop_reason != StopReason::Precision, Mark::Warn),
                );
        }
        let (alg, imp) = (Cell::from(&r.algorithm), Cell::from(&r.implementation));
        for (word, detail) in problems(r) {
            let mark = t.footnote(format!("{} {word}: {detail}", r.label()));
            let mut fit = vec![alg.clone(), imp.clone(), "".into()];
            fit.push(Cell::text(word).marked(Mark::Bad));
            fit.extend(["", "", ""].map(Cell::from));
            fit.push(mark.into());
            t.line(Target::Fit, None, fit);
            let said = Cell::text(format!("{word}: {detail}")).marked(Mark::Bad);
            t.line(Target::Wide, None, vec![alg.clone(), imp.clone(), said]);
        }
        if r.operations.is_empty() {
            let why = match &r.correctness {
                Outcome::Fail(w) => format!("not timed: correctness check failed: {w}"),
                _ => r.error.clone().unwrap_or_else(|| "not measured".into()),
            };
            let line = vec![alg, imp, "-".into(), why.into()];
            t.line(Target::Markdown, None, line);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_notes_name_the_stop_once() {
        let mut o = crate::export::fixture::run().results[0].operations[3].clone();
        assert_eq!(o.stop_reason, StopReason::Budget);
        assert_eq!(short_note(&o), "budget");
        o.round_spread = 0.2;
        assert_eq!(short_note(&o), "budget, drift 20%");
        o.stop_reason = StopReason::RoundsDisagree;
        assert_eq!(short_note(&o), "drift 20%");
        o.round_spread = 0.01;
        assert_eq!(short_note(&o), "rounds vary");
    }
}
