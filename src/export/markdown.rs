//! Markdown: tables for papers and READMEs: a latency table with a line on the method for
//! latency runs, the scaling and capacity tables for throughput runs, and for tls runs the CPU
//! per handshake, then flights, capacity beside the bare-KEM model, scaling and network
//! conditions.

use super::Layout;
use crate::callgrind::Primitive;
use crate::measure::counters::Counters;
use crate::record::profile::{Profile, ProfileRecord, ProfileResult};
use crate::record::run::{BenchResult, Run, RunRecord};
use crate::record::throughput::{Capacity, Throughput, ThroughputRecord, ThroughputResult};
use crate::record::tls::{Tls, TlsRecord, TlsResult, INITCWND, MSS};
use crate::units;
use std::fmt::Write as _;

/// GitHub-flavoured Markdown.
pub struct Markdown;

/// Escapes what Markdown tables and HTML would interpret.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
}

impl Layout<Run> for Markdown {
    fn head(&self, run: &RunRecord) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        writeln!(s, "# kembench run, {}", escape(&run.started_at))?;
        writeln!(s)?;
        let e = &run.environment;
        writeln!(
            s,
            "Host `{}`: {} ({} logical CPUs), {}; kembench {} ({}), {}.",
            escape(&e.hostname),
            escape(&e.cpu.model),
            e.cpu.logical_cpus,
            escape(&e.kernel),
            escape(&e.build.kembench_version),
            escape(&e.build.git_commit),
            escape(&e.build.rustc),
        )?;
        writeln!(s)?;
        writeln!(
            s,
            "| algorithm | implementation | operation | median | 95% CI of median | p25 – p75 | ops/s | TSC ticks | cycles | peak heap | allocs | stack | share | samples |"
        )?;
        writeln!(
            s,
            "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
        )?;
        Ok(s.into_bytes())
    }

    fn item(&self, _run: &RunRecord, _index: usize, r: &BenchResult) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        if r.operations.is_empty() {
            let why = match &r.correctness {
                crate::verify::Outcome::Fail(w) => {
                    format!("not timed: correctness check failed: {w}")
                }
                _ => r.error.clone().unwrap_or_else(|| "not measured".into()),
            };
            writeln!(
                s,
                "| {} | {} | - | {} |||||||||||",
                escape(&r.algorithm),
                escape(&r.implementation),
                escape(&why)
            )?;
            return Ok(s.into_bytes());
        }
        for o in &r.operations {
            let cycles = match &o.counters {
                Counters::Measured(c) => units::count(c.cycles),
                Counters::Unavailable(_) => "n/a".into(),
            };
            writeln!(
                s,
                "| {} | {} | {} | {} | {} – {} | {} – {} | {} | {} | {} | {} | {} | {} | {} | {}{} |",
                escape(&r.algorithm),
                escape(&r.implementation),
                o.operation.as_str(),
                units::ns(o.median_ns),
                units::ns(o.median_ci95_low_ns),
                units::ns(o.median_ci95_high_ns),
                units::ns(o.p25_ns),
                units::ns(o.p75_ns),
                units::count(o.ops_per_sec),
                o.tsc_median_ticks.map_or("-".into(), units::count),
                cycles,
                o.peak_heap_bytes.map_or("n/a".into(), units::bytes),
                o.allocations.map_or("n/a".into(), |a| a.to_string()),
                o.max_stack_bytes.map_or("n/a".into(), units::bytes),
                o.share_of_exchange.map_or("-".into(), |x| format!("{:.0}%", x * 100.0)),
                o.samples,
                if o.batch > 1 { format!(" ×{}", o.batch) } else { String::new() },
            )?;
        }
        Ok(s.into_bytes())
    }

    fn tail(&self, run: &RunRecord, _count: usize) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        writeln!(s)?;
        writeln!(
            s,
            "Method: per-call latency from the monotonic clock after warm-up; median with a 95% bootstrap interval; TSC ticks are time-stamp-counter ticks, not core cycles; cycles come from hardware counters{}.",
            run.measured.counters_unavailable
                .as_ref()
                .map_or(String::new(), |w| format!(" (unavailable here: {})", escape(w)))
        )?;
        Ok(s.into_bytes())
    }
}

