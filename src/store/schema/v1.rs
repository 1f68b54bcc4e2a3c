//! The rows of a schema-1 store as the migration to schema 2 reads them, frozen: the few fields
//! of a latency result's JSON (`results.result_json` of a run of kind `run`) that the
//! `operations` table needs, as the oldest kembench with a store wrote them
//! (`run::result::BenchResult` and `OperationResult` then), and the schema-2 `operations` rows
//! made from them.
//!
//! These types and this SQL must never follow kembench's record types or a later schema's
//! `operations` table: they describe rows already written and a table already defined.

use super::super::db::{Db, Val};
use anyhow::Context;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// One measured operation of a latency result as schema 1 stored it (an entry of its
/// `operations`): the fields an `operations` row takes. The operation and the stop reason are
/// copied as the words written (`keygen`, `max-samples`).
struct OperationResult {
    operation: String,
    samples: i64,
    stop_reason: String,
    median_ns: f64,
    p25_ns: f64,
    p75_ns: f64,
    median_ci95_low_ns: f64,
    median_ci95_high_ns: f64,
}

impl OperationResult {
    /// Reads one entry; an error names the field that is missing or of another type.
    fn read(o: &Value) -> anyhow::Result<OperationResult> {
        Ok(OperationResult {
            operation: field(o, "operation")?,
            samples: field(o, "samples")?,
            stop_reason: field(o, "stop_reason")?,
            median_ns: field(o, "median_ns")?,
            p25_ns: field(o, "p25_ns")?,
            p75_ns: field(o, "p75_ns")?,
            median_ci95_low_ns: field(o, "median_ci95_low_ns")?,
            median_ci95_high_ns: field(o, "median_ci95_high_ns")?,
        })
    }
}

/// The operations of a latency result's JSON as schema 1 stored it (`BenchResult`: its other
/// fields are not read); an error says which operation and which field it could not read.
fn operations(result_json: &str) -> anyhow::Result<Vec<OperationResult>> {
    let result: Value = serde_json::from_str(result_json).context("not JSON")?;
    let ops: Vec<Value> = field(&result, "operations")?;
    ops.iter()
        .enumerate()
        .map(|(i, o)| {
            OperationResult::read(o).with_context(|| match o.get("operation") {
                Some(Value::String(name)) => format!("operation {name}"),
                _ => format!("operation {}", i + 1),
            })
        })
        .collect()
}

/// The field `name` of the object `o`, as a `T`.
fn field<T: DeserializeOwned>(o: &Value, name: &str) -> anyhow::Result<T> {
    let v = o.get(name).with_context(|| format!("no field {name}"))?;
    T::deserialize(v).with_context(|| format!("field {name}"))
}

/// Fills schema 2's `operations` table from the latency results of a schema-1 store. A result
/// that does not read as one stops the migration with an error naming its run and benchmark:
/// its operation rows are never left out silently.
pub(super) fn backfill_operations(db: &mut dyn Db) -> anyhow::Result<()> {
    let rows = db.query(
        "SELECT r.run_id, r.algorithm, r.implementation, r.result_json
         FROM results r JOIN runs ON runs.id = r.run_id WHERE runs.kind = 'run'
         ORDER BY r.run_id, r.seq",
        &[],
    )?;
    for r in rows {
        let (run, alg, imp, json) = (
            r[0].as_text("run_id")?,
            r[1].as_text("algorithm")?,
            r[2].as_text("implementation")?,
            r[3].as_text("result_json")?,
        );
        let ops = operations(&json).with_context(|| {
            format!(
                "run {run}, benchmark {alg}@{imp}: its stored result does not read as a \
                 latency result of schema 1, so its operation rows cannot be made; the store \
                 was left as it was"
            )
        })?;
        for o in &ops {
            db.exec(
                "INSERT INTO operations (run_id, algorithm, implementation, operation, median_ns,
                     ci95_low_ns, ci95_high_ns, p25_ns, p75_ns, samples, stop_reason)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                &[
                    Val::text(&run),
                    Val::text(&alg),
                    Val::text(&imp),
                    Val::text(&o.operation),
                    Val::Real(Some(o.median_ns)),
                    Val::Real(Some(o.median_ci95_low_ns)),
                    Val::Real(Some(o.median_ci95_high_ns)),
                    Val::Real(Some(o.p25_ns)),
                    Val::Real(Some(o.p75_ns)),
                    Val::Int(Some(o.samples)),
                    Val::text(&o.stop_reason),
                ],
            )
            .with_context(|| format!("run {run}, benchmark {alg}@{imp}: {}", o.operation))?;
        }
    }
    Ok(())
}
