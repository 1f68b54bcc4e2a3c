//! Bootstrap resampling of the median, and percentile confidence intervals built from it.
//!
//! Everything is deterministic given a seed: the generator is
//! [`SmallRng::seed_from_u64`], so two runs of the same build over the same samples report
//! the same interval. (`SmallRng`'s stream is not promised stable across `rand` versions or
//! platforms, so intervals are reproducible per build, not forever.)
//!
//! Resampling works on a sorted copy of the data. Because the sorted values are monotone in
//! their index, the median of a resample is the value at the median *index* drawn, so each
//! resample only counts how often each index was drawn and walks the counts to the middle
//! rank: linear time and no sorting per resample.

use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

use super::quantile::{lerp, percentile, sorted};

/// Draws medians of resamples (with replacement) from a sorted pool, reusing one buffer.
pub(crate) struct MedianResampler<'a> {
    pool: &'a [f64],
    counts: Vec<u32>,
}

impl<'a> MedianResampler<'a> {
    /// Prepares to resample from `pool`, which must be sorted ascending and non-empty.
    pub(crate) fn new(pool: &'a [f64]) -> Self {
        debug_assert!(!pool.is_empty());
        debug_assert!(pool.windows(2).all(|w| w[0].total_cmp(&w[1]).is_le()));
        Self {
            pool,
            counts: vec![0; pool.len()],
        }
    }

    /// The median of `draws` values drawn uniformly with replacement from the pool.
    pub(crate) fn median_of_resample(&mut self, draws: usize, rng: &mut SmallRng) -> f64 {
        debug_assert!(draws > 0);
        self.counts.fill(0);
        self.draw_indices(draws, rng);
        // 0-based ranks of the two middle draws (equal when `draws` is odd).
        let lower_rank = (draws - 1) / 2;
        let upper_rank = draws / 2;
        let mut seen = 0usize;
        let mut lower = None;
        for (value, &count) in self.pool.iter().zip(&self.counts) {
            seen += count as usize;
            if lower.is_none() && seen > lower_rank {
                lower = Some(*value);
            }
            if seen > upper_rank {
                let lower = lower.unwrap_or(*value);
                return lerp(lower, *value, 0.5);
            }
        }
        unreachable!("the counts sum to `draws`, so the walk reaches every rank")
    }

    /// Adds `draws` uniform indices into the pool to `counts`.
    ///
    /// Drawing indices is most of the bootstrap's cost, so this uses Lemire's
    /// multiply-and-reject method on both 32-bit halves of each 64-bit output, halving the
    /// generator calls of `random_range` while staying exactly uniform.
    fn draw_indices(&mut self, draws: usize, rng: &mut SmallRng) {
        let Ok(len) = u32::try_from(self.pool.len()) else {
            let len = self.pool.len();
            for _ in 0..draws {
                self.counts[rng.random_range(0..len)] += 1;
            }
            return;
        };
        // 2^32 mod len: products whose low half falls below it would over-represent
        // some indices.
        let reject_below = len.wrapping_neg() % len;
        let mut remaining = draws;
        while remaining > 0 {
            let bits = rng.next_u64();
            for half in [bits as u32, (bits >> 32) as u32] {
                let product = u64::from(half) * u64::from(len);
                if (product as u32) >= reject_below {
                    self.counts[(product >> 32) as usize] += 1;
                    remaining -= 1;
                    if remaining == 0 {
                        break;
                    }
                }
            }
        }
    }
}

/// Medians of `resamples` bootstrap resamples of `samples` (each the size of `samples`),
/// in the order drawn.
///
/// Returns an empty vector when `samples` is empty or `resamples` is zero.
#[must_use]
pub fn bootstrap_medians(samples: &[f64], resamples: usize, seed: u64) -> Vec<f64> {
    if samples.is_empty() {
        return Vec::new();
    }
    let pool = sorted(samples);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut resampler = MedianResampler::new(&pool);
    (0..resamples)
        .map(|_| resampler.median_of_resample(pool.len(), &mut rng))
        .collect()
}

/// The two-sided percentile interval of a bootstrap distribution at `confidence`.
///
/// `estimates` is sorted in place. The interval is widened, if needed, to contain
/// `point`: with very few resamples the percentile interval can miss the point estimate,
/// and an interval that excludes its own estimate would only confuse a reader.
pub(crate) fn percentile_interval(
    estimates: &mut [f64],
    confidence: f64,
    point: f64,
) -> (f64, f64) {
    if estimates.is_empty() {
        return (point, point);
    }
    estimates.sort_unstable_by(f64::total_cmp);
    let tail = (1.0 - confidence) / 2.0 * 100.0;
    let low = percentile(estimates, tail);
    let high = percentile(estimates, 100.0 - tail);
    (low.min(point), high.max(point))
}

/// Checks that `confidence` is a usable confidence level.
pub(crate) fn assert_confidence(confidence: f64) {
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence {confidence} outside (0, 1)"
    );
}

