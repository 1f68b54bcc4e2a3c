//! Pure arithmetic of throughput: rates, scaling efficiency, the flags for impossible scaling,
//! and TLS 1.3 server capacity. No clocks or threads here, so tests can feed exact numbers.
//! It sits with the points it fills: the `throughput` and `tls` engines build their points
//! with it, and the report quotes its tolerances.

use super::{Capacity, Point};

/// Super-linear scaling beyond this fraction above ideal is flagged as a measurement problem.
pub const SUPERLINEAR_TOLERANCE: f64 = 0.05;
/// A one-thread rate further than this from 1/median latency is flagged.
pub const LATENCY_TOLERANCE: f64 = 0.10;

/// Builds a point from each thread's (operations, seconds), given the one-thread total rate
/// (`None` when this is the one-thread point) and the logical CPU count.
pub fn point(
    threads: usize,
    raw: &[(u64, f64)],
    one_thread_rate: Option<f64>,
    logical_cpus: usize,
) -> Point {
    let per: Vec<f64> = raw
        .iter()
        .map(|&(ops, secs)| if secs > 0.0 { ops as f64 / secs } else { 0.0 })
        .collect();
    let total: f64 = per.iter().sum();
    let (lo, hi) = per.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &r| {
        (lo.min(r), hi.max(r))
    });
    let thread_spread = if lo > 0.0 && lo.is_finite() {
        hi / lo - 1.0
    } else {
        0.0
    };
    let base = one_thread_rate.unwrap_or(total);
    let speedup = if base > 0.0 { total / base } else { 0.0 };
    let ideal = threads.min(logical_cpus.max(1)) as f64;
    let efficiency = speedup / ideal;
    let mut flags = Vec::new();
    if efficiency > 1.0 + SUPERLINEAR_TOLERANCE {
        flags.push(format!(
            "super-linear: {:.0}% above the ideal {ideal:.0}x, a measurement problem (shared state, turbo, or a noisy one-thread run)",
            (efficiency - 1.0) * 100.0
        ));
    }
    Point {
        threads,
        total_ops_per_sec: total,
        per_thread_ops_per_sec: per,
        thread_spread,
        speedup,
        efficiency,
        flags,
        repeat_totals_ops_per_sec: Vec::new(),
    }
}

/// Of several repeats of one thread count, the one whose total rate is the median.
pub fn median_repeat(repeats: &[Vec<(u64, f64)>]) -> (&[(u64, f64)], Vec<f64>) {
    let total = |raw: &[(u64, f64)]| -> f64 {
        raw.iter()
            .map(|&(n, s)| if s > 0.0 { n as f64 / s } else { 0.0 })
            .sum()
    };
    let totals: Vec<f64> = repeats.iter().map(|r| total(r)).collect();
    let mut order: Vec<usize> = (0..repeats.len()).collect();
    order.sort_by(|&a, &b| totals[a].total_cmp(&totals[b]));
    (&repeats[order[order.len() / 2]], totals)
}

/// The ratio of the one-thread rate to 1/median latency, and a flag when it is off by more
/// than [`LATENCY_TOLERANCE`].
pub fn latency_check(one_thread_rate: f64, median_ns: f64) -> (f64, Option<String>) {
    let expected = 1e9 / median_ns;
    let ratio = one_thread_rate / expected;
    let flag = ((ratio - 1.0).abs() > LATENCY_TOLERANCE).then(|| {
        format!(
            "one-thread rate {:.0}/s is {:+.0}% from 1/median latency ({:.0}/s): a measurement problem",
            one_thread_rate,
            (ratio - 1.0) * 100.0,
            expected
        )
    });
    (ratio, flag)
}

/// Capacity from per-core operation rates (operations per second per core).
pub fn capacity(
    basis_threads: usize,
    keygen: f64,
    encaps: f64,
    decaps: f64,
    target_rate: f64,
) -> Capacity {
    let server = encaps;
    let client = 1.0 / (1.0 / keygen + 1.0 / decaps);
    Capacity {
        basis_threads,
        server_handshakes_per_sec_per_core: server,
        client_handshakes_per_sec_per_core: client,
        target_rate,
        server_cores_for_target: target_rate / server,
        client_cores_for_target: target_rate / client,
    }
}

