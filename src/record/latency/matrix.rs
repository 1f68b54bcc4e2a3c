//! The builds matrix of a run: per algorithm and source, compilers × flag sets, each cell one
//! build's median (of the exchange, or of one operation) relative to a stated baseline, the
//! fastest build that passed the gate marked (SUPERCOP's choice), and the speed-up from the
//! portable reference build to the fastest, both named.
//!
//! Cells are compared on their fastest round's median (the runs interleave every benchmark in
//! rounds, so each round's medians were taken under the same machine state), falling back to
//! the overall median for records without rounds. The baseline is the portable source built by
//! gcc at `-O2`; a `-O0` build is never the baseline unless nothing else is there, and is then
//! labelled as unoptimised.
//!
//! Given the verdicts of constant-time screening ([`Verdicts`], from ct records), each cell
//! carries its build's verdict (or `not screened`), and the fastest is chosen among the builds
//! with no unexplained finding: a faster build that has one is passed over and named, with
//! its verdict. Without verdicts the matrix is as it always was.

use crate::arch::BuildId;
use crate::kem::BuildFacts;
use crate::record::ct::{Verdict, Verdicts};
use crate::kem::Op;
use crate::record::latency::{BenchResult, LatencyRecord};
use serde::Serialize;

/// One build's figure.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The build's implementation id.
    pub implementation: String,
    /// The figure compared: the fastest round's median (or the median), in ns.
    pub median_ns: f64,
    /// `median_ns` over the baseline's (below 1: faster).
    pub ratio: Option<f64>,
    /// Deepest stack of the operation, bytes.
    pub max_stack_bytes: Option<u64>,
    /// Whether this is the fastest build of the algorithm.
    pub fastest: bool,
    /// Whether its flags ask for no optimisation (`-O0` or no `-O`).
    pub unoptimised: bool,
    /// Its constant-time verdict's words (`no finding`, `unexplained findings`, `not
    /// screened`); `None` when no verdicts were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screening: Option<&'static str>,
    /// Whether its verdict keeps it from being named the fastest (an unexplained finding).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_advisable: bool,
}

/// One row: a source built by one compiler.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// `pqclean/clean`.
    pub source: String,
    /// `gcc-12`.
    pub compiler: String,
    /// One cell per flag set of [`Matrix::flag_sets`] (`None`: not measured).
    pub cells: Vec<Option<Cell>>,
}

/// The matrix of one algorithm and operation.
#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    /// The algorithm.
    pub algorithm: String,
    /// The operation compared.
    pub operation: Op,
    /// The columns: flag sets as given.
    pub flag_sets: Vec<String>,
    /// The rows, sorted by source then compiler.
    pub rows: Vec<Row>,
    /// The build every ratio is relative to.
    pub baseline: Option<String>,
    /// The fastest build (it passed the gate, as every timed build did) with no unexplained
    /// constant-time finding.
    pub fastest: Option<String>,
    /// Builds faster than [`Matrix::fastest`] passed over for their verdict, fastest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed_over: Vec<(String, Verdict)>,
    /// Portable reference → fastest: (reference id, fastest id, reference / fastest).
    pub speedup: Option<(String, String, f64)>,
}

fn figure(r: &BenchResult, op: Op) -> Option<(f64, Option<u64>)> {
    let o = r.operations.iter().find(|o| o.operation == op)?;
    let v = o.best_round_median_ns.unwrap_or(o.median_ns);
    (v.is_finite() && v > 0.0).then_some((v, o.max_stack_bytes))
}

/// Every algorithm's matrix for `op`, over the builds the run measured (none when it measured
/// no build), with no constant-time verdict.
pub fn matrices(rec: &LatencyRecord, op: Op) -> Vec<Matrix> {
    matrices_with(rec, op, &Verdicts::none())
}

