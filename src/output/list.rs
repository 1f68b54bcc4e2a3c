//! The console table of `list`: the catalog joined with the selected implementations.

use super::{num, table};
use crate::kem::{Algorithm, Kem};
use crate::providers::Unavailable;
use serde::Serialize;
use std::collections::BTreeSet;
use std::sync::Arc;

/// One implementation of an algorithm, as `list --json` shows it.
#[derive(Serialize)]
pub struct ImplRow {
    id: String,
    version: String,
    dispatch: &'static str,
    seeded_keygen: bool,
    seeded_encaps: bool,
}

/// One algorithm with its implementations, as `list --json` shows it.
#[derive(Serialize)]
pub struct Row {
    #[serde(flatten)]
    algorithm: &'static Algorithm,
    wire_bytes: usize,
    implementations: Vec<ImplRow>,
}

/// Groups selected implementations by algorithm, in catalog order.
pub fn rows(impls: &[Arc<dyn Kem>]) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    for k in impls {
        let m = k.meta();
        let r = ImplRow {
            id: m.implementation.clone(),
            version: m.version.clone(),
            dispatch: m.dispatch,
            seeded_keygen: k.seed_lens().keypair.is_some(),
            seeded_encaps: k.seed_lens().encaps.is_some(),
        };
        match rows
            .iter_mut()
            .find(|row| row.algorithm.name == m.algorithm.name)
        {
            Some(row) => row.implementations.push(r),
            None => rows.push(Row {
                algorithm: m.algorithm,
                wire_bytes: m.algorithm.wire_bytes(),
                implementations: vec![r],
            }),
        }
    }
    let order = |a: &Algorithm| {
        crate::kem::catalog::ALGORITHMS
            .iter()
            .position(|c| c.name == a.name)
            .unwrap_or(usize::MAX)
    };
    rows.sort_by_key(|r| order(r.algorithm));
    rows
}

/// The table of `rows`, the providers and versions of `impls`, and what is `unavailable`.
pub fn print(rows: &[Row], impls: &[Arc<dyn Kem>], unavailable: &[Unavailable]) {
    let mut t = table(&[
        "algorithm",
        "family",
        "standard",
        "NIST level",
        "classical bits",
        "IND-CCA",
        "pk",
        "sk",
        "ct",
        "ss",
        "wire",
        "implementations",
    ]);
    for r in rows {
        let a = r.algorithm;
        let ids: Vec<&str> = r.implementations.iter().map(|i| i.id.as_str()).collect();
        t.add_row(vec![
            comfy_table::Cell::new(a.name),
            comfy_table::Cell::new(a.family),
            comfy_table::Cell::new(a.standard),
            num(a.nist_level.map_or("-".to_string(), |l| l.to_string())),
            num(a.classical_bits),
            comfy_table::Cell::new(if a.ind_cca { "yes" } else { "no" }),
            num(a.pk_len),
            num(a.sk_len),
            num(a.ct_len),
            num(a.ss_len),
            num(r.wire_bytes),
            comfy_table::Cell::new(ids.join(", ")),
        ]);
    }
    println!("{t}");
    let providers: BTreeSet<&str> = impls.iter().map(|k| k.meta().provider()).collect();
    println!(
        "{} (algorithm, implementation) pairs, {} algorithms, {} providers: {}",
        impls.len(),
        rows.len(),
        providers.len(),
        providers.into_iter().collect::<Vec<_>>().join(", ")
    );
    let mut versions: Vec<(String, String)> = impls
        .iter()
        .map(|k| (k.meta().implementation.clone(), k.meta().version.clone()))
        .collect();
    versions.sort();
    versions.dedup();
    for (id, v) in versions {
        println!("  {id:<18} {v}");
    }
    for u in unavailable {
        println!("not available here: {} ({})", u.label, u.reason);
    }
    println!("Key exchange is measured as a KEM (DHKEM roles): pk = receiver's public value, ct = ephemeral public value, ss = raw DH output; wire = pk + ct.");
}
