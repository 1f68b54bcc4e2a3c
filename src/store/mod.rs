//! The results store: every `run`, `throughput`, `profile` and `tls`, exactly described, in
//! SQLite (a local file, the default) or PostgreSQL (one database for a fleet of machines),
//! behind one API.
//!
//! A run is one row in `runs` (id, kind, status, times, host, CPU, selection, the command
//! line, and the run's header as JSON: environment, configuration, timers). Each benchmark is
//! one row in `results` (its whole JSON record, raw samples included) plus one row per
//! operation in `operations`, written in one transaction as soon as the benchmark finishes.

pub mod db;
mod load;
mod pg;
mod recorder;
pub mod records;
pub mod schema;
mod spec;
mod sqlite;

use crate::record::RecordKind;
pub use crate::record::RunStatus;
use anyhow::{bail, Context};
use db::{Backend, Val};
pub use load::{load, load_kind, load_sweep, Named};
pub use recorder::{Closed, Holds, Recorder};
pub use spec::{redact, Spec};
use std::path::PathBuf;

/// Where runs go when neither `--store` nor `KEMBENCH_STORE` says otherwise:
/// `$XDG_DATA_HOME/kembench/results.sqlite`, else `~/.local/share/kembench/results.sqlite`.
pub fn default_path() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        })
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("kembench").join("results.sqlite")
}

