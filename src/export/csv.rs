//! CSV: one row per measurement, units in the column names: per (algorithm, implementation,
//! operation) for latency runs, per (…, thread count) for throughput runs, per (group, stack,
//! certificate) and kind of handshake or network condition for tls runs (a `section` column
//! says which).

use super::Layout;
use crate::callgrind::Primitive;
use crate::measure::counters::Counters;
use crate::record::profile::{Profile, ProfileRecord, ProfileResult};
use crate::record::run::{BenchResult, Run, RunRecord};
use crate::record::throughput::{Throughput, ThroughputRecord, ThroughputResult};
use crate::record::tls::{ModeCost, NetPoint, Tls, TlsRecord, TlsResult};

/// Comma-separated values.
pub struct Csv;

/// The header of latency CSV files.
const HEADER: &[&str] = &[
    "algorithm",
    "family",
    "nist_level",
    "implementation",
    "version",
    "operation",
    "samples",
    "batch",
    "stop_reason",
    "achieved_precision",
    "median_ns",
    "mean_ns",
    "stddev_ns",
    "min_ns",
    "max_ns",
    "p5_ns",
    "p25_ns",
    "p75_ns",
    "p95_ns",
    "p99_ns",
    "mad_ns",
    "median_ci95_low_ns",
    "median_ci95_high_ns",
    "ops_per_sec",
    "tsc_median_ticks",
    "cycles",
    "instructions",
    "branch_misses",
    "llc_misses",
    "l1d_read_misses",
    "peak_heap_bytes",
    "allocations",
    "max_stack_bytes",
    "share_of_exchange",
    "pk_bytes",
    "sk_bytes",
    "ct_bytes",
    "ss_bytes",
    "wire_bytes",
    "outliers_low_severe",
    "outliers_low_mild",
    "outliers_high_mild",
    "outliers_high_severe",
    "round_spread",
    "best_round_median_ns",
    "callgrind_instructions",
];

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// Writes rows through the csv crate's quoting into bytes.
fn rows(f: impl FnOnce(&mut csv::Writer<Vec<u8>>) -> csv::Result<()>) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    f(&mut w)?;
    Ok(w.into_inner()?)
}

impl Layout<Run> for Csv {
    fn head(&self, _run: &RunRecord) -> anyhow::Result<Vec<u8>> {
        rows(|w| w.write_record(HEADER))
    }

    fn item(&self, _run: &RunRecord, _index: usize, r: &BenchResult) -> anyhow::Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        for o in &r.operations {
            let c = match &o.counters {
                Counters::Measured(v) => Some(v),
                Counters::Unavailable(_) => None,
            };
            let row: Vec<String> = vec![
                r.algorithm.clone(),
                r.family.clone(),
                opt(r.nist_level),
                r.implementation.clone(),
                r.version.clone(),
                o.operation.as_str().to_string(),
                o.samples.to_string(),
                o.batch.to_string(),
                o.stop_reason.as_str().to_string(),
                o.achieved_precision.to_string(),
                o.median_ns.to_string(),
                o.mean_ns.to_string(),
                o.stddev_ns.to_string(),
                o.min_ns.to_string(),
                o.max_ns.to_string(),
                o.p5_ns.to_string(),
                o.p25_ns.to_string(),
                o.p75_ns.to_string(),
                o.p95_ns.to_string(),
                o.p99_ns.to_string(),
                o.mad_ns.to_string(),
                o.median_ci95_low_ns.to_string(),
                o.median_ci95_high_ns.to_string(),
                o.ops_per_sec.to_string(),
                opt(o.tsc_median_ticks),
                opt(c.map(|c| c.cycles)),
                opt(c.map(|c| c.instructions)),
                opt(c.map(|c| c.branch_misses)),
                opt(c.map(|c| c.llc_misses)),
                opt(c.map(|c| c.l1d_read_misses)),
                opt(o.peak_heap_bytes),
                opt(o.allocations),
                opt(o.max_stack_bytes),
                opt(o.share_of_exchange),
                r.pk_bytes.to_string(),
                r.sk_bytes.to_string(),
                r.ct_bytes.to_string(),
                r.ss_bytes.to_string(),
                r.wire_bytes.to_string(),
                o.outliers.low_severe.to_string(),
                o.outliers.low_mild.to_string(),
                o.outliers.high_mild.to_string(),
                o.outliers.high_severe.to_string(),
                o.round_spread.to_string(),
                opt(o.best_round_median_ns),
                opt(o.callgrind_instructions),
            ];
            w.write_record(&row)?;
        }
        Ok(w.into_inner()?)
    }

    fn tail(&self, _run: &RunRecord, _count: usize) -> anyhow::Result<Vec<u8>> {
        Ok(Vec::new())
    }
}

