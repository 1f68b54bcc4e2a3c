//! The cost of kembench's TLS harness: `kembench tls`'s figures held against direct loops of
//! the same stacks, interleaved in one process. Run with `cargo bench --bench tls_harness`
//! (optionally `-- GROUP`, a group's TLS name; default X25519MLKEM768).
//!
//! - kembench: the engine the command runs (`tls::measure::start`, `round` and `finish`) on
//!   one full-handshake benchmark per stack, its handshakes per second from the timed rounds
//!   and from scaling at one thread, and each side's fastest-round median.
//! - direct rustls: `ClientConnection::new` and `ServerConnection::new` on configurations built
//!   as kembench builds them (the same chain, the group alone, rustls's default tickets), their
//!   bytes handed over in memory with `write_tls`/`read_tls`/`process_new_packets` until
//!   neither has anything to send; nothing checked, nothing else timed.
//! - direct OpenSSL: `SSL_new` on contexts built as kembench builds them, a BIO pair between
//!   client and server, `SSL_do_handshake` on each in turn, then `SSL_read` on the client for
//!   the tickets (as kembench's client reads them), both freed after a quiet shutdown.
//!
//! Each direct loop runs twice per round: tight (no timer inside: handshakes per second) and
//! timed (each side's calls timed as kembench times them: each side's median). A shared
//! virtual machine drifts between speed states, so the direct loops and kembench alternate in
//! every round (which goes first alternates too), and each figure is the fast state: the
//! lowest of the round medians (the highest rate). Ratios are kembench over direct (rates:
//! below 1 is slower; times: above 1 is slower), fast state and median of the rounds' ratios.
//!
//! Knobs (environment): `KEMBENCH_TLS_ROUNDS` (default 7), `KEMBENCH_TLS_SECS` (seconds of
//! each kembench benchmark's timed rounds per round, default 0.5).

use kembench::record::tls::{Mode, TlsConfig};
use kembench::tls::certs::Chain;
use kembench::tls::groups::{CertKind, Group, StackKind};
use kembench::tls::measure::{self, Plan};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Timed blocks per direct loop and round, and each block's length.
const BLOCKS: usize = 3;
const BLOCK: Duration = Duration::from_millis(120);

/// One direct handshake: per-side nanoseconds when timed.
trait Direct {
    fn name(&self) -> &'static str;
    /// One full handshake; with `timed`, the server's and the client's time in their calls.
    fn handshake(&mut self, timed: bool) -> (u64, u64);
}

// ---------------------------------------------------------------- rustls

mod direct_rustls {
    use super::*;
    use rustls::crypto::aws_lc_rs::{self, kx_group};
    use rustls::crypto::CryptoProvider;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
    use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection};

    pub struct Loop {
        server: Arc<ServerConfig>,
        client: Arc<ClientConfig>,
        name: ServerName<'static>,
        buf: Vec<u8>,
        out: Vec<u8>,
    }

    pub fn new(g: &Group, chain: &Chain) -> Loop {
        let group = match g.tls_name {
            "X25519" => kx_group::X25519,
            "secp256r1" => kx_group::SECP256R1,
            "secp384r1" => kx_group::SECP384R1,
            "X25519MLKEM768" => kx_group::X25519MLKEM768,
            "SecP256r1MLKEM768" => kx_group::SECP256R1MLKEM768,
            "MLKEM768" => kx_group::MLKEM768,
            "MLKEM1024" => kx_group::MLKEM1024,
            other => panic!("rustls's provider has no {other}"),
        };
        let provider = Arc::new(CryptoProvider {
            kx_groups: vec![group],
            ..aws_lc_rs::default_provider()
        });
        let certs = vec![
            CertificateDer::from(chain.leaf_der.clone()),
            CertificateDer::from(chain.intermediate_der.clone()),
        ];
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(chain.leaf_key_pkcs8.clone()));
        let mut server = ServerConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .unwrap();
        server.ticketer = aws_lc_rs::Ticketer::new().unwrap();
        let mut roots = RootCertStore::empty();
        roots
            .add(CertificateDer::from(chain.root_der.clone()))
            .unwrap();
        let mut client = ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        client.resumption = rustls::client::Resumption::disabled();
        Loop {
            server: Arc::new(server),
            client: Arc::new(client),
            name: ServerName::try_from("localhost").unwrap(),
            buf: Vec::with_capacity(8192),
            out: Vec::with_capacity(8192),
        }
    }

    impl Direct for Loop {
        fn name(&self) -> &'static str {
            "rustls"
        }

        fn handshake(&mut self, timed: bool) -> (u64, u64) {
            let now = || timed.then(Instant::now);
            let took = |t: Option<Instant>| t.map_or(0, |t| t.elapsed().as_nanos() as u64);
            let t = now();
            let mut c = ClientConnection::new(self.client.clone(), self.name.clone()).unwrap();
            let mut client_ns = took(t);
            let t = now();
            let mut s = ServerConnection::new(self.server.clone()).unwrap();
            let mut server_ns = took(t);
            loop {
                let t = now();
                self.buf.clear();
                while c.wants_write() {
                    c.write_tls(&mut self.buf).unwrap();
                }
                client_ns += took(t);
                let sent_c = !self.buf.is_empty();
                let t = now();
                let mut rd = &self.buf[..];
                while !rd.is_empty() {
                    s.read_tls(&mut rd).unwrap();
                    s.process_new_packets().unwrap();
                }
                self.out.clear();
                while s.wants_write() {
                    s.write_tls(&mut self.out).unwrap();
                }
                server_ns += took(t);
                let sent_s = !self.out.is_empty();
                let t = now();
                let mut rd = &self.out[..];
                while !rd.is_empty() {
                    c.read_tls(&mut rd).unwrap();
                    c.process_new_packets().unwrap();
                }
                client_ns += took(t);
                if !sent_c
                    && !sent_s
                    && !c.wants_write()
                    && !c.is_handshaking()
                    && !s.is_handshaking()
                {
                    return (server_ns, client_ns);
                }
            }
        }
    }
}

