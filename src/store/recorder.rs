//! The recorder: what the measuring commands (`run`, `throughput`, `profile`, `tls`) write
//! into the store as they measure, with a JSON file as the fallback when the store fails
//! part-way.

use super::{NewRun, RunStatus, Store, StoredResult};
use crate::files::write_atomic;
use std::path::PathBuf;

/// Writes a run's results into the store as they come. A store that fails part-way does not
/// stop the run: the failure is reported and the caller saves a JSON file instead.
pub struct Recorder {
    store: Option<Store>,
    run_id: String,
    failed: Option<String>,
    /// Writes that reached the store.
    writes: usize,
    /// Whether the run was in the store before (resume), so that it holds part of it
    /// whatever fails now.
    resumed: bool,
}

/// What became of a run's results when the recorder closed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Closed {
    /// The store holds all of it, or there is no store (`--no-store`).
    Stored,
    /// The store failed: it holds `holds` of the run, and the whole record is in `file`.
    Saved {
        /// The JSON file that holds the whole run, for `kembench import`.
        file: PathBuf,
        /// How much of the run the store holds.
        holds: Holds,
    },
    /// The store failed and no file could be written: the results are lost.
    Lost,
}

/// How much of a run a store that failed holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    /// Nothing: it failed before the run's row was recorded.
    Nothing,
    /// The run's row and some of its results (or, on resume, what it held before).
    Part,
}

/// A test hook: with `KEMBENCH_MOCK_FAULTS=1`, `KEMBENCH_MOCK_STORE_FAILS_AFTER=N` makes every
/// store write after the first N fail, as a store that fills its disk or loses its server
/// would.
fn injected_failure(writes: usize) -> Option<String> {
    if std::env::var("KEMBENCH_MOCK_FAULTS").ok()? != "1" {
        return None;
    }
    let after: usize = std::env::var("KEMBENCH_MOCK_STORE_FAILS_AFTER")
        .ok()?
        .parse()
        .ok()?;
    (writes >= after).then(|| "injected failure (KEMBENCH_MOCK_STORE_FAILS_AFTER)".to_string())
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
            writes: 0,
            resumed: false,
        })
    }

    /// A recorder around a store already open (resume).
    pub fn with(store: Store, run_id: &str) -> Recorder {
        Recorder {
            store: Some(store),
            run_id: run_id.to_string(),
            failed: None,
            writes: 0,
            resumed: true,
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
            let result = match injected_failure(self.writes) {
                Some(why) => Err(anyhow::anyhow!(why)),
                None => f(s, &self.run_id),
            };
            match result {
                Ok(()) => self.writes += 1,
                Err(e) => {
                    eprintln!("warning: the results store failed: {e:#}");
                    self.failed = Some(format!("{e:#}"));
                }
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

    /// Takes back a new run that ended before anything was measured (its result files could
    /// not be written): its row is removed from the store, so that no run is left `running`
    /// there with nothing in it. Returns what became of the run, for the error that ended it.
    pub fn abandon(&mut self) -> String {
        let id = &self.run_id;
        let Some(store) = self.store.as_mut() else {
            return "nothing was measured".into();
        };
        if self.resumed {
            return format!("nothing was measured, and run {id} is left as it was");
        }
        if self.writes == 0 {
            return format!("nothing was measured, and run {id} is not recorded");
        }
        match store.forget(id) {
            Ok(()) => format!("nothing was measured, and run {id} is not recorded"),
            Err(e) => format!(
                "nothing was measured, and run {id} stays in {} as running with nothing in it \
                 (removing it failed: {e:#})",
                store.location()
            ),
        }
    }

    /// Ends `record` (interrupted or finished now) and records its end; when the store failed
    /// on the way, saves `json(record)` for `kembench import` ([`Recorder::rescue`]).
    /// Returns where the results are, which the caller reports after printing them.
    pub fn close<K: crate::record::Kind>(
        &mut self,
        record: &mut crate::record::Record<K>,
        interrupted: bool,
        json: impl FnOnce(&crate::record::Record<K>) -> anyhow::Result<Vec<u8>>,
    ) -> anyhow::Result<Closed> {
        record.end(interrupted);
        self.finish(
            record.status(),
            record.finished_at.as_deref(),
            record.header_json().map_err(Into::into),
        );
        Ok(match self.rescue(&json(record)?) {
            Ok(None) => Closed::Stored,
            Ok(Some(file)) => Closed::Saved {
                file,
                holds: self.holds(),
            },
            Err(e) => {
                eprintln!("error: {e:#}");
                Closed::Lost
            }
        })
    }

    /// How much of the run the store holds once it failed: nothing when its first write of a
    /// new run failed.
    fn holds(&self) -> Holds {
        if self.writes == 0 && !self.resumed {
            Holds::Nothing
        } else {
            Holds::Part
        }
    }

    /// Whether every write reached the store (true with `--no-store`).
    pub fn ok(&self) -> bool {
        self.failed.is_none()
    }

    /// Says on the console where run `run_id` is recorded, or that the store failed at once.
    pub fn announce(&self, run_id: &str) {
        match (&self.store, &self.failed) {
            (Some(s), None) => println!("Run {run_id}, recorded in {}", s.location()),
            (Some(s), Some(_)) => println!(
                "Run {run_id}: the store {} failed, so this run is not recorded there; what is \
                 measured is saved as kembench-{run_id}.json at the end",
                s.location()
            ),
            (None, _) => {}
        }
    }

    /// After a store failure: saves `json` where `kembench import` can load it later, in the
    /// current directory or else the system's temporary directory. Returns the file written,
    /// or an error when neither could be written (the results are then lost). Nothing to do,
    /// `Ok(None)`, when the store took every write.
    pub fn rescue(&self, json: &[u8]) -> anyhow::Result<Option<PathBuf>> {
        if self.failed.is_none() || self.store.is_none() {
            return Ok(None);
        }
        let name = format!("kembench-{}.json", self.run_id);
        let location = self.location().unwrap_or_default();
        let id = &self.run_id;
        let mut tried = Vec::new();
        for dir in [PathBuf::from("."), std::env::temp_dir()] {
            let path = dir.join(&name);
            match write_atomic(&path, json) {
                Ok(()) => {
                    let p = path.display();
                    match self.holds() {
                        Holds::Nothing => eprintln!(
                            "The store {location} holds none of run {id}: it failed before \
                             recording it. Everything measured is in {p}; `kembench import {p}` \
                             records it once the store works."
                        ),
                        Holds::Part => eprintln!(
                            "The store {location} holds only part of run {id}: it failed \
                             part-way. Everything measured is in {p}; `kembench import {p}` \
                             completes the run there once the store works (`kembench compare` \
                             and `kembench report` read the file as it is)."
                        ),
                    }
                    return Ok(Some(path));
                }
                Err(e) => tried.push(format!("{e:#}")),
            }
        }
        anyhow::bail!(
            "the store failed and the results could not be saved either ({}); what this run measured is lost",
            tried.join("; ")
        )
    }
}
