//! Comparison of two runs: for every (algorithm, implementation, operation) present in both,
//! the ratio of medians with a bootstrap confidence interval and a verdict that needs both
//! statistical significance and a change beyond a noise threshold; and the differences in
//! environment and provider versions that a reader must see before trusting the ratios.
//!
//! Significance comes from the bootstrap over all samples and, when both runs were measured in
//! four or more interleaved rounds, also from a Mann–Whitney test on the round medians (with
//! fewer rounds that test could never reach p < 0.05): on a machine whose speed drifts,
//! samples are not independent, and two runs of the same code would otherwise be called
//! different.

use crate::kem::Op;
use crate::record::compare::{self as shared, diff, environment_differences, Asked, EnvDifference};
use crate::record::latency::{LatencyRecord, OperationResult};
use crate::stats::{self, Comparison, Verdict};
use crate::table::{Cell, Column, Mark, Tables};
use serde::Serialize;

/// Default noise threshold: changes smaller than 2% are called noise.
pub const NOISE_THRESHOLD: f64 = 0.02;
/// Significance level of the bootstrap test.
pub const SIGNIFICANCE: f64 = 0.05;
const RESAMPLES: usize = 2000;

/// One compared operation.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Algorithm.
    pub algorithm: String,
    /// Implementation id (the old run's).
    pub implementation: String,
    /// The new run's implementation id, where it is another: the same build of another
    /// version of the library (source trees) or for another architecture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_implementation: Option<String>,
    /// Operation.
    pub operation: Op,
    /// Median of the old run (ns).
    pub old_median_ns: f64,
    /// Median of the new run (ns).
    pub new_median_ns: f64,
    /// Mann–Whitney p-value of the round medians, when both runs had 4 or more rounds; the
    /// reported `p_value` is the larger of this and the bootstrap's.
    pub rounds_p_value: Option<f64>,
    /// Ratio, interval, p-value and verdict.
    #[serde(flatten)]
    pub comparison: Comparison,
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Environment and version differences, shown above the table.
    pub differences: Vec<EnvDifference>,
    /// One row per operation present in both runs.
    pub rows: Vec<Row>,
    /// Operations present in only one of the runs: (label, "old" or "new").
    pub unmatched: Vec<(String, &'static str)>,
    /// Noise threshold used.
    pub noise_threshold: f64,
}

impl Report {
    /// Rows slower by more than `pct` percent with significance.
    pub fn regressions(&self, pct: f64) -> Vec<&Row> {
        self.rows
            .iter()
            .filter(|r| {
                r.comparison.verdict == Verdict::Slower && r.comparison.ratio > 1.0 + pct / 100.0
            })
            .collect()
    }
}

/// Environment and version differences between two runs.
fn env_differences(a: &LatencyRecord, b: &LatencyRecord) -> Vec<EnvDifference> {
    let mut d = environment_differences(&a.environment, &b.environment);
    diff(
        &mut d,
        "decaps secret key",
        a.measured.decaps_secret_key,
        b.measured.decaps_secret_key,
    );
    diff(
        &mut d,
        "pinned cpu",
        a.config.pinned_cpu.map_or("none".into(), |c| c.to_string()),
        b.config.pinned_cpu.map_or("none".into(), |c| c.to_string()),
    );
    d
}

/// Compares one operation's samples, `old` then `new`: the ratio of medians with its bootstrap
/// interval, and the Mann–Whitney p-value of the round medians when both have 4 or more rounds
/// (the larger p-value is the one reported: samples within a round share the machine's state,
/// the rounds are the replicates, so a change is real only if the rounds differ too).
pub fn operations(
    old: &OperationResult,
    new: &OperationResult,
    noise_threshold: f64,
) -> (Comparison, Option<f64>) {
    let mut c = stats::compare(
        &old.raw_samples_ns,
        &new.raw_samples_ns,
        noise_threshold,
        SIGNIFICANCE,
        RESAMPLES,
        0x636d70,
    );
    let rounds_p = (old.round_medians_ns.len() >= 4 && new.round_medians_ns.len() >= 4)
        .then(|| stats::mann_whitney_p(&old.round_medians_ns, &new.round_medians_ns));
    if let Some(p) = rounds_p {
        c.p_value = c.p_value.max(p);
        if c.p_value >= SIGNIFICANCE {
            c.verdict = Verdict::WithinNoise;
        }
    }
    (c, rounds_p)
}