// ---------------------------------------------------------------- OpenSSL

mod direct_openssl {
    use super::*;
    use foreign_types::ForeignType;
    use openssl::pkey::PKey;
    use openssl::ssl::{
        Ssl, SslContext, SslContextBuilder, SslMethod, SslSessionCacheMode, SslVerifyMode,
        SslVersion,
    };
    use openssl::x509::store::X509StoreBuilder;
    use openssl::x509::X509;
    use openssl_sys as ffi;

    extern "C" {
        // In every libcrypto, not declared by openssl-sys.
        fn BIO_new_bio_pair(
            bio1: *mut *mut ffi::BIO,
            writebuf1: usize,
            bio2: *mut *mut ffi::BIO,
            writebuf2: usize,
        ) -> std::os::raw::c_int;
    }

    pub struct Loop {
        server: SslContext,
        client: SslContext,
    }

    fn tls13(b: &mut SslContextBuilder) {
        b.set_min_proto_version(Some(SslVersion::TLS1_3)).unwrap();
        b.set_max_proto_version(Some(SslVersion::TLS1_3)).unwrap();
    }

    pub fn new(g: &Group, chain: &Chain) -> Loop {
        let mut s = SslContextBuilder::new(SslMethod::tls_server()).unwrap();
        tls13(&mut s);
        s.set_groups_list(g.openssl_name).unwrap();
        s.set_certificate(&X509::from_der(&chain.leaf_der).unwrap())
            .unwrap();
        s.add_extra_chain_cert(X509::from_der(&chain.intermediate_der).unwrap())
            .unwrap();
        s.set_private_key(&PKey::private_key_from_pkcs8(&chain.leaf_key_pkcs8).unwrap())
            .unwrap();
        let mut c = SslContextBuilder::new(SslMethod::tls_client()).unwrap();
        tls13(&mut c);
        c.set_groups_list(g.openssl_name).unwrap();
        let mut store = X509StoreBuilder::new().unwrap();
        store
            .add_cert(X509::from_der(&chain.root_der).unwrap())
            .unwrap();
        c.set_verify_cert_store(store.build()).unwrap();
        c.set_verify(SslVerifyMode::PEER);
        // kembench's client keeps the tickets it is given; so does this one.
        c.set_session_cache_mode(SslSessionCacheMode::CLIENT | SslSessionCacheMode::NO_INTERNAL);
        let index = Ssl::new_ex_index().unwrap();
        c.set_new_session_callback(move |ssl, session| ssl.set_ex_data(index, session));
        Loop {
            server: s.build(),
            client: c.build(),
        }
    }

    impl Direct for Loop {
        fn name(&self) -> &'static str {
            "openssl"
        }