impl Layout<Throughput> for Markdown {
    fn head(&self, r: &ThroughputRecord) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        let e = &r.environment;
        writeln!(s, "# kembench throughput, {}", escape(&r.started_at))?;
        writeln!(s)?;
        writeln!(
            s,
            "Host `{}`: {} ({} logical CPUs); {} per point, {}{}.",
            escape(&e.hostname),
            escape(&e.cpu.model),
            e.cpu.logical_cpus,
            units::ns(r.config.duration_s * 1e9),
            if r.config.processes {
                "independent processes"
            } else {
                "threads"
            },
            if r.config.pinned { ", pinned" } else { "" }
        )?;
        writeln!(s)?;
        writeln!(s, "| algorithm | implementation | operation | threads | ops/s | per-thread min – max | speedup | efficiency | flags |")?;
        writeln!(s, "|---|---|---|--:|--:|--:|--:|--:|---|")?;
        Ok(s.into_bytes())
    }

    fn item(
        &self,
        _all: &ThroughputRecord,
        _index: usize,
        r: &ThroughputResult,
    ) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        for o in &r.operations {
            for p in &o.points {
                let (min, max) = (p.min_thread_rate(), p.max_thread_rate());
                let flags: Vec<String> =
                    o.flags.iter().chain(&p.flags).map(|f| escape(f)).collect();
                writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} – {} | {:.2}x | {:.0}% | {} |",
                    escape(&r.algorithm),
                    escape(&r.implementation),
                    o.operation.as_str(),
                    p.threads,
                    units::count(p.total_ops_per_sec),
                    units::count(min),
                    units::count(max),
                    p.speedup,
                    p.efficiency * 100.0,
                    flags.join("; ")
                )?;
            }
        }
        Ok(s.into_bytes())
    }

    /// The capacity table of the first `count` results.
    fn tail(&self, r: &ThroughputRecord, count: usize) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        let caps: Vec<(&ThroughputResult, &Capacity)> = r.results[..count]
            .iter()
            .filter_map(|t| t.capacity.as_ref().map(|c| (t, c)))
            .collect();
        if !caps.is_empty() {
            writeln!(s)?;
            writeln!(
                s,
                "TLS 1.3 capacity (server: encaps; client: keygen + decaps), target {} connections/s:",
                units::count(r.config.target_rate)
            )?;
            writeln!(s)?;
            writeln!(s, "| algorithm | implementation | server handshakes/s/core | client handshakes/s/core | server cores | client cores |")?;
            writeln!(s, "|---|---|--:|--:|--:|--:|")?;
            for (t, c) in caps {
                writeln!(
                    s,
                    "| {} | {} | {} | {} | {:.1} | {:.1} |",
                    escape(&t.algorithm),
                    escape(&t.implementation),
                    units::count(c.server_handshakes_per_sec_per_core),
                    units::count(c.client_handshakes_per_sec_per_core),
                    c.server_cores_for_target,
                    c.client_cores_for_target
                )?;
            }
        }
        Ok(s.into_bytes())
    }
}

