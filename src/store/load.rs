//! Loading a record by selector: a result file when the path exists, else a run in the store,
//! or a whole sweep (`sweep:ID`, or the id of a sweep) read back as one record.

use super::{records, Store};
use crate::record::sweep;
use crate::record::{AnyRecord, Kind, Record, RecordKind, VisitKind};

use std::path::Path;

/// The record a selector names: a results file when the path exists, else a run in the store,
/// else a sweep (`sweep:ID`, or an id no run has and a sweep does), its shards read back as
/// one record (what makes it less than one clean run said on standard error). With `kind`,
/// only a record of that kind is accepted.
pub fn load(
    spec: &str,
    selector: &str,
    kind: Option<RecordKind>,
) -> anyhow::Result<(String, AnyRecord)> {
    let path = Path::new(selector);
    if path.is_file() {
        return Ok((selector.to_string(), crate::record::load_as(path, kind)?));
    }
    if selector.ends_with(".json") || selector.contains('/') {
        crate::bail_usage!("cannot read {selector}: no such file");
    }
    let mut s = Store::open_existing(spec)?;
    match s.named(selector, kind)? {
        Named::Run(id) => {
            let r = records::record(&s.load(&id)?)?;
            Ok((format!("run {id}"), r))
        }
        Named::Sweep(id) => load_sweep(&mut s, &id),
    }
}

/// What a selector names in the store.
pub enum Named {
    /// One run, by its id.
    Run(String),
    /// A sweep, by its id.
    Sweep(String),
}

impl Store {
    /// What `selector` names: `sweep:ID` a sweep; otherwise a run ([`Store::resolve`]), or,
    /// when no run answers to it, a sweep of that exact id.
    pub fn named(&mut self, selector: &str, kind: Option<RecordKind>) -> anyhow::Result<Named> {
        if let Some(id) = selector.strip_prefix("sweep:") {
            return Ok(Named::Sweep(id.to_string()));
        }
        match self.resolve(selector, kind) {
            Ok(id) => Ok(Named::Run(id)),
            Err(_) if !self.sweep_runs(selector)?.is_empty() => {
                Ok(Named::Sweep(selector.to_string()))
            }
            Err(e) => Err(e),
        }
    }
}

/// The record of kind `K` a selector names: a result file of that kind, or a run (or sweep)
/// of that kind in the store (`latest` is the newest run of that kind).
pub fn load_kind<K: Kind>(spec: &str, selector: &str) -> anyhow::Result<(String, Record<K>)> {
    let (name, r) = load(spec, selector, Some(RecordKind::of::<K>()))?;
    match r.take::<K>() {
        Ok(r) => Ok((name, *r)),
        Err(other) => {
            crate::bail_usage!("{name} is {}, not {}", other.kind().noun(), K::FACTS.noun)
        }
    }
}

/// Sweep `id`'s runs read back and put together as one record ([`sweep::merge`]).
pub fn load_sweep(s: &mut Store, id: &str) -> anyhow::Result<(String, AnyRecord)> {
    let runs = s.sweep_runs(id)?;
    if runs.is_empty() {
        let sweeps = s.sweeps()?;
        let near = crate::suggest::nearest(id, &sweeps);
        let hint = match (near.is_empty(), sweeps.is_empty()) {
            (false, _) => format!(" (did you mean {}?)", near.join(", ")),
            (true, true) => " (it holds none: `--shard K/N --sweep ID` makes one)".to_string(),
            (true, false) => format!(" (it holds {})", sweeps.join(", ")),
        };
        crate::bail_usage!("no sweep '{id}' in {}{hint}", s.location());
    }
    let mut records = Vec::with_capacity(runs.len());
    for (run, status) in &runs {
        records.push((status.clone(), records::record(&s.load(run)?)?));
    }
    let kind = records[0].1.kind();
    let n = records.len();
    let record = kind.visit(Merge { id, records })?;
    Ok((format!("sweep {id} ({n} runs)"), record))
}

/// Puts the runs of a sweep together as kind `K`.
struct Merge<'a> {
    id: &'a str,
    records: Vec<(String, AnyRecord)>,
}

impl VisitKind for Merge<'_> {
    type Out = anyhow::Result<AnyRecord>;

    fn visit<K: Kind>(self) -> anyhow::Result<AnyRecord> {
        let mut runs = Vec::with_capacity(self.records.len());
        for (status, r) in self.records {
            match r.take::<K>() {
                Ok(r) => runs.push((status, *r)),
                Err(other) => crate::bail_usage!(
                    "sweep {} mixes kinds: it holds {} and {}",
                    self.id,
                    K::FACTS.plural,
                    other.kind().plural()
                ),
            }
        }
        let merged = sweep::merge::<K>(self.id, runs).map_err(crate::usage::Usage)?;
        for w in &merged.warnings {
            eprintln!("warning: sweep {}: {w}", self.id);
        }
        Ok(AnyRecord::wrap(merged.record))
    }
}
