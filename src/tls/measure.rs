//! Measuring one (group, stack, certificate): every kind of handshake checked once, then timed
//! in interleaved rounds on one thread, the flights of each kind, the bare key exchange of the
//! same library and its share, full handshakes across thread counts, and the cores for the
//! target rate beside `throughput`'s model.

use super::certs::Chain;
use super::groups::{is_grease, Group, HelloShape, StackKind};
use super::memory::{self, Check, Outcome};
use super::side::{Session, Stack};
use super::wire::Opening;
use crate::kem::Kem;
use crate::kem::Op;
use crate::measure::sampler::{self, SamplerConfig};
use crate::measure::timer::Timers;
use crate::record::scaling::calc;
use crate::record::tls::{
    Checks, Flight, KemShare, Mode, ModeCost, SignatureShare, Spread, TlsCapacity, TlsConfig, TlsResult,
    CLIENT_FINISHED, CLIENT_HELLO, SECOND_CLIENT_HELLO, SERVER_FLIGHT,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Rounds each kind's time is split into, interleaved with the other kinds.
pub const ROUNDS: usize = 5;

/// One timed handshake in this many is checked whole (the first of every round and of every
/// scaling thread among them); the others are checked for completion (and resumption) only,
/// so that the checks' cost (exporting keying material on both sides, reading the flights)
/// stays out of handshakes per second. The whole check's own cost is recorded
/// ([`Checks::check_ns`]).
pub const CHECK_EVERY: u64 = 16;

/// How the `i`-th timed handshake of a round or thread is checked.
pub fn check_for(i: u64) -> Check {
    if i % CHECK_EVERY == 0 {
        Check::Whole
    } else {
        Check::Completion
    }
}

/// What one benchmark is: a stack, a group and a certificate chain.
pub struct Plan<'a> {
    /// The stack.
    pub stack: StackKind,
    /// The group.
    pub group: &'static Group,
    /// The certificate chain.
    pub chain: &'a Chain,
    /// The shape of the client's hello.
    pub hello: HelloShape,
}

impl Plan<'_> {
    /// `group@stack/cert`, with `/hello` after it when the hello is not minimal
    /// (`X25519MLKEM768@openssl/ecdsa-p256/defaults`): the benchmark's label.
    pub fn label(&self) -> String {
        format!(
            "{}@{}",
            self.group.algorithm,
            self.hello
                .implementation(self.stack, self.chain.kind.as_str())
        )
    }
}

/// The stack of `kind` for `group`, `chain` and the hello shape `hello`, or why there is none.
#[cfg_attr(
    not(any(feature = "rustls", feature = "openssl-stack")),
    allow(unused_variables, unreachable_code)
)]
pub fn stack(
    kind: StackKind,
    group: &Group,
    chain: &Chain,
    hello: HelloShape,
) -> Result<Box<dyn Stack>, String> {
    match kind {
        #[cfg(feature = "rustls")]
        StackKind::Rustls => Ok(Box::new(super::rustls_stack::Rustls::new(
            group, chain, hello,
        )?)),
        #[cfg(feature = "openssl-stack")]
        StackKind::Openssl => Ok(Box::new(super::openssl_stack::Openssl::new(
            group, chain, hello,
        )?)),
        StackKind::Boringssl | StackKind::Openssl4 => Err(match super::groups::Worker::of(kind) {
            Some(w) => format!(
                "{} runs in its own worker executable (workers/{}), not in kembench's process",
                w.name, w.dir
            ),
            None => format!("{} has no worker", kind.as_str()),
        }),
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
        #[cfg(feature = "openssl-stack")]
        StackKind::Openssl => super::openssl_stack::version(),
        #[allow(unreachable_patterns)]
        _ => "absent".into(),
    }
}

/// The modes of `modes` a hello of `shape` has: a non-minimal hello's first key shares are
/// the stack's own choice, so the HelloRetryRequest mode (a deliberately wrong first share)
/// is not one of its kinds of handshake.
pub fn modes_for(modes: &[Mode], shape: HelloShape) -> Vec<Mode> {
    modes
        .iter()
        .copied()
        .filter(|&m| shape == HelloShape::Minimal || m != Mode::Hrr)
        .collect()
}