impl Layout<Profile> for Markdown {
    fn head(&self, r: &ProfileRecord) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        let e = &r.environment;
        writeln!(s, "# kembench profile, {}", escape(&r.started_at))?;
        writeln!(s)?;
        writeln!(
            s,
            "Host `{}`: {}; {} under callgrind, {} seed(s) per implementation; cache {}.",
            escape(&e.hostname),
            escape(&e.cpu.model),
            escape(&r.measured.valgrind),
            r.config.seeds,
            escape(&r.config.cache_geometry),
        )?;
        writeln!(s)?;
        writeln!(s, "| algorithm | implementation | operation | instructions (median) | min – max | Keccak | SHA-2 | AES | RNG | bignum | other | est. cycles | hottest function (self) |")?;
        writeln!(s, "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|")?;
        Ok(s.into_bytes())
    }

    fn item(
        &self,
        _all: &ProfileRecord,
        _index: usize,
        r: &ProfileResult,
    ) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        for o in &r.operations {
            let a = &o.analysis;
            let pct = |p: Primitive| format!("{:.1}%", 100.0 * a.share(p));
            let hottest = a
                .functions
                .iter()
                .max_by_key(|f| f.self_instructions)
                .map_or(String::new(), |f| {
                    format!(
                        "`{}` {:.1}%",
                        escape(&f.name),
                        100.0 * f.self_instructions as f64 / a.instructions.max(1) as f64
                    )
                });
            writeln!(
                s,
                "| {} | {} | {} | {} | {} – {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                escape(&r.algorithm),
                escape(&r.implementation),
                o.operation.as_str(),
                o.instructions.median,
                o.instructions.min,
                o.instructions.max,
                pct(Primitive::Keccak),
                pct(Primitive::Sha2),
                pct(Primitive::Aes),
                pct(Primitive::Rng),
                pct(Primitive::Bignum),
                pct(Primitive::Other),
                a.cache
                    .as_ref()
                    .map_or(String::new(), |c| c.estimated_cycles.to_string()),
                hottest,
            )?;
        }
        Ok(s.into_bytes())
    }

    fn tail(&self, r: &ProfileRecord, _count: usize) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        writeln!(s)?;
        writeln!(
            s,
            "Instructions are exact counts of one call under valgrind's callgrind; shares are \
             of those instructions; estimated cycles come from a simulated cache, not this \
             machine's."
        )?;
        let lost = r.measured.features_lost_under_valgrind();
        if !lost.is_empty() {
            writeln!(
                s,
                "Under valgrind the CPU lacks {}: libraries may take other code paths there.",
                lost.join(", ")
            )?;
        }
        let unfixed: Vec<String> = r
            .results
            .iter()
            .filter(|x| !x.randomness.fixed && !x.operations.is_empty())
            .map(|x| format!("{}@{}", x.algorithm, x.implementation))
            .collect();
        if !unfixed.is_empty() {
            writeln!(
                s,
                "Randomness not fixed by the seed (counts may vary from run to run): {}.",
                escape(&unfixed.join(", "))
            )?;
        }
        Ok(s.into_bytes())
    }
}

/// `group | stack | cert` cells of a tls result.
fn tls_names(r: &TlsResult) -> String {
    format!(
        "{} | {} | {}",
        escape(&r.group),
        escape(&r.stack),
        escape(&r.cert)
    )
}

/// A time in milliseconds, scaled as every other time ([`units::ns`]).
fn ms(v: f64) -> String {
    units::ns(v * 1e6)
}

