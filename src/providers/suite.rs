//! The default suite: the standardized and main candidate KEMs at NIST levels 1, 3 and 5, one
//! or two implementations each, beside the classical baselines, sized to finish in about three
//! minutes on a 2-core machine. `--all` runs every implementation instead.

use super::{Filter, Registry, SelectError};
use crate::kem::Kem;
use std::sync::Arc;

/// Suite entries: `algorithm@implementation`, with `|`-separated fallbacks tried in order when
/// the first is not available on this CPU (AVX2 variants).
pub const DEFAULT_SUITE: &[&str] = &[
    "ML-KEM-512@liboqs",
    "ML-KEM-768@liboqs",
    "ML-KEM-1024@liboqs",
    "ML-KEM-512@aws-lc",
    "ML-KEM-768@aws-lc",
    "ML-KEM-1024@aws-lc",
    "ntruhps2048509@pqclean/avx2|ntruhps2048509@pqclean/clean",
    "ntruhrss701@pqclean/avx2|ntruhrss701@pqclean/clean",
    "ntruhps4096821@pqclean/avx2|ntruhps4096821@pqclean/clean",
    "sntrup761@liboqs",
    "FrodoKEM-640-AES@liboqs",
    "FrodoKEM-976-AES@liboqs",
    "FrodoKEM-1344-AES@liboqs",
    "HQC-128@liboqs",
    "HQC-192@liboqs",
    "HQC-256@liboqs",
    // HQC of the 2025-08-22 specification (FIPS 207 draft), one parameter set beside round 4's:
    // another algorithm, never ranked as HQC-128.
    "HQC-1@rustcrypto",
    "BIKE-L1@liboqs",
    "BIKE-L3@liboqs",
    "BIKE-L5@liboqs",
    "Classic-McEliece-348864@liboqs",
    "Classic-McEliece-460896@liboqs",
    "Classic-McEliece-6688128@liboqs",
    "X25519MLKEM768@openssl",
    "X25519MLKEM768@rustls/aws-lc-rs",
    "X25519@aws-lc",
    "P-256@aws-lc",
    "ffdhe2048@openssl",
];

/// Resolves the suite against the labels available here: the chosen label per entry, and the
/// entries with no available alternative.
pub fn resolve(available: &[String]) -> (Vec<String>, Vec<String>) {
    let mut chosen = Vec::new();
    let mut missing = Vec::new();
    for entry in DEFAULT_SUITE {
        match entry
            .split('|')
            .find(|alt| available.iter().any(|a| a == alt))
        {
            Some(alt) => chosen.push(alt.to_string()),
            None => missing.push(entry.to_string()),
        }
    }
    (chosen, missing)
}

/// The implementations a run measures, and the selection's name.
pub type Selection = (Vec<Arc<dyn Kem>>, &'static str);

/// What `run` measures: the filters' selection when any filter is given, else every
/// implementation with `all`, else the default suite (warning about entries this build lacks).
/// Returns the implementations and the selection's name (`filtered`, `all`, `default`).
pub fn select(registry: &Registry, filter: &Filter, all: bool) -> Result<Selection, SelectError> {
    if !filter.is_empty() {
        return Ok((registry.select(filter)?, "filtered"));
    }
    if all {
        return Ok((registry.all().to_vec(), "all"));
    }
    let labels: Vec<String> = registry.all().iter().map(|k| k.meta().label()).collect();
    let (chosen, missing) = resolve(&labels);
    for m in &missing {
        eprintln!("warning: default suite entry {m} is not available in this build; skipped");
    }
    Ok((
        chosen.iter().filter_map(|c| registry.get(c)).collect(),
        "default",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::registry::Registry;

    #[test]
    fn every_suite_entry_resolves_in_the_default_build() {
        let r = Registry::new(false);
        let labels: Vec<String> = r.all().iter().map(|k| k.meta().label()).collect();
        let (chosen, missing) = resolve(&labels);
        assert!(missing.is_empty(), "{missing:?}");
        assert_eq!(chosen.len(), DEFAULT_SUITE.len());
        // Levels 1, 3 and 5 and the three classical baselines are all present.
        for needle in [
            "HQC-128@",
            "HQC-1@",
            "ML-KEM-512@",
            "ML-KEM-1024@",
            "X25519@",
            "P-256@",
            "ffdhe2048@",
        ] {
            assert!(chosen.iter().any(|c| c.starts_with(needle)), "{needle}");
        }
    }

    #[test]
    fn fallbacks_are_taken_in_order() {
        let avail = vec!["ntruhrss701@pqclean/clean".to_string()];
        let (chosen, _) = resolve(&avail);
        assert_eq!(chosen, vec!["ntruhrss701@pqclean/clean".to_string()]);
    }
}
