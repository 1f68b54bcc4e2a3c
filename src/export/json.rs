//! JSON: the whole [`RunRecord`], raw samples and environment included.

use super::Exporter;
use crate::run::result::RunRecord;

/// Pretty-printed JSON.
pub struct Json;

impl Exporter for Json {
    fn serialize(&self, run: &RunRecord) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(run)?;
        v.push(b'\n');
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_and_round_trip() {
        let run = super::super::fixture::run();
        let bytes = Json.serialize(&run).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        insta::assert_snapshot!(text);
        let back: RunRecord = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back.results.len(), run.results.len());
        assert_eq!(back.schema_version, crate::run::result::SCHEMA_VERSION);
    }
}
