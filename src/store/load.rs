//! Loading a record by selector: a result file when the path exists, else a run in the store.

use super::{records, Store};
use crate::record::{AnyRecord, Kind, Record, RecordKind};

use std::path::Path;

/// The record a selector names: a results file when the path exists, else a run in the store.
/// With `kind`, only a record of that kind is accepted.
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
    let id = s.resolve(selector, kind)?;
    let r = records::record(&s.load(&id)?)?;
    Ok((format!("run {id}"), r))
}

/// The record of kind `K` a selector names: a result file of that kind, or a run of that kind
/// in the store (`latest` is the newest of that kind).
pub fn load_kind<K: Kind>(spec: &str, selector: &str) -> anyhow::Result<(String, Record<K>)> {
    let (name, r) = load(spec, selector, Some(RecordKind::of::<K>()))?;
    match r.take::<K>() {
        Ok(r) => Ok((name, *r)),
        Err(other) => {
            crate::bail_usage!("{name} is {}, not {}", other.kind().noun(), K::FACTS.noun)
        }
    }
}