/// Checks the key shares of a ClientHello of `shape` against the wire: a minimal hello's
/// first share is the group's ([`check`] does that); a defaults hello carries one for the
/// group among the stack's own, each share once; a browser hello carries a GREASE share
/// first, the group's, and X25519's, as Chrome does.
pub fn check_shares(shares: &[(u16, usize)], shape: HelloShape, group: &Group) -> Result<(), String> {
    let seen = describe_shares(shares);
    let mut codes: Vec<u16> = shares.iter().map(|s| s.0).collect();
    codes.sort_unstable();
    codes.dedup();
    if codes.len() != shares.len() {
        return Err(format!("the ClientHello carries a group's share twice ({seen})"));
    }
    let has = |c: u16| shares.iter().any(|s| s.0 == c);
    match shape {
        HelloShape::Minimal => Ok(()),
        HelloShape::Defaults => {
            if !has(group.codepoint) {
                return Err(format!(
                    "the ClientHello carries no {} share ({seen})",
                    group.tls_name
                ));
            }
            Ok(())
        }
        HelloShape::Browser => {
            if !shares.first().is_some_and(|s| is_grease(s.0)) {
                return Err(format!("the ClientHello's first key share is not GREASE ({seen})"));
            }
            for want in [group.codepoint, 0x11ec, 0x001d] {
                if !has(want) {
                    return Err(format!(
                        "the ClientHello carries no share for 0x{want:04x} ({seen})"
                    ));
                }
            }
            Ok(())
        }
    }
}

/// Key shares as the wire shows them: `X25519MLKEM768 1216 B, X25519 32 B`, a GREASE share
/// as `GREASE 0x?a?a 1 B`.
pub fn describe_shares(shares: &[(u16, usize)]) -> String {
    let one = |&(c, n): &(u16, usize)| {
        let name = if is_grease(c) {
            format!("GREASE 0x{c:04x}")
        } else {
            Group::by_codepoint(c).map_or_else(|| format!("0x{c:04x}"), |g| g.tls_name.to_string())
        };
        format!("{name} {n} B")
    };
    let v: Vec<String> = shares.iter().map(one).collect();
    if v.is_empty() {
        "no key share".into()
    } else {
        v.join(", ")
    }
}

/// Checks one handshake of `mode` for `group`: its flights are the mode's on the wire
/// ([`check_flights`]), both stacks and the ServerHello on the wire
/// name the group asked for (a silent fallback is an error), the ClientHello's first key share
/// is the one the mode sends, the server asked for another share exactly when the mode says
/// so, and a resumed handshake did resume. (The exported keying material is compared by the
/// driver; each stack verifies the certificate chain during the handshake.)
///
/// A hello that is not minimal is checked by [`check_shares`] instead of its first share.
pub fn check(o: &Outcome, mode: Mode, group: &Group, shape: HelloShape) -> Result<(), String> {
    check_flights(o, mode)?;
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
    if shape != HelloShape::Minimal {
        let shares = o.client_hello.as_ref().map_or(&[][..], |h| &h.shares[..]);
        check_shares(shares, shape, group)?;
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
    if shape == HelloShape::Minimal && first != Some(first_wanted.codepoint) {
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
    check_resumption(o, mode)
}

/// The part of [`check`] a handshake checked for completion only still passes: it resumed a
/// session exactly when its mode says so.
pub fn check_resumption(o: &Outcome, mode: Mode) -> Result<(), String> {
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

/// The flights a handshake of `mode` opens with, in order, as the wire must show them: who
/// sends each (the client?) and what it opens with. Later flights (the server's tickets) are
/// named but not required.
fn expected_flights(mode: Mode) -> &'static [(bool, Opening)] {
    match mode {
        Mode::Hrr => &[
            (true, Opening::ClientHello),
            (false, Opening::HelloRetryRequest),
            (true, Opening::ClientHello),
            (false, Opening::ServerHello),
            (true, Opening::Encrypted),
        ],
        _ => &[
            (true, Opening::ClientHello),
            (false, Opening::ServerHello),
            (true, Opening::Encrypted),
        ],
    }
}

/// The name of a flight sent by the client (`from_client`) that opens with `opening`, read
/// off the wire; `hellos_before`: the ClientHellos the client sent before it.
fn flight_name(from_client: bool, opening: Opening, hellos_before: usize) -> Option<&'static str> {
    match (from_client, opening) {
        (true, Opening::ClientHello) if hellos_before == 0 => Some(CLIENT_HELLO),
        (true, Opening::ClientHello) if hellos_before == 1 => Some(SECOND_CLIENT_HELLO),
        (false, Opening::HelloRetryRequest) => Some("HelloRetryRequest"),
        (false, Opening::ServerHello) => Some(SERVER_FLIGHT),
        (true, Opening::Encrypted) => Some(CLIENT_FINISHED),
        (false, Opening::Encrypted) => Some("NewSessionTicket"),
        _ => None,
    }
}

/// What a flight that opens with `opening` is, in a check's message.
fn what(opening: Opening) -> &'static str {
    match opening {
        Opening::ClientHello => "a ClientHello",
        Opening::HelloRetryRequest => "a HelloRetryRequest",
        Opening::ServerHello => "a ServerHello",
        Opening::Encrypted => "encrypted records",
        Opening::Other => "neither a hello nor encrypted records",
    }
}

