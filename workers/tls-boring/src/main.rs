//! kembench's BoringSSL worker: BoringSSL (through the `boring` crate) as a TLS stack of
//! kembench, measured by kembench's own code (`kembench::tls::worker::serve`). It reads a job
//! as JSON on standard input and writes the results as JSON on standard output; kembench's
//! `tls --stack boringssl` runs it. A separate executable because BoringSSL and the OpenSSL
//! kembench vendors export the same C symbols.
//!
//! The stack mirrors kembench's OpenSSL one: TLS 1.3 only, the client verifying the chain and
//! the host name against the root, the server issuing BoringSSL's default tickets, bytes
//! through an in-memory pipe under the `SslStream`. Hello shapes: `minimal` narrows the
//! client's groups to the one measured; `defaults` leaves BoringSSL's default groups; `browser`
//! configures the client as Chrome does (GREASE, permuted extensions, X25519MLKEM768, X25519,
//! P-256, P-384, ALPN h2 and http/1.1, OCSP stapling and SCT requested).

use boring::pkey::PKey;
use boring::ssl::{
    ErrorCode, Ssl, SslContext, SslContextBuilder, SslMethod, SslSession, SslSessionCacheMode,
    SslStream, SslVerifyMode, SslVersion,
};
use boring::x509::store::X509StoreBuilder;
use boring::x509::X509;
use kembench::record::tls::Mode;
use kembench::tls::certs::{Chain, SERVER_NAME};
use kembench::tls::groups::{Group, HelloShape, StackKind};
use kembench::tls::side::{Session, Side, Stack, EXPORT_LABEL};
use std::io::{self, Read, Write};

/// The `boring` crate's version (pinned in Cargo.toml).
const BORING_CRATE: &str = "5.4.0";

/// The groups of Chrome's hello, in its order of preference.
const BROWSER_GROUPS: &str = "X25519MLKEM768:X25519:P-256:P-384";

/// ALPN as Chrome sends it: h2, then http/1.1 (length-prefixed).
const BROWSER_ALPN: &[u8] = b"\x02h2\x08http/1.1";

/// Bytes received but not yet read by BoringSSL, and bytes it wrote.
#[derive(Default)]
struct Pipe {
    rx: Vec<u8>,
    pos: usize,
    tx: Vec<u8>,
}

