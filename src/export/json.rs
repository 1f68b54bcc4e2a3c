//! JSON: the whole record, raw samples and environment included, pretty-printed. The same
//! layout for every kind: the header's fields, then `results`.

use super::Layout;
use crate::record::{Kind, Record};

/// Pretty-printed JSON.
pub struct Json;

/// The elements of `results` sit two levels deep: four spaces.
const ITEM_INDENT: &str = "    ";

impl<K: Kind> Layout<K> for Json {
    fn head(&self, r: &Record<K>) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(&r.without_results())?;
        // The header ends with `"results": []` and the closing brace; keep the open bracket.
        let end = v.len() - b"[]\n}".len();
        anyhow::ensure!(v[end..] == *b"[]\n}", "unexpected end of a record header");
        v.truncate(end + 1);
        Ok(v)
    }

    fn item(&self, _r: &Record<K>, index: usize, item: &K::Result) -> anyhow::Result<Vec<u8>> {
        let text = String::from_utf8(serde_json::to_vec_pretty(item)?)?;
        let mut out = String::with_capacity(text.len() + text.len() / 8);
        out.push_str(if index == 0 { "\n" } else { ",\n" });
        for (i, line) in text.lines().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            // JSON strings hold no raw line breaks, so every line is a line of structure.
            out.push_str(ITEM_INDENT);
            out.push_str(line);
        }
        Ok(out.into_bytes())
    }

    fn tail(&self, _r: &Record<K>, count: usize) -> anyhow::Result<Vec<u8>> {
        Ok(if count == 0 { "]\n}\n" } else { "\n  ]\n}\n" }
            .as_bytes()
            .to_vec())
    }

    fn whole(&self, r: &Record<K>) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(r)?;
        v.push(b'\n');
        Ok(v)
    }
}

impl super::Exporter for Json {
    fn name(&self) -> &'static str {
        "json"
    }

    fn about(&self) -> &'static str {
        "every statistic, the raw samples and the environment, as JSON"
    }
}

#[cfg(test)]
mod tests {
    use crate::export::Format;
    use crate::record::latency::LatencyRecord;

    #[test]
    fn snapshot_and_round_trip() {
        let run = super::super::fixture::run();
        let bytes = Format::JSON.serialize(&run).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        insta::assert_snapshot!(text);
        let back: LatencyRecord = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back.results.len(), run.results.len());
        assert_eq!(back.schema_version, crate::record::latency::SCHEMA_VERSION);
    }

    #[test]
    fn throughput_round_trips() {
        let r = super::super::fixture::throughput();
        let bytes = Format::JSON.serialize(&r).unwrap();
        let back: crate::record::throughput::ThroughputRecord =
            serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            back.results[0].operations[0].points,
            r.results[0].operations[0].points
        );
        assert_eq!(
            back.schema_version,
            crate::record::throughput::SCHEMA_VERSION
        );
    }

    /// The tls fixture the CLI tests read (`tests/data/tls.json`) is frozen: written once from
    /// [`super::super::fixture::tls`], since edited by hand only, and checked against the
    /// specifications and its own figures in `tests/fixtures.rs`, never regenerated from the
    /// code it tests. Here: kembench reads it.
    #[test]
    fn the_frozen_tls_fixture_reads_as_a_tls_record() {
        let file = include_bytes!("../../tests/data/tls.json");
        let back: crate::record::tls::TlsRecord = serde_json::from_slice(file).unwrap();
        assert_eq!(back.results.len(), 3);
    }

    /// The ct fixture (`tests/data/ct.json`), frozen likewise and checked in
    /// `tests/fixtures.rs`. Here: kembench reads it.
    #[test]
    fn the_frozen_ct_fixture_reads_as_a_ct_record() {
        let file = include_bytes!("../../tests/data/ct.json");
        let back: crate::record::ct::CtRecord = serde_json::from_slice(file).unwrap();
        assert_eq!(back.results.len(), 4);
    }
}
