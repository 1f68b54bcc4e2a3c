//! Comparison of two tls runs: per (group, stack, certificate) present in both and per kind of
//! handshake, the ratio new / old of the server's and the client's best-round medians and of
//! handshakes per second; the flights whose size changed; and per network condition the
//! change of the median handshake time.
//!
//! No significance test stands behind these ratios: a tls run keeps per-round medians and
//! summaries, not the samples, and the figures of two runs on a machine whose speed drifts
//! differ by more than chance. The best-round medians (the fastest state each run reached)
//! are compared because they move least with that drift; the ratios are indicative, and
//! flight sizes, which do not depend on timing, are exact.

use crate::record::compare::{self as shared, diff, environment_differences, Asked, EnvDifference};
use crate::record::tls::{Mode, TlsRecord, TlsResult};
use crate::record::Benchmark;
use crate::table::{Cell, Column, Mark, Table, Tables, CONSOLE};
use crate::units;
use serde::Serialize;

/// One kind of handshake of one benchmark in both runs.
#[derive(Debug, Clone, Serialize)]
pub struct ModeRow {
    /// The group's TLS name.
    pub group: String,
    /// `STACK/CERT`.
    pub implementation: String,
    /// The kind of handshake.
    pub mode: Mode,
    /// The server's best-round median in the old run, ns.
    pub old_server_ns: f64,
    /// The same in the new run, ns.
    pub new_server_ns: f64,
    /// The client's best-round median in the old run, ns.
    pub old_client_ns: f64,
    /// The same in the new run, ns.
    pub new_client_ns: f64,
    /// Handshakes per second of one thread in the old run.
    pub old_handshakes_per_sec: f64,
    /// The same in the new run.
    pub new_handshakes_per_sec: f64,
}

impl ModeRow {
    /// new / old of the server's best-round median.
    pub fn server_ratio(&self) -> f64 {
        ratio(self.new_server_ns, self.old_server_ns)
    }

    /// new / old of the client's best-round median.
    pub fn client_ratio(&self) -> f64 {
        ratio(self.new_client_ns, self.old_client_ns)
    }

    /// new / old of handshakes per second (above 1: faster).
    pub fn rate_ratio(&self) -> f64 {
        ratio(self.new_handshakes_per_sec, self.old_handshakes_per_sec)
    }
}

/// A flight whose size differs between the runs.
#[derive(Debug, Clone, Serialize)]
pub struct FlightChange {
    /// `group@STACK/CERT`.
    pub label: String,
    /// The kind of handshake.
    pub mode: Mode,
    /// The flight's name.
    pub flight: String,
    /// Bytes in the old run.
    pub old_bytes: usize,
    /// Bytes in the new run.
    pub new_bytes: usize,
    /// Segments in the old run.
    pub old_segments: usize,
    /// Segments in the new run.
    pub new_segments: usize,
}

impl FlightChange {
    /// new − old, bytes.
    pub fn delta(&self) -> i64 {
        self.new_bytes as i64 - self.old_bytes as i64
    }
}

/// One network condition of one benchmark in both runs.
#[derive(Debug, Clone, Serialize)]
pub struct NetRow {
    /// `group@STACK/CERT`.
    pub label: String,
    /// The condition's name.
    pub profile: String,
    /// Median handshake time in the old run, ms (none when nothing completed).
    pub old_median_ms: Option<f64>,
    /// The same in the new run.
    pub new_median_ms: Option<f64>,
    /// Failed handshakes in the old run.
    pub old_failures: u64,
    /// Failed handshakes in the new run.
    pub new_failures: u64,
}

