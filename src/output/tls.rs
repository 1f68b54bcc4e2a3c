//! The console tables of a tls run: CPU per handshake on each side, the flights against TCP's
//! initial window, the cores for the target rate beside the bare-KEM model, scaling across
//! threads, and handshake times under network conditions; then the groups a stack lacks,
//! errors and network conditions skipped. The tables are described once, with the record
//! ([`crate::record::tls::tables`]).
//!
//! [`Width::Fit`] keeps every table within [`super::WIDTH`] columns; [`Width::Wide`] shows
//! every figure.

use super::Width;
use crate::record::tls::TlsRecord;
use crate::table::Described;

/// The console output of a tls run, each line ending in a newline: the tables, then the
/// lines that explain them. Printed by `show` for a stored run and by `tls` after a run.
pub fn tables(record: &TlsRecord, layout: Width) -> String {
    super::described(&record.tables(&record.results), layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::output::WIDTH;

    #[test]
    fn the_default_tables_fit_and_name_every_group_once_per_table() {
        let text = tables(&fixture::tls(), Width::Fit);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= WIDTH, "{widest}\n{text}");
        // CPU, flights, capacity, scaling, network: the hybrid group named once in each.
        assert_eq!(
            text.lines()
                .filter(|l| l.starts_with('│') && l.contains("X25519MLKEM768"))
                .count(),
            5,
            "{text}"
        );
        assert!(text.contains("15,000 B / 11 > initcwnd"), "{text}");
        assert!(text.contains("1216 / 1120"), "{text}");
        assert!(text.contains("25% / 50%"), "{text}");
        assert!(text.contains("rtt30-loss3"), "{text}");
        assert!(text.contains("661 ms"), "the lossy p95: {text}");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains(
                "Unavailable: MLKEM1024@openssl/ecdsa-p256: OpenSSL 3.0.0 has no <MLKEM1024> group"
            ),
            "{flat}"
        );
        assert!(
            flat.contains("Network conditions not measured for secp256r1@openssl/rsa2048"),
            "{flat}"
        );
        assert!(
            flat.contains("delay by relay, loss by nft numgen random"),
            "{flat}"
        );
        assert!(!text.contains("server p25 – p75"));
    }

    #[test]
    fn the_wide_tables_add_quartiles_best_rounds_and_mechanisms() {
        let text = tables(&fixture::tls(), Width::Wide);
        for column in [
            "server p25 – p75",
            "client best round",
            "measured RTT",
            "relay / nft numgen random / none",
            "15,000 B / 4 rec / 11 > initcwnd",
            "1.26 s",
        ] {
            assert!(text.contains(column), "{column}: {text}");
        }
    }

    #[test]
    fn long_names_still_fit() {
        let mut r = fixture::tls();
        for x in &mut r.results {
            x.group = "SecP384r1MLKEM1024".into();
            x.stack = "openssl".into();
            x.cert = "ecdsa-p384".into();
        }
        let text = tables(&r, Width::Fit);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= WIDTH, "{widest}\n{text}");
    }

    #[test]
    fn a_run_with_nothing_measured_says_why() {
        let mut r = fixture::tls();
        r.results.retain(|x| x.unavailable.is_some());
        let text = tables(&r, Width::Fit);
        assert!(!text.contains('│'), "no table: {text}");
        assert!(text.starts_with("Unavailable: MLKEM1024"), "{text}");
    }
}
