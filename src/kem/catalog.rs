//! The catalog: every algorithm kembench knows, with its metadata, in one table.
//!
//! `list`, the docs, the tests and `verify` all derive from [`ALGORITHMS`]; the lengths here are
//! checked by tests against the buffers each implementation really produces, and against the
//! metadata liboqs itself declares.

use serde::Serialize;
use std::fmt;

/// The mathematical family of an algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Module-LWE lattices (ML-KEM, Kyber).
    ModuleLattice,
    /// NTRU lattices (NTRU, Streamlined NTRU Prime).
    NtruLattice,
    /// Plain LWE (FrodoKEM).
    UnstructuredLattice,
    /// Error-correcting codes (Classic McEliece, HQC, BIKE).
    CodeBased,
    /// Elliptic-curve Diffie-Hellman.
    EllipticCurve,
    /// Finite-field Diffie-Hellman.
    FiniteField,
    /// A classical and a post-quantum component together.
    Hybrid,
    /// kembench's own mock algorithm, for tests only.
    Test,
    /// A scheme kembench does not know, added from a package (`kembench add`).
    Other,
}

impl Family {
    /// Every family, in display order.
    pub const ALL: [Family; 9] = [
        Family::ModuleLattice,
        Family::NtruLattice,
        Family::UnstructuredLattice,
        Family::CodeBased,
        Family::EllipticCurve,
        Family::FiniteField,
        Family::Hybrid,
        Family::Test,
        Family::Other,
    ];

    /// The kebab-case name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::ModuleLattice => "module-lattice",
            Family::NtruLattice => "ntru-lattice",
            Family::UnstructuredLattice => "unstructured-lattice",
            Family::CodeBased => "code-based",
            Family::EllipticCurve => "elliptic-curve",
            Family::FiniteField => "finite-field",
            Family::Hybrid => "hybrid",
            Family::Test => "test",
            Family::Other => "other",
        }
    }

    /// Parses a family name as [`as_str`](Self::as_str) writes it.
    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Metadata of one algorithm (parameter set).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Algorithm {
    /// Canonical name, e.g. `ML-KEM-768`.
    pub name: &'static str,
    /// Family.
    pub family: Family,
    /// The standard or specification it follows.
    pub standard: &'static str,
    /// Claimed NIST security level (1-5); `None` for classical algorithms.
    pub nist_level: Option<u8>,
    /// Classical security in bits (estimates from the standard or NIST SP 800-57).
    pub classical_bits: u16,
    /// Claimed IND-CCA security.
    pub ind_cca: bool,
    /// Decapsulation of an invalid ciphertext succeeds with a pseudo-random secret.
    pub implicit_rejection: bool,
    /// Public key bytes (for key exchange: the encoded public value).
    pub pk_len: usize,
    /// Secret key bytes (for key exchange: the private scalar or exponent, fixed length).
    pub sk_len: usize,
    /// Ciphertext bytes (for key exchange: the ephemeral public value).
    pub ct_len: usize,
    /// Shared secret bytes.
    pub ss_len: usize,
    /// For a hybrid: its two parts and their order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hybrid: Option<HybridParts>,
}

/// The two parts of a hybrid and their order, as draft-ietf-tls-ecdhe-mlkem lays them out:
/// public key, ciphertext, secret key and shared secret are each the two parts' encodings
/// concatenated in the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HybridParts {
    /// The classical key exchange (a catalog name).
    pub classical: &'static str,
    /// The post-quantum KEM (a catalog name).
    pub post_quantum: &'static str,
    /// Whether the post-quantum part comes first.
    pub post_quantum_first: bool,
}

/// The stack of a thread that handles megabyte keys ([`Algorithm::has_megabyte_keys`]), and
/// so enough for any algorithm's: some Classic McEliece code keeps its keys on the stack or
/// returns them by value.
pub const MEGABYTE_KEYS_STACK: usize = 64 << 20;

/// The stack of a thread that handles only an algorithm without megabyte keys (the usual main
/// thread's limit); a smaller stack is cheaper where one is painted or made per benchmark.
pub const SMALL_KEYS_STACK: usize = 8 << 20;

impl Algorithm {
    /// Whether its keys run to megabytes (Classic McEliece's public keys are 255 KiB to
    /// 1.3 MiB; no other algorithm's reach 100 kB): they need a big stack
    /// ([`Algorithm::stack_size`]) and are costly to keep many of.
    pub fn has_megabyte_keys(&self) -> bool {
        self.pk_len > 100_000
    }

