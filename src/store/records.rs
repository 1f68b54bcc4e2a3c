//! Between kembench's records and the store's rows, typed both ways: a run's row carries its
//! header (the record without its results), each result is one row (its JSON and, for latency
//! runs, its operation rows built from the typed statistics), and a stored run is parsed back
//! into the record it came from.

use super::{NewRun, OpRow, Store, StoredResult, StoredRun};
use crate::record::latency::OperationResult;
use crate::record::{AnyRecord, Benchmark, Kind, Record, RunStatus, VisitMut, VisitOwned};
use anyhow::Context;

/// A result as the store keeps it: its JSON and the rows for SQL. Every kind's result is one.
pub trait Storable: Benchmark + serde::Serialize {
    /// The `operations` rows of this result (none for kinds without latency statistics).
    fn op_rows(&self) -> Vec<OpRow> {
        self.operations().iter().map(OpRow::from).collect()
    }

    /// The store row of this result.
    fn stored(&self) -> anyhow::Result<StoredResult> {
        Ok(StoredResult {
            algorithm: self.algorithm().to_string(),
            implementation: self.implementation().to_string(),
            status: self.status().as_str().to_string(),
            json: serde_json::to_string(self)?,
            ops: self.op_rows(),
        })
    }
}

impl From<&OperationResult> for OpRow {
    fn from(o: &OperationResult) -> OpRow {
        OpRow {
            operation: o.operation.as_str().to_string(),
            median_ns: o.median_ns,
            ci95_low_ns: o.median_ci95_low_ns,
            ci95_high_ns: o.median_ci95_high_ns,
            p25_ns: o.p25_ns,
            p75_ns: o.p75_ns,
            samples: o.samples as i64,
            stop_reason: o.stop_reason.as_str().to_string(),
        }
    }
}

impl<R: Benchmark + serde::Serialize> Storable for R {}

/// The `runs` row of a record (its `run_id` must be set).
pub fn run_row<K: Kind>(r: &Record<K>) -> anyhow::Result<NewRun>
where
    K::Result: Storable,
{
    let id = r.run_id.clone().context("the run has no id")?;
    Ok(NewRun {
        id,
        kind: K::FACTS.store_kind.to_string(),
        started_at: r.started_at.clone(),
        host: r.environment.hostname.clone(),
        cpu: r.environment.cpu.model.clone(),
        selection: K::selection(&r.config),
        kembench_version: r.environment.build.kembench_version.clone(),
        git_commit: r.environment.build.git_commit.clone(),
        command_line: r.command_line.join(" "),
        header_json: r.header_json()?,
        // A record of a whole sweep read back (no shard) is stored as a run of its own.
        sweep: r
            .sweep
            .as_ref()
            .filter(|s| s.shard.is_some())
            .map(|s| s.id.clone()),
    })
}

/// Every result of a record as store rows.
pub fn result_rows<K: Kind>(r: &Record<K>) -> anyhow::Result<Vec<StoredResult>>
where
    K::Result: Storable,
{
    r.results.iter().map(Storable::stored).collect()
}

/// Rebuilds the record of a stored run: the header parsed as a record of its kind (kind and
/// schema version checked), then each result parsed as that kind's result type.
pub fn record(stored: &StoredRun) -> anyhow::Result<AnyRecord> {
    let id = &stored.summary.id;
    let name = format!("run {id} in the store");
    let mut r = crate::record::parse(&name, stored.header_json.as_bytes())?;
    r.visit_mut(Fill {
        id,
        results: &stored.results,
    })?;
    Ok(r)
}

/// Sets the run id and parses the stored results into a record, in the planned order.
struct Fill<'a> {
    id: &'a str,
    results: &'a [(String, String)],
}

impl VisitMut for Fill<'_> {
    type Out = anyhow::Result<()>;
    fn visit<K: Kind>(self, r: &mut Record<K>) -> anyhow::Result<()> {
        let id = self.id;
        r.run_id = Some(id.to_string());
        r.results = self
            .results
            .iter()
            .map(|(_, json)| serde_json::from_str(json))
            .collect::<Result<_, _>>()
            .with_context(|| format!("run {id}: a result in the store is malformed"))?;
        // Stored in the order they finished; listed, like the result files, as planned.
        r.sort_as_planned();
        Ok(())
    }
}

