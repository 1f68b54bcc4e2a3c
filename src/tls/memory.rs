//! One handshake between a client and a server of one thread, bytes handed over in memory:
//! each side's time is the time spent in its own calls (building its connection, processing
//! what arrived, producing what it sends), so the server's and the client's CPU are measured
//! separately. A handshake is checked after the timed part, whole ([`Check::Whole`]: the
//! flights read off the wire, the keying material both sides export compared, the groups they
//! report) or for its completion alone ([`Check::Completion`]), the cost of the whole check
//! timed on its own.

use super::side::{Session, Stack};
use super::wire;
use crate::record::tls::Mode;
use std::time::Instant;

/// Turns in one handshake before it is declared stuck.
const MAX_TURNS: usize = 12;

/// One flight as it crossed: who sent it and its bytes' count and records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wire {
    /// Sent by the client.
    pub from_client: bool,
    /// Bytes.
    pub bytes: usize,
    /// TLS records.
    pub records: usize,
    /// What it opens with, read off the wire (its name comes from this).
    pub opening: wire::Opening,
}

/// How much of one handshake is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Everything [`Outcome`] holds: the flights and hellos read off the wire, the exported
    /// keying material compared, the groups both sides report, the client's session.
    Whole,
    /// That both sides completed (and whether it resumed): nothing read off the wire, nothing
    /// exported; the flights, hellos and groups of the outcome are empty.
    Completion,
}

/// What one handshake cost and showed.
pub struct Outcome {
    /// Time in the server's calls, ns.
    pub server_ns: u64,
    /// Time in the client's calls, ns.
    pub client_ns: u64,
    /// The flights in order.
    pub flights: Vec<Wire>,
    /// The first ClientHello's key shares.
    pub client_hello: Option<wire::Hello>,
    /// The ServerHello that completed the exchange.
    pub server_hello: Option<wire::Hello>,
    /// The server asked for another key share first.
    pub retried: bool,
    /// Both sides said the handshake resumed a session.
    pub resumed: bool,
    /// The group the client's stack reports.
    pub client_group: Option<String>,
    /// The group the server's stack reports.
    pub server_group: Option<String>,
    /// The client's session for the next resumed handshake.
    pub session: Option<Session>,
    /// Time in the whole check (reading the flights, exporting and comparing keying material,
    /// the groups), ns; 0 for [`Check::Completion`].
    pub check_ns: u64,
}

/// Runs one handshake of `mode` (resuming `session` when given); checked whole, it also checks
/// that both sides derived the same exported keying material.
pub fn handshake(
    stack: &dyn Stack,
    mode: Mode,
    session: Option<Session>,
    check: Check,
) -> Result<Outcome, String> {
    let whole = check == Check::Whole;
    let mut check_ns = 0u64;
    let mut flights: Vec<Wire> = Vec::new();
    let mut client_hello = None;
    let mut server_hello = None;
    let mut retried = false;
    let mut note = |from_client: bool, bytes: &[u8], flights: &mut Vec<Wire>| {
        if bytes.is_empty() {
            return;
        }
        if let Some(h) = wire::hello(bytes) {
            match (h.msg_type, h.retry) {
                (1, _) if client_hello.is_none() => client_hello = Some(h),
                (2, true) => retried = true,
                (2, false) => server_hello = Some(h),
                _ => {}
            }
        }
        flights.push(Wire {
            from_client,
            bytes: bytes.len(),
            records: wire::records(bytes),
            opening: wire::opening(bytes),
        });
    };

    let mut to_server = Vec::with_capacity(4096);
    let mut to_client = Vec::with_capacity(8192);
    let t = Instant::now();
    let mut client = stack.client(mode, session)?;
    client.send(&mut to_server)?;
    let mut client_ns = t.elapsed().as_nanos() as u64;
    // The time reading each flight is the check's, not the handshake's.
    let mut noted = |from_client: bool, bytes: &[u8], flights: &mut Vec<Wire>| -> u64 {
        if !whole {
            return 0;
        }
        let t = Instant::now();
        note(from_client, bytes, flights);
        t.elapsed().as_nanos() as u64
    };
    check_ns += noted(true, &to_server, &mut flights);

    let t = Instant::now();
    let mut server = stack.server()?;
    let mut server_ns = t.elapsed().as_nanos() as u64;
    for _ in 0..MAX_TURNS {
        let t = Instant::now();
        server.receive(&to_server)?;
        to_client.clear();
        server.send(&mut to_client)?;
        server_ns += t.elapsed().as_nanos() as u64;
        check_ns += noted(false, &to_client, &mut flights);

        let t = Instant::now();
        client.receive(&to_client)?;
        to_server.clear();
        client.send(&mut to_server)?;
        client_ns += t.elapsed().as_nanos() as u64;
        check_ns += noted(true, &to_server, &mut flights);

        if to_server.is_empty()
            && to_client.is_empty()
            && !client.handshaking()
            && !server.handshaking()
        {
            let resumed = client.resumed() && server.resumed();
            let session = if whole || mode == Mode::Resumed {
                client.session()
            } else {
                None
            };
            if !whole {
                return Ok(Outcome {
                    server_ns,
                    client_ns,
                    flights: Vec::new(),
                    client_hello: None,
                    server_hello: None,
                    retried: false,
                    resumed,
                    client_group: None,
                    server_group: None,
                    session,
                    check_ns: 0,
                });
            }
            let t = Instant::now();
            let ekm_client = client.export()?;
            let ekm_server = server.export()?;
            if ekm_client != ekm_server {
                return Err("the client and the server exported different keying material".into());
            }
            let (client_group, server_group) = (client.group(), server.group());
            check_ns += t.elapsed().as_nanos() as u64;
            return Ok(Outcome {
                server_ns,
                client_ns,
                flights,
                client_hello,
                server_hello,
                retried,
                resumed,
                client_group,
                server_group,
                session,
                check_ns,
            });
        }
    }
    Err(format!(
        "the handshake did not complete in {MAX_TURNS} turns"
    ))
}
