//! A latency run as CSV: one row per (algorithm, implementation, operation), units in the
//! column names.

use super::{BenchResult, LatencyRecord};
use crate::measure::counters::Counters;
use crate::units::or_empty as opt;

/// The header of latency CSV files.
pub const HEADER: &[&str] = &[
    "algorithm",
    "family",
    "nist_level",
    "implementation",
    "version",
    "operation",
    "samples",
    "batch",
    "stop_reason",
    "achieved_precision",
    "median_ns",
    "mean_ns",
    "stddev_ns",
    "min_ns",
    "max_ns",
    "p5_ns",
    "p25_ns",
    "p75_ns",
    "p95_ns",
    "p99_ns",
    "mad_ns",
    "median_ci95_low_ns",
    "median_ci95_high_ns",
    "ops_per_sec",
    "tsc_median_ticks",
    "cycles",
    "instructions",
    "branch_misses",
    "llc_misses",
    "l1d_read_misses",
    "peak_heap_bytes",
    "allocations",
    "max_stack_bytes",
    "share_of_exchange",
    "pk_bytes",
    "sk_bytes",
    "ct_bytes",
    "ss_bytes",
    "wire_bytes",
    "outliers_low_severe",
    "outliers_low_mild",
    "outliers_high_mild",
    "outliers_high_severe",
    "round_spread",
    "best_round_median_ns",
    "callgrind_instructions",
];

/// The CSV rows of one result.
pub fn rows(_run: &LatencyRecord, r: &BenchResult) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for o in &r.operations {
        let c = match &o.counters {
            Counters::Measured(v) => Some(v),
            Counters::Unavailable(_) => None,
        };
        let row: Vec<String> = vec![
            r.algorithm.clone(),
            r.family.clone(),
            opt(r.nist_level),
            r.implementation.clone(),
            r.version.clone(),
            o.operation.as_str().to_string(),
            o.samples.to_string(),
            o.batch.to_string(),
            o.stop_reason.as_str().to_string(),
            o.achieved_precision.to_string(),
            o.median_ns.to_string(),
            o.mean_ns.to_string(),
            o.stddev_ns.to_string(),
            o.min_ns.to_string(),
            o.max_ns.to_string(),
            o.p5_ns.to_string(),
            o.p25_ns.to_string(),
            o.p75_ns.to_string(),
            o.p95_ns.to_string(),
            o.p99_ns.to_string(),
            o.mad_ns.to_string(),
            o.median_ci95_low_ns.to_string(),
            o.median_ci95_high_ns.to_string(),
            o.ops_per_sec.to_string(),
            opt(o.tsc_median_ticks),
            opt(c.map(|c| c.cycles)),
            opt(c.map(|c| c.instructions)),
            opt(c.map(|c| c.branch_misses)),
            opt(c.map(|c| c.llc_misses)),
            opt(c.map(|c| c.l1d_read_misses)),
            opt(o.peak_heap_bytes),
            opt(o.allocations),
            opt(o.max_stack_bytes),
            opt(o.share_of_exchange),
            r.pk_bytes.to_string(),
            r.sk_bytes.to_string(),
            r.ct_bytes.to_string(),
            r.ss_bytes.to_string(),
            r.wire_bytes.to_string(),
            o.outliers.low_severe.to_string(),
            o.outliers.low_mild.to_string(),
            o.outliers.high_mild.to_string(),
            o.outliers.high_severe.to_string(),
            o.round_spread.to_string(),
            opt(o.best_round_median_ns),
            opt(o.callgrind_instructions),
        ];
        rows.push(row);
    }
    rows
}
