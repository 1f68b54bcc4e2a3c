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

use super::{diff, environment_differences, EnvDifference};
use crate::record::tls::{Mode, TlsRecord, TlsResult};
use crate::record::Benchmark;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::record::tls::SERVER_FLIGHT;

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
