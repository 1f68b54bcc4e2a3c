//! A throughput run as CSV: one row per (algorithm, implementation, operation, thread
//! count).

use super::{ThroughputRecord, ThroughputResult};

/// The header of throughput CSV files.
pub const HEADER: &[&str] = &[
    "algorithm",
    "implementation",
    "version",
    "operation",
    "threads",
    "mode",
    "total_ops_per_sec",
    "min_thread_ops_per_sec",
    "max_thread_ops_per_sec",
    "thread_spread",
    "speedup",
    "efficiency",
    "latency_median_ns",
    "one_thread_vs_latency",
    "flags",
];

/// `threads` or `processes`.
fn mode(r: &ThroughputRecord) -> &'static str {
    if r.config.processes {
        "processes"
    } else {
        "threads"
    }
}

/// The CSV rows of one result.
pub fn rows(r_all: &ThroughputRecord, r: &ThroughputResult) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for o in &r.operations {
        for p in &o.points {
            let (min, max) = (p.min_thread_rate(), p.max_thread_rate());
            let flags: Vec<&str> = o.flags.iter().chain(&p.flags).map(String::as_str).collect();
            rows.push(vec![
                r.algorithm.clone(),
                r.implementation.clone(),
                r.version.clone(),
                o.operation.as_str().to_string(),
                p.threads.to_string(),
                mode(r_all).to_string(),
                p.total_ops_per_sec.to_string(),
                min.to_string(),
                max.to_string(),
                p.thread_spread.to_string(),
                p.speedup.to_string(),
                p.efficiency.to_string(),
                o.latency_median_ns.to_string(),
                o.one_thread_vs_latency.to_string(),
                flags.join("; "),
            ]);
        }
    }
    rows
}
