//! The key-exchange groups `kembench tls` offers, the certificate keys, and the stacks: one
//! table each, from which the command line, the default selection and the checks derive.

/// A TLS 1.3 key-exchange group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// The name in the IANA registry (`X25519MLKEM768`, `secp256r1`).
    pub tls_name: &'static str,
    /// The code point in the ClientHello's and ServerHello's `key_share`.
    pub codepoint: u16,
    /// The algorithm's name in kembench's catalog (`X25519MLKEM768`, `P-256`, `ML-KEM-768`).
    pub algorithm: &'static str,
    /// OpenSSL's name for its groups list.
    pub openssl_name: &'static str,
    /// Measured when `--groups` is not given.
    pub default: bool,
}

/// Every group kembench knows, in the order results are listed.
pub const GROUPS: &[Group] = &[
    Group {
        tls_name: "X25519",
        codepoint: 0x001d,
        algorithm: "X25519",
        openssl_name: "X25519",
        default: true,
    },
    Group {
        tls_name: "secp256r1",
        codepoint: 0x0017,
        algorithm: "P-256",
        openssl_name: "P-256",
        default: true,
    },
    Group {
        tls_name: "secp384r1",
        codepoint: 0x0018,
        algorithm: "P-384",
        openssl_name: "P-384",
        default: true,
    },
    Group {
        tls_name: "X25519MLKEM768",
        codepoint: 0x11ec,
        algorithm: "X25519MLKEM768",
        openssl_name: "X25519MLKEM768",
        default: true,
    },
    Group {
        tls_name: "SecP256r1MLKEM768",
        codepoint: 0x11eb,
        algorithm: "SecP256r1MLKEM768",
        openssl_name: "SecP256r1MLKEM768",
        default: true,
    },
    Group {
        tls_name: "MLKEM768",
        codepoint: 0x0201,
        algorithm: "ML-KEM-768",
        openssl_name: "MLKEM768",
        default: true,
    },
    Group {
        tls_name: "MLKEM1024",
        codepoint: 0x0202,
        algorithm: "ML-KEM-1024",
        openssl_name: "MLKEM1024",
        default: true,
    },
    Group {
        tls_name: "secp521r1",
        codepoint: 0x0019,
        algorithm: "P-521",
        openssl_name: "P-521",
        default: false,
    },
    Group {
        tls_name: "ffdhe2048",
        codepoint: 0x0100,
        algorithm: "ffdhe2048",
        openssl_name: "ffdhe2048",
        default: false,
    },
];

impl Group {
    /// The group named `name` (its TLS name or kembench's algorithm name, any case).
    pub fn find(name: &str) -> Option<&'static Group> {
        GROUPS.iter().find(|g| {
            g.tls_name.eq_ignore_ascii_case(name) || g.algorithm.eq_ignore_ascii_case(name)
        })
    }

    /// The group whose code point is `codepoint`.
    pub fn by_codepoint(codepoint: u16) -> Option<&'static Group> {
        GROUPS.iter().find(|g| g.codepoint == codepoint)
    }

    /// The group whose key share the client sends first in a HelloRetryRequest handshake:
    /// X25519, the most common first guess, or secp256r1 when the group asked for is X25519.
    pub fn wrong_guess(&self) -> &'static Group {
        let other = if self.tls_name == "X25519" {
            "secp256r1"
        } else {
            "X25519"
        };
        Group::find(other).expect("both are in GROUPS")
    }
}

/// The algorithm of one certificate's key (and of the signatures that key makes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAlg {
    /// ECDSA with P-256 and SHA-256 (TLS scheme ecdsa_secp256r1_sha256, 0x0403).
    EcdsaP256,
    /// Ed25519 (0x0807).
    Ed25519,
    /// RSA 2048 (PKCS #1 v1.5 in certificates, RSA-PSS in the handshake).
    Rsa2048,
    /// ML-DSA-44, FIPS 204 (TLS scheme mldsa44, 0x0904).
    MlDsa44,
    /// ML-DSA-65 (0x0905).
    MlDsa65,
    /// ML-DSA-87 (0x0906).
    MlDsa87,
}

