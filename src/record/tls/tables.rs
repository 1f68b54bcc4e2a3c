//! The tables of a tls run, described once for the console, the Markdown export and the
//! report: CPU per handshake on each side, the flights (per kind of handshake on the console,
//! every flight elsewhere), the cores for the target rate beside the bare-KEM model, scaling
//! across threads, handshake times under network conditions, and the decision table (per
//! benchmark and condition: cores for the target rate, bytes, handshake time, each against
//! the same stack's X25519 with an ECDSA P-256 chain); then what was not measured.
//!
//! The console's default view keeps every table within 120 columns (names repeated from the
//! row above blanked; quartiles, best rounds, the fastest and slowest handshake under a network
//! condition and how it was made left to `--wide`).

use super::{Flight, Mode, Spread, TlsRecord, TlsResult, INITCWND, MSS};
use crate::kem::catalog;
use crate::table::{
    Cell, Col, Column, Mark, Table, Tables, Tags, Target, CONSOLE, FIT, MARKDOWN, REPORT, WIDE,
};
use crate::record::scaling::{speedup_cell, thread_range};
use crate::units;

/// A time given in milliseconds, scaled like every other time and sorted in ns.
fn ms(v: f64) -> Cell {
    Cell::num(units::ns(v * 1e6), v * 1e6)
}

/// A spread's `p25 – p75`, sorted by the first.
fn quartiles(s: &Spread) -> Cell {
    Cell::num(
        format!("{} – {}", units::ns(s.p25), units::ns(s.p75)),
        s.p25,
    )
}

/// Cores: two decimals, and on the console enough digits to tell 0.02 from 0.
fn cores(v: f64) -> Cell {
    Cell::num(format!("{v:.2}"), v).on(CONSOLE, units::cores(v))
}

/// A fraction as a whole percentage, with one decimal in the report.
fn pct(v: f64) -> Cell {
    Cell::num(format!("{:.0}%", v * 100.0), v).on(REPORT, format!("{:.1}%", v * 100.0))
}

/// The filter tags of a benchmark (the group's family and level from the catalog).
fn tags(r: &TlsResult) -> Option<Tags> {
    let family = catalog::find(&r.algorithm).map_or("", |a| a.family.as_str());
    Some(Tags::catalogued(
        family,
        catalog::level_of(&r.algorithm),
        &r.implementation,
    ))
}

/// The columns that name a benchmark: the report's file, then group (the one that wraps on
/// the console), stack and certificate.
#[derive(Clone, Copy)]
struct Names {
    file: Col,
    group: Col,
    stack: Col,
    cert: Col,
}

impl Names {
    fn add(t: &mut Table) -> Names {
        Names {
            file: t.add(Column::file()),
            group: t.add(Column::text("group").wraps()),
            stack: t.add(Column::text("stack")),
            cert: t.add(Column::text("cert")),
        }
    }

    /// A new row of `t` naming `r`.
    fn row<'t>(&self, t: &'t mut Table, r: &TlsResult) -> &'t mut crate::table::Row {
        t.row(tags(r))
            .set(self.group, &r.group)
            .set(self.stack, &r.stack)
            .set(self.cert, r.cert_and_hello())
    }

    /// The columns before `rest`, in the report (with the file) or elsewhere.
    fn then(&self, report: bool, rest: &[Col]) -> Vec<Col> {
        let mut v = if report { vec![self.file] } else { Vec::new() };
        v.extend([self.group, self.stack, self.cert]);
        v.extend_from_slice(rest);
        v
    }
}

/// Every table of `record` over `items` (its results, or while the Markdown export streams,
/// one result or the first few), with what is said around them.
pub fn tables(record: &TlsRecord, items: &[TlsResult]) -> Tables {
    let e = &record.environment;
    Tables {
        title: format!("kembench tls, {}", record.started_at),
        intro: vec![(
            MARKDOWN,
            format!(
                "Host {}: {} ({} logical CPUs); real TLS 1.3 handshakes over an in-memory \
                 transport, {} of handshakes per kind, one thread doing both sides.",
                crate::table::code(&e.hostname),
                e.cpu.model,
                e.cpu.logical_cpus,
                units::ns(record.config.duration_s * 1e9),
            ),
        )],
        tables: vec![
            cpu(items),
            flights_per_mode(items),
            flights(items),
            capacity(record, items),
            scaling(items),
            network(items),
            decision(items),
        ],
        outro: outro(items),
        rest_elsewhere: false,
    }
}

