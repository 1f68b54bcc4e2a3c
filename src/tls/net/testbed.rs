//! The testbed: three network namespaces joined by two veth pairs, the relay thread between
//! them, and the conditions of one profile (delay, `tbf` rate, `nft` loss). Dropping it
//! deletes the namespaces, which takes their veths, queueing disciplines and rules with them.

use super::relay::{Relay, RelayStats};
use super::{sys, Mechanisms, NetError, NetProfile};
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Prefix of every namespace kembench creates: `kb-<pid>-<n>-<role>`.
const PREFIX: &str = "kb-";

/// Testbeds made by this process so far (the `<n>` of the names).
static MADE: AtomicUsize = AtomicUsize::new(0);

/// The client's veth and its address.
pub const CLIENT_DEV: &str = "c0";
/// The server's veth.
pub const SERVER_DEV: &str = "s0";
/// The client's address. Every testbed uses the same /24: its addresses exist only inside its
/// own namespaces, so testbeds (of this or another process) can never collide.
pub const CLIENT_ADDR: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
/// The server's address.
pub const SERVER_ADDR: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 2);
/// Fixed, locally administered MAC addresses, so the neighbour entries can be made permanent.
const CLIENT_MAC: &str = "02:6b:62:00:00:01";
const SERVER_MAC: &str = "02:6b:62:00:00:02";

/// Token-bucket size of the rate limit: the bytes the rate carries in 100 µs, at least two
/// full frames (3,028 bytes): 12,500 bytes at 1000 mbit. Small enough that a handshake flight
/// is paced near the rate (as netem's `rate` paces every packet), large enough that the
/// qdisc's timer need not fire for every frame at high rates.
pub fn tbf_burst_bytes(rate_mbit: f64) -> u64 {
    ((rate_mbit * 1e6 / 8.0 * 100e-6) as u64).max(3028)
}

/// The queue limit of the rate limit, expressed as `tbf`'s `latency`.
const TBF_LATENCY_MS: u32 = 400;

/// Client, relay and server namespaces, the relay thread and the current conditions.
pub struct Testbed {
    client: String,
    relay_ns: String,
    server: String,
    /// Namespaces created so far (what `Drop` deletes).
    created: Vec<String>,
    relay: Option<Relay>,
    /// Whether `nft` is installed (loss needs it).
    nft: bool,
    /// What was done about segment sizes.
    offloads: String,
    /// Stale namespaces removed at the start.
    removed: Vec<String>,
}

