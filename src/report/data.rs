//! The report's input: runs, throughput runs, profiles and tls runs, from result files or the
//! results store.

use crate::record::latency::{Latency, LatencyRecord};
pub use crate::record::{load, parse, AnyRecord, LoadError, RecordKind};
use crate::record::{Kind, Record, VisitOwned};
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A record with the file it came from.
#[derive(Debug, Clone)]
pub struct Input<T> {
    /// A short name for the report: the file name, or the path when file names repeat.
    pub label: String,
    /// The file as given.
    pub path: PathBuf,
    /// The parsed record.
    pub record: T,
}

/// Everything a report is built from: per kind, the records of that kind in the order the
/// files were given ([`Dataset::of`]).
#[derive(Default)]
pub struct Dataset {
    /// Under each kind's type id, a `Vec<Input<Record<K>>>`.
    kinds: HashMap<TypeId, Box<dyn Any>>,
    /// The kind of every record, in the order given.
    given: Vec<RecordKind>,
}

impl std::fmt::Debug for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let counts: Vec<(&str, usize)> = RecordKind::ALL
            .iter()
            .map(|k| (k.store_kind(), self.count(*k)))
            .collect();
        f.debug_struct("Dataset").field("records", &counts).finish()
    }
}

impl Dataset {
    /// Loads every file, stopping at the first that cannot be read.
    pub fn load(paths: &[PathBuf]) -> Result<Dataset, LoadError> {
        let mut records = Vec::with_capacity(paths.len());
        for p in paths {
            records.push((p.clone(), load(p)?));
        }
        Ok(Dataset::from_records(records))
    }

    /// Builds a data set from records already parsed, labelling each by its file name.
    pub fn from_records(records: Vec<(PathBuf, AnyRecord)>) -> Dataset {
        let name = |p: &Path| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.display().to_string())
        };
        let names: Vec<String> = records.iter().map(|(p, _)| name(p)).collect();
        let mut d = Dataset::default();
        for (i, (path, record)) in records.into_iter().enumerate() {
            let unique = names.iter().filter(|n| **n == names[i]).count() == 1;
            let label = if unique {
                names[i].clone()
            } else {
                path.display().to_string()
            };
            d.given.push(record.kind());
            record.into_visit(Push {
                data: &mut d,
                label,
                path,
            });
        }
        d
    }

    /// The records of kind `K`, in the order given.
    pub fn of<K: Kind>(&self) -> &[Input<Record<K>>] {
        self.kinds
            .get(&TypeId::of::<K>())
            .and_then(|v| v.downcast_ref::<Vec<Input<Record<K>>>>())
            .map_or(&[], Vec::as_slice)
    }

    /// How many records of `kind` there are.
    pub fn count(&self, kind: RecordKind) -> usize {
        self.given.iter().filter(|k| **k == kind).count()
    }

    /// Whether there is no record at all.
    pub fn is_empty(&self) -> bool {
        self.given.is_empty()
    }

    /// The run the charts and tables describe: the last one given.
    pub fn primary(&self) -> Option<&Input<LatencyRecord>> {
        self.of::<Latency>().last()
    }
}

/// [`Dataset::from_records`]: one record into the list of its kind.
struct Push<'a> {
    data: &'a mut Dataset,
    label: String,
    path: PathBuf,
}

