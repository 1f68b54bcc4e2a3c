//! The one in-memory byte pipe under a TLS library's stream, and the [`Side`] that drives any
//! such stream: OpenSSL's (`openssl_stack.rs`) and BoringSSL's (`workers/tls-boring`) both
//! run through it, so that the handshake loop, the pipe and what a side keeps between calls
//! are written once. The library-specific part is a [`Connection`]: how its stream advances
//! the handshake, what it does once the handshake completed, how it reads and writes.

use super::side::{Session, Side};
use std::io::{self, Read, Write};

/// Bytes received from the peer but not yet read by the library, and bytes it wrote.
#[derive(Default)]
pub struct Pipe {
    rx: Vec<u8>,
    pos: usize,
    tx: Vec<u8>,
}

impl Pipe {
    /// Takes bytes from the peer: what the library already read is dropped, `data` appended.
    pub fn feed(&mut self, data: &[u8]) {
        self.rx.drain(..self.pos);
        self.pos = 0;
        self.rx.extend_from_slice(data);
    }

    /// Moves what the library wrote onto the end of `out`.
    pub fn take_sent(&mut self, out: &mut Vec<u8>) {
        out.append(&mut self.tx);
    }
}

impl Read for Pipe {
    /// What the peer sent and the library has not read; `WouldBlock` when nothing is left,
    /// which a library's stream reports as "wants to read".
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos >= self.rx.len() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let n = buf.len().min(self.rx.len() - self.pos);
        buf[..n].copy_from_slice(&self.rx[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl Write for Pipe {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tx.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A TLS library's connection over a [`Pipe`], as a [`PipedSide`] drives it.
pub trait Connection {
    /// Advances the handshake (`connect` on a client, `accept` on a server): `Ok(true)` once
    /// it completed, `Ok(false)` while it waits for the peer.
    fn handshake(&mut self, client: bool) -> Result<bool, String>;
    /// What the side does once its handshake completed (a client checks the chain's
    /// verification; a server may flush its tickets).
    fn completed(&mut self, client: bool) -> Result<(), String>;
    /// Reads application data: `Ok(Some(n))` for `n` bytes (0 at the end), `Ok(None)` while
    /// nothing more is there for now or the peer closed.
    fn read(&mut self, buf: &mut [u8]) -> Result<Option<usize>, String>;
    /// Writes application data.
    fn write(&mut self, data: &[u8]) -> Result<(), String>;
    /// The pipe under the stream.
    fn pipe(&mut self) -> &mut Pipe;
    /// The negotiated group's name as the stack reports it.
    fn group(&self) -> Option<String>;
    /// 32 bytes of keying material exported with kembench's label.
    fn export(&mut self) -> Result<Vec<u8>, String>;
    /// Whether the handshake resumed a session.
    fn resumed(&self) -> bool;
    /// The newest session a client's tickets gave it.
    fn session(&mut self) -> Option<Session>;
}

/// One side of a connection over a [`Pipe`]: the handshake advanced on every receipt, and what
/// follows it (tickets, application data) read as it arrives.
pub struct PipedSide<C> {
    c: C,
    client: bool,
    done: bool,
    app: Vec<u8>,
}

impl<C: Connection> PipedSide<C> {
    /// A server side, waiting for a client's hello.
    pub fn server(c: C) -> PipedSide<C> {
        PipedSide {
            c,
            client: false,
            done: false,
            app: Vec::new(),
        }
    }

    /// A client side, its hello already written to the pipe.
    pub fn client(c: C) -> Result<PipedSide<C>, String> {
        let mut side = PipedSide {
            c,
            client: true,
            done: false,
            app: Vec::new(),
        };
        side.drive()?;
        Ok(side)
    }

    /// The connection.
    pub fn connection(&self) -> &C {
        &self.c
    }

    /// Advances the handshake, then reads whatever follows it (tickets, application data).
    fn drive(&mut self) -> Result<(), String> {
        if !self.done {
            if !self.c.handshake(self.client)? {
                return Ok(());
            }
            self.done = true;
            self.c.completed(self.client)?;
        }
        let mut buf = [0u8; 4096];
        while let Some(n) = self.c.read(&mut buf)? {
            if n == 0 {
                break;
            }
            self.app.extend_from_slice(&buf[..n]);
        }
        Ok(())
    }
}

impl<C: Connection> Side for PipedSide<C> {
    fn receive(&mut self, data: &[u8]) -> Result<(), String> {
        self.c.pipe().feed(data);
        self.drive()
    }

    fn send(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        self.c.pipe().take_sent(out);
        Ok(())
    }

    fn handshaking(&self) -> bool {
        !self.done
    }

    fn group(&self) -> Option<String> {
        self.c.group()
    }

    fn export(&mut self) -> Result<Vec<u8>, String> {
        self.c.export()
    }

    fn resumed(&self) -> bool {
        self.c.resumed()
    }

    fn write_app(&mut self, data: &[u8]) -> Result<(), String> {
        self.c.write(data)
    }

    fn read_app(&mut self) -> Result<Vec<u8>, String> {
        Ok(std::mem::take(&mut self.app))
    }

    fn session(&mut self) -> Option<Session> {
        self.c.session()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pipe_hands_over_what_was_fed_and_drops_what_was_read() {
        let mut p = Pipe::default();
        let mut buf = [0u8; 3];
        assert_eq!(
            p.read(&mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        p.feed(b"hello");
        assert_eq!(p.read(&mut buf).unwrap(), 3);
        assert_eq!(&buf, b"hel");
        p.feed(b"!");
        let mut rest = [0u8; 8];
        assert_eq!(p.read(&mut rest).unwrap(), 3);
        assert_eq!(&rest[..3], b"lo!");
        assert_eq!(p.rx, b"lo!", "what was read before the feed is dropped");
        p.write_all(b"out").unwrap();
        let mut out = b">".to_vec();
        p.take_sent(&mut out);
        assert_eq!(out, b">out");
        p.take_sent(&mut out);
        assert_eq!(out, b">out", "sent bytes are handed over once");
    }

    /// A connection that completes its handshake on the second call and then reads `app`.
    struct Fake {
        calls: usize,
        completed: usize,
        app: Vec<Vec<u8>>,
        pipe: Pipe,
    }

    impl Connection for Fake {
        fn handshake(&mut self, _client: bool) -> Result<bool, String> {
            self.calls += 1;
            Ok(self.calls >= 2)
        }
        fn completed(&mut self, client: bool) -> Result<(), String> {
            self.completed += 1;
            if client {
                Err("the certificate did not verify".into())
            } else {
                Ok(())
            }
        }
        fn read(&mut self, buf: &mut [u8]) -> Result<Option<usize>, String> {
            Ok(self.app.pop().map(|a| {
                buf[..a.len()].copy_from_slice(&a);
                a.len()
            }))
        }
        fn write(&mut self, _data: &[u8]) -> Result<(), String> {
            Ok(())
        }
        fn pipe(&mut self) -> &mut Pipe {
            &mut self.pipe
        }
        fn group(&self) -> Option<String> {
            None
        }
        fn export(&mut self) -> Result<Vec<u8>, String> {
            Ok(Vec::new())
        }
        fn resumed(&self) -> bool {
            false
        }
        fn session(&mut self) -> Option<Session> {
            None
        }
    }

    fn fake(app: &[&[u8]]) -> Fake {
        Fake {
            calls: 0,
            completed: 0,
            app: app.iter().rev().map(|a| a.to_vec()).collect(),
            pipe: Pipe::default(),
        }
    }

    #[test]
    fn a_side_completes_once_then_reads_what_follows_the_handshake() {
        let mut s = PipedSide::server(fake(&[b"ab", b"c"]));
        assert!(s.handshaking());
        s.receive(b"hello").unwrap();
        assert!(s.handshaking(), "the first call waits for the peer");
        assert_eq!(s.read_app().unwrap(), b"", "nothing is read before the handshake ends");
        s.receive(b"finished").unwrap();
        assert!(!s.handshaking());
        assert_eq!(s.read_app().unwrap(), b"abc");
        s.receive(b"more").unwrap();
        assert_eq!(s.connection().completed, 1, "completion is handled once");
        assert_eq!(s.connection().calls, 2, "no handshake call after completion");
    }

    #[test]
    fn a_client_whose_completion_fails_says_why() {
        let mut c = PipedSide::client(fake(&[])).unwrap();
        let e = c.receive(b"server hello").unwrap_err();
        assert!(e.contains("did not verify"), "{e}");
    }
}