/// CPU per handshake of every benchmark and kind of handshake; the Markdown export streams
/// it, with a line for each benchmark that has no figures.
fn cpu(items: &[TlsResult]) -> Table {
    let mut t = Table::new("table-tls-cpu");
    let n = Names::add(&mut t);
    let mode = t.add(Column::text("mode"));
    let handshakes = t.add(Column::num("handshakes"));
    let rate = t.add(
        Column::num("hs/s\n1 core")
            .named(MARKDOWN, "handshakes/s (one core)")
            .named(REPORT, "handshakes/s, 1 core"),
    );
    let server = t.add(Column::num("server\nmedian"));
    let server_q = t.add(Column::num("server p25 – p75"));
    let server_best = t.add(Column::num("server best round"));
    let client = t.add(Column::num("client\nmedian"));
    let client_q = t.add(Column::num("client p25 – p75"));
    let client_best = t.add(Column::num("client best round"));
    let share = t.add(Column::num("KEM share\nS / C").named(MARKDOWN, "KEM share server / client"));
    let share_server = t.add(Column::num("KEM share, server"));
    let share_client = t.add(Column::num("KEM share, client"));
    let sig = t.add(
        Column::num("sign / verify\nS / C")
            .named(MARKDOWN, "sign (server) / verify ×3 (client)"),
    );
    let sig_share = t.add(
        Column::num("sig share\nS / C").named(MARKDOWN, "signature share server / client"),
    );
    let sign_ns = t.add(Column::num("sign (server)"));
    let verify_ns = t.add(Column::num("verify ×3 (client)"));
    let sig_share_server = t.add(Column::num("sig share, server"));
    let sig_share_client = t.add(Column::num("sig share, client"));
    let fit = [mode, rate, server, client, share, sig, sig_share];
    let wide = [server_q, client_q, server_best, client_best, handshakes];
    t.view(FIT, 4, &n.then(false, &fit))
        .view(WIDE, 4, &n.then(false, &[&fit[..], &wide[..]].concat()))
        .view(
            MARKDOWN,
            0,
            &n.then(
                false,
                &[
                    mode,
                    rate,
                    server,
                    server_q,
                    client,
                    client_q,
                    server_best,
                    client_best,
                    share,
                    sig,
                    sig_share,
                ],
            ),
        )
        .view(
            REPORT,
            0,
            &n.then(
                true,
                &[
                    mode,
                    handshakes,
                    rate,
                    server,
                    server_q,
                    server_best,
                    client,
                    client_q,
                    client_best,
                    share_server,
                    share_client,
                    sign_ns,
                    verify_ns,
                    sig_share_server,
                    sig_share_client,
                ],
            ),
        )
        .caption(
            CONSOLE,
            "CPU per handshake: each side's time in its own calls (in-memory transport), one thread doing both sides; KEM share: the bare key exchange's part of a full handshake (server: encaps; client: keygen + decaps); sign / verify: the same library's CertificateVerify signature (server) and the client's three verifications (leaf, intermediate, CertificateVerify), timed bare in the same rounds, and their shares.",
        )
        .caption(MARKDOWN, "CPU per handshake (each side's time in its own calls):")
        .caption(REPORT, "CPU per handshake")
        .always(MARKDOWN)
        .streamed();
    for r in items {
        let said = [("unavailable", &r.unavailable), ("error", &r.error)];
        for (what, why) in said {
            if let Some(why) = why {
                let mut cells: Vec<Cell> = [&r.group, &r.stack, &r.cert_and_hello()]
                    .map(Cell::from)
                    .into();
                cells.extend(["-".into(), format!("{what}: {why}").into()]);
                t.line(Target::Markdown, None, cells);
            }
        }
        for m in &r.modes {
            let kem = r.kem.as_ref().filter(|_| m.mode == Mode::Full);
            let sg = r.signature.as_ref().filter(|_| m.mode == Mode::Full);
            let kem_pct = |v: f64| Cell::num(format!("{:.1}%", v * 100.0), v);
            n.row(&mut t, r)
                .set(mode, m.mode.as_str())
                .set(handshakes, Cell::int(m.handshakes))
                .set(rate, Cell::count(m.handshakes_per_sec))
                .set(server, Cell::ns(m.server_ns.median))
                .set(server_q, quartiles(&m.server_ns))
                .set(server_best, Cell::ns(m.server_best_round_median_ns))
                .set(client, Cell::ns(m.client_ns.median))
                .set(client_q, quartiles(&m.client_ns))
                .set(client_best, Cell::ns(m.client_best_round_median_ns))
                .set(
                    share,
                    kem.map_or(Cell::none(), |k| {
                        Cell::right(format!(
                            "{:.0}% / {:.0}%",
                            k.server_share * 100.0,
                            k.client_share * 100.0
                        ))
                    }),
                )
                .set(
                    share_server,
                    kem.map_or(Cell::text("-"), |k| kem_pct(k.server_share)),
                )
                .set(
                    share_client,
                    kem.map_or(Cell::text("-"), |k| kem_pct(k.client_share)),
                )
                .set(
                    sig,
                    sg.map_or(Cell::none(), |g| {
                        Cell::right(format!(
                            "{} / {}",
                            units::ns(g.sign_ns),
                            units::ns(g.verify_ns)
                        ))
                    }),
                )
                .set(
                    sig_share,
                    sg.map_or(Cell::none(), |g| {
                        Cell::right(format!(
                            "{:.0}% / {:.0}%",
                            g.server_share * 100.0,
                            g.client_share * 100.0
                        ))
                    }),
                )
                .set(sign_ns, sg.map_or(Cell::text("-"), |g| Cell::ns(g.sign_ns)))
                .set(verify_ns, sg.map_or(Cell::text("-"), |g| Cell::ns(g.verify_ns)))
                .set(
                    sig_share_server,
                    sg.map_or(Cell::text("-"), |g| kem_pct(g.server_share)),
                )
                .set(
                    sig_share_client,
                    sg.map_or(Cell::text("-"), |g| kem_pct(g.client_share)),
                );
        }
    }
    t
}