fn side(from_client: bool) -> &'static str {
    if from_client {
        "client"
    } else {
        "server"
    }
}

/// Checks that the flights of a handshake of `mode` are, on the wire, the ones the mode
/// sends, in order: who sent each and what it opens with (a ClientHello, a
/// HelloRetryRequest, a ServerHello, the client's encrypted Finished).
pub fn check_flights(o: &Outcome, mode: Mode) -> Result<(), String> {
    let want = expected_flights(mode);
    for (i, &(client, opening)) in want.iter().enumerate() {
        let Some(w) = o.flights.get(i) else {
            return Err(format!(
                "the handshake has {} flight(s) on the wire; a {} handshake has at least {}",
                o.flights.len(),
                mode.as_str(),
                want.len()
            ));
        };
        if (w.from_client, w.opening) != (client, opening) {
            return Err(format!(
                "flight {} on the wire is {} from the {}, where a {} handshake sends {} from the {}",
                i + 1,
                what(w.opening),
                side(w.from_client),
                mode.as_str(),
                what(opening),
                side(client)
            ));
        }
    }
    Ok(())
}

/// The flights of a handshake, each named by what it opens with on the wire and who sent
/// it (a flight the names do not cover is `flight N`).
pub fn flights(o: &Outcome) -> Vec<Flight> {
    let mut hellos = 0;
    o.flights
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let name = flight_name(w.from_client, w.opening, hellos)
                .map_or_else(|| format!("flight {}", i + 1), str::to_string);
            if w.from_client && w.opening == Opening::ClientHello {
                hellos += 1;
            }
            Flight::new(&name, side(w.from_client), w.bytes, w.records)
        })
        .collect()
}

/// One handshake checked as `how` says; for a resumed one, `session` is what the previous one
/// left. Checked for completion only, a handshake still has to complete, and to resume exactly
/// when its mode does.
fn checked(
    stack: &dyn Stack,
    mode: Mode,
    (group, shape): (&Group, HelloShape),
    session: &mut Option<Session>,
    how: Check,
) -> Result<Outcome, String> {
    let mut o = memory::handshake(stack, mode, session.take(), how)?;
    match how {
        Check::Whole => check(&o, mode, group, shape),
        Check::Completion => check_resumption(&o, mode),
    }
    .map_err(|e| format!("{} handshake: {e}", mode.as_str()))?;
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
    let mut o = memory::handshake(stack, Mode::Resumed, None, Check::Whole)?;
    Ok(o.session.take())
}

#[derive(Default)]
struct Samples {
    server: Vec<f64>,
    client: Vec<f64>,
    round_server: Vec<f64>,
    round_client: Vec<f64>,
    /// The whole checks' own times, ns.
    check: Vec<f64>,
    handshakes: u64,
    secs: f64,
}

