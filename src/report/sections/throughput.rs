//! Throughput: one small chart per (algorithm, implementation) of each throughput file
//! ([`chart`]), the table of every point, and the TLS 1.3 capacity derived from them.

pub mod chart;

use super::common::{h3, say};
use super::environment::record_facts;
use super::intro::line;
use super::method::para;
use super::{Context, KindParts, Section};
use crate::report::data::Dataset;
use crate::report::doc::{strong, text, Para};
use crate::units;

use crate::record::scaling::calc::{LATENCY_TOLERANCE, SUPERLINEAR_TOLERANCE};
use crate::record::throughput::Throughput;
use crate::report::doc::{Block, Table};
use crate::table::{Described, Tables};

/// The throughput section.
pub const SECTION: Section = Section::new("throughput", "Throughput", build);

/// What the report's intro, environment and method say of this kind's records.
pub const PARTS: KindParts = KindParts {
    intro,
    environment,
    method,
};

/// The intro's line for each record of this kind.
fn intro(data: &Dataset) -> Vec<Para> {
    let mut out = Vec::new();
    for t in data.of::<Throughput>() {
        out.push(line(
            format!("throughput ({})", t.label),
            "",
            &t.record,
            vec![text(if t.record.config.processes {
                ", independent processes."
            } else {
                ", threads."
            })],
        ));
    }
    out
}

/// Each record's heading and facts under "Environment".
fn environment(data: &Dataset, blocks: &mut Vec<Block>) {
    for (i, input) in data.of::<Throughput>().iter().enumerate() {
        let r = &input.record;
        let facts = vec![(
            "counts".into(),
            format!(
                "{} {:?}, {} per point, {} repeat(s){}",
                if r.config.processes {
                    "processes"
                } else {
                    "threads"
                },
                r.config.threads,
                units::ns(r.config.duration_s * 1e9),
                r.config.repeats,
                if r.config.pinned { ", pinned" } else { "" }
            ),
        )];
        let id = format!("environment-throughput-{}", i + 1);
        let heading = format!("throughput ({})", input.label);
        record_facts(blocks, &id, &heading, r, facts);
    }
}

/// What the method says of this kind, when the report has records of it.
fn method(data: &Dataset, blocks: &mut Vec<Block>) {
    if !data.of::<Throughput>().is_empty() {
        para(
            blocks,
            vec![
                strong("Throughput. "),
                text(
                    "Every thread prepares its own inputs and counts locally; all start \
                     together after a barrier and stop on a flag after the window. Thread \
                     counts are measured in rotation and the median repeat is reported. \
                     Efficiency is the speed-up over min(threads, logical CPUs).",
                ),
            ],
        );
    }
}

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
