//! Real handshakes on both stacks: every default group, every kind of handshake, checked, with
//! the key-share sizes the drafts fix.

use super::certs::Chain;
use super::groups::{CertKind, Group, HelloShape, StackKind, GROUPS};
use super::measure::{check, check_for, check_resumption, flights, stack, CHECK_EVERY};
use super::memory::{handshake, Check};

const IN_PROCESS: [StackKind; 2] = [StackKind::Rustls, StackKind::Openssl];
use crate::record::tls::Mode;

fn chain() -> Chain {
    Chain::generate(CertKind::EcdsaP256).unwrap()
}

#[test]
fn every_default_group_negotiates_on_both_stacks() {
    let chain = chain();
    for kind in IN_PROCESS {
        for g in GROUPS.iter().filter(|g| g.default) {
            let s =
                stack(kind, g, &chain, HelloShape::Minimal).unwrap_or_else(|e| panic!("{kind:?} {}: {e}", g.tls_name));
            for _ in 0..3 {
                let o = handshake(s.as_ref(), Mode::Full, None, Check::Whole)
                    .unwrap_or_else(|e| panic!("{kind:?} {}: {e}", g.tls_name));
                check(&o, Mode::Full, g, HelloShape::Minimal).unwrap_or_else(|e| panic!("{kind:?} {}: {e}", g.tls_name));
                assert!(o.server_ns > 0 && o.client_ns > 0);
            }
        }
    }
}

#[test]
fn hybrid_key_shares_have_the_drafts_sizes_and_spill_the_client_hello() {
    let chain = chain();
    let g = Group::find("X25519MLKEM768").unwrap();
    for kind in IN_PROCESS {
        let s = stack(kind, g, &chain, HelloShape::Minimal).unwrap();
        let o = handshake(s.as_ref(), Mode::Full, None, Check::Whole).unwrap();
        assert_eq!(
            o.client_hello.as_ref().unwrap().shares,
            vec![(0x11ec, 1216)],
            "{kind:?}"
        );
        assert_eq!(
            o.server_hello.as_ref().unwrap().shares,
            vec![(0x11ec, 1120)],
            "{kind:?}"
        );
        let f = flights(&o);
        assert_eq!(f[0].name, "ClientHello");
        assert!(f[0].bytes > 1216 && f[0].bytes < 2000, "{kind:?}: {f:?}");
        assert_eq!(f[0].segments, 1 + usize::from(f[0].bytes > 1460));
        assert_eq!(f[1].from, "server");
        assert!(f[1].bytes > 1120, "{kind:?}: {f:?}");
    }
    // X25519's shares are 32 bytes both ways and its ClientHello fits one segment.
    let x = Group::find("X25519").unwrap();
    for kind in IN_PROCESS {
        let s = stack(kind, x, &chain, HelloShape::Minimal).unwrap();
        let o = handshake(s.as_ref(), Mode::Full, None, Check::Whole).unwrap();
        assert_eq!(o.client_hello.unwrap().shares, vec![(0x001d, 32)]);
        assert_eq!(o.server_hello.unwrap().shares, vec![(0x001d, 32)]);
        assert_eq!(
            flights(&handshake(s.as_ref(), Mode::Full, None, Check::Whole).unwrap())[0]
            .segments,
            1
        );
    }
}

