//! The console table of `list`: the catalog joined with the selected implementations.

use super::{num, table, Width};
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

/// Each standard of `rows` with its algorithms, in catalog order: what the table says per row
/// when the standard column fits.
fn print_standards(rows: &[Row]) {
    let mut standards: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in rows {
        let a = r.algorithm;
        match standards.iter_mut().find(|(s, _)| *s == a.standard) {
            Some((_, names)) => names.push(a.name),
            None => standards.push((a.standard, vec![a.name])),
        }
    }
    println!("Standards (a column of `kembench list --wide`):");
    for (standard, names) in standards {
        print!(
            "{}",
            super::prose(
                Width::Fit,
                &super::clean(&format!("{standard}: {}", names.join(", ")))
            )
        );
    }
}

/// The table of `rows`, the providers and versions of `impls`, and what is `unavailable`: in
/// [`Width::Fit`], the headline columns within [`super::WIDTH`] (the implementations wrapped),
/// in [`Width::Wide`] every column, each row on one line.
pub fn print(rows: &[Row], impls: &[Arc<dyn Kem>], unavailable: &[Unavailable], layout: Width) {
    let wide = layout == Width::Wide;
    // The specification in both layouts: two specifications of one scheme (HQC round 4 and
    // the 2025-08-22 one) are two algorithms, and a row must say which it is.
    let mut header = vec!["algorithm", "family", "standard"];
    header.push(if wide { "NIST level" } else { "level" });
    if wide {
        header.extend(["classical bits", "IND-CCA"]);
    }
    if wide {
        header.extend(["pk", "sk", "ct", "ss", "wire", "implementations"]);
    } else {
        header.extend(["pk", "ct", "wire", "implementations"]);
    }
    let mut t = table(&header);
    for r in rows {
        let a = r.algorithm;
        let ids: Vec<&str> = r.implementations.iter().map(|i| i.id.as_str()).collect();
        let mut row = vec![
            comfy_table::Cell::new(super::clean(a.name)),
            comfy_table::Cell::new(a.family),
            comfy_table::Cell::new(a.standard),
        ];
        row.push(num(a.nist_level.map_or("-".to_string(), |l| l.to_string())));
        if wide {
            row.extend([
                num(a.classical_bits),
                comfy_table::Cell::new(if a.ind_cca { "yes" } else { "no" }),
            ]);
        }
        row.push(num(a.pk_len));
        if wide {
            row.push(num(a.sk_len));
        }
        row.push(num(a.ct_len));
        if wide {
            row.push(num(a.ss_len));
        }
        row.extend([
            num(r.wire_bytes),
            comfy_table::Cell::new(super::clean(&ids.join(", "))),
        ]);
        t.add_row(row);
    }
    if !wide {
        // The standard wraps at its spaces, the implementations between ids, never inside one;
        // where the standard still does not fit (the whole catalog: its longest word is a
        // draft's name), it is left out of the table and named below it instead.
        super::fit(&mut t, &[2, header.len() - 1], &[2]);
    }
    println!("{t}");
    if t.column(2).is_some_and(|c| c.is_hidden()) {
        print_standards(rows);
    }
    let providers: BTreeSet<&str> = impls.iter().map(|k| k.meta().provider()).collect();
    print!(
        "{}",
        super::prose(
            layout,
            &format!(
                "{} (algorithm, implementation) pairs, {} algorithms, {} providers: {}",
                impls.len(),
                rows.len(),
                providers.len(),
                providers.into_iter().collect::<Vec<_>>().join(", ")
            )
        )
    );
    let mut versions: Vec<(String, String)> = impls
        .iter()
        .map(|k| (k.meta().implementation.clone(), k.meta().version.clone()))
        .collect();
    versions.sort();
    versions.dedup();
    for (id, v) in versions {
        println!("  {:<18} {}", super::clean(&id), super::clean(&v));
    }
    for u in unavailable {
        print!(
            "{}",
            super::prose(
                layout,
                &super::clean(&format!("not available here: {} ({})", u.label, u.reason))
            )
        );
    }
    print!(
        "{}",
        super::prose(
            layout,
            "Key exchange is measured as a KEM (DHKEM roles): pk = receiver's public value, ct = \
             ephemeral public value, ss = raw DH output; wire = pk + ct."
        )
    );
    if !wide {
        println!(
            "Secret-key and shared-secret bytes, classical bits and IND-CCA: `kembench list \
             --wide` (or --json)."
        );
    }
}
