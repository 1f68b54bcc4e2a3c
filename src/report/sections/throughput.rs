//! Throughput: one small chart per (algorithm, implementation) of each throughput file
//! ([`chart`]), the table of every point, and the TLS 1.3 capacity derived from them.

pub mod chart;

use super::common::{h3, say};
use super::{Context, Section};
use crate::record::throughput::calc::{LATENCY_TOLERANCE, SUPERLINEAR_TOLERANCE};
use crate::record::throughput::Throughput;
use crate::report::doc::{Block, Table};
use crate::table::{Described, Tables};

/// The throughput section.
pub const SECTION: Section = Section::new("throughput", "Throughput", build);

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let records = &ctx.data.of::<Throughput>();
    if records.is_empty() {
        say(
            blocks,
            "No throughput file given (`kembench throughput --json FILE`).",
        );
        return Ok(());
    }
    let charts = chart::charts(records)?;
    say(
        blocks,
        format!(
            "Total operations per second against the number of threads (or processes), each \
             with its ideal: the one-thread rate times the count, up to the logical CPUs, \
             then flat. Points more than {:.0}% above ideal, and one-thread rates more than \
             {:.0}% away from 1/median latency, are flagged as measurement problems.",
            SUPERLINEAR_TOLERANCE * 100.0,
            LATENCY_TOLERANCE * 100.0
        ),
    );
    blocks.push(Block::Charts {
        id: "chart-throughput".into(),
        charts,
    });
    let described: Vec<(&str, Tables)> = records
        .iter()
        .map(|i| (i.label.as_str(), i.record.tables(&i.record.results)))
        .collect();
    let table = |id: &str| Table::described(id, described.iter().map(|(l, t)| (*l, t)));
    blocks.push(Block::Table(table("table-throughput")));
    let caps = table("table-capacity");
    if !caps.rows.is_empty() {
        h3(blocks, "capacity", "TLS 1.3 capacity");
        say(
            blocks,
            "The server encapsulates, the client makes a key pair and decapsulates; \
             handshakes per second per core come from the largest thread count not above \
             the logical CPUs.",
        );
        blocks.push(Block::Table(caps));
    }
    Ok(())
}