/// The files of the store `spec` names (the SQLite file and its journals), which no output
/// may replace; none for PostgreSQL or a setting that does not parse.
pub fn protected(spec: &str) -> Vec<crate::files::Protected> {
    match Spec::parse(spec) {
        Ok(Spec::Sqlite(path)) => ["", "-journal", "-wal", "-shm"]
            .iter()
            .map(|suffix| {
                let mut p = path.clone().into_os_string();
                p.push(suffix);
                crate::files::Protected::new("the results store", PathBuf::from(p))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Refuses any of `outputs` that would replace a file of the store `spec` names.
pub fn refuse_over_store<'a>(
    outputs: impl IntoIterator<Item = &'a std::path::Path>,
    spec: &str,
) -> Result<(), crate::usage::Usage> {
    let protected = protected(spec);
    outputs
        .into_iter()
        .try_for_each(|out| crate::files::refuse_overwrite(out, &protected))
}

/// This process's command line as it may be recorded and shown: any store URL's password
/// (`--store postgres://user:pass@...`) replaced by `***`.
pub fn recorded_command_line() -> Vec<String> {
    redact_args(std::env::args())
}

/// `args` with every password in a URL replaced by `***`, whether the URL stands alone or as
/// `--store=URL`, and whatever its scheme (a misspelled one included).
pub fn redact_args(args: impl IntoIterator<Item = String>) -> Vec<String> {
    args.into_iter().map(|a| redact(&a)).collect()
}

/// A new run's row.
#[derive(Debug, Clone)]
pub struct NewRun {
    /// Unique id (see [`new_run_id`]).
    pub id: String,
    /// [`RecordKind::store_kind`].
    pub kind: String,
    /// Start, RFC 3339 UTC.
    pub started_at: String,
    /// Host name.
    pub host: String,
    /// CPU model.
    pub cpu: String,
    /// `default`, `all`, or the filters given.
    pub selection: String,
    /// kembench version.
    pub kembench_version: String,
    /// kembench git commit.
    pub git_commit: String,
    /// The command line, space-separated.
    pub command_line: String,
    /// The record without its results, as JSON.
    pub header_json: String,
    /// The sweep it is a shard of, if any.
    pub sweep: Option<String>,
}

/// One benchmark's stored record.
#[derive(Debug, Clone)]
pub struct StoredResult {
    /// Algorithm.
    pub algorithm: String,
    /// Implementation id.
    pub implementation: String,
    /// `ok`, `check-failed`, `error`, `crashed`, `timed-out` or `interrupted`.
    pub status: String,
    /// The whole record as JSON.
    pub json: String,
    /// Its operations' main statistics.
    pub ops: Vec<OpRow>,
}

/// The main statistics of one operation, as the `operations` table holds them.
#[derive(Debug, Clone, PartialEq)]
pub struct OpRow {
    /// `keygen`, `encaps`, `decaps`, `exchange`, `sk-import` or `pk-import`.
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

/// Inserts the operation rows of one result.
fn insert_ops(
    db: &mut dyn db::Db,
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

/// One line of `kembench runs`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunSummary {
    /// Run id.
    pub id: String,
    /// The kind ([`crate::record::RecordKind::store_kind`]: `run`, `throughput`, `profile`,
    /// `tls`).
    pub kind: String,
    /// `running`, `complete` or `interrupted`.
    pub status: String,
    /// Start.
    pub started_at: String,
    /// End, when finished.
    pub finished_at: Option<String>,
    /// Host name.
    pub host: String,
    /// CPU model.
    pub cpu: String,
    /// Selection.
    pub selection: String,
    /// kembench version and commit.
    pub kembench: String,
    /// Benchmarks stored.
    pub results: i64,
    /// Benchmarks whose status is not `ok`.
    pub not_ok: i64,
    /// The sweep the run is a shard of, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<String>,
}

/// A run read back.
#[derive(Debug, Clone)]
pub struct StoredRun {
    /// Its summary.
    pub summary: RunSummary,
    /// The header JSON.
    pub header_json: String,
    /// Each benchmark: (status, JSON), in the order written.
    pub results: Vec<(String, String)>,
}

/// An open store.
pub struct Store {
    db: Box<dyn Backend>,
}

/// A fresh run id: UTC start time and 32 random bits, e.g. `20261122-182512-9f3a0c1e`; sorts
/// by time and is unique across a fleet writing at once.
pub fn new_run_id() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let digits: String = now.chars().filter(|c| c.is_ascii_digit()).collect();
    let (date, time) = digits.split_at(8.min(digits.len()));
    format!("{date}-{time}-{:08x}", rand::random::<u32>())
}

const SUMMARY_SQL: &str =
    "SELECT runs.id, runs.kind, runs.status, runs.started_at, runs.finished_at, runs.host,
        runs.cpu, runs.selection, runs.kembench_version, runs.git_commit,
        (SELECT COUNT(*) FROM results r WHERE r.run_id = runs.id),
        (SELECT COUNT(*) FROM results r WHERE r.run_id = runs.id AND r.status <> 'ok')
     FROM runs";

fn summary(r: &[Val]) -> anyhow::Result<RunSummary> {
    Ok(RunSummary {
        id: r[0].as_text("id")?,
        kind: r[1].as_text("kind")?,
        status: r[2].as_text("status")?,
        started_at: r[3].as_text("started_at")?,
        finished_at: r[4].as_opt_text(),
        host: r[5].as_text("host")?,
        cpu: r[6].as_text("cpu")?,
        selection: r[7].as_text("selection")?,
        kembench: format!(
            "{} ({})",
            r[8].as_text("kembench_version")?,
            r[9].as_text("git_commit")?
        ),
        results: r[10].as_int("results")?,
        not_ok: r[11].as_int("not_ok")?,
        sweep: None,
    })
}

impl Store {
    /// Opens (creating when needed) the store `spec` names: a `postgres://` URL or an SQLite
    /// file path. The schema is migrated forward; a newer one is refused.
    pub fn open(spec: &str) -> anyhow::Result<Store> {
        Self::open_at(spec, schema::LATEST)
    }

    /// Opens a store that must exist already, for commands that only read: a missing SQLite
    /// file (or a PostgreSQL database with no kembench tables) is an error, and nothing is
    /// created.
    pub fn open_existing(spec: &str) -> anyhow::Result<Store> {
        match Spec::parse(spec)? {
            Spec::Sqlite(path) if !path.exists() => crate::bail_usage!(
                "no store at {}: `kembench run` records one there (--store or KEMBENCH_STORE \
                 names another)",
                path.display()
            ),
            Spec::Sqlite(_) => {}
            Spec::Postgres(url) => {
                let mut db = pg::Pg::open(&url)?;
                if !db.has_schema_table()? {
                    crate::bail_usage!(
                        "no kembench store in {}: `kembench run --store URL` records one there",
                        db.location()
                    );
                }
            }
        }
        Self::open_mode(spec, schema::LATEST, false)
    }

    /// Opens the store and brings its schema to `version` (tests build older stores).
    pub(crate) fn open_at(spec: &str, version: i64) -> anyhow::Result<Store> {
        Self::open_mode(spec, version, true)
    }

    /// Opens the store; a read-only one (a write-protected file or directory) is refused when
    /// `write`, and otherwise read as it is, without migrating it.
    fn open_mode(spec: &str, version: i64, write: bool) -> anyhow::Result<Store> {
        let mut db: Box<dyn Backend> = match Spec::parse(spec)? {
            Spec::Postgres(url) => Box::new(pg::Pg::open(&url)?),
            Spec::Sqlite(path) => Box::new(sqlite::Sqlite::open(&path)?),
        };
        let location = db.location();
        if db.read_only() {
            if write {
                bail!(
                    "the store {location} is read-only (a write-protected file or directory): \
                     runs, show, export, compare and report read it, but nothing can be \
                     recorded in it; give another --store to record"
                );
            }
            schema::check_readable(db.as_mut())
                .with_context(|| format!("reading the results store {location}"))?;
            return Ok(Store { db });
        }
        schema::migrate(db.as_mut(), version)
            .with_context(|| format!("opening the results store {location}"))?;
        db.ready_for_writes()?;
        Ok(Store { db })
    }

    /// Where the store is (no password).
    pub fn location(&self) -> String {
        self.db.location()
    }

    /// Records a new run, status `running`.
    pub fn begin(&mut self, run: &NewRun) -> anyhow::Result<()> {
        // Exclusive, so that concurrent writers take distinct sequence numbers.
        self.db
            .transaction(true, &mut |db| {
                db.exec(
                "INSERT INTO runs (id, kind, status, started_at, finished_at, host, cpu, selection,
                     kembench_version, git_commit, command_line, header_json, seq, sweep)
                 VALUES ($1, $2, 'running', $3, NULL, $4, $5, $6, $7, $8, $9, $10,
                     (SELECT COALESCE(MAX(seq), 0) + 1 FROM runs), $11)",
                &[
                    Val::text(&run.id),
                    Val::text(&run.kind),
                    Val::text(&run.started_at),
                    Val::text(&run.host),
                    Val::text(&run.cpu),
                    Val::text(&run.selection),
                    Val::text(&run.kembench_version),
                    Val::text(&run.git_commit),
                    Val::text(&run.command_line),
                    Val::text(&run.header_json),
                    Val::Text(run.sweep.clone()),
                ],
            )?;
                Ok(())
            })
            .with_context(|| format!("recording run {} in {}", run.id, self.location()))
    }

    /// Writes (or replaces, on resume) one benchmark's record, in one transaction.
    pub fn put_result(&mut self, run_id: &str, r: &StoredResult) -> anyhow::Result<()> {
        let now = crate::record::now_rfc3339();
        let key = [
            Val::text(run_id),
            Val::text(&r.algorithm),
            Val::text(&r.implementation),
        ];
        self.db
            .transaction(false, &mut |db| {
                // A rewritten benchmark (on resume) keeps its place in the run's order.
                let seq = match db
                    .query(
                        "SELECT seq FROM results WHERE run_id = $1 AND algorithm = $2 AND implementation = $3",
                        &key,
                    )?
                    .first()
                {
                    Some(r) => r[0].as_int("seq")?,
                    None => {
                        let next = db.query(
                            "SELECT COALESCE(MAX(seq), 0) + 1 FROM results WHERE run_id = $1",
                            &key[..1],
                        )?;
                        next[0][0].as_int("seq")?
                    }
                };
                db.exec(
                    "DELETE FROM operations WHERE run_id = $1 AND algorithm = $2 AND implementation = $3",
                    &key,
                )?;
                db.exec(
                    "DELETE FROM results WHERE run_id = $1 AND algorithm = $2 AND implementation = $3",
                    &key,
                )?;
                db.exec(
                    "INSERT INTO results (run_id, algorithm, implementation, seq, status, written_at, result_json)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    &[
                        key[0].clone(),
                        key[1].clone(),
                        key[2].clone(),
                        Val::Int(Some(seq)),
                        Val::text(&r.status),
                        Val::text(&now),
                        Val::text(&r.json),
                    ],
                )?;
                insert_ops(db, run_id, &r.algorithm, &r.implementation, &r.ops)
            })
            .with_context(|| {
                format!(
                    "storing {}@{} of run {run_id} in {}",
                    r.algorithm,
                    r.implementation,
                    self.location()
                )
            })
    }

    /// Sets a run's status, end time and (when given) its header.
    pub fn finish(
        &mut self,
        run_id: &str,
        status: RunStatus,
        finished_at: Option<&str>,
        header_json: Option<&str>,
    ) -> anyhow::Result<()> {
        self.db.transaction(false, &mut |db| {
            db.exec(
                "UPDATE runs SET status = $2, finished_at = $3 WHERE id = $1",
                &[
                    Val::text(run_id),
                    Val::text(status.as_str()),
                    Val::Text(finished_at.map(str::to_string)),
                ],
            )?;
            if let Some(h) = header_json {
                db.exec(
                    "UPDATE runs SET header_json = $2 WHERE id = $1",
                    &[Val::text(run_id), Val::text(h)],
                )?;
            }
            Ok(())
        })
    }

    /// Removes run `run_id`, its results and operations: a run that ended before it measured
    /// anything ([`Recorder::abandon`]).
    pub fn forget(&mut self, run_id: &str) -> anyhow::Result<()> {
        let id = [Val::text(run_id)];
        self.db.transaction(false, &mut |db| {
            db.exec("DELETE FROM operations WHERE run_id = $1", &id)?;
            db.exec("DELETE FROM results WHERE run_id = $1", &id)?;
            db.exec("DELETE FROM runs WHERE id = $1", &id)?;
            Ok(())
        })
    }

    /// Every run, newest first.
    pub fn runs(&mut self) -> anyhow::Result<Vec<RunSummary>> {
        let sql = format!(
            "{SUMMARY_SQL} ORDER BY runs.started_at DESC, COALESCE(runs.seq, 0) DESC, runs.id DESC"
        );
        let mut all: Vec<RunSummary> = self
            .db
            .read(&sql, &[])?
            .iter()
            .map(|r| summary(r))
            .collect::<anyhow::Result<_>>()?;
        if schema::version(self.db.as_mut())? >= 4 {
            let sweeps: std::collections::HashMap<String, String> = self
                .db
                .read("SELECT id, sweep FROM runs WHERE sweep IS NOT NULL", &[])?
                .iter()
                .map(|r| Ok((r[0].as_text("id")?, r[1].as_text("sweep")?)))
                .collect::<anyhow::Result<_>>()?;
            for r in &mut all {
                r.sweep = sweeps.get(&r.id).cloned();
            }
        }
        Ok(all)
    }

    /// The runs of sweep `id` with their states, in the order the store recorded them; none
    /// in a store older than sweeps (schema 4), which cannot hold one.
    pub fn sweep_runs(&mut self, id: &str) -> anyhow::Result<Vec<(String, String)>> {
        if schema::version(self.db.as_mut())? < 4 {
            return Ok(Vec::new());
        }
        self.db
            .read(
                "SELECT id, status FROM runs WHERE sweep = $1
                 ORDER BY COALESCE(seq, 0), started_at, id",
                &[Val::text(id)],
            )?
            .iter()
            .map(|r| Ok((r[0].as_text("id")?, r[1].as_text("status")?)))
            .collect()
    }

    /// The ids of every sweep in the store.
    pub fn sweeps(&mut self) -> anyhow::Result<Vec<String>> {
        if schema::version(self.db.as_mut())? < 4 {
            return Ok(Vec::new());
        }
        self.db
            .read(
                "SELECT DISTINCT sweep FROM runs WHERE sweep IS NOT NULL ORDER BY sweep",
                &[],
            )?
            .iter()
            .map(|r| r[0].as_text("sweep"))
            .collect()
    }

    /// The sweep run `id` is a shard of, if any.
    pub fn sweep_of(&mut self, id: &str) -> anyhow::Result<Option<String>> {
        if schema::version(self.db.as_mut())? < 4 {
            return Ok(None);
        }
        let rows = self
            .db
            .read("SELECT sweep FROM runs WHERE id = $1", &[Val::text(id)])?;
        Ok(rows.first().and_then(|r| r[0].as_opt_text()))
    }

    /// Whether a run with this exact id exists.
    pub fn contains(&mut self, id: &str) -> anyhow::Result<bool> {
        Ok(!self
            .db
            .read("SELECT 1 FROM runs WHERE id = $1", &[Val::text(id)])?
            .is_empty())
    }

    /// Reads one run back, header and every result.
    pub fn load(&mut self, id: &str) -> anyhow::Result<StoredRun> {
        let sql = format!("{SUMMARY_SQL} WHERE runs.id = $1");
        let rows = self.db.read(&sql, &[Val::text(id)])?;
        let Some(row) = rows.first() else {
            crate::bail_usage!("no run {id} in {}", self.location());
        };
        let summary = summary(row)?;
        let header = self.db.read(
            "SELECT header_json FROM runs WHERE id = $1",
            &[Val::text(id)],
        )?;
        let header_json = header[0][0].as_text("header_json")?;
        let results = self
            .db
            .read(
                "SELECT status, result_json FROM results WHERE run_id = $1 ORDER BY seq",
                &[Val::text(id)],
            )?
            .iter()
            .map(|r| Ok((r[0].as_text("status")?, r[1].as_text("result_json")?)))
            .collect::<anyhow::Result<_>>()?;
        Ok(StoredRun {
            summary,
            header_json,
            results,
        })
    }

    /// The run id a selector names: an id or a unique prefix of one, `latest`, `latest~N`
    /// (N runs before the latest), `host:NAME` or `cpu:TEXT` (the latest complete run on that
    /// host, or on a CPU whose model contains TEXT). With `kind`, only runs of that kind
    /// (`run`, `throughput`) count.
    pub fn resolve(&mut self, selector: &str, kind: Option<RecordKind>) -> anyhow::Result<String> {
        let runs: Vec<RunSummary> = self
            .runs()?
            .into_iter()
            .filter(|r| kind.is_none_or(|k| r.kind == k.store_kind()))
            .collect();
        let noun = kind.map_or("runs", RecordKind::plural);
        let none = || {
            anyhow::Error::new(crate::usage::Usage(format!(
                "there are no {noun} in {} yet",
                self.db.location()
            )))
        };
        if let Some(rest) = selector.strip_prefix("latest") {
            let back: usize = match rest.strip_prefix('~') {
                Some(n) => n
                    .parse()
                    .map_err(|_| crate::usage::Usage(format!("'{selector}': expected latest~N")))?,
                None if rest.is_empty() => 0,
                None => crate::bail_usage!("'{selector}': expected latest or latest~N"),
            };
            // A run still running with nothing stored (in progress elsewhere, or killed before
            // its first benchmark) is not the latest of anything; its id still names it.
            let empty = |r: &&RunSummary| r.status == RunStatus::Running.as_str() && r.results == 0;
            let counted: Vec<&RunSummary> = runs.iter().filter(|r| !empty(r)).collect();
            return match counted.get(back) {
                Some(r) => Ok(r.id.clone()),
                None if runs.is_empty() => Err(none()),
                None => {
                    let skipped: Vec<&str> =
                        runs.iter().filter(empty).map(|r| r.id.as_str()).collect();
                    let note = if skipped.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (not counting {}, running with nothing stored)",
                            skipped.join(", ")
                        )
                    };
                    crate::bail_usage!(
                        "'{selector}': the store has only {} {noun}{note}",
                        counted.len()
                    )
                }
            };
        }
        let by_env = |want: &dyn Fn(&RunSummary) -> bool, what: &str| {
            runs.iter()
                .find(|r| r.status == RunStatus::Complete.as_str() && want(r))
                .map(|r| r.id.clone())
                .ok_or_else(|| {
                    anyhow::Error::new(crate::usage::Usage(format!(
                        "no complete {noun} with {what} in the store"
                    )))
                })
        };
        if let Some(h) = selector.strip_prefix("host:") {
            return by_env(&|r| r.host == h, &format!("host {h}"));
        }
        if let Some(c) = selector.strip_prefix("cpu:") {
            let c = c.to_ascii_lowercase();
            return by_env(
                &|r| r.cpu.to_ascii_lowercase().contains(&c),
                &format!("a CPU matching '{c}'"),
            );
        }
        if let Some(r) = runs.iter().find(|r| r.id == selector) {
            return Ok(r.id.clone());
        }
        let matches: Vec<&RunSummary> = runs
            .iter()
            .filter(|r| r.id.starts_with(selector) || r.id.ends_with(selector))
            .collect();
        match matches.as_slice() {
            [one] => Ok(one.id.clone()),
            [] => {
                let ids: Vec<String> = runs.iter().map(|r| r.id.clone()).collect();
                let near = crate::suggest::nearest(selector, &ids);
                let hint = if near.is_empty() {
                    String::new()
                } else {
                    format!(" (did you mean {}?)", near.join(", "))
                };
                crate::bail_usage!(
                    "no run '{selector}' among the {noun} in {}{hint}; `kembench runs` lists them",
                    self.db.location()
                )
            }
            many => crate::bail_usage!(
                "'{selector}' matches {} runs ({}); give more of the id",
                many.len(),
                many.iter()
                    .map(|r| r.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

#[cfg(test)]
mod tests;