#[test]
fn resumed_and_retried_handshakes_are_what_they_say() {
    let chain = chain();
    for kind in IN_PROCESS {
        for name in ["X25519MLKEM768", "X25519"] {
            let g = Group::find(name).unwrap();
            let s = stack(kind, g, &chain, HelloShape::Minimal).unwrap();
            let mut session = handshake(s.as_ref(), Mode::Resumed, None, Check::Whole).unwrap().session;
            for _ in 0..3 {
                let o = handshake(s.as_ref(), Mode::Resumed, session.take(), Check::Whole).unwrap();
                check(&o, Mode::Resumed, g, HelloShape::Minimal).unwrap_or_else(|e| panic!("{kind:?} {name}: {e}"));
                session = o.session;
            }
            let o = handshake(s.as_ref(), Mode::Hrr, None, Check::Whole).unwrap();
            check(&o, Mode::Hrr, g, HelloShape::Minimal).unwrap_or_else(|e| panic!("{kind:?} {name}: {e}"));
            let f = flights(&o);
            assert_eq!(f[1].name, "HelloRetryRequest");
            assert_eq!(f[2].from, "client");
            // A full handshake is not mistaken for one of the others.
            let full = handshake(s.as_ref(), Mode::Full, None, Check::Whole).unwrap();
            assert!(check(&full, Mode::Resumed, g, HelloShape::Minimal).is_err());
            assert!(check(&full, Mode::Hrr, g, HelloShape::Minimal).is_err());
        }
    }
}

#[test]
fn a_fallback_to_another_group_fails_the_check() {
    let chain = chain();
    let x = Group::find("X25519").unwrap();
    let hybrid = Group::find("X25519MLKEM768").unwrap();
    for kind in IN_PROCESS {
        let s = stack(kind, x, &chain, HelloShape::Minimal).unwrap();
        let o = handshake(s.as_ref(), Mode::Full, None, Check::Whole).unwrap();
        let e = check(&o, Mode::Full, hybrid, HelloShape::Minimal).unwrap_err();
        assert!(e.contains("instead of X25519MLKEM768"), "{e}");
    }
}

#[test]
fn a_group_a_stack_lacks_is_unavailable_with_the_reason() {
    let chain = chain();
    let ff = Group::find("ffdhe2048").unwrap();
    let e = stack(StackKind::Rustls, ff, &chain, HelloShape::Minimal).err().unwrap();
    assert!(e.contains("no ffdhe2048 group"), "{e}");
}

#[test]
fn one_handshake_in_check_every_is_checked_whole_and_the_others_for_completion() {
    assert_eq!(check_for(0), Check::Whole);
    assert_eq!(check_for(CHECK_EVERY), Check::Whole);
    assert!((1..CHECK_EVERY).all(|i| check_for(i) == Check::Completion));
    let chain = chain();
    let g = Group::find("X25519MLKEM768").unwrap();
    for kind in IN_PROCESS {
        let s = stack(kind, g, &chain, HelloShape::Minimal).unwrap();
        let whole = handshake(s.as_ref(), Mode::Full, None, Check::Whole).unwrap();
        assert!(whole.check_ns > 0 && !whole.flights.is_empty(), "{kind:?}");
        let lean = handshake(s.as_ref(), Mode::Full, None, Check::Completion).unwrap();
        assert_eq!(lean.check_ns, 0, "{kind:?}");
        assert!(lean.flights.is_empty() && lean.client_hello.is_none(), "{kind:?}");
        assert!(lean.server_ns > 0 && lean.client_ns > 0, "{kind:?}");
        // What a handshake checked for completion still must be: resumed exactly when asked.
        check_resumption(&lean, Mode::Full).unwrap();
        let e = check_resumption(&lean, Mode::Resumed).unwrap_err();
        assert!(e.contains("did not resume"), "{e}");
        // A resuming client checked for completion keeps its session for the next one.
        let mut session = handshake(s.as_ref(), Mode::Resumed, None, Check::Whole)
            .unwrap()
            .session;
        for _ in 0..3 {
            let o = handshake(s.as_ref(), Mode::Resumed, session.take(), Check::Completion)
                .unwrap();
            check_resumption(&o, Mode::Resumed).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
            session = o.session;
        }
    }
}

