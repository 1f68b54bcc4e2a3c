//! Tests of the network conditions. Those that need namespaces (root) print why and pass
//! where [`Testbed::new`] is not permitted; they run one at a time (a lock), so that their
//! timings do not disturb each other.

use super::*;
use std::io::{Read, Write};
use std::sync::Mutex;

/// One testbed test at a time.
static LOCK: Mutex<()> = Mutex::new(());

/// A stand-in for a TLS stack: the client sends `request` bytes, the server answers with
/// `response` bytes, and the client is "done" when it has read them all.
struct Exchange {
    request: usize,
    response: usize,
}

impl Endpoint for Exchange {
    fn serve(&self, mut stream: TcpStream) -> Result<(), String> {
        let mut req = vec![0u8; self.request];
        stream
            .read_exact(&mut req)
            .map_err(|e| format!("server read: {e}"))?;
        stream
            .write_all(&vec![7u8; self.response])
            .map_err(|e| format!("server write: {e}"))
    }

    fn connect(&self, stream: &mut TcpStream) -> Result<Instant, String> {
        stream
            .write_all(&vec![1u8; self.request])
            .map_err(|e| format!("client write: {e}"))?;
        let mut resp = vec![0u8; self.response];
        stream
            .read_exact(&mut resp)
            .map_err(|e| format!("client read: {e}"))?;
        Ok(Instant::now())
    }
}

/// A small exchange: one round trip after the connect.
const SMALL: Exchange = Exchange {
    request: 32,
    response: 32,
};
/// A 10 KB server flight (seven full segments: within the initial congestion window).
const BIG_FLIGHT: Exchange = Exchange {
    request: 300,
    response: 10_000,
};

/// The testbed, or `None` (with the reason printed) where namespaces are not permitted.
fn testbed() -> Option<Testbed> {
    match Testbed::new() {
        Ok(t) => Some(t),
        Err(e) if e.is_skip() => {
            crate::missing::skip(
                "the network testbed",
                "root with network namespaces, ip, tc and nft",
                &e.to_string(),
            );
            None
        }
        Err(e) => panic!("building the testbed: {e}"),
    }
}

fn lock() -> std::sync::MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn never() -> bool {
    false
}

