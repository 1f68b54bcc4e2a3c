//! The console tables of a tls run: CPU per handshake on each side, the flights against TCP's
//! initial window, the cores for the target rate beside the bare-KEM model, scaling across
//! threads, and handshake times under network conditions; then the groups a stack lacks,
//! errors and network conditions skipped, and what the figures are.
//!
//! [`Layout::Fit`] keeps every table within [`super::WIDTH`] columns (names repeated from the
//! row above blanked; the quartiles, best rounds, the fastest and slowest handshake under a
//! network condition and how it was made left to `--wide`);
//! [`Layout::Wide`] shows every figure.

use super::{fit_table, num, prose, table, Grouped, Layout};
use crate::record::tls::{Flight, Mode, TlsRecord, TlsResult, INITCWND, MSS};
use crate::units;
use comfy_table::{Cell, Color, Table};

/// Cores with enough digits to tell 0.02 from 0.
fn cores(c: f64) -> String {
    if c < 10.0 {
        format!("{c:.2}")
    } else {
        format!("{c:.1}")
    }
}

/// A time given in milliseconds, scaled like every other time.
fn ms(v: f64) -> String {
    units::ns(v * 1e6)
}

/// A fraction as a whole percentage.
fn pct(v: f64) -> String {
    format!("{:.0}%", v * 100.0)
}

/// The (group, stack, cert) cells of a row, blanked where they repeat the row above.
fn names<'a>(g: &mut Grouped, r: &'a TlsResult, more: &[&'a str]) -> Vec<Cell> {
    let mut n = vec![r.group.as_str(), r.stack.as_str(), r.cert.as_str()];
    n.extend_from_slice(more);
    g.cells(&n)
}

/// A table with `header`: in [`Layout::Fit`] two-line headers (broken at `\n`) and within
/// [`super::WIDTH`] (the group's name wraps when names are long), in [`Layout::Wide`] one line
/// and as wide as its content.
fn headed(layout: Layout, header: &[&str]) -> Table {
    match layout {
        Layout::Fit => fit_table(header, 0),
        Layout::Wide => {
            let flat: Vec<String> = header.iter().map(|h| h.replace('\n', " ")).collect();
            table(&flat.iter().map(String::as_str).collect::<Vec<_>>())
        }
    }
}

/// The results with something measured.
fn measured(record: &TlsRecord) -> impl Iterator<Item = &TlsResult> {
    record.results.iter().filter(|r| !r.modes.is_empty())
}

/// The console output of a tls run, each line ending in a newline: the tables, then the
/// lines that explain them. Printed by `show` for a stored run and by `tls` after a run.
pub fn tables(record: &TlsRecord, layout: Layout) -> String {
    let mut out = String::new();
    if measured(record).next().is_some() {
        out.push_str(&prose(
            layout,
            "CPU per handshake: each side's time in its own calls (in-memory transport), one thread doing both sides; KEM share: the bare key exchange's part of a full handshake (server: encaps; client: keygen + decaps).",
        ));
        out.push_str(&format!("{}\n", cpu(record, layout)));
        out.push_str(&prose(
            layout,
            &format!(
                "Flights: TLS bytes (record headers included) and TCP segments of {MSS} bytes; more than {INITCWND} segments (TCP's initial window) waits a round trip for acknowledgements."
            ),
        ));
        out.push_str(&format!("{}\n", flights(record, layout)));
    }
    if let Some(t) = capacity(record, layout) {
        out.push_str(&prose(
            layout,
            &format!(
                "Cores for {} full handshakes/s: measured (one core's rate times the scaling penalty at the basis thread count) and as the bare-KEM model of `throughput` predicts from keygen, encaps and decaps alone:",
                units::count(record.config.target_rate)
            ),
        ));
        out.push_str(&format!("{t}\n"));
    }
    if let Some(t) = scaling(record, layout) {
        out.push_str(&prose(
            layout,
            "Full handshakes across threads (both sides in each thread):",
        ));
        out.push_str(&format!("{t}\n"));
    }
    if let Some(t) = network(record, layout) {
        out.push_str(&prose(
            layout,
            "Handshake times under network conditions: TCP connect to the client's Finished, loopback between network namespaces:",
        ));
        out.push_str(&format!("{t}\n"));
        if layout == Layout::Fit {
            out.push_str(&mechanisms(record));
        }
    }
    out.push_str(&notes(record, layout));
    out
}

