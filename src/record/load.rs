//! Reading records as files and the store hold them, told apart by their `kind` field, with
//! their schema version checked before they are parsed.

use super::{AnyRecord, RecordKind};
use std::path::Path;

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
    #[error("{path} holds a '{kind}' record, not {}", wanted.noun())]
    WrongKind {
        /// The file.
        path: String,
        /// The kind found.
        kind: String,
        /// The kind wanted.
        wanted: RecordKind,
    },
    /// A `kind` kembench does not read.
    #[error(
        "{path} holds a '{kind}' record; kembench reads {} files",
        known_kinds()
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

/// The file kinds this build reads, for messages.
fn known_kinds() -> String {
    RecordKind::ALL
        .iter()
        .map(|k| format!("'{}'", k.file_kind()))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Parses the bytes of a result file; `path` names it in errors.
pub fn parse(path: &str, bytes: &[u8]) -> Result<AnyRecord, LoadError> {
    parse_as(path, bytes, None)
}

/// Parses the bytes of a result file that must hold a `wanted` record (when given): a
/// record of another kind is refused before its fields are looked at.
pub fn parse_as(
    path: &str,
    bytes: &[u8],
    wanted: Option<RecordKind>,
) -> Result<AnyRecord, LoadError> {
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
    let Some(found_kind) = RecordKind::from_file_kind(&kind) else {
        return Err(LoadError::UnknownKind {
            path: path.to_string(),
            kind,
        });
    };
    let supported = found_kind.schema_version();
    if let Some(wanted) = wanted.filter(|w| *w != found_kind) {
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
    AnyRecord::from_value(found_kind, v).map_err(|e| malformed(e.to_string()))
}

/// Reads and parses one result file.
pub fn load(path: &Path) -> Result<AnyRecord, LoadError> {
    load_as(path, None)
}

/// Reads and parses one result file that must hold a `wanted` record (when given).
pub fn load_as(path: &Path, wanted: Option<RecordKind>) -> Result<AnyRecord, LoadError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Read {
        path: name.clone(),
        source,
    })?;
    parse_as(&name, &bytes, wanted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A valid run file, to mutate.
    fn valid() -> Vec<u8> {
        crate::export::Format::JSON
            .serialize(&crate::export::fixture::run())
            .unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Any bytes at all: an error or a record, never a panic.
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let _ = parse("fuzz.json", &bytes);
        }

        /// A valid file with bytes changed, cut short or grown: an error or a record, never
        /// a panic, and a record that parses also passes or fails `check` without a panic.
        #[test]
        fn mutated_files_never_panic(
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
            cut in any::<prop::sample::Index>(),
        ) {
            let mut b = valid();
            for (at, byte) in edits {
                let i = at.index(b.len());
                b[i] = byte;
            }
            if let Ok(AnyRecord::Latency(r)) = parse("fuzz.json", &b) {
                let _ = r.check();
            }
            let n = cut.index(b.len());
            let _ = parse("fuzz.json", &b[..n]);
        }
    }

    #[test]
    fn the_unmutated_file_parses_and_checks() {
        match parse("r.json", &valid()).unwrap() {
            AnyRecord::Latency(r) => r.check().unwrap(),
            other => panic!("{:?}", other.kind()),
        }
    }
}
