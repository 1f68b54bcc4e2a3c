//! dudect's leakage test, as pure functions: Reparaz, Balasch and Verbauwhede, "Dude, is my
//! code constant time?" (DATE 2017), and their reference C code (`dudect.h`,
//! github.com/oreparaz/dudect).
//!
//! Two classes of inputs are timed in random order; Welch's t-test compares the two
//! distributions of timings. As in the reference code:
//! - each test keeps its means and variances online (Welford's method), so no timing is kept;
//! - the **raw** test takes every measurement;
//! - the **cropped** tests take only the measurements below a percentile of the first batch's
//!   distribution, at `1 - 0.5^(10 (i+1) / NUM)` for `i` in `0..NUM` (this drops the long upper
//!   tail that interrupts and migrations add);
//! - the **second-order** test runs on the squared distance of each measurement to its class's
//!   mean (a leak in the variance only), once 10,000 measurements of the first class set the
//!   means;
//! - the figure is the largest |t| over the tests that have enough measurements (10,000).
//!
//! One departure, for robustness on a shared machine: dudect centres the second-order test on
//! the raw test's means and squares every measurement. One preemption of a few milliseconds
//! (millions of ticks against a call of hundreds) then shifts one class's mean for thousands
//! of measurements, and every later square of that class is large: a second-order |t| of
//! hundreds on identical distributions (seen on this VM). Here the second-order test takes
//! only the measurements below the highest cropping threshold (the 99.9th percentile of the
//! first batch, `1 - 0.5^10`) and centres them on those measurements' own means.

/// How many cropped tests dudect runs (`DUDECT_NUMBER_PERCENTILES`).
pub const NUMBER_PERCENTILES: usize = 100;

/// Measurements of class 0 the raw test needs before the second-order test starts (dudect's
/// own constant: the class means must be settled before distances to them mean anything).
pub const SECOND_ORDER_AFTER: u64 = 10_000;

/// Measurements a test needs (both classes together) before its |t| counts in the maximum
/// (dudect's `DUDECT_ENOUGH_MEASUREMENTS`).
pub const ENOUGH_MEASUREMENTS: u64 = 10_000;

/// Welch's t-test between two classes, kept online (Welford): means and sums of squared
/// deviations, never the samples.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Welch {
    mean: [f64; 2],
    m2: [f64; 2],
    n: [f64; 2],
}

impl Welch {
    /// Adds `x` to class `class` (0 or 1; any other value counts as 1).
    pub fn push(&mut self, x: f64, class: usize) {
        let c = usize::from(class != 0);
        self.n[c] += 1.0;
        let delta = x - self.mean[c];
        self.mean[c] += delta / self.n[c];
        self.m2[c] += delta * (x - self.mean[c]);
    }

    /// Measurements in each class.
    pub fn counts(&self) -> [u64; 2] {
        [self.n[0] as u64, self.n[1] as u64]
    }

    /// The mean of class `class`.
    pub fn mean(&self, class: usize) -> f64 {
        self.mean[usize::from(class != 0)]
    }

    /// Welch's t: `(mean0 - mean1) / sqrt(var0/n0 + var1/n1)`; 0 while a class has fewer than
    /// two measurements or both variances are 0 with equal means.
    pub fn t(&self) -> f64 {
        if self.n[0] < 2.0 || self.n[1] < 2.0 {
            return 0.0;
        }
        let var0 = self.m2[0] / (self.n[0] - 1.0);
        let var1 = self.m2[1] / (self.n[1] - 1.0);
        let den = (var0 / self.n[0] + var1 / self.n[1]).sqrt();
        let num = self.mean[0] - self.mean[1];
        if den == 0.0 {
            if num == 0.0 {
                0.0
            } else {
                f64::INFINITY.copysign(num)
            }
        } else {
            num / den
        }
    }
}

/// The cropping thresholds dudect derives from its first batch: the values at the percentiles
/// `1 - 0.5^(10 (i+1) / count)` of `first_batch`, for `i` in `0..count` (increasing).
pub fn crop_thresholds(first_batch: &[f64], count: usize) -> Vec<f64> {
    let mut sorted = first_batch.to_vec();
    sorted.sort_by(f64::total_cmp);
    if sorted.is_empty() {
        return Vec::new();
    }
    (0..count)
        .map(|i| {
            let p = 1.0 - 0.5f64.powf(10.0 * (i + 1) as f64 / count as f64);
            // dudect's percentile(): the element at index floor(p * n), clamped.
            let idx = ((p * sorted.len() as f64) as usize).min(sorted.len() - 1);
            sorted[idx]
        })
        .collect()
}

