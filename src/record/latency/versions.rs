//! Versions side by side in one run: where a run measured the same build (variant, compiler,
//! flags, architecture) of two versions of one library (a source tree given to `builds
//! --source`, and the copy kembench carries or another tree), each operation of the newer one
//! against the older one, from the same interleaved rounds: the ratio of medians with its
//! bootstrap interval and a verdict, as `compare` gives for two runs.
//!
//! Which is "older": the copy kembench carries (its id has no version) before any tree; between
//! two trees, the one the run planned first.

use super::compare::{operations, NOISE_THRESHOLD};
use super::BenchResult;
use crate::arch::BuildId;
use crate::kem::Op;
use crate::stats::Comparison;
use serde::Serialize;

/// One operation of one build, measured at two versions of its library in one run.
#[derive(Debug, Clone, Serialize)]
pub struct Versions {
    /// The algorithm.
    pub algorithm: String,
    /// The operation.
    pub operation: Op,
    /// The older version's build id.
    pub from: String,
    /// The newer version's build id.
    pub to: String,
    /// The older version's median, ns.
    pub from_median_ns: f64,
    /// The newer version's median, ns.
    pub to_median_ns: f64,
    /// `to` over `from`: ratio, interval, p-value, verdict.
    #[serde(flatten)]
    pub comparison: Comparison,
}

impl Versions {
    /// The library both builds are of: the source without version, variant, compiler or flags
    /// (`liboqs-0.16.0+g1a2b3c4/auto@gcc-12:O3` and `liboqs/auto@gcc-12:O3`: `liboqs`;
    /// `openssl4` and `openssl`: `openssl`).
    pub fn library(&self) -> String {
        library_of(&self.from)
    }
}

fn library_of(id: &str) -> String {
    let bare = BuildId::version_less(id);
    bare.split(['/', '@']).next().unwrap_or_default().to_string()
}

/// Every pair of versions of one build among `results` (a run's, or the part of them a table
/// describes), per operation both measured, in the order the run lists them.
pub fn side_by_side(results: &[BenchResult]) -> Vec<Versions> {
    let measured: Vec<&BenchResult> = results
        .iter()
        .filter(|r| r.operations.iter().any(|o| !o.raw_samples_ns.is_empty()))
        .collect();
    let mut out = Vec::new();
    for (i, a) in measured.iter().enumerate() {
        for b in &measured[i + 1..] {
            if a.algorithm != b.algorithm
                || a.implementation == b.implementation
                || BuildId::version_less(&a.implementation) != BuildId::version_less(&b.implementation)
                || !(BuildId::of_tree(&a.implementation) || BuildId::of_tree(&b.implementation))
            {
                continue;
            }
            // The carried copy first; else the order of the run.
            let (from, to) = if BuildId::of_tree(&a.implementation) && !BuildId::of_tree(&b.implementation) {
                (*b, *a)
            } else {
                (*a, *b)
            };
            for of in &from.operations {
                let Some(ot) = to.op(of.operation) else {
                    continue;
                };
                if of.raw_samples_ns.is_empty() || ot.raw_samples_ns.is_empty() {
                    continue;
                }
                let (comparison, _) = operations(of, ot, NOISE_THRESHOLD);
                out.push(Versions {
                    algorithm: from.algorithm.clone(),
                    operation: of.operation,
                    from: from.implementation.clone(),
                    to: to.implementation.clone(),
                    from_median_ns: of.median_ns,
                    to_median_ns: ot.median_ns,
                    comparison,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::stats::Verdict;

    fn with_tree(factor: f64) -> crate::record::latency::LatencyRecord {
        fixture::run_with_versions(factor)
    }

    #[test]
    fn two_versions_of_one_build_are_put_side_by_side_the_carried_copy_first() {
        let rec = with_tree(1.25);
        let v = side_by_side(&rec.results);
        let ops: Vec<Op> = v.iter().map(|v| v.operation).collect();
        assert_eq!(ops, [Op::Keygen, Op::Encaps, Op::Decaps, Op::Exchange], "{v:#?}");
        for v in &v {
            assert_eq!(v.from, "pqclean/clean@gcc-12:O2");
            assert_eq!(v.to, "pqclean-2026.01+g1a2b3c4/clean@gcc-12:O2");
            assert!((v.comparison.ratio - 1.25).abs() < 0.01, "{v:?}");
            assert!(v.comparison.ratio_ci_low <= v.comparison.ratio);
            assert_eq!(v.comparison.verdict, Verdict::Slower, "{v:?}");
        }
        // The same code at two versions compares equal.
        for v in side_by_side(&with_tree(1.0).results) {
            assert_eq!(v.comparison.ratio, 1.0, "{v:?}");
            assert_eq!(v.comparison.verdict, Verdict::WithinNoise, "{v:?}");
        }
    }

    #[test]
    fn a_pair_names_its_library() {
        assert_eq!(library_of("liboqs-0.16.0+g1a2b3c4/auto@gcc-12:O3"), "liboqs");
        assert_eq!(library_of("liboqs/auto@gcc-12:O3"), "liboqs");
        assert_eq!(library_of("openssl4"), "openssl");
        assert_eq!(library_of("openssl"), "openssl");
        let v = side_by_side(&with_tree(1.0).results);
        assert_eq!(v[0].library(), "pqclean");
    }

    #[test]
    fn builds_of_one_version_are_not_versions() {
        // Compilers and flag sets of one source are the builds matrix, not versions.
        assert!(side_by_side(&fixture::run_with_builds().results).is_empty());
        let t = super::super::console::versions(&fixture::run_with_builds().results);
        assert!(t.is_empty());
        let t = super::super::console::versions(&with_tree(1.25).results);
        assert_eq!(t.len(), 1);
    }
}
