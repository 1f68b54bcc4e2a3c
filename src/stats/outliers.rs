//! Outlier classification with Tukey's fences.
//!
//! Timing samples are skewed by interrupts, frequency changes and cache effects, so
//! outliers are only labelled and counted, never removed: dropping them would hide exactly
//! the behaviour a benchmark user may need to see. A sample is a mild outlier beyond
//! 1.5 IQR outside the quartiles and a severe one beyond 3 IQR; points exactly on a fence
//! are not outliers.

use serde::{Deserialize, Serialize};

use super::quantile::{percentile, sorted};

/// How many samples fall in each outlier band.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutlierCounts {
    /// Samples below `Q1 - 3 IQR`.
    pub low_severe: usize,
    /// Samples in `[Q1 - 3 IQR, Q1 - 1.5 IQR)`.
    pub low_mild: usize,
    /// Samples in `(Q3 + 1.5 IQR, Q3 + 3 IQR]`.
    pub high_mild: usize,
    /// Samples above `Q3 + 3 IQR`.
    pub high_severe: usize,
}

impl OutlierCounts {
    /// Total number of outliers, mild and severe, on both sides.
    #[must_use]
    pub fn total(&self) -> usize {
        self.low_severe + self.low_mild + self.high_mild + self.high_severe
    }
}

/// The band a single sample falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutlierLabel {
    /// Below the low severe fence.
    LowSevere,
    /// Between the low severe and low mild fences.
    LowMild,
    /// Between the two mild fences, inclusive.
    NotAnOutlier,
    /// Between the high mild and high severe fences.
    HighMild,
    /// Above the high severe fence.
    HighSevere,
}

/// Tukey's fences of a sample, in the unit of the samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fences {
    /// `Q1 - 3 IQR`.
    pub low_severe: f64,
    /// `Q1 - 1.5 IQR`.
    pub low_mild: f64,
    /// `Q3 + 1.5 IQR`.
    pub high_mild: f64,
    /// `Q3 + 3 IQR`.
    pub high_severe: f64,
}

impl Fences {
    /// Tukey's fences from samples already sorted ascending.
    ///
    /// # Panics
    ///
    /// Panics if `sorted` is empty.
    #[must_use]
    pub fn from_sorted(sorted: &[f64]) -> Self {
        let q1 = percentile(sorted, 25.0);
        let q3 = percentile(sorted, 75.0);
        let iqr = q3 - q1;
        Self {
            low_severe: q1 - 3.0 * iqr,
            low_mild: q1 - 1.5 * iqr,
            high_mild: q3 + 1.5 * iqr,
            high_severe: q3 + 3.0 * iqr,
        }
    }

    /// The band `x` falls in.
    #[must_use]
    pub fn label(&self, x: f64) -> OutlierLabel {
        if x < self.low_severe {
            OutlierLabel::LowSevere
        } else if x < self.low_mild {
            OutlierLabel::LowMild
        } else if x > self.high_severe {
            OutlierLabel::HighSevere
        } else if x > self.high_mild {
            OutlierLabel::HighMild
        } else {
            OutlierLabel::NotAnOutlier
        }
    }

    /// Counts the samples in each band.
    #[must_use]
    pub fn count(&self, samples: &[f64]) -> OutlierCounts {
        let mut counts = OutlierCounts::default();
        for &x in samples {
            match self.label(x) {
                OutlierLabel::LowSevere => counts.low_severe += 1,
                OutlierLabel::LowMild => counts.low_mild += 1,
                OutlierLabel::NotAnOutlier => {}
                OutlierLabel::HighMild => counts.high_mild += 1,
                OutlierLabel::HighSevere => counts.high_severe += 1,
            }
        }
        counts
    }
}

/// Tukey's fences of `samples` (in any order), with quartiles as in
/// [`percentile`].
///
/// # Panics
///
/// Panics if `samples` is empty.
#[must_use]
pub fn tukey_fences(samples: &[f64]) -> Fences {
    Fences::from_sorted(&sorted(samples))
}

