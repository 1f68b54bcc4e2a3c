//! A tls run as CSV: one row per kind of handshake and per network condition of each (group,
//! stack, certificate), a `section` column saying which.

use super::{ModeCost, NetPoint, TlsRecord, TlsResult};
use crate::units::or_empty as opt;

/// The header of tls CSV files: `section` is `handshake` (one row per kind of handshake, the
/// figures up to `target_rate`), `network` (one row per network condition, the figures from
/// `network_profile`) or `unavailable` (the reason in `note`); the columns of the other
/// sections are empty.
pub const HEADER: &[&str] = &[
    "section",
    "group",
    "stack",
    "cert",
    "algorithm",
    "version",
    "codepoint",
    "mode",
    "handshakes",
    "handshakes_per_sec",
    "server_median_ns",
    "server_p25_ns",
    "server_p75_ns",
    "server_p95_ns",
    "client_median_ns",
    "client_p25_ns",
    "client_p75_ns",
    "client_p95_ns",
    "server_best_round_median_ns",
    "client_best_round_median_ns",
    "client_hello_bytes",
    "client_hello_segments",
    "server_flight_bytes",
    "server_flight_records",
    "server_flight_segments",
    "client_share_bytes",
    "server_share_bytes",
    "kem_server_share",
    "kem_client_share",
    "server_cores_for_target",
    "client_cores_for_target",
    "model_server_cores_for_target",
    "model_client_cores_for_target",
    "target_rate",
    "network_profile",
    "rtt_ms",
    "loss_pct",
    "rate_mbit",
    "measured_rtt_ms",
    "failures",
    "time_min_ms",
    "time_p25_ms",
    "time_median_ms",
    "time_p95_ms",
    "time_max_ms",
    "note",
];

/// Index of `name` in [`HEADER`].
fn tls_column(name: &str) -> usize {
    HEADER
        .iter()
        .position(|c| *c == name)
        .unwrap_or_else(|| panic!("no tls CSV column {name}"))
}

/// A tls row: the identifying columns filled, the rest empty until set by name.
struct TlsRow(Vec<String>);

impl TlsRow {
    fn new(section: &str, r: &TlsResult) -> TlsRow {
        let mut row = TlsRow(vec![String::new(); HEADER.len()]);
        row.set("section", section)
            .set("group", &r.group)
            .set("stack", &r.stack)
            .set("cert", &r.cert)
            .set("algorithm", &r.algorithm)
            .set("version", &r.version)
            .set("codepoint", r.codepoint);
        row
    }

    fn set(&mut self, column: &str, v: impl ToString) -> &mut TlsRow {
        self.0[tls_column(column)] = v.to_string();
        self
    }

    fn set_opt(&mut self, column: &str, v: Option<impl ToString>) -> &mut TlsRow {
        self.set(column, opt(v))
    }
}

/// The `handshake` row of one kind of handshake.
fn tls_mode_row(r: &TlsResult, m: &ModeCost) -> TlsRow {
    let mut row = TlsRow::new("handshake", r);
    let (hello, server) = (m.client_hello(), m.server_flight());
    row.set("mode", m.mode.as_str())
        .set("handshakes", m.handshakes)
        .set("handshakes_per_sec", m.handshakes_per_sec)
        .set("server_median_ns", m.server_ns.median)
        .set("server_p25_ns", m.server_ns.p25)
        .set("server_p75_ns", m.server_ns.p75)
        .set("server_p95_ns", m.server_ns.p95)
        .set("client_median_ns", m.client_ns.median)
        .set("client_p25_ns", m.client_ns.p25)
        .set("client_p75_ns", m.client_ns.p75)
        .set("client_p95_ns", m.client_ns.p95)
        .set("server_best_round_median_ns", m.server_best_round_median_ns)
        .set("client_best_round_median_ns", m.client_best_round_median_ns)
        .set_opt("client_hello_bytes", hello.map(|f| f.bytes))
        .set_opt("client_hello_segments", hello.map(|f| f.segments))
        .set_opt("server_flight_bytes", server.map(|f| f.bytes))
        .set_opt("server_flight_records", server.map(|f| f.records))
        .set_opt("server_flight_segments", server.map(|f| f.segments))
        .set_opt(
            "client_share_bytes",
            r.checks.as_ref().map(|c| c.client_share_bytes),
        )
        .set_opt(
            "server_share_bytes",
            r.checks.as_ref().map(|c| c.server_share_bytes),
        )
        .set_opt("kem_server_share", r.kem.as_ref().map(|k| k.server_share))
        .set_opt("kem_client_share", r.kem.as_ref().map(|k| k.client_share));
    // Capacity and the model are about full handshakes.
    if m.mode == crate::record::tls::Mode::Full {
        let c = r.capacity.as_ref();
        let model = r.kem.as_ref().map(|k| &k.model);
        row.set_opt(
            "server_cores_for_target",
            c.map(|c| c.server_cores_for_target),
        )
        .set_opt(
            "client_cores_for_target",
            c.map(|c| c.client_cores_for_target),
        )
        .set_opt(
            "model_server_cores_for_target",
            model.map(|m| m.server_cores_for_target),
        )
        .set_opt(
            "model_client_cores_for_target",
            model.map(|m| m.client_cores_for_target),
        )
        .set_opt("target_rate", c.map(|c| c.target_rate));
    }
    row
}

/// The `network` row of one network condition.
fn tls_network_row(r: &TlsResult, n: &NetPoint) -> TlsRow {
    let mut row = TlsRow::new("network", r);
    let t = n.time_ms.as_ref();
    row.set("handshakes", n.handshakes)
        .set("network_profile", &n.profile)
        .set("rtt_ms", n.rtt_ms)
        .set("loss_pct", n.loss_pct)
        .set("rate_mbit", n.rate_mbit)
        .set("measured_rtt_ms", n.measured_rtt_ms)
        .set("failures", n.failures)
        .set_opt("time_min_ms", t.map(|t| t.min))
        .set_opt("time_p25_ms", t.map(|t| t.p25))
        .set_opt("time_median_ms", t.map(|t| t.median))
        .set_opt("time_p95_ms", t.map(|t| t.p95))
        .set_opt("time_max_ms", t.map(|t| t.max))
        .set(
            "note",
            format!(
                "delay: {}; loss: {}; rate: {}",
                n.mechanisms.delay, n.mechanisms.loss, n.mechanisms.rate
            ),
        );
    row
}

/// The CSV rows of one result.
pub fn rows(_all: &TlsRecord, r: &TlsResult) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    if let Some(why) = r.unavailable.as_ref().or(r.error.as_ref()) {
        let section = if r.unavailable.is_some() {
            "unavailable"
        } else {
            "error"
        };
        rows.push(TlsRow::new(section, r).set("note", why).0.clone());
    }
    for m in &r.modes {
        rows.push(tls_mode_row(r, m).0);
    }
    for n in &r.network {
        rows.push(tls_network_row(r, n).0);
    }
    rows
}
