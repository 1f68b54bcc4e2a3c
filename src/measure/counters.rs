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

// The tests' oracle, `perf_event_open` called directly (shared with the CLI tests).
#[cfg(test)]
#[path = "../../tests/common/pmu.rs"]
mod oracle;

#[cfg(test)]
mod tests {
    use super::*;

    /// At least this many instructions per call of [`work`].
    const WORK: u64 = 1000;

    fn work() {
        for i in 0..WORK {
            std::hint::black_box(i);
        }
    }

    /// Whether this machine counts is asked of the oracle, not of the code under test: where
    /// it counts, kembench must measure (every event read, the instructions at least the
    /// work's); where it does not, kembench must return the typed "unavailable" value with a
    /// reason, never a figure. Neither outcome passes without its check.
    #[test]
    fn counters_measure_where_the_machine_counts_and_explain_where_it_does_not() {
        let here = super::oracle::instructions_over(100_000);
        eprintln!("oracle: {here:?}");
        match (here, Pmu::open()) {
            (Ok(n), Ok(mut p)) => {
                assert!(n >= 100_000, "the oracle counted {n}");
                match p.count(10, work) {
                    Counters::Measured(v) => {
                        assert_eq!(v.calls, 10);
                        assert!(v.instructions >= WORK as f64, "{v:?}");
                        assert!(v.cycles > 0.0, "{v:?}");
                    }
                    Counters::Unavailable(why) => {
                        panic!("this machine counts ({n} instructions) but kembench says: {why}")
                    }
                }
            }
            (Ok(n), Err(why)) => {
                panic!("this machine counts ({n} instructions) but kembench cannot open: {why}")
            }
            (Err(reason), Ok(mut p)) => match p.count(10, work) {
                Counters::Unavailable(why) => assert!(!why.is_empty()),
                Counters::Measured(v) => {
                    panic!("the oracle cannot count ({reason}) but kembench measured {v:?}")
                }
            },
            (Err(reason), Err(why)) => {
                assert!(
                    why.starts_with("perf_event_open") && why.contains("os error"),
                    "the reason names the call and the system's error: {why} (oracle: {reason})"
                );
                // What the record keeps: the typed value with its reason, not a zero.
                let v = serde_json::to_value(Counters::Unavailable(why.clone())).unwrap();
                assert_eq!(
                    v,
                    serde_json::json!({"status": "unavailable", "value": why})
                );
            }
        }
    }
}