/// A flight on the console as `1,500 B / 2` (bytes and segments; with `--wide` its records
/// too), flagged past the initial window.
fn flight_cell(f: Option<&Flight>) -> Cell {
    let Some(f) = f else {
        return Cell::none();
    };
    let (bytes, over) = (
        units::thousands(f.bytes as u64),
        if f.exceeds_initcwnd() {
            " > initcwnd"
        } else {
            ""
        },
    );
    Cell::right(format!("{bytes} B / {}{over}", f.segments))
        .on(
            WIDE,
            format!("{bytes} B / {} rec / {}{over}", f.records, f.segments),
        )
        .marked_if(f.exceeds_initcwnd(), Mark::Bad)
}

/// The console's flights: bytes and segments of the flights that carry the key shares, one
/// row per kind of handshake, and the key shares the checks saw.
fn flights_per_mode(items: &[TlsResult]) -> Table {
    let mut t = Table::new("tls-flights-per-mode");
    let n = Names::add(&mut t);
    let mode = t.add(Column::text("mode"));
    let hello = t.add(Column::num("ClientHello\nbytes / segs"));
    let server = t.add(Column::num("server flight\nbytes / segs"));
    let finished = t.add(Column::num("client\nFinished"));
    let shares = t.add(Column::num("key shares\nC / S bytes"));
    t.view(
        CONSOLE,
        4,
        &n.then(false, &[mode, hello, server, finished, shares]),
    )
    .caption(
        CONSOLE,
        format!(
            "Flights: TLS bytes (record headers included) and TCP segments of {MSS} bytes; more than {INITCWND} segments (TCP's initial window) waits a round trip for acknowledgements."
        ),
    );
    for r in items {
        let checked = r.checks.as_ref().map_or(Cell::none(), |c| {
            Cell::right(format!(
                "{} / {}",
                c.client_share_bytes, c.server_share_bytes
            ))
        });
        for (i, m) in r.modes.iter().enumerate() {
            n.row(&mut t, r)
                .set(mode, m.mode.as_str())
                .set(hello, flight_cell(m.client_hello()))
                .set(server, flight_cell(m.server_flight()))
                .set(
                    finished,
                    m.client_finished().map_or(Cell::none(), |f| {
                        Cell::right(format!("{} B", units::thousands(f.bytes as u64)))
                    }),
                )
                .set(
                    shares,
                    if i == 0 {
                        checked.clone()
                    } else {
                        Cell::right("")
                    },
                );
        }
    }
    t
}

/// Every flight of every kind of handshake (the Markdown export and the report), then the key
/// shares on the wire.
fn flights(items: &[TlsResult]) -> Table {
    let mut t = Table::new("table-tls-flights");
    let n = Names::add(&mut t);
    let mode = t.add(Column::text("mode"));
    let flight = t.add(Column::text("flight"));
    let from = t.add(Column::text("from"));
    let bytes = t.add(Column::num("bytes"));
    let records = t.add(Column::num("records"));
    let segments = t.add(Column::num("segments"));
    let note = t.add(Column::text("note"));
    let shares = t.add(Column::text("key shares C / S"));
    let columns = [mode, flight, from, bytes, records, segments, note];
    t.view(MARKDOWN, 0, &n.then(false, &columns))
        .view(
            REPORT,
            0,
            &n.then(true, &[&columns[..], &[shares]].concat()),
        )
        .caption(
            MARKDOWN,
            format!(
                "Flights (TLS bytes, record headers included; segments of {MSS} bytes; more than \
                 {INITCWND} segments, TCP's initial window, costs a round trip):"
            ),
        )
        .caption(REPORT, "Flights of every kind of handshake")
        .folded();
    for r in items {
        let checked = r.checks.as_ref().map_or("-".into(), |c| {
            format!("{} B / {} B", c.client_share_bytes, c.server_share_bytes)
        });
        for m in &r.modes {
            for f in &m.flights {
                let over = if f.exceeds_initcwnd() {
                    Cell::text(format!("> initcwnd ({INITCWND} segments)"))
                        .marked(Mark::Warn)
                        .on(MARKDOWN, "> initcwnd")
                        .verbatim()
                } else {
                    Cell::text("")
                };
                n.row(&mut t, r)
                    .set(mode, m.mode.as_str())
                    .set(flight, &f.name)
                    .set(from, &f.from)
                    .set(bytes, Cell::int(f.bytes as u64))
                    .set(records, Cell::int(f.records as u64))
                    .set(segments, Cell::int(f.segments as u64))
                    .set(note, over)
                    .set(shares, checked.as_str());
            }
        }
    }
    let shares: Vec<String> = items
        .iter()
        .filter_map(|r| {
            r.checks.as_ref().map(|c| {
                let sent = r
                    .client_shares
                    .as_ref()
                    .filter(|_| r.hello != "minimal")
                    .map_or(String::new(), |s| format!(" (the ClientHello's shares: {s})"));
                format!(
                    "{}@{} {} B / {} B{sent}",
                    r.group, r.implementation, c.client_share_bytes, c.server_share_bytes
                )
            })
        })
        .collect();
    if !shares.is_empty() {
        t.note(
            MARKDOWN,
            format!(
                "Key shares on the wire (ClientHello / ServerHello): {}.",
                shares.join("; ")
            ),
        );
    }
    t
}

