//! The recorder: what `run` and `throughput` write into the store as they measure, with a
//! JSON file as the fallback when the store fails part-way.

use super::{NewRun, RunStatus, Store, StoredResult};
use crate::files::write_atomic;
use std::path::Path;

/// Writes a run's results into the store as they come. A store that fails part-way does not
/// stop the run: the failure is reported and the caller saves a JSON file instead.
pub struct Recorder {
    store: Option<Store>,
    run_id: String,
    failed: Option<String>,
}

impl Recorder {
    /// Opens the store (unless `enabled` is false) before anything is measured, so that a
    /// bad store is an error at once rather than after the run.
    pub fn open(spec: &str, enabled: bool, run_id: &str) -> anyhow::Result<Recorder> {
        let store = if enabled {
            Some(Store::open(spec)?)
        } else {
            None
        };
        Ok(Recorder {
            store,
            run_id: run_id.to_string(),
            failed: None,
        })
    }

    /// A recorder around a store already open (resume).
    pub fn with(store: Store, run_id: &str) -> Recorder {
        Recorder {
            store: Some(store),
            run_id: run_id.to_string(),
            failed: None,
        }
    }

    /// Where runs are recorded, for the console; `None` with `--no-store`.
    pub fn location(&self) -> Option<String> {
        self.store.as_ref().map(Store::location)
    }

    fn attempt(&mut self, f: impl FnOnce(&mut Store, &str) -> anyhow::Result<()>) {
        if self.failed.is_some() {
            return;
        }
        if let Some(s) = self.store.as_mut() {
            if let Err(e) = f(s, &self.run_id) {
                eprintln!("warning: the results store failed: {e:#}");
                self.failed = Some(format!("{e:#}"));
            }
        }
    }

    /// Records the run's row.
    pub fn begin(&mut self, row: anyhow::Result<NewRun>) {
        self.attempt(|s, _| s.begin(&row?));
    }

    /// Records one finished benchmark.
    pub fn put(&mut self, r: anyhow::Result<StoredResult>) {
        self.attempt(|s, id| s.put_result(id, &r?));
    }

    /// Records the run's end.
    pub fn finish(
        &mut self,
        status: RunStatus,
        finished_at: Option<&str>,
        header: anyhow::Result<String>,
    ) {
        self.attempt(|s, id| s.finish(id, status, finished_at, Some(&header?)));
    }

    /// Whether every write reached the store (true with `--no-store`).
    pub fn ok(&self) -> bool {
        self.failed.is_none()
    }

    /// After a store failure: saves `json` where `kembench import` can load it later.
    pub fn rescue(&self, json: &[u8]) {
        if self.failed.is_none() || self.store.is_none() {
            return;
        }
        let path = format!("kembench-{}.json", self.run_id);
        match write_atomic(Path::new(&path), json) {
            Ok(()) => eprintln!(
                "The store missed part of this run; everything measured is in {path}. `kembench import {path}` loads it once the store works."
            ),
            Err(e) => eprintln!("error: the store failed and {path} could not be written either: {e:#}"),
        }
    }
}