/// The figures of one [`Dudect`] test so far.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// Measurements pushed (both classes).
    pub measurements: u64,
    /// The largest first-order |t| over the raw and cropped tests with enough measurements
    /// (the raw test's when none has).
    pub max_t: f64,
    /// Which test gave it: `raw` or `cropped at the N.N percentile`.
    pub max_t_test: String,
    /// The raw test's |t|.
    pub raw_t: f64,
    /// The second-order test's |t| (0 until it has enough measurements).
    pub second_order_t: f64,
}

impl Figures {
    /// The larger of the first- and second-order |t|.
    pub fn worst(&self) -> f64 {
        self.max_t.max(self.second_order_t)
    }
}

/// dudect's set of tests over one stream of (timing, class) measurements.
#[derive(Debug, Clone)]
pub struct Dudect {
    raw: Welch,
    thresholds: Vec<f64>,
    cropped: Vec<Welch>,
    /// The highest cropping threshold (infinite without thresholds).
    second_crop: f64,
    /// The measurements below `second_crop`: their class means centre the second-order test.
    second_base: Welch,
    second: Welch,
}

impl Dudect {
    /// The tests, cropped at `thresholds` (from [`crop_thresholds`] over a first batch that is
    /// not pushed, as dudect discards it).
    pub fn new(thresholds: Vec<f64>) -> Dudect {
        Dudect {
            raw: Welch::default(),
            cropped: vec![Welch::default(); thresholds.len()],
            second_crop: thresholds.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            thresholds,
            second_base: Welch::default(),
            second: Welch::default(),
        }
    }

    /// Adds one measurement `x` of class `class`.
    pub fn push(&mut self, x: f64, class: usize) {
        self.raw.push(x, class);
        for (w, &th) in self.cropped.iter_mut().zip(&self.thresholds) {
            if x < th {
                w.push(x, class);
            }
        }
        if self.thresholds.is_empty() || x < self.second_crop {
            self.second_base.push(x, class);
            if self.second_base.counts()[0] > SECOND_ORDER_AFTER {
                let centred = x - self.second_base.mean(class);
                self.second.push(centred * centred, class);
            }
        }
    }