/// Cores for the target rate, measured and as the bare-KEM model predicts.
fn capacity(record: &TlsRecord, items: &[TlsResult]) -> Table {
    let mut t = Table::new("table-tls-capacity");
    let n = Names::add(&mut t);
    let target = t.add(Column::num("target handshakes/s"));
    let basis = t.add(Column::num("basis").named(MARKDOWN | REPORT, "basis threads"));
    let penalty = t.add(Column::num("scaling\npenalty"));
    let server_rate = t.add(Column::num("server hs/s/core"));
    let client_rate = t.add(Column::num("client hs/s/core"));
    let server = t.add(Column::num("server\ncores"));
    let client = t.add(Column::num("client\ncores"));
    let model_server = t.add(
        Column::num("model\nserver")
            .named(MARKDOWN, "model server cores")
            .named(REPORT, "model: server cores"),
    );
    let model_client = t.add(
        Column::num("model\nclient")
            .named(MARKDOWN, "model client cores")
            .named(REPORT, "model: client cores"),
    );
    let figures = [
        basis,
        penalty,
        server_rate,
        client_rate,
        server,
        client,
        model_server,
        model_client,
    ];
    let rate = units::count(record.config.target_rate);
    t.view(
        CONSOLE,
        3,
        &n.then(
            false,
            &[
                server,
                client,
                model_server,
                model_client,
                basis,
                penalty,
            ],
        ),
    )
    .view(MARKDOWN, 0, &n.then(false, &figures))
    .view(REPORT, 0, &n.then(true, &[&[target][..], &figures].concat()))
    .caption(
        CONSOLE,
        format!(
            "Cores for {rate} full handshakes/s: measured (one core's rate times the scaling penalty at the basis thread count) and as the bare-KEM model of `throughput` predicts from keygen, encaps and decaps alone:"
        ),
    )
    .caption(
        MARKDOWN,
        format!("Cores for {rate} full handshakes/s, measured and as the bare-KEM model predicts:"),
    );
    for r in items {
        let Some(c) = &r.capacity else { continue };
        let model = r.kem.as_ref().map(|k| &k.model);
        n.row(&mut t, r)
            .set(target, Cell::count(c.target_rate))
            .set(
                basis,
                Cell::int(c.basis_threads as u64)
                    .on(CONSOLE, format!("{} threads", c.basis_threads)),
            )
            .set(
                penalty,
                Cell::num(format!("{:.2}", c.scaling_penalty), c.scaling_penalty),
            )
            .set(
                server_rate,
                Cell::count(c.server_handshakes_per_sec_per_core),
            )
            .set(
                client_rate,
                Cell::count(c.client_handshakes_per_sec_per_core),
            )
            .set(server, cores(c.server_cores_for_target))
            .set(client, cores(c.client_cores_for_target))
            .set(
                model_server,
                model.map_or(Cell::none(), |m| cores(m.server_cores_for_target)),
            )
            .set(
                model_client,
                model.map_or(Cell::none(), |m| cores(m.client_cores_for_target)),
            );
    }
    t
}

/// Full handshakes across thread counts.
fn scaling(items: &[TlsResult]) -> Table {
    let mut t = Table::new("table-tls-scaling");
    let n = Names::add(&mut t);
    let threads = t.add(Column::num("threads"));
    let rate = t.add(Column::num("hs/s").named(MARKDOWN | REPORT, "handshakes/s"));
    let range = t.add(Column::num("per-thread\nmin – max").text_in(REPORT));
    let speedup = t.add(Column::num("speedup"));
    let efficiency = t.add(Column::num("efficiency"));
    let columns = [threads, rate, range, speedup, efficiency];
    t.view(CONSOLE, 3, &n.then(false, &columns))
        .view(MARKDOWN, 0, &n.then(false, &columns))
        .view(REPORT, 0, &n.then(true, &columns))
        .caption(
            CONSOLE | MARKDOWN,
            "Full handshakes across threads (both sides in each thread):",
        );
    for r in items {
        for p in &r.scaling {
            n.row(&mut t, r)
                .set(threads, Cell::int(p.threads as u64))
                .set(rate, Cell::count(p.total_ops_per_sec))
                .set(range, thread_range(p))
                .set(speedup, speedup_cell(p))
                .set(efficiency, pct(p.efficiency));
        }
    }
    t
}

