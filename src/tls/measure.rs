//! Measuring one (group, stack, certificate): every kind of handshake checked once, then timed
//! in interleaved rounds on one thread, the flights of each kind, the bare key exchange of the
//! same library and its share, full handshakes across thread counts, and the cores for the
//! target rate beside `throughput`'s model.

use super::certs::Chain;
use super::groups::{Group, StackKind};
use super::memory::{self, Outcome};
use super::side::{Session, Stack};
use crate::kem::Kem;
use crate::measure::sampler::{self, Op, SamplerConfig};
use crate::measure::timer::Timers;
use crate::record::tls::{
    Checks, Flight, KemShare, Mode, ModeCost, Spread, TlsCapacity, TlsConfig, TlsResult,
    CLIENT_FINISHED, CLIENT_HELLO, SECOND_CLIENT_HELLO, SERVER_FLIGHT,
};
use crate::throughput::calc;
use std::time::{Duration, Instant};

/// Rounds each kind's time is split into, interleaved with the other kinds.
pub const ROUNDS: usize = 5;

/// What one benchmark is: a stack, a group and a certificate chain.
pub struct Plan<'a> {
    /// The stack.
    pub stack: StackKind,
    /// The group.
    pub group: &'static Group,
    /// The certificate chain.
    pub chain: &'a Chain,
}

impl Plan<'_> {
    /// `group@stack/cert`, the benchmark's label.
    pub fn label(&self) -> String {
        format!(
            "{}@{}/{}",
            self.group.algorithm,
            self.stack.as_str(),
            self.chain.kind.as_str()
        )
    }
}

/// The stack of `kind` for `group` and `chain`, or why there is none.
pub fn stack(kind: StackKind, group: &Group, chain: &Chain) -> Result<Box<dyn Stack>, String> {
    match kind {
        #[cfg(feature = "rustls")]
        StackKind::Rustls => Ok(Box::new(super::rustls_stack::Rustls::new(group, chain)?)),
        #[cfg(feature = "openssl")]
        StackKind::Openssl => Ok(Box::new(super::openssl_stack::Openssl::new(group, chain)?)),
        #[allow(unreachable_patterns)]
        other => Err(format!(
            "this build has no {} (cargo feature `{}`)",
            other.as_str(),
            other.as_str()
        )),
    }
}

/// The version of the stack of `kind` in this build.
pub fn version(kind: StackKind) -> String {
    match kind {
        #[cfg(feature = "rustls")]
        StackKind::Rustls => super::rustls_stack::version(),
        #[cfg(feature = "openssl")]
        StackKind::Openssl => super::openssl_stack::version(),
        #[allow(unreachable_patterns)]
        _ => "absent".into(),
    }
}

/// Checks one handshake of `mode` for `group`: both stacks and the ServerHello on the wire
/// name the group asked for (a silent fallback is an error), the ClientHello's first key share
/// is the one the mode sends, the server asked for another share exactly when the mode says
/// so, and a resumed handshake did resume. (The exported keying material is compared by the
/// driver; each stack verifies the certificate chain during the handshake.)
pub fn check(o: &Outcome, mode: Mode, group: &Group) -> Result<(), String> {
    let want = group.tls_name;
    for (side, got) in [("client", &o.client_group), ("server", &o.server_group)] {
        if got.as_deref() != Some(want) {
            return Err(format!(
                "the {side} negotiated {} instead of {want}",
                got.as_deref().unwrap_or("no group")
            ));
        }
    }
    let on_wire = o
        .server_hello
        .as_ref()
        .and_then(|h| h.shares.first())
        .map(|s| s.0);
    if on_wire != Some(group.codepoint) {
        return Err(format!(
            "the ServerHello's key share is for {}, not {want}",
            on_wire.map_or("nothing".to_string(), |c| format!("0x{c:04x}"))
        ));
    }
    let first = o
        .client_hello
        .as_ref()
        .and_then(|h| h.shares.first())
        .map(|s| s.0);
    let first_wanted = match mode {
        Mode::Hrr => group.wrong_guess(),
        _ => group,
    };
    if first != Some(first_wanted.codepoint) {
        return Err(format!(
            "the ClientHello's first key share is not for {}",
            first_wanted.tls_name
        ));
    }
    if o.retried != (mode == Mode::Hrr) {
        return Err(format!(
            "a HelloRetryRequest was {}expected and {}sent",
            if mode == Mode::Hrr { "" } else { "not " },
            if o.retried { "" } else { "not " }
        ));
    }
    if o.resumed != (mode == Mode::Resumed) {
        return Err(format!(
            "the handshake {} a session",
            if o.resumed {
                "resumed"
            } else {
                "did not resume"
            }
        ));
    }
    Ok(())
}