fn run(tb: &mut Testbed, p: &NetProfile, n: usize, e: &dyn Endpoint) -> PointOutcome {
    let o = measure(tb, p, n, 1, e, Duration::from_secs(60), &never).expect("measure");
    eprintln!(
        "{}: rtt {:?} ms, {} done, {} failed, times {:?}, loss {:?}, relay {:?}, {:?}",
        p.name,
        o.measured_rtt_ms,
        o.times_ms.len(),
        o.failures,
        o.times_ms,
        o.loss,
        o.relay,
        o.errors
    );
    o
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[test]
fn profiles_are_named_by_rtt_and_loss() {
    assert_eq!(NetProfile::new(31.2, 0.5, 1000.0).name, "rtt31.2-loss0.5");
}

#[test]
fn only_a_refusal_is_a_skip() {
    let fails = |said: &str| {
        sys::run("sh", &["-c", &format!("echo '{said}' >&2; exit 1")], None).unwrap_err()
    };
    assert!(fails("mkdir /run/netns failed: Read-only file system").is_skip());
    assert!(fails("RTNETLINK answers: Operation not permitted").is_skip());
    let other = fails("Cannot create namespace file: File exists");
    assert!(!other.is_skip(), "{other}");
    assert!(!fails("Error: argument \"x\" is wrong").is_skip());
}

#[test]
fn skip_errors_are_told_apart() {
    assert!(NetError::NotPermitted("x".into()).is_skip());
    assert!(NetError::Unavailable("x".into()).is_skip());
    assert!(!NetError::Failed("x".into()).is_skip());
}

#[test]
fn the_relay_delays_both_directions_by_half_the_round_trip() {
    let _g = lock();
    let Some(mut tb) = testbed() else { return };
    let none = run(&mut tb, &NetProfile::new(0.0, 0.0, 1000.0), 5, &SMALL);
    let rtt = none.measured_rtt_ms.expect("probes connect");
    assert!(rtt < 5.0, "no delay: {rtt} ms");
    assert_eq!(none.mechanisms.delay, "none (relay forwards at once)");

    let p = NetProfile::new(31.2, 0.0, 1000.0);
    let o = run(&mut tb, &p, 10, &SMALL);
    let rtt = o.measured_rtt_ms.expect("probes connect");
    assert!(
        (31.0..40.0).contains(&rtt),
        "measured round trip {rtt} ms for 31.2"
    );
    assert_eq!(o.times_ms.len(), 10);
    // Connect (one round trip), then request and response (another).
    assert!(
        o.times_ms.iter().all(|&t| t >= 2.0 * 31.0),
        "{:?}",
        o.times_ms
    );
    assert!(median(&o.times_ms) < 2.0 * 40.0, "{:?}", o.times_ms);
    assert!(o
        .mechanisms
        .delay
        .starts_with("relay (AF_PACKET, both directions"));
    assert!(o.mechanisms.rate.starts_with("tbf 1000 mbit both veths"));
    assert_eq!(o.mechanisms.loss, "none");

    let big = run(&mut tb, &p, 5, &BIG_FLIGHT);
    assert_eq!(big.times_ms.len(), 5);
    assert!(
        big.times_ms.iter().all(|&t| (62.0..100.0).contains(&t)),
        "{:?}",
        big.times_ms
    );
    // MSS-sized segments: full frames of 1,514 bytes and nothing longer; none lost.
    assert_eq!(big.relay.largest_frame, 1514, "{:?}", big.relay);
    assert_eq!((big.relay.send_errors, big.relay.queue_full), (0, 0));
}

#[test]
fn loss_costs_retransmission_timeouts() {
    let _g = lock();
    let Some(mut tb) = testbed() else { return };
    let p = NetProfile::new(5.6, 10.0, 1000.0);
    let o = run(&mut tb, &p, 20, &SMALL);
    assert!(
        o.mechanisms.loss.starts_with("nft numgen random drop (10%"),
        "{}",
        o.mechanisms.loss
    );
    let seen = o.loss.expect("loss counters");
    assert!(
        seen.dropped > 0 && seen.arrived > 10 * seen.dropped / 2,
        "{seen:?}"
    );
    assert!(
        o.times_ms.len() >= 15,
        "{} of 20 completed",
        o.times_ms.len()
    );
    // A lost segment costs at least TCP's 200 ms minimum retransmission timeout; with 10% of
    // four packets per handshake lost, 20 handshakes all escaping it has odds of 1 in 4,000.
    let min = o.times_ms.iter().cloned().fold(f64::INFINITY, f64::min);
    let max = o.times_ms.iter().cloned().fold(0.0, f64::max);
    assert!(max >= min + 200.0, "{:?}", o.times_ms);

    // Back to no loss: the rule is gone.
    let clean = run(&mut tb, &NetProfile::new(5.6, 0.0, 1000.0), 10, &SMALL);
    assert_eq!(clean.loss, None);
    assert!(
        clean.times_ms.iter().all(|&t| t < 100.0),
        "{:?}",
        clean.times_ms
    );
}

#[test]
fn the_rate_paces_a_large_response() {
    let _g = lock();
    let Some(mut tb) = testbed() else { return };
    let e = Exchange {
        request: 100,
        response: 100_000,
    };
    // 100 KB plus headers at 10 Mbit/s: about 85 ms on the wire.
    let slow = run(&mut tb, &NetProfile::new(0.0, 0.0, 10.0), 3, &e);
    assert_eq!(slow.times_ms.len(), 3);
    assert!(
        slow.times_ms.iter().all(|&t| t >= 75.0),
        "{:?}",
        slow.times_ms
    );
    assert!(
        slow.mechanisms.rate.starts_with("tbf 10 mbit"),
        "{}",
        slow.mechanisms.rate
    );
    let fast = run(&mut tb, &NetProfile::new(0.0, 0.0, 1000.0), 3, &e);
    assert!(
        fast.times_ms.iter().all(|&t| t < 40.0),
        "{:?}",
        fast.times_ms
    );
}

#[test]
fn stop_and_deadline_end_a_point_early() {
    let _g = lock();
    let Some(mut tb) = testbed() else { return };
    let p = NetProfile::new(0.0, 0.0, 1000.0);
    let o = measure(
        &mut tb,
        &p,
        1000,
        1,
        &SMALL,
        Duration::from_secs(60),
        &|| true,
    )
    .unwrap();
    assert!(
        o.stopped && o.times_ms.len() < 1000,
        "{} done",
        o.times_ms.len()
    );
    let o = measure(&mut tb, &p, 1000, 1, &SMALL, Duration::ZERO, &never).unwrap();
    assert!(o.deadline_reached && o.times_ms.is_empty());
}

#[test]
fn namespaces_go_with_the_testbed_and_stale_ones_at_the_next() {
    let _g = lock();
    // A pid that no process has.
    let dead = (2..32_768u32).rev().find(|p| !sys::pid_alive(*p)).unwrap();
    let stale = format!("kb-{dead}-0-c");
    match sys::run("ip", &["netns", "add", &stale], None) {
        Ok(_) => {}
        Err(e) if e.is_skip() => {
            crate::missing::skip(
                "namespaces_go_with_the_testbed_and_stale_ones_at_the_next",
                "root with network namespaces",
                &e.to_string(),
            );
            return;
        }
        Err(e) => panic!("creating a namespace: {e}"),
    }
    let Some(tb) = testbed() else { return };
    let names = [tb.client_ns(), tb.relay_ns(), tb.server_ns()].map(str::to_string);
    // Gone: removed by this testbed (or by another process's, made in the meantime).
    let exists = |n: &str| std::path::Path::new(sys::NETNS_DIR).join(n).exists();
    assert!(
        !exists(&stale),
        "{stale} left; removed {:?}",
        tb.removed_stale()
    );
    assert!(names
        .iter()
        .all(|n| exists(n) && n.starts_with(&format!("kb-{}-", std::process::id()))));
    drop(tb);
    assert!(names.iter().all(|n| !exists(n)), "{names:?} left behind");
}

/// The default sweep with a stand-in for an X25519MLKEM768 handshake (1.2 KB from the
/// client, a 6 KB flight back), timed: `cargo test --release --lib sweep_timing -- --ignored
/// --nocapture`; `KB_SWEEP_HANDSHAKES` overrides the handshakes per point.
#[test]
#[ignore]
fn sweep_timing() {
    let _g = lock();
    let Some(mut tb) = testbed() else { return };
    let e = Exchange {
        request: 1200,
        response: 6000,
    };
    let n: Option<usize> = std::env::var("KB_SWEEP_HANDSHAKES")
        .ok()
        .and_then(|s| s.parse().ok());
    let all = Instant::now();
    for p in crate::tls::conditions::default_profiles() {
        let t = Instant::now();
        let hs = n.unwrap_or_else(|| crate::tls::network::handshakes_for(p.loss_pct, 1000));
        let o = measure(&mut tb, &p, hs, 1, &e, Duration::from_secs(3600), &never).unwrap();
        let mut v = o.times_ms.clone();
        v.sort_by(f64::total_cmp);
        let q = |f: f64| {
            v.get(((v.len() as f64 - 1.0) * f) as usize)
                .copied()
                .unwrap_or(f64::NAN)
        };
        println!(
            "{:14} {:5} handshakes {:7.1} s  rtt {:6.2} ms  median {:7.2}  p95 {:7.2}  max {:8.2} ms  failures {}  loss {:?} ({:.2}%)",
            p.name,
            hs,
            t.elapsed().as_secs_f64(),
            o.measured_rtt_ms.unwrap_or(f64::NAN),
            q(0.5),
            q(0.95),
            q(1.0),
            o.failures,
            o.loss,
            o.loss.map_or(0.0, |l| l.pct())
        );
    }
    println!("sweep: {:.1} s", all.elapsed().as_secs_f64());
}