impl Read for Pipe {
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

fn err(e: impl std::fmt::Display) -> String {
    format!("BoringSSL: {e}")
}

/// Where a client SSL keeps the newest session its tickets gave it.
fn ticket_index() -> Result<boring::ex_data::Index<Ssl, SslSession>, String> {
    static INDEX: std::sync::OnceLock<Result<boring::ex_data::Index<Ssl, SslSession>, String>> =
        std::sync::OnceLock::new();
    INDEX
        .get_or_init(|| Ssl::new_ex_index().map_err(err))
        .clone()
}

fn tls13(b: &mut SslContextBuilder) -> Result<(), String> {
    b.set_min_proto_version(Some(SslVersion::TLS1_3))
        .map_err(err)?;
    b.set_max_proto_version(Some(SslVersion::TLS1_3))
        .map_err(err)
}

/// BoringSSL for one group, chain and hello shape.
struct Boring {
    server: SslContext,
    client: SslContext,
    hrr: SslContext,
    /// The one key share an `hrr` client sends: the wrong guess (BoringSSL by default sends
    /// shares for two of its groups, which would leave nothing to retry).
    hrr_share: u16,
}

fn version() -> String {
    format!("{} (boring {BORING_CRATE})", boring::version::version())
}

impl Boring {
    fn new(g: &Group, chain: &Chain, shape: HelloShape) -> Result<Boring, String> {
        let mut s = SslContextBuilder::new(SslMethod::tls()).map_err(err)?;
        tls13(&mut s)?;
        s.set_curves_list(g.openssl_name).map_err(|e| {
            format!(
                "BoringSSL (boring {BORING_CRATE}) does not offer the group {}: {e}",
                g.tls_name
            )
        })?;
        if shape == HelloShape::Browser {
            s.set_alpn_select_callback(|_, client| {
                boring::ssl::select_next_proto(BROWSER_ALPN, client)
                    .ok_or(boring::ssl::AlpnError::NOACK)
            });
        }
        let leaf = X509::from_der(&chain.leaf_der).map_err(err)?;
        s.set_certificate(&leaf).map_err(err)?;
        s.add_extra_chain_cert(X509::from_der(&chain.intermediate_der).map_err(err)?)
            .map_err(err)?;
        let key = PKey::private_key_from_pkcs8(&chain.leaf_key_pkcs8).map_err(err)?;
        s.set_private_key(&key).map_err(err)?;
        s.check_private_key().map_err(err)?;
        let client = |groups: Option<&str>, browser: bool| -> Result<SslContext, String> {
            let mut c = SslContextBuilder::new(SslMethod::tls()).map_err(err)?;
            tls13(&mut c)?;
            if let Some(groups) = groups {
                c.set_curves_list(groups).map_err(err)?;
            }
            if browser {
                c.set_grease_enabled(true);
                c.set_permute_extensions(true);
                c.set_alpn_protos(BROWSER_ALPN).map_err(err)?;
                c.enable_ocsp_stapling();
                c.enable_signed_cert_timestamps();
            }
            let mut store = X509StoreBuilder::new().map_err(err)?;
            store
                .add_cert(X509::from_der(&chain.root_der).map_err(err)?)
                .map_err(err)?;
            c.set_verify_cert_store(store.build()).map_err(err)?;
            c.set_verify(SslVerifyMode::PEER);
            c.set_session_cache_mode(SslSessionCacheMode::CLIENT);
            let index = ticket_index()?;
            c.set_new_session_callback(move |ssl, session| ssl.set_ex_data(index, session));
            Ok(c.build())
        };
        let first = match shape {
            HelloShape::Minimal => Some(g.openssl_name),
            HelloShape::Defaults => None,
            HelloShape::Browser => Some(BROWSER_GROUPS),
        };
        Ok(Boring {
            server: s.build(),
            client: client(first, shape == HelloShape::Browser)?,
            hrr_share: g.wrong_guess().codepoint,
            hrr: client(
                Some(&format!(
                    "{}:{}",
                    g.wrong_guess().openssl_name,
                    g.openssl_name
                )),
                false,
            )?,
        })
    }
}

impl Stack for Boring {
    fn kind(&self) -> StackKind {
        StackKind::Boringssl
    }

    fn version(&self) -> String {
        version()
    }

    fn client(&self, mode: Mode, session: Option<Session>) -> Result<Box<dyn Side>, String> {
        let ctx = if mode == Mode::Hrr {
            &self.hrr
        } else {
            &self.client
        };
        let mut ssl = Ssl::new(ctx).map_err(err)?;
        if mode == Mode::Hrr {
            use foreign_types::ForeignType;
            // SAFETY: a live SSL before its handshake; one group id read from the slice.
            let ok =
                unsafe { boring_sys::SSL_set1_client_key_shares(ssl.as_ptr(), &self.hrr_share, 1) };
            if ok != 1 {
                return Err("BoringSSL: cannot send the wrong guess's key share alone".into());
            }
        }
        ssl.set_hostname(SERVER_NAME).map_err(err)?;
        ssl.param_mut().set_host(SERVER_NAME).map_err(err)?;
        if let Some(s) = session.and_then(|s| s.downcast::<SslSession>().ok()) {
            // SAFETY: the session comes from a connection of this same client context.
            unsafe { ssl.set_session(&s) }.map_err(err)?;
        }
        let mut side = Conn::new(ssl, true)?;
        side.drive()?;
        Ok(Box::new(side))
    }

    fn server(&self) -> Result<Box<dyn Side>, String> {
        let ssl = Ssl::new(&self.server).map_err(err)?;
        Ok(Box::new(Conn::new(ssl, false)?))
    }
}

/// A BoringSSL connection of either side over a [`Pipe`].
struct Conn {
    s: SslStream<Pipe>,
    client: bool,
    done: bool,
    app: Vec<u8>,
}

impl Conn {
    fn new(ssl: Ssl, client: bool) -> Result<Conn, String> {
        Ok(Conn {
            s: SslStream::new(ssl, Pipe::default()).map_err(err)?,
            client,
            done: false,
            app: Vec::new(),
        })
    }

