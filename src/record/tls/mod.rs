//! The record of `kembench tls`: per TLS stack, key-exchange group and certificate, real TLS 1.3
//! handshakes: the checks each one passed, bytes and TCP segments per flight, CPU per handshake
//! on each side (full, resumed, after a HelloRetryRequest), scaling across threads, the cores
//! for a target rate beside the bare-KEM model, and handshake times under network conditions.

mod csv;
pub mod tables;
pub mod compare;

use super::metrics::{Measure, Metric};
use super::scaling::{Capacity, Point};
use super::compare::{Asked, Comparison, Compares};
use super::{Benchmark, Facts, Kind, Nothing, Record, ResultStatus};
use serde::{Deserialize, Serialize};

/// Version of the JSON layout.
pub const SCHEMA_VERSION: u32 = 1;

/// TCP's maximum segment size the segment counts assume (Ethernet MTU 1500 less 40 bytes of
/// IPv4 and TCP headers).
pub const MSS: usize = 1460;
/// TCP's initial congestion window, segments (RFC 6928).
pub const INITCWND: usize = 10;

/// A distribution's summary: the figures the reference study of this question reports, plus
/// the quartile above.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Smallest value.
    pub min: f64,
    /// 25th percentile.
    pub p25: f64,
    /// Median.
    pub median: f64,
    /// 75th percentile.
    pub p75: f64,
    /// 95th percentile.
    pub p95: f64,
    /// Largest value.
    pub max: f64,
    /// Values summarised.
    pub n: usize,
}

impl Spread {
    /// The summary of `values` (`None` when there are none or one is not finite).
    pub fn of(values: &[f64]) -> Option<Spread> {
        if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let s = crate::stats::sorted(values);
        let p = |q: f64| crate::stats::percentile(&s, q);
        Some(Spread {
            min: s[0],
            p25: p(25.0),
            median: p(50.0),
            p75: p(75.0),
            p95: p(95.0),
            max: s[s.len() - 1],
            n: s.len(),
        })
    }

    fn values(&self) -> [f64; 6] {
        [
            self.min,
            self.p25,
            self.median,
            self.p75,
            self.p95,
            self.max,
        ]
    }
}

/// One flight of a handshake: what one side sends before it waits for the other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flight {
    /// Which flight (`ClientHello`, `ServerHello..Finished`, `client Finished`,
    /// `NewSessionTicket`, and for a HelloRetryRequest `HelloRetryRequest` and
    /// `second ClientHello`).
    pub name: String,
    /// Sender: `client` or `server`.
    pub from: String,
    /// TLS bytes on the wire (record headers included, TCP/IP headers not).
    pub bytes: usize,
    /// TLS records in the flight.
    pub records: usize,
    /// TCP segments the flight takes at [`MSS`] bytes each.
    pub segments: usize,
}

/// The name of the client's first flight.
pub const CLIENT_HELLO: &str = "ClientHello";
/// The name of the client's second ClientHello, after a HelloRetryRequest.
pub const SECOND_CLIENT_HELLO: &str = "second ClientHello";
/// The name of the server's flight that carries its key share and certificate.
pub const SERVER_FLIGHT: &str = "ServerHello..Finished";
/// The name of the client's last flight.
pub const CLIENT_FINISHED: &str = "client Finished";

impl Flight {
    /// Whether the flight takes more segments than TCP may send before the first
    /// acknowledgement ([`INITCWND`]): one more round trip.
    pub fn exceeds_initcwnd(&self) -> bool {
        self.segments > INITCWND
    }

    /// A flight of `bytes` in `records` records.
    pub fn new(name: &str, from: &str, bytes: usize, records: usize) -> Flight {
        Flight {
            name: name.to_string(),
            from: from.to_string(),
            bytes,
            records,
            segments: bytes.div_ceil(MSS),
        }
    }
}