impl Testbed {
    /// Builds the testbed: removes stale `kb-*` namespaces of dead processes, creates the
    /// three namespaces and two veth pairs, turns offloads off, starts the relay. Fails with
    /// [`NetError::NotPermitted`] or [`NetError::Unavailable`] where this machine or user
    /// cannot (then nothing is left behind).
    pub fn new() -> Result<Testbed, NetError> {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            return Err(NetError::NotPermitted(
                "not running as root (network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN)"
                    .into(),
            ));
        }
        sys::run("ip", &["-V"], None)?;
        sys::run("tc", &["-V"], None)?;
        let removed = remove_stale();
        let pid = std::process::id();
        let n = MADE.fetch_add(1, Ordering::SeqCst);
        let name = |role: &str| format!("{PREFIX}{pid}-{n}-{role}");
        let mut tb = Testbed {
            client: name("c"),
            relay_ns: name("r"),
            server: name("s"),
            created: Vec::new(),
            relay: None,
            nft: sys::run("nft", &["--version"], None).is_ok(),
            offloads: String::new(),
            removed,
        };
        tb.build()?;
        Ok(tb)
    }

    fn build(&mut self) -> Result<(), NetError> {
        let (c, r, s) = (
            self.client.clone(),
            self.relay_ns.clone(),
            self.server.clone(),
        );
        for ns in [&c, &r, &s] {
            // A machine or user that cannot (no privilege, a read-only /run) is refused by
            // `sys::run` as not permitted; any other failure is one to report.
            sys::run("ip", &["netns", "add", ns], None)?;
            self.created.push(ns.clone());
            // No IPv6: its router solicitations and duplicate-address probes would cross the
            // relay beside the measured traffic. (A kernel without IPv6 lacks the files.)
            sys::in_netns(ns, || {
                for f in ["all", "default"] {
                    let _ =
                        std::fs::write(format!("/proc/sys/net/ipv6/conf/{f}/disable_ipv6"), "1");
                }
            })?;
        }
        let ip = |args: &[&str]| sys::run("ip", args, None).map(drop);
        ip(&[
            "-n", &r, "link", "add", "rc", "mtu", "1500", "type", "veth", "peer", "name",
            CLIENT_DEV, "address", CLIENT_MAC, "mtu", "1500", "netns", &c,
        ])?;
        ip(&[
            "-n", &r, "link", "add", "rs", "mtu", "1500", "type", "veth", "peer", "name",
            SERVER_DEV, "address", SERVER_MAC, "mtu", "1500", "netns", &s,
        ])?;
        let mut notes = Vec::new();
        for (ns, devs) in [
            (&c, &[CLIENT_DEV][..]),
            (&r, &["rc", "rs"][..]),
            (&s, &[SERVER_DEV][..]),
        ] {
            for dev in devs {
                if let Err(e) = sys::in_netns(ns, || sys::offloads_off(dev))? {
                    notes.push(e);
                }
            }
        }
        self.offloads = if notes.is_empty() {
            "TSO, GSO, GRO, scatter-gather and transmit checksums off on all four veths \
             (SIOCETHTOOL): MSS-sized segments; MTU 1500"
                .into()
        } else {
            format!("offloads not all off ({}); MTU 1500", notes.join("; "))
        };
        let cidr = |a: Ipv4Addr| format!("{a}/24");
        ip(&[
            "-n",
            &c,
            "addr",
            "add",
            &cidr(CLIENT_ADDR),
            "dev",
            CLIENT_DEV,
        ])?;
        ip(&[
            "-n",
            &s,
            "addr",
            "add",
            &cidr(SERVER_ADDR),
            "dev",
            SERVER_DEV,
        ])?;
        // Permanent neighbour entries: no ARP exchange (delayed by the relay) in any timing.
        ip(&[
            "-n",
            &c,
            "neigh",
            "replace",
            &SERVER_ADDR.to_string(),
            "lladdr",
            SERVER_MAC,
            "dev",
            CLIENT_DEV,
            "nud",
            "permanent",
        ])?;
        ip(&[
            "-n",
            &s,
            "neigh",
            "replace",
            &CLIENT_ADDR.to_string(),
            "lladdr",
            CLIENT_MAC,
            "dev",
            SERVER_DEV,
            "nud",
            "permanent",
        ])?;
        for (ns, dev) in [
            (&c, "lo"),
            (&c, CLIENT_DEV),
            (&r, "rc"),
            (&r, "rs"),
            (&s, "lo"),
            (&s, SERVER_DEV),
        ] {
            ip(&["-n", ns, "link", "set", dev, "up"])?;
        }
        self.relay = Some(Relay::start(&r, "rc", "rs")?);
        Ok(())
    }

    /// The client's namespace (`kb-<pid>-<n>-c`).
    pub fn client_ns(&self) -> &str {
        &self.client
    }

    /// The relay's namespace.
    pub fn relay_ns(&self) -> &str {
        &self.relay_ns
    }

    /// The server's namespace.
    pub fn server_ns(&self) -> &str {
        &self.server
    }

    /// What was done so that segments are MSS-sized (offloads), to record beside the points.
    pub fn segments(&self) -> &str {
        &self.offloads
    }

    /// Stale namespaces (of dead processes) removed when this testbed was made.
    pub fn removed_stale(&self) -> &[String] {
        &self.removed
    }

    /// The relay's counters so far.
    pub fn relay_stats(&self) -> RelayStats {
        self.relay.as_ref().map(Relay::stats).unwrap_or_default()
    }

    /// Sets the delay and the rate of `p` and removes any loss (loss is added separately by
    /// [`Testbed::set_loss`], after the round trip is measured). Returns the mechanisms.
    pub fn set_delay_and_rate(&mut self, p: &NetProfile) -> Result<Mechanisms, NetError> {
        let relay = self
            .relay
            .as_ref()
            .ok_or_else(|| NetError::Failed("no relay".into()))?;
        let one_way = Duration::from_secs_f64((p.rtt_ms.max(0.0) / 2.0) / 1000.0);
        relay.set_delay(one_way);
        let delay = if p.rtt_ms > 0.0 {
            format!(
                "relay (AF_PACKET, both directions, RTT/2 = {:.2} ms each way)",
                p.rtt_ms / 2.0
            )
        } else {
            "none (relay forwards at once)".into()
        };
        let rate = if p.rate_mbit > 0.0 && p.rate_mbit.is_finite() {
            let rate = format!("{}kbit", (p.rate_mbit * 1000.0).round() as u64);
            let burst = tbf_burst_bytes(p.rate_mbit).to_string();
            let latency = format!("{TBF_LATENCY_MS}ms");
            for (ns, dev) in [(&self.client, CLIENT_DEV), (&self.server, SERVER_DEV)] {
                sys::run(
                    "tc",
                    &[
                        "-n", ns, "qdisc", "replace", "dev", dev, "root", "tbf", "rate", &rate,
                        "burst", &burst, "latency", &latency,
                    ],
                    None,
                )?;
            }
            format!(
                "tbf {} mbit both veths (burst {burst} bytes, latency {TBF_LATENCY_MS} ms)",
                fmt_num(p.rate_mbit)
            )
        } else {
            for (ns, dev) in [(&self.client, CLIENT_DEV), (&self.server, SERVER_DEV)] {
                let _ = sys::run("tc", &["-n", ns, "qdisc", "del", "dev", dev, "root"], None);
            }
            "none".into()
        };
        self.set_loss(0.0)?;
        Ok(Mechanisms {
            delay,
            loss: "none".into(),
            rate,
        })
    }

    /// Drops `pct` percent of the TCP packets arriving in the client's and in the server's
    /// namespace (so each direction loses `pct` percent), with an `nft` rule on the veth's
    /// ingress hook; 0 removes the rule. Returns the loss mechanism.
    pub fn set_loss(&mut self, pct: f64) -> Result<String, NetError> {
        let n = (pct * 100.0).round() as u64;
        for (ns, dev) in [(&self.client, CLIENT_DEV), (&self.server, SERVER_DEV)] {
            let script = if n == 0 {
                "table netdev kb\ndelete table netdev kb\n".to_string()
            } else {
                format!(
                    "table netdev kb\ndelete table netdev kb\ntable netdev kb {{\n  chain loss {{\n    \
                     type filter hook ingress device \"{dev}\" priority 0;\n    \
                     ip protocol tcp counter\n    \
                     ip protocol tcp numgen random mod 10000 < {n} counter drop\n  }}\n}}\n"
                )
            };
            if n == 0 && !self.nft {
                continue;
            }
            if !self.nft {
                return Err(NetError::Unavailable(
                    "`nft` is not installed (Debian: nftables)".into(),
                ));
            }
            sys::run(
                "ip",
                &["netns", "exec", ns, "nft", "-f", "-"],
                Some(&script),
            )?;
        }
        Ok(if n == 0 {
            "none".into()
        } else {
            format!(
                "nft numgen random drop ({}%: mod 10000 < {n}), ingress of both endpoint namespaces",
                fmt_num(pct)
            )
        })
    }

    /// TCP packets that arrived at the loss rules and those they dropped, both namespaces
    /// together, since the rules were set; `None` without rules.
    pub fn loss_count(&self) -> Option<LossCount> {
        if !self.nft {
            return None;
        }
        let mut count = LossCount::default();
        for ns in [&self.client, &self.server] {
            let out = sys::run(
                "ip",
                &["netns", "exec", ns, "nft", "list", "table", "netdev", "kb"],
                None,
            )
            .ok()?;
            // The first counter sees every TCP packet, the second the dropped ones.
            let mut counters = out.match_indices("counter packets ").map(|(i, m)| {
                let digits: String = out[i + m.len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                digits.parse::<u64>().unwrap_or(0)
            });
            count.arrived += counters.next()?;
            count.dropped += counters.next()?;
        }
        Some(count)
    }
}