        fn handshake(&mut self, timed: bool) -> (u64, u64) {
            let now = || timed.then(Instant::now);
            let took = |t: Option<Instant>| t.map_or(0, |t| t.elapsed().as_nanos() as u64);
            let t = now();
            let mut cs = Ssl::new(&self.client).unwrap();
            cs.set_hostname("localhost").unwrap();
            cs.param_mut().set_host("localhost").unwrap();
            let mut client_ns = took(t);
            let t = now();
            let ss = Ssl::new(&self.server).unwrap();
            let mut server_ns = took(t);
            let (c, s) = (cs.as_ptr(), ss.as_ptr());
            let (mut b1, mut b2) = (std::ptr::null_mut(), std::ptr::null_mut());
            // SAFETY: two live SSLs; each takes one end of a new BIO pair (freed with it).
            unsafe {
                assert_eq!(BIO_new_bio_pair(&mut b1, 0, &mut b2, 0), 1);
                ffi::SSL_set_bio(c, b1, b1);
                ffi::SSL_set_bio(s, b2, b2);
                ffi::SSL_set_connect_state(c);
                ffi::SSL_set_accept_state(s);
            }
            // A step that neither completes nor waits for the peer is a failure, not a loop.
            let step = |ssl: *mut ffi::SSL| -> bool {
                // SAFETY: a live SSL with its BIO set.
                let rc = unsafe { ffi::SSL_do_handshake(ssl) };
                if rc == 1 {
                    return true;
                }
                // SAFETY: as above, with the return code just given.
                let e = unsafe { ffi::SSL_get_error(ssl, rc) };
                assert!(
                    e == ffi::SSL_ERROR_WANT_READ || e == ffi::SSL_ERROR_WANT_WRITE,
                    "OpenSSL handshake failed: SSL_get_error {e}"
                );
                false
            };
            let (mut c_done, mut s_done) = (false, false);
            let mut buf = [0u8; 4096];
            while !(c_done && s_done) {
                let t = now();
                if !c_done && step(c) {
                    c_done = true;
                    // SAFETY: a live SSL.
                    let verified = unsafe { ffi::SSL_get_verify_result(c) };
                    assert_eq!(verified, ffi::X509_V_OK as std::os::raw::c_long);
                }
                client_ns += took(t);
                let t = now();
                if !s_done && step(s) {
                    s_done = true;
                }
                server_ns += took(t);
            }
            // The client reads what follows the handshake: the server's tickets.
            let t = now();
            // SAFETY: as above; the buffer outlives the call.
            while unsafe { ffi::SSL_read(c, buf.as_mut_ptr().cast(), buf.len() as _) } > 0 {}
            client_ns += took(t);
            let quiet = ffi::SSL_SENT_SHUTDOWN | ffi::SSL_RECEIVED_SHUTDOWN;
            // SAFETY: as above.
            unsafe {
                ffi::SSL_set_shutdown(c, quiet);
                ffi::SSL_set_shutdown(s, quiet);
            }
            drop((cs, ss));
            (server_ns, client_ns)
        }
    }
}

// ---------------------------------------------------------------- the rounds

/// One round's direct figures: tight handshakes per second, timed per-side medians (ns).
fn direct_round(d: &mut dyn Direct) -> (f64, f64, f64) {
    let mut rates = Vec::new();
    for _ in 0..BLOCKS {
        let t = Instant::now();
        let mut n = 0u64;
        while t.elapsed() < BLOCK {
            d.handshake(false);
            n += 1;
        }
        rates.push(n as f64 / t.elapsed().as_secs_f64());
    }
    let (mut s, mut c) = (Vec::new(), Vec::new());
    for _ in 0..BLOCKS {
        let t = Instant::now();
        while t.elapsed() < BLOCK {
            let (a, b) = d.handshake(true);
            s.push(a as f64);
            c.push(b as f64);
        }
    }
    (median(&rates), median(&s), median(&c))
}