/// (a) CPU per handshake per (group, stack, cert) and mode.
fn cpu(record: &TlsRecord, layout: Layout) -> Table {
    let mut header = vec![
        "group",
        "stack",
        "cert",
        "mode",
        "hs/s\n1 core",
        "server\nmedian",
        "client\nmedian",
        "KEM share\nS / C",
    ];
    if layout == Layout::Wide {
        header.extend([
            "server p25 – p75",
            "client p25 – p75",
            "server best round",
            "client best round",
            "handshakes",
        ]);
    }
    let mut t = headed(layout, &header);
    let mut g = Grouped::default();
    for r in measured(record) {
        for m in &r.modes {
            let mut row = names(&mut g, r, &[m.mode.as_str()]);
            let share = match (&r.kem, m.mode) {
                (Some(k), Mode::Full) => {
                    format!("{} / {}", pct(k.server_share), pct(k.client_share))
                }
                _ => "–".into(),
            };
            row.extend([
                num(units::count(m.handshakes_per_sec)),
                num(units::ns(m.server_ns.median)),
                num(units::ns(m.client_ns.median)),
                num(share),
            ]);
            if layout == Layout::Wide {
                row.extend([
                    num(format!(
                        "{} – {}",
                        units::ns(m.server_ns.p25),
                        units::ns(m.server_ns.p75)
                    )),
                    num(format!(
                        "{} – {}",
                        units::ns(m.client_ns.p25),
                        units::ns(m.client_ns.p75)
                    )),
                    num(units::ns(m.server_best_round_median_ns)),
                    num(units::ns(m.client_best_round_median_ns)),
                    num(m.handshakes),
                ]);
            }
            t.add_row(row);
        }
    }
    t
}

/// A flight as `1,500 B / 2` (bytes and segments, with its records in [`Layout::Wide`]),
/// flagged in red past the initial window.
fn flight_cell(f: Option<&Flight>, layout: Layout) -> Cell {
    let Some(f) = f else {
        return num("–");
    };
    let records = match layout {
        Layout::Wide => format!(" / {} rec", f.records),
        Layout::Fit => String::new(),
    };
    let text = format!(
        "{} B{records} / {}",
        units::thousands(f.bytes as u64),
        f.segments
    );
    if f.exceeds_initcwnd() {
        num(format!("{text} > initcwnd")).fg(Color::Red)
    } else {
        num(text)
    }
}

/// (b) Bytes and segments of each flight, and the key shares the checks saw.
fn flights(record: &TlsRecord, layout: Layout) -> Table {
    let mut t = headed(
        layout,
        &[
            "group",
            "stack",
            "cert",
            "mode",
            "ClientHello\nbytes / segs",
            "server flight\nbytes / segs",
            "client\nFinished",
            "key shares\nC / S bytes",
        ],
    );
    let mut g = Grouped::default();
    for r in measured(record) {
        let shares = r.checks.as_ref().map_or("–".into(), |c| {
            format!("{} / {}", c.client_share_bytes, c.server_share_bytes)
        });
        for (i, m) in r.modes.iter().enumerate() {
            let mut row = names(&mut g, r, &[m.mode.as_str()]);
            row.extend([
                flight_cell(m.client_hello(), layout),
                flight_cell(m.server_flight(), layout),
                num(m.client_finished().map_or("–".into(), |f| {
                    format!("{} B", units::thousands(f.bytes as u64))
                })),
                num(if i == 0 { shares.as_str() } else { "" }),
            ]);
            t.add_row(row);
        }
    }
    t
}

/// (c) Cores for the target rate, measured and modelled, if any result has them.
fn capacity(record: &TlsRecord, layout: Layout) -> Option<Table> {
    let caps: Vec<_> = record
        .results
        .iter()
        .filter_map(|r| r.capacity.as_ref().map(|c| (r, c)))
        .collect();
    if caps.is_empty() {
        return None;
    }
    let mut t = headed(
        layout,
        &[
            "group",
            "stack",
            "cert",
            "server\ncores",
            "client\ncores",
            "model\nserver",
            "model\nclient",
            "basis",
            "scaling\npenalty",
        ],
    );
    let mut g = Grouped::default();
    for (r, c) in caps {
        let model = r.kem.as_ref().map(|k| &k.model);
        let mut row = names(&mut g, r, &[]);
        row.extend([
            num(cores(c.server_cores_for_target)),
            num(cores(c.client_cores_for_target)),
            num(model.map_or("–".into(), |m| cores(m.server_cores_for_target))),
            num(model.map_or("–".into(), |m| cores(m.client_cores_for_target))),
            num(format!("{} threads", c.basis_threads)),
            num(format!("{:.2}", c.scaling_penalty)),
        ]);
        t.add_row(row);
    }
    Some(t)
}

/// (d) Full handshakes across thread counts, if measured.
fn scaling(record: &TlsRecord, layout: Layout) -> Option<Table> {
    if record.results.iter().all(|r| r.scaling.is_empty()) {
        return None;
    }
    let mut t = headed(
        layout,
        &[
            "group",
            "stack",
            "cert",
            "threads",
            "hs/s",
            "per-thread\nmin – max",
            "speedup",
            "efficiency",
        ],
    );
    let mut g = Grouped::default();
    for r in &record.results {
        for p in &r.scaling {
            let mut row = names(&mut g, r, &[]);
            row.extend([
                num(p.threads),
                num(units::count(p.total_ops_per_sec)),
                num(format!(
                    "{} – {}",
                    units::count(p.min_thread_rate()),
                    units::count(p.max_thread_rate())
                )),
                num(format!("{:.2}x", p.speedup)),
                num(pct(p.efficiency)),
            ]);
            t.add_row(row);
        }
    }
    Some(t)
}