/// What the checks of the handshakes found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checks {
    /// Handshakes checked whole: the group both sides report and the one on the wire, the key
    /// shares, the retry, the resumption, the keying material both export (before
    /// `completion_only` was recorded, every handshake of the run).
    pub handshakes: u64,
    /// Timed handshakes between two whole checks, checked only for completing (and resuming
    /// when their kind does): one in `tls::measure::CHECK_EVERY` is checked whole, so that
    /// the checks' cost stays out of handshakes per second.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub completion_only: u64,
    /// The median cost of one whole check (reading the flights, exporting and comparing the
    /// keying material, the groups), ns: what checking every handshake would add to one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_ns: Option<f64>,
    /// The group both stacks reported, and the one the ServerHello carries on the wire.
    pub negotiated_group: String,
    /// The key share the ClientHello carries for the group, bytes.
    pub client_share_bytes: usize,
    /// The key share the ServerHello carries, bytes.
    pub server_share_bytes: usize,
    /// The certificate chain the client verified: signature algorithm and chain length.
    pub certificate: String,
}

/// The kinds of handshake measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// A full handshake: the client's first key share is for the group asked for.
    Full,
    /// A resumed handshake: a session ticket from an earlier one, PSK with (EC)DHE.
    Resumed,
    /// The client's first key share is for another group (X25519, or secp256r1 when the group
    /// is X25519): the server answers with a HelloRetryRequest.
    Hrr,
}

impl Mode {
    /// Every mode, in the order measured.
    pub const ALL: [Mode; 3] = [Mode::Full, Mode::Resumed, Mode::Hrr];

    /// The spelling of files, the store and the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::Resumed => "resumed",
            Mode::Hrr => "hrr",
        }
    }

    /// The mode spelt `s`.
    pub fn parse(s: &str) -> Option<Mode> {
        Self::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

/// CPU cost of one kind of handshake on one core, in-memory transport.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModeCost {
    /// Which kind of handshake.
    pub mode: Mode,
    /// Handshakes made (each checked).
    pub handshakes: u64,
    /// Handshakes per second of one thread doing both sides, connection objects included.
    pub handshakes_per_sec: f64,
    /// The server's time in its own calls per handshake (ns): what a TLS terminator pays.
    pub server_ns: Spread,
    /// The client's time in its own calls per handshake (ns).
    pub client_ns: Spread,
    /// The fastest state's figure: the lowest of the per-round medians of the server's time.
    pub server_best_round_median_ns: f64,
    /// The same for the client.
    pub client_best_round_median_ns: f64,
    /// The flights of one such handshake.
    pub flights: Vec<Flight>,
}

/// The bare key exchange measured in the same run with kembench's own implementation of the
/// group on the same library, and its share of the handshake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KemShare {
    /// The implementation measured (`X25519MLKEM768@rustls/aws-lc-rs`).
    pub implementation: String,
    /// Median keygen (the client's key share), ns.
    pub keygen_ns: f64,
    /// Median encapsulation (the server's share and secret), ns.
    pub encaps_ns: f64,
    /// Median decapsulation (the client's secret), ns.
    pub decaps_ns: f64,
    /// Encapsulation over the server's median time per full handshake.
    pub server_share: f64,
    /// Keygen plus decapsulation over the client's median time per full handshake.
    pub client_share: f64,
    /// What `throughput`'s model predicts from these bare rates on one core.
    pub model: Capacity,
}

/// The handshake's signatures timed outside it on the stack's own library in the same rounds
/// as the handshakes (as [`KemShare`] is): the server's CertificateVerify signature and the
/// client's verifications, and their shares of each side's full handshake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignatureShare {
    /// What was timed (`ML-DSA-65 (ML_DSA_65) via rustls/aws-lc-rs`).
    pub implementation: String,
    /// The signed message's bytes (TLS 1.3's CertificateVerify input).
    pub message_bytes: usize,
    /// Median over rounds of the rounds' median signing time (the server's CertificateVerify
    /// with the leaf's key), ns.
    pub sign_ns: f64,
    /// Median over rounds of the rounds' median time of the client's verifications, ns.
    pub verify_ns: f64,
    /// The verifications summed in `verify_ns` (the leaf's and the intermediate's certificate
    /// signatures and the CertificateVerify signature: 3).
    pub verifications: usize,
    /// Signing over the server's median time per full handshake (median of the rounds' ratios).
    pub server_share: f64,
    /// The verifications over the client's median time per full handshake, likewise.
    pub client_share: f64,
}