/// Compares two runs, `old` then `new`.
pub fn compare(old: &LatencyRecord, new: &LatencyRecord, noise_threshold: f64) -> Report {
    let mut rows = Vec::new();
    let mut unmatched = Vec::new();
    for ra in &old.results {
        let rb = shared::partner(ra, &old.results, &new.results);
        for oa in &ra.operations {
            let label = format!(
                "{}@{} {}",
                ra.algorithm,
                ra.implementation,
                oa.operation.as_str()
            );
            let ob = rb.and_then(|rb| rb.op(oa.operation));
            match ob {
                Some(ob) if !oa.raw_samples_ns.is_empty() && !ob.raw_samples_ns.is_empty() => {
                    let (c, rounds_p) = operations(oa, ob, noise_threshold);
                    rows.push(Row {
                        algorithm: ra.algorithm.clone(),
                        implementation: ra.implementation.clone(),
                        new_implementation: rb
                            .filter(|rb| rb.implementation != ra.implementation)
                            .map(|rb| rb.implementation.clone()),
                        operation: oa.operation,
                        old_median_ns: oa.median_ns,
                        new_median_ns: ob.median_ns,
                        rounds_p_value: rounds_p,
                        comparison: c,
                    })
                }
                _ => unmatched.push((label, "old")),
            }
        }
    }
    for rb in &new.results {
        for ob in &rb.operations {
            let found = shared::partner(rb, &new.results, &old.results)
                .is_some_and(|ra| ra.op(ob.operation).is_some());
            if !found {
                unmatched.push((
                    format!(
                        "{}@{} {}",
                        rb.algorithm,
                        rb.implementation,
                        ob.operation.as_str()
                    ),
                    "new",
                ));
            }
        }
    }
    Report {
        differences: env_differences(old, new),
        rows,
        unmatched,
        noise_threshold,
    }
}

/// The comparison of two runs as `compare` shows it.
pub struct Compared<'a> {
    report: Report,
    old: &'a LatencyRecord,
    new: &'a LatencyRecord,
    asked: Asked<'a>,
}

