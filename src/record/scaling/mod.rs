//! Rates across thread (or process) counts, shared by the kinds that scale (`throughput`,
//! and the scaling of `tls` handshakes): one point per count, the capacity of a core for TLS
//! 1.3 handshakes, their arithmetic ([`calc`]) and the cells their tables show them in.

pub mod calc;

use crate::table::{Cell, REPORT};
use crate::units;
use serde::{Deserialize, Serialize};

/// Throughput at one thread (or process) count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Threads (or processes) running at once.
    pub threads: usize,
    /// Sum of the per-thread rates.
    pub total_ops_per_sec: f64,
    /// Each thread's own rate (operations over its own elapsed time).
    pub per_thread_ops_per_sec: Vec<f64>,
    /// Slowest thread over fastest thread, minus one (0 = all equal).
    pub thread_spread: f64,
    /// Total rate over the one-thread rate.
    pub speedup: f64,
    /// Speedup over the ideal, min(threads, logical CPUs).
    pub efficiency: f64,
    /// Problems with this point (super-linear scaling).
    pub flags: Vec<String>,
    /// Total rate of every repeat of this thread count; the point is the median repeat.
    #[serde(default)]
    pub repeat_totals_ops_per_sec: Vec<f64>,
}

impl Point {
    /// The slowest thread's rate.
    pub fn min_thread_rate(&self) -> f64 {
        self.per_thread_ops_per_sec
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
    }

    /// The fastest thread's rate.
    pub fn max_thread_rate(&self) -> f64 {
        self.per_thread_ops_per_sec
            .iter()
            .copied()
            .fold(0.0, f64::max)
    }
}

/// TLS 1.3 handshake capacity of one core: the server encapsulates, the client generates a
/// key pair and decapsulates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capacity {
    /// Thread count whose per-core rates are used (the largest not above the logical CPUs).
    pub basis_threads: usize,
    /// Server handshakes per second per core (encaps rate per core).
    pub server_handshakes_per_sec_per_core: f64,
    /// Client handshakes per second per core (keygen then decaps).
    pub client_handshakes_per_sec_per_core: f64,
    /// The target rate, connections per second.
    pub target_rate: f64,
    /// Server cores needed for the target rate.
    pub server_cores_for_target: f64,
    /// Client cores needed for the target rate.
    pub client_cores_for_target: f64,
}

/// A point's slowest and fastest thread (`min – max` ops/s), sorted by the slowest: the
/// throughput tables and tls's scaling table show it alike.
pub fn thread_range(p: &Point) -> Cell {
    let (min, max) = (p.min_thread_rate(), p.max_thread_rate());
    Cell::num(
        format!("{} – {}", units::count(min), units::count(max)),
        min,
    )
}

/// A point's speed-up over one thread (`1.93x`, `×` in the report).
pub fn speedup_cell(p: &Point) -> Cell {
    Cell::num(format!("{:.2}x", p.speedup), p.speedup).on(REPORT, format!("{:.2}×", p.speedup))
}