/// One round's kembench figures: handshakes per second of the timed rounds and of scaling at
/// one thread, each side's fastest-round median (ns), and its whole check's cost (ns).
fn kembench_round(plan: &Plan, secs: f64) -> [f64; 5] {
    let cfg = TlsConfig {
        stacks: vec![plan.stack.as_str().into()],
        groups: vec![plan.group.tls_name.into()],
        certs: vec![plan.chain.kind.as_str().into()],
        hellos: vec![plan.hello.as_str().into()],
        modes: vec![Mode::Full],
        duration_s: secs,
        threads: vec![1],
        scaling_duration_s: secs,
        target_rate: 70_000.0,
        network: Vec::new(),
        network_handshakes: 10,
        network_concurrency: 1,
        network_parallel: 1,
        planned: vec![plan.label()],
    };
    let timers = kembench::measure::timer::Timers::calibrate();
    let mut b = measure::start(plan, &cfg, None);
    for _ in 0..measure::ROUNDS {
        measure::round(&mut b, &cfg, &timers);
    }
    let r = measure::finish(b, &cfg, 1, &|| false);
    if let Some(e) = r.error.as_ref().or(r.unavailable.as_ref()) {
        panic!("{}: {e}", plan.label());
    }
    let full = r.mode(Mode::Full).expect("full handshakes measured");
    let one = r
        .scaling
        .iter()
        .find(|p| p.threads == 1)
        .expect("scaling at 1");
    [
        full.handshakes_per_sec,
        one.total_ops_per_sec,
        full.server_best_round_median_ns,
        full.client_best_round_median_ns,
        r.checks
            .as_ref()
            .and_then(|c| c.check_ns)
            .unwrap_or(f64::NAN),
    ]
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn fastest(v: &[f64], rate: bool) -> f64 {
    let it = v.iter().copied();
    if rate {
        it.fold(f64::NEG_INFINITY, f64::max)
    } else {
        it.fold(f64::INFINITY, f64::min)
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let group_name = args.first().map_or("X25519MLKEM768", |s| s.as_str());
    let group = Group::find(group_name).unwrap_or_else(|| panic!("no group {group_name}"));
    let env = |k: &str, d: f64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(d)
    };
    let rounds = env("KEMBENCH_TLS_ROUNDS", 7.0) as usize;
    let secs = env("KEMBENCH_TLS_SECS", 0.5);
    let chain = Chain::generate(CertKind::EcdsaP256).unwrap();
    // Every stack this build has; the ones without a direct loop here are said so.
    let mut cases: Vec<(Plan, Box<dyn Direct>)> = Vec::new();
    for kind in StackKind::ALL {
        let direct: Box<dyn Direct> = match kind.as_str() {
            "rustls" => Box::new(direct_rustls::new(group, &chain)),
            "openssl" => Box::new(direct_openssl::new(group, &chain)),
            other => {
                println!("{other}: no direct loop in this bench; not compared");
                continue;
            }
        };
        let plan = Plan {
            stack: kind,
            group,
            chain: &chain,
            hello: kembench::tls::groups::HelloShape::Minimal,
        };
        cases.push((plan, direct));
    }
    println!(
        "tls harness cost: {} full handshakes, ecdsa-p256 chain, {rounds} rounds, kembench {secs} s of \
         timed rounds and {secs} s of scaling at 1 thread per round, direct loops {BLOCKS} x {} ms \
         tight and timed per round",
        group.tls_name,
        BLOCK.as_millis()
    );
    // Per case: per round, [direct rate, direct server, direct client, kembench x5].
    let mut rows: Vec<Vec<[f64; 8]>> = vec![Vec::new(); cases.len()];
    for round in 0..rounds {
        for (i, (plan, direct)) in cases.iter_mut().enumerate() {
            let (d, k) = if round % 2 == 0 {
                let d = direct_round(direct.as_mut());
                (d, kembench_round(plan, secs))
            } else {
                let k = kembench_round(plan, secs);
                (direct_round(direct.as_mut()), k)
            };
            rows[i].push([d.0, d.1, d.2, k[0], k[1], k[2], k[3], k[4]]);
        }
        eprintln!("round {} of {rounds} done", round + 1);
    }
    println!(
        "\n{:8} {:34} {:>12} {:>12} {:>9} {:>9}",
        "stack", "figure", "direct", "kembench", "fast", "rounds"
    );
    for ((plan, direct), rs) in cases.iter().zip(&rows) {
        let col = |j: usize| rs.iter().map(|r| r[j]).collect::<Vec<_>>();
        let line = |figure: &str, dj: usize, kj: usize, rate: bool| {
            let (d, k) = (col(dj), col(kj));
            let ratios: Vec<f64> = d.iter().zip(&k).map(|(d, k)| k / d).collect();
            let unit = |x: f64| {
                if rate {
                    format!("{x:.0}/s")
                } else {
                    format!("{:.1} µs", x / 1e3)
                }
            };
            println!(
                "{:8} {:34} {:>12} {:>12} {:>9.4} {:>9.4}",
                direct.name(),
                figure,
                unit(fastest(&d, rate)),
                unit(fastest(&k, rate)),
                fastest(&k, rate) / fastest(&d, rate),
                median(&ratios)
            );
        };
        line("handshakes/s (timed rounds)", 0, 3, true);
        line("handshakes/s (scaling, 1 thread)", 0, 4, true);
        line("server per handshake", 1, 5, false);
        line("client per handshake", 2, 6, false);
        let check = median(&col(7));
        let per_hs = 1e9 / fastest(&col(3), true);
        println!(
            "{:8} {:34} {:>12} {:>12.1} µs  ({:.2}% of a handshake, paid by 1 in {})",
            plan.stack.as_str(),
            "whole check (median)",
            "",
            check / 1e3,
            100.0 * check / per_hs,
            measure::CHECK_EVERY
        );
    }
}
