//! Throughput: one small chart per (algorithm, implementation) of each throughput file
//! ([`chart`]), the table of every point, and the TLS 1.3 capacity derived from them.

pub mod chart;

use super::common::{catalog_tags, h3, int_cell, op_cell, pct_cell, say};
use super::{Context, Section};
use crate::record::throughput::calc::{LATENCY_TOLERANCE, SUPERLINEAR_TOLERANCE};
use crate::record::throughput::ThroughputResult;
use crate::report::doc::{Block, Cell, Mark, Table, Tags};
use crate::units;

/// The throughput section.
pub const SECTION: Section = Section::new("throughput", "Throughput", build);

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let records = &ctx.data.throughputs;
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
    let mut t = Table::new(
        "table-throughput",
        &[
            "file",
            "algorithm",
            "implementation",
            "op",
            "threads#",
            "ops/s#",
            "per-thread min – max",
            "speedup#",
            "efficiency#",
            "flags",
        ],
    )
    .folded();
    let mut caps = Table::new(
        "table-capacity",
        &[
            "file",
            "algorithm",
            "implementation",
            "basis threads#",
            "server handshakes/s/core#",
            "client handshakes/s/core#",
            "target connections/s#",
            "server cores#",
            "client cores#",
        ],
    );
    for input in records {
        let rec = &input.record;
        let unit = if rec.config.processes {
            " (processes)"
        } else {
            ""
        };
        for r in &rec.results {
            let tg = Some(throughput_tags(r));
            if let Some(e) = &r.error {
                t.push(
                    vec![
                        Cell::text(&input.label),
                        Cell::text(&r.algorithm),
                        Cell::text(&r.implementation),
                        Cell::text("-"),
                        Cell::text("-"),
                        Cell::text("-"),
                        Cell::text("-"),
                        Cell::text("-"),
                        Cell::text("-"),
                        Cell::text(format!("error: {e}")).marked(Mark::Bad),
                    ],
                    tg.clone(),
                );
            }
            for o in &r.operations {
                for p in &o.points {
                    let flags: Vec<&str> =
                        o.flags.iter().chain(&p.flags).map(String::as_str).collect();
                    let flag_cell = Cell::text(flags.join("; "));
                    t.push(
                        vec![
                            Cell::text(format!("{}{unit}", input.label)),
                            Cell::text(&r.algorithm),
                            Cell::text(&r.implementation),
                            op_cell(o.operation),
                            int_cell(p.threads as u64),
                            Cell::num(units::count(p.total_ops_per_sec), p.total_ops_per_sec),
                            Cell::num(
                                format!(
                                    "{} – {}",
                                    units::count(p.min_thread_rate()),
                                    units::count(p.max_thread_rate())
                                ),
                                p.min_thread_rate(),
                            ),
                            Cell::num(format!("{:.2}×", p.speedup), p.speedup),
                            pct_cell(p.efficiency),
                            if flags.is_empty() {
                                flag_cell
                            } else {
                                flag_cell.marked(Mark::Warn)
                            },
                        ],
                        tg.clone(),
                    );
                }
            }
            if let Some(c) = &r.capacity {
                caps.push(
                    vec![
                        Cell::text(format!("{}{unit}", input.label)),
                        Cell::text(&r.algorithm),
                        Cell::text(&r.implementation),
                        int_cell(c.basis_threads as u64),
                        Cell::num(
                            units::count(c.server_handshakes_per_sec_per_core),
                            c.server_handshakes_per_sec_per_core,
                        ),
                        Cell::num(
                            units::count(c.client_handshakes_per_sec_per_core),
                            c.client_handshakes_per_sec_per_core,
                        ),
                        Cell::num(units::count(c.target_rate), c.target_rate),
                        Cell::num(
                            format!("{:.1}", c.server_cores_for_target),
                            c.server_cores_for_target,
                        ),
                        Cell::num(
                            format!("{:.1}", c.client_cores_for_target),
                            c.client_cores_for_target,
                        ),
                    ],
                    tg,
                );
            }
        }
    }
    blocks.push(Block::Table(t));
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

/// Tags of a throughput result (throughput files do not record the level).
fn throughput_tags(r: &ThroughputResult) -> Tags {
    catalog_tags(&r.family, &r.algorithm, &r.implementation)
}