impl<'a> Compared<'a> {
    /// Compares `old` and `new`, named and thresholded as `asked`.
    pub fn new(old: &'a LatencyRecord, new: &'a LatencyRecord, asked: Asked<'a>) -> Compared<'a> {
        Compared {
            report: compare(old, new, asked.noise),
            old,
            new,
            asked,
        }
    }
}

/// What a run measured, for messages: `ML-KEM-768@liboqs, X25519@aws-lc` (or `nothing`).
fn measured(r: &LatencyRecord) -> String {
    let labels: Vec<String> = r
        .results
        .iter()
        .filter(|b| !b.operations.is_empty())
        .map(|b| format!("{}@{}", b.algorithm, b.implementation))
        .collect();
    if labels.is_empty() {
        "nothing measured".into()
    } else {
        labels.join(", ")
    }
}

impl shared::Comparison for Compared<'_> {
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&self.report)
    }

    fn nothing_shared(&self) -> Option<String> {
        let Asked { old, new, .. } = self.asked;
        self.report.rows.is_empty().then(|| {
            format!(
                "{old} and {new} share no (algorithm, implementation, operation) to compare: {old} has {}; {new} has {}",
                measured(self.old),
                measured(self.new)
            )
        })
    }

    /// Per operation, the ratio, its interval, p and the verdict.
    fn tables(&self) -> Tables {
        let r = &self.report;
        let columns = vec![
            Column::text("algorithm"),
            Column::text("implementation"),
            Column::text("op"),
            Column::num("old median"),
            Column::num("new median"),
            Column::num("new/old"),
            Column::num("95% CI"),
            Column::num("p"),
            Column::text("verdict"),
        ];
        let mut rows = Vec::new();
        for row in &r.rows {
            let c = &row.comparison;
            let verdict = match c.verdict {
                Verdict::Faster => Cell::text("faster").marked(Mark::Good),
                Verdict::Slower => Cell::text("SLOWER").marked(Mark::Bad),
                Verdict::WithinNoise => Cell::text("within noise"),
            };
            rows.push(vec![
                Cell::text(&row.algorithm),
                Cell::text(shared::shown_pair(
                    &row.implementation,
                    row.new_implementation.as_deref(),
                )),
                Cell::text(row.operation.as_str()),
                Cell::ns(row.old_median_ns),
                Cell::ns(row.new_median_ns),
                Cell::num(format!("{:.3}", c.ratio), c.ratio),
                Cell::right(format!("{:.3} – {:.3}", c.ratio_ci_low, c.ratio_ci_high)),
                Cell::num(format!("{:.3}", c.p_value), c.p_value),
                verdict,
            ]);
        }
        let t = shared::table("compare", columns, rows);
        shared::console(
            vec![
                shared::heading(
                    &self.asked,
                    &r.differences,
                    "Same environment and provider versions.",
                    "runs",
                ),
                t,
                shared::unmatched(&r.unmatched, "run"),
            ],
            &format!(
                "Verdict: faster/slower only when significant (p < 0.05: bootstrap over the samples and, with 4+ rounds, Mann-Whitney over the round medians) and beyond ±{:.1}%; otherwise within noise.",
                r.noise_threshold * 100.0
            ),
        )
    }

    fn regressions(&self, pct: f64) -> Option<String> {
        let n = self.report.regressions(pct).len();
        let n = match n {
            0 => return None,
            1 => "1 operation".to_string(),
            n => format!("{n} operations"),
        };
        Some(format!("{n} regressed by more than {pct}% with significance"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    fn scaled(run: &LatencyRecord, factor: f64) -> LatencyRecord {
        let mut r = run.clone();
        for res in &mut r.results {
            for o in &mut res.operations {
                for x in &mut o.raw_samples_ns {
                    *x *= factor;
                }
                o.median_ns *= factor;
            }
        }
        r
    }

    /// Deterministic noisy samples around `centre` (±2%).
    fn noisy(run: &LatencyRecord, centre: f64, seed: u64) -> LatencyRecord {
        let mut r = run.clone();
        let mut s = seed;
        for res in &mut r.results {
            for o in &mut res.operations {
                o.raw_samples_ns = (0..200)
                    .map(|_| {
                        s = s
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        centre * (1.0 + ((s >> 33) as f64 / (1u64 << 31) as f64 - 0.5) * 0.04)
                    })
                    .collect();
                o.median_ns = crate::stats::median(&o.raw_samples_ns);
            }
        }
        r
    }

    #[test]
    fn a_ten_percent_slowdown_is_slower_and_a_half_percent_wobble_is_noise() {
        let base = noisy(&fixture::run(), 10_000.0, 1);
        let slow = scaled(&noisy(&fixture::run(), 10_000.0, 2), 1.10);
        let wobble = scaled(&noisy(&fixture::run(), 10_000.0, 3), 1.005);
        let r = compare(&base, &slow, NOISE_THRESHOLD);
        assert!(!r.rows.is_empty());
        assert!(
            r.rows
                .iter()
                .all(|row| row.comparison.verdict == Verdict::Slower),
            "{:?}",
            r.rows
        );
        assert_eq!(r.regressions(5.0).len(), r.rows.len());
        assert!(r.regressions(15.0).is_empty());
        let w = compare(&base, &wobble, NOISE_THRESHOLD);
        assert!(
            w.rows
                .iter()
                .all(|row| row.comparison.verdict == Verdict::WithinNoise),
            "{:?}",
            w.rows
        );
        let f = compare(&slow, &base, NOISE_THRESHOLD);
        assert!(f
            .rows
            .iter()
            .all(|row| row.comparison.verdict == Verdict::Faster));
    }

    #[test]
    fn environment_and_version_differences_are_listed() {
        let a = fixture::run();
        let mut b = fixture::run();
        b.environment.cpu.model = "Other CPU".into();
        b.environment.providers[0].version = "kembench 0.2.0".into();
        let d = env_differences(&a, &b);
        assert!(d
            .iter()
            .any(|x| x.what == "cpu.model" && x.new == "Other CPU"));
        assert!(d.iter().any(|x| x.what == "provider mock/correct"));
        assert!(env_differences(&a, &a).is_empty());
    }

    #[test]
    fn a_run_from_before_kept_keys_is_flagged_as_measuring_other_work() {
        use crate::record::latency::SecretKeys;
        let new = fixture::run();
        let mut old = new.clone();
        old.measured.decaps_secret_key = SecretKeys::Bytes;
        let d = env_differences(&old, &new);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].what, "decaps secret key");
        assert!(d[0].old.contains("rebuilt from bytes"), "{}", d[0].old);
        // A record without the field (written before) reads as bytes.
        let mut v = serde_json::to_value(&new).unwrap();
        v.as_object_mut().unwrap().remove("decaps_secret_key");
        let back: LatencyRecord = serde_json::from_value(v).unwrap();
        assert_eq!(back.measured.decaps_secret_key, SecretKeys::Bytes);
    }

    #[test]
    fn operations_in_one_run_only_are_reported() {
        let a = fixture::run();
        let mut b = fixture::run();
        b.results[0].operations.pop();
        let r = compare(&a, &b, NOISE_THRESHOLD);
        assert_eq!(
            r.unmatched,
            vec![("MockKEM@mock/correct exchange".to_string(), "old")]
        );
    }
}

#[cfg(test)]
mod pairing_tests {
    use super::*;
    use crate::export::fixture;

    #[test]
    fn a_build_is_compared_with_the_same_build_of_another_version_in_the_other_run() {
        let old = fixture::run_with_builds();
        let mut new = old.clone();
        let carried = fixture::build_id("pqclean/clean", "gcc-12", "-O2");
        let tree = carried.replace("pqclean/", "pqclean-2026.01+g1a2b3c4/");
        for r in &mut new.results {
            if r.implementation == carried {
                r.implementation = tree.clone();
            }
        }
        let report = compare(&old, &new, NOISE_THRESHOLD);
        let paired: Vec<&Row> = report
            .rows
            .iter()
            .filter(|r| r.implementation == carried)
            .collect();
        assert_eq!(paired.len(), 4, "{:#?}", report.rows);
        for r in &paired {
            assert_eq!(r.new_implementation.as_deref(), Some(tree.as_str()));
            assert_eq!(r.comparison.ratio, 1.0);
        }
        assert!(report.unmatched.is_empty(), "{:?}", report.unmatched);
        // Same ids on both sides: nothing named twice.
        let same = compare(&old, &old, NOISE_THRESHOLD);
        assert!(same.rows.iter().all(|r| r.new_implementation.is_none()));
    }
}
