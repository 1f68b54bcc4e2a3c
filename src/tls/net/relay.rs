//! The delay: a thread in the relay namespace that reads every Ethernet frame arriving on one
//! veth (an `AF_PACKET` raw socket, promiscuous, outgoing frames ignored) and writes it out of
//! the other after holding it for the one-way delay. The delay is constant within a profile,
//! so one first-in first-out queue per direction is already in time order; each is bounded
//! ([`QUEUE_FRAMES`]) and a frame arriving at a full queue is dropped and counted. The thread
//! sleeps in `ppoll` until a frame arrives or the first held one is due (nanosecond timeout),
//! so frames leave within tens of microseconds of their due time.

use super::sys;
use super::NetError;
use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Frames held at most per direction: 16,384 full frames are 24 MB, more than a 1000 mbit
/// link carries in one 100 ms one-way delay (12.5 MB); TLS handshakes hold a few dozen.
pub const QUEUE_FRAMES: usize = 16_384;

/// The longest frame read (a frame longer than the veth's MTU would be a GSO super-frame,
/// which the offloads being off rules out; it is counted and not forwarded).
const FRAME_BUF: usize = 65_536;

/// How long the thread sleeps at most, to notice that it should stop.
const IDLE: Duration = Duration::from_millis(20);

const SOL_PACKET: libc::c_int = 263;
const PACKET_ADD_MEMBERSHIP: libc::c_int = 1;
const PACKET_MR_PROMISC: libc::c_ushort = 1;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
const PACKET_OUTGOING: u8 = 4;

/// `struct packet_mreq` of `<linux/if_packet.h>`.
#[repr(C)]
struct PacketMreq {
    mr_ifindex: libc::c_int,
    mr_type: libc::c_ushort,
    mr_alen: libc::c_ushort,
    mr_address: [u8; 8],
}

/// What the relay did, counted since it started.
#[derive(Debug, Default)]
pub struct RelayCounters {
    /// Frames forwarded.
    pub forwarded: AtomicU64,
    /// Frames dropped because their direction's queue was full.
    pub queue_full: AtomicU64,
    /// Frames the kernel refused to send (or longer than the MTU).
    pub send_errors: AtomicU64,
    /// The longest frame seen, bytes (1,514 at most with MTU 1500 and offloads off).
    pub largest_frame: AtomicU64,
}

/// A snapshot of [`RelayCounters`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RelayStats {
    /// Frames forwarded.
    pub forwarded: u64,
    /// Frames dropped because their direction's queue was full.
    pub queue_full: u64,
    /// Frames the kernel refused to send (or longer than the MTU).
    pub send_errors: u64,
    /// The longest frame seen, bytes.
    pub largest_frame: u64,
}

impl RelayStats {
    /// What happened between `earlier` and `self` (the largest frame is `self`'s).
    pub fn since(&self, earlier: &RelayStats) -> RelayStats {
        RelayStats {
            forwarded: self.forwarded - earlier.forwarded,
            queue_full: self.queue_full - earlier.queue_full,
            send_errors: self.send_errors - earlier.send_errors,
            largest_frame: self.largest_frame,
        }
    }
}

/// The running relay thread; dropping it stops the thread.
pub struct Relay {
    delay_ns: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    counters: Arc<RelayCounters>,
    thread: Option<JoinHandle<()>>,
}

