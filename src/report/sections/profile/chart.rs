//! Where a profile's instructions go: one stacked bar per (algorithm, implementation,
//! operation), split into the primitive shares of seed 0's call (Keccak, SHA-2, AES, the RNG,
//! bignum arithmetic, the rest), a thin line between implementations.

use crate::callgrind::Primitive;
use crate::record::profile::ProfileRecord;
use crate::report::charts::stacked::{stacked, Stacked};
use crate::report::charts::{pair_label, truncate, LegendEntry, Shape, PALETTE};
use crate::report::doc::{Chart, Embed};
use plotters::style::RGBColor;

/// The fixed colour of a primitive; the rest ("other") is grey so that the primitives stand
/// out.
pub fn primitive_color(p: Primitive) -> RGBColor {
    match p {
        Primitive::Keccak => PALETTE[0],
        Primitive::Sha2 => PALETTE[1],
        Primitive::Aes => PALETTE[2],
        Primitive::Rng => PALETTE[4],
        Primitive::Bignum => PALETTE[6],
        Primitive::Other => PALETTE[9],
    }
}

/// The chart, or `None` when no operation was profiled.
pub fn chart(record: &ProfileRecord) -> anyhow::Result<Option<Chart>> {
    let mut rows = Vec::new();
    let mut group_starts = Vec::new();
    for r in record.results.iter().filter(|r| !r.operations.is_empty()) {
        group_starts.push(rows.len());
        let pair = truncate(&pair_label(&r.algorithm, &r.implementation), 40);
        for o in &r.operations {
            let shares = Primitive::ALL.map(|p| o.analysis.share(p)).to_vec();
            rows.push((format!("{pair} · {}", o.operation.as_str()), shares));
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let svg = stacked(&Stacked {
        parts: Primitive::ALL
            .iter()
            .map(|p| LegendEntry::new(p.label(), primitive_color(*p), Shape::Block))
            .collect(),
        rows,
        group_starts,
        x_desc: "share of instructions (callgrind, seed 0)",
    })?;
    Ok(Some(Chart {
        id: "chart-profile-shares".into(),
        title: "Where each operation's instructions go".into(),
        caption: "Seed 0's call of each operation under callgrind, its instructions split by \
                  the outermost primitive on each call stack (AES inside a DRBG counts as RNG); \
                  other is the algorithm's own arithmetic, copies and allocation."
            .into(),
        svg,
        family: None,
        embed: Embed::Inline,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    #[test]
    fn one_bar_per_profiled_operation() {
        let c = chart(&fixture::profile()).unwrap().unwrap();
        assert!(c.svg.contains("MockKEM · mock/correct · keygen"));
        assert!(c.svg.contains("MockKEM · mock/correct · encaps"));
        assert!(!c.svg.contains("broken"), "nothing profiled, no bar");
        for p in Primitive::ALL {
            let text = format!(">\n{}\n<", p.label());
            assert!(c.svg.contains(&text), "{p:?} in the legend");
        }
        assert!(
            c.svg.contains(">\n54%\n<"),
            "the Keccak share is written on its segment"
        );
        let mut none = fixture::profile();
        none.results.retain(|r| r.operations.is_empty());
        assert!(chart(&none).unwrap().is_none());
    }
}
