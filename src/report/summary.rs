//! The report's summary, as pure functions of a run: the fastest implementation of each
//! algorithm, and the fastest algorithm at each NIST level beside the classical baselines, all
//! by the median of the full exchange (keygen + encaps + decaps).

use crate::kem::Op;
use crate::record::latency::{BenchResult, LatencyRecord};

/// The classical baselines shown beside the post-quantum levels, when the run has them.
pub const BASELINES: [&str; 3] = ["X25519", "P-256", "ffdhe2048"];

/// The fastest implementation of one algorithm.
#[derive(Debug, Clone, PartialEq)]
pub struct Fastest {
    /// Algorithm.
    pub algorithm: String,
    /// Family (kebab-case).
    pub family: String,
    /// Claimed NIST level; `None` for classical algorithms.
    pub nist_level: Option<u8>,
    /// The fastest implementation.
    pub implementation: String,
    /// Its exchange median (ns).
    pub exchange_ns: f64,
    /// Bytes on the wire.
    pub wire_bytes: usize,
    /// The other implementations of the algorithm with an exchange median, fastest first.
    pub others: Vec<(String, f64)>,
}

/// The fastest algorithm at one NIST level.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelBest {
    /// The level.
    pub level: u8,
    /// The algorithm, in its fastest implementation.
    pub best: Fastest,
    /// How many algorithms at this level were measured.
    pub algorithms: usize,
}

/// The exchange median of a result, when it passed its check and has one.
fn exchange_ns(r: &BenchResult) -> Option<f64> {
    if r.correctness.failed() {
        return None;
    }
    r.op(Op::Exchange)
        .map(|o| o.median_ns)
        .filter(|m| m.is_finite() && *m > 0.0)
}

/// For each algorithm (in the run's order), its fastest implementation by exchange median.
/// Implementations that failed their correctness check, or have no exchange measurement, take
/// no part; an algorithm with none left is not listed. Ties go to the first measured.
pub fn fastest_implementations(run: &LatencyRecord) -> Vec<Fastest> {
    let mut algorithms: Vec<&str> = Vec::new();
    for r in &run.results {
        if !algorithms.contains(&r.algorithm.as_str()) {
            algorithms.push(&r.algorithm);
        }
    }
    algorithms
        .into_iter()
        .filter_map(|alg| {
            let mut timed: Vec<(&BenchResult, f64)> = run
                .results
                .iter()
                .filter(|r| r.algorithm == alg)
                .filter_map(|r| exchange_ns(r).map(|m| (r, m)))
                .collect();
            // A stable sort keeps the first measured ahead on ties.
            timed.sort_by(|a, b| a.1.total_cmp(&b.1));
            let (best, ns) = *timed.first()?;
            Some(Fastest {
                algorithm: best.algorithm.clone(),
                family: best.family.clone(),
                nist_level: best.nist_level,
                implementation: best.implementation.clone(),
                exchange_ns: ns,
                wire_bytes: best.wire_bytes,
                others: timed[1..]
                    .iter()
                    .map(|(r, m)| (r.implementation.clone(), *m))
                    .collect(),
            })
        })
        .collect()
}

/// For each NIST level present (ascending), the fastest algorithm claiming it, post-quantum and
/// hybrid alike, each in its fastest implementation.
pub fn fastest_per_level(run: &LatencyRecord) -> Vec<LevelBest> {
    let all = fastest_implementations(run);
    let mut levels: Vec<u8> = all.iter().filter_map(|f| f.nist_level).collect();
    levels.sort_unstable();
    levels.dedup();
    levels
        .into_iter()
        .filter_map(|level| {
            let at: Vec<&Fastest> = all.iter().filter(|f| f.nist_level == Some(level)).collect();
            let best =
                at.iter()
                    .copied()
                    .reduce(|a, b| if b.exchange_ns < a.exchange_ns { b } else { a })?;
            Some(LevelBest {
                level,
                best: best.clone(),
                algorithms: at.len(),
            })
        })
        .collect()
}