/// A record from outside (an imported file), checked and turned into store rows: nothing of
/// it can be refused any more but a run id the store already has and this record does not
/// complete ([`Import::insert`]).
pub struct Import {
    id: String,
    row: NewRun,
    results: Vec<StoredResult>,
    status: RunStatus,
    finished_at: Option<String>,
}

/// Checks a whole record (an imported file) and builds its rows, before any store is opened,
/// so that a file that is refused never creates or touches one. Its id is kept, or a fresh one
/// given when it has none.
pub fn prepare(r: AnyRecord) -> anyhow::Result<Import> {
    r.into_visit(Prepare)
}

/// Inserts a whole record (an imported file) ([`prepare`], then [`Import::insert`]).
pub fn insert(s: &mut Store, r: AnyRecord) -> anyhow::Result<(String, Imported)> {
    prepare(r)?.insert(s)
}

/// [`prepare`] of a record of a known kind.
struct Prepare;

impl VisitOwned for Prepare {
    type Out = anyhow::Result<Import>;
    fn visit<K: Kind>(self, mut r: Record<K>) -> Self::Out {
        r.check()
            .map_err(|e| crate::usage::Usage(format!("not imported: {e}")))?;
        let id = r.run_id.clone().unwrap_or_else(super::new_run_id);
        r.run_id = Some(id.clone());
        Ok(Import {
            row: run_row(&r)?,
            results: result_rows(&r)?,
            status: r.status(),
            finished_at: r.finished_at.clone(),
            id,
        })
    }
}

/// What [`Import::insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Imported {
    /// A new run, with this many benchmarks.
    New(usize),
    /// A run the store held part of (a store that failed part-way) is complete now: it held
    /// `held` benchmarks, and the file's `added` others were stored.
    Completed {
        /// Benchmarks the store held (rewritten with the file's final figures).
        held: usize,
        /// Benchmarks stored from the file that the store lacked.
        added: usize,
    },
}

impl Import {
    /// Stores the run. When the store already has its id, the import can only complete it:
    /// the stored run must be of the same kind and start, not complete, and every benchmark
    /// it holds must be in the file (a store that failed part-way holds a part of the run its
    /// fallback file holds whole); anything else is refused and the store left as it was.
    /// Returns the id and what was done.
    pub fn insert(self, s: &mut Store) -> anyhow::Result<(String, Imported)> {
        let id = self.id.clone();
        if s.contains(&id)? {
            let held = self.completes(s)?;
            for stored in &self.results {
                s.put_result(&id, stored)?;
            }
            s.finish(
                &id,
                self.status,
                self.finished_at.as_deref(),
                Some(&self.row.header_json),
            )?;
            let added = self.results.len() - held;
            return Ok((id, Imported::Completed { held, added }));
        }
        s.begin(&self.row)?;
        for stored in &self.results {
            s.put_result(&id, stored)?;
        }
        s.finish(&id, self.status, self.finished_at.as_deref(), None)?;
        Ok((id, Imported::New(self.results.len())))
    }

    /// How many benchmarks the stored run of the same id holds, when this import completes
    /// it; an error saying why not otherwise.
    fn completes(&self, s: &mut Store) -> anyhow::Result<usize> {
        let id = &self.id;
        let stored = s.load(id)?;
        let held = &stored.summary;
        let refuse = |why: String| -> anyhow::Result<usize> {
            crate::bail_usage!(
                "run {id} is already in {}{why}; nothing imported",
                s.location()
            )
        };
        if held.kind != self.row.kind || held.started_at != self.row.started_at {
            return refuse(format!(
                " as another run ({} started {}, the file's: {} started {})",
                held.kind, held.started_at, self.row.kind, self.row.started_at
            ));
        }
        if held.status == RunStatus::Complete.as_str() {
            return refuse(String::new());
        }
        let file: std::collections::HashSet<(&str, &str)> = self
            .results
            .iter()
            .map(|r| (r.algorithm.as_str(), r.implementation.as_str()))
            .collect();
        for (_, json) in &stored.results {
            let v: serde_json::Value = serde_json::from_str(json)
                .with_context(|| format!("run {id}: a result in the store is malformed"))?;
            let key = (
                v["algorithm"].as_str().unwrap_or_default(),
                v["implementation"].as_str().unwrap_or_default(),
            );
            if !file.contains(&key) {
                return refuse(format!(" with {}@{}, which the file lacks", key.0, key.1));
            }
        }
        Ok(stored.results.len())
    }
}
