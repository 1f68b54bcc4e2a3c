//! Network conditions for `kembench tls`: handshake times over TCP between private network
//! namespaces with a chosen round-trip time, packet loss and rate, as in pq-tls-benchmark
//! (Paquin, Stebila, Tamvada, PQCrypto 2020).
//!
//! # Topology
//!
//! ```text
//!  kb-<pid>-<n>-c            kb-<pid>-<n>-r                 kb-<pid>-<n>-s
//!  client thread(s)          relay thread                   server thread(s)
//!  c0 10.77.0.1/24 ──veth── rc   (no address)   rs ──veth── s0 10.77.0.2/24
//!  tbf, nft loss             AF_PACKET ⇄ AF_PACKET          tbf, nft loss
//! ```
//!
//! The names carry the process id and a per-process counter, so parallel runs and several
//! testbeds of one process never collide; the addresses exist only inside the namespaces, so
//! every testbed uses the same /24. A namespace whose process is gone (killed hard) is removed
//! when the next testbed is made. The client, the relay and the server are threads that have
//! entered their namespace (`setns` acts on the calling thread only, and threads it spawns
//! start there too); nothing leaves the machine.
//!
//! # Mechanisms
//!
//! This kernel has no `sch_netem`, so pq-tls-benchmark's `netem delay/loss/rate` is split:
//!
//! - **delay**: a relay between the two veth pairs ([`relay`]): two `AF_PACKET` raw sockets,
//!   promiscuous, outgoing frames ignored, every Ethernet frame held for RTT/2 and written to
//!   the other side, both directions, so one round trip gains the RTT;
//! - **loss**: an `nft` rule `ip protocol tcp numgen random mod 10000 < N drop` (N =
//!   percent × 100) on the ingress hook of `c0` and of `s0`: each direction loses that share of
//!   its TCP packets. Ingress rather than the output hook: a packet dropped on a host's output
//!   path is reported to TCP as a local send error (it then neither counts it as sent nor
//!   waits for a retransmission timeout as for a lost one), whereas a packet dropped where it
//!   arrives was sent as far as the sender knows, as on a lossy wire or with netem;
//! - **rate**: a `tbf` qdisc on `c0` and on `s0` (1000 mbit by default, as pq-tls-benchmark),
//!   burst [`testbed::tbf_burst_bytes`], latency 400 ms.
//!
//! TSO, GSO, GRO, scatter-gather and transmit checksumming are off on all four veths (the
//! `SIOCETHTOOL` ioctl, no `ethtool` binary needed), so TCP sends MSS-sized segments (1,460
//! bytes of payload at MTU 1500) as in pq-tls-benchmark, and the relay forwards frames whose
//! checksums are complete. The neighbour entries are permanent (fixed MAC addresses), so no ARP
//! exchange lands in a timing.
//!
//! # Measuring
//!
//! [`measure`] runs one [`NetProfile`]: it sets the delay and rate, measures the round trip (the
//! median of plain TCP connects: SYN to SYN-ACK), adds the loss, then runs handshakes one at a
//! time, each timed with [`Instant`] (CLOCK_MONOTONIC; pq-tls-benchmark reads
//! CLOCK_MONOTONIC_RAW, which differs only by NTP's rate adjustment) from just before the TCP
//! connect until the [`Endpoint`] says the client's handshake is complete. A handshake that
//! fails or takes longer than [`HANDSHAKE_TIMEOUT`] is a failure; the point ends early at its
//! deadline or when `stop` says so (Ctrl-C), and the [`Testbed`] is removed when dropped.

pub mod relay;
mod sys;
pub mod testbed;

pub use relay::RelayStats;
pub use testbed::{LossCount, Testbed};

use std::collections::BTreeMap;
use std::net::{SocketAddr, SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

/// The longest one handshake may take (also each read and write on its socket).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The server's port for handshakes.
const PORT: u16 = 4433;
/// The server's port for the round-trip probes (accepted and closed at once).
const PROBE_PORT: u16 = 4434;
/// Round-trip probes (after one discarded warm-up connect).
const PROBES: usize = 7;
/// Connections the server serves at once at most.
const MAX_SERVING: usize = 4 * MAX_CONCURRENCY;
/// Most handshakes in flight at once.
pub const MAX_CONCURRENCY: usize = 64;
/// Failure messages kept per point.
const KEPT_ERRORS: usize = 5;

/// Why the network conditions cannot be measured, or what went wrong.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// This user or machine may not create namespaces (not root, EPERM in a container).
    #[error("not permitted: {0}")]
    NotPermitted(String),
    /// A tool or kernel feature is missing (`ip`, `tc`, `nft`).
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// Anything else.
    #[error("{0}")]
    Failed(String),
}