impl KeyAlg {
    /// The name used in descriptions (`ML-DSA-65`, `ECDSA P-256`).
    pub fn name(self) -> &'static str {
        match self {
            KeyAlg::EcdsaP256 => "ECDSA P-256",
            KeyAlg::Ed25519 => "Ed25519",
            KeyAlg::Rsa2048 => "RSA 2048",
            KeyAlg::MlDsa44 => "ML-DSA-44",
            KeyAlg::MlDsa65 => "ML-DSA-65",
            KeyAlg::MlDsa87 => "ML-DSA-87",
        }
    }

    /// Whether this is a post-quantum (ML-DSA) key.
    pub fn is_mldsa(self) -> bool {
        matches!(self, KeyAlg::MlDsa44 | KeyAlg::MlDsa65 | KeyAlg::MlDsa87)
    }
}

/// The server's certificate chain: a root, an intermediate and a leaf. Plain kinds use one key
/// algorithm for all three; mixed kinds put the leaf under CAs of another algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CertKind {
    /// ECDSA with P-256 and SHA-256.
    EcdsaP256,
    /// Ed25519.
    Ed25519,
    /// RSA 2048 (PKCS #1 v1.5 signatures in the certificates, RSA-PSS in the handshake).
    Rsa2048,
    /// ML-DSA-44 root, intermediate and leaf.
    MlDsa44,
    /// ML-DSA-65 root, intermediate and leaf.
    MlDsa65,
    /// ML-DSA-87 root, intermediate and leaf.
    MlDsa87,
    /// An ML-DSA-65 leaf under an ECDSA P-256 root and intermediate.
    MlDsa65UnderP256,
    /// An ECDSA P-256 leaf under an ML-DSA-65 root and intermediate.
    P256UnderMlDsa65,
}

impl CertKind {
    /// Every kind.
    pub const ALL: [CertKind; 8] = [
        CertKind::EcdsaP256,
        CertKind::Ed25519,
        CertKind::Rsa2048,
        CertKind::MlDsa44,
        CertKind::MlDsa65,
        CertKind::MlDsa87,
        CertKind::MlDsa65UnderP256,
        CertKind::P256UnderMlDsa65,
    ];

    /// The spelling of the command line and the results.
    pub fn as_str(self) -> &'static str {
        match self {
            CertKind::EcdsaP256 => "ecdsa-p256",
            CertKind::Ed25519 => "ed25519",
            CertKind::Rsa2048 => "rsa2048",
            CertKind::MlDsa44 => "mldsa44",
            CertKind::MlDsa65 => "mldsa65",
            CertKind::MlDsa87 => "mldsa87",
            CertKind::MlDsa65UnderP256 => "mldsa65-under-p256",
            CertKind::P256UnderMlDsa65 => "p256-under-mldsa65",
        }
    }

    /// The kind spelt `s`.
    pub fn parse(s: &str) -> Option<CertKind> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// The key algorithm of the leaf (it signs the handshake's CertificateVerify).
    pub fn leaf(self) -> KeyAlg {
        match self {
            CertKind::EcdsaP256 | CertKind::P256UnderMlDsa65 => KeyAlg::EcdsaP256,
            CertKind::Ed25519 => KeyAlg::Ed25519,
            CertKind::Rsa2048 => KeyAlg::Rsa2048,
            CertKind::MlDsa44 => KeyAlg::MlDsa44,
            CertKind::MlDsa65 | CertKind::MlDsa65UnderP256 => KeyAlg::MlDsa65,
            CertKind::MlDsa87 => KeyAlg::MlDsa87,
        }
    }

    /// The key algorithm of the root and the intermediate (they sign the certificates).
    pub fn ca(self) -> KeyAlg {
        match self {
            CertKind::MlDsa65UnderP256 => KeyAlg::EcdsaP256,
            CertKind::P256UnderMlDsa65 => KeyAlg::MlDsa65,
            k => k.leaf(),
        }
    }
}