/// One benchmark between its check and its figures: the kinds of handshake of every
/// benchmark are timed in rounds that take turns, so a machine whose speed changes second by
/// second affects every group and stack alike.
pub struct Bench<'a> {
    plan: &'a Plan<'a>,
    /// The result so far.
    pub result: TlsResult,
    stack: Option<Box<dyn Stack>>,
    /// The kinds of handshake this benchmark's hello has ([`modes_for`]).
    modes: Vec<Mode>,
    sessions: Vec<Option<Session>>,
    acc: Vec<Samples>,
    flights: Vec<Vec<Flight>>,
    kem: Option<Arc<dyn Kem>>,
    kem_rounds: Vec<[f64; 3]>,
    sigs: Option<Box<dyn super::signature::Signatures>>,
    sig_rounds: Vec<[f64; 2]>,
    sig_count: usize,
}

impl Bench<'_> {
    /// Whether it is still being measured (available, no error).
    pub fn live(&self) -> bool {
        self.stack.is_some()
    }

    fn fail(&mut self, e: String) {
        self.result.error = Some(e);
        self.stack = None;
    }
}

fn empty_result(plan: &Plan) -> TlsResult {
    let g = plan.group;
    TlsResult {
        algorithm: g.algorithm.to_string(),
        implementation: plan
            .hello
            .implementation(plan.stack, plan.chain.kind.as_str()),
        stack: plan.stack.as_str().to_string(),
        version: version(plan.stack),
        group: g.tls_name.to_string(),
        codepoint: g.codepoint,
        cert: plan.chain.kind.as_str().to_string(),
        hello: plan.hello.as_str().to_string(),
        client_shares: None,
        modes_unavailable: Vec::new(),
        unavailable: None,
        checks: None,
        modes: Vec::new(),
        scaling: Vec::new(),
        capacity: None,
        kem: None,
        kem_unavailable: None,
        signature: None,
        signature_unavailable: None,
        network: Vec::new(),
        network_skipped: None,
        error: None,
        interrupted: false,
    }
}

/// Builds the stack for `plan` and checks one handshake of each kind of `cfg` (a resumed one
/// after a full handshake that gave it its ticket); records the flights and the key shares.
///
/// `kem` is kembench's implementation of the group on the same library: checked here, then
/// timed in every round beside the handshakes.
///
/// The handshake's signatures are timed bare on the stack's library too
/// ([`super::signature`]), checked here.
pub fn start<'a>(plan: &'a Plan<'a>, cfg: &TlsConfig, kem: Option<Arc<dyn Kem>>) -> Bench<'a> {
    let mut b = start_with(
        plan,
        cfg,
        kem,
        stack(plan.stack, plan.group, plan.chain, plan.hello),
    );
    if b.live() {
        match super::signature::for_stack(plan.stack, plan.chain) {
            Ok(s) => b.sigs = Some(s),
            Err(e) if plan.stack.in_process() => {
                b.fail(format!("the bare signatures: {e}"));
            }
            Err(e) => b.result.signature_unavailable = Some(e),
        }
    }
    b
}

