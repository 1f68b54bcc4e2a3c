//! The record of `kembench throughput`: per implementation and operation, the rate at each
//! thread (or process) count and the TLS capacity figures.

mod csv;
pub mod tables;

use super::metrics::{Measure, Metric};
use super::compare::Compares;
use super::{Benchmark, Facts, Kind, Nothing, Record, ResultStatus};
use super::scaling::{Capacity, Point};
use crate::kem::Op;
use serde::{Deserialize, Serialize};

/// Version of the JSON layout.
pub const SCHEMA_VERSION: u32 = 1;

/// One operation of one implementation across thread counts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpThroughput {
    /// The operation.
    pub operation: Op,
    /// Median single-call latency measured just before (ns).
    pub latency_median_ns: f64,
    /// One-thread rate over 1/median latency.
    pub one_thread_vs_latency: f64,
    /// One point per thread count.
    pub points: Vec<Point>,
    /// Problems found (latency mismatch; super-linear points are flagged on the point).
    pub flags: Vec<String>,
}

/// Everything measured for one (algorithm, implementation).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThroughputResult {
    /// Algorithm.
    pub algorithm: String,
    /// Family.
    pub family: String,
    /// Implementation id.
    pub implementation: String,
    /// Provider version.
    pub version: String,
    /// Per operation.
    pub operations: Vec<OpThroughput>,
    /// TLS 1.3 capacity, when keygen, encaps and decaps were all measured.
    pub capacity: Option<Capacity>,
    /// An error that stopped the measurement, if any.
    pub error: Option<String>,
    /// Ctrl-C or SIGTERM stopped it part-way (the points measured are kept);
    /// `throughput --resume` measures it again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// Configuration of a throughput run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThroughputConfig {
    /// Thread (or process) counts.
    pub threads: Vec<usize>,
    /// Window per point, seconds.
    pub duration_s: f64,
    /// Times each thread count was measured, in rotation; the median repeat is reported.
    #[serde(default)]
    pub repeats: usize,
    /// Whether threads were pinned (thread i to CPU i mod logical CPUs).
    pub pinned: bool,
    /// Independent processes instead of threads.
    pub processes: bool,
    /// Target connections per second for the capacity figures.
    pub target_rate: f64,
    /// Operations measured.
    pub operations: Vec<Op>,
    /// Every `algorithm@implementation` the run set out to measure.
    #[serde(default)]
    pub planned: Vec<String>,
}

impl ThroughputResult {
    /// The rates of one operation, if measured.
    pub fn op(&self, op: Op) -> Option<&OpThroughput> {
        self.operations.iter().find(|o| o.operation == op)
    }
}

/// What a throughput run records before `kind` when Ctrl-C or SIGTERM stopped it, or it was
/// resumed (nothing otherwise, as in files from before these existed).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ThroughputState {
    /// Stopped before every implementation was measured.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// When `throughput --resume` continued this run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumed_at: Vec<String>,
}

/// The throughput record kind: no measurement beside the common header.
#[derive(Debug, Clone, Copy)]
pub struct Throughput;

kind_fields!(ThroughputConfig, ThroughputState);

impl Kind for Throughput {
    const FACTS: Facts = Facts {
        file_kind: "kembench-throughput",
        store_kind: "throughput",
        schema_version: SCHEMA_VERSION,
        noun: "a throughput run (`kembench throughput --json`)",
        singular: "throughput run",
        plural: "throughput runs",
        command: "throughput",
        resumable: true,
        compare: Compares::NOT,
    };
    type State = ThroughputState;
    type Config = ThroughputConfig;
    type Measured = Nothing;
    type Result = ThroughputResult;

    fn tables(record: &ThroughputRecord, items: &[ThroughputResult]) -> crate::table::Tables {
        tables::tables(record, items)
    }

    const CSV_HEADER: &'static [&'static str] = csv::HEADER;

    fn csv_rows(record: &ThroughputRecord, result: &ThroughputResult) -> Vec<Vec<String>> {
        csv::rows(record, result)
    }

    /// Per operation and thread count (`keygen/4-threads`): calls per second of all threads
    /// together, the repeats' lowest and highest as bounds.
    fn metrics(r: &ThroughputResult) -> Vec<Metric> {
        let mut out = Vec::new();
        for o in &r.operations {
            for p in &o.points {
                let op = format!("{}/{}-threads", o.operation.as_str(), p.threads);
                let m = Metric::new(
                    &r.algorithm,
                    &r.implementation,
                    &op,
                    Measure::Throughput,
                    p.total_ops_per_sec,
                );
                let lo = p.repeat_totals_ops_per_sec.iter().copied().reduce(f64::min);
                let hi = p.repeat_totals_ops_per_sec.iter().copied().reduce(f64::max);
                out.push(match (lo, hi) {
                    (Some(lo), Some(hi)) if p.repeat_totals_ops_per_sec.len() > 1 => {
                        m.within(lo, hi)
                    }
                    _ => m,
                });
            }
        }
        out
    }

    fn check_result(r: &ThroughputResult) -> Result<(), String> {
        for o in &r.operations {
            let op = o.operation.as_str();
            if o.points.is_empty() && r.error.is_none() {
                return Err(format!("{op} has no thread count measured"));
            }
            for p in &o.points {
                super::check_times(
                    &format!("{op} at {} threads", p.threads),
                    [p.total_ops_per_sec]
                        .iter()
                        .chain(&p.per_thread_ops_per_sec),
                )?;
            }
        }
        Ok(())
    }
}

/// A whole throughput run: what `throughput --json` writes.
pub type ThroughputRecord = Record<Throughput>;

impl Benchmark for ThroughputResult {
    fn measured(&self) -> bool {
        self.operations.iter().any(|o| !o.points.is_empty())
    }

    fn algorithm(&self) -> &str {
        &self.algorithm
    }

    fn implementation(&self) -> &str {
        &self.implementation
    }

    fn status(&self) -> ResultStatus {
        if self.interrupted {
            ResultStatus::Interrupted
        } else if self.error.is_some() {
            ResultStatus::Error
        } else {
            ResultStatus::Ok
        }
    }

    fn is_final(&self) -> bool {
        !self.interrupted
    }
}