    /// The stack a thread that handles this algorithm's keys needs:
    /// [`MEGABYTE_KEYS_STACK`] or [`SMALL_KEYS_STACK`].
    pub fn stack_size(&self) -> usize {
        if self.has_megabyte_keys() {
            MEGABYTE_KEYS_STACK
        } else {
            SMALL_KEYS_STACK
        }
    }

    /// Bytes a key exchange puts on the wire: public key plus ciphertext.
    pub fn wire_bytes(&self) -> usize {
        self.pk_len + self.ct_len
    }

    /// Whether this is a post-quantum (or hybrid) algorithm rather than classical key exchange.
    pub fn is_post_quantum(&self) -> bool {
        self.nist_level.is_some()
    }

    /// For a hybrid, where its post-quantum ciphertext lies inside the ciphertext.
    ///
    /// # Panics
    /// Panics if a part is not in the catalog (checked by a test).
    pub fn post_quantum_ct(&self) -> Option<std::ops::Range<usize>> {
        let h = self.hybrid?;
        let pq = find(h.post_quantum).expect("hybrid parts are catalog algorithms");
        let start = if h.post_quantum_first {
            0
        } else {
            self.ct_len - pq.ct_len
        };
        Some(start..start + pq.ct_len)
    }
}

/// Builds one catalog row; keeps the table below readable.
#[allow(clippy::too_many_arguments)]
const fn alg(
    name: &'static str,
    family: Family,
    standard: &'static str,
    nist_level: Option<u8>,
    classical_bits: u16,
    cca: bool,
    lens: [usize; 4],
) -> Algorithm {
    Algorithm {
        name,
        family,
        standard,
        nist_level,
        classical_bits,
        ind_cca: cca,
        implicit_rejection: cca,
        pk_len: lens[0],
        sk_len: lens[1],
        ct_len: lens[2],
        ss_len: lens[3],
        hybrid: None,
    }
}

use Family::*;

const FIPS203: &str = "FIPS 203";
const KYBER: &str = "CRYSTALS-Kyber round 3";
const FRODO: &str = "FrodoKEM (NIST round 3)";
const MCE: &str = "Classic McEliece (NIST round 4)";
/// The specification of `HQC-128`/`-192`/`-256`: the 2023 round-4 submission, as liboqs 0.13 and
/// PQClean implement it. Superseded by [`HQC_FIPS207`]; the names stay, so that stored results
/// keep meaning what they meant.
pub const HQC_ROUND4: &str = "HQC round 4 (2023), superseded by the 2025-08-22 spec";
// HQC rows: liboqs 0.13's HQC writes the rejection secret but also returns an error for a
// rejected ciphertext, so callers see an explicit rejection; `verify` checks that behaviour.
/// The specification of `HQC-1`/`-3`/`-5`: HQC's 2025-08-22 specification, the one NIST is
/// standardising as FIPS 207 (initial public draft). Another algorithm than [`HQC_ROUND4`]: other
/// key, ciphertext and secret sizes (32-byte secrets), other known answers, implicit rejection;
/// named as that specification names its parameter sets.
pub const HQC_FIPS207: &str = "HQC 2025-08-22 spec (FIPS 207 draft)";
const BIKE: &str = "BIKE (NIST round 4)";
const NTRU: &str = "NTRU (NIST round 3)";
const SNTRUP: &str = "Streamlined NTRU Prime (NIST round 3)";
const ECDHE_MLKEM: &str = "draft-ietf-tls-ecdhe-mlkem";
const XWING: &str = "draft-connolly-cfrg-xwing-kem-06";

