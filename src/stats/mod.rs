//! Pure statistics over benchmark samples: summaries, percentiles, bootstrap confidence
//! intervals, outlier labels and run-to-run comparison.
//!
//! Nothing here does I/O, reads a clock or prints; every function is a deterministic
//! function of its inputs (bootstrap randomness comes from an explicit seed), so results
//! can be recomputed and tested exactly.
//!
//! Samples must be finite. Sorting uses [`f64::total_cmp`] so that a NaN cannot cause a
//! panic, but any statistic over NaN or infinities is meaningless.

mod bootstrap;
mod compare;
pub mod dudect;
mod outliers;
mod quantile;
mod rank;

use serde::{Deserialize, Serialize};

pub use bootstrap::{bootstrap_medians, median_ci};
pub use compare::{compare, Comparison, Verdict, COMPARE_CONFIDENCE};
pub use outliers::{
    count_outliers, label_outliers, tukey_fences, Fences, OutlierCounts, OutlierLabel,
};
pub use quantile::{mad, median, median_in_place, percentile, sorted};
pub use rank::mann_whitney_p;

/// Confidence level of [`Summary::median_ci_low`] and [`Summary::median_ci_high`].
pub const SUMMARY_CONFIDENCE: f64 = 0.95;

/// Summary of one benchmark's samples (all values in the unit of the samples, e.g. ns).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (divisor `n - 1`); 0 for a single sample.
    pub stddev: f64,
    /// Median (50th percentile).
    pub median: f64,
    /// 5th percentile.
    pub p5: f64,
    /// 25th percentile (first quartile).
    pub p25: f64,
    /// 75th percentile (third quartile).
    pub p75: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Median absolute deviation, raw (not scaled by 1.4826).
    pub mad: f64,
    /// Lower bound of the 95% bootstrap percentile confidence interval of the median.
    pub median_ci_low: f64,
    /// Upper bound of the 95% bootstrap percentile confidence interval of the median.
    pub median_ci_high: f64,
    /// Tukey outlier counts (outliers are counted, not removed, from every statistic).
    pub outliers: OutlierCounts,
}

impl Summary {
    /// Operations per second, `1e9 / median`, for samples in nanoseconds per operation.
    ///
    /// The median rather than the mean, so that a few preempted iterations do not move the
    /// headline number. A zero median gives infinity.
    #[must_use]
    pub fn ops_per_sec(&self) -> f64 {
        1e9 / self.median
    }

    /// Half the width of the median's confidence interval relative to the median,
    /// `(median_ci_high - median_ci_low) / 2 / median`: 0.01 reads as "median ±1%".
    ///
    /// A zero median gives infinity or NaN.
    #[must_use]
    pub fn relative_ci_half_width(&self) -> f64 {
        (self.median_ci_high - self.median_ci_low) / 2.0 / self.median
    }
}

