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

use crate::kem::{flags_unoptimised as unoptimised, BuildFacts};
use crate::measure::sampler::Op;
use crate::record::run::{BenchResult, RunRecord};
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
    /// The fastest build (it passed the gate, as every timed build did).
    pub fastest: Option<String>,
    /// Portable reference → fastest: (reference id, fastest id, reference / fastest).
    pub speedup: Option<(String, String, f64)>,
}

fn figure(r: &BenchResult, op: Op) -> Option<(f64, Option<u64>)> {
    let o = r.operations.iter().find(|o| o.operation == op)?;
    let v = o.best_round_median_ns.unwrap_or(o.median_ns);
    (v.is_finite() && v > 0.0).then_some((v, o.max_stack_bytes))
}

/// Every algorithm's matrix for `op`, over the builds the run measured (none when it measured
/// no build).
pub fn matrices(rec: &RunRecord, op: Op) -> Vec<Matrix> {
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
        if measured.is_empty() {
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
        let portable = |f: &BuildFacts| f.targets.is_empty() || !f.source.ends_with("avx2");
        // The baseline: portable source, gcc, -O2; else portable at -O2; else any optimised
        // build; else whatever there is (unoptimised, labelled).
        let pick = |pred: &dyn Fn(&BuildFacts) -> bool| {
            measured
                .iter()
                .filter(|(f, _, _)| pred(f))
                .min_by(|a, b| a.0.implementation.cmp(&b.0.implementation))
        };
        let baseline = pick(&|f| {
            portable(f)
                && f.compiler.starts_with("gcc")
                && f.flags == "-O2"
                && f.source.ends_with("clean")
        })
        .or_else(|| pick(&|f| portable(f) && f.flags == "-O2"))
        .or_else(|| pick(&|f| !unoptimised(&f.flags)))
        .or_else(|| pick(&|_| true));
        let fastest = measured
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(f, v, _)| (f.implementation.clone(), *v));
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
                                unoptimised: unoptimised(&f.flags),
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
            speedup,
        });
    }
    out
}