/// Every algorithm kembench knows.
pub static ALGORITHMS: &[Algorithm] = &[
    alg(
        "ML-KEM-512",
        ModuleLattice,
        FIPS203,
        Some(1),
        128,
        true,
        [800, 1632, 768, 32],
    ),
    alg(
        "ML-KEM-768",
        ModuleLattice,
        FIPS203,
        Some(3),
        192,
        true,
        [1184, 2400, 1088, 32],
    ),
    alg(
        "ML-KEM-1024",
        ModuleLattice,
        FIPS203,
        Some(5),
        256,
        true,
        [1568, 3168, 1568, 32],
    ),
    alg(
        "Kyber512",
        ModuleLattice,
        KYBER,
        Some(1),
        128,
        true,
        [800, 1632, 768, 32],
    ),
    alg(
        "Kyber768",
        ModuleLattice,
        KYBER,
        Some(3),
        192,
        true,
        [1184, 2400, 1088, 32],
    ),
    alg(
        "Kyber1024",
        ModuleLattice,
        KYBER,
        Some(5),
        256,
        true,
        [1568, 3168, 1568, 32],
    ),
    alg(
        "ntruhps2048509",
        NtruLattice,
        NTRU,
        Some(1),
        128,
        true,
        [699, 935, 699, 32],
    ),
    alg(
        "ntruhps2048677",
        NtruLattice,
        NTRU,
        Some(3),
        192,
        true,
        [930, 1234, 930, 32],
    ),
    alg(
        "ntruhps4096821",
        NtruLattice,
        NTRU,
        Some(5),
        256,
        true,
        [1230, 1590, 1230, 32],
    ),
    alg(
        "ntruhps40961229",
        NtruLattice,
        NTRU,
        Some(5),
        256,
        true,
        [1842, 2366, 1842, 32],
    ),
    alg(
        "ntruhrss701",
        NtruLattice,
        NTRU,
        Some(3),
        192,
        true,
        [1138, 1450, 1138, 32],
    ),
    alg(
        "ntruhrss1373",
        NtruLattice,
        NTRU,
        Some(5),
        256,
        true,
        [2401, 2983, 2401, 32],
    ),
    alg(
        "sntrup761",
        NtruLattice,
        SNTRUP,
        Some(2),
        153,
        true,
        [1158, 1763, 1039, 32],
    ),
    alg(
        "FrodoKEM-640-AES",
        UnstructuredLattice,
        FRODO,
        Some(1),
        128,
        true,
        [9616, 19888, 9720, 16],
    ),
    alg(
        "FrodoKEM-640-SHAKE",
        UnstructuredLattice,
        FRODO,
        Some(1),
        128,
        true,
        [9616, 19888, 9720, 16],
    ),
    alg(
        "FrodoKEM-976-AES",
        UnstructuredLattice,
        FRODO,
        Some(3),
        192,
        true,
        [15632, 31296, 15744, 24],
    ),
    alg(
        "FrodoKEM-976-SHAKE",
        UnstructuredLattice,
        FRODO,
        Some(3),
        192,
        true,
        [15632, 31296, 15744, 24],
    ),
    alg(
        "FrodoKEM-1344-AES",
        UnstructuredLattice,
        FRODO,
        Some(5),
        256,
        true,
        [21520, 43088, 21632, 32],
    ),
    alg(
        "FrodoKEM-1344-SHAKE",
        UnstructuredLattice,
        FRODO,
        Some(5),
        256,
        true,
        [21520, 43088, 21632, 32],
    ),
    alg(
        "Classic-McEliece-348864",
        CodeBased,
        MCE,
        Some(1),
        128,
        true,
        [261120, 6492, 96, 32],
    ),
    alg(
        "Classic-McEliece-348864f",
        CodeBased,
        MCE,
        Some(1),
        128,
        true,
        [261120, 6492, 96, 32],
    ),
    alg(
        "Classic-McEliece-460896",
        CodeBased,
        MCE,
        Some(3),
        192,
        true,
        [524160, 13608, 156, 32],
    ),
    alg(
        "Classic-McEliece-460896f",
        CodeBased,
        MCE,
        Some(3),
        192,
        true,
        [524160, 13608, 156, 32],
    ),
    alg(
        "Classic-McEliece-6688128",
        CodeBased,
        MCE,
        Some(5),
        256,
        true,
        [1044992, 13932, 208, 32],
    ),
    alg(
        "Classic-McEliece-6688128f",
        CodeBased,
        MCE,
        Some(5),
        256,
        true,
        [1044992, 13932, 208, 32],
    ),
    alg(
        "Classic-McEliece-6960119",
        CodeBased,
        MCE,
        Some(5),
        256,
        true,
        [1047319, 13948, 194, 32],
    ),
    alg(
        "Classic-McEliece-6960119f",
        CodeBased,
        MCE,
        Some(5),
        256,
        true,
        [1047319, 13948, 194, 32],
    ),
    alg(
        "Classic-McEliece-8192128",
        CodeBased,
        MCE,
        Some(5),
        256,
        true,
        [1357824, 14120, 208, 32],
    ),
    alg(
        "Classic-McEliece-8192128f",
        CodeBased,
        MCE,
        Some(5),
        256,
        true,
        [1357824, 14120, 208, 32],
    ),
    Algorithm {
        implicit_rejection: false,
        ..alg(
            "HQC-128",
            CodeBased,
            HQC_ROUND4,
            Some(1),
            128,
            true,
            [2249, 2305, 4433, 64],
        )
    },
    Algorithm {
        implicit_rejection: false,
        ..alg(
            "HQC-192",
            CodeBased,
            HQC_ROUND4,
            Some(3),
            192,
            true,
            [4522, 4586, 8978, 64],
        )
    },
    Algorithm {
        implicit_rejection: false,
        ..alg(
            "HQC-256",
            CodeBased,
            HQC_ROUND4,
            Some(5),
            256,
            true,
            [7245, 7317, 14421, 64],
        )
    },
    // HQC of the 2025-08-22 specification: k-byte message, 16-byte salt, 32-byte secret;
    // sk = ek || dk_pke || sigma || seed (hqc-kem 0.1.0-rc.0, the reference code's KAT files).
    alg(
        "HQC-1",
        CodeBased,
        HQC_FIPS207,
        Some(1),
        128,
        true,
        [2241, 2321, 4433, 32],
    ),
    alg(
        "HQC-3",
        CodeBased,
        HQC_FIPS207,
        Some(3),
        192,
        true,
        [4514, 4602, 8978, 32],
    ),
    alg(
        "HQC-5",
        CodeBased,
        HQC_FIPS207,
        Some(5),
        256,
        true,
        [7237, 7333, 14421, 32],
    ),
    alg(
        "BIKE-L1",
        CodeBased,
        BIKE,
        Some(1),
        128,
        false,
        [1541, 5223, 1573, 32],
    ),
    alg(
        "BIKE-L3",
        CodeBased,
        BIKE,
        Some(3),
        192,
        false,
        [3083, 10105, 3115, 32],
    ),
    alg(
        "BIKE-L5",
        CodeBased,
        BIKE,
        Some(5),
        256,
        false,
        [5122, 16494, 5154, 32],
    ),
    alg(
        "X25519",
        EllipticCurve,
        "RFC 7748",
        None,
        128,
        false,
        [32, 32, 32, 32],
    ),
    alg(
        "X448",
        EllipticCurve,
        "RFC 7748",
        None,
        224,
        false,
        [56, 56, 56, 56],
    ),
    alg(
        "P-256",
        EllipticCurve,
        "FIPS 186-5 / SP 800-56A",
        None,
        128,
        false,
        [65, 32, 65, 32],
    ),
    alg(
        "P-384",
        EllipticCurve,
        "FIPS 186-5 / SP 800-56A",
        None,
        192,
        false,
        [97, 48, 97, 48],
    ),
    alg(
        "P-521",
        EllipticCurve,
        "FIPS 186-5 / SP 800-56A",
        None,
        256,
        false,
        [133, 66, 133, 66],
    ),
    alg(
        "ffdhe2048",
        FiniteField,
        "RFC 7919",
        None,
        103,
        false,
        [256, 256, 256, 256],
    ),
    alg(
        "ffdhe3072",
        FiniteField,
        "RFC 7919",
        None,
        125,
        false,
        [384, 384, 384, 384],
    ),
    alg(
        "ffdhe4096",
        FiniteField,
        "RFC 7919",
        None,
        150,
        false,
        [512, 512, 512, 512],
    ),
    Algorithm {
        // ML-KEM-768 first, then X25519, as in draft-ietf-tls-ecdhe-mlkem; not claimed IND-CCA
        // as a whole (the X25519 half is plain DH), but a tampered ML-KEM part is rejected
        // implicitly. Secret key: OpenSSL's raw private key, the ML-KEM-768 decapsulation key
        // (2400) then the X25519 scalar (32).
        ind_cca: false,
        hybrid: Some(HybridParts {
            classical: "X25519",
            post_quantum: "ML-KEM-768",
            post_quantum_first: true,
        }),
        ..alg(
            "X25519MLKEM768",
            Hybrid,
            ECDHE_MLKEM,
            Some(3),
            192,
            true,
            [1216, 2432, 1120, 64],
        )
    },
    Algorithm {
        // The P-256 part FIRST in shares and secret, unlike X25519MLKEM768: client share =
        // uncompressed point (65) || ML-KEM-768 encapsulation key (1184), server share = point
        // (65) || ciphertext (1088), secret = ECDH x-coordinate (32) || ML-KEM secret (32).
        // Secret key: the length OpenSSL 3.6 gives the raw private key of `SecP256r1MLKEM768`
        // (providers/implementations/keymgmt/mlx_kmgmt.c: the P-256 slot first, its 32-byte
        // scalar, then the 2400-byte ML-KEM-768 decapsulation key), 2432 bytes. OpenSSL 3.6.3
        // reports that length but cannot export or import such a key (its EC part is a BIGNUM
        // parameter, the hybrid code copies octet strings). IND-CCA and rejection as
        // X25519MLKEM768 (a tampered ML-KEM part is rejected implicitly).
        ind_cca: false,
        hybrid: Some(HybridParts {
            classical: "P-256",
            post_quantum: "ML-KEM-768",
            post_quantum_first: false,
        }),
        ..alg(
            "SecP256r1MLKEM768",
            Hybrid,
            ECDHE_MLKEM,
            Some(3),
            192,
            true,
            [1249, 2432, 1153, 64],
        )
    },
    Algorithm {
        // X-Wing is not the TLS hybrid: its layout is ML-KEM-768 then X25519 in the public key
        // (1184 + 32) and the ciphertext (1088 + 32), but its secret key is one 32-byte seed
        // (both parts' keys are expanded from it) and its secret is SHA3-256 over both parts'
        // secrets, the X25519 ciphertext and public key and a label, 32 bytes. `HybridParts`
        // says that every encoding, secret key and secret included, is the parts'
        // concatenated, which X-Wing's are not: it is left `None`, and X-Wing never
        // interoperates with X25519MLKEM768 (another combiner). IND-CCA as a whole (the
        // draft's proof), and a tampered ciphertext gives a pseudo-random secret.
        hybrid: None,
        ..alg(
            "X-Wing",
            Hybrid,
            XWING,
            Some(3),
            192,
            true,
            [1216, 32, 1120, 32],
        )
    },
];

