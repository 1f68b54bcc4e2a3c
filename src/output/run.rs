//! The console tables of a latency run (`run`, `show`): one row per operation, then the
//! notes on timers, counters, drift and operations cut short.

use super::{num, table};
use crate::measure::counters::Counters;
use crate::measure::sampler::StopReason;
use crate::record::run::{BenchResult, FailureKind, OperationResult, RunRecord, DRIFT};
use crate::units;
use comfy_table::{Cell, Color};

fn note(o: &OperationResult) -> String {
    let mut n = Vec::new();
    match o.stop_reason {
        StopReason::Precision => {}
        StopReason::BelowMinimum => n.push("BELOW MIN SAMPLES".to_string()),
        other => n.push(other.label().to_string()),
    }
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

/// The console table of a run's results.
pub fn print_table(results: &[BenchResult]) {
    let mut t = table(&[
        "algorithm",
        "implementation",
        "op",
        "median",
        "±CI95",
        "p25 – p75",
        "ops/s",
        "TSC ticks",
        "cycles",
        "peak heap",
        "allocs",
        "stack",
        "share",
        "n",
        "note",
    ]);
    for r in results {
        let failure = r.failure.as_ref().map(|f| {
            let what = match f.kind {
                FailureKind::Crashed => "CRASHED",
                FailureKind::TimedOut => "TIMED OUT",
                FailureKind::Interrupted => "INTERRUPTED",
            };
            format!("{what}: {}", f.detail)
        });
        if r.operations.is_empty() {
            let why = match (&r.correctness, &failure) {
                (crate::verify::Outcome::Fail(w), _) => {
                    format!("NOT TIMED: correctness check failed: {w}")
                }
                (_, Some(f)) => f.clone(),
                _ => format!("NOT MEASURED: {}", r.error.as_deref().unwrap_or("unknown")),
            };
            t.add_row(vec![
                Cell::new(&r.algorithm),
                Cell::new(&r.implementation),
                Cell::new(why).fg(Color::Red),
            ]);
            continue;
        }
        for o in &r.operations {
            let half = (o.median_ci95_high_ns - o.median_ci95_low_ns) / 2.0 / o.median_ns * 100.0;
            let cycles = match &o.counters {
                Counters::Measured(c) => units::count(c.cycles),
                Counters::Unavailable(_) => "n/a".into(),
            };
            t.add_row(vec![
                Cell::new(&r.algorithm),
                Cell::new(&r.implementation),
                Cell::new(o.operation.as_str()),
                num(units::ns(o.median_ns)),
                num(format!("{half:.1}%")),
                num(format!("{} – {}", units::ns(o.p25_ns), units::ns(o.p75_ns))),
                num(units::count(o.ops_per_sec)),
                num(o.tsc_median_ticks.map_or("-".into(), units::count)),
                num(cycles),
                num(o.peak_heap_bytes.map_or("n/a".into(), units::bytes)),
                num(o.allocations.map_or("n/a".into(), |a| a.to_string())),
                num(o.max_stack_bytes.map_or("n/a".into(), units::bytes)),
                num(o
                    .share_of_exchange
                    .map_or("-".into(), |x| format!("{:.0}%", x * 100.0))),
                num(o.samples),
                Cell::new(note(o)),
            ]);
        }
        if let Some(e) = &r.error {
            t.add_row(vec![
                Cell::new(&r.algorithm),
                Cell::new(&r.implementation),
                Cell::new(format!("STOPPED: {e}")).fg(Color::Red),
            ]);
        }
        if let Some(f) = failure {
            t.add_row(vec![
                Cell::new(&r.algorithm),
                Cell::new(&r.implementation),
                Cell::new(f).fg(Color::Red),
            ]);
        }
    }
    println!("{t}");
}

/// `algorithm@implementation operation: detail` for every operation that `pick` selects.
fn describe_ops(
    record: &RunRecord,
    pick: impl Fn(&OperationResult) -> bool,
    detail: impl Fn(&OperationResult) -> String,
) -> Vec<String> {
    let mut out = Vec::new();
    for r in &record.results {
        for o in r.operations.iter().filter(|o| pick(o)) {
            out.push(format!(
                "{}@{} {}: {}",
                r.algorithm,
                r.implementation,
                o.operation.as_str(),
                detail(o)
            ));
        }
    }
    out
}

/// Timers, counters, heap, drift and cut-short notes below the table.
pub fn print_footer(record: &RunRecord) {
    let t = &record.measured.timers;
    println!(
        "Timers: clock resolution {} / read {}{}.",
        units::ns(t.clock.resolution),
        units::ns(t.clock.overhead),
        match (t.tsc, t.tsc_ticks_per_ns) {
            (Some(p), Some(r)) => format!(
                "; TSC resolution {:.0} / read {:.0} ticks at {:.3} ticks/ns (TSC ticks are not core cycles)",
                p.resolution, p.overhead, r
            ),
            _ => String::new(),
        }
    );
    if let Some(why) = &record.measured.counters_unavailable {
        println!(
            "Hardware counters (cycles, instructions, branch and cache misses) unavailable: {why}."
        );
    }
    if !record.measured.heap_includes_c_allocations {
        println!("Heap figures unavailable: the malloc interposer is not active in this binary.");
    }
    let cut = describe_ops(
        record,
        |o| o.stop_reason != StopReason::Precision,
        |o| {
            format!(
                "{} samples, ±{:.1}% ({})",
                o.samples,
                o.achieved_precision * 100.0,
                o.stop_reason.as_str()
            )
        },
    );
    let drifted = describe_ops(
        record,
        |o| o.drifted(),
        |o| format!("rounds {:.0}% apart", o.round_spread * 100.0),
    );
    if !drifted.is_empty() {
        println!(
            "Round medians more than {:.0}% apart, so the machine's speed changed during the run ({} operations): {}",
            DRIFT * 100.0,
            drifted.len(),
            drifted.join(", ")
        );
    }
    if !cut.is_empty() {
        println!(
            "Stopped before the median's 95% interval reached ±{:.1}% ({} of the operations):",
            record.config.sampler.target_precision * 100.0,
            cut.len()
        );
        for c in cut {
            println!("  {c}");
        }
    }
}
