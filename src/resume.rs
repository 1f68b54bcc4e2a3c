//! What `run`, `throughput` and `profile` do alike with `--resume RUN`: load the stored run,
//! refuse one that is complete or of another kind, and find the planned implementations it
//! has no final result for, refusing when any of them is not available here.

use crate::kem::Kem;
use crate::providers::Registry;
use crate::record::{AnyRecord, Kind, Record, RecordKind, RunStatus};
use crate::store::{records, Store};
use std::sync::Arc;

/// Refuses settings given beside `--resume` (`given`: the flags as typed, `--screens`): a
/// resumed run is completed with the settings it was started with, and taking new ones in
/// silence would mix two configurations in one run, or seem to apply what is not applied.
pub fn refuse_settings(given: &[String]) -> anyhow::Result<()> {
    if given.is_empty() {
        return Ok(());
    }
    crate::bail_usage!(
        "{} cannot be used with --resume: a resumed run is completed with its own settings \
         (what it planned, its operations, budgets, screens and seed, as recorded when it \
         started), and these would not apply. Resume without them, or start a new run to use \
         them.",
        given.join(", ")
    )
}

/// The run `selector` names in `store`, of `kind` (`command` is the command that records it,
/// for the messages), taken out of its [`AnyRecord`] by `take`: its id and record. A complete
/// run, or one of another kind, is a usage error.
pub fn load<K: Kind>(
    store: &mut Store,
    selector: &str,
    kind: RecordKind,
    command: &str,
    take: impl FnOnce(AnyRecord) -> Option<Box<Record<K>>>,
) -> anyhow::Result<(String, Box<Record<K>>)> {
    let id = store.resolve(selector, Some(kind))?;
    let stored = store.load(&id)?;
    if RunStatus::parse(&stored.summary.status) == Some(RunStatus::Complete) {
        crate::bail_usage!("run {id} is complete; there is nothing to resume");
    }
    let warn_running = stored.summary.status == RunStatus::Running.as_str();
    let Some(record) = take(records::record(&stored)?) else {
        crate::bail_usage!("run {id} is not a `kembench {command}` run");
    };
    if warn_running {
        eprintln!(
            "warning: run {id} is still marked running: its process ended without saying so \
             (killed, power loss), or it is still measuring somewhere; if it is, stop this resume"
        );
    }
    Ok((id, record))
}

/// The planned implementations of `record` without a final result, from `registry`; when any
/// is not available here, a usage error naming them (measuring the others and calling the run
/// complete would lose them for good), and the run stays resumable.
pub fn unfinished<K: Kind>(
    record: &Record<K>,
    id: &str,
    registry: &Registry,
) -> anyhow::Result<Vec<Arc<dyn Kem>>> {
    let (todo, missing) = record.unfinished(|label| registry.get(label));
    if !missing.is_empty() {
        let hint = crate::providers::registry::why_missing(&missing);
        crate::bail_usage!(
            "run {id} cannot be resumed here: {} planned benchmark(s) are not available: {}.{hint} \
             The run stays resumable.",
            missing.len(),
            missing.join(", ")
        );
    }
    Ok(todo)
}
