//! `tls --network`: full handshakes of one (group, stack, certificate) over loopback TCP
//! between private network namespaces, under each network condition ([`super::net`]), each
//! handshake checked on both sides like the in-memory ones.

use super::measure::Plan;
use super::net::{self, Endpoint, NetError, Testbed};
use super::side::{Side, Stack};
use crate::record::tls::{Mechanisms, Mode, NetPoint, Spread, TlsConfig, TlsResult};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The longest one condition may take before it is cut short (what was measured is kept).
pub const POINT_DEADLINE: Duration = Duration::from_secs(300);

/// Handshakes at a condition: `lossy` of them with loss, a tenth as many (at least 100)
/// without, where times vary by a fraction of a millisecond.
pub fn handshakes_for(loss_pct: f64, lossy: usize) -> usize {
    if loss_pct > 0.0 {
        lossy
    } else {
        (lossy / 10).max(100).min(lossy)
    }
}

/// The most handshakes per second one benchmark starts under a network condition: at a short
/// round trip, many handshakes in flight would make the CPUs, not the network, the bottleneck.
pub const MAX_RATE_PER_SEC: f64 = 260.0;

/// Handshakes in flight at a round trip of `rtt_ms`: enough for [`MAX_RATE_PER_SEC`] (a
/// handshake takes about two round trips), at most `most`, at least one.
pub fn concurrency_for(rtt_ms: f64, most: usize) -> usize {
    ((MAX_RATE_PER_SEC * 2.0 * rtt_ms / 1e3).ceil() as usize).clamp(1, most.max(1))
}

/// Moves bytes between `side` and `stream` until `done(side)` holds after sending.
fn pump(
    side: &mut dyn Side,
    stream: &mut TcpStream,
    done: &mut dyn FnMut(&mut dyn Side) -> Result<bool, String>,
) -> Result<(), String> {
    let mut buf = vec![0u8; 16 * 1024];
    let mut out = Vec::with_capacity(4096);
    loop {
        out.clear();
        side.send(&mut out)?;
        if !out.is_empty() {
            stream.write_all(&out).map_err(|e| format!("write: {e}"))?;
        }
        if done(side)? {
            return Ok(());
        }
        let n = stream.read(&mut buf).map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("the peer closed the connection mid-handshake".into());
        }
        side.receive(&buf[..n])?;
    }
}

/// One stack's sides over TCP, checked: the server sends the keying material it exported,
/// the client compares it with its own, and both check the negotiated group.
struct Tcp<'a> {
    stack: &'a dyn Stack,
    group: &'static str,
}

impl Tcp<'_> {
    fn group_is_right(&self, side: &dyn Side, who: &str) -> Result<(), String> {
        match side.group() {
            Some(g) if g == self.group => Ok(()),
            other => Err(format!(
                "the {who} negotiated {} instead of {}",
                other.as_deref().unwrap_or("no group"),
                self.group
            )),
        }
    }
}

impl Endpoint for Tcp<'_> {
    fn serve(&self, mut stream: TcpStream) -> Result<(), String> {
        let _ = stream.set_nodelay(true);
        let mut side = self.stack.server()?;
        pump(side.as_mut(), &mut stream, &mut |s| Ok(!s.handshaking()))?;
        self.group_is_right(side.as_ref(), "server")?;
        let ekm = side.export()?;
        side.write_app(&ekm)?;
        pump(side.as_mut(), &mut stream, &mut |_| Ok(true))?;
        // Wait for the client to close, so its last reads find the data.
        let mut sink = [0u8; 256];
        while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
        Ok(())
    }

    fn connect(&self, stream: &mut TcpStream) -> Result<Instant, String> {
        let _ = stream.set_nodelay(true);
        let mut side = self.stack.client(Mode::Full, None)?;
        pump(side.as_mut(), stream, &mut |s| Ok(!s.handshaking()))?;
        let done = Instant::now();
        self.group_is_right(side.as_ref(), "client")?;
        let mine = side.export()?;
        let mut got = Vec::new();
        pump(side.as_mut(), stream, &mut |s| {
            got.extend(s.read_app()?);
            Ok(got.len() >= mine.len())
        })?;
        if got[..mine.len()] != mine[..] {
            return Err("the client and the server exported different keying material".into());
        }
        Ok(done)
    }
}

/// Measures every condition of `cfg` for `plan` into `r` (or records why they were skipped).
pub fn measure(plan: &Plan, cfg: &TlsConfig, r: &mut TlsResult, stop: &dyn Fn() -> bool) {
    measure_with(
        plan,
        super::measure::stack(plan.stack, plan.group, plan.chain, plan.hello),
        cfg,
        r,
        stop,
    )
}