/// The mock provider's algorithm: not in [`ALGORITHMS`], so it appears only when asked for.
pub static MOCK: Algorithm = Algorithm {
    standard: "kembench test fixture (not a real KEM)",
    ..alg("MockKEM", Test, "", Some(1), 0, true, [32, 32, 32, 32])
};

/// Looks an algorithm up by canonical name, ignoring ASCII case.
pub fn find(name: &str) -> Option<&'static Algorithm> {
    ALGORITHMS
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(name))
}

/// The NIST level of the algorithm called `name`, the mock's included (`Some(None)`:
/// classical); `None` when the catalog does not know it.
pub fn level_of(name: &str) -> Option<Option<u8>> {
    if name == MOCK.name {
        Some(MOCK.nist_level)
    } else {
        find(name).map(|a| a.nist_level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_case_insensitively() {
        let mut seen = HashSet::new();
        for a in ALGORITHMS {
            assert!(seen.insert(a.name.to_ascii_lowercase()), "{} twice", a.name);
        }
    }

    #[test]
    fn only_classic_mceliece_has_megabyte_keys_and_the_big_stack() {
        for a in ALGORITHMS {
            let mceliece = a.name.starts_with("Classic-McEliece");
            assert_eq!(a.has_megabyte_keys(), mceliece, "{}", a.name);
            let stack = if mceliece { 64 << 20 } else { 8 << 20 };
            assert_eq!(a.stack_size(), stack, "{}", a.name);
        }
    }

    #[test]
    fn post_quantum_rows_have_levels_and_classical_rows_do_not() {
        for a in ALGORITHMS {
            let classical = matches!(a.family, Family::EllipticCurve | Family::FiniteField);
            assert_ne!(a.family, Family::Test, "{} is a test fixture", a.name);
            assert_eq!(a.nist_level.is_none(), classical, "{}", a.name);
            if let Some(l) = a.nist_level {
                assert!((1..=5).contains(&l), "{}", a.name);
            }
            assert!(a.pk_len > 0 && a.sk_len > 0 && a.ct_len > 0 && a.ss_len > 0);
        }
    }

    #[test]
    fn fips203_sizes_match_the_standard() {
        let m = find("ml-kem-768").unwrap();
        assert_eq!(
            (m.pk_len, m.sk_len, m.ct_len, m.ss_len),
            (1184, 2400, 1088, 32)
        );
        assert_eq!(m.wire_bytes(), 2272);
    }

    #[test]
    fn hybrids_are_their_parts_concatenated() {
        let mut hybrids = 0;
        for a in ALGORITHMS {
            // X-Wing: a hybrid whose secret key and secret are not its parts' (see its row).
            let concatenated = a.family == Family::Hybrid && a.name != "X-Wing";
            assert_eq!(a.hybrid.is_some(), concatenated, "{}", a.name);
            let Some(h) = a.hybrid else { continue };
            hybrids += 1;
            let c = find(h.classical).expect("classical part in the catalog");
            let pq = find(h.post_quantum).expect("post-quantum part in the catalog");
            assert_eq!(c.family, Family::EllipticCurve, "{}", a.name);
            assert!(pq.is_post_quantum() && pq.hybrid.is_none(), "{}", a.name);
            assert_eq!(
                (a.pk_len, a.sk_len, a.ct_len, a.ss_len),
                (
                    c.pk_len + pq.pk_len,
                    c.sk_len + pq.sk_len,
                    c.ct_len + pq.ct_len,
                    c.ss_len + pq.ss_len
                ),
                "{}",
                a.name
            );
            assert_eq!(a.nist_level, pq.nist_level, "{}", a.name);
            let r = a.post_quantum_ct().unwrap();
            assert_eq!(r.len(), pq.ct_len);
            assert_eq!(r.start == 0, h.post_quantum_first, "{}", a.name);
        }
        assert_eq!(hybrids, 2);
        let p = find("secp256r1mlkem768").unwrap();
        assert_eq!((p.pk_len, p.ct_len, p.ss_len), (1249, 1153, 64));
        assert_eq!(p.post_quantum_ct(), Some(65..1153));
        assert_eq!(
            find("X25519MLKEM768").unwrap().post_quantum_ct(),
            Some(0..1088)
        );
        assert_eq!(find("ML-KEM-768").unwrap().post_quantum_ct(), None);
    }

    /// The two HQC specifications are two sets of algorithms, each named as its specification
    /// names its parameter sets, with its own sizes and rejection; the round-4 rows say that
    /// they are superseded.
    #[test]
    fn the_two_hqc_specifications_are_different_algorithms() {
        for (old, new, level) in [
            ("HQC-128", "HQC-1", 1),
            ("HQC-192", "HQC-3", 3),
            ("HQC-256", "HQC-5", 5),
        ] {
            let (o, n) = (find(old).unwrap(), find(new).unwrap());
            assert_eq!(o.standard, HQC_ROUND4);
            assert!(o.standard.contains("round 4 (2023)") && o.standard.contains("superseded"));
            assert_eq!(n.standard, HQC_FIPS207);
            assert!(n.standard.contains("2025-08-22") && n.standard.contains("FIPS 207"));
            assert_eq!((o.nist_level, n.nist_level), (Some(level), Some(level)));
            assert_eq!((o.ss_len, n.ss_len), (64, 32));
            assert_ne!((o.pk_len, o.sk_len), (n.pk_len, n.sk_len));
            assert!(!o.implicit_rejection && n.implicit_rejection);
        }
        assert_eq!(
            ALGORITHMS
                .iter()
                .filter(|a| a.standard.starts_with("HQC"))
                .count(),
            6
        );
    }

    #[test]
    fn x_wing_is_a_hybrid_of_its_own_draft() {
        let x = find("x-wing").unwrap();
        assert_eq!(x.family, Family::Hybrid);
        assert_eq!(x.standard, "draft-connolly-cfrg-xwing-kem-06");
        assert_eq!(
            (x.pk_len, x.sk_len, x.ct_len, x.ss_len),
            (1216, 32, 1120, 32)
        );
        assert_eq!(x.hybrid, None);
        assert_eq!(x.post_quantum_ct(), None);
        assert!(x.ind_cca && x.implicit_rejection);
    }

    #[test]
    fn family_names_round_trip() {
        for f in Family::ALL {
            assert_eq!(Family::parse(f.as_str()), Some(f));
        }
    }
}
