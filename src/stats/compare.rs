//! Comparison of two runs of the same benchmark: how much the median moved, how sure we are
//! that it moved, and whether the move is big enough to report.
//!
//! Both the confidence interval of the ratio and the p-value come from bootstrap
//! resampling of medians, so no normality is assumed; timing data rarely is normal.

use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;

use super::bootstrap::{percentile_interval, MedianResampler};
use super::quantile::{percentile, sorted};

/// Confidence level of [`Comparison::ratio_ci_low`] and [`Comparison::ratio_ci_high`].
pub const COMPARE_CONFIDENCE: f64 = 0.95;

/// Comparison of two runs of the same benchmark (for `kembench compare`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// `median(new) / median(old)`: above 1 means the new run is slower.
    pub ratio: f64,
    /// Lower bound of the 95% bootstrap percentile interval of `ratio`.
    pub ratio_ci_low: f64,
    /// Upper bound of the 95% bootstrap percentile interval of `ratio`.
    pub ratio_ci_high: f64,
    /// Two-sided bootstrap p-value of the difference of medians under the hypothesis that
    /// both runs come from the same distribution.
    pub p_value: f64,
    /// What to tell the user; see [`compare`] for the rule.
    pub verdict: Verdict,
}

/// The reported outcome of a [`Comparison`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Significantly faster, by more than the noise threshold.
    Faster,
    /// Significantly slower, by more than the noise threshold.
    Slower,
    /// Not significant, or significant but too small to matter.
    WithinNoise,
}