/// Handshake times per network condition; on the console's default view, how the conditions
/// were made follows the table.
fn network(items: &[TlsResult]) -> Table {
    let mut t = Table::new("table-tls-network");
    let n = Names::add(&mut t);
    let profile = t.add(Column::text("profile"));
    let rtt = t.add(Column::num("RTT"));
    let loss = t.add(Column::num("loss"));
    let measured = t.add(Column::num("measured RTT"));
    let ok = t.add(Column::num("ok").named(MARKDOWN | REPORT, "handshakes"));
    let failed = t.add(Column::num("failed").named(MARKDOWN | REPORT, "failures"));
    let [min, p25, median, p95, max] =
        ["min", "p25", "median", "p95", "max"].map(|h| t.add(Column::num(h)));
    let limit = t.add(Column::num("rate"));
    let made = t.add(Column::text("delay / loss / rate by").named(REPORT, "made by"));
    t.view(
        FIT,
        3,
        &n.then(false, &[profile, rtt, loss, ok, failed, p25, median, p95]),
    )
    .view(
        WIDE,
        3,
        &n.then(
            false,
            &[
                profile, rtt, loss, ok, failed, min, p25, median, p95, max, measured, limit, made,
            ],
        ),
    )
    .view(
        MARKDOWN,
        0,
        &n.then(
            false,
            &[
                profile, rtt, loss, measured, ok, failed, min, p25, median, p95, max,
            ],
        ),
    )
    .view(
        REPORT,
        0,
        &n.then(
            true,
            &[
                profile, rtt, loss, measured, ok, failed, min, p25, median, p95, max, made,
            ],
        ),
    )
    .caption(
        CONSOLE,
        "Handshake times under network conditions: TCP connect to the client's Finished, loopback between network namespaces:",
    )
    .caption(
        MARKDOWN,
        "Handshake times under network conditions (TCP connect to the client's Finished):",
    )
    .caption(REPORT, "Handshake times under network conditions");
    let mut ways: Vec<String> = Vec::new();
    for r in items {
        for p in &r.network {
            let m = &p.mechanisms;
            let way = format!(
                "delay by {}, loss by {}, rate limit by {}",
                m.delay, m.loss, m.rate
            );
            if !ways.contains(&way) {
                ways.push(way);
            }
            let row = n
                .row(&mut t, r)
                .set(profile, &p.profile)
                .set(rtt, ms(p.rtt_ms))
                .set(loss, Cell::num(format!("{}%", p.loss_pct), p.loss_pct))
                .set(measured, ms(p.measured_rtt_ms))
                .set(ok, Cell::int(p.handshakes))
                .set(
                    failed,
                    Cell::int(p.failures).marked_if(p.failures > 0, Mark::Warn),
                )
                .set(
                    limit,
                    if p.rate_mbit > 0.0 {
                        Cell::right(format!("{} Mbit/s", p.rate_mbit))
                    } else {
                        Cell::none()
                    },
                )
                .set(
                    made,
                    Cell::text(format!("{} / {} / {}", m.delay, m.loss, m.rate)).on(
                        REPORT,
                        format!("delay: {}; loss: {}; rate: {}", m.delay, m.loss, m.rate),
                    ),
                );
            let times = p.time_ms.map(|s| [s.min, s.p25, s.median, s.p95, s.max]);
            for (i, c) in [min, p25, median, p95, max].into_iter().enumerate() {
                row.set(c, times.map_or(Cell::none(), |v| ms(v[i])));
            }
        }
    }
    if !ways.is_empty() {
        t.note(
            FIT,
            format!(
                "Network conditions made with: {}. Fastest and slowest handshakes, measured RTTs and rate limits: `--wide`.",
                ways.join("; ")
            ),
        );
    }
    t
}

/// The group and certificate every row of the decision table is held against.
pub const BASELINE_GROUP: &str = "X25519";
/// See [`BASELINE_GROUP`].
pub const BASELINE_CERT: &str = "ecdsa-p256";

/// What one benchmark costs under one condition (or in memory, when no condition was
/// measured): the decision table's row, and what the report says of it.
#[derive(Debug, Clone)]
pub struct Decision<'a> {
    /// The benchmark.
    pub result: &'a TlsResult,
    /// The network condition's name, `None` for the in-memory figures alone.
    pub profile: Option<&'a str>,
    /// Server and client cores for the target rate of full handshakes.
    pub cores: Option<(f64, f64)>,
    /// Bytes of a full handshake's flights, client to server and server to client.
    pub bytes: Option<(u64, u64)>,
    /// Median and 95th percentile of the handshake time under the condition, ms.
    pub time_ms: Option<(f64, f64)>,
    /// The same figures of the baseline: the same stack and everything else in its
    /// implementation but the certificate, with [`BASELINE_GROUP`] and [`BASELINE_CERT`],
    /// under the same condition; `None` when the run has no such benchmark.
    pub baseline: Option<Box<Decision<'a>>>,
}

/// The implementation without its certificate part (`rustls/ecdsa-p256` is `rustls`): what a
/// benchmark and its baseline share, whatever else (a hello shape) the implementation names.
fn variant(r: &TlsResult) -> String {
    r.implementation
        .split('/')
        .filter(|p| *p != r.cert)
        .collect::<Vec<_>>()
        .join("/")
}

/// Bytes of the flights of `r`'s full handshake by direction.
fn full_bytes(r: &TlsResult) -> Option<(u64, u64)> {
    let m = r.mode(Mode::Full)?;
    let by = |from: &str| {
        m.flights
            .iter()
            .filter(|f| f.from == from)
            .map(|f| f.bytes as u64)
            .sum()
    };
    Some((by("client"), by("server")))
}

fn decision_of<'a>(r: &'a TlsResult, profile: Option<&'a str>) -> Decision<'a> {
    let point = profile.and_then(|p| r.network.iter().find(|n| n.profile == p));
    Decision {
        result: r,
        profile,
        cores: r
            .capacity
            .as_ref()
            .map(|c| (c.server_cores_for_target, c.client_cores_for_target)),
        bytes: full_bytes(r),
        time_ms: point.and_then(|n| n.time_ms).map(|t| (t.median, t.p95)),
        baseline: None,
    }
}