/// The classical baselines ([`BASELINES`]) the run measured, in that order, each in its fastest
/// implementation.
pub fn baselines(run: &LatencyRecord) -> Vec<Fastest> {
    let all = fastest_implementations(run);
    BASELINES
        .iter()
        .filter_map(|name| {
            all.iter()
                .find(|f| f.algorithm.eq_ignore_ascii_case(name))
                .cloned()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::verify::Outcome;

    /// A result with the fixture's operations, renamed and with its exchange median set.
    fn result(alg: &str, imp: &str, level: Option<u8>, exchange: f64) -> BenchResult {
        let mut r = fixture::run().results[0].clone();
        r.algorithm = alg.into();
        r.implementation = imp.into();
        r.nist_level = level;
        for o in &mut r.operations {
            if o.operation == Op::Exchange {
                o.median_ns = exchange;
            }
        }
        r
    }

    fn run(results: Vec<BenchResult>) -> LatencyRecord {
        LatencyRecord {
            results,
            ..fixture::run()
        }
    }

    #[test]
    fn the_fastest_implementation_wins_and_failures_do_not_count() {
        let mut broken = result("ML-KEM-768", "broken", Some(3), 1.0);
        broken.correctness = Outcome::Fail("differs".into());
        let r = run(vec![
            result("ML-KEM-768", "a", Some(3), 30_000.0),
            result("ML-KEM-768", "b", Some(3), 20_000.0),
            broken,
            result("ML-KEM-768", "c", Some(3), 25_000.0),
            result("X25519", "x", None, 50_000.0),
        ]);
        let f = fastest_implementations(&r);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].algorithm, "ML-KEM-768");
        assert_eq!(f[0].implementation, "b");
        assert_eq!(f[0].exchange_ns, 20_000.0);
        assert_eq!(
            f[0].others,
            vec![("c".to_string(), 25_000.0), ("a".to_string(), 30_000.0)]
        );
        assert_eq!(f[1].implementation, "x");
    }

    #[test]
    fn ties_go_to_the_first_measured_and_unmeasured_algorithms_are_left_out() {
        let mut no_exchange = result("HQC-128", "liboqs", Some(1), 5.0);
        no_exchange
            .operations
            .retain(|o| o.operation != Op::Exchange);
        let r = run(vec![
            result("A", "first", Some(1), 10.0),
            result("A", "second", Some(1), 10.0),
            no_exchange,
        ]);
        let f = fastest_implementations(&r);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].implementation, "first");
    }

    #[test]
    fn the_fastest_algorithm_per_level_and_the_baselines() {
        let r = run(vec![
            result("ML-KEM-512", "liboqs", Some(1), 20_000.0),
            result("ntruhps2048509", "pqclean", Some(1), 15_000.0),
            result("ML-KEM-768", "liboqs", Some(3), 30_000.0),
            result("ML-KEM-768", "aws-lc", Some(3), 28_000.0),
            result("X25519MLKEM768", "openssl", Some(3), 90_000.0),
            result("ffdhe2048", "openssl", None, 1e6),
            result("X25519", "aws-lc", None, 80_000.0),
        ]);
        let levels = fastest_per_level(&r);
        let got: Vec<(u8, &str, &str, usize)> = levels
            .iter()
            .map(|l| {
                (
                    l.level,
                    l.best.algorithm.as_str(),
                    l.best.implementation.as_str(),
                    l.algorithms,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (1, "ntruhps2048509", "pqclean", 2),
                (3, "ML-KEM-768", "aws-lc", 2)
            ]
        );
        let b: Vec<String> = baselines(&r).into_iter().map(|f| f.algorithm).collect();
        assert_eq!(
            b,
            ["X25519", "ffdhe2048"],
            "in BASELINES order, P-256 absent"
        );
    }

    #[test]
    fn an_empty_run_has_an_empty_summary() {
        let r = run(vec![]);
        assert!(fastest_implementations(&r).is_empty());
        assert!(fastest_per_level(&r).is_empty());
        assert!(baselines(&r).is_empty());
    }
}
