//! What the sections share: sub-headings and paragraphs, the cells every table formats the same
//! way (times, bytes, shares, levels, operations), a result's filter tags, and the opening of a
//! section drawn from the primary run.

use super::Context;
use crate::kem::catalog;
use crate::kem::Op;
use crate::record::latency::{BenchResult, LatencyRecord, OperationResult};
use crate::report::data::Input;
use crate::report::doc::{level_text, text, Block, Cell, Chart, Para, Tags};
use crate::units;

/// Adds a sub-heading (level 3) anchored at `id`. Section headings (level 2) are written by
/// [`super::build`] alone, from [`super::SECTIONS`].
pub fn h3(blocks: &mut Vec<Block>, id: &str, title: &str) {
    blocks.push(Block::Heading {
        level: 3,
        id: id.into(),
        text: title.into(),
    });
}

/// Adds a paragraph.
pub fn para(blocks: &mut Vec<Block>, spans: Para) {
    blocks.push(Block::Para(spans));
}

/// Adds a paragraph of plain text.
pub fn say(blocks: &mut Vec<Block>, s: impl Into<String>) {
    para(blocks, vec![text(s)]);
}

/// A NIST level cell (`classical` for none), sorted with classical first.
pub fn level_cell(level: Option<u8>) -> Cell {
    Cell::num(level_text(level), level.map_or(0.0, f64::from))
}

/// An operation cell, sorted in the order operations are measured.
pub fn op_cell(op: Op) -> Cell {
    let index = Op::ALL.iter().position(|o| *o == op).unwrap_or(0);
    Cell::num(op.as_str(), index as f64)
}

/// The filter tags of a result.
pub fn tags(r: &BenchResult) -> Option<Tags> {
    Some(Tags::new(&r.family, r.nist_level, &r.implementation))
}

/// Tags of an (algorithm, implementation) from a record that does not say its level
/// (throughput, profile): the level comes from the catalog, empty when the algorithm is
/// unknown.
pub fn catalog_tags(family: &str, algorithm: &str, implementation: &str) -> Tags {
    Tags::catalogued(family, catalog::level_of(algorithm), implementation)
}

/// A time in ns, with its unit.
pub fn ns_cell(v: f64) -> Cell {
    Cell::num(units::ns(v), v)
}

/// A whole number (a count of samples, threads, allocations).
pub fn int_cell(v: u64) -> Cell {
    Cell::num(v.to_string(), v as f64)
}

/// A size in bytes, with its unit; `n/a` when not measured.
pub fn bytes_cell(v: Option<u64>) -> Cell {
    match v {
        Some(b) => Cell::num(units::bytes(b), b as f64),
        None => Cell::text("n/a"),
    }
}

/// A fraction as a percentage with one decimal.
pub fn pct_cell(v: f64) -> Cell {
    Cell::num(format!("{:.1}%", v * 100.0), v)
}

/// The heading of the `i`-th run (from 0) where a section has one part per run.
pub fn run_heading(i: usize, input: &Input<LatencyRecord>) -> String {
    format!("run {} ({})", i + 1, input.label)
}

/// The results that passed their check and have measurements: what charts and tables show.
pub fn timed(run: &LatencyRecord) -> impl Iterator<Item = &BenchResult> {
    run.results
        .iter()
        .filter(|r| !r.correctness.failed() && !r.operations.is_empty())
}

/// Every operation of the [`timed`] results, with its result: one table row each.
pub fn timed_ops(run: &LatencyRecord) -> impl Iterator<Item = (&BenchResult, &OperationResult)> {
    timed(run).flat_map(|r| r.operations.iter().map(move |o| (r, o)))
}

/// The primary run; when no latency run was given, a paragraph saying so and `None`.
pub fn primary<'a>(ctx: &Context<'a>, blocks: &mut Vec<Block>) -> Option<&'a Input<LatencyRecord>> {
    if ctx.primary.is_none() {
        say(
            blocks,
            "No latency run given (`kembench run --json FILE`); nothing to show here.",
        );
    }
    ctx.primary
}

/// The one chart of a section drawn from the primary run. Returns that run when the chart was
/// drawn; says why and returns `None` when there is no run or nothing to chart.
pub fn single_chart<'a>(
    ctx: &Context<'a>,
    blocks: &mut Vec<Block>,
    chart: impl FnOnce(&LatencyRecord) -> anyhow::Result<Option<Chart>>,
    nothing: &str,
) -> anyhow::Result<Option<&'a LatencyRecord>> {
    let Some(input) = primary(ctx, blocks) else {
        return Ok(None);
    };
    let Some(c) = chart(&input.record)? else {
        say(blocks, nothing);
        return Ok(None);
    };
    blocks.push(Block::Charts {
        id: String::new(),
        charts: vec![c],
    });
    Ok(Some(&input.record))
}

/// The tables among `blocks`, in order (for the sections' tests).
#[cfg(test)]
pub fn tables(blocks: &[Block]) -> Vec<&crate::report::doc::Table> {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::Table(t) => Some(t),
            _ => None,
        })
        .collect()
}