#[test]
fn default_hellos_negotiate_the_group_and_are_checked_on_the_wire() {
    let chain = chain();
    let hybrid = Group::find("X25519MLKEM768").unwrap();
    let x = Group::find("X25519").unwrap();
    // Both default hellos carry the hybrid share and X25519's.
    for (kind, g) in [(StackKind::Openssl, hybrid), (StackKind::Rustls, hybrid), (StackKind::Rustls, x)] {
        let s = stack(kind, g, &chain, HelloShape::Defaults).unwrap();
        let o = handshake(s.as_ref(), Mode::Full, None, Check::Whole).unwrap();
        check(&o, Mode::Full, g, HelloShape::Defaults).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let shares = &o.client_hello.as_ref().unwrap().shares;
        assert!(shares.iter().any(|s| s.0 == g.codepoint), "{kind:?}: {shares:?}");
        // The same handshake is not a browser hello: no GREASE share first.
        let e = check(&o, Mode::Full, g, HelloShape::Browser).unwrap_err();
        assert!(e.contains("not GREASE"), "{e}");
        // Nor a defaults hello of a group it sent no share for.
        let other = Group::find("MLKEM1024").unwrap();
        assert!(check(&o, Mode::Full, other, HelloShape::Defaults).is_err());
    }
    // Neither stack makes a browser hello.
    for kind in IN_PROCESS {
        let e = stack(kind, hybrid, &chain, HelloShape::Browser).err().unwrap();
        assert!(e.contains("no GREASE"), "{e}");
    }
}

#[test]
fn the_share_checks_fail_on_bad_hellos() {
    use super::measure::{check_shares, describe_shares};
    let g = Group::find("X25519MLKEM768").unwrap();
    let browser = [(0x4a4a, 1), (0x11ec, 1216), (0x001d, 32)];
    check_shares(&browser, HelloShape::Browser, g).unwrap();
    check_shares(&browser[1..], HelloShape::Defaults, g).unwrap();
    assert_eq!(
        describe_shares(&browser),
        "GREASE 0x4a4a 1 B, X25519MLKEM768 1216 B, X25519 32 B"
    );
    let e = check_shares(&browser[1..], HelloShape::Browser, g).unwrap_err();
    assert!(e.contains("first key share is not GREASE"), "{e}");
    let e = check_shares(&[(0x4a4a, 1), (0x11ec, 1216)], HelloShape::Browser, g).unwrap_err();
    assert!(e.contains("no share for 0x001d"), "{e}");
    let e = check_shares(&[(0x001d, 32)], HelloShape::Defaults, g).unwrap_err();
    assert!(e.contains("no X25519MLKEM768 share"), "{e}");
    let e = check_shares(&[(0x11ec, 1216), (0x11ec, 1216)], HelloShape::Defaults, g).unwrap_err();
    assert!(e.contains("twice"), "{e}");
}

/// A short benchmark (full handshakes only, no scaling) on each in-process stack records the
/// signatures timed bare: positive, a positive share of each side, ML-DSA-65's verification
/// summed over three signatures; BoringSSL's stack (not in this process) leaves it absent.
#[test]
fn the_signature_share_is_timed_on_both_stacks() {
    use super::measure::{finish, round, start, Plan};
    use crate::measure::timer::Timers;
    use crate::record::tls::TlsConfig;
    let cfg = TlsConfig {
        stacks: Vec::new(),
        groups: Vec::new(),
        certs: Vec::new(),
        hellos: Vec::new(),
        modes: vec![Mode::Full],
        duration_s: 0.05,
        threads: Vec::new(),
        scaling_duration_s: 0.05,
        target_rate: 1000.0,
        network: Vec::new(),
        network_handshakes: 0,
        network_concurrency: 1,
        network_parallel: 1,
        planned: Vec::new(),
    };
    let timers = Timers::calibrate();
    let group = GROUPS.iter().find(|g| g.tls_name == "X25519").unwrap();
    for kind in [CertKind::EcdsaP256, CertKind::MlDsa65] {
        let chain = Chain::generate(kind).unwrap();
        for stack in IN_PROCESS {
            let plan = Plan {
                stack,
                group,
                chain: &chain,
                hello: HelloShape::Minimal,
            };
            let mut b = start(&plan, &cfg, None);
            for _ in 0..super::measure::ROUNDS {
                round(&mut b, &cfg, &timers);
            }
            let r = finish(b, &cfg, 1, &|| false);
            let what = format!("{} {}", kind.as_str(), stack.as_str());
            assert_eq!(r.error, None, "{what}");
            let s = r.signature.expect(&what);
            assert!(s.sign_ns > 0.0 && s.verify_ns > 0.0, "{what}: {s:?}");
            assert!(s.server_share > 0.0 && s.client_share > 0.0, "{what}: {s:?}");
            assert_eq!(s.message_bytes, 64 + 33 + 1 + 48);
            assert_eq!(s.verifications, 3, "{what}");
            assert!(s.implementation.contains(kind.leaf().name()), "{what}: {s:?}");
        }
    }
    let chain = chain();
    let plan = Plan {
        stack: StackKind::Boringssl,
        group,
        chain: &chain,
        hello: HelloShape::Minimal,
    };
    let r = start(&plan, &cfg, None).result;
    assert!(r.signature.is_none() && r.unavailable.is_some());
}