/// A TLS stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackKind {
    /// rustls with its aws-lc-rs crypto provider.
    Rustls,
    /// OpenSSL 3.6 from the vendored build.
    Openssl,
    /// BoringSSL through the `boring` crate, in its own worker executable
    /// (`workers/tls-boring`): it cannot be linked beside the vendored OpenSSL.
    Boringssl,
    /// OpenSSL 4.0.3 (openssl-src 400.0.2) through the same `openssl` crate and kembench's
    /// same OpenSSL stack, in its own worker executable (`workers/tls-openssl4`).
    Openssl4,
}

impl StackKind {
    /// Every stack.
    pub const ALL: [StackKind; 4] = [
        StackKind::Rustls,
        StackKind::Openssl,
        StackKind::Boringssl,
        StackKind::Openssl4,
    ];

    /// The spelling of the command line and the results.
    pub fn as_str(self) -> &'static str {
        match self {
            StackKind::Rustls => "rustls",
            StackKind::Openssl => "openssl",
            StackKind::Boringssl => "boringssl",
            StackKind::Openssl4 => "openssl4",
        }
    }

    /// Whether this stack runs in kembench's own process (BoringSSL and OpenSSL 4 run in
    /// workers of their own).
    pub fn in_process(self) -> bool {
        matches!(self, StackKind::Rustls | StackKind::Openssl)
    }

    /// The stack spelt `s`.
    pub fn parse(s: &str) -> Option<StackKind> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// The implementation in kembench's registry whose bare key exchange is this stack's
    /// (`X25519MLKEM768@rustls/aws-lc-rs`).
    /// BoringSSL and OpenSSL 4 have none: kembench's registry has no implementation of theirs.
    pub fn kem_label(self, g: &Group) -> Option<String> {
        match self {
            StackKind::Rustls => Some(format!("{}@rustls/aws-lc-rs", g.algorithm)),
            StackKind::Openssl => Some(format!("{}@openssl", g.algorithm)),
            StackKind::Boringssl | StackKind::Openssl4 => None,
        }
    }
}

/// The environment variable naming a built BoringSSL worker to use instead of building
/// `workers/tls-boring`.
pub const BORING_VAR: &str = "KEMBENCH_TLS_BORING";

/// The environment variable naming a built OpenSSL 4 worker to use instead of building
/// `workers/tls-openssl4`.
pub const OPENSSL4_VAR: &str = "KEMBENCH_TLS_OPENSSL4";

/// A stack that runs in a worker executable of its own, and how that worker is made.
#[derive(Debug, Clone, Copy)]
pub struct Worker {
    /// The stack.
    pub kind: StackKind,
    /// The library's name in messages (`BoringSSL`).
    pub name: &'static str,
    /// The worker's crate under `workers/` (`tls-boring`), also its folder in the build cache.
    pub dir: &'static str,
    /// The executable cargo makes (`kembench-tls-boring`).
    pub exe: &'static str,
    /// The environment variable naming a built worker to use instead.
    pub var: &'static str,
    /// What its first build compiles, said before it starts.
    pub builds: &'static str,
    /// What its first build takes, as measured: said before it starts.
    pub first_build: &'static str,
}

/// The stacks that run in workers of their own.
pub const WORKERS: [Worker; 2] = [
    Worker {
        kind: StackKind::Boringssl,
        name: "BoringSSL",
        dir: "tls-boring",
        exe: "kembench-tls-boring",
        var: BORING_VAR,
        builds: "BoringSSL from source (cmake)",
        first_build: "about 3 minutes on a quiet 2-core machine, less with more cores",
    },
    Worker {
        kind: StackKind::Openssl4,
        name: "OpenSSL 4",
        dir: "tls-openssl4",
        exe: "kembench-tls-openssl4",
        var: OPENSSL4_VAR,
        builds: "OpenSSL 4.0.3 from source (openssl-src 400.0.2), its KEM library",
        first_build: "about 3 minutes on a quiet 2-core machine, less with more cores",
    },
];

impl Worker {
    /// The worker of the stack `kind`, if it runs in one.
    pub fn of(kind: StackKind) -> Option<&'static Worker> {
        WORKERS.iter().find(|w| w.kind == kind)
    }
}