impl NetRow {
    /// new − old of the median, ms, when both have one.
    pub fn delta_ms(&self) -> Option<f64> {
        Some(self.new_median_ms? - self.old_median_ms?)
    }
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct TlsReport {
    /// Environment, build and stack-version differences, shown above the tables.
    pub differences: Vec<EnvDifference>,
    /// One row per kind of handshake measured in both runs.
    pub modes: Vec<ModeRow>,
    /// The flights whose size changed.
    pub flights: Vec<FlightChange>,
    /// One row per network condition measured in both runs.
    pub network: Vec<NetRow>,
    /// Benchmarks (and kinds of handshake) measured in only one run: (label, "old" or "new").
    pub unmatched: Vec<(String, &'static str)>,
}

fn ratio(new: f64, old: f64) -> f64 {
    if old > 0.0 {
        new / old
    } else {
        f64::NAN
    }
}

/// What was measured of `r`, labelled: the benchmark, and each kind of handshake.
fn measured(r: &TlsResult) -> Vec<String> {
    r.modes
        .iter()
        .map(|m| format!("{} {}", r.label(), m.mode.as_str()))
        .collect()
}

/// Compares two tls runs, `old` then `new`.
pub fn compare(old: &TlsRecord, new: &TlsRecord) -> TlsReport {
    let mut modes = Vec::new();
    let mut flights = Vec::new();
    let mut network = Vec::new();
    let mut unmatched = Vec::new();
    let mut differences = environment_differences(&old.environment, &new.environment);
    for a in &old.results {
        let Some(b) = new.result(&a.algorithm, &a.implementation) else {
            unmatched.extend(measured(a).into_iter().map(|l| (l, "old")));
            continue;
        };
        let label = a.label();
        diff(
            &mut differences,
            &format!("{} version ({label})", a.stack),
            &a.version,
            &b.version,
        );
        for ma in &a.modes {
            let Some(mb) = b.mode(ma.mode) else {
                unmatched.push((format!("{label} {}", ma.mode.as_str()), "old"));
                continue;
            };
            modes.push(ModeRow {
                group: a.group.clone(),
                implementation: a.implementation.clone(),
                mode: ma.mode,
                old_server_ns: ma.server_best_round_median_ns,
                new_server_ns: mb.server_best_round_median_ns,
                old_client_ns: ma.client_best_round_median_ns,
                new_client_ns: mb.client_best_round_median_ns,
                old_handshakes_per_sec: ma.handshakes_per_sec,
                new_handshakes_per_sec: mb.handshakes_per_sec,
            });
            for fa in &ma.flights {
                if let Some(fb) = mb.flight(&fa.name) {
                    if fa.bytes != fb.bytes {
                        flights.push(FlightChange {
                            label: label.clone(),
                            mode: ma.mode,
                            flight: fa.name.clone(),
                            old_bytes: fa.bytes,
                            new_bytes: fb.bytes,
                            old_segments: fa.segments,
                            new_segments: fb.segments,
                        });
                    }
                }
            }
        }
        for mb in b.modes.iter().filter(|m| a.mode(m.mode).is_none()) {
            unmatched.push((format!("{label} {}", mb.mode.as_str()), "new"));
        }
        for na in &a.network {
            if let Some(nb) = b.network.iter().find(|n| n.profile == na.profile) {
                network.push(NetRow {
                    label: label.clone(),
                    profile: na.profile.clone(),
                    old_median_ms: na.time_ms.as_ref().map(|t| t.median),
                    new_median_ms: nb.time_ms.as_ref().map(|t| t.median),
                    old_failures: na.failures,
                    new_failures: nb.failures,
                });
            }
        }
    }
    for b in &new.results {
        if old.result(&b.algorithm, &b.implementation).is_none() {
            unmatched.extend(measured(b).into_iter().map(|l| (l, "new")));
        }
    }
    TlsReport {
        differences,
        modes,
        flights,
        network,
        unmatched,
    }
}

/// The comparison of two tls runs as `compare` shows it.
pub struct Compared<'a> {
    report: TlsReport,
    asked: Asked<'a>,
}

impl<'a> Compared<'a> {
    /// Compares `old` and `new`, named as `asked`.
    pub fn new(old: &TlsRecord, new: &TlsRecord, asked: Asked<'a>) -> Compared<'a> {
        Compared {
            report: compare(old, new),
            asked,
        }
    }
}

/// Ratios within this band of 1 are left unmarked.
const BAND: f64 = 0.02;

/// A ratio new / old, marked bad when it is worse by more than [`BAND`] and good when better:
/// for a time (`higher_is_worse`) above 1 is worse, for a rate below.
fn ratio_cell(ratio: f64, higher_is_worse: bool) -> Cell {
    let c = Cell::num(format!("{ratio:.3}"), ratio);
    let (above, below) = (ratio > 1.0 + BAND, ratio < 1.0 - BAND);
    let (worse, better) = if higher_is_worse {
        (above, below)
    } else {
        (below, above)
    };
    c.marked_if(worse, Mark::Bad).marked_if(better, Mark::Good)
}

/// `old → new` of two times.
fn times(old_ns: f64, new_ns: f64) -> Cell {
    Cell::right(format!("{} → {}", units::ns(old_ns), units::ns(new_ns)))
}

impl shared::Comparison for Compared<'_> {
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&self.report)
    }

    fn nothing_shared(&self) -> Option<String> {
        let r = &self.report;
        (r.modes.is_empty() && r.network.is_empty()).then(|| {
            format!(
                "{} and {} share no (group, stack, certificate, kind of handshake) to compare",
                self.asked.old, self.asked.new
            )
        })
    }

    /// Per benchmark and kind of handshake the best-round medians of each side and
    /// handshakes per second, new over old; the flights whose size changed; the median
    /// handshake time under each network condition.
    fn tables(&self) -> Tables {
        let r = &self.report;
        let modes = shared::table(
            "modes",
            vec![
                Column::text("group"),
                Column::text("implementation"),
                Column::text("mode"),
                Column::num("server old → new"),
                Column::num("new/old"),
                Column::num("client old → new"),
                Column::num("new/old"),
                Column::num("hs/s new/old"),
            ],
            r.modes
                .iter()
                .map(|m| {
                    vec![
                        Cell::text(&m.group),
                        Cell::text(&m.implementation),
                        Cell::text(m.mode.as_str()),
                        times(m.old_server_ns, m.new_server_ns),
                        ratio_cell(m.server_ratio(), true),
                        times(m.old_client_ns, m.new_client_ns),
                        ratio_cell(m.client_ratio(), true),
                        ratio_cell(m.rate_ratio(), false),
                    ]
                })
                .collect(),
        );
        let flights = if r.flights.is_empty() {
            "No flight changed size.\n".to_string()
        } else {
            let mut s = "Flights whose size changed:\n".to_string();
            for f in &r.flights {
                s.push_str(&format!(
                    "  {:>+7} B  {} → {} B ({} → {} segments)  {} {}: {}\n",
                    f.delta(),
                    f.old_bytes,
                    f.new_bytes,
                    f.old_segments,
                    f.new_segments,
                    f.label,
                    f.mode.as_str(),
                    f.flight
                ));
            }
            s
        };
        let ms = |v: Option<f64>| v.map_or("–".into(), |v| units::ns(v * 1e6));
        let network = shared::table(
            "network",
            vec![
                Column::text("benchmark"),
                Column::text("network"),
                Column::num("old median"),
                Column::num("new median"),
                Column::num("new − old"),
                Column::num("failures old → new"),
            ],
            r.network
                .iter()
                .map(|n| {
                    let delta = n.delta_ms().map_or("–".into(), |d| {
                        format!(
                            "{}{}",
                            if d < 0.0 { "−" } else { "+" },
                            units::ns(d.abs() * 1e6)
                        )
                    });
                    vec![
                        Cell::text(&n.label),
                        Cell::text(&n.profile),
                        Cell::right(ms(n.old_median_ms)),
                        Cell::right(ms(n.new_median_ms)),
                        Cell::right(delta),
                        Cell::right(format!("{} → {}", n.old_failures, n.new_failures)),
                    ]
                })
                .collect(),
        );
        shared::console(
            vec![
                shared::heading(
                    &self.asked,
                    &r.differences,
                    "Same environment and stack versions.",
                    "runs",
                ),
                modes,
                Table::block("flights", CONSOLE, flights),
                network,
                shared::unmatched(&r.unmatched, "run"),
            ],
            "Times are each side's best-round median (the fastest state the run reached). A tls run keeps no samples, so no significance test stands behind these ratios: between two runs on a machine whose speed drifts they are indicative only, and a change of a few percent may be noise. Flight sizes are exact.",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::record::tls::SERVER_FLIGHT;

    #[test]
    fn the_console_shows_ratios_changes_and_the_warning() {
        use crate::record::compare::Comparison;
        let old = fixture::tls();
        let mut new = fixture::tls();
        new.results[0].modes[0].server_best_round_median_ns *= 2.0;
        new.results[0].modes[0].flights[0].bytes += 32;
        new.results.pop();
        let asked = Asked {
            old: "a.json",
            new: "b.json",
            noise: 0.02,
        };
        let c = Compared::new(&old, &new, asked);
        let text = crate::output::described(&c.tables(), crate::output::Width::Fit);
        assert!(
            text.starts_with("old: a.json\nnew: b.json\nSame environment"),
            "{text}"
        );
        assert!(text.contains("2.000"), "{text}");
        assert!(text.contains("+32 B  1500 → 1532 B"), "{text}");
        assert!(text.contains("rtt30-loss3"), "{text}");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("they are indicative only"), "{text}");
        assert!(
            !text.contains("only in the"),
            "the unavailable group measured nothing: {text}"
        );
        let said = &text[text.find("Times are").unwrap()..];
        assert!(
            said.lines().all(|l| l.chars().count() <= crate::output::WIDTH),
            "{said}"
        );
        assert!(c.nothing_shared().is_none());
        let none = Compared::new(&old, &crate::record::Record { results: Vec::new(), ..old.clone() }, asked);
        assert!(none.nothing_shared().unwrap().contains("share no (group, stack"));
    }

    #[test]
    fn a_run_against_itself_has_ratios_of_one_and_no_changes() {
        let r = fixture::tls();
        let c = compare(&r, &r);
        assert!(c.differences.is_empty(), "{:?}", c.differences);
        assert_eq!(
            c.modes.len(),
            4,
            "three modes of the hybrid group, one of P-256"
        );
        assert!(c
            .modes
            .iter()
            .all(|m| m.server_ratio() == 1.0 && m.client_ratio() == 1.0 && m.rate_ratio() == 1.0));
        assert!(c.flights.is_empty());
        assert_eq!(c.network.len(), 3);
        assert!(c.network.iter().all(|n| n.delta_ms() == Some(0.0)));
        assert!(c.unmatched.is_empty());
    }

    #[test]
    fn slower_servers_bigger_flights_and_missing_benchmarks_are_reported() {
        let old = fixture::tls();
        let mut new = fixture::tls();
        let hybrid = &mut new.results[0];
        hybrid.version = "0.24.0".into();
        hybrid.modes[0].server_best_round_median_ns *= 1.5;
        hybrid.modes[0].flights[1].bytes += 100;
        hybrid.modes.retain(|m| m.mode != Mode::Hrr);
        hybrid.network[2].time_ms.as_mut().unwrap().median += 5.0;
        new.results.remove(1);
        let c = compare(&old, &new);
        let full = &c.modes[0];
        assert_eq!(full.mode, Mode::Full);
        assert!((full.server_ratio() - 1.5).abs() < 1e-12);
        assert_eq!(full.client_ratio(), 1.0);
        assert_eq!(c.flights.len(), 1);
        assert_eq!(c.flights[0].flight, SERVER_FLIGHT);
        assert_eq!(c.flights[0].delta(), 100);
        assert_eq!(c.network[2].delta_ms(), Some(5.0));
        assert!(c
            .differences
            .iter()
            .any(|d| d.what.starts_with("rustls version")
                && d.old == "0.23.0"
                && d.new == "0.24.0"));
        let unmatched: Vec<String> = c
            .unmatched
            .iter()
            .map(|(l, side)| format!("{side}: {l}"))
            .collect();
        assert_eq!(
            unmatched,
            [
                "old: X25519MLKEM768@rustls/ecdsa-p256 hrr",
                "old: P-256@openssl/rsa2048 full"
            ]
        );
    }
}
