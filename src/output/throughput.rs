//! The console tables of a throughput run: rates per thread count, then TLS capacity. The
//! tables are described once, with the record ([`crate::record::throughput::tables`]).
//!
//! [`Width::Fit`] keeps them within [`super::WIDTH`] columns: the per-thread range becomes
//! the spread between the fastest and slowest thread, names repeated from the row above are
//! blanked, and flags and errors become numbered notes under the table. [`Width::Wide`]
//! shows every figure and message in its row.

use super::Width;
use crate::record::throughput::ThroughputRecord;
use crate::table::Described;

/// The console tables of a throughput run and the lines that explain them, each line ending
/// in a newline.
pub fn tables(record: &ThroughputRecord, layout: Width) -> String {
    super::described(&record.tables(&record.results), layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::output::WIDTH;

    /// The fixture under the longest real names, with long flags on its points and a second
    /// implementation that failed.
    fn record() -> ThroughputRecord {
        let mut t = fixture::throughput();
        let mut r = t.results[0].clone();
        r.algorithm = "Classic-McEliece-6688128".into();
        r.implementation = "libcrux/portable".into();
        for o in &mut r.operations {
            o.flags = vec!["one-thread rate 20043/s is -52% from 1/median latency (41804/s): a measurement problem".into()];
            o.points[1].flags = vec!["super-linear: 20% above the ideal 2x, a measurement problem (shared state, turbo, or a noisy one-thread run)".into()];
        }
        let failed = crate::record::throughput::ThroughputResult {
            algorithm: "X25519MLKEM768".into(),
            implementation: "openssl".into(),
            operations: Vec::new(),
            capacity: None,
            error: Some("not measured: correctness check failed: trip 1: decapsulated secret differs, and more words to make it long".into()),
            ..r.clone()
        };
        t.results = vec![r, failed];
        t
    }

    #[test]
    fn the_default_tables_fit_with_flags_and_errors_under_them() {
        let text = tables(&record(), Width::Fit);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= WIDTH, "{text}");
        assert_eq!(
            text.matches("Classic-McEliece-6688128").count(),
            1 + 6 + 1,
            "{text}"
        );
        assert!(
            text.lines()
                .any(|l| l.contains("X25519MLKEM768") && l.contains("FAILED") && l.contains("[7]")),
            "{text}"
        );
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("[1] Classic-McEliece-6688128@libcrux/portable keygen at 1 thread: one-thread rate 20043/s"), "{flat}");
        assert!(
            flat.contains(
                "[2] Classic-McEliece-6688128@libcrux/portable keygen at 2 threads: super-linear"
            ),
            "{flat}"
        );
        assert!(
            flat.contains("[7] X25519MLKEM768@openssl: not measured: correctness check failed"),
            "{flat}"
        );
        assert!(text.contains("spread"), "{text}");
        assert!(!text.contains("per-thread min – max"));
    }

    #[test]
    fn the_wide_tables_keep_every_figure_in_its_row() {
        let text = tables(&record(), Width::Wide);
        assert!(text.contains("per-thread min – max"));
        assert!(text.contains("server hs/s/core"));
        assert!(text
            .lines()
            .any(|l| l.contains("keygen") && l.contains("one-thread rate 20043/s")));
    }
}