/// The header of throughput CSV files.
const THROUGHPUT_HEADER: &[&str] = &[
    "algorithm",
    "implementation",
    "version",
    "operation",
    "threads",
    "mode",
    "total_ops_per_sec",
    "min_thread_ops_per_sec",
    "max_thread_ops_per_sec",
    "thread_spread",
    "speedup",
    "efficiency",
    "latency_median_ns",
    "one_thread_vs_latency",
    "flags",
];

/// `threads` or `processes`.
fn mode(r: &ThroughputRecord) -> &'static str {
    if r.config.processes {
        "processes"
    } else {
        "threads"
    }
}

impl Layout<Throughput> for Csv {
    fn head(&self, _r: &ThroughputRecord) -> anyhow::Result<Vec<u8>> {
        rows(|w| w.write_record(THROUGHPUT_HEADER))
    }

    fn item(
        &self,
        r_all: &ThroughputRecord,
        _index: usize,
        r: &ThroughputResult,
    ) -> anyhow::Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        for o in &r.operations {
            for p in &o.points {
                let (min, max) = (p.min_thread_rate(), p.max_thread_rate());
                let flags: Vec<&str> = o.flags.iter().chain(&p.flags).map(String::as_str).collect();
                w.write_record([
                    r.algorithm.clone(),
                    r.implementation.clone(),
                    r.version.clone(),
                    o.operation.as_str().to_string(),
                    p.threads.to_string(),
                    mode(r_all).to_string(),
                    p.total_ops_per_sec.to_string(),
                    min.to_string(),
                    max.to_string(),
                    p.thread_spread.to_string(),
                    p.speedup.to_string(),
                    p.efficiency.to_string(),
                    o.latency_median_ns.to_string(),
                    o.one_thread_vs_latency.to_string(),
                    flags.join("; "),
                ])?;
            }
        }
        Ok(w.into_inner()?)
    }

    fn tail(&self, _r: &ThroughputRecord, _count: usize) -> anyhow::Result<Vec<u8>> {
        Ok(Vec::new())
    }
}

/// The header of profile CSV files.
const PROFILE_HEADER: &[&str] = &[
    "algorithm",
    "implementation",
    "version",
    "operation",
    "seeds",
    "instructions_min",
    "instructions_median",
    "instructions_max",
    "randomness_fixed",
    "keccak_instructions",
    "sha2_instructions",
    "aes_instructions",
    "rng_instructions",
    "bignum_instructions",
    "other_instructions",
    "sim_d1_misses",
    "sim_ll_misses",
    "sim_estimated_cycles",
    "native_instructions",
    "native_cycles",
    "hottest_self_function",
    "hottest_self_instructions",
];

impl Layout<Profile> for Csv {
    fn head(&self, _r: &ProfileRecord) -> anyhow::Result<Vec<u8>> {
        rows(|w| w.write_record(PROFILE_HEADER))
    }