/// [`measure`] with a stack made elsewhere (or why there is none): BoringSSL's worker measures
/// its stack under the same conditions with this.
pub fn measure_with(
    plan: &Plan,
    made: Result<Box<dyn Stack>, String>,
    cfg: &TlsConfig,
    r: &mut TlsResult,
    stop: &dyn Fn() -> bool,
) {
    let stack = match made {
        Ok(s) => s,
        Err(e) => {
            r.network_skipped = Some(e);
            return;
        }
    };
    let mut testbed = match Testbed::new() {
        Ok(t) => t,
        Err(e) => {
            r.network_skipped = Some(format!("network conditions skipped: {e}"));
            return;
        }
    };
    let endpoint = Tcp {
        stack: stack.as_ref(),
        group: plan.group.tls_name,
    };
    for p in &cfg.network {
        if stop() {
            r.interrupted = true;
            return;
        }
        let n = handshakes_for(p.loss_pct, cfg.network_handshakes);
        let concurrency = concurrency_for(p.rtt_ms, cfg.network_concurrency);
        eprintln!("  {}: network {}: {n} handshakes ...", plan.label(), p.name);
        match net::measure(
            &mut testbed,
            p,
            n,
            concurrency,
            &endpoint,
            POINT_DEADLINE,
            stop,
        ) {
            Ok(o) => {
                let Some(measured_rtt_ms) = o.measured_rtt_ms else {
                    r.error = Some(format!(
                        "network {}: no TCP connection got through to measure the round trip",
                        p.name
                    ));
                    return;
                };
                if let Some(c) = r.checks.as_mut() {
                    c.handshakes += o.times_ms.len() as u64;
                }
                r.interrupted |= o.stopped;
                r.network.push(NetPoint {
                    profile: p.name.clone(),
                    rtt_ms: p.rtt_ms,
                    loss_pct: p.loss_pct,
                    rate_mbit: p.rate_mbit,
                    measured_rtt_ms,
                    mechanisms: Mechanisms {
                        delay: o.mechanisms.delay,
                        loss: o.mechanisms.loss,
                        rate: o.mechanisms.rate,
                    },
                    handshakes: o.times_ms.len() as u64,
                    concurrency,
                    failures: o.failures as u64,
                    time_ms: Spread::of(&o.times_ms),
                });
                if o.failures > 0 && o.times_ms.is_empty() {
                    r.error = Some(format!(
                        "network {}: every handshake failed: {}",
                        p.name,
                        o.errors.join("; ")
                    ));
                    return;
                }
            }
            Err(e @ (NetError::NotPermitted(_) | NetError::Unavailable(_))) => {
                r.network_skipped = Some(format!("network conditions skipped: {e}"));
                return;
            }
            Err(e) => {
                r.error = Some(format!("network {}: {e}", p.name));
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over TCP (plain loopback: the check needs no network namespace), the client compares
    /// the keying material the server sent with its own: a server that exports other material
    /// fails the handshake, naming the check; the stack's own server passes.
    #[test]
    fn keying_material_that_differs_between_the_sides_fails_over_tcp() {
        use crate::tls::certs::Chain;
        use crate::tls::groups::{CertKind, Group, HelloShape, StackKind};
        let chain = Chain::generate(CertKind::EcdsaP256).unwrap();
        let g = Group::find("X25519").unwrap();
        let made = || super::super::measure::stack(StackKind::Rustls, g, &chain, HelloShape::Minimal).unwrap();
        let once = |stack: &dyn Stack| -> Result<(), String> {
            let endpoint = Tcp {
                stack,
                group: g.tls_name,
            };
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let addr = listener.local_addr().unwrap();
            std::thread::scope(|s| {
                let server = s.spawn(|| endpoint.serve(listener.accept().unwrap().0));
                let mut stream = TcpStream::connect(addr).unwrap();
                let client = endpoint.connect(&mut stream).map(drop);
                drop(stream);
                server.join().unwrap()?;
                client
            })
        };
        once(made().as_ref()).unwrap();
        let skewed = crate::tls::tests::SkewedExport(made());
        assert_eq!(
            once(&skewed).unwrap_err(),
            "the client and the server exported different keying material"
        );
    }

    #[test]
    fn short_round_trips_get_fewer_handshakes_in_flight() {
        assert_eq!(concurrency_for(5.6, 16), 3);
        assert_eq!(concurrency_for(31.2, 16), 16);
        assert_eq!(concurrency_for(195.7, 16), 16);
        assert_eq!(concurrency_for(31.2, 1), 1);
        assert_eq!(concurrency_for(0.0, 16), 1);
        assert_eq!(handshakes_for(0.0, 1000), 100);
        assert_eq!(handshakes_for(3.0, 1000), 1000);
        assert_eq!(handshakes_for(0.0, 50), 50);
    }
}