impl NetError {
    /// Whether this means "skip the network conditions" rather than a failure of the run.
    pub fn is_skip(&self) -> bool {
        matches!(self, NetError::NotPermitted(_) | NetError::Unavailable(_))
    }
}

/// Whether network conditions can be measured here: builds a testbed and removes it (about a
/// tenth of a second). The error is the reason to record ("network conditions skipped: …").
pub fn available() -> Result<(), String> {
    Testbed::new().map(drop).map_err(|e| e.to_string())
}

/// A network condition: the record's own type, the same for the configuration and the testbed.
pub use crate::record::tls::NetProfile;

/// Both sides of one TLS stack's handshake over a connected TCP stream. The streams come as
/// `connect`/`accept` made them (Nagle on, timeouts of [`HANDSHAKE_TIMEOUT`] on reads and
/// writes); an endpoint may change options such as `TCP_NODELAY`.
pub trait Endpoint: Send + Sync {
    /// Runs the server side of one connection on an accepted stream (the handshake, then
    /// whatever check exchange the stack does).
    fn serve(&self, stream: TcpStream) -> Result<(), String>;
    /// Runs the client side on a connected stream and returns the instant the client's
    /// handshake completed (the measured time ends there); it may do its check exchange after
    /// that instant, before returning. The next handshake starts once it has returned.
    fn connect(&self, stream: &mut TcpStream) -> Result<Instant, String>;
}

/// How one network condition was produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Mechanisms {
    /// The delay (`relay (AF_PACKET, both directions, RTT/2 = … ms each way)`).
    pub delay: String,
    /// The loss (`nft numgen random drop …`), or `none`.
    pub loss: String,
    /// The rate limit (`tbf 1000 mbit both veths …`), or `none`.
    pub rate: String,
}

/// What one profile measured.
#[derive(Debug, Clone)]
pub struct PointOutcome {
    /// The profile.
    pub profile: NetProfile,
    /// Completed handshakes' times (TCP connect + TLS handshake until the client is done), ms,
    /// in the order run.
    pub times_ms: Vec<f64>,
    /// Handshakes that failed or timed out.
    pub failures: usize,
    /// The first few failures' messages.
    pub errors: Vec<String>,
    /// Server-side errors (a failed `serve`), counted while the client was running.
    pub server_errors: usize,
    /// The measured round trip: median of plain TCP connect times before the loss was added,
    /// ms (`None` if no probe connected).
    pub measured_rtt_ms: Option<f64>,
    /// How each part of the condition was made.
    pub mechanisms: Mechanisms,
    /// What was done so that segments are MSS-sized.
    pub segments: String,
    /// TCP packets the loss rules saw and dropped during the handshakes (`None` without
    /// loss): the loss as it happened.
    pub loss: Option<LossCount>,
    /// What the relay did during the point.
    pub relay: RelayStats,
    /// `stop` ended the point early.
    pub stopped: bool,
    /// The deadline ended the point early.
    pub deadline_reached: bool,
}