impl VisitOwned for Push<'_> {
    type Out = ();
    fn visit<K: Kind>(self, record: Record<K>) {
        self.data
            .kinds
            .entry(TypeId::of::<K>())
            .or_insert_with(|| Box::new(Vec::<Input<Record<K>>>::new()))
            .downcast_mut::<Vec<Input<Record<K>>>>()
            .expect("each kind's list is under its own type id")
            .push(Input {
                label: self.label,
                path: self.path,
                record,
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::record::tls::Tls;

    fn run_json() -> serde_json::Value {
        serde_json::to_value(fixture::run()).unwrap()
    }

    #[test]
    fn reads_a_run_record() {
        let bytes = serde_json::to_vec(&run_json()).unwrap();
        match parse("r.json", &bytes).unwrap() {
            AnyRecord::Latency(r) => assert_eq!(r.results.len(), 2),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn malformed_json_is_refused_with_the_file_name() {
        let e = parse("bad.json", b"{\"kind\": ").unwrap_err();
        assert!(matches!(e, LoadError::NotJson { .. }), "{e:?}");
        assert!(e.to_string().starts_with("bad.json is not JSON"), "{e}");
    }

    #[test]
    fn missing_and_unknown_kinds_are_refused() {
        let e = parse("a.json", b"{\"schema_version\": 1}").unwrap_err();
        assert!(matches!(e, LoadError::NoKind { .. }), "{e:?}");
        let e = parse(
            "b.json",
            b"{\"kind\": \"kembench-verify\", \"schema_version\": 1}",
        )
        .unwrap_err();
        assert!(
            matches!(&e, LoadError::UnknownKind { kind, .. } if kind == "kembench-verify"),
            "{e:?}"
        );
        assert!(e.to_string().contains("'kembench-verify'"), "{e}");
    }

    #[test]
    fn a_newer_schema_is_refused_before_parsing() {
        let mut v = run_json();
        v["schema_version"] = serde_json::json!(crate::record::latency::SCHEMA_VERSION + 1);
        v["results"] = serde_json::json!("changed in the future");
        let e = parse("new.json", &serde_json::to_vec(&v).unwrap()).unwrap_err();
        assert!(
            matches!(e, LoadError::NewerSchema { found, supported, .. } if found == u64::from(supported) + 1),
            "{e:?}"
        );
        assert!(e.to_string().contains("upgrade kembench"), "{e}");
    }

    #[test]
    fn wrong_fields_are_malformed() {
        let mut v = run_json();
        v["results"] = serde_json::json!(42);
        let e = parse("m.json", &serde_json::to_vec(&v).unwrap()).unwrap_err();
        assert!(
            matches!(&e, LoadError::Malformed { kind, .. } if kind == RecordKind::Latency.file_kind()),
            "{e:?}"
        );
        let mut v = run_json();
        v.as_object_mut().unwrap().remove("schema_version");
        let e = parse("n.json", &serde_json::to_vec(&v).unwrap()).unwrap_err();
        assert!(e.to_string().contains("schema_version"), "{e}");
        let e = parse(
            "t.json",
            b"{\"kind\": \"kembench-throughput\", \"schema_version\": 1}",
        )
        .unwrap_err();
        assert!(
            matches!(&e, LoadError::Malformed { kind, .. } if kind == RecordKind::Throughput.file_kind()),
            "{e:?}"
        );
    }

    #[test]
    fn labels_are_file_names_unless_they_repeat() {
        let r = || AnyRecord::from(fixture::run());
        let d = Dataset::from_records(vec![
            ("a/r.json".into(), r()),
            ("b/r.json".into(), r()),
            ("c/s.json".into(), r()),
        ]);
        let labels: Vec<&str> = d.of::<Latency>().iter().map(|i| i.label.as_str()).collect();
        assert_eq!(labels, ["a/r.json", "b/r.json", "s.json"]);
        assert_eq!(d.primary().unwrap().label, "s.json");
    }

    #[test]
    fn tls_runs_are_kept_apart() {
        let d = Dataset::from_records(vec![
            ("t.json".into(), AnyRecord::from(fixture::tls())),
            ("r.json".into(), AnyRecord::from(fixture::run())),
        ]);
        assert_eq!((d.of::<Latency>().len(), d.of::<Tls>().len()), (1, 1));
        assert_eq!(d.of::<Tls>()[0].label, "t.json");
    }

    #[test]
    fn a_missing_file_is_a_read_error() {
        let e = load(Path::new("/nonexistent/kembench.json")).unwrap_err();
        assert!(matches!(e, LoadError::Read { .. }), "{e:?}");
    }
}
