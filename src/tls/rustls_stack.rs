//! rustls 0.23 with its aws-lc-rs crypto provider, as a server and a client built with
//! rustls's own configuration builders: the provider's default cipher suites with its key
//! exchange groups narrowed to the one measured, the client verifying the chain with
//! webpki against the root, the server issuing rustls's default two TLS 1.3 tickets per
//! handshake, stateless (aws-lc-rs `Ticketer`, as OpenSSL's default tickets are).

use super::certs::{Chain, SERVER_NAME};
use super::groups::{Group, HelloShape, StackKind};
use super::side::{Session, Side, Stack, EXPORT_LABEL};
use crate::record::tls::Mode;
use rustls::crypto::aws_lc_rs::{self, kx_group};
use rustls::crypto::{CryptoProvider, SupportedKxGroup};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, HandshakeKind, RootCertStore, ServerConfig};
use rustls::{ServerConnection, SideData};
use std::io::{Read, Write};
use std::sync::Arc;

/// rustls's group object for `g`, when its aws-lc-rs provider has one.
pub fn kx(g: &Group) -> Option<&'static dyn SupportedKxGroup> {
    Some(match g.tls_name {
        "X25519" => kx_group::X25519,
        "secp256r1" => kx_group::SECP256R1,
        "secp384r1" => kx_group::SECP384R1,
        "X25519MLKEM768" => kx_group::X25519MLKEM768,
        "SecP256r1MLKEM768" => kx_group::SECP256R1MLKEM768,
        "MLKEM768" => kx_group::MLKEM768,
        "MLKEM1024" => kx_group::MLKEM1024,
        _ => return None,
    })
}

fn provider(groups: Vec<&'static dyn SupportedKxGroup>) -> Arc<CryptoProvider> {
    Arc::new(CryptoProvider {
        kx_groups: groups,
        ..aws_lc_rs::default_provider()
    })
}

/// The rustls stack for one group and chain.
pub struct Rustls {
    server: Arc<ServerConfig>,
    /// Clients by mode: full (no resumption), resumed (in-memory tickets), HelloRetryRequest.
    full: Arc<ClientConfig>,
    resumed: Arc<ClientConfig>,
    hrr: Arc<ClientConfig>,
}

impl Rustls {
    /// The stack for `g` with `chain` and a client hello of `shape`, or why rustls cannot run
    /// it. The defaults hello is a client with the provider's default groups (the server
    /// offers only `g`); rustls has no browser hello: it sends no GREASE and does not permute
    /// its extensions.
    pub fn new(g: &Group, chain: &Chain, shape: HelloShape) -> Result<Rustls, String> {
        if shape == HelloShape::Browser {
            return Err(
                "rustls cannot send a browser-shaped hello: it has no GREASE (RFC 8701) and no \
                 extension permutation"
                    .into(),
            );
        }
        let group = kx(g).ok_or_else(|| {
            format!(
                "rustls's aws-lc-rs provider has no {} group (it offers X25519, secp256r1, secp384r1, X25519MLKEM768, SecP256r1MLKEM768, MLKEM768, MLKEM1024)",
                g.tls_name
            )
        })?;
        let wrong = kx(g.wrong_guess()).expect("the wrong guesses are rustls groups");
        let err = |e: rustls::Error| format!("rustls: {e}");
        let certs = vec![
            CertificateDer::from(chain.leaf_der.clone()),
            CertificateDer::from(chain.intermediate_der.clone()),
        ];
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(chain.leaf_key_pkcs8.clone()));
        let mut server = ServerConfig::builder_with_provider(provider(vec![group]))
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(err)?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .map_err(err)?;
        server.ticketer = aws_lc_rs::Ticketer::new().map_err(err)?;
        let mut roots = RootCertStore::empty();
        roots
            .add(CertificateDer::from(chain.root_der.clone()))
            .map_err(err)?;
        let roots = Arc::new(roots);
        let client = |groups: Vec<&'static dyn SupportedKxGroup>, resume: bool| {
            let mut c = ClientConfig::builder_with_provider(provider(groups))
                .with_protocol_versions(&[&rustls::version::TLS13])
                .map_err(err)?
                .with_root_certificates(roots.clone())
                .with_no_client_auth();
            if !resume {
                c.resumption = rustls::client::Resumption::disabled();
            }
            Ok::<_, String>(Arc::new(c))
        };
        let first = match shape {
            HelloShape::Defaults => aws_lc_rs::default_provider().kx_groups,
            _ => vec![group],
        };
        Ok(Rustls {
            server: Arc::new(server),
            full: client(first.clone(), false)?,
            resumed: client(first, true)?,
            hrr: client(vec![wrong, group], false)?,
        })
    }
}

