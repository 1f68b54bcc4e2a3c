//! A profile's flame graphs, named for their files: one per (implementation, operation),
//! differential ones between the implementations of one algorithm (`profile --flamegraphs`),
//! and between two profiles (`compare --flamegraphs`). The commands write them into a folder.

use super::ProfileRecord;
use crate::callgrind;
use crate::record::Benchmark;

/// Flame graphs as (file name, SVG).
pub type Files = Vec<(String, String)>;

/// A file name for `label` and `what`: `ML-KEM-768@pqclean_avx2-keygen.svg`.
fn svg_name(label: &str, what: &str) -> String {
    format!("{}-{what}.svg", file_part(label))
}

/// `label` as part of a file name: letters, digits, `-`, `@` and `.` kept, anything else
/// (`/`, spaces) as `_` (`ML-KEM-768@pqclean_avx2`).
pub fn file_part(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-@.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Folded stacks with the parts of function names that say which variant of an
/// implementation they belong to taken out (`PQCLEAN_NTRUHRSS701_AVX2_poly_Rq_mul` and
/// `PQCLEAN_NTRUHRSS701_CLEAN_poly_Rq_mul` both become `PQCLEAN_NTRUHRSS701_poly_Rq_mul`;
/// `::avx2::` and `::portable::` path segments become `::`), so that a differential flame
/// graph of two variants matches the same function in both.
pub fn comparable(folded: &[callgrind::FoldedStack]) -> Vec<callgrind::FoldedStack> {
    const VARIANTS: [&str; 6] = [
        "_CLEAN_",
        "_AVX2_",
        "_AARCH64_",
        "_X86_64_",
        "_ref_",
        "_avx2_",
    ];
    const PATHS: [&str; 4] = ["::avx2::", "::portable::", "::neon::", "::x86_64::"];
    let frame = |f: &str| {
        let mut s = f.to_string();
        for v in VARIANTS {
            s = s.replace(v, "_");
        }
        for p in PATHS {
            s = s.replace(p, "::");
        }
        s
    };
    let mut merged: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    for f in folded {
        let key: Vec<String> = f.stack.split(';').map(frame).collect();
        *merged.entry(key.join(";")).or_default() += f.instructions;
    }
    merged
        .into_iter()
        .map(|(stack, instructions)| callgrind::FoldedStack {
            stack,
            instructions,
        })
        .collect()
}


/// One flame graph per (implementation, operation) of `record`, and for every algorithm with
/// several implementations profiled, a differential one per operation between the first and
/// each other.
pub fn all(record: &ProfileRecord) -> anyhow::Result<Files> {
    let mut w = Files::new();
    for r in &record.results {
        for o in &r.operations {
            let svg = r.flamegraph(o)?;
            w.push((svg_name(&r.label(), o.operation.as_str()), svg));
        }
    }
    for (i, a) in record.results.iter().enumerate() {
        let Some(base) = record.results[..i]
            .iter()
            .find(|b| b.algorithm == a.algorithm)
        else {
            continue;
        };
        for o in &a.operations {
            let Some(b) = base.op(o.operation) else {
                continue;
            };
            let svg = callgrind::differential(
                &comparable(&b.analysis.folded),
                &comparable(&o.analysis.folded),
                &format!(
                    "{} {}: {} → {}",
                    a.algorithm,
                    o.operation.as_str(),
                    base.implementation,
                    a.implementation
                ),
                "red: more instructions in the second, blue: fewer (function names without their variant prefix)",
            )?;
            let label = format!(
                "{}@{}-vs-{}",
                a.algorithm, base.implementation, a.implementation
            );
            w.push((svg_name(&label, o.operation.as_str()), svg));
        }
    }
    Ok(w)
}

/// One differential flame graph per (implementation, operation) present in both profiles,
/// `old` → `new`.
pub fn differences(old: &ProfileRecord, new: &ProfileRecord) -> anyhow::Result<Files> {
    let mut w = Files::new();
    for b in &new.results {
        let Some(a) = old.result(&b.algorithm, &b.implementation) else {
            continue;
        };
        for ob in &b.operations {
            let Some(oa) = a.op(ob.operation) else {
                continue;
            };
            let svg = callgrind::differential(
                &oa.analysis.folded,
                &ob.analysis.folded,
                &format!("{} {}: old → new", b.label(), ob.operation.as_str()),
                "red: more instructions in the new profile, blue: fewer",
            )?;
            w.push((
                svg_name(&format!("{}-diff", b.label()), ob.operation.as_str()),
                svg,
            ));
        }
    }
    Ok(w)
}