/// The default thread counts: 1, 2, 4, ... up to twice the logical CPUs (which is included).
pub fn default_threads(logical_cpus: usize) -> Vec<usize> {
    let max = 2 * logical_cpus.max(1);
    let mut v = Vec::new();
    let mut n = 1;
    while n < max {
        v.push(n);
        n *= 2;
    }
    v.push(max);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_speedup_and_efficiency() {
        let one = point(1, &[(1000, 1.0)], None, 2);
        assert_eq!(one.total_ops_per_sec, 1000.0);
        assert_eq!(one.speedup, 1.0);
        assert_eq!(one.efficiency, 1.0);
        let two = point(2, &[(900, 1.0), (950, 0.95)], Some(1000.0), 2);
        assert!((two.total_ops_per_sec - 1900.0).abs() < 1e-9);
        assert!((two.speedup - 1.9).abs() < 1e-9);
        assert!((two.efficiency - 0.95).abs() < 1e-9);
        assert!((two.thread_spread - (1000.0 / 900.0 - 1.0)).abs() < 1e-9);
        assert!(two.flags.is_empty());
        // Four threads on two CPUs: the ideal is 2x, not 4x.
        let four = point(4, &[(500, 1.0); 4], Some(1000.0), 2);
        assert!((four.efficiency - 1.0).abs() < 1e-9);
    }

    #[test]
    fn superlinear_scaling_is_flagged() {
        let p = point(2, &[(1100, 1.0), (1100, 1.0)], Some(1000.0), 2);
        assert!((p.efficiency - 1.1).abs() < 1e-9);
        assert_eq!(p.flags.len(), 1);
        assert!(p.flags[0].contains("super-linear"));
        let ok = point(2, &[(1040, 1.0), (1040, 1.0)], Some(1000.0), 2);
        assert!(ok.flags.is_empty(), "4% above ideal is within tolerance");
    }

    #[test]
    fn thread_spread_is_slowest_over_fastest() {
        let p = point(2, &[(1000, 1.0), (500, 1.0)], Some(1000.0), 2);
        assert!((p.thread_spread - 1.0).abs() < 1e-9);
    }

    #[test]
    fn one_thread_rate_is_checked_against_latency() {
        let (r, f) = latency_check(9500.0, 100_000.0);
        assert!((r - 0.95).abs() < 1e-9);
        assert!(f.is_none());
        let (r, f) = latency_check(2500.0, 100_000.0);
        assert!((r - 0.25).abs() < 1e-9);
        assert!(f.unwrap().contains("-75%"));
    }

    #[test]
    fn capacity_arithmetic() {
        let c = capacity(2, 10_000.0, 20_000.0, 10_000.0, 70_000.0);
        assert_eq!(c.server_handshakes_per_sec_per_core, 20_000.0);
        assert_eq!(c.client_handshakes_per_sec_per_core, 5_000.0);
        assert_eq!(c.server_cores_for_target, 3.5);
        assert_eq!(c.client_cores_for_target, 14.0);
    }

    #[test]
    fn the_median_repeat_is_chosen() {
        let reps = vec![vec![(300, 1.0)], vec![(100, 1.0)], vec![(200, 1.0)]];
        let (raw, totals) = median_repeat(&reps);
        assert_eq!(raw, &[(200, 1.0)]);
        assert_eq!(totals, vec![300.0, 100.0, 200.0]);
    }

    #[test]
    fn default_thread_counts() {
        assert_eq!(default_threads(2), vec![1, 2, 4]);
        assert_eq!(default_threads(16), vec![1, 2, 4, 8, 16, 32]);
        assert_eq!(default_threads(3), vec![1, 2, 4, 6]);
        assert_eq!(default_threads(1), vec![1, 2]);
    }
}
