//! TLS handshakes: the charts of the last tls run given ([`chart`]: handshakes per second, CPU
//! per handshake and the key exchange's part, bytes per flight against TCP segments, handshake
//! time against RTT and loss) and under each the table of its figures, for every tls run given;
//! then the groups a stack lacks and the network conditions not measured.

pub mod chart;

use super::common::{catalog_tags, h3, int_cell, ns_cell, pct_cell, say};
use super::{Context, Section};
use crate::record::tls::{Mode, Spread, TlsRecord, TlsResult, INITCWND, MSS};
use crate::report::data::Input;
use crate::report::doc::{text, Block, Cell, Chart, Mark, Table, Tags};
use crate::units;

/// The tls section.
pub const SECTION: Section = Section::new("tls", "TLS handshakes", build);

/// The cells that name a benchmark: file, group, stack, certificate.
fn names(input: &Input<TlsRecord>, r: &TlsResult) -> Vec<Cell> {
    vec![
        Cell::text(&input.label),
        Cell::text(&r.group),
        Cell::text(&r.stack),
        Cell::text(&r.cert),
    ]
}

/// The filter tags of a benchmark (the group's family and level from the catalog).
fn tags(r: &TlsResult) -> Option<Tags> {
    let family = crate::kem::catalog::find(&r.algorithm)
        .map_or(String::new(), |a| a.family.as_str().to_string());
    Some(catalog_tags(&family, &r.algorithm, &r.implementation))
}

/// A time in ms, sorted by its value.
fn ms_cell(v: f64) -> Cell {
    ns_cell(v * 1e6)
}

/// A `p25 – p75` cell of a spread in ns.
fn quartiles(s: &Spread) -> Cell {
    Cell::num(
        format!("{} – {}", units::ns(s.p25), units::ns(s.p75)),
        s.p25,
    )
}

/// Adds `chart` when there is one, under a sub-heading.
fn charted(blocks: &mut Vec<Block>, id: &str, title: &str, chart: Option<Chart>) {
    h3(blocks, id, title);
    if let Some(c) = chart {
        blocks.push(Block::Charts {
            id: String::new(),
            charts: vec![c],
        });
    }
}

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let records = &ctx.data.tls;
    let Some(shown) = records.last() else {
        say(blocks, "No tls run given (`kembench tls --json FILE`).");
        return Ok(());
    };
    let r = &shown.record;
    say(
        blocks,
        format!(
            "Real TLS 1.3 handshakes between two stacks' own client and server, every one \
             checked (negotiated group, key shares on the wire, certificate chain). CPU figures \
             come from an in-memory transport, each side's time in its own calls; flights are \
             counted in TLS bytes and {MSS}-byte TCP segments.{}",
            if records.len() > 1 {
                format!(
                    " The charts show {}; the tables every tls run given.",
                    shown.label
                )
            } else {
                String::new()
            }
        ),
    );

    charted(blocks, "tls-rate", "Handshakes per second", chart::rate(r)?);
    blocks.push(Block::Table(cpu_table(records)));

    charted(
        blocks,
        "tls-cpu",
        "CPU per handshake and the key exchange",
        chart::cpu(r)?,
    );
    if let Some(t) = capacity_table(records) {
        say(
            blocks,
            "Cores for the target rate of full handshakes: measured (one core's rate per \
             side, times the per-core slowdown at the basis thread count) beside what \
             `kembench throughput`'s model predicts from the bare key exchange alone.",
        );
        blocks.push(Block::Table(t));
    }

    charted(
        blocks,
        "tls-flights",
        "Bytes per flight",
        chart::flights(r)?,
    );
    blocks.push(Block::Table(flights_table(records)));

    if let Some(t) = scaling_table(records) {
        h3(blocks, "tls-scaling", "Scaling across threads");
        say(
            blocks,
            "Full handshakes with both sides in each thread; efficiency is the speed-up over \
             min(threads, logical CPUs).",
        );
        blocks.push(Block::Table(t));
    }

    let net = network_table(records);
    if let Some(t) = net {
        h3(blocks, "tls-network", "Under network conditions");
        for against in [chart::Against::Rtt, chart::Against::Loss] {
            if let Some(c) = chart::network(r, against)? {
                blocks.push(Block::Charts {
                    id: String::new(),
                    charts: vec![c],
                });
            }
        }
        blocks.push(Block::Table(t));
    }
    let notes = notes(records);
    if !notes.is_empty() {
        h3(blocks, "tls-not-measured", "Not measured");
        blocks.push(Block::List(notes));
    }
    Ok(())
}