/// Runs `handshakes` handshakes of `endpoint` under `profile`, `concurrency` at a time (each
/// client thread runs one after another, as pq-tls-benchmark's one client does); ends early at
/// `deadline` (counted from the start of the point: no handshake starts after it) or when
/// `stop` returns true (polled every 50 ms; the handshake in progress finishes or times out
/// first, so the point ends within [`HANDSHAKE_TIMEOUT`]). The server side runs in the
/// server's namespace, each accepted connection on a thread of its own, so a connection still
/// closing (a lost FIN) never holds up the next handshake. Errors other than the conditions'
/// mechanisms failing are per handshake, counted in [`PointOutcome::failures`].
pub fn measure(
    testbed: &mut Testbed,
    profile: &NetProfile,
    handshakes: usize,
    concurrency: usize,
    endpoint: &dyn Endpoint,
    deadline: Duration,
    stop: &dyn Fn() -> bool,
) -> Result<PointOutcome, NetError> {
    let started = Instant::now();
    let relay_before = testbed.relay_stats();
    let mut mechanisms = testbed.set_delay_and_rate(profile)?;
    let server_ns = testbed.server_ns().to_string();
    let client_ns = testbed.client_ns().to_string();
    let server_stop = AtomicBool::new(false);
    let closing = AtomicBool::new(false);
    let server_errors = AtomicUsize::new(0);
    let client_stop = AtomicBool::new(false);
    let addr = SocketAddr::V4(SocketAddrV4::new(testbed::SERVER_ADDR, PORT));
    let probe_addr = SocketAddr::V4(SocketAddrV4::new(testbed::SERVER_ADDR, PROBE_PORT));

    std::thread::scope(|s| -> Result<PointOutcome, NetError> {
        let (ready_tx, ready_rx) = mpsc::channel();
        let server = s.spawn(|| {
            serve_all(
                &server_ns,
                endpoint,
                &server_stop,
                &closing,
                &server_errors,
                ready_tx,
            )
        });
        let ready = ready_rx
            .recv()
            .unwrap_or_else(|_| Err(NetError::Failed("the server thread ended".into())));
        let result = ready.and_then(|()| {
            // The round trip, before any loss.
            let rtt = s
                .spawn(|| in_ns(&client_ns, || probe_rtt(probe_addr)))
                .join()
                .map_err(|_| NetError::Failed("the probe thread panicked".into()))??;
            mechanisms.loss = testbed.set_loss(profile.loss_pct)?;
            let (tx, rx) = mpsc::channel();
            let client = s.spawn(|| {
                in_ns(&client_ns, || {
                    run_handshakes(
                        addr,
                        handshakes,
                        concurrency,
                        endpoint,
                        started,
                        deadline,
                        &client_stop,
                        tx,
                    )
                })
            });
            // Poll `stop` (which need not be Sync) here while the client works.
            while let Err(mpsc::RecvTimeoutError::Timeout) =
                rx.recv_timeout(Duration::from_millis(50))
            {
                if stop() {
                    client_stop.store(true, Ordering::SeqCst);
                }
            }
            let run = client
                .join()
                .map_err(|_| NetError::Failed("the client thread panicked".into()))??;
            Ok((rtt, run))
        });
        closing.store(true, Ordering::SeqCst);
        server_stop.store(true, Ordering::SeqCst);
        let served = server
            .join()
            .map_err(|_| NetError::Failed("the server thread panicked".into()))?;
        let (rtt, run) = result?;
        served?;
        let loss_drops = if profile.loss_pct > 0.0 {
            testbed.loss_count()
        } else {
            None
        };
        Ok(PointOutcome {
            profile: profile.clone(),
            times_ms: run.times_ms,
            failures: run.failures,
            errors: run.errors,
            server_errors: server_errors.load(Ordering::SeqCst),
            measured_rtt_ms: rtt,
            mechanisms,
            segments: testbed.segments().to_string(),
            loss: loss_drops,
            relay: testbed.relay_stats().since(&relay_before),
            stopped: run.stopped,
            deadline_reached: run.deadline_reached,
        })
    })
}

/// Runs `f` in namespace `ns` on the calling thread (a thread of ours made for this).
fn in_ns<T>(ns: &str, f: impl FnOnce() -> Result<T, NetError>) -> Result<T, NetError> {
    sys::enter_netns(ns).map_err(|e| NetError::Failed(format!("entering namespace {ns}: {e}")))?;
    f()
}

/// The median of [`PROBES`] TCP connect times to `addr` (after one warm-up), ms.
fn probe_rtt(addr: SocketAddr) -> Result<Option<f64>, NetError> {
    let mut times = Vec::new();
    for i in 0..=PROBES {
        let t0 = Instant::now();
        let c = TcpStream::connect_timeout(&addr, Duration::from_secs(3));
        let dt = t0.elapsed();
        if c.is_ok() && i > 0 {
            times.push(dt.as_secs_f64() * 1e3);
        }
    }
    times.sort_by(f64::total_cmp);
    Ok((!times.is_empty()).then(|| times[times.len() / 2]))
}

/// The client's side of a point.
struct ClientRun {
    times_ms: Vec<f64>,
    failures: usize,
    errors: Vec<String>,
    stopped: bool,
    deadline_reached: bool,
}

/// Runs the handshakes one at a time; sends on `done` when it ends.
#[allow(clippy::too_many_arguments)]
fn run_handshakes(
    addr: SocketAddr,
    handshakes: usize,
    concurrency: usize,
    endpoint: &dyn Endpoint,
    started: Instant,
    deadline: Duration,
    stop: &AtomicBool,
    done: mpsc::Sender<()>,
) -> Result<ClientRun, NetError> {
    let run = std::sync::Mutex::new(ClientRun {
        times_ms: Vec::with_capacity(handshakes),
        failures: 0,
        errors: Vec::new(),
        stopped: false,
        deadline_reached: false,
    });
    let next = AtomicUsize::new(0);
    // Each client thread takes the next handshake until all are taken; threads spawned here
    // inherit this thread's (the client's) network namespace.
    std::thread::scope(|s| {
        for _ in 0..concurrency.clamp(1, MAX_CONCURRENCY) {
            s.spawn(|| loop {
                if next.fetch_add(1, Ordering::SeqCst) >= handshakes {
                    return;
                }
                if stop.load(Ordering::SeqCst) {
                    run.lock().unwrap().stopped = true;
                    return;
                }
                if started.elapsed() >= deadline {
                    run.lock().unwrap().deadline_reached = true;
                    return;
                }
                let r = one_handshake(addr, endpoint);
                let mut run = run.lock().unwrap();
                match r {
                    Ok(ms) => run.times_ms.push(ms),
                    Err(e) => {
                        run.failures += 1;
                        if run.errors.len() < KEPT_ERRORS {
                            run.errors.push(e);
                        }
                    }
                }
            });
        }
    });
    let _ = done.send(());
    Ok(run.into_inner().unwrap())
}

