//! The Mann–Whitney U test, for small groups of replicate summaries (e.g. round medians).
//!
//! Samples taken within one stretch of time share the machine's state; the medians of rounds
//! spread over a run are closer to independent replicates, so a change is only called real
//! when the rounds themselves differ. The exact distribution of U is used for small groups (no
//! ties assumed in the null distribution; ties get mid-ranks), the normal approximation with
//! continuity correction otherwise.

/// Two-sided p-value of the Mann–Whitney U test of `a` against `b`.
///
/// # Panics
/// Panics if either group is empty.
#[must_use]
pub fn mann_whitney_p(a: &[f64], b: &[f64]) -> f64 {
    assert!(
        !a.is_empty() && !b.is_empty(),
        "Mann-Whitney with an empty group"
    );
    let (n, m) = (a.len(), b.len());
    // U for `a`: pairs (x in a, y in b) with x > y, ties counting one half.
    let mut u2 = 0usize; // twice U, to stay in integers with half-counted ties
    for x in a {
        for y in b {
            u2 += match x.total_cmp(y) {
                std::cmp::Ordering::Greater => 2,
                std::cmp::Ordering::Equal => 1,
                std::cmp::Ordering::Less => 0,
            };
        }
    }
    let u = u2 as f64 / 2.0;
    let mean = (n * m) as f64 / 2.0;
    if n * m <= 400 {
        // counts[k] = number of rank arrangements with U = k, by the classic recurrence
        // f(n, m, k) = f(n-1, m, k-m) + f(n, m-1, k).
        let dist = exact_u_distribution(n, m);
        let total: f64 = dist.iter().sum();
        let dev = (u - mean).abs();
        let p: f64 = dist
            .iter()
            .enumerate()
            .filter(|(k, _)| (*k as f64 - mean).abs() >= dev - 1e-9)
            .map(|(_, c)| c)
            .sum::<f64>()
            / total;
        p.min(1.0)
    } else {
        let sd = ((n * m * (n + m + 1)) as f64 / 12.0).sqrt();
        let z = ((u - mean).abs() - 0.5).max(0.0) / sd;
        (2.0 * normal_sf(z)).min(1.0)
    }
}

fn exact_u_distribution(n: usize, m: usize) -> Vec<f64> {
    // table[i][j] is the distribution for groups of sizes i and j.
    let max = n * m;
    let mut table: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); m + 1]; n + 1];
    for i in 0..=n {
        for j in 0..=m {
            let mut d = vec![0.0; i * j + 1];
            if i == 0 || j == 0 {
                d[0] = 1.0;
            } else {
                for (k, slot) in d.iter_mut().enumerate() {
                    let with_a_largest = if k >= j {
                        table[i - 1][j].get(k - j).copied().unwrap_or(0.0)
                    } else {
                        0.0
                    };
                    let with_b_largest = table[i][j - 1].get(k).copied().unwrap_or(0.0);
                    *slot = with_a_largest + with_b_largest;
                }
            }
            table[i][j] = d;
        }
    }
    let d = std::mem::take(&mut table[n][m]);
    debug_assert_eq!(d.len(), max + 1);
    d
}

/// Upper tail of the standard normal distribution (Abramowitz–Stegun 7.1.26 via erfc).
fn normal_sf(z: f64) -> f64 {
    let x = z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    0.5 * poly * (-x * x).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_separation_of_five_and_five() {
        // Two-sided exact p for U = 0 with n = m = 5 is 2 / C(10, 5) = 2 / 252.
        let p = mann_whitney_p(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]);
        assert!((p - 2.0 / 252.0).abs() < 1e-12, "{p}");
    }

    #[test]
    fn interleaved_groups_are_not_significant() {
        let p = mann_whitney_p(&[1.0, 3.0, 5.0, 7.0, 9.0], &[2.0, 4.0, 6.0, 8.0, 10.0]);
        assert!(p > 0.5, "{p}");
    }

    #[test]
    fn identical_groups_give_one() {
        assert!((mann_whitney_p(&[1.0; 4], &[1.0; 4]) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn large_groups_use_the_normal_approximation() {
        let a: Vec<f64> = (0..30).map(f64::from).collect();
        let b: Vec<f64> = (0..30).map(|x| f64::from(x) + 100.0).collect();
        assert!(mann_whitney_p(&a, &b) < 1e-6);
        assert!(mann_whitney_p(&a, &a) > 0.9);
    }
}