/// CPU per handshake of every benchmark and kind of handshake.
fn cpu_table(records: &[Input<TlsRecord>]) -> Table {
    let mut t = Table::new(
        "table-tls-cpu",
        &[
            "file",
            "group",
            "stack",
            "cert",
            "mode",
            "handshakes#",
            "handshakes/s, 1 core#",
            "server median#",
            "server p25 – p75#",
            "server best round#",
            "client median#",
            "client p25 – p75#",
            "client best round#",
            "KEM share, server#",
            "KEM share, client#",
        ],
    )
    .titled("CPU per handshake");
    for input in records {
        for r in &input.record.results {
            for m in &r.modes {
                let mut row = names(input, r);
                let kem = r.kem.as_ref().filter(|_| m.mode == Mode::Full);
                row.extend([
                    Cell::text(m.mode.as_str()),
                    int_cell(m.handshakes),
                    Cell::num(units::count(m.handshakes_per_sec), m.handshakes_per_sec),
                    ns_cell(m.server_ns.median),
                    quartiles(&m.server_ns),
                    ns_cell(m.server_best_round_median_ns),
                    ns_cell(m.client_ns.median),
                    quartiles(&m.client_ns),
                    ns_cell(m.client_best_round_median_ns),
                    kem.map_or(Cell::text("-"), |k| pct_cell(k.server_share)),
                    kem.map_or(Cell::text("-"), |k| pct_cell(k.client_share)),
                ]);
                t.push(row, tags(r));
            }
        }
    }
    t
}

/// Cores for the target rate beside the bare-KEM model, if any benchmark has them.
fn capacity_table(records: &[Input<TlsRecord>]) -> Option<Table> {
    let mut t = Table::new(
        "table-tls-capacity",
        &[
            "file",
            "group",
            "stack",
            "cert",
            "target handshakes/s#",
            "basis threads#",
            "scaling penalty#",
            "server hs/s/core#",
            "client hs/s/core#",
            "server cores#",
            "client cores#",
            "model: server cores#",
            "model: client cores#",
        ],
    );
    let cores = |v: f64| Cell::num(format!("{v:.2}"), v);
    for input in records {
        for r in &input.record.results {
            let Some(c) = &r.capacity else { continue };
            let model = r.kem.as_ref().map(|k| &k.model);
            let mut row = names(input, r);
            row.extend([
                Cell::num(units::count(c.target_rate), c.target_rate),
                int_cell(c.basis_threads as u64),
                Cell::num(format!("{:.2}", c.scaling_penalty), c.scaling_penalty),
                Cell::num(
                    units::count(c.server_handshakes_per_sec_per_core),
                    c.server_handshakes_per_sec_per_core,
                ),
                Cell::num(
                    units::count(c.client_handshakes_per_sec_per_core),
                    c.client_handshakes_per_sec_per_core,
                ),
                cores(c.server_cores_for_target),
                cores(c.client_cores_for_target),
                model.map_or(Cell::text("-"), |m| cores(m.server_cores_for_target)),
                model.map_or(Cell::text("-"), |m| cores(m.client_cores_for_target)),
            ]);
            t.push(row, tags(r));
        }
    }
    (!t.rows.is_empty()).then_some(t)
}

/// Every flight of every kind of handshake.
fn flights_table(records: &[Input<TlsRecord>]) -> Table {
    let mut t = Table::new(
        "table-tls-flights",
        &[
            "file",
            "group",
            "stack",
            "cert",
            "mode",
            "flight",
            "from",
            "bytes#",
            "records#",
            "segments#",
            "note",
            "key shares C / S",
        ],
    )
    .folded()
    .titled("Flights of every kind of handshake");
    for input in records {
        for r in &input.record.results {
            let shares = r.checks.as_ref().map_or("-".into(), |c| {
                format!("{} B / {} B", c.client_share_bytes, c.server_share_bytes)
            });
            for m in &r.modes {
                for f in &m.flights {
                    let mut row = names(input, r);
                    let note = if f.exceeds_initcwnd() {
                        Cell::text(format!("> initcwnd ({INITCWND} segments)")).marked(Mark::Warn)
                    } else {
                        Cell::text("")
                    };
                    row.extend([
                        Cell::text(m.mode.as_str()),
                        Cell::text(&f.name),
                        Cell::text(&f.from),
                        int_cell(f.bytes as u64),
                        int_cell(f.records as u64),
                        int_cell(f.segments as u64),
                        note,
                        Cell::text(&shares),
                    ]);
                    t.push(row, tags(r));
                }
            }
        }
    }
    t
}

