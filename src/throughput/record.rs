//! Throughput results as written to JSON, CSV and Markdown.

use super::calc::{Capacity, Point};
use crate::env::Environment;
use crate::export::markdown::escape;
use crate::measure::sampler::Op;
use crate::output::units;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

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

/// A whole throughput run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThroughputRecord {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The run's id in the results store, when it was recorded in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Always `kembench-throughput`.
    pub kind: String,
    /// Start, RFC 3339 UTC.
    pub started_at: String,
    /// End, RFC 3339 UTC.
    pub finished_at: Option<String>,
    /// The command line.
    pub command_line: Vec<String>,
    /// Configuration.
    pub config: ThroughputConfig,
    /// Machine and build.
    pub environment: Environment,
    /// Per implementation.
    pub results: Vec<ThroughputResult>,
}

impl ThroughputRecord {
    /// Pretty JSON.
    pub fn to_json(&self) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(self)?;
        v.push(b'\n');
        Ok(v)
    }

    /// One row per (algorithm, implementation, operation, threads).
    pub fn to_csv(&self) -> anyhow::Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([
            "algorithm",
            "implementation",
            "version",
            "operation",
            "threads",
            "mode",
            "total_ops_per_sec",
            "min_thread_ops_per_sec",
            "max_thread_ops_per_sec",
            "thread_spread",
            "speedup",
            "efficiency",
            "latency_median_ns",
            "one_thread_vs_latency",
            "flags",
        ])?;
        let mode = if self.config.processes {
            "processes"
        } else {
            "threads"
        };
        for r in &self.results {
            for o in &r.operations {
                for p in &o.points {
                    let (min, max) = (p.min_thread_rate(), p.max_thread_rate());
                    let flags: Vec<&str> =
                        o.flags.iter().chain(&p.flags).map(String::as_str).collect();
                    w.write_record([
                        r.algorithm.clone(),
                        r.implementation.clone(),
                        r.version.clone(),
                        o.operation.as_str().to_string(),
                        p.threads.to_string(),
                        mode.to_string(),
                        p.total_ops_per_sec.to_string(),
                        min.to_string(),
                        max.to_string(),
                        p.thread_spread.to_string(),
                        p.speedup.to_string(),
                        p.efficiency.to_string(),
                        o.latency_median_ns.to_string(),
                        o.one_thread_vs_latency.to_string(),
                        flags.join("; "),
                    ])?;
                }
            }
        }
        Ok(w.into_inner()?)
    }

    /// Markdown tables: scaling, then capacity.
    pub fn to_markdown(&self) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        let e = &self.environment;
        writeln!(s, "# kembench throughput, {}", escape(&self.started_at))?;
        writeln!(s)?;
        writeln!(
            s,
            "Host `{}`: {} ({} logical CPUs); {} per point, {}{}.",
            escape(&e.hostname),
            escape(&e.cpu.model),
            e.cpu.logical_cpus,
            units::ns(self.config.duration_s * 1e9),
            if self.config.processes {
                "independent processes"
            } else {
                "threads"
            },
            if self.config.pinned { ", pinned" } else { "" }
        )?;
        writeln!(s)?;
        writeln!(s, "| algorithm | implementation | operation | threads | ops/s | per-thread min – max | speedup | efficiency | flags |")?;
        writeln!(s, "|---|---|---|--:|--:|--:|--:|--:|---|")?;
        for r in &self.results {
            for o in &r.operations {
                for p in &o.points {
                    let (min, max) = (p.min_thread_rate(), p.max_thread_rate());
                    let flags: Vec<String> =
                        o.flags.iter().chain(&p.flags).map(|f| escape(f)).collect();
                    writeln!(
                        s,
                        "| {} | {} | {} | {} | {} | {} – {} | {:.2}x | {:.0}% | {} |",
                        escape(&r.algorithm),
                        escape(&r.implementation),
                        o.operation.as_str(),
                        p.threads,
                        units::count(p.total_ops_per_sec),
                        units::count(min),
                        units::count(max),
                        p.speedup,
                        p.efficiency * 100.0,
                        flags.join("; ")
                    )?;
                }
            }
        }
        let caps: Vec<(&ThroughputResult, &Capacity)> = self
            .results
            .iter()
            .filter_map(|r| r.capacity.as_ref().map(|c| (r, c)))
            .collect();
        if !caps.is_empty() {
            writeln!(s)?;
            writeln!(
                s,
                "TLS 1.3 capacity (server: encaps; client: keygen + decaps), target {} connections/s:",
                units::count(self.config.target_rate)
            )?;
            writeln!(s)?;
            writeln!(s, "| algorithm | implementation | server handshakes/s/core | client handshakes/s/core | server cores | client cores |")?;
            writeln!(s, "|---|---|--:|--:|--:|--:|")?;
            for (r, c) in caps {
                writeln!(
                    s,
                    "| {} | {} | {} | {} | {:.1} | {:.1} |",
                    escape(&r.algorithm),
                    escape(&r.implementation),
                    units::count(c.server_handshakes_per_sec_per_core),
                    units::count(c.client_handshakes_per_sec_per_core),
                    c.server_cores_for_target,
                    c.client_cores_for_target
                )?;
            }
        }
        Ok(s.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::throughput::calc;

    fn record() -> ThroughputRecord {
        let one = calc::point(1, &[(10_000, 1.0)], None, 2);
        let two = calc::point(2, &[(9_000, 1.0), (11_500, 1.0)], Some(10_000.0), 2);
        let op = |operation| OpThroughput {
            operation,
            latency_median_ns: 100_000.0,
            one_thread_vs_latency: 1.0,
            points: vec![one.clone(), two.clone()],
            flags: vec![],
        };
        ThroughputRecord {
            schema_version: SCHEMA_VERSION,
            run_id: None,
            kind: "kembench-throughput".into(),
            started_at: "2026-11-22T12:00:00Z".into(),
            finished_at: Some("2026-11-22T12:01:00Z".into()),
            command_line: vec!["kembench".into(), "throughput".into()],
            config: ThroughputConfig {
                threads: vec![1, 2],
                duration_s: 1.0,
                repeats: 3,
                pinned: false,
                processes: false,
                target_rate: 70_000.0,
                operations: vec![Op::Keygen, Op::Encaps, Op::Decaps],
                planned: vec!["ML-KEM-768@liboqs".into()],
            },
            environment: crate::export::fixture::environment(),
            results: vec![ThroughputResult {
                algorithm: "MockKEM".into(),
                family: "test".into(),
                implementation: "mock/<correct>".into(),
                version: "kembench 0.1.0".into(),
                operations: vec![op(Op::Keygen), op(Op::Encaps), op(Op::Decaps)],
                capacity: Some(calc::capacity(2, 10_250.0, 10_250.0, 10_250.0, 70_000.0)),
                error: None,
            }],
        }
    }

    #[test]
    fn markdown_snapshot() {
        insta::assert_snapshot!(String::from_utf8(record().to_markdown().unwrap()).unwrap());
    }

    #[test]
    fn csv_snapshot() {
        insta::assert_snapshot!(String::from_utf8(record().to_csv().unwrap()).unwrap());
    }

    #[test]
    fn json_round_trips() {
        let r = record();
        let back: ThroughputRecord = serde_json::from_slice(&r.to_json().unwrap()).unwrap();
        assert_eq!(
            back.results[0].operations[0].points,
            r.results[0].operations[0].points
        );
        assert_eq!(back.schema_version, SCHEMA_VERSION);
    }
}
