//! The tables of a tls run, described once for the console, the Markdown export and the
//! report: CPU per handshake on each side, the flights (per kind of handshake on the console,
//! every flight elsewhere), the cores for the target rate beside the bare-KEM model, scaling
//! across threads, and handshake times under network conditions; then what was not measured.
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
    let fit = [mode, rate, server, client, share];
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
                ],
            ),
        )
        .caption(
            CONSOLE,
            "CPU per handshake: each side's time in its own calls (in-memory transport), one thread doing both sides; KEM share: the bare key exchange's part of a full handshake (server: encaps; client: keygen + decaps).",
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
    use crate::export::fixture;
    use crate::output::{tables, Width, WIDTH};

    #[test]
    fn the_default_tables_fit_and_name_every_group_once_per_table() {
        let text = tables(&fixture::tls(), Width::Fit, &[]);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= WIDTH, "{widest}\n{text}");
        // CPU, flights, capacity, scaling, network: the hybrid group named once in each.
        assert_eq!(
            text.lines()
                .filter(|l| l.starts_with('│') && l.contains("X25519MLKEM768"))
                .count(),
            5,
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