/// One TCP connect + handshake, ms.
fn one_handshake(addr: SocketAddr, endpoint: &dyn Endpoint) -> Result<f64, String> {
    let t0 = Instant::now();
    let mut stream = TcpStream::connect_timeout(&addr, HANDSHAKE_TIMEOUT)
        .map_err(|e| format!("connect: {e}"))?;
    set_timeouts(&stream).map_err(|e| format!("socket options: {e}"))?;
    let done = endpoint.connect(&mut stream)?;
    let took = done.saturating_duration_since(t0);
    if took > HANDSHAKE_TIMEOUT {
        return Err(format!(
            "took {took:?}, over the {HANDSHAKE_TIMEOUT:?} limit"
        ));
    }
    Ok(took.as_secs_f64() * 1e3)
}

fn set_timeouts(s: &TcpStream) -> std::io::Result<()> {
    s.set_read_timeout(Some(HANDSHAKE_TIMEOUT))?;
    s.set_write_timeout(Some(HANDSHAKE_TIMEOUT))
}

/// The server: in namespace `ns`, listens for handshakes and probes and serves each handshake
/// connection on a thread of its own (at most [`MAX_SERVING`] at once) until `stop`.
fn serve_all(
    ns: &str,
    endpoint: &dyn Endpoint,
    stop: &AtomicBool,
    closing: &AtomicBool,
    errors: &AtomicUsize,
    ready: mpsc::Sender<Result<(), NetError>>,
) -> Result<(), NetError> {
    let listen = || -> Result<(TcpListener, TcpListener), NetError> {
        sys::enter_netns(ns)
            .map_err(|e| NetError::Failed(format!("entering namespace {ns}: {e}")))?;
        let bind = |port| {
            let l = TcpListener::bind(SocketAddrV4::new(testbed::SERVER_ADDR, port))
                .map_err(|e| NetError::Failed(format!("server: listening on port {port}: {e}")))?;
            l.set_nonblocking(true)
                .map_err(|e| NetError::Failed(format!("server: {e}")))?;
            Ok::<_, NetError>(l)
        };
        Ok((bind(PORT)?, bind(PROBE_PORT)?))
    };
    let (main, probe) = match listen() {
        Ok(l) => {
            let _ = ready.send(Ok(()));
            l
        }
        Err(e) => {
            let _ = ready.send(Err(NetError::Failed(e.to_string())));
            return Err(e);
        }
    };
    let serving = AtomicUsize::new(0);
    // A second handle on each connection being served, to shut it at the end; removed as soon
    // as `serve` returns (the socket closes, and sends its FIN, when both handles are gone).
    let open: Mutex<BTreeMap<u64, TcpStream>> = Mutex::new(BTreeMap::new());
    let lock = || open.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::scope(|s| {
        let mut next = 0u64;
        while !stop.load(Ordering::SeqCst) {
            let mut fds = [&main, &probe].map(|l| libc::pollfd {
                fd: l.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            });
            // SAFETY: `fds` holds two valid pollfd entries alive for the call.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, 50) };
            if n <= 0 {
                continue;
            }
            while let Ok((c, _)) = probe.accept() {
                drop(c);
            }
            while let Ok((c, _)) = main.accept() {
                while serving.load(Ordering::SeqCst) >= MAX_SERVING && !stop.load(Ordering::SeqCst)
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
                let prepared = c.set_nonblocking(false).and_then(|()| set_timeouts(&c));
                if prepared.is_err() {
                    errors.fetch_add(1, Ordering::SeqCst);
                    continue;
                }
                let id = next;
                next += 1;
                if let Ok(clone) = c.try_clone() {
                    lock().insert(id, clone);
                }
                serving.fetch_add(1, Ordering::SeqCst);
                let (serving, lock) = (&serving, &lock);
                s.spawn(move || {
                    let r = endpoint.serve(c);
                    lock().remove(&id);
                    if r.is_err() && !closing.load(Ordering::SeqCst) {
                        errors.fetch_add(1, Ordering::SeqCst);
                    }
                    serving.fetch_sub(1, Ordering::SeqCst);
                });
            }
        }
        // Unblock connections still being served (the client is done with them).
        for c in lock().values() {
            let _ = c.shutdown(std::net::Shutdown::Both);
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests;