/// Cores a TLS terminator (and its clients) need for the target rate of full handshakes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TlsCapacity {
    /// Target handshakes per second.
    pub target_rate: f64,
    /// Thread count whose per-core rate is used (the largest not above the logical CPUs).
    pub basis_threads: usize,
    /// Per-core slowdown at that thread count against one thread (1 = perfect scaling).
    pub scaling_penalty: f64,
    /// Server handshakes per second per core: one over the server's median time, times the
    /// scaling penalty.
    pub server_handshakes_per_sec_per_core: f64,
    /// Client handshakes per second per core, likewise.
    pub client_handshakes_per_sec_per_core: f64,
    /// Server cores for the target rate.
    pub server_cores_for_target: f64,
    /// Client cores for the target rate.
    pub client_cores_for_target: f64,
}

/// How one network condition was produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mechanisms {
    /// The delay (`relay`: kembench's packet relay holds each frame, both directions).
    pub delay: String,
    /// The loss (`nft numgen random` rule dropping a share of the packets), or `none`.
    pub loss: String,
    /// The rate limit (`tbf` qdisc), or `none`.
    pub rate: String,
}

/// Handshake completion times under one network condition (loopback TCP between namespaces).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetPoint {
    /// The profile's name (`rtt31-loss3`).
    pub profile: String,
    /// Round-trip time asked for, ms.
    pub rtt_ms: f64,
    /// Packet loss asked for, percent of packets, each direction.
    pub loss_pct: f64,
    /// Rate limit, Mbit/s.
    pub rate_mbit: f64,
    /// Round-trip time measured before the handshakes (TCP connect times' median), ms.
    pub measured_rtt_ms: f64,
    /// How each part of the condition was made.
    pub mechanisms: Mechanisms,
    /// Handshakes completed and checked.
    pub handshakes: u64,
    /// Handshakes in flight at once.
    #[serde(default)]
    pub concurrency: usize,
    /// Handshakes that failed or timed out (not in the times).
    pub failures: u64,
    /// TCP connect plus TLS handshake until the client is done, ms.
    pub time_ms: Option<Spread>,
}

/// Everything measured for one (group, stack, certificate).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TlsResult {
    /// The key-exchange group as the registry names its algorithm (`X25519MLKEM768`, `P-256`).
    pub algorithm: String,
    /// `STACK/CERT` (`rustls/ecdsa-p256`): the benchmark's implementation.
    pub implementation: String,
    /// The TLS stack (`rustls`, `openssl`).
    pub stack: String,
    /// The stack's version.
    pub version: String,
    /// The group's TLS name (`X25519MLKEM768`, `secp256r1`).
    pub group: String,
    /// The group's code point.
    pub codepoint: u16,
    /// The server certificate's key (`ecdsa-p256`, `ed25519`, `rsa2048`).
    pub cert: String,
    /// The shape of the client's hello (`minimal`, `defaults`, `browser`); records made before
    /// there were shapes had the minimal one.
    #[serde(default = "minimal", skip_serializing_if = "is_minimal")]
    pub hello: String,
    /// The key shares of the client's first ClientHello as the wire showed them
    /// (`GREASE 0x4a4a 1 B, X25519MLKEM768 1216 B, X25519 32 B`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_shares: Option<String>,
    /// Kinds of handshake asked for that this hello has not, each with why (`hrr: ...`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modes_unavailable: Vec<String>,
    /// Why the stack cannot run this group (then nothing else is measured).
    pub unavailable: Option<String>,
    /// What every handshake was checked for.
    pub checks: Option<Checks>,
    /// CPU cost per kind of handshake.
    pub modes: Vec<ModeCost>,
    /// Full handshakes across thread counts (both sides in each thread).
    pub scaling: Vec<Point>,
    /// Cores for the target rate.
    pub capacity: Option<TlsCapacity>,
    /// The bare key exchange and its share.
    pub kem: Option<KemShare>,
    /// Why the bare key exchange was not timed, when the stack's library has no
    /// implementation in kembench's registry (BoringSSL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kem_unavailable: Option<String>,
    /// The handshake's signatures timed bare on the same library (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<SignatureShare>,
    /// Why the signatures were not timed bare (BoringSSL: it runs in its own worker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature_unavailable: Option<String>,
    /// Handshake times per network condition.
    pub network: Vec<NetPoint>,
    /// Why the network conditions were not measured, when asked for.
    pub network_skipped: Option<String>,
    /// An error that stopped the measurement, if any.
    pub error: Option<String>,
    /// Ctrl-C or SIGTERM stopped it part-way (what was measured is kept).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

