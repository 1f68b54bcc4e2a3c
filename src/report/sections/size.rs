//! Speed against size: the chart ([`chart`]) and the sizes of each algorithm's fastest
//! implementation.

pub mod chart;

use super::common::{level_cell, ns_cell, single_chart, tags};
use super::{Context, Section};
use crate::report::doc::{Block, Cell, Table};
use crate::report::summary::fastest_implementations;
use crate::units;

/// The speed-against-size section.
pub const SECTION: Section = Section::new("size", "Speed against size", build);

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let Some(run) = single_chart(
        ctx,
        blocks,
        chart::chart,
        "No full-exchange measurements to plot.",
    )?
    else {
        return Ok(());
    };
    let mut t = Table::new(
        "table-sizes",
        &[
            "algorithm",
            "family",
            "level#",
            "public key#",
            "ciphertext#",
            "secret key#",
            "on the wire#",
            "fastest exchange#",
        ],
    );
    for f in fastest_implementations(run) {
        let Some(r) = run.result(&f.algorithm, &f.implementation) else {
            continue;
        };
        let b = |v: usize| Cell::num(units::bytes(v as u64), v as f64);
        t.push(
            vec![
                Cell::text(&r.algorithm),
                Cell::text(&r.family),
                level_cell(r.nist_level),
                b(r.pk_bytes),
                b(r.ct_bytes),
                b(r.sk_bytes),
                b(r.wire_bytes),
                ns_cell(f.exchange_ns),
            ],
            tags(r),
        );
    }
    blocks.push(Block::Table(t));
    Ok(())
}
