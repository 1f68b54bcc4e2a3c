//! CSV: one row per measurement, units in the column names. Each kind says its columns and
//! rows ([`Kind::CSV_HEADER`], [`Kind::csv_rows`]: per (algorithm, implementation, operation)
//! for latency runs, per (…, thread count) for throughput runs, per (group, stack, certificate)
//! and kind of handshake or network condition for tls runs); this file writes them with the
//! csv crate's quoting.

use super::Layout;
use crate::record::{Kind, Record};

/// Comma-separated values.
pub struct Csv;

/// Writes rows through the csv crate's quoting into bytes.
fn rows<R: AsRef<[u8]>>(rows: impl IntoIterator<Item = Vec<R>>) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        w.write_record(&row)?;
    }
    Ok(w.into_inner()?)
}

impl<K: Kind> Layout<K> for Csv {
    fn head(&self, _r: &Record<K>) -> anyhow::Result<Vec<u8>> {
        rows([K::CSV_HEADER.to_vec()])
    }

    fn item(&self, r: &Record<K>, _index: usize, item: &K::Result) -> anyhow::Result<Vec<u8>> {
        rows(K::csv_rows(r, item))
    }

    fn tail(&self, _r: &Record<K>, _count: usize) -> anyhow::Result<Vec<u8>> {
        Ok(Vec::new())
    }
}

impl super::Exporter for Csv {
    fn name(&self) -> &'static str {
        "csv"
    }

    fn about(&self) -> &'static str {
        "one CSV row per measurement, for spreadsheets"
    }
}

#[cfg(test)]
mod tests {
    use crate::export::Format;

    #[test]
    fn snapshot() {
        let run = super::super::fixture::run();
        let text =
            String::from_utf8(Format::by_name("csv").unwrap().serialize(&run).unwrap()).unwrap();
        let header_cols = text.lines().next().unwrap().split(',').count();
        assert!(text.lines().all(|l| l.split(',').count() == header_cols));
        // Apart from the snapshot: every operation of the record is a row whose samples and
        // median are the record's, read back by a CSV reader.
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let h = reader.headers().unwrap().clone();
        let col = |name: &str| h.iter().position(|c| c == name).unwrap();
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        let ops: Vec<_> = run
            .results
            .iter()
            .flat_map(|r| r.operations.iter().map(move |o| (r, o)))
            .collect();
        assert_eq!(rows.len(), ops.len());
        for (row, (r, o)) in rows.iter().zip(ops) {
            assert_eq!(&row[col("implementation")], r.implementation);
            assert_eq!(&row[col("operation")], o.operation.as_str());
            assert_eq!(
                row[col("samples")].parse::<u64>().unwrap(),
                o.samples as u64
            );
            let median: f64 = row[col("median_ns")].parse().unwrap();
            assert!((median - o.median_ns).abs() <= 1e-9 * o.median_ns.abs().max(1.0));
        }
        insta::assert_snapshot!(text);
    }

    #[test]
    fn throughput_snapshot() {
        let r = super::super::fixture::throughput();
        insta::assert_snapshot!(String::from_utf8(
            Format::by_name("csv").unwrap().serialize(&r).unwrap()
        )
        .unwrap());
    }

    #[test]
    fn tls_snapshot() {
        let r = super::super::fixture::tls();
        let bytes = Format::by_name("csv").unwrap().serialize(&r).unwrap();
        // Every row has the header's columns, whatever its section.
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        let width = reader.headers().unwrap().len();
        let sections: Vec<String> = reader
            .records()
            .map(|row| {
                let row = row.unwrap();
                assert_eq!(row.len(), width);
                row[0].to_string()
            })
            .collect();
        assert_eq!(
            sections,
            [
                "handshake",
                "handshake",
                "handshake",
                "network",
                "network",
                "network",
                "handshake",
                "unavailable"
            ]
        );
        insta::assert_snapshot!(String::from_utf8(bytes).unwrap());
    }

    #[test]
    fn ct_snapshot() {
        let r = super::super::fixture::ct();
        let bytes = Format::by_name("csv").unwrap().serialize(&r).unwrap();
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        let width = reader.headers().unwrap().len();
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert!(rows.iter().all(|r| r.len() == width));
        assert_eq!(
            rows.len(),
            9 + 9 + 9 + 7,
            "a row per (implementation, op, screen)"
        );
        insta::assert_snapshot!(String::from_utf8(bytes).unwrap());
    }
}