/// The shape of the client's first flight: which groups it offers and which key shares it
/// sends, and what else a real client puts in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HelloShape {
    /// One key share, for the group measured, and only that group offered (kembench's
    /// original hello).
    Minimal,
    /// What the stack sends when configured with its default groups (shares as the stack
    /// chooses them; the server offers only the group measured).
    Defaults,
    /// A hello shaped like current Chrome's: GREASE, X25519MLKEM768 and X25519 shares, ALPN
    /// h2 and http/1.1, permuted extensions; only a stack that produces it natively has it.
    Browser,
}

impl HelloShape {
    /// Every shape.
    pub const ALL: [HelloShape; 3] = [HelloShape::Minimal, HelloShape::Defaults, HelloShape::Browser];

    /// The spelling of the command line, the labels and the results.
    pub fn as_str(self) -> &'static str {
        match self {
            HelloShape::Minimal => "minimal",
            HelloShape::Defaults => "defaults",
            HelloShape::Browser => "browser",
        }
    }

    /// The shape spelt `s`.
    pub fn parse(s: &str) -> Option<HelloShape> {
        Self::ALL.into_iter().find(|h| h.as_str() == s)
    }

    /// `STACK/CERT`, with `/SHAPE` after it when the shape is not minimal: a benchmark's
    /// implementation (`openssl/ecdsa-p256/defaults`).
    pub fn implementation(self, stack: StackKind, cert: &str) -> String {
        match self {
            HelloShape::Minimal => format!("{}/{cert}", stack.as_str()),
            other => format!("{}/{cert}/{}", stack.as_str(), other.as_str()),
        }
    }
}

/// Whether `codepoint` is a GREASE value (RFC 8701: 0x0A0A, 0x1A1A, ... 0xFAFA).
pub fn is_grease(codepoint: u16) -> bool {
    codepoint & 0x0f0f == 0x0a0a && (codepoint >> 8) == (codepoint & 0xff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codepoints_are_unique_and_found() {
        for g in GROUPS {
            assert_eq!(Group::find(g.tls_name), Some(g));
            assert_eq!(Group::find(g.algorithm), Some(g));
            assert_eq!(Group::by_codepoint(g.codepoint), Some(g));
            assert_ne!(g.wrong_guess().codepoint, g.codepoint);
        }
    }

    #[test]
    fn cert_kinds_parse_back_and_mixed_chains_mix() {
        for c in CertKind::ALL {
            assert_eq!(CertKind::parse(c.as_str()), Some(c));
            // A chain is mixed exactly when its name says "under".
            assert_eq!(c.as_str().contains("-under-"), c.leaf() != c.ca(), "{c:?}");
        }
        assert_eq!(CertKind::parse("mldsa66"), None);
        let m = CertKind::parse("mldsa65-under-p256").unwrap();
        assert_eq!((m.leaf(), m.ca()), (KeyAlg::MlDsa65, KeyAlg::EcdsaP256));
        let r = CertKind::parse("p256-under-mldsa65").unwrap();
        assert_eq!((r.leaf(), r.ca()), (KeyAlg::EcdsaP256, KeyAlg::MlDsa65));
        assert!(KeyAlg::MlDsa87.is_mldsa() && !KeyAlg::EcdsaP256.is_mldsa());
    }

    #[test]
    fn grease_values_are_recognised() {
        assert!(is_grease(0x0a0a) && is_grease(0xfafa) && is_grease(0x3a3a));
        assert!(!is_grease(0x11ec) && !is_grease(0x0a1a) && !is_grease(0x001d));
    }

    #[test]
    fn shapes_are_spelt_and_labelled() {
        for h in HelloShape::ALL {
            assert_eq!(HelloShape::parse(h.as_str()), Some(h));
        }
        assert_eq!(HelloShape::parse("chrome"), None);
        assert_eq!(
            HelloShape::Minimal.implementation(StackKind::Rustls, "ed25519"),
            "rustls/ed25519"
        );
        assert_eq!(
            HelloShape::Defaults.implementation(StackKind::Openssl, "ecdsa-p256"),
            "openssl/ecdsa-p256/defaults"
        );
    }

    #[test]
    fn every_group_is_in_the_catalog() {
        for g in GROUPS {
            assert!(
                crate::kem::catalog::find(g.algorithm).is_some(),
                "{} is not in the catalog",
                g.algorithm
            );
        }
    }
}