    fn item(
        &self,
        _all: &ProfileRecord,
        _index: usize,
        r: &ProfileResult,
    ) -> anyhow::Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        for o in &r.operations {
            let a = &o.analysis;
            let share = |p: Primitive| {
                a.shares
                    .iter()
                    .find(|s| s.primitive == p)
                    .map_or(0, |s| s.instructions)
                    .to_string()
            };
            let native = match &o.native {
                Counters::Measured(v) => Some(v),
                Counters::Unavailable(_) => None,
            };
            let hottest = a.functions.iter().max_by_key(|f| f.self_instructions);
            let mut row = vec![
                r.algorithm.clone(),
                r.implementation.clone(),
                r.version.clone(),
                o.operation.as_str().to_string(),
                o.instructions.per_seed.len().to_string(),
                o.instructions.min.to_string(),
                o.instructions.median.to_string(),
                o.instructions.max.to_string(),
                r.randomness.fixed.to_string(),
            ];
            row.extend(Primitive::ALL.map(share));
            row.extend([
                opt(a.cache.as_ref().map(|c| c.d1_misses)),
                opt(a.cache.as_ref().map(|c| c.ll_misses)),
                opt(a.cache.as_ref().map(|c| c.estimated_cycles)),
                opt(native.map(|v| v.instructions)),
                opt(native.map(|v| v.cycles)),
                opt(hottest.map(|f| f.name.clone())),
                opt(hottest.map(|f| f.self_instructions)),
            ]);
            w.write_record(row)?;
        }
        Ok(w.into_inner()?)
    }

    fn tail(&self, _r: &ProfileRecord, _count: usize) -> anyhow::Result<Vec<u8>> {
        Ok(Vec::new())
    }
}

/// The header of tls CSV files: `section` is `handshake` (one row per kind of handshake, the
/// figures up to `target_rate`), `network` (one row per network condition, the figures from
/// `network_profile`) or `unavailable` (the reason in `note`); the columns of the other
/// sections are empty.
const TLS_HEADER: &[&str] = &[
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

/// Index of `name` in [`TLS_HEADER`].
fn tls_column(name: &str) -> usize {
    TLS_HEADER
        .iter()
        .position(|c| *c == name)
        .unwrap_or_else(|| panic!("no tls CSV column {name}"))
}

/// A tls row: the identifying columns filled, the rest empty until set by name.
struct TlsRow(Vec<String>);

impl TlsRow {
    fn new(section: &str, r: &TlsResult) -> TlsRow {
        let mut row = TlsRow(vec![String::new(); TLS_HEADER.len()]);
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

impl Layout<Tls> for Csv {
    fn head(&self, _r: &TlsRecord) -> anyhow::Result<Vec<u8>> {
        rows(|w| w.write_record(TLS_HEADER))
    }

    fn item(&self, _all: &TlsRecord, _index: usize, r: &TlsResult) -> anyhow::Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        if let Some(why) = r.unavailable.as_ref().or(r.error.as_ref()) {
            let section = if r.unavailable.is_some() {
                "unavailable"
            } else {
                "error"
            };
            w.write_record(&TlsRow::new(section, r).set("note", why).0)?;
        }
        for m in &r.modes {
            w.write_record(&tls_mode_row(r, m).0)?;
        }
        for n in &r.network {
            w.write_record(&tls_network_row(r, n).0)?;
        }
        Ok(w.into_inner()?)
    }

    fn tail(&self, _r: &TlsRecord, _count: usize) -> anyhow::Result<Vec<u8>> {
        Ok(Vec::new())
    }
}

exporter!(Csv, "csv", "one CSV row per measurement, for spreadsheets");

#[cfg(test)]
mod tests {
    use crate::export::Format;

    #[test]
    fn snapshot() {
        let run = super::super::fixture::run();
        let text =
            String::from_utf8(Format::by_name("csv").unwrap().serialize(&run).unwrap()).unwrap();
        let header_cols = text.lines().next().unwrap().split(',').count();
        assert!(text.lines().all(|l| l.split(',').count() == header_cols));
        insta::assert_snapshot!(text);
    }

    #[test]
    fn throughput_snapshot() {
        let r = super::super::fixture::throughput();
        insta::assert_snapshot!(String::from_utf8(
            Format::by_name("csv").unwrap().serialize(&r).unwrap()
        )
        .unwrap());
    }

    #[test]
    fn tls_snapshot() {
        let r = super::super::fixture::tls();
        let bytes = Format::by_name("csv").unwrap().serialize(&r).unwrap();
        // Every row has the header's columns, whatever its section.
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        let width = reader.headers().unwrap().len();
        let sections: Vec<String> = reader
            .records()
            .map(|row| {
                let row = row.unwrap();
                assert_eq!(row.len(), width);
                row[0].to_string()
            })
            .collect();
        assert_eq!(
            sections,
            [
                "handshake",
                "handshake",
                "handshake",
                "network",
                "network",
                "network",
                "handshake",
                "unavailable"
            ]
        );
        insta::assert_snapshot!(String::from_utf8(bytes).unwrap());
    }
}