/// The decision table's rows: every measured benchmark under each network condition it was
/// measured under (or once, in memory, when under none), each with its baseline.
pub fn decisions(items: &[TlsResult]) -> Vec<Decision<'_>> {
    let mut out = Vec::new();
    for r in items.iter().filter(|r| r.capacity.is_some() || !r.network.is_empty()) {
        let base = items.iter().find(|b| {
            b.stack == r.stack
                && b.group == BASELINE_GROUP
                && b.cert == BASELINE_CERT
                && variant(b) == variant(r)
        });
        let profiles: Vec<Option<&str>> = if r.network.is_empty() {
            vec![None]
        } else {
            r.network.iter().map(|n| Some(n.profile.as_str())).collect()
        };
        for p in profiles {
            let mut d = decision_of(r, p);
            d.baseline = base.map(|b| Box::new(decision_of(b, p)));
            out.push(d);
        }
    }
    out
}

impl Decision<'_> {
    /// Extra server and client cores over the baseline.
    pub fn extra_cores(&self) -> Option<(f64, f64)> {
        let ((s, c), (bs, bc)) = (self.cores?, self.baseline.as_ref()?.cores?);
        Some((s - bs, c - bc))
    }

    /// Extra bytes per handshake over the baseline, both directions together.
    pub fn extra_bytes(&self) -> Option<i64> {
        let ((c, s), (bc, bs)) = (self.bytes?, self.baseline.as_ref()?.bytes?);
        Some((c + s) as i64 - (bc + bs) as i64)
    }

    /// Extra median and p95 handshake time over the baseline, ms.
    pub fn extra_ms(&self) -> Option<(f64, f64)> {
        let ((m, p), (bm, bp)) = (self.time_ms?, self.baseline.as_ref()?.time_ms?);
        Some((m - bm, p - bp))
    }

    /// Whether this row is its own baseline.
    pub fn is_baseline(&self) -> bool {
        self.baseline
            .as_ref()
            .is_some_and(|b| std::ptr::eq(b.result, self.result))
    }
}

/// A difference with its sign.
fn delta(v: Option<f64>, text: impl Fn(f64) -> String) -> Cell {
    v.map_or(Cell::none(), |v| Cell::num(text(v), v))
}

/// The decision table: for the target rate and each network condition measured, per
/// benchmark: server and client cores, bytes per full handshake both ways, median and p95
/// handshake time; and each against the same stack's X25519 with an ECDSA P-256 chain.
fn decision(items: &[TlsResult]) -> Table {
    let mut t = Table::new("table-tls-decision");
    let n = Names::add(&mut t);
    let profile = t.add(Column::text("network"));
    let target = t.add(Column::num("target hs/s"));
    let server = t.add(Column::num("server\ncores"));
    let client = t.add(Column::num("client\ncores"));
    let up = t.add(Column::num("bytes\nc→s").named(MARKDOWN | REPORT, "bytes client→server"));
    let down = t.add(Column::num("bytes\ns→c").named(MARKDOWN | REPORT, "bytes server→client"));
    let median = t.add(Column::num("median"));
    let p95 = t.add(Column::num("p95"));
    let x_server =
        t.add(Column::num("+server").named(MARKDOWN | REPORT, "extra server cores"));
    let x_client =
        t.add(Column::num("+client").named(MARKDOWN | REPORT, "extra client cores"));
    // Left out of the console's default view when the table would pass 120 columns: the
    // bytes themselves are in `bytes`, the difference in `--wide`.
    let x_bytes = t.add(
        Column::num("+bytes")
            .named(MARKDOWN | REPORT, "extra bytes")
            .optional(),
    );
    let x_median = t.add(Column::num("+median").named(MARKDOWN | REPORT, "extra median"));
    let x_p95 = t.add(Column::num("+p95").named(MARKDOWN | REPORT, "extra p95"));
    let both = t.add(Column::num("bytes\nc→s / s→c"));
    let fit = [profile, server, client, both, median, x_server, x_bytes, x_median];
    let all = [
        profile, target, server, client, up, down, median, p95, x_server, x_client, x_bytes,
        x_median, x_p95,
    ];
    t.view(FIT, 3, &n.then(false, &fit))
        .view(WIDE, 3, &n.then(false, &all))
        .view(MARKDOWN, 0, &n.then(false, &all))
        .view(REPORT, 0, &n.then(true, &all))
        .caption(
            CONSOLE | MARKDOWN,
            format!(
                "What each configuration costs at the target rate of full handshakes, and each against the same stack's {BASELINE_GROUP} with an {BASELINE_CERT} chain (+): cores, bytes of a full handshake, handshake time under each network condition:"
            ),
        );
    let rows = decisions(items);
    for d in &rows {
        let r = d.result;
        let row = n.row(&mut t, r).set(
            profile,
            d.profile.map_or(Cell::text("in memory"), Cell::text),
        );
        row.set(
            target,
            r.capacity
                .as_ref()
                .map_or(Cell::none(), |c| Cell::count(c.target_rate)),
        );
        let (s, c) = d.cores.unzip();
        row.set(server, s.map_or(Cell::none(), cores))
            .set(client, c.map_or(Cell::none(), cores));
        let (u, w) = d.bytes.unzip();
        row.set(up, u.map_or(Cell::none(), Cell::int))
            .set(down, w.map_or(Cell::none(), Cell::int))
            .set(
                both,
                d.bytes.map_or(Cell::none(), |(u, w)| {
                    Cell::num(format!("{u} / {w}"), (u + w) as f64)
                }),
            );
        let (m, q) = d.time_ms.unzip();
        row.set(median, m.map_or(Cell::none(), ms))
            .set(p95, q.map_or(Cell::none(), ms));
        let (xs, xc) = d.extra_cores().unzip();
        let (xm, xq) = d.extra_ms().unzip();
        row.set(x_server, delta(xs, |v| format!("{v:+.2}")))
            .set(x_client, delta(xc, |v| format!("{v:+.2}")))
            .set(
                x_bytes,
                delta(d.extra_bytes().map(|b| b as f64), |v| format!("{v:+.0}")),
            )
            .set(x_median, delta(xm, |v| format!("{v:+.1} ms")))
            .set(x_p95, delta(xq, |v| format!("{v:+.1} ms")));
    }
    if !rows.is_empty() && rows.iter().all(|d| d.baseline.is_none()) {
        t.note(
            CONSOLE | MARKDOWN,
            format!(
                "No benchmark of {BASELINE_GROUP} with an {BASELINE_CERT} chain on the same stack: nothing to hold the rows against (add `--groups {BASELINE_GROUP} --cert {BASELINE_CERT}`)."
            ),
        );
    }
    t
}