/// [`start`] with a stack made elsewhere (or why there is none): how a stack that lives
/// outside kembench's binary (BoringSSL's worker, `workers/tls-boring`) is measured by the
/// same code as the others. The result's version is the stack's own.
pub fn start_with<'a>(
    plan: &'a Plan<'a>,
    cfg: &TlsConfig,
    kem: Option<Arc<dyn Kem>>,
    made: Result<Box<dyn Stack>, String>,
) -> Bench<'a> {
    let modes = modes_for(&cfg.modes, plan.hello);
    let mut b = Bench {
        plan,
        result: empty_result(plan),
        stack: None,
        acc: modes.iter().map(|_| Samples::default()).collect(),
        modes,
        sessions: Vec::new(),
        flights: Vec::new(),
        kem: None,
        kem_rounds: Vec::new(),
        sigs: None,
        sig_rounds: Vec::new(),
        sig_count: 0,
    };
    if let Some(k) = kem {
        match crate::engine::quick_check(k.as_ref()) {
            crate::verify::Outcome::Fail(why) => {
                b.result.error = Some(format!(
                    "the bare key exchange {} is not timed: its correctness check failed: {why}",
                    k.meta().label()
                ));
            }
            _ => b.kem = Some(k),
        }
    }
    let stack = match made {
        Ok(s) => s,
        Err(why) => {
            b.result.unavailable = Some(why);
            return b;
        }
    };
    b.result.version = stack.version();
    if cfg.modes.contains(&Mode::Hrr) && !b.modes.contains(&Mode::Hrr) {
        b.result.modes_unavailable.push(format!(
            "hrr: a {} hello's first key shares are the stack's own choice, not a wrong guess",
            plan.hello.as_str()
        ));
    }
    if b.modes.is_empty() {
        b.result.unavailable = Some(format!(
            "no kind of handshake asked for has a {} hello",
            plan.hello.as_str()
        ));
        return b;
    }
    // The shares this stack's hello of this shape carries, read off the wire: a shape with no
    // share for the group is unavailable (the server would have to ask again), not measured
    // as something else.
    match first_hello(stack.as_ref()) {
        Ok(shares) => {
            b.result.client_shares = Some(describe_shares(&shares));
            if plan.hello != HelloShape::Minimal
                && !shares.iter().any(|s| s.0 == plan.group.codepoint)
            {
                b.result.unavailable = Some(format!(
                    "{}'s {} ClientHello carries no {} key share (on the wire: {}): the \
                     server would have to ask for one (HelloRetryRequest)",
                    plan.stack.as_str(),
                    plan.hello.as_str(),
                    plan.group.tls_name,
                    describe_shares(&shares)
                ));
                return b;
            }
        }
        Err(e) => {
            b.fail(format!("the first ClientHello: {e}"));
            return b;
        }
    }
    match check_each(&mut b, stack.as_ref(), cfg) {
        Ok(()) => b.stack = Some(stack),
        Err(e) => b.fail(e),
    }
    b
}

/// The key shares of a new full-handshake client's first flight, as the wire shows them.
fn first_hello(stack: &dyn Stack) -> Result<Vec<(u16, usize)>, String> {
    let mut out = Vec::new();
    stack.client(Mode::Full, None)?.send(&mut out)?;
    super::wire::hello(&out)
        .filter(|h| h.msg_type == 1)
        .map(|h| h.shares)
        .ok_or_else(|| "the client's first flight is not a ClientHello".into())
}

fn check_each(b: &mut Bench, stack: &dyn Stack, _cfg: &TlsConfig) -> Result<(), String> {
    let g = (b.plan.group, b.plan.hello);
    let mut full: Option<Outcome> = None;
    for mode in b.modes.clone() {
        let mut session = if mode == Mode::Resumed {
            prime(stack)?
        } else {
            None
        };
        let o = checked(stack, mode, g, &mut session, Check::Whole)?;
        b.flights.push(flights(&o));
        if mode == Mode::Full || full.is_none() {
            full = Some(o);
        }
        b.sessions.push(session);
    }
    let first = full.ok_or("no kind of handshake was asked for")?;
    // The group's own share (a hello of another shape carries others beside it).
    let code = g.0.codepoint;
    let share = |h: &Option<super::wire::Hello>| {
        h.as_ref()
            .and_then(|h| h.shares.iter().find(|s| s.0 == code))
            .map_or(0, |s| s.1)
    };
    b.result.checks = Some(Checks {
        handshakes: b.modes.len() as u64,
        completion_only: 0,
        check_ns: None,
        negotiated_group: g.0.tls_name.to_string(),
        client_share_bytes: share(&first.client_hello),
        server_share_bytes: share(&first.server_hello),
        certificate: b.plan.chain.describe(),
    });
    Ok(())
}

