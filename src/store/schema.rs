//! The store's schema and its forward migrations. The same SQL runs on SQLite and PostgreSQL
//! (TEXT, BIGINT and DOUBLE PRECISION only; times are RFC 3339 text, records are JSON text).

use super::db::{Backend, Db, Val};
use anyhow::{bail, Context};

/// The schema this kembench writes. A store at a lower version is migrated forward when
/// opened; one at a higher version is refused.
pub const LATEST: i64 = 2;

/// Version 1: runs and one JSON record per (run, algorithm, implementation).
const V1: &[&str] = &[
    "CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        host TEXT NOT NULL,
        cpu TEXT NOT NULL,
        selection TEXT NOT NULL,
        kembench_version TEXT NOT NULL,
        git_commit TEXT NOT NULL,
        command_line TEXT NOT NULL,
        header_json TEXT NOT NULL
    )",
    "CREATE TABLE results (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        algorithm TEXT NOT NULL,
        implementation TEXT NOT NULL,
        seq BIGINT NOT NULL,
        status TEXT NOT NULL,
        written_at TEXT NOT NULL,
        result_json TEXT NOT NULL,
        PRIMARY KEY (run_id, algorithm, implementation)
    )",
];

/// Version 2: one row per measured operation with its main statistics, so that SQL can query
/// medians without parsing JSON; an index on start time for `runs` and `latest`.
const V2: &[&str] = &[
    "CREATE TABLE operations (
        run_id TEXT NOT NULL,
        algorithm TEXT NOT NULL,
        implementation TEXT NOT NULL,
        operation TEXT NOT NULL,
        median_ns DOUBLE PRECISION NOT NULL,
        ci95_low_ns DOUBLE PRECISION NOT NULL,
        ci95_high_ns DOUBLE PRECISION NOT NULL,
        p25_ns DOUBLE PRECISION NOT NULL,
        p75_ns DOUBLE PRECISION NOT NULL,
        samples BIGINT NOT NULL,
        stop_reason TEXT NOT NULL,
        PRIMARY KEY (run_id, algorithm, implementation, operation),
        FOREIGN KEY (run_id, algorithm, implementation)
            REFERENCES results (run_id, algorithm, implementation) ON DELETE CASCADE
    )",
    "CREATE INDEX runs_started_at ON runs (started_at)",
];

/// The main statistics of one operation, as the `operations` table holds them.
#[derive(Debug, Clone, PartialEq)]
pub struct OpRow {
    /// `keygen`, `encaps`, `decaps` or `exchange`.
    pub operation: String,
    /// Median per call.
    pub median_ns: f64,
    /// The median's 95% interval, low end.
    pub ci95_low_ns: f64,
    /// The median's 95% interval, high end.
    pub ci95_high_ns: f64,
    /// 25th percentile.
    pub p25_ns: f64,
    /// 75th percentile.
    pub p75_ns: f64,
    /// Samples taken.
    pub samples: i64,
    /// Why sampling stopped.
    pub stop_reason: String,
}

/// The operation rows of a stored `run` result (JSON of a `BenchResult`), for the migration
/// that creates the `operations` table over results already stored; none when it does not
/// parse.
fn stored_op_rows(result_json: &str) -> Vec<OpRow> {
    use super::records::Storable;
    serde_json::from_str::<crate::record::run::BenchResult>(result_json)
        .map(|b| b.op_rows())
        .unwrap_or_default()
}

/// Inserts the operation rows of one result.
pub fn insert_ops(
    db: &mut dyn Db,
    run_id: &str,
    algorithm: &str,
    implementation: &str,
    ops: &[OpRow],
) -> anyhow::Result<()> {
    for o in ops {
        db.exec(
            "INSERT INTO operations (run_id, algorithm, implementation, operation, median_ns,
                 ci95_low_ns, ci95_high_ns, p25_ns, p75_ns, samples, stop_reason)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            &[
                Val::text(run_id),
                Val::text(algorithm),
                Val::text(implementation),
                Val::text(&o.operation),
                Val::Real(Some(o.median_ns)),
                Val::Real(Some(o.ci95_low_ns)),
                Val::Real(Some(o.ci95_high_ns)),
                Val::Real(Some(o.p25_ns)),
                Val::Real(Some(o.p75_ns)),
                Val::Int(Some(o.samples)),
                Val::text(&o.stop_reason),
            ],
        )?;
    }
    Ok(())
}