/// Summarizes `samples` (in any order), or `None` if there are none.
///
/// The median's 95% confidence interval uses `resamples` bootstrap resamples drawn from a
/// generator seeded with `seed` (see [`median_ci`]), so the summary is deterministic.
/// Percentiles follow [`percentile`]. Samples must be finite.
#[must_use]
pub fn summarize(samples: &[f64], resamples: usize, seed: u64) -> Option<Summary> {
    if samples.is_empty() {
        return None;
    }
    let sorted = sorted(samples);
    let n = sorted.len();
    let mean = sorted.iter().sum::<f64>() / n as f64;
    // Two passes (mean first) rather than a running sum of squares, which cancels
    // catastrophically when the spread is tiny next to the mean, as with timings.
    let stddev = if n > 1 {
        let ss: f64 = sorted.iter().map(|x| (x - mean) * (x - mean)).sum();
        (ss / (n - 1) as f64).sqrt()
    } else {
        0.0
    };
    let median = percentile(&sorted, 50.0);
    let (median_ci_low, median_ci_high) =
        bootstrap::median_ci_sorted(&sorted, SUMMARY_CONFIDENCE, resamples, seed);
    let fences = Fences::from_sorted(&sorted);
    Some(Summary {
        n,
        min: sorted[0],
        max: sorted[n - 1],
        // Clamped because rounding in the sum can put the mean of near-equal values a hair
        // outside their range.
        mean: mean.clamp(sorted[0], sorted[n - 1]),
        stddev,
        median,
        p5: percentile(&sorted, 5.0),
        p25: percentile(&sorted, 25.0),
        p75: percentile(&sorted, 75.0),
        p95: percentile(&sorted, 95.0),
        p99: percentile(&sorted, 99.0),
        mad: quantile::mad_around(&sorted, median),
        median_ci_low,
        median_ci_high,
        outliers: fences.count(&sorted),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn summary_of_one_to_ten() {
        let x: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        let s = summarize(&x, 1000, 0).unwrap();
        assert_eq!(s.n, 10);
        assert_eq!((s.min, s.max), (1.0, 10.0));
        assert_eq!(s.mean, 5.5);
        // numpy: np.std(np.arange(1, 11), ddof=1) = 3.0276503540974917
        assert!((s.stddev - 3.027_650_354_097_491_7).abs() < 1e-12);
        assert_eq!(s.median, 5.5);
        assert_eq!((s.p25, s.p75), (3.25, 7.75));
        assert!((s.p5 - 1.45).abs() < 1e-12);
        assert!((s.p95 - 9.55).abs() < 1e-12);
        assert!((s.p99 - 9.91).abs() < 1e-12);
        assert_eq!(s.mad, 2.5);
        assert!(s.median_ci_low <= 5.5 && 5.5 <= s.median_ci_high);
        assert!(s.median_ci_low >= 1.0 && s.median_ci_high <= 10.0);
        assert_eq!(s.outliers, OutlierCounts::default());
    }

    #[test]
    fn empty_single_and_pair() {
        assert_eq!(summarize(&[], 100, 0), None);

        let s = summarize(&[42.0], 100, 0).unwrap();
        assert_eq!(s.n, 1);
        for v in [s.min, s.max, s.mean, s.median, s.p5, s.p99] {
            assert_eq!(v, 42.0);
        }
        assert_eq!((s.stddev, s.mad), (0.0, 0.0));
        assert_eq!((s.median_ci_low, s.median_ci_high), (42.0, 42.0));
        assert_eq!(s.relative_ci_half_width(), 0.0);

        let s = summarize(&[10.0, 20.0], 100, 0).unwrap();
        assert_eq!((s.median, s.mean, s.mad), (15.0, 15.0, 5.0));
        assert!((s.stddev - 50f64.sqrt()).abs() < 1e-12);
        assert_eq!((s.p25, s.p75), (12.5, 17.5));
    }

    #[test]
    fn outliers_are_counted_not_removed() {
        let mut x: Vec<f64> = (1..=10).map(f64::from).collect();
        x.push(1000.0);
        let s = summarize(&x, 100, 0).unwrap();
        assert_eq!(s.n, 11);
        assert_eq!(s.max, 1000.0);
        assert_eq!(s.outliers.high_severe, 1);
        assert_eq!(s.outliers.total(), 1);
    }

    #[test]
    fn derived_rates() {
        let mut s = summarize(&[250.0, 250.0, 250.0], 10, 0).unwrap();
        assert_eq!(s.ops_per_sec(), 4e6);
        s.median_ci_low = 245.0;
        s.median_ci_high = 255.0;
        assert_eq!(s.relative_ci_half_width(), 0.02);
    }

    #[test]
    fn deterministic_given_seed() {
        let x: Vec<f64> = (0..500).map(|i| f64::from(i * 7919 % 1009)).collect();
        assert_eq!(summarize(&x, 500, 3), summarize(&x, 500, 3));
    }

    #[test]
    fn serde_round_trip() {
        let x: Vec<f64> = (0..50).map(f64::from).collect();
        let s = summarize(&x, 100, 0).unwrap();
        let json = serde_json::to_string(&s).unwrap();
        let back: Summary = serde_json::from_str(&json).unwrap();
        assert_eq!((back.n, back.outliers), (s.n, s.outliers));
        // serde_json without its `float_roundtrip` feature may parse the last digit of a
        // float one ulp off, so floats are compared with a relative tolerance.
        let floats = |s: &Summary| {
            [
                s.min,
                s.max,
                s.mean,
                s.stddev,
                s.median,
                s.p5,
                s.p25,
                s.p75,
                s.p95,
                s.p99,
                s.mad,
                s.median_ci_low,
                s.median_ci_high,
            ]
        };
        for (a, b) in floats(&back).into_iter().zip(floats(&s)) {
            assert!(close(a, b, b.abs()), "{a} vs {b}");
        }
    }

    #[test]
    fn large_summary_is_cheap() {
        // 10,000 samples and 1,000 resamples: the shape of a real run. Only a smoke check
        // for gross regressions (no clocks in this module); timing is left to benchmarks.
        let x: Vec<f64> = (0..10_000u32)
            .map(|i| 1000.0 + f64::from(i.wrapping_mul(2_654_435_761) % 997))
            .collect();
        let s = summarize(&x, 1000, 0).unwrap();
        assert!(s.median_ci_low <= s.median && s.median <= s.median_ci_high);
        assert!(s.relative_ci_half_width() < 0.05);
    }

    fn close(a: f64, b: f64, scale: f64) -> bool {
        (a - b).abs() <= 1e-9 * scale.max(f64::MIN_POSITIVE)
    }

    proptest! {
        #[test]
        fn order_statistics_are_ordered(
            x in prop::collection::vec(-1e9f64..1e9, 1..300),
            seed in any::<u64>(),
        ) {
            let s = summarize(&x, 50, seed).unwrap();
            prop_assert_eq!(s.n, x.len());
            let chain = [s.min, s.p5, s.p25, s.median, s.p75, s.p95, s.p99, s.max];
            for w in chain.windows(2) {
                prop_assert!(w[0] <= w[1], "{:?}", chain);
            }
            prop_assert!(s.median_ci_low <= s.median && s.median <= s.median_ci_high);
            prop_assert!(s.min <= s.mean && s.mean <= s.max);
            prop_assert!(s.stddev >= 0.0 && s.mad >= 0.0);
        }

        #[test]
        fn scaling_scales_location_and_spread(
            x in prop::collection::vec(0.0f64..1e6, 1..200),
            c in 1e-3f64..1e3,
        ) {
            let scaled: Vec<f64> = x.iter().map(|v| v * c).collect();
            let a = summarize(&x, 20, 1).unwrap();
            let b = summarize(&scaled, 20, 1).unwrap();
            let scale = c * a.max;
            prop_assert!(close(b.median, c * a.median, scale), "{} vs {}", b.median, c * a.median);
            prop_assert!(close(b.mean, c * a.mean, scale), "{} vs {}", b.mean, c * a.mean);
            prop_assert!(close(b.mad, c * a.mad, scale), "{} vs {}", b.mad, c * a.mad);
            prop_assert!(close(b.stddev, c * a.stddev, scale));
            prop_assert_eq!(b.outliers, a.outliers);
        }
    }
}