impl TlsResult {
    /// The certificate key, with `/hello` after it when the hello is not minimal
    /// (`ecdsa-p256/defaults`): how the tables name a benchmark's certificate and hello, in the
    /// order of its label.
    pub fn cert_and_hello(&self) -> String {
        if self.hello == "minimal" {
            self.cert.clone()
        } else {
            format!("{}/{}", self.cert, self.hello)
        }
    }
}

impl ModeCost {
    /// The flight called `name`, if the handshake had one.
    pub fn flight(&self, name: &str) -> Option<&Flight> {
        self.flights.iter().find(|f| f.name == name)
    }

    /// The ClientHello that carries the key share for the group: the second one after a
    /// HelloRetryRequest, else the first.
    pub fn client_hello(&self) -> Option<&Flight> {
        self.flight(SECOND_CLIENT_HELLO)
            .or_else(|| self.flight(CLIENT_HELLO))
    }

    /// The server's flight with its key share and certificate.
    pub fn server_flight(&self) -> Option<&Flight> {
        self.flight(SERVER_FLIGHT)
    }

    /// The client's Finished flight.
    pub fn client_finished(&self) -> Option<&Flight> {
        self.flight(CLIENT_FINISHED)
    }
}

impl TlsResult {
    /// The cost of one kind of handshake, if measured.
    pub fn mode(&self, mode: Mode) -> Option<&ModeCost> {
        self.modes.iter().find(|m| m.mode == mode)
    }
}

/// A network condition: what a run's configuration asks for and what the engine's testbed
/// (`tls::net`) sets up, one type for both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetProfile {
    /// Its name (`rtt31.2-loss3`; records from before the names kept the decimals say
    /// `rtt31-loss3`).
    pub name: String,
    /// Round-trip time, ms.
    pub rtt_ms: f64,
    /// Packet loss, percent of the TCP packets, each direction.
    pub loss_pct: f64,
    /// Rate limit, Mbit/s, each direction (0: none).
    pub rate_mbit: f64,
}

impl NetProfile {
    /// The rate every condition is limited to unless it says otherwise (pq-tls-benchmark's).
    pub const DEFAULT_RATE_MBIT: f64 = 1000.0;

    /// The condition of `rtt_ms`, `loss_pct` and `rate_mbit`, named
    /// `rtt<RTT>-loss<LOSS>[-rate<RATE>]` (the rate only when not the default):
    /// `rtt31.2-loss3`, `rtt5-loss0-rate100`.
    pub fn new(rtt_ms: f64, loss_pct: f64, rate_mbit: f64) -> NetProfile {
        let mut name = format!("rtt{rtt_ms}-loss{loss_pct}");
        if rate_mbit != Self::DEFAULT_RATE_MBIT {
            name.push_str(&format!("-rate{rate_mbit}"));
        }
        NetProfile {
            name,
            rtt_ms,
            loss_pct,
            rate_mbit,
        }
    }
}