/// What the loss rules saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LossCount {
    /// TCP packets that arrived (before the drop).
    pub arrived: u64,
    /// Those dropped.
    pub dropped: u64,
}

impl LossCount {
    /// The share dropped, percent.
    pub fn pct(&self) -> f64 {
        if self.arrived == 0 {
            0.0
        } else {
            100.0 * self.dropped as f64 / self.arrived as f64
        }
    }
}

impl Drop for Testbed {
    fn drop(&mut self) {
        self.relay = None; // stop the relay thread before its namespace goes
        for ns in self.created.drain(..).rev() {
            if let Err(e) = sys::run("ip", &["netns", "delete", &ns], None) {
                eprintln!("warning: could not delete network namespace {ns}: {e}");
            }
        }
    }
}

/// Deletes `kb-<pid>-*` namespaces whose process is gone (left by a process killed hard);
/// returns their names.
pub fn remove_stale() -> Vec<String> {
    let mut removed = Vec::new();
    let Ok(dir) = std::fs::read_dir(sys::NETNS_DIR) else {
        return removed;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = owner(&name) else { continue };
        if pid != std::process::id()
            && !sys::pid_alive(pid)
            && sys::run("ip", &["netns", "delete", &name], None).is_ok()
        {
            removed.push(name);
        }
    }
    removed
}

/// The pid in a namespace name of ours (`kb-<pid>-<n>-<c|r|s>`).
fn owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let mut parts = rest.split('-');
    let pid = parts.next()?.parse().ok()?;
    let n = parts.next()?;
    let role = parts.next()?;
    let ok =
        !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && matches!(role, "c" | "r" | "s");
    (ok && parts.next().is_none()).then_some(pid)
}

/// `31.2`, `1000`, `0.5`: a number without trailing zeros.
pub(super) fn fmt_num(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_ours_are_recognised() {
        assert_eq!(owner("kb-123-0-c"), Some(123));
        assert_eq!(owner("kb-123-15-s"), Some(123));
        assert_eq!(owner("kb-123-0-x"), None);
        assert_eq!(owner("kb-abc-0-c"), None);
        assert_eq!(owner("other"), None);
        assert_eq!(owner("kb-1-2-c-d"), None);
    }

    #[test]
    fn this_process_is_alive_and_a_free_pid_is_not() {
        assert!(sys::pid_alive(std::process::id()));
        assert!(!sys::pid_alive(u32::MAX));
    }

    #[test]
    fn burst_and_numbers() {
        assert_eq!(tbf_burst_bytes(1000.0), 12_500);
        assert_eq!(tbf_burst_bytes(10.0), 3028);
        assert_eq!(fmt_num(31.2), "31.2");
        assert_eq!(fmt_num(1000.0), "1000");
        assert_eq!(fmt_num(0.5), "0.5");
    }
}