/// A stack whose server exports other keying material than its client derives: what a key
/// schedule that differs between the sides would give (the handshake itself completes).
pub(super) struct SkewedExport(pub(super) Box<dyn super::side::Stack>);

/// A server side of [`SkewedExport`]: everything its stack's side does, its export's first
/// byte flipped.
struct SkewedSide(Box<dyn super::side::Side>);

impl super::side::Side for SkewedSide {
    fn receive(&mut self, data: &[u8]) -> Result<(), String> {
        self.0.receive(data)
    }
    fn send(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        self.0.send(out)
    }
    fn handshaking(&self) -> bool {
        self.0.handshaking()
    }
    fn group(&self) -> Option<String> {
        self.0.group()
    }
    fn export(&mut self) -> Result<Vec<u8>, String> {
        let mut ekm = self.0.export()?;
        ekm[0] ^= 1;
        Ok(ekm)
    }
    fn resumed(&self) -> bool {
        self.0.resumed()
    }
    fn write_app(&mut self, data: &[u8]) -> Result<(), String> {
        self.0.write_app(data)
    }
    fn read_app(&mut self) -> Result<Vec<u8>, String> {
        self.0.read_app()
    }
    fn session(&mut self) -> Option<super::side::Session> {
        self.0.session()
    }
}

impl super::side::Stack for SkewedExport {
    fn kind(&self) -> StackKind {
        self.0.kind()
    }
    fn version(&self) -> String {
        self.0.version()
    }
    fn client(
        &self,
        mode: Mode,
        session: Option<super::side::Session>,
    ) -> Result<Box<dyn super::side::Side>, String> {
        self.0.client(mode, session)
    }
    fn server(&self) -> Result<Box<dyn super::side::Side>, String> {
        Ok(Box::new(SkewedSide(self.0.server()?)))
    }
}

/// Keying material the two sides export differently fails a handshake checked whole, on both
/// stacks and in every mode, naming the check; checked for completion only (nothing
/// exported), the same handshake completes.
#[test]
fn keying_material_that_differs_between_the_sides_fails_the_check() {
    let chain = chain();
    let g = Group::find("X25519MLKEM768").unwrap();
    for kind in IN_PROCESS {
        let s = SkewedExport(stack(kind, g, &chain, HelloShape::Minimal).unwrap());
        for mode in [Mode::Full, Mode::Hrr] {
            let e = handshake(&s, mode, None, Check::Whole).err().unwrap_or_else(|| {
                panic!("{kind:?} {mode:?}: a handshake whose sides export differently passed")
            });
            assert_eq!(
                e, "the client and the server exported different keying material",
                "{kind:?} {mode:?}"
            );
            assert!(handshake(&s, mode, None, Check::Completion).is_ok(), "{kind:?} {mode:?}");
        }
    }
}

