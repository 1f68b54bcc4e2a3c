//! The operations kembench measures on a KEM ([`Op`]): what one timed call of each is, and which
//! an implementation offers.

use super::Kem;
use serde::{Deserialize, Serialize};

/// What is timed.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    /// Key pair generation: the public key as bytes, the secret key kept as the library's
    /// object (as a TLS endpoint keeps its key share).
    Keygen,
    /// Encapsulation to a public key from the pool, given as bytes (a server parses each
    /// client's fresh key share, so the parse is part of the call).
    Encaps,
    /// Decapsulation of a ciphertext from the pool with a kept secret-key object.
    Decaps,
    /// Key generation, encapsulation and decapsulation as one unit, on kept key objects.
    Exchange,
    /// Rebuilding a secret-key object from its bytes, where the library has such a step
    /// (a key loaded from storage pays it once; the old "decapsulation from bytes" is
    /// `sk-import` + `decaps`).
    SkImport,
    /// Parsing a peer's public key into the library's object, where that is a call of its
    /// own; it is already inside `encaps`, and reported apart so its share is visible.
    PkImport,
}

impl Op {
    /// Every operation, in table order.
    pub const ALL: [Op; 6] = [
        Op::Keygen,
        Op::Encaps,
        Op::Decaps,
        Op::Exchange,
        Op::SkImport,
        Op::PkImport,
    ];

    /// The name used on the command line and in files (`sk-import`).
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Keygen => "keygen",
            Op::Encaps => "encaps",
            Op::Decaps => "decaps",
            Op::Exchange => "exchange",
            Op::SkImport => "sk-import",
            Op::PkImport => "pk-import",
        }
    }

    /// Whether `k` has this operation: the import operations exist only where the library
    /// has a distinct import step.
    pub fn offered_by(self, k: &dyn Kem) -> bool {
        match self {
            Op::SkImport => k.imports().secret_key,
            Op::PkImport => k.imports().public_key,
            _ => true,
        }
    }

    /// Why `k` does not have this operation; `None` when it does.
    pub fn not_offered(self, k: &dyn Kem) -> Option<String> {
        let why = match self {
            _ if self.offered_by(k) => return None,
            Op::SkImport => {
                "no secret-key import of its own (its library takes the secret key as bytes in \
                 each decapsulation, or never gives it out as bytes)"
            }
            Op::PkImport => {
                "no public-key import of its own (encapsulation takes the peer's public key as \
                 bytes)"
            }
            _ => "no such operation",
        };
        Some(format!("{}: {why}", self.as_str()))
    }

    /// When `k` has none of `ops`: what the engines say instead of measuring nothing in
    /// silence (`nothing to measure: sk-import: no secret-key import of its own (...)`).
    pub fn none_offered(ops: &[Op], k: &dyn Kem) -> Option<String> {
        let why: Option<Vec<String>> = ops.iter().map(|op| op.not_offered(k)).collect();
        why.filter(|w| !w.is_empty())
            .map(|w| format!("nothing to measure: {}", w.join("; ")))
    }
}
