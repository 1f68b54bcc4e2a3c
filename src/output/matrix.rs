//! The console builds matrix of a run (see [`crate::record::run::matrix`]): per algorithm, rows
//! of source × compiler, a column per flag set, each cell the build's fastest-round median with
//! its ratio to the baseline and its deepest stack.

use super::{table, wrap, Width};
use crate::measure::sampler::Op;
use crate::record::run::matrix::{matrices, Matrix};
use crate::record::run::RunRecord;
use crate::units;
use comfy_table::Cell;

fn one(m: &Matrix) -> String {
    let mut header: Vec<String> = vec!["source / compiler".into()];
    header.extend(m.flag_sets.iter().map(|f| {
        let f = if f.is_empty() { "(no flags)" } else { f };
        if crate::kem::flags_unoptimised(f) {
            format!("{f} (unoptimised)")
        } else {
            f.to_string()
        }
    }));
    let h: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = table(&h);
    for r in &m.rows {
        let mut cells = vec![Cell::new(format!("{}\n{}", r.source, r.compiler))];
        for c in &r.cells {
            cells.push(Cell::new(match c {
                None => "–".to_string(),
                Some(c) => format!(
                    "{}{}\n{}stack {}",
                    units::ns(c.median_ns),
                    if c.fastest { " ★" } else { "" },
                    c.ratio
                        .map(|r| format!("×{}  ", units::sig3(r)))
                        .unwrap_or_default(),
                    c.max_stack_bytes.map_or("–".into(), units::bytes),
                ),
            }));
        }
        t.add_row(cells);
    }
    let mut out = format!(
        "Builds of {}: {} per build (fastest round's median; ratio to {}); ★ fastest\n",
        m.algorithm,
        m.operation.as_str(),
        m.baseline.as_deref().unwrap_or("no baseline")
    );
    out.push_str(&format!("{t}\n"));
    let mut notes = Vec::new();
    if let Some(f) = &m.fastest {
        notes.push(format!(
            "Fastest build (SUPERCOP's choice; every timed build passed the gate): {f}."
        ));
    }
    if let Some((r, f, x)) = &m.speedup {
        notes.push(format!("Reference → fastest: {r} → {f}, {x:.2}× faster."));
    }
    if m.rows
        .iter()
        .flat_map(|r| &r.cells)
        .flatten()
        .any(|c| c.unoptimised)
    {
        notes.push(
            "Columns marked unoptimised were built without -O: no speed-up is quoted against \
             them unless nothing else was built."
                .into(),
        );
    }
    for n in notes {
        out.push_str(&wrap(&n, 2));
    }
    out
}

/// The matrices of a run's builds (empty when the run measured fewer than two builds of an
/// algorithm): the exchange, and with [`Width::Wide`] every operation (keygen, encaps,
/// decaps too).
pub fn render(rec: &RunRecord, layout: Width) -> String {
    let ops: &[Op] = match layout {
        Width::Fit => &[Op::Exchange],
        Width::Wide => &[Op::Exchange, Op::Keygen, Op::Encaps, Op::Decaps],
    };
    ops.iter()
        .flat_map(|op| matrices(rec, *op))
        .map(|m| one(&m))
        .collect::<Vec<_>>()
        .join("\n")
}