/// Flights are named by what they open with on the wire and who sent them, never by their
/// position, and the check fails a handshake whose flights are not the mode's: out of order,
/// missing, or from the wrong side.
#[test]
fn flights_are_named_and_checked_by_what_the_wire_shows() {
    use super::measure::check_flights;
    use super::wire::Opening;
    let chain = chain();
    let g = Group::find("X25519").unwrap();
    for kind in IN_PROCESS {
        let s = stack(kind, g, &chain, HelloShape::Minimal).unwrap();
        let mut o = handshake(s.as_ref(), Mode::Full, None, Check::Whole).unwrap();
        check_flights(&o, Mode::Full).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let names: Vec<String> = flights(&o).into_iter().map(|f| f.name).collect();
        assert_eq!(
            &names[..3],
            ["ClientHello", "ServerHello..Finished", "client Finished"],
            "{kind:?}"
        );
        assert!(
            names[3..].iter().all(|n| n == "NewSessionTicket"),
            "{kind:?}: {names:?}"
        );
        let openings: Vec<Opening> = o.flights.iter().map(|w| w.opening).collect();
        assert_eq!(
            &openings[..3],
            [Opening::ClientHello, Opening::ServerHello, Opening::Encrypted],
            "{kind:?}"
        );

        // A full handshake is not a retried one: its second flight is a ServerHello.
        let e = check_flights(&o, Mode::Hrr).unwrap_err();
        assert!(
            e.contains("flight 2 on the wire is a ServerHello from the server, where a hrr handshake sends a HelloRetryRequest from the server"),
            "{kind:?}: {e}"
        );
        let e = check(&o, Mode::Hrr, g, HelloShape::Minimal).unwrap_err();
        assert!(e.contains("flight 2 on the wire"), "{kind:?}: {e}");

        // The client's Finished and the server's flight swapped: by position the names would
        // still read ClientHello, ServerHello..Finished, client Finished.
        let whole = o.flights.clone();
        o.flights.swap(1, 2);
        let e = check_flights(&o, Mode::Full).unwrap_err();
        assert!(
            e.contains("flight 2 on the wire is encrypted records from the client, where a full handshake sends a ServerHello from the server"),
            "{kind:?}: {e}"
        );
        assert!(check(&o, Mode::Full, g, HelloShape::Minimal).is_err());
        let names: Vec<String> = flights(&o).into_iter().map(|f| f.name).collect();
        assert_eq!(
            &names[..3],
            ["ClientHello", "client Finished", "ServerHello..Finished"],
            "{kind:?}"
        );

        // The client's Finished missing.
        o.flights = whole[..2].to_vec();
        let e = check_flights(&o, Mode::Full).unwrap_err();
        assert!(
            e.contains("the handshake has 2 flight(s) on the wire; a full handshake has at least 3"),
            "{kind:?}: {e}"
        );

        // A flight that opens with something else is neither named nor passed.
        o.flights = whole.clone();
        o.flights[0].opening = Opening::Other;
        let e = check_flights(&o, Mode::Full).unwrap_err();
        assert!(
            e.contains("flight 1 on the wire is neither a hello nor encrypted records from the client"),
            "{kind:?}: {e}"
        );
        assert_eq!(flights(&o)[0].name, "flight 1");
    }
    // A retried handshake: both ClientHellos named by the count before them.
    let hybrid = Group::find("X25519MLKEM768").unwrap();
    for kind in IN_PROCESS {
        let s = stack(kind, hybrid, &chain, HelloShape::Minimal).unwrap();
        let o = handshake(s.as_ref(), Mode::Hrr, None, Check::Whole).unwrap();
        check_flights(&o, Mode::Hrr).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let names: Vec<String> = flights(&o).into_iter().map(|f| f.name).collect();
        assert_eq!(
            &names[..5],
            [
                "ClientHello",
                "HelloRetryRequest",
                "second ClientHello",
                "ServerHello..Finished",
                "client Finished"
            ],
            "{kind:?}"
        );
        let e = check_flights(&o, Mode::Full).unwrap_err();
        assert!(e.contains("flight 2 on the wire is a HelloRetryRequest"), "{kind:?}: {e}");
    }
}