impl Layout<Tls> for Markdown {
    fn head(&self, r: &TlsRecord) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        let e = &r.environment;
        writeln!(s, "# kembench tls, {}", escape(&r.started_at))?;
        writeln!(s)?;
        writeln!(
            s,
            "Host `{}`: {} ({} logical CPUs); real TLS 1.3 handshakes over an in-memory \
             transport, {} of handshakes per kind, one thread doing both sides.",
            escape(&e.hostname),
            escape(&e.cpu.model),
            e.cpu.logical_cpus,
            units::ns(r.config.duration_s * 1e9),
        )?;
        writeln!(s)?;
        writeln!(s, "CPU per handshake (each side's time in its own calls):")?;
        writeln!(s)?;
        writeln!(
            s,
            "| group | stack | cert | mode | handshakes/s (one core) | server median | server p25 – p75 | client median | client p25 – p75 | server best round | client best round | KEM share server / client |"
        )?;
        writeln!(s, "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|")?;
        Ok(s.into_bytes())
    }

    fn item(&self, _all: &TlsRecord, _index: usize, r: &TlsResult) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        if let Some(why) = &r.unavailable {
            writeln!(
                s,
                "| {} | - | unavailable: {} ||||||||",
                tls_names(r),
                escape(why)
            )?;
        }
        if let Some(e) = &r.error {
            writeln!(s, "| {} | - | error: {} ||||||||", tls_names(r), escape(e))?;
        }
        for m in &r.modes {
            let share = r.kem.as_ref().map_or("-".into(), |k| {
                format!(
                    "{:.0}% / {:.0}%",
                    k.server_share * 100.0,
                    k.client_share * 100.0
                )
            });
            writeln!(
                s,
                "| {} | {} | {} | {} | {} – {} | {} | {} – {} | {} | {} | {} |",
                tls_names(r),
                m.mode.as_str(),
                units::count(m.handshakes_per_sec),
                units::ns(m.server_ns.median),
                units::ns(m.server_ns.p25),
                units::ns(m.server_ns.p75),
                units::ns(m.client_ns.median),
                units::ns(m.client_ns.p25),
                units::ns(m.client_ns.p75),
                units::ns(m.server_best_round_median_ns),
                units::ns(m.client_best_round_median_ns),
                if m.mode == crate::record::tls::Mode::Full {
                    share
                } else {
                    "-".into()
                },
            )?;
        }
        Ok(s.into_bytes())
    }

    /// The flights, capacity, scaling and network tables of the first `count` results.
    fn tail(&self, r: &TlsRecord, count: usize) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        let done = &r.results[..count];
        if done.iter().any(|t| !t.modes.is_empty()) {
            writeln!(s)?;
            writeln!(
                s,
                "Flights (TLS bytes, record headers included; segments of {MSS} bytes; more than \
                 {INITCWND} segments, TCP's initial window, costs a round trip):"
            )?;
            writeln!(s)?;
            writeln!(
                s,
                "| group | stack | cert | mode | flight | from | bytes | records | segments | note |"
            )?;
            writeln!(s, "|---|---|---|---|---|---|--:|--:|--:|---|")?;
            for t in done {
                for m in &t.modes {
                    for f in &m.flights {
                        writeln!(
                            s,
                            "| {} | {} | {} | {} | {} | {} | {} | {} |",
                            tls_names(t),
                            m.mode.as_str(),
                            escape(&f.name),
                            escape(&f.from),
                            f.bytes,
                            f.records,
                            f.segments,
                            if f.exceeds_initcwnd() {
                                "> initcwnd"
                            } else {
                                ""
                            }
                        )?;
                    }
                }
            }
            let shares: Vec<String> = done
                .iter()
                .filter_map(|t| {
                    t.checks.as_ref().map(|c| {
                        format!(
                            "{}@{} {} B / {} B",
                            escape(&t.group),
                            escape(&t.implementation),
                            c.client_share_bytes,
                            c.server_share_bytes
                        )
                    })
                })
                .collect();
            if !shares.is_empty() {
                writeln!(s)?;
                writeln!(
                    s,
                    "Key shares on the wire (ClientHello / ServerHello): {}.",
                    shares.join("; ")
                )?;
            }
        }
        let caps: Vec<&TlsResult> = done.iter().filter(|t| t.capacity.is_some()).collect();
        if !caps.is_empty() {
            writeln!(s)?;
            writeln!(
                s,
                "Cores for {} full handshakes/s, measured and as the bare-KEM model predicts:",
                units::count(r.config.target_rate)
            )?;
            writeln!(s)?;
            writeln!(s, "| group | stack | cert | basis threads | scaling penalty | server hs/s/core | client hs/s/core | server cores | client cores | model server cores | model client cores |")?;
            writeln!(s, "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|")?;
            for t in caps {
                let Some(c) = &t.capacity else { continue };
                let model = t.kem.as_ref().map(|k| &k.model);
                writeln!(
                    s,
                    "| {} | {} | {:.2} | {} | {} | {:.2} | {:.2} | {} | {} |",
                    tls_names(t),
                    c.basis_threads,
                    c.scaling_penalty,
                    units::count(c.server_handshakes_per_sec_per_core),
                    units::count(c.client_handshakes_per_sec_per_core),
                    c.server_cores_for_target,
                    c.client_cores_for_target,
                    model.map_or("-".into(), |m| format!("{:.2}", m.server_cores_for_target)),
                    model.map_or("-".into(), |m| format!("{:.2}", m.client_cores_for_target)),
                )?;
            }
        }
        if done.iter().any(|t| !t.scaling.is_empty()) {
            writeln!(s)?;
            writeln!(
                s,
                "Full handshakes across threads (both sides in each thread):"
            )?;
            writeln!(s)?;
            writeln!(s, "| group | stack | cert | threads | handshakes/s | per-thread min – max | speedup | efficiency |")?;
            writeln!(s, "|---|---|---|--:|--:|--:|--:|--:|")?;
            for t in done {
                for p in &t.scaling {
                    writeln!(
                        s,
                        "| {} | {} | {} | {} – {} | {:.2}x | {:.0}% |",
                        tls_names(t),
                        p.threads,
                        units::count(p.total_ops_per_sec),
                        units::count(p.min_thread_rate()),
                        units::count(p.max_thread_rate()),
                        p.speedup,
                        p.efficiency * 100.0
                    )?;
                }
            }
        }
        if done.iter().any(|t| !t.network.is_empty()) {
            writeln!(s)?;
            writeln!(
                s,
                "Handshake times under network conditions (TCP connect to the client's Finished):"
            )?;
            writeln!(s)?;
            writeln!(s, "| group | stack | cert | profile | RTT | loss | measured RTT | handshakes | failures | min | p25 | median | p95 | max |")?;
            writeln!(
                s,
                "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
            )?;
            for t in done {
                for n in &t.network {
                    let times = n
                        .time_ms
                        .as_ref()
                        .map_or("- | - | - | - | -".to_string(), |x| {
                            [x.min, x.p25, x.median, x.p95, x.max].map(ms).join(" | ")
                        });
                    writeln!(
                        s,
                        "| {} | {} | {} | {}% | {} | {} | {} | {} |",
                        tls_names(t),
                        escape(&n.profile),
                        ms(n.rtt_ms),
                        n.loss_pct,
                        ms(n.measured_rtt_ms),
                        n.handshakes,
                        n.failures,
                        times
                    )?;
                }
            }
        }
        let skipped: Vec<String> = done
            .iter()
            .filter_map(|t| {
                t.network_skipped.as_ref().map(|why| {
                    format!(
                        "{}@{}: {}",
                        escape(&t.group),
                        escape(&t.implementation),
                        escape(why)
                    )
                })
            })
            .collect();
        if !skipped.is_empty() {
            writeln!(s)?;
            writeln!(
                s,
                "Network conditions not measured: {}.",
                skipped.join("; ")
            )?;
        }
        Ok(s.into_bytes())
    }
}

exporter!(
    Markdown,
    "markdown",
    "Markdown tables, for papers and READMEs"
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::Format;

    fn markdown() -> Format {
        Format::by_name("markdown").unwrap()
    }

    #[test]
    fn snapshot() {
        let run = super::super::fixture::run();
        let text = String::from_utf8(markdown().serialize(&run).unwrap()).unwrap();
        insta::assert_snapshot!(text);
    }

    #[test]
    fn throughput_snapshot() {
        let r = super::super::fixture::throughput();
        insta::assert_snapshot!(String::from_utf8(markdown().serialize(&r).unwrap()).unwrap());
    }

    #[test]
    fn tls_snapshot() {
        let r = super::super::fixture::tls();
        let text = String::from_utf8(markdown().serialize(&r).unwrap()).unwrap();
        assert!(text.contains("| 15000 | 4 | 11 | > initcwnd |"), "{text}");
        assert!(text.contains("&lt;MLKEM1024&gt;"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn names_are_escaped() {
        assert_eq!(
            escape("<script>a|b</script>"),
            "&lt;script&gt;a\\|b&lt;/script&gt;"
        );
    }
}