    /// The figures so far.
    pub fn figures(&self) -> Figures {
        let enough = |w: &Welch| w.counts().iter().sum::<u64>() >= ENOUGH_MEASUREMENTS;
        let raw_t = self.raw.t().abs();
        let (mut max_t, mut max_t_test) = (raw_t, "raw".to_string());
        let count = self.thresholds.len();
        for (i, w) in self.cropped.iter().enumerate() {
            let t = w.t().abs();
            if enough(w) && t > max_t {
                max_t = t;
                let p = 100.0 * (1.0 - 0.5f64.powf(10.0 * (i + 1) as f64 / count as f64));
                max_t_test = format!("cropped at the {p:.1} percentile");
            }
        }
        Figures {
            measurements: self.raw.counts().iter().sum(),
            max_t,
            max_t_test,
            raw_t,
            second_order_t: if enough(&self.second) {
                self.second.t().abs()
            } else {
                0.0
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A sample of a normal distribution (Box-Muller), deterministic from the seed.
    fn normal(rng: &mut rand::rngs::SmallRng, mean: f64, sd: f64) -> f64 {
        let u1: f64 = rng.random_range(f64::EPSILON..1.0);
        let u2: f64 = rng.random();
        mean + sd * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    fn run(n: usize, a: (f64, f64), b: (f64, f64)) -> Figures {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let first: Vec<f64> = (0..1000).map(|_| normal(&mut rng, a.0, a.1)).collect();
        let mut d = Dudect::new(crop_thresholds(&first, NUMBER_PERCENTILES));
        for _ in 0..n {
            let class = rng.random_range(0..2);
            let (m, s) = if class == 0 { a } else { b };
            d.push(normal(&mut rng, m, s), class);
        }
        d.figures()
    }

    #[test]
    fn welch_matches_a_hand_computation() {
        let mut w = Welch::default();
        for x in [1.0, 2.0, 3.0] {
            w.push(x, 0);
        }
        for x in [4.0, 5.0, 6.0, 7.0] {
            w.push(x, 1);
        }
        // means 2 and 5.5, variances 1 and 5/3: t = -3.5 / sqrt(1/3 + 5/12).
        let want = -3.5 / (1.0f64 / 3.0 + 5.0 / 12.0).sqrt();
        assert!((w.t() - want).abs() < 1e-12, "{} vs {want}", w.t());
        assert_eq!(w.counts(), [3, 4]);
    }

    #[test]
    fn too_few_measurements_give_zero() {
        let mut w = Welch::default();
        w.push(1.0, 0);
        w.push(9.0, 1);
        assert_eq!(w.t(), 0.0);
    }

    #[test]
    fn identical_distributions_give_a_small_t() {
        let f = run(50_000, (1000.0, 50.0), (1000.0, 50.0));
        assert_eq!(f.measurements, 50_000);
        assert!(f.raw_t < 5.0, "{f:?}");
        assert!(f.second_order_t < 5.0, "{f:?}");
    }

    #[test]
    fn shifted_distributions_give_a_large_t() {
        let f = run(50_000, (1000.0, 50.0), (1010.0, 50.0));
        assert!(f.max_t > 10.0, "{f:?}");
        assert!(f.raw_t > 10.0, "{f:?}");
    }

    #[test]
    fn a_leak_only_in_variance_is_caught_by_the_second_order_test() {
        let f = run(60_000, (1000.0, 20.0), (1000.0, 40.0));
        assert!(f.raw_t < 5.0, "the means are equal: {f:?}");
        assert!(f.second_order_t > 10.0, "{f:?}");
    }

    #[test]
    fn one_huge_outlier_does_not_make_a_second_order_leak() {
        // Identical classes; one preemption (50,000 times a call) early in class 0, as this
        // VM gives: centred on the raw means, class 0's squares would all be huge.
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        let first: Vec<f64> = (0..1000).map(|_| normal(&mut rng, 220.0, 3.0)).collect();
        let mut d = Dudect::new(crop_thresholds(&first, NUMBER_PERCENTILES));
        d.push(11_000_000.0, 0);
        for _ in 0..60_000 {
            let class = rng.random_range(0..2);
            d.push(normal(&mut rng, 220.0, 3.0), class);
        }
        let f = d.figures();
        assert!(f.second_order_t < 5.0, "{f:?}");
        assert!(f.max_t < 5.0, "{f:?}");
    }

    #[test]
    fn crop_thresholds_follow_dudects_percentiles() {
        let batch: Vec<f64> = (0..1000).rev().map(f64::from).collect();
        let th = crop_thresholds(&batch, 10);
        assert_eq!(th.len(), 10);
        // i = 0: 1 - 0.5^1 = 0.5 -> element 500; i = 9: 1 - 0.5^10 -> element 999.
        assert_eq!(th[0], 500.0);
        assert_eq!(th[9], 999.0);
        assert!(th.windows(2).all(|w| w[0] <= w[1]));
        assert!(crop_thresholds(&[], 10).is_empty());
    }

    #[test]
    fn cropping_finds_a_shift_hidden_by_a_heavy_tail() {
        // Class 1 is 5 units slower; both have rare huge outliers (interrupts) that swamp the
        // raw test's variance. The cropped tests drop the tail and see the shift.
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        let sample = |rng: &mut rand::rngs::SmallRng, shift: f64| {
            let base = normal(rng, 1000.0 + shift, 10.0);
            if rng.random_range(0..100) == 0 {
                base + 1.0e6 * rng.random::<f64>()
            } else {
                base
            }
        };
        let first: Vec<f64> = (0..1000).map(|_| sample(&mut rng, 0.0)).collect();
        let mut d = Dudect::new(crop_thresholds(&first, NUMBER_PERCENTILES));
        for _ in 0..40_000 {
            let class = rng.random_range(0..2);
            let x = sample(&mut rng, 5.0 * class as f64);
            d.push(x, class);
        }
        let f = d.figures();
        assert!(f.raw_t < 10.0, "the tail hides it from the raw test: {f:?}");
        assert!(f.max_t > 10.0, "{f:?}");
        assert!(f.max_t_test.starts_with("cropped"), "{f:?}");
    }
}
