//! OpenSSL 3.6 (the vendored build kembench links), or 4.0.3 in `workers/tls-openssl4`, as a
//! server and a client: TLS 1.3 only,
//! OpenSSL's default cipher suites, the group list narrowed to the one measured, the client
//! verifying the chain and the host name against the root, the server issuing OpenSSL's
//! default two stateless tickets per handshake. Bytes go through an in-memory pipe under the
//! `SslStream`, so the same driver runs it in memory and over TCP.

use super::certs::{Chain, SERVER_NAME};
use super::groups::{Group, HelloShape, StackKind};
use super::piped::{Connection, Pipe, PipedSide};
use super::side::{Session, Side, Stack, EXPORT_LABEL};
use crate::record::tls::Mode;
use foreign_types::ForeignTypeRef;
use openssl::ex_data::Index;
use openssl::pkey::PKey;
use openssl::ssl::{
    ErrorCode, ShutdownState, Ssl, SslContext, SslContextBuilder, SslMethod, SslSession,
    SslSessionCacheMode, SslStream, SslVerifyMode, SslVersion,
};
use openssl::x509::store::X509StoreBuilder;
use openssl::x509::{X509VerifyResult, X509};

/// Where a client SSL keeps the newest session its tickets gave it.
fn ticket_index() -> Result<Index<Ssl, SslSession>, String> {
    static INDEX: std::sync::OnceLock<Result<Index<Ssl, SslSession>, String>> =
        std::sync::OnceLock::new();
    INDEX
        .get_or_init(|| Ssl::new_ex_index().map_err(err))
        .clone()
}

/// The OpenSSL stack for one group and chain.
pub struct Openssl {
    server: SslContext,
    client: SslContext,
    hrr: SslContext,
}

fn err(e: impl std::fmt::Display) -> String {
    format!("OpenSSL: {e}")
}

fn tls13(b: &mut SslContextBuilder) -> Result<(), String> {
    b.set_min_proto_version(Some(SslVersion::TLS1_3))
        .map_err(err)?;
    b.set_max_proto_version(Some(SslVersion::TLS1_3))
        .map_err(err)
}

impl Openssl {
    /// The stack for `g` with `chain` and a client hello of `shape`, or why OpenSSL cannot
    /// run it. The defaults hello is a client whose groups list is left at OpenSSL's default
    /// (the server offers only `g`); OpenSSL has no browser hello: it sends no GREASE and does
    /// not permute its extensions.
    pub fn new(g: &Group, chain: &Chain, shape: HelloShape) -> Result<Openssl, String> {
        if shape == HelloShape::Browser {
            return Err(format!(
                "{} cannot send a browser-shaped hello: it has no GREASE (RFC 8701) and \
                 no extension permutation",
                openssl::version::version()
            ));
        }
        let mut s = SslContextBuilder::new(SslMethod::tls_server()).map_err(err)?;
        tls13(&mut s)?;
        s.set_groups_list(g.openssl_name).map_err(|e| {
            format!(
                "OpenSSL {} does not offer the group {}: {e}",
                openssl::version::version(),
                g.tls_name
            )
        })?;
        let leaf = X509::from_der(&chain.leaf_der).map_err(err)?;
        s.set_certificate(&leaf).map_err(err)?;
        s.add_extra_chain_cert(X509::from_der(&chain.intermediate_der).map_err(err)?)
            .map_err(err)?;
        let key = PKey::private_key_from_pkcs8(&chain.leaf_key_pkcs8).map_err(err)?;
        s.set_private_key(&key).map_err(err)?;
        s.check_private_key().map_err(err)?;
        let client = |groups: Option<&str>| -> Result<SslContext, String> {
            let mut c = SslContextBuilder::new(SslMethod::tls_client()).map_err(err)?;
            tls13(&mut c)?;
            if let Some(groups) = groups {
                c.set_groups_list(groups).map_err(err)?;
            }
            let mut store = X509StoreBuilder::new().map_err(err)?;
            store
                .add_cert(X509::from_der(&chain.root_der).map_err(err)?)
                .map_err(err)?;
            c.set_verify_cert_store(store.build()).map_err(err)?;
            c.set_verify(SslVerifyMode::PEER);
            // TLS 1.3 tickets arrive after the handshake; OpenSSL hands each one to this
            // callback (what `s_client -sess_out` does), which keeps the newest on the SSL.
            c.set_session_cache_mode(
                SslSessionCacheMode::CLIENT | SslSessionCacheMode::NO_INTERNAL,
            );
            let index = ticket_index()?;
            c.set_new_session_callback(move |ssl, session| ssl.set_ex_data(index, session));
            Ok(c.build())
        };
        Ok(Openssl {
            server: s.build(),
            client: client((shape == HelloShape::Minimal).then_some(g.openssl_name))?,
            hrr: client(Some(&format!(
                "{}:{}",
                g.wrong_guess().openssl_name,
                g.openssl_name
            )))?,
        })
    }
}

/// The stack's version, for the record.
pub fn version() -> String {
    openssl::version::version().to_string()
}

/// Which stack this is: OpenSSL 3 in kembench's process (the vendored 3.6), OpenSSL 4 in
/// `workers/tls-openssl4`, by the major version of the library linked.
pub fn kind() -> StackKind {
    // OPENSSL_VERSION_NUMBER: 0xMNN00PP0L.
    if openssl::version::number() >> 28 >= 4 {
        StackKind::Openssl4
    } else {
        StackKind::Openssl
    }
}

impl Stack for Openssl {
    fn kind(&self) -> StackKind {
        kind()
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

/// An OpenSSL connection of either side over a [`Pipe`].
struct Conn(SslStream<Pipe>);

impl Conn {
    fn new(ssl: Ssl) -> Result<Conn, String> {
        Ok(Conn(SslStream::new(ssl, Pipe::default()).map_err(err)?))
    }
}

/// Whether OpenSSL waits for the peer.
fn blocked(e: &openssl::ssl::Error) -> bool {
    e.code() == ErrorCode::WANT_READ || e.code() == ErrorCode::WANT_WRITE
}

impl Drop for Conn {
    fn drop(&mut self) {
        // A connection freed without a shutdown makes OpenSSL mark its session not resumable;
        // the connection ends here as if close_notify had been exchanged.
        let state = (ShutdownState::SENT | ShutdownState::RECEIVED).bits();
        // SAFETY: the SSL pointer is valid until the stream drops, after this.
        unsafe { openssl_sys::SSL_set_shutdown(self.0.ssl().as_ptr(), state) };
    }
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
        if client && self.0.ssl().verify_result() != X509VerifyResult::OK {
            return Err(format!(
                "OpenSSL: the certificate did not verify: {}",
                self.0.ssl().verify_result()
            ));
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
        // SAFETY: the SSL pointer is valid for the connection's life; OpenSSL returns a static
        // string or null.
        let name = unsafe { openssl_sys::SSL_get0_group_name(self.0.ssl().as_ptr()) };
        if name.is_null() {
            return None;
        }
        // SAFETY: non-null, NUL-terminated, static in OpenSSL.
        let name = unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy();
        Some(
            Group::find(&name)
                .map(|g| g.tls_name.to_string())
                .unwrap_or_else(|| name.into_owned()),
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
