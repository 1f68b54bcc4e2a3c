//! Timers: the monotonic clock (ns) and, on x86-64, a fenced full 64-bit TSC read (ticks).
//!
//! TSC ticks are reported as ticks, never as "cycles": on modern CPUs the TSC runs at a
//! constant nominal rate whatever the core clock does, and in a VM it may be virtualised.
//! Core cycles come only from hardware counters (`counters.rs`). Each timer's resolution and
//! overhead are measured once per run and reported beside the numbers.

use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Reads the time-stamp counter with fences on both sides.
///
/// The first `lfence` keeps earlier instructions (the previous operation) from finishing
/// after the read; the second keeps the timed code from starting before it. All 64 bits are
/// kept, so a long call cannot wrap the way liboqs's 32-bit read does.
#[inline(always)]
pub fn tsc() -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_lfence, _rdtsc};
        // SAFETY: lfence and rdtsc exist on every x86-64 CPU and have no memory effects.
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            Some(t)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// What one timer can resolve and what a read costs, measured on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimerProfile {
    /// Smallest non-zero difference between two consecutive reads (ns, or ticks for the TSC).
    pub resolution: f64,
    /// Median cost of one read (ns, or ticks).
    pub overhead: f64,
}

/// Both timers' profiles plus the TSC rate estimated against the clock.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Timers {
    /// The monotonic clock, in ns.
    pub clock: TimerProfile,
    /// The TSC, in ticks; `None` off x86-64.
    pub tsc: Option<TimerProfile>,
    /// TSC ticks per ns, measured over the calibration (≈ nominal GHz).
    pub tsc_ticks_per_ns: Option<f64>,
}

fn profile(reads: impl Fn() -> f64) -> TimerProfile {
    const N: usize = 20_001;
    let mut deltas = Vec::with_capacity(N);
    let mut last = reads();
    for _ in 0..N {
        let now = reads();
        deltas.push(now - last);
        last = now;
    }
    let resolution = deltas
        .iter()
        .copied()
        .filter(|d| *d > 0.0)
        .fold(f64::INFINITY, f64::min);
    deltas.sort_by(f64::total_cmp);
    TimerProfile {
        resolution: if resolution.is_finite() {
            resolution
        } else {
            0.0
        },
        overhead: deltas[N / 2],
    }
}

impl Timers {
    /// Measures both timers (about 50 ms).
    pub fn calibrate() -> Timers {
        let origin = Instant::now();
        let clock = profile(|| origin.elapsed().as_nanos() as f64);
        let tsc_profile = tsc().map(|_| profile(|| tsc().unwrap_or(0) as f64));
        let tsc_ticks_per_ns = tsc().map(|t0| {
            let c0 = Instant::now();
            while c0.elapsed().as_millis() < 20 {
                std::hint::spin_loop();
            }
            let ns = c0.elapsed().as_nanos() as f64;
            (tsc().unwrap_or(t0) - t0) as f64 / ns
        });
        Timers {
            clock,
            tsc: tsc_profile,
            tsc_ticks_per_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_gives_plausible_figures() {
        let t = Timers::calibrate();
        assert!(
            t.clock.resolution > 0.0 && t.clock.resolution < 10_000.0,
            "{t:?}"
        );
        assert!(
            t.clock.overhead >= 0.0 && t.clock.overhead < 10_000.0,
            "{t:?}"
        );
        if cfg!(target_arch = "x86_64") {
            let rate = t.tsc_ticks_per_ns.unwrap();
            assert!(rate > 0.1 && rate < 10.0, "TSC rate {rate} ticks/ns");
        }
    }

    #[test]
    fn tsc_is_monotonic_on_one_thread() {
        if let (Some(a), Some(b)) = (tsc(), tsc()) {
            assert!(b >= a);
        }
    }
}