/// Full handshakes across thread counts, if measured.
fn scaling_table(records: &[Input<TlsRecord>]) -> Option<Table> {
    let mut t = Table::new(
        "table-tls-scaling",
        &[
            "file",
            "group",
            "stack",
            "cert",
            "threads#",
            "handshakes/s#",
            "per-thread min – max",
            "speedup#",
            "efficiency#",
        ],
    );
    for input in records {
        for r in &input.record.results {
            for p in &r.scaling {
                let mut row = names(input, r);
                row.extend([
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
                ]);
                t.push(row, tags(r));
            }
        }
    }
    (!t.rows.is_empty()).then_some(t)
}

/// Handshake times per network condition, if measured.
fn network_table(records: &[Input<TlsRecord>]) -> Option<Table> {
    let mut t = Table::new(
        "table-tls-network",
        &[
            "file",
            "group",
            "stack",
            "cert",
            "profile",
            "RTT#",
            "loss#",
            "measured RTT#",
            "handshakes#",
            "failures#",
            "min#",
            "p25#",
            "median#",
            "p95#",
            "max#",
            "made by",
        ],
    )
    .titled("Handshake times under network conditions");
    for input in records {
        for r in &input.record.results {
            for n in &r.network {
                let mut row = names(input, r);
                let failures = int_cell(n.failures);
                row.extend([
                    Cell::text(&n.profile),
                    ms_cell(n.rtt_ms),
                    Cell::num(format!("{}%", n.loss_pct), n.loss_pct),
                    ms_cell(n.measured_rtt_ms),
                    int_cell(n.handshakes),
                    if n.failures > 0 {
                        failures.marked(Mark::Warn)
                    } else {
                        failures
                    },
                ]);
                match &n.time_ms {
                    Some(s) => row.extend([s.min, s.p25, s.median, s.p95, s.max].map(ms_cell)),
                    None => row.extend((0..5).map(|_| Cell::text("-"))),
                }
                row.push(Cell::text(format!(
                    "delay: {}; loss: {}; rate: {}",
                    n.mechanisms.delay, n.mechanisms.loss, n.mechanisms.rate
                )));
                t.push(row, tags(r));
            }
        }
    }
    (!t.rows.is_empty()).then_some(t)
}

/// Groups a stack lacks, errors, and network conditions not measured, one line each.
fn notes(records: &[Input<TlsRecord>]) -> Vec<crate::report::doc::Para> {
    let mut out = Vec::new();
    for input in records {
        for r in &input.record.results {
            let who = format!("{}@{} ({})", r.group, r.implementation, input.label);
            if let Some(why) = &r.unavailable {
                out.push(vec![text(format!("{who}: unavailable: {why}"))]);
            }
            if let Some(e) = &r.error {
                out.push(vec![text(format!("{who}: error: {e}"))]);
            }
            if let Some(why) = &r.network_skipped {
                out.push(vec![text(format!(
                    "{who}: network conditions not measured: {why}"
                ))]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::data::{Dataset, Record};
    use crate::report::doc::Block;

    fn blocks(data: &Dataset) -> Vec<Block> {
        let ctx = Context {
            data,
            primary: None,
            noise: 0.02,
        };
        let mut b = Vec::new();
        build(&ctx, &mut b).unwrap();
        b
    }

    #[test]
    fn the_fixture_gets_every_chart_and_table() {
        let data = Dataset::from_records(vec![(
            "tls.json".into(),
            Record::Tls(Box::new(crate::export::fixture::tls())),
        )]);
        let b = blocks(&data);
        let charts: Vec<&str> = b
            .iter()
            .flat_map(|x| match x {
                Block::Charts { charts, .. } => charts.iter().map(|c| c.id.as_str()).collect(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(
            charts,
            [
                "chart-tls-rate",
                "chart-tls-cpu",
                "chart-tls-flights",
                "chart-tls-rtt",
                "chart-tls-loss"
            ]
        );
        let tables: Vec<&str> = b
            .iter()
            .filter_map(|x| match x {
                Block::Table(t) => Some(t.id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            tables,
            [
                "table-tls-cpu",
                "table-tls-capacity",
                "table-tls-flights",
                "table-tls-scaling",
                "table-tls-network"
            ]
        );
        let Some(Block::List(notes)) = b.last() else {
            panic!("the notes come last")
        };
        assert_eq!(notes.len(), 2, "the unavailable group, the skipped network");
    }

    #[test]
    fn no_tls_run_says_so() {
        let b = blocks(&Dataset::default());
        assert!(matches!(&b[..], [Block::Para(p)] if format!("{p:?}").contains("tls --json")));
    }
}
