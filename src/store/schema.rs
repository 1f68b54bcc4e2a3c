//! The store's schema and its forward migrations. The same SQL runs on SQLite and PostgreSQL
//! (TEXT, BIGINT and DOUBLE PRECISION only; times are RFC 3339 text, records are JSON text).
//!
//! A migration reads the rows of the version it starts from through frozen types of its own
//! (`v1.rs` for the rows of schema 1), never through today's records, and writes the tables of
//! the version it ends at with its own SQL: a store of any age migrates the same way whatever
//! becomes of kembench's structs, and a row a migration cannot read stops it with an error
//! naming the row (the store is left as it was) rather than being passed over.

use super::db::{Backend, Db, Val};
use anyhow::{bail, Context};

mod v1;

/// The schema this kembench writes. A store at a lower version is migrated forward when
/// opened; one at a higher version is refused.
pub const LATEST: i64 = 4;

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

/// Version 3: a store-wide sequence number given to each run as it is recorded (at its start,
/// or when imported), which orders runs that started within the same second (start times
/// have one-second resolution): `latest` is the run recorded last, not the one whose random
/// id suffix sorts last. Runs of older stores have none and order as before.
const V3: &[&str] = &["ALTER TABLE runs ADD COLUMN seq BIGINT"];

/// Version 4: the sweep a run is a shard of (`--shard K/N --sweep ID`), so that the runs of
/// one sweep, written by N jobs into one store, are found together. Older runs have none.
const V4: &[&str] = &[
    "ALTER TABLE runs ADD COLUMN sweep TEXT",
    "CREATE INDEX runs_sweep ON runs (sweep)",
];

fn apply(db: &mut dyn Db, version: i64) -> anyhow::Result<()> {
    match version {
        1 => V1.iter().try_for_each(|s| db.exec(s, &[]).map(|_| ()))?,
        2 => {
            V2.iter().try_for_each(|s| db.exec(s, &[]).map(|_| ()))?;
            v1::backfill_operations(db)?;
        }
        3 => V3.iter().try_for_each(|s| db.exec(s, &[]).map(|_| ()))?,
        4 => V4.iter().try_for_each(|s| db.exec(s, &[]).map(|_| ()))?,
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

/// The schema version of a store (0 for one with no kembench tables yet).
pub fn version(b: &mut dyn Backend) -> anyhow::Result<i64> {
    if !b.has_schema_table()? {
        return Ok(0);
    }
    let rows = b.read("SELECT version FROM kembench_schema WHERE id = 1", &[])?;
    rows.first().map_or(Ok(0), |r| r[0].as_int("version"))
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