/// The stack's version, for the record.
pub fn version() -> String {
    format!(
        "rustls {} (aws-lc-rs {})",
        env!("KEMBENCH_DEP_RUSTLS"),
        env!("KEMBENCH_DEP_AWS_LC_RS")
    )
}

impl Stack for Rustls {
    fn kind(&self) -> StackKind {
        StackKind::Rustls
    }

    fn version(&self) -> String {
        version()
    }

    fn client(&self, mode: Mode, _session: Option<Session>) -> Result<Box<dyn Side>, String> {
        // Resumption goes through the resuming configuration's own ticket store.
        let config = match mode {
            Mode::Full => &self.full,
            Mode::Resumed => &self.resumed,
            Mode::Hrr => &self.hrr,
        };
        let name = ServerName::try_from(SERVER_NAME).map_err(|e| e.to_string())?;
        let c = ClientConnection::new(config.clone(), name).map_err(|e| format!("rustls: {e}"))?;
        Ok(Box::new(Conn(c)))
    }

    fn server(&self) -> Result<Box<dyn Side>, String> {
        let s = ServerConnection::new(self.server.clone()).map_err(|e| format!("rustls: {e}"))?;
        Ok(Box::new(Conn(s)))
    }
}

/// A rustls connection of either side.
struct Conn<C>(C);

impl<C, D> Side for Conn<C>
where
    C: std::ops::DerefMut<Target = rustls::ConnectionCommon<D>>,
    D: SideData,
{
    fn receive(&mut self, mut data: &[u8]) -> Result<(), String> {
        while !data.is_empty() {
            self.0.read_tls(&mut data).map_err(|e| e.to_string())?;
            self.0
                .process_new_packets()
                .map_err(|e| format!("rustls: {e}"))?;
        }
        Ok(())
    }

    fn send(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        while self.0.wants_write() {
            self.0.write_tls(out).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn handshaking(&self) -> bool {
        self.0.is_handshaking()
    }

    fn group(&self) -> Option<String> {
        self.0.negotiated_key_exchange_group().map(|g| {
            let code = u16::from(g.name());
            Group::by_codepoint(code)
                .map(|g| g.tls_name.to_string())
                .unwrap_or_else(|| format!("0x{code:04x}"))
        })
    }

    fn export(&mut self) -> Result<Vec<u8>, String> {
        self.0
            .export_keying_material(vec![0u8; 32], EXPORT_LABEL, None)
            .map_err(|e| format!("rustls: {e}"))
    }

    fn resumed(&self) -> bool {
        self.0.handshake_kind() == Some(HandshakeKind::Resumed)
    }

    fn write_app(&mut self, data: &[u8]) -> Result<(), String> {
        self.0.writer().write_all(data).map_err(|e| e.to_string())
    }

    fn read_app(&mut self) -> Result<Vec<u8>, String> {
        let mut v = Vec::new();
        match self.0.reader().read_to_end(&mut v) {
            Ok(_) => Ok(v),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(v),
            Err(e) => Err(e.to_string()),
        }
    }

    fn session(&mut self) -> Option<Session> {
        None
    }
}