/// The flights of a handshake of `mode`, named.
pub fn flights(o: &Outcome, mode: Mode) -> Vec<Flight> {
    let names: &[&str] = match mode {
        Mode::Hrr => &[
            CLIENT_HELLO,
            "HelloRetryRequest",
            SECOND_CLIENT_HELLO,
            SERVER_FLIGHT,
            CLIENT_FINISHED,
            "NewSessionTicket",
        ],
        _ => &[
            CLIENT_HELLO,
            SERVER_FLIGHT,
            CLIENT_FINISHED,
            "NewSessionTicket",
        ],
    };
    o.flights
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let name = names
                .get(i)
                .map(|s| s.to_string())
                .unwrap_or_else(|| format!("flight {}", i + 1));
            Flight::new(
                &name,
                if w.from_client { "client" } else { "server" },
                w.bytes,
                w.records,
            )
        })
        .collect()
}

/// One checked handshake; for a resumed one, `session` is what the previous one left.
fn checked(
    stack: &dyn Stack,
    mode: Mode,
    group: &Group,
    session: &mut Option<Session>,
) -> Result<Outcome, String> {
    let mut o = memory::handshake(stack, mode, session.take())?;
    check(&o, mode, group).map_err(|e| format!("{} handshake: {e}", mode.as_str()))?;
    // Only a resuming client carries its session on; the others start afresh each time.
    *session = if mode == Mode::Resumed {
        o.session.take()
    } else {
        None
    };
    Ok(o)
}

/// A session to resume from: one full handshake with the resuming client.
fn prime(stack: &dyn Stack) -> Result<Option<Session>, String> {
    let mut o = memory::handshake(stack, Mode::Resumed, None)?;
    Ok(o.session.take())
}

struct Samples {
    server: Vec<f64>,
    client: Vec<f64>,
    round_server: Vec<f64>,
    round_client: Vec<f64>,
    handshakes: u64,
    secs: f64,
}

/// Measures one benchmark (without network conditions): `stop` ends it early (kept figures are
/// whole kinds of handshake; the result is marked interrupted).
pub fn measure_one(
    plan: &Plan,
    cfg: &TlsConfig,
    kem: Option<&dyn Kem>,
    timers: &Timers,
    cpus: usize,
    stop: &dyn Fn() -> bool,
) -> TlsResult {
    let g = plan.group;
    let mut r = TlsResult {
        algorithm: g.algorithm.to_string(),
        implementation: format!("{}/{}", plan.stack.as_str(), plan.chain.kind.as_str()),
        stack: plan.stack.as_str().to_string(),
        version: version(plan.stack),
        group: g.tls_name.to_string(),
        codepoint: g.codepoint,
        cert: plan.chain.kind.as_str().to_string(),
        unavailable: None,
        checks: None,
        modes: Vec::new(),
        scaling: Vec::new(),
        capacity: None,
        kem: None,
        network: Vec::new(),
        network_skipped: None,
        error: None,
        interrupted: false,
    };
    let stack = match stack(plan.stack, g, plan.chain) {
        Ok(s) => s,
        Err(why) => {
            r.unavailable = Some(why);
            return r;
        }
    };
    if let Err(e) = run_modes(&mut r, stack.as_ref(), plan, cfg, stop) {
        r.error = Some(e);
        return r;
    }
    if r.interrupted {
        return r;
    }
    if let Some(k) = kem {
        match kem_share(&r, k, cfg.target_rate, timers) {
            Ok(s) => r.kem = Some(s),
            Err(e) => r.error = Some(format!("the bare key exchange {}: {e}", k.meta().label())),
        }
    }
    match scale(&mut r, stack.as_ref(), g, cfg, cpus, stop) {
        Ok(()) => {}
        Err(e) => r.error = Some(e),
    }
    r.capacity = capacity(&r, cfg.target_rate, cpus);
    r
}