/// Configuration of a tls run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TlsConfig {
    /// Stacks.
    pub stacks: Vec<String>,
    /// Groups, by TLS name.
    pub groups: Vec<String>,
    /// Certificate keys.
    pub certs: Vec<String>,
    /// Hello shapes (records made before there were shapes had the minimal one).
    #[serde(default = "minimal_list", skip_serializing_if = "is_minimal_list")]
    pub hellos: Vec<String>,
    /// Kinds of handshake.
    pub modes: Vec<Mode>,
    /// Seconds of handshakes per kind (split into rounds).
    pub duration_s: f64,
    /// Thread counts for scaling.
    pub threads: Vec<usize>,
    /// Seconds per thread count.
    pub scaling_duration_s: f64,
    /// Target handshakes per second for the capacity figures.
    pub target_rate: f64,
    /// Network conditions (empty: not measured).
    pub network: Vec<NetProfile>,
    /// Handshakes per network condition with loss (a tenth as many, at least 100, without).
    pub network_handshakes: usize,
    /// Handshakes in flight at once under a network condition (each client thread runs its
    /// handshakes one after another).
    #[serde(default = "one")]
    pub network_concurrency: usize,
    /// Benchmarks measured under network conditions at once, each in testbeds of its own.
    #[serde(default = "one")]
    pub network_parallel: usize,
    /// Every `group@stack/cert` the run set out to measure.
    pub planned: Vec<String>,
}

fn one() -> usize {
    1
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn minimal() -> String {
    "minimal".into()
}

fn minimal_list() -> Vec<String> {
    vec![minimal()]
}

fn is_minimal(s: &str) -> bool {
    s == "minimal"
}

fn is_minimal_list(v: &[String]) -> bool {
    v.len() == 1 && is_minimal(&v[0])
}

/// The tls record kind: nothing beside the common header.
#[derive(Debug, Clone, Copy)]
pub struct Tls;

/// What a tls run records before `kind` when Ctrl-C or SIGTERM stopped it, or it was resumed
/// (nothing otherwise, as in files from before these existed).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TlsState {
    /// Stopped before every benchmark was measured.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// When `tls --resume` continued this run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumed_at: Vec<String>,
}

kind_fields!(TlsConfig, TlsState);

impl Kind for Tls {
    const FACTS: Facts = Facts {
        file_kind: "kembench-tls",
        store_kind: "tls",
        schema_version: SCHEMA_VERSION,
        noun: "a tls run (`kembench tls --json`)",
        singular: "tls run",
        plural: "tls runs",
        command: "tls",
        resumable: true,
        compare: Compares {
            compares: true,
            no_gate: Some("the ratios of two tls runs have no significance test behind them"),
            flame_graphs: false,
        },
    };
    type State = TlsState;
    type Config = TlsConfig;
    type Measured = Nothing;
    type Result = TlsResult;

    fn tables(record: &TlsRecord, items: &[TlsResult]) -> crate::table::Tables {
        tables::tables(record, items)
    }

    const CSV_HEADER: &'static [&'static str] = csv::HEADER;

    fn csv_rows(record: &TlsRecord, result: &TlsResult) -> Vec<Vec<String>> {
        csv::rows(record, result)
    }

    /// Per kind of handshake: the server's and the client's time in their own calls
    /// (`full-server`, `full-client`; median, bounds the 25th and 75th percentiles) and
    /// handshakes per second of one thread doing both sides (`full`).
    fn metrics(r: &TlsResult) -> Vec<Metric> {
        let mut out = Vec::new();
        for m in &r.modes {
            let mode = m.mode.as_str();
            for (side, s) in [("server", &m.server_ns), ("client", &m.client_ns)] {
                out.push(
                    Metric::new(
                        &r.algorithm,
                        &r.implementation,
                        &format!("{mode}-{side}"),
                        Measure::Latency,
                        s.median,
                    )
                    .within(s.p25, s.p75),
                );
            }
            out.push(Metric::new(
                &r.algorithm,
                &r.implementation,
                mode,
                Measure::Throughput,
                m.handshakes_per_sec,
            ));
        }
        out
    }

    fn check_result(r: &TlsResult) -> Result<(), String> {
        for m in &r.modes {
            let what = format!("{} handshakes", m.mode.as_str());
            super::check_times(
                &what,
                [
                    m.handshakes_per_sec,
                    m.server_best_round_median_ns,
                    m.client_best_round_median_ns,
                ]
                .iter()
                .chain(&m.server_ns.values())
                .chain(&m.client_ns.values()),
            )?;
        }
        for p in &r.scaling {
            super::check_times(
                &format!("scaling at {} threads", p.threads),
                [p.total_ops_per_sec]
                    .iter()
                    .chain(&p.per_thread_ops_per_sec),
            )?;
        }
        for n in &r.network {
            if let Some(t) = &n.time_ms {
                super::check_times(&format!("network {}", n.profile), &t.values())?;
            }
        }
        Ok(())
    }

    fn compare<'a>(
        old: &'a TlsRecord,
        new: &'a TlsRecord,
        asked: Asked<'a>,
    ) -> Option<Box<dyn Comparison + 'a>> {
        Some(Box::new(compare::Compared::new(old, new, asked)))
    }
}