    /// Advances the handshake, then reads whatever follows it (tickets, application data).
    fn drive(&mut self) -> Result<(), String> {
        let blocked = |e: &boring::ssl::Error| {
            e.code() == ErrorCode::WANT_READ || e.code() == ErrorCode::WANT_WRITE
        };
        if !self.done {
            let r = if self.client {
                self.s.connect()
            } else {
                self.s.accept()
            };
            match r {
                Ok(()) => self.done = true,
                Err(e) if blocked(&e) => return Ok(()),
                Err(e) => return Err(err(e)),
            }
            if !self.client {
                // BoringSSL's server defers its NewSessionTicket messages over TCP-like
                // transports "until the server performs a write" (tls13_server.cc,
                // do_send_new_session_ticket): a zero-byte write sends them now, as a server
                // does with its first response. (The crate's `ssl_write` returns early on an
                // empty buffer, hence the call itself.)
                use foreign_types::ForeignTypeRef;
                // SAFETY: the SSL is this stream's, alive; a zero-length write reads no buffer.
                let ret =
                    unsafe { boring_sys::SSL_write(self.s.ssl().as_ptr(), std::ptr::null(), 0) };
                if ret < 0 {
                    return Err(format!(
                        "BoringSSL: flushing the session tickets failed ({ret})"
                    ));
                }
            }
            if self.client {
                if let Err(e) = self.s.ssl().verify_result() {
                    return Err(format!("BoringSSL: the certificate did not verify: {e}"));
                }
            }
        }
        let mut buf = [0u8; 4096];
        loop {
            match self.s.ssl_read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => self.app.extend_from_slice(&buf[..n]),
                Err(e) if blocked(&e) || e.code() == ErrorCode::ZERO_RETURN => return Ok(()),
                Err(e) => return Err(err(e)),
            }
        }
    }
}

impl Side for Conn {
    fn receive(&mut self, data: &[u8]) -> Result<(), String> {
        let p = self.s.get_mut();
        p.rx.drain(..p.pos);
        p.pos = 0;
        p.rx.extend_from_slice(data);
        self.drive()
    }

    fn send(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        out.append(&mut self.s.get_mut().tx);
        Ok(())
    }

    fn handshaking(&self) -> bool {
        !self.done
    }

    fn group(&self) -> Option<String> {
        let code = self.s.ssl().curve()?;
        Some(
            Group::by_codepoint(code)
                .map(|g| g.tls_name.to_string())
                .unwrap_or_else(|| format!("0x{code:04x}")),
        )
    }

    fn export(&mut self) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; 32];
        self.s
            .ssl()
            .export_keying_material(&mut out, std::str::from_utf8(EXPORT_LABEL).unwrap(), None)
            .map_err(err)?;
        Ok(out)
    }

    fn resumed(&self) -> bool {
        self.s.ssl().session_reused()
    }

    fn write_app(&mut self, data: &[u8]) -> Result<(), String> {
        self.s.ssl_write(data).map(|_| ()).map_err(err)
    }

    fn read_app(&mut self) -> Result<Vec<u8>, String> {
        Ok(std::mem::take(&mut self.app))
    }

    fn session(&mut self) -> Option<Session> {
        let index = ticket_index().ok()?;
        self.s
            .ssl()
            .ex_data(index)
            .map(|s| Box::new(s.clone()) as Session)
    }
}

fn make(g: &Group, chain: &Chain, shape: HelloShape) -> Result<Box<dyn Stack>, String> {
    Ok(Box::new(Boring::new(g, chain, shape)?))
}

fn main() -> std::process::ExitCode {
    let mut input = Vec::new();
    let job = io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| e.to_string())
        .and_then(|_| {
            serde_json::from_slice::<kembench::tls::worker::Job>(&input).map_err(|e| e.to_string())
        });
    let results = job
        .and_then(|job| kembench::tls::worker::serve(&job, StackKind::Boringssl, &make, &|| false));
    match results.and_then(|r| serde_json::to_vec(&r).map_err(|e| e.to_string())) {
        Ok(bytes) => {
            if io::stdout().write_all(&bytes).is_err() {
                return std::process::ExitCode::from(1);
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("kembench-tls-boring: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
