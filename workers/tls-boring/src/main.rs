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
use kembench::tls::piped::{Connection, Pipe, PipedSide};
use kembench::tls::side::{Session, Side, Stack, EXPORT_LABEL};

/// The `boring` crate's version (pinned in Cargo.toml).
const BORING_CRATE: &str = "5.4.0";

/// The groups of Chrome's hello, in its order of preference.
const BROWSER_GROUPS: &str = "X25519MLKEM768:X25519:P-256:P-384";

/// ALPN as Chrome sends it: h2, then http/1.1 (length-prefixed).
const BROWSER_ALPN: &[u8] = b"\x02h2\x08http/1.1";

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
        Ok(Box::new(PipedSide::client(Conn::new(ssl)?)?))
    }

    fn server(&self) -> Result<Box<dyn Side>, String> {
        let ssl = Ssl::new(&self.server).map_err(err)?;
        Ok(Box::new(PipedSide::server(Conn::new(ssl)?)))
    }
}

/// A BoringSSL connection of either side over kembench's [`Pipe`].
struct Conn(SslStream<Pipe>);

impl Conn {
    fn new(ssl: Ssl) -> Result<Conn, String> {
        Ok(Conn(SslStream::new(ssl, Pipe::default()).map_err(err)?))
    }
}

/// Whether BoringSSL waits for the peer.
fn blocked(e: &boring::ssl::Error) -> bool {
    e.code() == ErrorCode::WANT_READ || e.code() == ErrorCode::WANT_WRITE
}

impl Connection for Conn {
    fn handshake(&mut self, client: bool) -> Result<bool, String> {
        let r = if client {
            self.0.connect()
        } else {
            self.0.accept()
        };
        match r {
            Ok(()) => Ok(true),
            Err(e) if blocked(&e) => Ok(false),
            Err(e) => Err(err(e)),
        }
    }

    fn completed(&mut self, client: bool) -> Result<(), String> {
        if !client {
            // BoringSSL's server defers its NewSessionTicket messages over TCP-like
            // transports "until the server performs a write" (tls13_server.cc,
            // do_send_new_session_ticket): a zero-byte write sends them now, as a server
            // does with its first response. (The crate's `ssl_write` returns early on an
            // empty buffer, hence the call itself.)
            use foreign_types::ForeignTypeRef;
            // SAFETY: the SSL is this stream's, alive; a zero-length write reads no buffer.
            let ret = unsafe { boring_sys::SSL_write(self.0.ssl().as_ptr(), std::ptr::null(), 0) };
            if ret < 0 {
                return Err(format!(
                    "BoringSSL: flushing the session tickets failed ({ret})"
                ));
            }
        }
        if client {
            if let Err(e) = self.0.ssl().verify_result() {
                return Err(format!("BoringSSL: the certificate did not verify: {e}"));
            }
        }
        Ok(())
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<Option<usize>, String> {
        match self.0.ssl_read(buf) {
            Ok(n) => Ok(Some(n)),
            Err(e) if blocked(&e) || e.code() == ErrorCode::ZERO_RETURN => Ok(None),
            Err(e) => Err(err(e)),
        }
    }

    fn write(&mut self, data: &[u8]) -> Result<(), String> {
        self.0.ssl_write(data).map(|_| ()).map_err(err)
    }

    fn pipe(&mut self) -> &mut Pipe {
        self.0.get_mut()
    }

    fn group(&self) -> Option<String> {
        let code = self.0.ssl().curve()?;
        Some(
            Group::by_codepoint(code)
                .map(|g| g.tls_name.to_string())
                .unwrap_or_else(|| format!("0x{code:04x}")),
        )
    }

    fn export(&mut self) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; 32];
        self.0
            .ssl()
            .export_keying_material(&mut out, std::str::from_utf8(EXPORT_LABEL).unwrap(), None)
            .map_err(err)?;
        Ok(out)
    }

    fn resumed(&self) -> bool {
        self.0.ssl().session_reused()
    }

    fn session(&mut self) -> Option<Session> {
        let index = ticket_index().ok()?;
        self.0
            .ssl()
            .ex_data(index)
            .map(|s| Box::new(s.clone()) as Session)
    }
}

fn make(g: &Group, chain: &Chain, shape: HelloShape) -> Result<Box<dyn Stack>, String> {
    Ok(Box::new(Boring::new(g, chain, shape)?))
}

fn main() -> std::process::ExitCode {
    kembench::tls::worker::serve_stdio("kembench-tls-boring", StackKind::Boringssl, &make)
}