/// What was not measured: on the console every group a stack lacks, error, interruption and
/// network condition skipped; in the Markdown export the network conditions skipped.
fn outro(items: &[TlsResult]) -> Vec<(crate::table::Targets, String)> {
    let mut out = Vec::new();
    for r in items {
        let label = format!("{}@{}", r.group, r.implementation);
        if let Some(why) = &r.unavailable {
            out.push((CONSOLE, format!("Unavailable: {label}: {why}")));
        }
        if let Some(e) = &r.error {
            out.push((CONSOLE, format!("Error: {label}: {e}")));
        }
        if r.interrupted {
            out.push((
                CONSOLE,
                format!("Interrupted: {label} (what was measured is shown)"),
            ));
        }
        if let Some(why) = &r.network_skipped {
            out.push((
                CONSOLE,
                format!("Network conditions not measured for {label}: {why}"),
            ));
        }
    }
    let skipped: Vec<String> = items
        .iter()
        .filter_map(|r| {
            let why = r.network_skipped.as_ref()?;
            Some(format!("{}@{}: {why}", r.group, r.implementation))
        })
        .collect();
    if !skipped.is_empty() {
        out.push((
            MARKDOWN,
            format!("Network conditions not measured: {}.", skipped.join("; ")),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{decisions, BASELINE_CERT, BASELINE_GROUP};
    use crate::export::fixture;
    use crate::output::{tables, Width, WIDTH};
    use crate::record::tls::{Mode, TlsRecord, TlsResult};

    /// The fixture with a baseline beside its hybrid benchmark: the same stack and chain with
    /// X25519, cheaper in cores, bytes and time.
    fn with_baseline() -> TlsRecord {
        let mut r = fixture::tls();
        let mut b = r.results[0].clone();
        b.algorithm = "X25519".into();
        b.group = BASELINE_GROUP.into();
        let c = b.capacity.as_mut().unwrap();
        c.server_cores_for_target *= 0.5;
        c.client_cores_for_target *= 0.25;
        for m in &mut b.modes {
            for f in &mut m.flights {
                f.bytes /= 3;
            }
        }
        for n in &mut b.network {
            if let Some(t) = n.time_ms.as_mut() {
                t.median -= 1.5;
                t.p95 -= 4.0;
            }
        }
        r.results.push(b);
        r
    }

    fn sum_bytes(r: &TlsResult) -> i64 {
        r.mode(Mode::Full)
            .unwrap()
            .flights
            .iter()
            .map(|f| f.bytes as i64)
            .sum()
    }

    #[test]
    fn each_decision_row_is_held_against_the_same_stacks_baseline() {
        let r = with_baseline();
        let rows = decisions(&r.results);
        let hybrid = &r.results[0];
        let base = r.results.last().unwrap();
        assert_eq!(base.cert, BASELINE_CERT);
        // The hybrid and the baseline under each of their conditions, the classical
        // benchmark without conditions once in memory, the unavailable one not at all.
        let hybrid_rows: Vec<_> = rows
            .iter()
            .filter(|d| std::ptr::eq(d.result, hybrid))
            .collect();
        assert_eq!(hybrid_rows.len(), hybrid.network.len());
        assert_eq!(rows.len(), 2 * hybrid.network.len() + 1);
        for (d, n) in hybrid_rows.iter().zip(&hybrid.network) {
            assert_eq!(d.profile, Some(n.profile.as_str()));
            let (hc, bc) = (
                hybrid.capacity.as_ref().unwrap(),
                base.capacity.as_ref().unwrap(),
            );
            let (xs, xc) = d.extra_cores().unwrap();
            assert!((xs - (hc.server_cores_for_target - bc.server_cores_for_target)).abs() < 1e-12);
            assert!((xc - (hc.client_cores_for_target - bc.client_cores_for_target)).abs() < 1e-12);
            assert_eq!(d.extra_bytes().unwrap(), sum_bytes(hybrid) - sum_bytes(base));
            let t = n.time_ms.unwrap();
            let bt = base
                .network
                .iter()
                .find(|b| b.profile == n.profile)
                .unwrap()
                .time_ms
                .unwrap();
            let (xm, xq) = d.extra_ms().unwrap();
            assert!((xm - (t.median - bt.median)).abs() < 1e-9);
            assert!((xq - (t.p95 - bt.p95)).abs() < 1e-9);
            assert!(!d.is_baseline());
        }
        // The baseline against itself: nothing extra.
        let own = rows
            .iter()
            .find(|d| std::ptr::eq(d.result, base))
            .unwrap();
        assert!(own.is_baseline());
        assert_eq!(own.extra_cores(), Some((0.0, 0.0)));
        assert_eq!(own.extra_bytes(), Some(0));
        // Another stack's benchmark has no baseline in this run.
        let other = rows.iter().find(|d| d.result.stack == "openssl").unwrap();
        assert!(other.baseline.is_none() && other.extra_cores().is_none());
        assert_eq!(other.profile, None);
        assert!(other.cores.is_some() && other.bytes.is_some() && other.time_ms.is_none());
    }

    #[test]
    fn a_baseline_must_share_everything_but_group_and_certificate() {
        let mut r = with_baseline();
        // Another hello shape (or anything else the implementation names) is another baseline.
        r.results.last_mut().unwrap().implementation = "rustls/ecdsa-p256/browser".into();
        let rows = decisions(&r.results);
        let hybrid = rows
            .iter()
            .find(|d| std::ptr::eq(d.result, &r.results[0]))
            .unwrap();
        assert!(hybrid.baseline.is_none());
        // A baseline of the same stack with another certificate is not one either.
        let mut r = with_baseline();
        r.results.last_mut().unwrap().cert = "rsa2048".into();
        r.results.last_mut().unwrap().implementation = "rustls/rsa2048".into();
        let rows = decisions(&r.results);
        assert!(rows.iter().all(|d| d.baseline.is_none()));
    }

    #[test]
    fn the_decision_table_shows_the_differences_and_says_when_there_is_no_baseline() {
        let r = with_baseline();
        let text = tables(&r, Width::Wide, &[]);
        let d = &decisions(&r.results)[0];
        let (xs, _) = d.extra_cores().unwrap();
        assert!(text.contains(&format!("{xs:+.2}")), "{text}");
        assert!(text.contains(&format!("{:+}", d.extra_bytes().unwrap())), "{text}");
        assert!(text.contains("in memory"), "{text}");
        let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(!flat(&text).contains("nothing to hold the rows against"));
        let alone = flat(&tables(&fixture::tls(), Width::Fit, &[]));
        assert!(alone.contains("nothing to hold the rows against"), "{alone}");
    }

    #[test]
    fn the_default_tables_fit_and_name_every_group_once_per_table() {
        let text = tables(&fixture::tls(), Width::Fit, &[]);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= WIDTH, "{widest}\n{text}");
        // CPU, flights, capacity, scaling, network, decision: the hybrid group named once in
        // each.
        assert_eq!(
            text.lines()
                .filter(|l| l.starts_with('│') && l.contains("X25519MLKEM768"))
                .count(),
            6,
            "{text}"
        );
        assert!(text.contains("15,000 B / 11 > initcwnd"), "{text}");
        assert!(text.contains("1216 / 1120"), "{text}");
        assert!(text.contains("25% / 50%"), "{text}");
        assert!(text.contains("rtt30-loss3"), "{text}");
        assert!(text.contains("661 ms"), "the lossy p95: {text}");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains(
                "Unavailable: MLKEM1024@openssl/ecdsa-p256: OpenSSL 3.0.0 has no <MLKEM1024> group"
            ),
            "{flat}"
        );
        assert!(
            flat.contains("Network conditions not measured for secp256r1@openssl/rsa2048"),
            "{flat}"
        );
        assert!(
            flat.contains("delay by relay, loss by nft numgen random"),
            "{flat}"
        );
        assert!(!text.contains("server p25 – p75"));
    }

    #[test]
    fn the_wide_tables_add_quartiles_best_rounds_and_mechanisms() {
        let text = tables(&fixture::tls(), Width::Wide, &[]);
        for column in [
            "server p25 – p75",
            "client best round",
            "measured RTT",
            "relay / nft numgen random / none",
            "15,000 B / 4 rec / 11 > initcwnd",
            "1.26 s",
        ] {
            assert!(text.contains(column), "{column}: {text}");
        }
    }

    #[test]
    fn long_names_still_fit() {
        let mut r = fixture::tls();
        for x in &mut r.results {
            x.group = "SecP384r1MLKEM1024".into();
            x.stack = "openssl".into();
            x.cert = "ecdsa-p384".into();
        }
        let text = tables(&r, Width::Fit, &[]);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= WIDTH, "{widest}\n{text}");
    }

    #[test]
    fn a_run_with_nothing_measured_says_why() {
        let mut r = fixture::tls();
        r.results.retain(|x| x.unavailable.is_some());
        let text = tables(&r, Width::Fit, &[]);
        assert!(!text.contains('│'), "no table: {text}");
        assert!(text.starts_with("Unavailable: MLKEM1024"), "{text}");
    }
}
