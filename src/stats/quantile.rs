//! Order statistics: sorting, percentiles, the median and the median absolute deviation.
//!
//! Percentiles use linear interpolation between the closest ranks (Hyndman & Fan type 7,
//! numpy's and R's default), so reported numbers can be checked against either tool.
//! Samples must be finite; sorting uses [`f64::total_cmp`] so that a stray NaN cannot make
//! a sort panic, but statistics over NaN are meaningless.

/// Returns a copy of `samples` sorted ascending by [`f64::total_cmp`].
#[must_use]
pub fn sorted(samples: &[f64]) -> Vec<f64> {
    let mut v = samples.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    v
}

/// Interpolates between `a` and `b` at fraction `t` in `[0, 1]`, where `a <= b`.
///
/// Every percentile and median goes through this one function so that the median computed
/// by selection and the 50th percentile computed from a sorted copy agree bit for bit. The
/// clamp keeps rounding from pushing the result past `b`, which would break the ordering
/// `p25 <= median <= p75` that callers rely on.
pub(crate) fn lerp(a: f64, b: f64, t: f64) -> f64 {
    if t == 0.0 || a == b {
        return a;
    }
    (a + t * (b - a)).clamp(a, b)
}

/// The `p`-th percentile (`p` in `[0, 100]`) of `sorted`, which must be sorted ascending.
///
/// Uses linear interpolation between closest ranks: with `h = (n - 1) * p / 100`, the
/// result is `sorted[floor(h)] + (h - floor(h)) * (sorted[ceil(h)] - sorted[floor(h)])`.
/// This is numpy's default (`method="linear"`) and R's type 7.
///
/// # Panics
///
/// Panics if `sorted` is empty or `p` is outside `[0, 100]` (including NaN).
#[must_use]
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty(), "percentile of an empty sample");
    assert!(
        (0.0..=100.0).contains(&p),
        "percentile {p} outside [0, 100]"
    );
    let h = (sorted.len() - 1) as f64 * p / 100.0;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    lerp(sorted[lo], sorted[hi], h - lo as f64)
}

/// The median of `buf`, reordering `buf` in the process.
///
/// Selection is linear time, which matters inside bootstrap loops where a full sort per
/// resample would dominate the cost.
///
/// # Panics
///
/// Panics if `buf` is empty.
#[must_use]
pub fn median_in_place(buf: &mut [f64]) -> f64 {
    assert!(!buf.is_empty(), "median of an empty sample");
    let n = buf.len();
    let upper_rank = n / 2;
    let (lower_part, upper, _) = buf.select_nth_unstable_by(upper_rank, f64::total_cmp);
    let upper = *upper;
    if n % 2 == 1 {
        return upper;
    }
    // For even n the lower middle is the largest element left of the selected one, which
    // selection has already partitioned there.
    let lower = lower_part
        .iter()
        .copied()
        .max_by(f64::total_cmp)
        .expect("even n >= 2 leaves a non-empty lower part");
    lerp(lower, upper, 0.5)
}

/// The median of `samples` (in any order); equal to `percentile(&sorted(samples), 50.0)`.
///
/// # Panics
///
/// Panics if `samples` is empty.
#[must_use]
pub fn median(samples: &[f64]) -> f64 {
    median_in_place(&mut samples.to_vec())
}

/// The median absolute deviation of `samples`: `median(|x - median(samples)|)`.
///
/// This is the raw MAD, not scaled by 1.4826 to estimate a normal standard deviation, so it
/// stays in the unit of the samples and is easy to reason about for skewed timing data.
///
/// # Panics
///
/// Panics if `samples` is empty.
#[must_use]
pub fn mad(samples: &[f64]) -> f64 {
    mad_around(samples, median(samples))
}

/// The median absolute deviation of `samples` around an already known `center`.
pub(crate) fn mad_around(samples: &[f64], center: f64) -> f64 {
    let mut deviations: Vec<f64> = samples.iter().map(|x| (x - center).abs()).collect();
    median_in_place(&mut deviations)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn one_to_ten() -> Vec<f64> {
        (1..=10).map(f64::from).collect()
    }

    #[test]
    fn percentiles_match_numpy_linear() {
        let x = one_to_ten();
        // np.percentile(np.arange(1, 11), [0, 5, 25, 50, 75, 95, 99, 100])
        assert_eq!(percentile(&x, 0.0), 1.0);
        assert!((percentile(&x, 5.0) - 1.45).abs() < 1e-12);
        assert_eq!(percentile(&x, 25.0), 3.25);
        assert_eq!(percentile(&x, 50.0), 5.5);
        assert_eq!(percentile(&x, 75.0), 7.75);
        assert!((percentile(&x, 95.0) - 9.55).abs() < 1e-12);
        assert!((percentile(&x, 99.0) - 9.91).abs() < 1e-12);
        assert_eq!(percentile(&x, 100.0), 10.0);
    }

    #[test]
    fn median_of_even_and_odd_counts() {
        assert_eq!(median(&one_to_ten()), 5.5);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn mad_of_known_set() {
        // median 2; deviations [1, 1, 0, 0, 2, 4, 7] -> median 1.
        assert_eq!(mad(&[1.0, 1.0, 2.0, 2.0, 4.0, 6.0, 9.0]), 1.0);
    }

    #[test]
    fn single_and_two_samples() {
        assert_eq!(percentile(&[7.0], 0.0), 7.0);
        assert_eq!(percentile(&[7.0], 63.0), 7.0);
        assert_eq!(median(&[7.0]), 7.0);
        assert_eq!(mad(&[7.0]), 0.0);

        assert_eq!(percentile(&[2.0, 4.0], 25.0), 2.5);
        assert_eq!(median(&[4.0, 2.0]), 3.0);
        assert_eq!(mad(&[4.0, 2.0]), 1.0);
    }

    #[test]
    fn sorted_orders_ascending() {
        assert_eq!(sorted(&[3.0, -1.0, 2.0]), vec![-1.0, 2.0, 3.0]);
    }

    #[test]
    #[should_panic(expected = "empty")]
    fn percentile_of_empty_panics() {
        let _ = percentile(&[], 50.0);
    }

    #[test]
    #[should_panic(expected = "outside")]
    fn percentile_out_of_range_panics() {
        let _ = percentile(&[1.0], 101.0);
    }

    proptest! {
        #[test]
        fn median_agrees_with_percentile_50(x in prop::collection::vec(-1e9f64..1e9, 1..300)) {
            prop_assert_eq!(median(&x), percentile(&sorted(&x), 50.0));
        }

        #[test]
        fn percentile_is_monotone_in_p(
            x in prop::collection::vec(-1e9f64..1e9, 1..100),
            p in 0.0f64..=100.0,
            q in 0.0f64..=100.0,
        ) {
            let s = sorted(&x);
            let (lo, hi) = if p <= q { (p, q) } else { (q, p) };
            prop_assert!(percentile(&s, lo) <= percentile(&s, hi));
            prop_assert!(s[0] <= percentile(&s, lo));
            prop_assert!(percentile(&s, hi) <= s[s.len() - 1]);
        }
    }
}