/// Checks each kind once, then times them in interleaved rounds.
fn run_modes(
    r: &mut TlsResult,
    stack: &dyn Stack,
    plan: &Plan,
    cfg: &TlsConfig,
    stop: &dyn Fn() -> bool,
) -> Result<(), String> {
    let g = plan.group;
    let mut sessions: Vec<Option<Session>> = Vec::new();
    let mut flights_of = Vec::new();
    let mut handshakes = 0u64;
    let mut full: Option<Outcome> = None;
    for &mode in &cfg.modes {
        let mut session = if mode == Mode::Resumed {
            prime(stack)?
        } else {
            None
        };
        let o = checked(stack, mode, g, &mut session)?;
        handshakes += 1;
        flights_of.push(flights(&o, mode));
        if mode == Mode::Full || full.is_none() {
            full = Some(o);
        }
        sessions.push(session);
    }
    let first = full.ok_or("no kind of handshake was asked for")?;
    let share = |h: &Option<super::wire::Hello>| {
        h.as_ref().and_then(|h| h.shares.first()).map_or(0, |s| s.1)
    };
    let mut checks = Checks {
        handshakes,
        negotiated_group: g.tls_name.to_string(),
        client_share_bytes: share(&first.client_hello),
        server_share_bytes: share(&first.server_hello),
        certificate: plan.chain.describe(),
    };
    let slice = Duration::from_secs_f64(cfg.duration_s / (ROUNDS as f64));
    let mut acc: Vec<Samples> = cfg
        .modes
        .iter()
        .map(|_| Samples {
            server: Vec::new(),
            client: Vec::new(),
            round_server: Vec::new(),
            round_client: Vec::new(),
            handshakes: 0,
            secs: 0.0,
        })
        .collect();
    for _round in 0..ROUNDS {
        for (i, &mode) in cfg.modes.iter().enumerate() {
            if stop() {
                r.interrupted = true;
                checks.handshakes = handshakes;
                r.checks = Some(checks);
                return Ok(());
            }
            let a = &mut acc[i];
            let (mut s, mut c) = (Vec::new(), Vec::new());
            let t = Instant::now();
            while t.elapsed() < slice || s.len() < 3 {
                let o = checked(stack, mode, g, &mut sessions[i])?;
                s.push(o.server_ns as f64);
                c.push(o.client_ns as f64);
            }
            a.secs += t.elapsed().as_secs_f64();
            a.handshakes += s.len() as u64;
            handshakes += s.len() as u64;
            a.round_server.push(crate::stats::median(&s));
            a.round_client.push(crate::stats::median(&c));
            a.server.extend(s);
            a.client.extend(c);
        }
    }
    for ((&mode, a), flights) in cfg.modes.iter().zip(acc).zip(flights_of) {
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        r.modes.push(ModeCost {
            mode,
            handshakes: a.handshakes,
            handshakes_per_sec: a.handshakes as f64 / a.secs,
            server_ns: Spread::of(&a.server).ok_or("no server times")?,
            client_ns: Spread::of(&a.client).ok_or("no client times")?,
            server_best_round_median_ns: min(&a.round_server),
            client_best_round_median_ns: min(&a.round_client),
            flights,
        });
    }
    checks.handshakes = handshakes;
    r.checks = Some(checks);
    Ok(())
}

