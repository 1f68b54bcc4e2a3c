//! Between kembench's records (`run`, `throughput`) and the store's rows: a run's header is
//! its record with the results left out; each result is one row.

use super::{schema, NewRun, StoredResult, StoredRun};
use crate::env::Environment;
pub use crate::record::Record;
use crate::run::result::{BenchResult, RunRecord};
use crate::throughput::record::{ThroughputRecord, ThroughputResult};
use anyhow::Context;
use serde::Serialize;

/// The record without its results, as JSON.
fn header<T: Serialize>(rec: &T) -> anyhow::Result<String> {
    let mut v = serde_json::to_value(rec)?;
    if let Some(o) = v.as_object_mut() {
        o.insert("results".into(), serde_json::Value::Array(Vec::new()));
    }
    Ok(serde_json::to_string(&v)?)
}

fn new_run(
    id: &str,
    kind: &str,
    started_at: &str,
    env: &Environment,
    selection: String,
    command_line: &[String],
    header_json: String,
) -> NewRun {
    NewRun {
        id: id.to_string(),
        kind: kind.to_string(),
        started_at: started_at.to_string(),
        host: env.hostname.clone(),
        cpu: env.cpu.model.clone(),
        selection,
        kembench_version: env.build.kembench_version.clone(),
        git_commit: env.build.git_commit.clone(),
        command_line: command_line.join(" "),
        header_json,
    }
}

/// `default`, `all`, or the filters, e.g. `--alg ML-KEM-* --impl liboqs`.
pub fn run_selection(r: &RunRecord) -> String {
    let c = &r.config;
    if c.selection != "filtered" {
        return c.selection.clone();
    }
    let mut parts = Vec::new();
    if !c.algorithms.is_empty() {
        parts.push(format!("--alg {}", c.algorithms.join(",")));
    }
    if !c.implementations.is_empty() {
        parts.push(format!("--impl {}", c.implementations.join(",")));
    }
    if let Some(f) = &c.family {
        parts.push(format!("--family {f}"));
    }
    if let Some(l) = c.level {
        parts.push(format!("--level {l}"));
    }
    parts.join(" ")
}

/// The `runs` row of a run record (its `run_id` must be set).
pub fn run_row(r: &RunRecord) -> anyhow::Result<NewRun> {
    let id = r.run_id.as_deref().context("the run has no id")?;
    Ok(new_run(
        id,
        "run",
        &r.started_at,
        &r.environment,
        run_selection(r),
        &r.command_line,
        run_header(r)?,
    ))
}

/// The run's header JSON.
pub fn run_header(r: &RunRecord) -> anyhow::Result<String> {
    header(r)
}

/// The `runs` row of a throughput record (its `run_id` must be set).
pub fn throughput_row(r: &ThroughputRecord) -> anyhow::Result<NewRun> {
    let id = r.run_id.as_deref().context("the run has no id")?;
    Ok(new_run(
        id,
        "throughput",
        &r.started_at,
        &r.environment,
        r.config.planned.join(","),
        &r.command_line,
        header(r)?,
    ))
}

/// One benchmark of a run as a store row.
pub fn bench_result(b: &BenchResult) -> anyhow::Result<StoredResult> {
    let json = serde_json::to_string(b)?;
    Ok(StoredResult {
        algorithm: b.algorithm.clone(),
        implementation: b.implementation.clone(),
        status: b.status().to_string(),
        ops: schema::op_rows(&json),
        json,
    })
}

/// One implementation of a throughput run as a store row.
pub fn throughput_result(t: &ThroughputResult) -> anyhow::Result<StoredResult> {
    Ok(StoredResult {
        algorithm: t.algorithm.clone(),
        implementation: t.implementation.clone(),
        status: if t.error.is_some() { "error" } else { "ok" }.to_string(),
        json: serde_json::to_string(t)?,
        ops: Vec::new(),
    })
}

/// Rebuilds the record of a stored run.
pub fn record(stored: &StoredRun) -> anyhow::Result<Record> {
    let id = &stored.summary.id;
    let mut v: serde_json::Value = serde_json::from_str(&stored.header_json)
        .with_context(|| format!("run {id}: its header in the store is not JSON"))?;
    let results = stored
        .results
        .iter()
        .map(|(_, j)| serde_json::from_str(j))
        .collect::<Result<Vec<serde_json::Value>, _>>()
        .with_context(|| format!("run {id}: a result in the store is not JSON"))?;
    let o = v
        .as_object_mut()
        .with_context(|| format!("run {id}: its header is not a JSON object"))?;
    o.insert("results".into(), serde_json::Value::Array(results));
    o.insert("run_id".into(), serde_json::Value::String(id.clone()));
    let bytes = serde_json::to_vec(&v)?;
    let mut r = crate::record::parse(&format!("run {id} in the store"), &bytes)?;
    if let Record::Run(run) = &mut r {
        // Stored in the order they finished; listed, like `--json` files, as planned.
        run.sort_as_planned();
    }
    Ok(r)
}