/// One round: each kind of handshake for its share of `cfg.duration_s` (at least three
/// handshakes), each handshake checked.
pub fn round(b: &mut Bench, cfg: &TlsConfig, timers: &Timers) {
    let Some(stack) = b.stack.take() else {
        return;
    };
    let slice = Duration::from_secs_f64(cfg.duration_s / (ROUNDS as f64));
    let g = (b.plan.group, b.plan.hello);
    let (mut whole, mut made) = (0u64, 0u64);
    for (i, &mode) in b.modes.iter().enumerate() {
        let (mut s, mut c, mut k) = (Vec::new(), Vec::new(), Vec::new());
        let t = Instant::now();
        while t.elapsed() < slice || s.len() < 3 {
            let how = check_for(s.len() as u64);
            match checked(stack.as_ref(), mode, g, &mut b.sessions[i], how) {
                Ok(o) => {
                    s.push(o.server_ns as f64);
                    c.push(o.client_ns as f64);
                    if how == Check::Whole {
                        k.push(o.check_ns as f64);
                    }
                }
                Err(e) => {
                    b.fail(e);
                    return;
                }
            }
        }
        let a = &mut b.acc[i];
        a.secs += t.elapsed().as_secs_f64();
        a.handshakes += s.len() as u64;
        made += s.len() as u64;
        whole += k.len() as u64;
        a.round_server.push(crate::stats::median(&s));
        a.round_client.push(crate::stats::median(&c));
        a.server.extend(s);
        a.client.extend(c);
        a.check.extend(k);
    }
    if let Some(c) = b.result.checks.as_mut() {
        c.handshakes += whole;
        c.completion_only += made - whole;
    }
    if let Some(k) = &b.kem {
        match kem_round(k.as_ref(), timers) {
            Ok(m) => b.kem_rounds.push(m),
            Err(e) => {
                b.fail(format!("the bare key exchange {}: {e}", k.meta().label()));
                return;
            }
        }
    }
    if let Some(sg) = &b.sigs {
        match super::signature::round(sg.as_ref(), 0.02) {
            Ok((m, n)) => {
                b.sig_rounds.push(m);
                b.sig_count = n;
            }
            Err(e) => {
                b.fail(format!("the bare signatures: {e}"));
                return;
            }
        }
    }
    b.stack = Some(stack);
}

/// After the rounds: each kind's figures, then the bare key exchange, scaling and capacity.
/// A benchmark short of its rounds (Ctrl-C) keeps what it measured, marked interrupted.
pub fn finish(mut b: Bench, cfg: &TlsConfig, cpus: usize, stop: &dyn Fn() -> bool) -> TlsResult {
    let Some(stack) = b.stack.take() else {
        return b.result;
    };
    let r = &mut b.result;
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    for ((&mode, a), flights) in b.modes.iter().zip(&b.acc).zip(&b.flights) {
        let (Some(server_ns), Some(client_ns)) = (Spread::of(&a.server), Spread::of(&a.client))
        else {
            r.interrupted = true;
            return b.result;
        };
        r.modes.push(ModeCost {
            mode,
            handshakes: a.handshakes,
            handshakes_per_sec: a.handshakes as f64 / a.secs,
            server_ns,
            client_ns,
            server_best_round_median_ns: min(&a.round_server),
            client_best_round_median_ns: min(&a.round_client),
            flights: flights.clone(),
        });
    }
    if b.acc.iter().any(|a| a.round_server.len() < ROUNDS) || stop() {
        r.interrupted = true;
        return b.result;
    }
    let checks: Vec<f64> = b.acc.iter().flat_map(|a| a.check.iter().copied()).collect();
    if let (Some(c), false) = (r.checks.as_mut(), checks.is_empty()) {
        c.check_ns = Some(crate::stats::median(&checks));
    }
    if let (Some(k), Some(i)) = (&b.kem, b.modes.iter().position(|&m| m == Mode::Full)) {
        r.kem = kem_share(k.meta().label(), &b.kem_rounds, &b.acc[i], cfg.target_rate);
    }
    if let (Some(sg), Some(i)) = (&b.sigs, b.modes.iter().position(|&m| m == Mode::Full)) {
        r.signature = signature_share(sg.describe(), &b.sig_rounds, b.sig_count, &b.acc[i]);
    }
    if let Err(e) = scale(
        r,
        stack.as_ref(),
        (b.plan.group, b.plan.hello),
        cfg,
        cpus,
        stop,
    ) {
        r.error = Some(e);
    }
    r.capacity = capacity(r, cfg.target_rate, cpus);
    b.result
}