/// Fills `operations` from the JSON records already in the store.
fn backfill_operations(db: &mut dyn Db) -> anyhow::Result<()> {
    let rows = db.query(
        "SELECT r.run_id, r.algorithm, r.implementation, r.result_json
         FROM results r JOIN runs ON runs.id = r.run_id WHERE runs.kind = 'run'",
        &[],
    )?;
    for r in rows {
        let (run, alg, imp, json) = (
            r[0].as_text("run_id")?,
            r[1].as_text("algorithm")?,
            r[2].as_text("implementation")?,
            r[3].as_text("result_json")?,
        );
        insert_ops(db, &run, &alg, &imp, &stored_op_rows(&json))?;
    }
    Ok(())
}

fn apply(db: &mut dyn Db, version: i64) -> anyhow::Result<()> {
    match version {
        1 => V1.iter().try_for_each(|s| db.exec(s, &[]).map(|_| ()))?,
        2 => {
            V2.iter().try_for_each(|s| db.exec(s, &[]).map(|_| ()))?;
            backfill_operations(db)?;
        }
        v => bail!("no migration to schema version {v}"),
    }
    Ok(())
}

fn read_version(db: &mut dyn Db) -> anyhow::Result<i64> {
    let rows = db.query("SELECT version FROM kembench_schema WHERE id = 1", &[])?;
    match rows.first() {
        Some(r) => r[0].as_int("version"),
        None => Ok(0),
    }
}

fn newer(location: &str, found: i64) -> anyhow::Error {
    anyhow::anyhow!(
        "store {location} was written by a newer kembench (schema version {found}; this \
         kembench knows versions up to {LATEST}); upgrade kembench to use it. The store was \
         left untouched"
    )
}

/// Checks, without writing, that a store opened read-only is one this kembench reads: a
/// kembench store whose schema is not newer than this build's.
pub fn check_readable(b: &mut dyn Backend) -> anyhow::Result<()> {
    let location = b.location();
    if !b.has_schema_table()? {
        bail!("{location} is not a kembench store (no kembench_schema table)");
    }
    let rows = b.read("SELECT version FROM kembench_schema WHERE id = 1", &[])?;
    match rows.first().map(|r| r[0].as_int("version")).transpose()? {
        Some(v) if v > LATEST => Err(newer(&location, v)),
        _ => Ok(()),
    }
}

/// Brings the schema to `target`, one migration at a time inside one exclusive transaction,
/// so that concurrent writers starting on a fresh store create it exactly once.
pub fn migrate(b: &mut dyn Backend, target: i64) -> anyhow::Result<()> {
    let location = b.location();
    if b.has_schema_table()? {
        let rows = b.read("SELECT version FROM kembench_schema WHERE id = 1", &[])?;
        let found = rows.first().map(|r| r[0].as_int("version")).transpose()?;
        match found {
            Some(v) if v > LATEST => return Err(newer(&location, v)),
            Some(v) if v >= target => return Ok(()),
            _ => {}
        }
    }
    b.transaction(true, &mut |db| {
        db.exec(
            "CREATE TABLE IF NOT EXISTS kembench_schema (id BIGINT PRIMARY KEY, version BIGINT NOT NULL)",
            &[],
        )?;
        let mut v = read_version(db)?;
        if v > LATEST {
            return Err(newer(&location, v));
        }
        while v < target {
            apply(db, v + 1).with_context(|| format!("migrating the store to schema {}", v + 1))?;
            v += 1;
        }
        db.exec("DELETE FROM kembench_schema", &[])?;
        db.exec(
            "INSERT INTO kembench_schema (id, version) VALUES (1, $1)",
            &[Val::Int(Some(v))],
        )?;
        Ok(())
    })
}