/// (e) Handshake times per network condition, if measured.
fn network(record: &TlsRecord, layout: Layout) -> Option<Table> {
    if record.results.iter().all(|r| r.network.is_empty()) {
        return None;
    }
    let mut header = vec![
        "group", "stack", "cert", "profile", "RTT", "loss", "ok", "failed",
    ];
    match layout {
        Layout::Fit => header.extend(["p25", "median", "p95"]),
        Layout::Wide => header.extend([
            "min",
            "p25",
            "median",
            "p95",
            "max",
            "measured RTT",
            "rate",
            "delay / loss / rate by",
        ]),
    }
    let mut t = headed(layout, &header);
    let mut g = Grouped::default();
    for r in &record.results {
        for n in &r.network {
            let mut row = names(&mut g, r, &[]);
            row.extend([
                Cell::new(&n.profile),
                num(ms(n.rtt_ms)),
                num(format!("{}%", n.loss_pct)),
                num(n.handshakes),
                if n.failures > 0 {
                    num(n.failures).fg(Color::Red)
                } else {
                    num(n.failures)
                },
            ]);
            let times: Vec<Cell> = match (&n.time_ms, layout) {
                (Some(s), Layout::Fit) => [s.p25, s.median, s.p95].map(|v| num(ms(v))).into(),
                (Some(s), Layout::Wide) => [s.min, s.p25, s.median, s.p95, s.max]
                    .map(|v| num(ms(v)))
                    .into(),
                (None, Layout::Fit) => (0..3).map(|_| num("–")).collect(),
                (None, Layout::Wide) => (0..5).map(|_| num("–")).collect(),
            };
            row.extend(times);
            if layout == Layout::Wide {
                row.extend([
                    num(ms(n.measured_rtt_ms)),
                    num(if n.rate_mbit > 0.0 {
                        format!("{} Mbit/s", n.rate_mbit)
                    } else {
                        "–".into()
                    }),
                    Cell::new(format!(
                        "{} / {} / {}",
                        n.mechanisms.delay, n.mechanisms.loss, n.mechanisms.rate
                    )),
                ]);
            }
            t.add_row(row);
        }
    }
    Some(t)
}

/// How the network conditions were made, once for each distinct way ([`Layout::Fit`]).
fn mechanisms(record: &TlsRecord) -> String {
    let mut seen: Vec<String> = Vec::new();
    for n in record.results.iter().flat_map(|r| &r.network) {
        let m = format!(
            "delay by {}, loss by {}, rate limit by {}",
            n.mechanisms.delay, n.mechanisms.loss, n.mechanisms.rate
        );
        if !seen.contains(&m) {
            seen.push(m);
        }
    }
    prose(
        Layout::Fit,
        &format!(
            "Network conditions made with: {}. Fastest and slowest handshakes, measured RTTs and rate limits: `--wide`.",
            seen.join("; ")
        ),
    )
}

/// Groups a stack lacks, errors, network conditions skipped, interrupted benchmarks.
fn notes(record: &TlsRecord, layout: Layout) -> String {
    let mut out = String::new();
    for r in &record.results {
        let label = format!("{}@{}", r.group, r.implementation);
        if let Some(why) = &r.unavailable {
            out.push_str(&prose(layout, &format!("Unavailable: {label}: {why}")));
        }
        if let Some(e) = &r.error {
            out.push_str(&prose(layout, &format!("Error: {label}: {e}")));
        }
        if r.interrupted {
            out.push_str(&prose(
                layout,
                &format!("Interrupted: {label} (what was measured is shown)"),
            ));
        }
        if let Some(why) = &r.network_skipped {
            out.push_str(&prose(
                layout,
                &format!("Network conditions not measured for {label}: {why}"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::output::WIDTH;

    #[test]
    fn the_default_tables_fit_and_name_every_group_once_per_table() {
        let text = tables(&fixture::tls(), Layout::Fit);
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
        let text = tables(&fixture::tls(), Layout::Wide);
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
        let text = tables(&r, Layout::Fit);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= WIDTH, "{widest}\n{text}");
    }

    #[test]
    fn a_run_with_nothing_measured_says_why() {
        let mut r = fixture::tls();
        r.results.retain(|x| x.unavailable.is_some());
        let text = tables(&r, Layout::Fit);
        assert!(!text.contains('│'), "no table: {text}");
        assert!(text.starts_with("Unavailable: MLKEM1024"), "{text}");
    }
}