/// Every algorithm's matrix for `op`, each build marked with its verdict in `verdicts` and the
/// fastest chosen among those it advises ([`Verdicts::advisable`]).
pub fn matrices_with(rec: &LatencyRecord, op: Op, verdicts: &Verdicts) -> Vec<Matrix> {
    let facts = |id: &str| -> Option<&BuildFacts> {
        rec.environment
            .builds
            .iter()
            .find(|b| b.implementation == id)
    };
    let mut algs: Vec<&str> = Vec::new();
    for r in &rec.results {
        if facts(&r.implementation).is_some() && !algs.contains(&r.algorithm.as_str()) {
            algs.push(&r.algorithm);
        }
    }
    let mut out = Vec::new();
    for alg in algs {
        let measured: Vec<(&BuildFacts, f64, Option<u64>)> = rec
            .results
            .iter()
            .filter(|r| r.algorithm == alg)
            .filter_map(|r| {
                let f = facts(&r.implementation)?;
                let (v, stack) = figure(r, op)?;
                Some((f, v, stack))
            })
            .collect();
        // One build alone has nothing to be compared with.
        if measured.len() < 2 {
            continue;
        }
        let mut flag_sets: Vec<String> = Vec::new();
        let mut keys: Vec<(String, String)> = Vec::new();
        for (f, _, _) in &measured {
            if !flag_sets.contains(&f.flags) {
                flag_sets.push(f.flags.clone());
            }
            let k = (f.source.clone(), f.compiler.clone());
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        keys.sort();
        // Portable sources: PQClean's clean and opt, liboqs built for a generic CPU (not
        // PQClean's AVX2 code, not liboqs's `auto`).
        let portable =
            |f: &BuildFacts| !(f.source.ends_with("avx2") || f.source.ends_with("/auto"));
        // The baseline: the reference (PQClean clean) by gcc at -O2; else a portable source by
        // gcc at -O2; else a portable source at -O2; else any optimised build; else whatever
        // there is (unoptimised, labelled). Among equals, the copy kembench carries before a
        // source tree's build (another version is measured against it), then by id.
        let pick = |pred: &dyn Fn(&BuildFacts) -> bool| {
            measured
                .iter()
                .filter(|(f, _, _)| pred(f))
                .min_by_key(|x| (BuildId::of_tree(&x.0.implementation), &x.0.implementation))
        };
        let baseline = pick(&|f| {
            portable(f)
                && f.compiler.starts_with("gcc")
                && f.flags == "-O2"
                && f.source.ends_with("clean")
        })
        .or_else(|| pick(&|f| portable(f) && f.compiler.starts_with("gcc") && f.flags == "-O2"))
        .or_else(|| pick(&|f| portable(f) && f.flags == "-O2"))
        .or_else(|| pick(&|f| !f.unoptimised()))
        .or_else(|| pick(&|_| true));
        let mut by_speed: Vec<&(&BuildFacts, f64, Option<u64>)> = measured.iter().collect();
        by_speed.sort_by(|a, b| a.1.total_cmp(&b.1));
        let advisable = |f: &BuildFacts| verdicts.advisable(alg, &f.implementation);
        let fastest = by_speed
            .iter()
            .find(|(f, _, _)| advisable(f))
            .map(|(f, v, _)| (f.implementation.clone(), *v));
        let passed_over: Vec<(String, Verdict)> = by_speed
            .iter()
            .take_while(|(f, _, _)| !advisable(f))
            .filter_map(|(f, _, _)| {
                Some((
                    f.implementation.clone(),
                    verdicts.get(alg, &f.implementation)?,
                ))
            })
            .collect();
        let rows = keys
            .into_iter()
            .map(|(source, compiler)| Row {
                cells: flag_sets
                    .iter()
                    .map(|fl| {
                        measured
                            .iter()
                            .find(|(f, _, _)| {
                                f.source == source && f.compiler == compiler && &f.flags == fl
                            })
                            .map(|(f, v, stack)| Cell {
                                implementation: f.implementation.clone(),
                                median_ns: *v,
                                ratio: baseline.map(|b| v / b.1),
                                max_stack_bytes: *stack,
                                fastest: fastest
                                    .as_ref()
                                    .is_some_and(|(id, _)| *id == f.implementation),
                                unoptimised: f.unoptimised(),
                                screening: verdicts.mark(alg, &f.implementation),
                                not_advisable: !advisable(f),
                            })
                    })
                    .collect(),
                source,
                compiler,
            })
            .collect();
        let speedup = baseline.zip(fastest.clone()).and_then(|(b, (id, v))| {
            (b.0.implementation != id).then(|| (b.0.implementation.clone(), id, b.1 / v))
        });
        out.push(Matrix {
            algorithm: alg.to_string(),
            operation: op,
            flag_sets,
            rows,
            baseline: baseline.map(|b| b.0.implementation.clone()),
            fastest: fastest.map(|f| f.0),
            passed_over,
            speedup,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture::{self, build_id, BUILDS};

    /// The exchange figure the fixture gives a build of speed `factor`: its fastest round's
    /// median (the fixture's rounds are the base + 5 and + 4 ns).
    fn exchange(factor: f64) -> f64 {
        (174_000.0 * factor).round() + 4.0
    }

    fn cell<'a>(m: &'a Matrix, source: &str, compiler: &str, flags: &str) -> Option<&'a Cell> {
        let col = m.flag_sets.iter().position(|f| f == flags)?;
        m.rows
            .iter()
            .find(|r| r.source == source && r.compiler == compiler)?
            .cells[col]
            .as_ref()
    }

    #[test]
    fn a_run_without_builds_has_no_matrix() {
        assert!(matrices(&fixture::run(), Op::Exchange).is_empty());
    }

    #[test]
    fn the_fixture_matrix() {
        let rec = fixture::run_with_builds();
        let ms = matrices(&rec, Op::Exchange);
        assert_eq!(ms.len(), 1, "MockKEM has no builds");
        let m = &ms[0];
        assert_eq!(m.algorithm, "ML-KEM-768");
        assert_eq!(m.flag_sets, ["-O2", "-O3 -march=native"]);
        let rows: Vec<(&str, &str)> = m
            .rows
            .iter()
            .map(|r| (r.source.as_str(), r.compiler.as_str()))
            .collect();
        assert_eq!(
            rows,
            [
                ("pqclean/avx2", "clang-14"),
                ("pqclean/avx2", "gcc-12"),
                ("pqclean/clean", "clang-14"),
                ("pqclean/clean", "gcc-12"),
            ]
        );
        let baseline = build_id("pqclean/clean", "gcc-12", "-O2");
        assert_eq!(m.baseline.as_deref(), Some(baseline.as_str()));
        for (source, compiler, flags, factor, stack) in BUILDS {
            let c = cell(m, source, compiler, flags).expect("every build measured");
            assert_eq!(c.implementation, build_id(source, compiler, flags));
            assert_eq!(c.median_ns, exchange(factor), "the fastest round's median");
            let ratio = c.ratio.unwrap();
            assert!(
                (ratio - exchange(factor) / exchange(1.0)).abs() < 1e-12,
                "{source} {compiler} {flags}: {ratio}"
            );
            assert_eq!(c.max_stack_bytes, Some(stack));
            assert!(!c.unoptimised);
        }
        assert_eq!(
            cell(m, "pqclean/clean", "gcc-12", "-O2").unwrap().ratio,
            Some(1.0)
        );
        let fastest = build_id("pqclean/avx2", "clang-14", "-O3 -march=native");
        assert_eq!(m.fastest.as_deref(), Some(fastest.as_str()));
        let marked: Vec<&str> = m
            .rows
            .iter()
            .flat_map(|r| r.cells.iter().flatten())
            .filter(|c| c.fastest)
            .map(|c| c.implementation.as_str())
            .collect();
        assert_eq!(marked, [fastest.as_str()]);
        let (from, to, x) = m.speedup.clone().unwrap();
        assert_eq!((from, to), (baseline, fastest));
        assert!((x - exchange(1.0) / exchange(0.14)).abs() < 1e-12, "{x}");
    }

    #[test]
    fn the_carried_copy_is_the_baseline_before_a_source_trees_build() {
        // The tree's id sorts first (`pqclean-2026.01+...` < `pqclean/...`); the carried copy
        // is still the baseline the other version is measured against.
        let m = matrices(&fixture::run_with_versions(1.25), Op::Exchange).remove(0);
        let carried = build_id("pqclean/clean", "gcc-12", "-O2");
        assert_eq!(m.baseline.as_deref(), Some(carried.as_str()));
        let tree = m
            .rows
            .iter()
            .find(|r| r.source.starts_with("pqclean-2026.01"))
            .expect("the tree's build is a row of the matrix");
        let cell = tree.cells[0].as_ref().unwrap();
        assert!((cell.ratio.unwrap() - 1.25).abs() < 0.01, "{cell:?}");
    }

    #[test]
    fn every_operation_has_its_matrix_against_the_same_baseline() {
        let rec = fixture::run_with_builds();
        for op in [Op::Keygen, Op::Encaps, Op::Decaps] {
            let m = &matrices(&rec, op)[0];
            assert_eq!(m.operation, op);
            assert_eq!(
                m.baseline.as_deref(),
                Some(build_id("pqclean/clean", "gcc-12", "-O2").as_str())
            );
        }
    }

    #[test]
    fn a_build_not_measured_is_an_empty_cell() {
        let mut rec = fixture::run_with_builds();
        let gone = build_id("pqclean/avx2", "clang-14", "-O2");
        rec.results.retain(|r| r.implementation != gone);
        let m = &matrices(&rec, Op::Exchange)[0];
        assert!(cell(m, "pqclean/avx2", "clang-14", "-O2").is_none());
        assert_eq!(m.rows[0].cells.len(), 2, "the column stays");
        assert!(cell(m, "pqclean/avx2", "clang-14", "-O3 -march=native").is_some());
        // A result without the operation asked for is not measured either.
        let mut rec = fixture::run_with_builds();
        for r in &mut rec.results {
            if r.implementation == gone {
                r.operations.retain(|o| o.operation != Op::Exchange);
            }
        }
        let m = &matrices(&rec, Op::Exchange)[0];
        assert!(cell(m, "pqclean/avx2", "clang-14", "-O2").is_none());
        assert!(matrices(&rec, Op::Keygen)[0]
            .rows
            .iter()
            .all(|r| r.cells.iter().all(Option::is_some)));
    }

    /// The fixture with every `-O2` build's flag set replaced by `flags`.
    fn o2_built_with(flags: &str) -> LatencyRecord {
        let mut rec = fixture::run_with_builds();
        for b in &mut rec.environment.builds {
            if b.flags == "-O2" {
                b.flags = flags.into();
            }
        }
        rec
    }

    #[test]
    fn an_unoptimised_build_is_never_the_baseline_when_an_optimised_one_exists() {
        // Even the portable gcc build of the reference source, once it is -O0.
        let m = &matrices(&o2_built_with("-O0"), Op::Exchange)[0];
        assert_eq!(m.flag_sets, ["-O0", "-O3 -march=native"]);
        let baseline = m.baseline.clone().unwrap();
        let facts = |id: &str| {
            o2_built_with("-O0")
                .environment
                .builds
                .into_iter()
                .find(|b| b.implementation == id)
                .unwrap()
        };
        assert!(!facts(&baseline).unoptimised(), "{baseline}");
        let unoptimised: Vec<bool> = m
            .rows
            .iter()
            .map(|r| r.cells[0].as_ref().unwrap().unoptimised)
            .collect();
        assert_eq!(unoptimised, [true; 4], "the -O0 column is labelled");
        assert!(m.rows[0].cells[1].as_ref().is_some_and(|c| !c.unoptimised));
        // No -O at all is unoptimised too.
        let m = &matrices(&o2_built_with("-g"), Op::Exchange)[0];
        assert!(!facts(m.baseline.as_deref().unwrap()).unoptimised());
    }

    #[test]
    fn an_unoptimised_build_is_the_baseline_when_nothing_else_was_built() {
        let mut rec = o2_built_with("-O0");
        let unoptimised: Vec<String> = rec
            .environment
            .builds
            .iter()
            .filter(|b| b.unoptimised())
            .map(|b| b.implementation.clone())
            .collect();
        rec.results
            .retain(|r| !r.implementation.contains('@') || unoptimised.contains(&r.implementation));
        let m = &matrices(&rec, Op::Exchange)[0];
        assert_eq!(m.flag_sets, ["-O0"]);
        let baseline = m.baseline.clone().unwrap();
        assert!(unoptimised.contains(&baseline), "{baseline}");
        assert!(m
            .rows
            .iter()
            .all(|r| r.cells[0].as_ref().unwrap().unoptimised));
    }

    /// A ct record with `verdict` for each build of `ids` (ML-KEM-768).
    fn screened(ids: &[(String, Verdict)]) -> Verdicts {
        let mut v = Verdicts::none();
        for (id, verdict) in ids {
            v.insert(&format!("ML-KEM-768@{id}"), *verdict);
        }
        v
    }

    #[test]
    fn the_fastest_build_with_an_unexplained_finding_is_passed_over() {
        let rec = fixture::run_with_builds();
        let fastest = build_id("pqclean/avx2", "clang-14", "-O3 -march=native");
        let before = &matrices(&rec, Op::Exchange)[0];
        assert_eq!(before.fastest.as_deref(), Some(fastest.as_str()));
        // Screened: the fastest has an unexplained finding, the next is clean.
        let next = build_id("pqclean/avx2", "gcc-12", "-O3 -march=native");
        let v = screened(&[
            (fastest.clone(), Verdict::Unexplained),
            (next.clone(), Verdict::Clean),
        ]);
        let m = &matrices_with(&rec, Op::Exchange, &v)[0];
        assert_eq!(m.fastest.as_deref(), Some(next.as_str()), "★ moves to the next");
        assert_eq!(m.passed_over, [(fastest.clone(), Verdict::Unexplained)]);
        let marked = cell(m, "pqclean/avx2", "clang-14", "-O3 -march=native").unwrap();
        assert!(!marked.fastest && marked.not_advisable);
        assert_eq!(marked.screening, Some("unexplained findings"));
        let star = cell(m, "pqclean/avx2", "gcc-12", "-O3 -march=native").unwrap();
        assert!(star.fastest && star.screening == Some("no finding"));
        let unscreened = cell(m, "pqclean/clean", "gcc-12", "-O2").unwrap();
        assert_eq!(unscreened.screening, Some("not screened"));
        assert!(!unscreened.not_advisable);
        let (_, to, _) = m.speedup.clone().unwrap();
        assert_eq!(to, next, "the speed-up is to the build advised");
        // A known issue (KyberSlash's builds) is explained, not excused: passed over too.
        let v = screened(&[(fastest.clone(), Verdict::KnownIssue)]);
        let m = &matrices_with(&rec, Op::Exchange, &v)[0];
        assert_ne!(m.fastest.as_deref(), Some(fastest.as_str()));
        assert_eq!(m.passed_over, [(fastest.clone(), Verdict::KnownIssue)]);
        // Benign findings only: still the fastest.
        let v = screened(&[(fastest.clone(), Verdict::Benign)]);
        let m = &matrices_with(&rec, Op::Exchange, &v)[0];
        assert_eq!(m.fastest.as_deref(), Some(fastest.as_str()));
        assert!(m.passed_over.is_empty());
        // Without ct records nothing changes.
        let m = &matrices_with(&rec, Op::Exchange, &Verdicts::none())[0];
        assert_eq!(serde_json::to_value(m).unwrap(), serde_json::to_value(before).unwrap());
        assert!(m.rows.iter().flat_map(|r| r.cells.iter().flatten()).all(|c| c.screening.is_none()));
    }
}