/// Compares the samples of an `old` and a `new` run (same unit, e.g. ns per operation).
///
/// - `ratio` is `median(new) / median(old)`, with a 95% bootstrap percentile interval from
///   `resamples` pairs of resamples, each sample resampled independently at its own size.
///   The interval always contains `ratio`.
/// - `p_value` is from a two-sided bootstrap test of the difference of medians, as in
///   criterion: both samples are pooled (the null hypothesis says they share one
///   distribution), each resample draws `old.len()` and `new.len()` values from the pool,
///   and the p-value is the share of resamples whose `|median difference|` is at least the
///   observed one. It is computed as `(count + 1) / (resamples + 1)`, so it is never 0 and
///   is 1 when `resamples == 0`.
/// - `verdict` reports a change only when it is both statistically significant
///   (`p_value < significance`) and larger than the noise: `Slower` if
///   `ratio > 1 + noise_threshold`, `Faster` if `ratio < 1 - noise_threshold`, otherwise
///   `WithinNoise`. Typical values are `noise_threshold = 0.02` and `significance = 0.05`.
///
/// Deterministic given `seed`. Samples must be finite and positive, as timings are; a zero
/// median in `old` makes the ratio infinite or NaN.
///
/// # Panics
///
/// Panics if either sample is empty.
#[must_use]
pub fn compare(
    old: &[f64],
    new: &[f64],
    noise_threshold: f64,
    significance: f64,
    resamples: usize,
    seed: u64,
) -> Comparison {
    assert!(
        !old.is_empty() && !new.is_empty(),
        "comparison with an empty sample"
    );
    let old_sorted = sorted(old);
    let new_sorted = sorted(new);
    let old_median = percentile(&old_sorted, 50.0);
    let new_median = percentile(&new_sorted, 50.0);
    let ratio = new_median / old_median;

    let mut rng = SmallRng::seed_from_u64(seed);

    let mut old_resampler = MedianResampler::new(&old_sorted);
    let mut new_resampler = MedianResampler::new(&new_sorted);
    let mut ratios: Vec<f64> = (0..resamples)
        .map(|_| {
            let o = old_resampler.median_of_resample(old.len(), &mut rng);
            let n = new_resampler.median_of_resample(new.len(), &mut rng);
            n / o
        })
        .collect();
    let (ratio_ci_low, ratio_ci_high) = percentile_interval(&mut ratios, COMPARE_CONFIDENCE, ratio);

    let observed = (new_median - old_median).abs();
    let mut pool = Vec::with_capacity(old.len() + new.len());
    pool.extend_from_slice(&old_sorted);
    pool.extend_from_slice(&new_sorted);
    pool.sort_unstable_by(f64::total_cmp);
    let mut pooled = MedianResampler::new(&pool);
    let extreme = (0..resamples)
        .filter(|_| {
            let o = pooled.median_of_resample(old.len(), &mut rng);
            let n = pooled.median_of_resample(new.len(), &mut rng);
            (n - o).abs() >= observed
        })
        .count();
    let p_value = (extreme + 1) as f64 / (resamples + 1) as f64;

    let verdict = if p_value >= significance {
        Verdict::WithinNoise
    } else if ratio > 1.0 + noise_threshold {
        Verdict::Slower
    } else if ratio < 1.0 - noise_threshold {
        Verdict::Faster
    } else {
        Verdict::WithinNoise
    };

    Comparison {
        ratio,
        ratio_ci_low,
        ratio_ci_high,
        p_value,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::Rng;

    /// `n` deterministic draws from N(mean, sd) by Box-Muller, so the tests need no
    /// distribution crate and never flake.
    fn normal(n: usize, mean: f64, sd: f64, seed: u64) -> Vec<f64> {
        let mut rng = SmallRng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                let u1: f64 = 1.0 - rng.random::<f64>();
                let u2: f64 = rng.random();
                mean + sd * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
            })
            .collect()
    }

    #[test]
    fn detects_ten_percent_slowdown() {
        let old = normal(200, 100.0, 1.0, 1);
        let new: Vec<f64> = old.iter().map(|x| x * 1.10).collect();
        let c = compare(&old, &new, 0.02, 0.05, 1000, 9);
        assert!((c.ratio - 1.10).abs() < 1e-12, "{c:?}");
        assert!(c.ratio_ci_low > 1.08 && c.ratio_ci_high < 1.12, "{c:?}");
        assert!(c.p_value < 0.01, "{c:?}");
        assert_eq!(c.verdict, Verdict::Slower);
    }

    #[test]
    fn detects_speedup_on_independent_samples() {
        let old = normal(200, 100.0, 1.0, 2);
        let new = normal(200, 90.0, 0.9, 3);
        let c = compare(&old, &new, 0.02, 0.05, 1000, 9);
        assert!(c.ratio_ci_low <= c.ratio && c.ratio <= c.ratio_ci_high);
        assert_eq!(c.verdict, Verdict::Faster, "{c:?}");
    }

    #[test]
    fn small_wobble_is_within_noise() {
        let old = normal(200, 100.0, 1.0, 1);
        let new: Vec<f64> = old.iter().map(|x| x * 1.005).collect();
        let c = compare(&old, &new, 0.02, 0.05, 1000, 9);
        assert_eq!(c.verdict, Verdict::WithinNoise, "{c:?}");
    }

    #[test]
    fn independent_draws_of_one_distribution_are_within_noise() {
        let old = normal(200, 100.0, 1.0, 4);
        let new = normal(200, 100.0, 1.0, 5);
        let c = compare(&old, &new, 0.02, 0.05, 1000, 9);
        assert!(c.p_value > 0.01, "{c:?}");
        assert_eq!(c.verdict, Verdict::WithinNoise);
    }

    #[test]
    fn deterministic_given_seed() {
        let old = normal(50, 100.0, 5.0, 6);
        let new = normal(60, 103.0, 5.0, 7);
        assert_eq!(
            compare(&old, &new, 0.02, 0.05, 300, 11),
            compare(&old, &new, 0.02, 0.05, 300, 11)
        );
    }

    #[test]
    fn single_samples_and_no_resamples() {
        let c = compare(&[100.0], &[120.0], 0.02, 0.05, 100, 0);
        assert_eq!(c.ratio, 1.2);
        assert_eq!((c.ratio_ci_low, c.ratio_ci_high), (1.2, 1.2));
        // With one sample each, the pooled null reproduces a difference of 20 half the
        // time: nothing is significant.
        assert_eq!(c.verdict, Verdict::WithinNoise);

        let c = compare(&[1.0, 2.0], &[3.0, 4.0], 0.02, 0.05, 0, 0);
        assert_eq!(c.p_value, 1.0);
        assert_eq!(c.verdict, Verdict::WithinNoise);
    }

    #[test]
    fn verdict_serializes_kebab_case() {
        let json = serde_json::to_string(&Verdict::WithinNoise).unwrap();
        assert_eq!(json, "\"within-noise\"");
    }

    proptest! {
        #[test]
        fn identical_samples_are_within_noise(
            x in prop::collection::vec(1.0f64..1e6, 1..100),
            seed in any::<u64>(),
        ) {
            let c = compare(&x, &x, 0.02, 0.05, 50, seed);
            prop_assert_eq!(c.ratio, 1.0);
            prop_assert_eq!(c.p_value, 1.0);
            prop_assert_eq!(c.verdict, Verdict::WithinNoise);
            prop_assert!(c.ratio_ci_low <= 1.0 && 1.0 <= c.ratio_ci_high);
        }
    }
}