/// One label per sample, in the order of `samples`; empty input gives an empty vector.
#[must_use]
pub fn label_outliers(samples: &[f64]) -> Vec<OutlierLabel> {
    if samples.is_empty() {
        return Vec::new();
    }
    let fences = tukey_fences(samples);
    samples.iter().map(|&x| fences.label(x)).collect()
}

/// How many samples fall in each outlier band; empty input gives all zeros.
#[must_use]
pub fn count_outliers(samples: &[f64]) -> OutlierCounts {
    if samples.is_empty() {
        return OutlierCounts::default();
    }
    tukey_fences(samples).count(samples)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fences_of_one_to_ten() {
        // Q1 = 3.25, Q3 = 7.75, IQR = 4.5.
        let x: Vec<f64> = (1..=10).map(f64::from).collect();
        let f = tukey_fences(&x);
        assert_eq!(
            f,
            Fences {
                low_severe: -10.25,
                low_mild: -3.5,
                high_mild: 14.5,
                high_severe: 21.25,
            }
        );
        assert_eq!(count_outliers(&x), OutlierCounts::default());
    }

    #[test]
    fn labels_each_band_in_order() {
        let mut x: Vec<f64> = (1..=10).map(f64::from).collect();
        x.extend([-100.0, -10.0, 20.0, 100.0]);
        // Sorted: -100, -10, 1..=10, 20, 100. With n = 14, Q1 sits at rank 3.25 (2.25) and
        // Q3 at rank 9.75 (8.75), so IQR = 6.5.
        assert_eq!(
            tukey_fences(&x),
            Fences {
                low_severe: -17.25,
                low_mild: -7.5,
                high_mild: 18.5,
                high_severe: 28.25,
            }
        );
        let labels = label_outliers(&x);
        assert_eq!(labels.len(), x.len());
        assert!(labels[..10]
            .iter()
            .all(|&l| l == OutlierLabel::NotAnOutlier));
        assert_eq!(
            &labels[10..],
            &[
                OutlierLabel::LowSevere,
                OutlierLabel::LowMild,
                OutlierLabel::HighMild,
                OutlierLabel::HighSevere,
            ]
        );
        let counts = count_outliers(&x);
        assert_eq!(
            counts,
            OutlierCounts {
                low_severe: 1,
                low_mild: 1,
                high_mild: 1,
                high_severe: 1,
            }
        );
        assert_eq!(counts.total(), 4);
    }

    #[test]
    fn points_on_a_fence_are_not_outliers() {
        let f = Fences {
            low_severe: -3.0,
            low_mild: -1.5,
            high_mild: 1.5,
            high_severe: 3.0,
        };
        assert_eq!(f.label(-1.5), OutlierLabel::NotAnOutlier);
        assert_eq!(f.label(1.5), OutlierLabel::NotAnOutlier);
        assert_eq!(f.label(-3.0), OutlierLabel::LowMild);
        assert_eq!(f.label(3.0), OutlierLabel::HighMild);
    }

    #[test]
    fn tiny_and_empty_samples() {
        assert!(label_outliers(&[]).is_empty());
        assert_eq!(count_outliers(&[]), OutlierCounts::default());
        assert_eq!(label_outliers(&[5.0]), vec![OutlierLabel::NotAnOutlier]);
        assert_eq!(
            label_outliers(&[1.0, 2.0]),
            vec![OutlierLabel::NotAnOutlier; 2]
        );
    }

    #[test]
    fn label_serializes_kebab_case() {
        let json = serde_json::to_string(&OutlierLabel::NotAnOutlier).unwrap();
        assert_eq!(json, "\"not-an-outlier\"");
    }

    proptest! {
        #[test]
        fn labels_and_counts_agree(x in prop::collection::vec(-1e6f64..1e6, 0..200)) {
            let labels = label_outliers(&x);
            prop_assert_eq!(labels.len(), x.len());
            let counts = count_outliers(&x);
            let flagged = labels.iter().filter(|&&l| l != OutlierLabel::NotAnOutlier).count();
            prop_assert_eq!(counts.total(), flagged);
        }
    }
}