impl Relay {
    /// Starts the relay in namespace `ns` between interfaces `a` and `b`; returns once both
    /// sockets are bound (so no frame is missed after this).
    pub fn start(ns: &str, a: &str, b: &str) -> Result<Relay, NetError> {
        let delay_ns = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let counters = Arc::new(RelayCounters::default());
        let (tx, rx) = mpsc::channel::<Result<(), NetError>>();
        let (ns_, a_, b_) = (ns.to_string(), a.to_string(), b.to_string());
        let (d, s, c) = (delay_ns.clone(), stop.clone(), counters.clone());
        let thread = std::thread::Builder::new()
            .name(format!("relay {ns}"))
            .spawn(move || {
                let sockets = sys::enter_netns(&ns_)
                    .map_err(|e| NetError::Failed(format!("relay: entering {ns_}: {e}")))
                    .and_then(|()| {
                        let sa =
                            open(&a_).map_err(|e| NetError::Failed(format!("relay: {a_}: {e}")))?;
                        let sb =
                            open(&b_).map_err(|e| NetError::Failed(format!("relay: {b_}: {e}")))?;
                        Ok((sa, sb))
                    });
                // Wake at the due time, not up to the default 50 µs of timer slack later.
                // SAFETY: PR_SET_TIMERSLACK takes a plain integer and affects this thread only.
                unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
                match sockets {
                    Ok((sa, sb)) => {
                        let _ = tx.send(Ok(()));
                        forward(&sa, &sb, &d, &s, &c);
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            })
            .map_err(|e| NetError::Failed(format!("starting the relay thread: {e}")))?;
        let mut relay = Relay {
            delay_ns,
            stop,
            counters,
            thread: Some(thread),
        };
        match rx.recv() {
            Ok(Ok(())) => Ok(relay),
            Ok(Err(e)) => {
                relay.shut();
                Err(e)
            }
            Err(_) => {
                relay.shut();
                Err(NetError::Failed(
                    "the relay thread ended before starting".into(),
                ))
            }
        }
    }

    /// Sets the one-way delay applied to frames read from now on.
    pub fn set_delay(&self, one_way: Duration) {
        self.delay_ns
            .store(one_way.as_nanos() as u64, Ordering::SeqCst);
    }

    /// The counters so far.
    pub fn stats(&self) -> RelayStats {
        let c = &self.counters;
        RelayStats {
            forwarded: c.forwarded.load(Ordering::Relaxed),
            queue_full: c.queue_full.load(Ordering::Relaxed),
            send_errors: c.send_errors.load(Ordering::Relaxed),
            largest_frame: c.largest_frame.load(Ordering::Relaxed),
        }
    }

    /// Stops and joins the thread.
    fn shut(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.shut();
    }
}

/// An `AF_PACKET` raw socket bound to `dev`, non-blocking, promiscuous, not seeing its own
/// outgoing frames.
fn open(dev: &str) -> io::Result<OwnedFd> {
    let index = sys::ifindex(dev)?;
    // Protocol 0 at creation: the socket receives nothing until it is bound to one interface
    // with ETH_P_ALL, so no frame of another interface slips in between.
    // SAFETY: plain socket creation; the result is checked before use.
    let raw = unsafe {
        libc::socket(
            libc::AF_PACKET,
            libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
            0,
        )
    };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` is a fresh descriptor that nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    // SAFETY: an all-zero sockaddr_ll is a valid value of this plain C struct.
    let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    addr.sll_family = libc::AF_PACKET as u16;
    addr.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
    addr.sll_ifindex = index;
    // SAFETY: `addr` is a valid sockaddr_ll of the length passed, alive for the call.
    let r = unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&addr as *const libc::sockaddr_ll).cast(),
            std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    let mreq = PacketMreq {
        mr_ifindex: index,
        mr_type: PACKET_MR_PROMISC,
        mr_alen: 0,
        mr_address: [0; 8],
    };
    setsockopt(&fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mreq)?;
    // Kernels before 4.20 lack it; the packet type check in `forward` covers them.
    let _ = setsockopt(&fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &1 as &libc::c_int);
    // Room for bursts while the thread is busy (SO_RCVBUFFORCE needs CAP_NET_ADMIN).
    let size: libc::c_int = 8 << 20;
    if setsockopt(&fd, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, &size).is_err() {
        let _ = setsockopt(&fd, libc::SOL_SOCKET, libc::SO_RCVBUF, &size);
    }
    Ok(fd)
}

/// `setsockopt` with a value of type `T`.
fn setsockopt<T>(fd: &OwnedFd, level: libc::c_int, name: libc::c_int, value: &T) -> io::Result<()> {
    // SAFETY: `value` points at a live `T` of the length passed.
    let r = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            level,
            name,
            (value as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// One held frame.
struct Held {
    due: Instant,
    frame: Vec<u8>,
}

/// The relay loop: until `stop`, reads frames from both sockets, holds each for the delay and
/// writes it to the other socket.
fn forward(a: &OwnedFd, b: &OwnedFd, delay_ns: &AtomicU64, stop: &AtomicBool, c: &RelayCounters) {
    let socks = [a, b];
    // queues[i]: frames read from socks[i], to be written to socks[1 - i].
    let mut queues: [VecDeque<Held>; 2] = [VecDeque::new(), VecDeque::new()];
    let mut spare: Vec<Vec<u8>> = Vec::new();
    let mut buf = vec![0u8; FRAME_BUF];
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        for (i, q) in queues.iter_mut().enumerate() {
            while q.front().is_some_and(|h| h.due <= now) {
                let h = q.pop_front().expect("front checked");
                // SAFETY: `h.frame` is a live buffer of the length passed; the socket is bound,
                // so no destination address is needed.
                let r = unsafe {
                    libc::send(
                        socks[1 - i].as_raw_fd(),
                        h.frame.as_ptr().cast(),
                        h.frame.len(),
                        0,
                    )
                };
                if r < 0 {
                    c.send_errors.fetch_add(1, Ordering::Relaxed);
                } else {
                    c.forwarded.fetch_add(1, Ordering::Relaxed);
                }
                spare.push(h.frame);
            }
        }
        let next = queues.iter().filter_map(|q| q.front().map(|h| h.due)).min();
        let wait = next.map_or(IDLE, |d| {
            d.saturating_duration_since(Instant::now()).min(IDLE)
        });
        let ts = libc::timespec {
            tv_sec: wait.as_secs() as libc::time_t,
            tv_nsec: wait.subsec_nanos() as _,
        };
        let mut fds = socks.map(|s| libc::pollfd {
            fd: s.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        });
        // SAFETY: `fds` holds two valid pollfd entries and `ts` a valid timeout, both alive for
        // the call; no signal mask is changed.
        let n = unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &ts, std::ptr::null()) };
        if n <= 0 {
            continue;
        }
        for (i, p) in fds.iter().enumerate() {
            if p.revents & libc::POLLIN == 0 {
                continue;
            }
            loop {
                // SAFETY: an all-zero sockaddr_ll is a valid value of this plain C struct.
                let mut from: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
                let mut len = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
                // SAFETY: `buf` is writable for its length and `from`/`len` describe a valid
                // address buffer, all alive for the call.
                let r = unsafe {
                    libc::recvfrom(
                        p.fd,
                        buf.as_mut_ptr().cast(),
                        buf.len(),
                        libc::MSG_DONTWAIT,
                        (&mut from as *mut libc::sockaddr_ll).cast(),
                        &mut len,
                    )
                };
                if r <= 0 {
                    break; // EAGAIN: read everything there was
                }
                if from.sll_pkttype == PACKET_OUTGOING {
                    continue;
                }
                let n = r as usize;
                c.largest_frame.fetch_max(n as u64, Ordering::Relaxed);
                if n > 1514 {
                    c.send_errors.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                if queues[i].len() >= QUEUE_FRAMES {
                    c.queue_full.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                let mut frame = spare.pop().unwrap_or_default();
                frame.clear();
                frame.extend_from_slice(&buf[..n]);
                let due = Instant::now() + Duration::from_nanos(delay_ns.load(Ordering::Relaxed));
                queues[i].push_back(Held { due, frame });
            }
        }
    }
}