/// The bare key exchange's medians of one round: keygen, encapsulation, decapsulation (ns),
/// each from a short sample taken as `run` times the operation.
fn kem_round(k: &dyn Kem, timers: &Timers) -> Result<[f64; 3], String> {
    let cfg = SamplerConfig {
        time_budget_s: 0.05,
        warmup_s: 0.01,
        min_samples: 10,
        rounds: 1,
        ..SamplerConfig::default()
    };
    let median = |op: Op| -> Result<f64, String> {
        sampler::sample(k, op, &cfg, timers, None, "")
            .map(|s| crate::stats::median(&s.samples_ns))
            .map_err(|e| format!("{}: {e}", op.as_str()))
    };
    Ok([
        median(Op::Keygen)?,
        median(Op::Encaps)?,
        median(Op::Decaps)?,
    ])
}

/// The bare key exchange on the same library, timed in the same rounds as the handshakes:
/// the median over rounds of keygen, encapsulation and decapsulation, their share of the full
/// handshake per side as the median of the rounds' ratios (each ratio taken within one round,
/// so in one speed state of the machine), and `throughput`'s model from those rates on one core.
fn kem_share(label: String, rounds: &[[f64; 3]], full: &Samples, target: f64) -> Option<KemShare> {
    if rounds.is_empty() || rounds.len() != full.round_server.len() {
        return None;
    }
    let col = |i: usize| crate::stats::median(&rounds.iter().map(|r| r[i]).collect::<Vec<_>>());
    let (kg, enc, dec) = (col(0), col(1), col(2));
    let ratios = |f: &dyn Fn(&[f64; 3], usize) -> f64| {
        crate::stats::median(
            &rounds
                .iter()
                .enumerate()
                .map(|(i, r)| f(r, i))
                .collect::<Vec<_>>(),
        )
    };
    Some(KemShare {
        implementation: label,
        keygen_ns: kg,
        encaps_ns: enc,
        decaps_ns: dec,
        server_share: ratios(&|r, i| r[1] / full.round_server[i]),
        client_share: ratios(&|r, i| (r[0] + r[2]) / full.round_client[i]),
        model: calc::capacity(1, 1e9 / kg, 1e9 / enc, 1e9 / dec, target),
    })
}

/// The signatures timed in the same rounds as the handshakes: medians over rounds, and their
/// shares of the full handshake per side as the median of the rounds' ratios (as
/// [`kem_share`]).
fn signature_share(
    label: String,
    rounds: &[[f64; 2]],
    verifications: usize,
    full: &Samples,
) -> Option<SignatureShare> {
    if rounds.is_empty() || rounds.len() != full.round_server.len() {
        return None;
    }
    let med = |f: &dyn Fn(usize, &[f64; 2]) -> f64| {
        crate::stats::median(&rounds.iter().enumerate().map(|(i, r)| f(i, r)).collect::<Vec<_>>())
    };
    Some(SignatureShare {
        implementation: label,
        message_bytes: super::signature::certificate_verify_input().len(),
        sign_ns: med(&|_, r| r[0]),
        verify_ns: med(&|_, r| r[1]),
        verifications,
        server_share: med(&|i, r| r[0] / full.round_server[i]),
        client_share: med(&|i, r| r[1] / full.round_client[i]),
    })
}

/// Full handshakes on each thread count, each thread doing both sides, every thread count
/// measured three times in rotation (the median repeat is kept), as `throughput` does.
fn scale(
    r: &mut TlsResult,
    stack: &dyn Stack,
    g: (&Group, HelloShape),
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
    let (mut made, mut whole) = (0u64, 0u64);
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
                                checked(stack, Mode::Full, g, &mut none, check_for(count))?;
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
            whole += raw.iter().map(|x| x.0.div_ceil(CHECK_EVERY)).sum::<u64>();
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
        c.handshakes += whole;
        c.completion_only += made - whole;
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
