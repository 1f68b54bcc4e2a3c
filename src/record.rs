//! Results records as files and the store hold them: `kembench run` and
//! `kembench throughput` records, told apart by their `kind` field, with their schema version
//! checked before they are parsed.

use crate::run::result::{self, RunRecord};
use crate::throughput::record::{self as tp, ThroughputRecord};
use std::path::Path;

/// `kind` of a `run --json` file.
pub const RUN_KIND: &str = "kembench-run";
/// `kind` of a `throughput --json` file.
pub const THROUGHPUT_KIND: &str = "kembench-throughput";

/// Why a file (or stored record) could not be read as a results record.
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
    /// A known `kind`, but not the one the command reads.
    #[error("{path} holds a '{kind}' record, not {}", noun(wanted))]
    WrongKind {
        /// The file.
        path: String,
        /// The kind found.
        kind: String,
        /// The kind wanted.
        wanted: &'static str,
    },
    /// A `kind` kembench does not read.
    #[error(
        "{path} holds a '{kind}' record; kembench reads '{RUN_KIND}' and '{THROUGHPUT_KIND}' files"
    )]
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

/// What a record of `kind` is, for messages.
fn noun(kind: &str) -> &'static str {
    if kind == RUN_KIND {
        "a run (`kembench run --json`)"
    } else {
        "a throughput run (`kembench throughput --json`)"
    }
}

/// Parses the bytes of a result file; `path` names it in errors.
pub fn parse(path: &str, bytes: &[u8]) -> Result<Record, LoadError> {
    parse_as(path, bytes, None)
}

/// Parses the bytes of a result file that must hold a `wanted` record (when given): a
/// record of another kind is refused before its fields are looked at.
pub fn parse_as(
    path: &str,
    bytes: &[u8],
    wanted: Option<&'static str>,
) -> Result<Record, LoadError> {
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
    if let Some(wanted) = wanted.filter(|w| *w != kind) {
        return Err(LoadError::WrongKind {
            path: path.to_string(),
            kind,
            wanted,
        });
    }
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
    load_as(path, None)
}

/// Reads and parses one result file that must hold a `wanted` record (when given).
pub fn load_as(path: &Path, wanted: Option<&'static str>) -> Result<Record, LoadError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Read {
        path: name.clone(),
        source,
    })?;
    parse_as(&name, &bytes, wanted)
}
