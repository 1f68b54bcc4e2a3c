//! The report's input: result files written by `kembench run --json` and
//! `kembench throughput --json`, told apart by their `kind` field, with their schema version
//! checked before they are parsed. There is no results store yet: files are the only source.

use crate::run::result::{self, RunRecord};
use crate::throughput::record::{self as tp, ThroughputRecord};
use std::path::{Path, PathBuf};

/// `kind` of a `run --json` file.
pub const RUN_KIND: &str = "kembench-run";
/// `kind` of a `throughput --json` file.
pub const THROUGHPUT_KIND: &str = "kembench-throughput";

/// Why a file could not be read as a result file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The bytes are not JSON.
    #[error("{path} is not JSON ({source}); expected a file written by `kembench run --json` or `kembench throughput --json`")]
    NotJson {
        /// The file.
        path: String,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// JSON, but no `kind` field.
    #[error("{path} is not a kembench result file (no 'kind' field)")]
    NoKind {
        /// The file.
        path: String,
    },
    /// A `kind` the report does not read.
    #[error("{path} holds a '{kind}' record; the report reads '{RUN_KIND}' and '{THROUGHPUT_KIND}' files")]
    UnknownKind {
        /// The file.
        path: String,
        /// The kind found.
        kind: String,
    },
    /// Written by a newer kembench.
    #[error("{path} was written by a newer kembench ({kind} schema {found}; this one reads up to {supported}); upgrade kembench")]
    NewerSchema {
        /// The file.
        path: String,
        /// The record kind.
        kind: String,
        /// The file's schema version.
        found: u64,
        /// The newest version this build reads.
        supported: u32,
    },
    /// The right kind and version, but fields are missing or have the wrong type.
    #[error("{path} is a malformed {kind} record: {reason}")]
    Malformed {
        /// The file.
        path: String,
        /// The record kind.
        kind: String,
        /// What is wrong.
        reason: String,
    },
}

/// One parsed result file.
#[derive(Debug, Clone)]
pub enum Record {
    /// From `kembench run --json`.
    Run(Box<RunRecord>),
    /// From `kembench throughput --json`.
    Throughput(Box<ThroughputRecord>),
}

/// Parses the bytes of a result file; `path` names it in errors.
pub fn parse(path: &str, bytes: &[u8]) -> Result<Record, LoadError> {
    let v: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|source| LoadError::NotJson {
            path: path.to_string(),
            source,
        })?;
    let kind = match v.get("kind").and_then(|k| k.as_str()) {
        Some(k) => k.to_string(),
        None => {
            return Err(LoadError::NoKind {
                path: path.to_string(),
            })
        }
    };
    let supported = match kind.as_str() {
        RUN_KIND => result::SCHEMA_VERSION,
        THROUGHPUT_KIND => tp::SCHEMA_VERSION,
        _ => {
            return Err(LoadError::UnknownKind {
                path: path.to_string(),
                kind,
            })
        }
    };
    let malformed = |reason: String| LoadError::Malformed {
        path: path.to_string(),
        kind: kind.clone(),
        reason,
    };
    let found = v
        .get("schema_version")
        .and_then(|s| s.as_u64())
        .ok_or_else(|| malformed("no integer 'schema_version' field".into()))?;
    if found > u64::from(supported) {
        return Err(LoadError::NewerSchema {
            path: path.to_string(),
            kind,
            found,
            supported,
        });
    }
    if kind == RUN_KIND {
        serde_json::from_value(v)
            .map(|r| Record::Run(Box::new(r)))
            .map_err(|e| malformed(e.to_string()))
    } else {
        serde_json::from_value(v)
            .map(|r| Record::Throughput(Box::new(r)))
            .map_err(|e| malformed(e.to_string()))
    }
}

/// Reads and parses one result file.
pub fn load(path: &Path) -> Result<Record, LoadError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Read {
        path: name.clone(),
        source,
    })?;
    parse(&name, &bytes)
}

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

/// Everything a report is built from, in the order the files were given.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    /// Latency runs; the first is the baseline of the comparison, the last the one the charts
    /// show.
    pub runs: Vec<Input<RunRecord>>,
    /// Throughput runs.
    pub throughputs: Vec<Input<ThroughputRecord>>,
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
    pub fn from_records(records: Vec<(PathBuf, Record)>) -> Dataset {
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
            match record {
                Record::Run(r) => d.runs.push(Input {
                    label,
                    path,
                    record: *r,
                }),
                Record::Throughput(r) => d.throughputs.push(Input {
                    label,
                    path,
                    record: *r,
                }),
            }
        }
        d
    }

    /// The run the charts and tables describe: the last one given.
    pub fn primary(&self) -> Option<&Input<RunRecord>> {
        self.runs.last()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    fn run_json() -> serde_json::Value {
        serde_json::to_value(fixture::run()).unwrap()
    }

    #[test]
    fn reads_a_run_record() {
        let bytes = serde_json::to_vec(&run_json()).unwrap();
        match parse("r.json", &bytes).unwrap() {
            Record::Run(r) => assert_eq!(r.results.len(), 2),
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
        v["schema_version"] = serde_json::json!(result::SCHEMA_VERSION + 1);
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
            matches!(&e, LoadError::Malformed { kind, .. } if kind == RUN_KIND),
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
            matches!(&e, LoadError::Malformed { kind, .. } if kind == THROUGHPUT_KIND),
            "{e:?}"
        );
    }

    #[test]
    fn labels_are_file_names_unless_they_repeat() {
        let r = || Record::Run(Box::new(fixture::run()));
        let d = Dataset::from_records(vec![
            ("a/r.json".into(), r()),
            ("b/r.json".into(), r()),
            ("c/s.json".into(), r()),
        ]);
        let labels: Vec<&str> = d.runs.iter().map(|i| i.label.as_str()).collect();
        assert_eq!(labels, ["a/r.json", "b/r.json", "s.json"]);
        assert_eq!(d.primary().unwrap().label, "s.json");
    }

    #[test]
    fn a_missing_file_is_a_read_error() {
        let e = load(Path::new("/nonexistent/kembench.json")).unwrap_err();
        assert!(matches!(e, LoadError::Read { .. }), "{e:?}");
    }
}
