//! Hardware performance counters through `perf_event_open`: core cycles, instructions, branch
//! misses, last-level cache misses and L1 data-cache read misses.
//!
//! Where the machine offers none (a VM without a virtual PMU, a restrictive
//! `perf_event_paranoid`), opening fails and the reason is kept as a typed value that the
//! output explains once; nothing crashes and no zero is printed in place of a figure. A build
//! for an architecture that perf-event2 has no bindings for (s390x, powerpc64) has no counter
//! support at all and says so the same way.

use serde::{Deserialize, Serialize};

/// Per-call means of the hardware events over a counted phase.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CounterValues {
    /// Core clock cycles per call (not TSC ticks).
    pub cycles: f64,
    /// Retired instructions per call.
    pub instructions: f64,
    /// Mispredicted branches per call.
    pub branch_misses: f64,
    /// Last-level cache misses per call.
    pub llc_misses: f64,
    /// L1 data-cache read misses per call.
    pub l1d_read_misses: f64,
    /// Calls in the counted phase.
    pub calls: u64,
}

/// Counters, or why there are none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", content = "value", rename_all = "lowercase")]
pub enum Counters {
    /// Measured.
    Measured(CounterValues),
    /// Not available here, with the reason.
    Unavailable(String),
}

// perf-event2 is a dependency on these architectures only (Cargo.toml); elsewhere `none.rs`.
#[cfg_attr(
    not(any(
        target_arch = "x86",
        target_arch = "x86_64",
        target_arch = "aarch64",
        target_arch = "riscv64"
    )),
    path = "counters/none.rs"
)]
mod perf;
pub use perf::Pmu;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_either_measure_or_explain() {
        match Pmu::open() {
            Ok(mut p) => match p.count(10, || {
                std::hint::black_box((0..1000u64).sum::<u64>());
            }) {
                Counters::Measured(v) => assert!(v.instructions > 0.0),
                Counters::Unavailable(why) => assert!(!why.is_empty()),
            },
            Err(why) => assert!(why.contains("perf_event_open"), "{why}"),
        }
    }
}