/// Bootstrap percentile confidence interval `(low, high)` of the median of `samples`.
///
/// Draws `resamples` resamples of `samples` with replacement, each the size of `samples`,
/// and takes the `(1 - confidence) / 2` and `(1 + confidence) / 2` percentiles of their
/// medians; `confidence = 0.95` gives the usual 95% interval. The interval always contains
/// the sample median (see the module docs). With `resamples == 0` or a single sample the
/// interval collapses to the median. Deterministic given `seed`. Samples must be finite.
///
/// # Panics
///
/// Panics if `samples` is empty or `confidence` is not strictly between 0 and 1.
#[must_use]
pub fn median_ci(samples: &[f64], confidence: f64, resamples: usize, seed: u64) -> (f64, f64) {
    assert!(!samples.is_empty(), "median CI of an empty sample");
    median_ci_sorted(&sorted(samples), confidence, resamples, seed)
}

/// [`median_ci`] for samples already sorted ascending, so callers that sorted once for
/// other statistics do not pay for a second sort.
pub(crate) fn median_ci_sorted(
    sorted: &[f64],
    confidence: f64,
    resamples: usize,
    seed: u64,
) -> (f64, f64) {
    assert_confidence(confidence);
    let point = percentile(sorted, 50.0);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut resampler = MedianResampler::new(sorted);
    let mut medians: Vec<f64> = (0..resamples)
        .map(|_| resampler.median_of_resample(sorted.len(), &mut rng))
        .collect();
    percentile_interval(&mut medians, confidence, point)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::quantile::median;
    use proptest::prelude::*;

    fn spread() -> Vec<f64> {
        (0..101).map(|i| f64::from(i * 37 % 101)).collect()
    }

    #[test]
    fn resample_median_matches_a_direct_median() {
        // Rebuilds the drawn multiset from the counts and checks the counting walk against
        // a plain median of it.
        let pool = sorted(&[5.0, 1.0, 4.0, 1.0, 9.0, 2.0, 6.0]);
        let mut rng = SmallRng::seed_from_u64(5);
        let mut resampler = MedianResampler::new(&pool);
        for draws in 1..40 {
            let got = resampler.median_of_resample(draws, &mut rng);
            let drawn: Vec<f64> = pool
                .iter()
                .zip(&resampler.counts)
                .flat_map(|(&v, &c)| std::iter::repeat_n(v, c as usize))
                .collect();
            assert_eq!(drawn.len(), draws);
            assert_eq!(got, median(&drawn), "draws = {draws}");
        }
    }

    #[test]
    fn index_draws_are_uniform() {
        // 7 does not divide 2^32, so this exercises the rejection step.
        let pool = [0.0; 7];
        let mut resampler = MedianResampler::new(&pool);
        let mut rng = SmallRng::seed_from_u64(0);
        resampler.draw_indices(700_000, &mut rng);
        // Each count is Binomial(700000, 1/7): sd ~ 293, so +-1500 is over 5 sd.
        for &c in &resampler.counts {
            assert!((98_500..=101_500).contains(&c), "{:?}", resampler.counts);
        }
    }

    #[test]
    fn deterministic_given_seed() {
        let x = spread();
        assert_eq!(median_ci(&x, 0.95, 500, 42), median_ci(&x, 0.95, 500, 42));
        assert_eq!(bootstrap_medians(&x, 50, 7), bootstrap_medians(&x, 50, 7));
        assert_ne!(bootstrap_medians(&x, 50, 7), bootstrap_medians(&x, 50, 8));
    }

    #[test]
    fn ci_contains_median_and_is_plausible() {
        let x = spread();
        let (low, high) = median_ci(&x, 0.95, 2000, 1);
        assert!(low <= 50.0 && 50.0 <= high);
        assert!(low < high);
        // Uniform 0..=100 with n = 101: the median's standard error is about 7, so a 95%
        // interval spans roughly +-14 and certainly not the whole range.
        assert!(low > 25.0 && high < 75.0, "({low}, {high})");
    }

    #[test]
    fn degenerate_inputs_collapse() {
        assert_eq!(median_ci(&[3.0], 0.95, 100, 0), (3.0, 3.0));
        assert_eq!(median_ci(&[1.0, 2.0, 3.0], 0.95, 0, 0), (2.0, 2.0));
        assert_eq!(median_ci(&[4.0; 9], 0.95, 100, 0), (4.0, 4.0));
        assert!(bootstrap_medians(&[], 10, 0).is_empty());
    }

    #[test]
    fn two_samples_bound_by_the_extremes() {
        let (low, high) = median_ci(&[2.0, 4.0], 0.95, 1000, 3);
        assert_eq!((low, high), (2.0, 4.0));
    }

    #[test]
    #[should_panic(expected = "confidence")]
    fn bad_confidence_panics() {
        let _ = median_ci(&[1.0, 2.0], 1.0, 10, 0);
    }

    proptest! {
        #[test]
        fn ci_brackets_median(
            x in prop::collection::vec(-1e6f64..1e6, 1..200),
            resamples in 0usize..60,
            seed in any::<u64>(),
        ) {
            let m = median(&x);
            let (low, high) = median_ci(&x, 0.95, resamples, seed);
            prop_assert!(low <= m && m <= high);
            let s = sorted(&x);
            prop_assert!(s[0] <= low && high <= s[s.len() - 1]);
        }
    }
}