/// A whole tls run: what `tls --json` writes.
pub type TlsRecord = Record<Tls>;

impl Benchmark for TlsResult {
    fn measured(&self) -> bool {
        !self.modes.is_empty() || !self.network.is_empty()
    }

    fn algorithm(&self) -> &str {
        &self.algorithm
    }

    fn implementation(&self) -> &str {
        &self.implementation
    }

    fn status(&self) -> ResultStatus {
        if self.interrupted {
            ResultStatus::Interrupted
        } else if self.error.is_some() || self.unavailable.is_some() {
            ResultStatus::Error
        } else {
            ResultStatus::Ok
        }
    }

    fn is_final(&self) -> bool {
        !self.interrupted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_round_up_at_the_mss() {
        assert_eq!(Flight::new("a", "client", 1460, 1).segments, 1);
        assert_eq!(Flight::new("a", "client", 1461, 1).segments, 2);
        assert_eq!(Flight::new("a", "client", 0, 0).segments, 0);
    }

    #[test]
    fn spread_of_known_values() {
        let s = Spread::of(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!((s.min, s.median, s.max, s.n), (1.0, 3.0, 5.0, 5));
        assert!(Spread::of(&[]).is_none());
        assert!(Spread::of(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn network_profiles_are_named_after_their_figures() {
        assert_eq!(NetProfile::new(31.2, 0.5, 1000.0).name, "rtt31.2-loss0.5");
        assert_eq!(NetProfile::new(5.0, 0.0, 100.0).name, "rtt5-loss0-rate100");
    }

    #[test]
    fn old_records_network_profiles_still_load() {
        // The fixture file of the CLI tests, and the layout of a record written before the
        // engine and the record shared one type (its own name spelling kept as written).
        let fixture: TlsRecord =
            serde_json::from_str(include_str!("../../../tests/data/tls.json")).unwrap();
        assert_eq!(fixture.config.network.len(), 3);
        assert_eq!(fixture.config.network[2].name, "rtt30-loss3");
        assert_eq!(fixture.config.network[2].loss_pct, 3.0);
        let old: NetProfile = serde_json::from_str(
            r#"{"name": "rtt31-loss3", "rtt_ms": 31.2, "loss_pct": 3.0, "rate_mbit": 1000.0}"#,
        )
        .unwrap();
        assert_eq!(old.name, "rtt31-loss3");
        assert_eq!((old.rtt_ms, old.loss_pct, old.rate_mbit), (31.2, 3.0, 1000.0));
        // And what is written now reads back the same, field for field.
        let now = serde_json::to_value(NetProfile::new(31.2, 3.0, 1000.0)).unwrap();
        let keys: Vec<&String> = now.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 4, "{now}");
        for k in ["name", "rtt_ms", "loss_pct", "rate_mbit"] {
            assert!(now.get(k).is_some(), "{k}: {now}");
        }
        // A profile missing a field is refused, not guessed.
        assert!(serde_json::from_str::<NetProfile>(r#"{"name": "x", "rtt_ms": 1.0}"#).is_err());
    }

    #[test]
    fn modes_round_trip_their_spelling() {
        for m in Mode::ALL {
            assert_eq!(Mode::parse(m.as_str()), Some(m));
        }
    }
}