/// The bare key exchange on the same library: medians of keygen, encapsulation and
/// decapsulation as `run` times them, their share of the full handshake's median per side, and
/// `throughput`'s model from those rates on one core.
fn kem_share(r: &TlsResult, k: &dyn Kem, target: f64, timers: &Timers) -> Result<KemShare, String> {
    if let crate::verify::Outcome::Fail(why) = crate::run::quick_check(k) {
        return Err(format!("not measured: correctness check failed: {why}"));
    }
    let cfg = SamplerConfig {
        time_budget_s: 0.25,
        warmup_s: 0.05,
        rounds: 1,
        ..SamplerConfig::default()
    };
    let median = |op: Op| -> Result<f64, String> {
        sampler::sample(k, op, &cfg, timers, None, "")
            .map(|s| crate::stats::median(&s.samples_ns))
            .map_err(|e| format!("{}: {e}", op.as_str()))
    };
    let (kg, enc, dec) = (
        median(Op::Keygen)?,
        median(Op::Encaps)?,
        median(Op::Decaps)?,
    );
    let full = r
        .mode(Mode::Full)
        .ok_or("full handshakes were not measured")?;
    Ok(KemShare {
        implementation: k.meta().label(),
        keygen_ns: kg,
        encaps_ns: enc,
        decaps_ns: dec,
        server_share: enc / full.server_ns.median,
        client_share: (kg + dec) / full.client_ns.median,
        model: calc::capacity(1, 1e9 / kg, 1e9 / enc, 1e9 / dec, target),
    })
}

/// Full handshakes on each thread count, each thread doing both sides, every thread count
/// measured three times in rotation (the median repeat is kept), as `throughput` does.
fn scale(
    r: &mut TlsResult,
    stack: &dyn Stack,
    g: &Group,
    cfg: &TlsConfig,
    cpus: usize,
    stop: &dyn Fn() -> bool,
) -> Result<(), String> {
    const REPEATS: usize = 3;
    if cfg.threads.is_empty() {
        return Ok(());
    }
    let window = Duration::from_secs_f64(cfg.scaling_duration_s / REPEATS as f64);
    let mut raws: Vec<Vec<Vec<(u64, f64)>>> = vec![Vec::new(); cfg.threads.len()];
    let mut made = 0u64;
    for _ in 0..REPEATS {
        for (i, &n) in cfg.threads.iter().enumerate() {
            if stop() {
                r.interrupted = true;
                return Ok(());
            }
            let raw = std::thread::scope(|s| {
                let handles: Vec<_> = (0..n)
                    .map(|_| {
                        s.spawn(move || -> Result<(u64, f64), String> {
                            let t = Instant::now();
                            let mut count = 0u64;
                            let mut none = None;
                            while t.elapsed() < window {
                                checked(stack, Mode::Full, g, &mut none)?;
                                count += 1;
                            }
                            Ok((count, t.elapsed().as_secs_f64()))
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into())))
                    .collect::<Result<Vec<_>, String>>()
            })
            .map_err(|e| format!("at {n} threads: {e}"))?;
            made += raw.iter().map(|x| x.0).sum::<u64>();
            raws[i].push(raw);
        }
    }
    for (i, &n) in cfg.threads.iter().enumerate() {
        let (raw, totals) = calc::median_repeat(&raws[i]);
        let one = r
            .scaling
            .first()
            .filter(|p| p.threads == 1)
            .map(|p| p.total_ops_per_sec);
        let mut p = calc::point(n, raw, one, cpus);
        p.repeat_totals_ops_per_sec = totals;
        r.scaling.push(p);
    }
    if let Some(c) = r.checks.as_mut() {
        c.handshakes += made;
    }
    Ok(())
}

/// Cores for the target rate: one over each side's median time per full handshake, divided by
/// the per-core slowdown at the largest measured thread count not above the CPUs.
pub fn capacity(r: &TlsResult, target: f64, cpus: usize) -> Option<TlsCapacity> {
    let full = r.mode(Mode::Full)?;
    let one = r.scaling.iter().find(|p| p.threads == 1);
    let basis = r
        .scaling
        .iter()
        .filter(|p| p.threads <= cpus)
        .max_by_key(|p| p.threads);
    let (basis_threads, penalty) = match (one, basis) {
        (Some(o), Some(b)) if b.total_ops_per_sec > 0.0 => (
            b.threads,
            (o.total_ops_per_sec * b.threads as f64 / b.total_ops_per_sec).max(1.0),
        ),
        _ => (1, 1.0),
    };
    let server = 1e9 / (full.server_ns.median * penalty);
    let client = 1e9 / (full.client_ns.median * penalty);
    Some(TlsCapacity {
        target_rate: target,
        basis_threads,
        scaling_penalty: penalty,
        server_handshakes_per_sec_per_core: server,
        client_handshakes_per_sec_per_core: client,
        server_cores_for_target: target / server,
        client_cores_for_target: target / client,
    })
}
