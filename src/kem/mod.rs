//! The one KEM interface every implementation is adapted to, its metadata and its errors.
//!
//! Classical key exchange is modelled as a KEM in the DHKEM sense, with the TLS 1.3 roles:
//! `keypair` makes the receiver's key pair, `encaps` makes an ephemeral key pair and derives
//! (the ciphertext is the ephemeral public key), `decaps` derives with the receiver's secret key.
//! The shared secret is the raw (EC)DH output, as TLS 1.3 feeds it to its key schedule.
//!
//! [`nist_kat`] is the format of [`Kem::known_answer_transcript`]: the providers write it,
//! `verify` reads it back.

pub mod catalog;
pub mod nist_kat;
mod op;

pub use op::Op;

use std::any::Any;
use std::fmt;

pub use catalog::{Algorithm, Family, MEGABYTE_KEYS_STACK, SMALL_KEYS_STACK};

/// Errors an implementation reports; never a panic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KemError {
    /// A buffer or input had the wrong length.
    #[error("{what} has {got} bytes, expected {expected}")]
    InvalidLength {
        /// Which buffer: "public key", "secret key", "ciphertext", ...
        what: &'static str,
        /// The catalog's length.
        expected: usize,
        /// The length that was passed.
        got: usize,
    },
    /// The implementation rejected an input (for example a point not on the curve).
    #[error("input rejected: {0}")]
    Rejected(String),
    /// The implementation reported an internal failure.
    #[error("implementation failure: {0}")]
    Failure(String),
    /// The implementation does not offer this operation (derandomized operations).
    #[error("operation not supported by this implementation")]
    Unsupported,
}

/// A secret key as its library keeps it in memory: an opaque, provider-owned object.
///
/// A TLS endpoint generates its key share and keeps the key object until the peer answers; it
/// never rebuilds the key from bytes. Decapsulation therefore takes this object, and the cost of
/// rebuilding it from bytes is an operation of its own (`sk-import`). Providers whose library
/// works on byte strings keep the bytes (`Vec<u8>`), which is what those libraries themselves
/// take.
pub struct SecretKey(Box<dyn Any + Send>);

impl SecretKey {
    /// Wraps a provider's key object.
    pub fn new<T: Any + Send>(key: T) -> Self {
        SecretKey(Box::new(key))
    }

    /// The provider's key object; an error if another provider made this key.
    pub fn get<T: Any>(&self) -> Result<&T, KemError> {
        self.0.downcast_ref().ok_or_else(foreign_key)
    }

    /// The provider's key object, mutably (single-use keys are taken out of it).
    pub fn get_mut<T: Any>(&mut self) -> Result<&mut T, KemError> {
        self.0.downcast_mut().ok_or_else(foreign_key)
    }
}

fn foreign_key() -> KemError {
    KemError::Failure("secret key object made by another implementation".into())
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the key material.
        f.write_str("SecretKey(..)")
    }
}

/// Which import steps a library has apart from the operations themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Imports {
    /// Turning secret-key bytes into the library's key object does work of its own (a parse,
    /// a public-key recomputation, a self-test): measured as `sk-import`.
    pub secret_key: bool,
    /// Turning a peer's public-key bytes into the library's key object is a call of its own
    /// (measured as `pk-import`; encapsulation includes it, as a server pays it per handshake).
    pub public_key: bool,
}

impl Imports {
    /// No distinct import step: the library takes byte strings.
    pub const NONE: Imports = Imports {
        secret_key: false,
        public_key: false,
    };
}

/// What one (algorithm, implementation) pair is.
#[derive(Debug, Clone)]
pub struct ImplMeta {
    /// The algorithm, from the catalog.
    pub algorithm: &'static Algorithm,
    /// Implementation id, `provider` or `provider/variant` (e.g. `pqclean/avx2`).
    pub implementation: String,
    /// The provider's exact version (crate and upstream library).
    pub version: String,
    /// How the code path is chosen, e.g. "run-time CPU dispatch" or "AVX2 forced".
    pub dispatch: &'static str,
}

impl ImplMeta {
    /// Builds metadata for the named catalog algorithm.
    ///
    /// # Panics
    /// Panics if `algorithm` is not in the catalog: provider tables are checked by tests.
    pub fn new(
        algorithm: &str,
        implementation: &str,
        version: &str,
        dispatch: &'static str,
    ) -> Self {
        ImplMeta {
            algorithm: catalog::find(algorithm)
                .unwrap_or_else(|| panic!("{algorithm} is not in the catalog")),
            implementation: implementation.to_string(),
            version: version.to_string(),
            dispatch,
        }
    }

    /// The provider part of the implementation id (`pqclean` for `pqclean/avx2`).
    pub fn provider(&self) -> &str {
        self.implementation
            .split('/')
            .next()
            .unwrap_or(&self.implementation)
    }

    /// `algorithm@implementation`, the label used in tables and errors.
    pub fn label(&self) -> String {
        format!("{}@{}", self.algorithm.name, self.implementation)
    }
}

/// How a build that kembench compiled at run time was made (`kembench builds`), recorded in the
/// environment of every run that measures it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BuildFacts {
    /// The implementation id, e.g. `pqclean/clean@gcc-12:O3+march=native`.
    pub implementation: String,
    /// The source it was compiled from, e.g. `pqclean/clean`.
    pub source: String,
    /// The source's version, e.g. "PQClean via pqcrypto-mlkem 0.1.1".
    pub source_version: String,
    /// SHA-256 over the source files compiled (paths and contents).
    pub source_sha256: String,
    /// The compiler's short name, e.g. `gcc-12`.
    pub compiler: String,
    /// The first line of the compiler's `--version`.
    pub compiler_version: String,
    /// The flag set asked for, exactly as given (e.g. `-O3 -march=native`).
    pub flags: String,
    /// Flags the source itself needs, added after the flag set (e.g. `-mavx2` for AVX2 code).
    pub required_flags: Vec<String>,
    /// CPU features the build targets, from the compiler's predefined macros (e.g. `avx2`).
    pub targets: Vec<String>,
    /// Whether the build passed the correctness gate, and what it found.
    pub gate: Gate,
    /// The foreign architecture it was cross-compiled for (`s390x`), run under QEMU; absent
    /// for the host's own builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
}

impl BuildFacts {
    /// The flag set as a version line says it: the flags, or "no flags".
    pub fn flags_said(&self) -> &str {
        if self.flags.is_empty() {
            "no flags"
        } else {
            &self.flags
        }
    }

    /// Whether the flag set asks for no optimisation (`-O0`, or no `-O` at all): figures from
    /// such a build are labelled as unoptimised and never serve as a baseline by default.
    pub fn unoptimised(&self) -> bool {
        flags_unoptimised(&self.flags)
    }
}

/// Whether a compiler flag set asks for no optimisation: its last `-O` is `-O0`, or it has none.
pub fn flags_unoptimised(flags: &str) -> bool {
    match flags.split_whitespace().rev().find(|w| w.starts_with("-O")) {
        None => true,
        Some(o) => o == "-O0",
    }
}

/// The correctness gate's verdict on a build.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "gate", content = "detail", rename_all = "kebab-case")]
pub enum Gate {
    /// Not run yet (the build was just compiled).
    NotRun,
    /// Every `verify` check passed or did not apply; the detail lists what ran.
    Passed(String),
    /// A check failed: which and why.
    Failed(String),
}

/// Seed lengths of the derandomized operations of an implementation (`None`: not offered).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedLens {
    /// Bytes taken by deterministic key generation (64 for ML-KEM: d || z).
    pub keypair: Option<usize>,
    /// Bytes taken by deterministic encapsulation (32 for ML-KEM: m).
    pub encaps: Option<usize>,
}

impl SeedLens {
    /// No derandomized operation.
    pub const NONE: SeedLens = SeedLens {
        keypair: None,
        encaps: None,
    };
    /// FIPS 203: key generation from d || z, encapsulation from m.
    pub const ML_KEM: SeedLens = SeedLens {
        keypair: Some(64),
        encaps: Some(32),
    };
}

/// How `profile` makes an implementation's random draws repeatable (see
/// [`Kem::fix_randomness`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "randomness", content = "how", rename_all = "kebab-case")]
pub enum Randomness {
    /// Every draw of the randomized operations (keygen, encaps, decaps) now comes from the seed,
    /// by the mechanism stated.
    Fixed(String),
    /// The draws cannot be fixed in-process; why, and which operations are still repeatable
    /// (through the derandomized entry points, or because they draw nothing).
    NotFixed(String),
}

impl Randomness {
    /// Whether the draws are fixed.
    pub fn is_fixed(&self) -> bool {
        matches!(self, Randomness::Fixed(_))
    }

    /// The mechanism, or why there is none.
    pub fn how(&self) -> &str {
        match self {
            Randomness::Fixed(s) | Randomness::NotFixed(s) => s,
        }
    }
}

/// One KEM implementation, over byte slices.
///
/// Implementors write the `*_raw` methods and may assume that every buffer already has the
/// catalog's length: the checked entry points on `dyn Kem` ([`keypair`](trait.Kem.html#method.keypair)
/// and friends) validate lengths first, so that no implementation can be handed a short buffer.
pub trait Kem: Send + Sync {
    /// What this implementation is.
    fn meta(&self) -> &ImplMeta;

    /// Generates a key pair into `pk` and `sk`.
    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError>;

    /// Encapsulates to `pk`, writing the ciphertext and the shared secret.
    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError>;

    /// Decapsulates `ct` with `sk`, writing the shared secret.
    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError>;

    /// Generates a key pair, writing the public key and keeping the secret key as the
    /// library's object. The default keeps the bytes of [`keypair_raw`](Self::keypair_raw).
    fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
        let mut sk = vec![0; self.meta().algorithm.sk_len];
        self.keypair_raw(pk, &mut sk)?;
        Ok(SecretKey::new(sk))
    }

    /// Whether kept secret keys are the bytes of the default
    /// [`keypair_kept_raw`](Self::keypair_kept_raw) and nothing else (liboqs, PQClean, builds):
    /// [`keypair_again`](trait.Kem.html#method.keypair_again) then writes each new key over the
    /// previous key's bytes.
    fn keeps_bytes(&self) -> bool {
        false
    }

    /// Decapsulates `ct` with a kept secret key. The default reads the kept bytes.
    fn decaps_kept_raw(
        &self,
        sk: &mut SecretKey,
        ct: &[u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        self.decaps_raw(sk.get::<Vec<u8>>()?, ct, ss)
    }

    /// Rebuilds a kept secret key from its bytes (`sk` has the catalog's length).
    fn sk_import_raw(&self, sk: &[u8]) -> Result<SecretKey, KemError> {
        Ok(SecretKey::new(sk.to_vec()))
    }

    /// Writes a kept secret key's bytes; [`KemError::Unsupported`] where the library cannot.
    fn sk_export_raw(&self, sk: &SecretKey, out: &mut [u8]) -> Result<(), KemError> {
        out.copy_from_slice(sk.get::<Vec<u8>>()?);
        Ok(())
    }

    /// Parses a peer's public key into the library's object and drops it (the `pk-import`
    /// operation); only called when [`imports`](Self::imports) says the step exists.
    fn pk_import_raw(&self, _pk: &[u8]) -> Result<(), KemError> {
        Err(KemError::Unsupported)
    }

    /// The import steps this library has apart from the operations.
    fn imports(&self) -> Imports {
        Imports::NONE
    }

    /// Whether a kept secret key can decapsulate only once (ephemeral key shares, as rustls's
    /// key-exchange groups hold them). Timing then prepares a fresh key for every call.
    fn single_use_keys(&self) -> bool {
        false
    }

    /// The (pk, sk, ct, ss) lengths the library itself declares, where it declares them.
    fn declared_lens(&self) -> Option<[usize; 4]> {
        None
    }

    /// The NIST-format known-answer transcript ([`nist_kat`]) of `entries` entries, for
    /// implementations that can reproduce their library's published KAT files in-process
    /// (liboqs).
    fn known_answer_transcript(&self, _entries: usize) -> Option<Result<String, KemError>> {
        None
    }

    /// The SHA-256 of this implementation's first NIST KAT entry as its own source package
    /// publishes it, and where that figure comes from (PQClean's `META.yml` `nistkat-sha256`).
    /// Checked against [`known_answer_transcript`](Self::known_answer_transcript)`(1)`.
    fn known_answer_digest(&self) -> Option<(String, String)> {
        None
    }

    /// The NIST KAT response file (`PQCkemKAT_<sk bytes>.rsp`) the implementation's own package
    /// ships, regenerated through [`known_answer_transcript`](Self::known_answer_transcript) and
    /// compared entry by entry.
    fn known_answer_file(&self) -> Option<std::path::PathBuf> {
        None
    }

    /// For a build kembench compiled at run time: how it was made and whether it passed the gate.
    fn build(&self) -> Option<&BuildFacts> {
        None
    }

    /// Seed lengths of the derandomized operations the implementation offers.
    fn seed_lens(&self) -> SeedLens {
        SeedLens::NONE
    }

    /// Deterministic key generation from `seed`.
    fn keypair_derand_raw(
        &self,
        _seed: &[u8],
        _pk: &mut [u8],
        _sk: &mut [u8],
    ) -> Result<(), KemError> {
        Err(KemError::Unsupported)
    }

    /// Makes the random draws of the randomized operations (`keypair*`, `encaps`, `decaps`)
    /// come from `seed`, where the library allows it, and says how or why not.
    ///
    /// Meant for a fresh `profile` worker process, called once before anything is measured: it
    /// may install process-global generators into libraries (liboqs's `randombytes`, OpenSSL's
    /// random provider, aws-lc's entropy source) and leaves them installed for the life of the
    /// process. Calling it again restarts the draws from the new seed. The derandomized entry
    /// points ([`seed_lens`](Self::seed_lens)) take their randomness as arguments and are not
    /// affected; this covers every other draw. The default fixes nothing.
    fn fix_randomness(&self, _seed: &[u8; 32]) -> Randomness {
        Randomness::NotFixed("this implementation declares no way to fix its random draws".into())
    }

    /// Deterministic encapsulation with randomness `seed`.
    fn encaps_derand_raw(
        &self,
        _pk: &[u8],
        _seed: &[u8],
        _ct: &mut [u8],
        _ss: &mut [u8],
    ) -> Result<(), KemError> {
        Err(KemError::Unsupported)
    }
}

/// Fails with [`KemError::InvalidLength`] unless `got == expected`.
pub fn check_len(what: &'static str, got: usize, expected: usize) -> Result<(), KemError> {
    if got == expected {
        Ok(())
    } else {
        Err(KemError::InvalidLength {
            what,
            expected,
            got,
        })
    }
}

impl<'a> dyn Kem + 'a {
    /// Generates a key pair into caller buffers of the catalog's lengths.
    pub fn keypair(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        let a = self.meta().algorithm;
        check_len("public key buffer", pk.len(), a.pk_len)?;
        check_len("secret key buffer", sk.len(), a.sk_len)?;
        self.keypair_raw(pk, sk)
    }

    /// Encapsulates to `pk` into caller buffers of the catalog's lengths.
    pub fn encaps(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        let a = self.meta().algorithm;
        check_len("public key", pk.len(), a.pk_len)?;
        check_len("ciphertext buffer", ct.len(), a.ct_len)?;
        check_len("shared secret buffer", ss.len(), a.ss_len)?;
        self.encaps_raw(pk, ct, ss)
    }

    /// Decapsulates `ct` with `sk` into a caller buffer of the catalog's length.
    pub fn decaps(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        let a = self.meta().algorithm;
        check_len("secret key", sk.len(), a.sk_len)?;
        check_len("ciphertext", ct.len(), a.ct_len)?;
        check_len("shared secret buffer", ss.len(), a.ss_len)?;
        self.decaps_raw(sk, ct, ss)
    }

    /// Deterministic key generation; [`KemError::Unsupported`] when not offered.
    pub fn keypair_derand(
        &self,
        seed: &[u8],
        pk: &mut [u8],
        sk: &mut [u8],
    ) -> Result<(), KemError> {
        let want = self.seed_lens().keypair.ok_or(KemError::Unsupported)?;
        let a = self.meta().algorithm;
        check_len("key generation seed", seed.len(), want)?;
        check_len("public key buffer", pk.len(), a.pk_len)?;
        check_len("secret key buffer", sk.len(), a.sk_len)?;
        self.keypair_derand_raw(seed, pk, sk)
    }

    /// Deterministic encapsulation; [`KemError::Unsupported`] when not offered.
    pub fn encaps_derand(
        &self,
        pk: &[u8],
        seed: &[u8],
        ct: &mut [u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        let want = self.seed_lens().encaps.ok_or(KemError::Unsupported)?;
        let a = self.meta().algorithm;
        check_len("encapsulation seed", seed.len(), want)?;
        check_len("public key", pk.len(), a.pk_len)?;
        check_len("ciphertext buffer", ct.len(), a.ct_len)?;
        check_len("shared secret buffer", ss.len(), a.ss_len)?;
        self.encaps_derand_raw(pk, seed, ct, ss)
    }

    /// Generates a key pair, keeping the secret key as the library's object.
    pub fn keypair_kept(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
        check_len("public key buffer", pk.len(), self.meta().algorithm.pk_len)?;
        self.keypair_kept_raw(pk)
    }

    /// Generates a key pair in place of the key `kept` holds, which is no longer needed: what a
    /// program that makes one key after another does (`keygen` is timed this way). Where
    /// [`Kem::keeps_bytes`], [`Kem::keypair_raw`] writes the new secret key over the previous
    /// key's buffer, with no allocation, zeroing or new box, as a C program reuses the buffer it
    /// owns; otherwise (or without a previous key of that shape) the previous key is freed first
    /// and a new one kept from [`Kem::keypair_kept_raw`]. Returns the new key; on an error the
    /// previous key is gone too.
    pub fn keypair_again<'k>(
        &self,
        pk: &mut [u8],
        kept: &'k mut Option<SecretKey>,
    ) -> Result<&'k mut SecretKey, KemError> {
        let a = self.meta().algorithm;
        check_len("public key buffer", pk.len(), a.pk_len)?;
        if self.keeps_bytes() {
            let previous = kept
                .as_mut()
                .and_then(|key| key.get_mut::<Vec<u8>>().ok())
                .filter(|sk| sk.len() == a.sk_len);
            if let Some(sk) = previous {
                if let Err(e) = self.keypair_raw(pk, sk) {
                    *kept = None;
                    return Err(e);
                }
                return Ok(kept.as_mut().expect("a key was just written into it"));
            }
        }
        *kept = None;
        Ok(kept.insert(self.keypair_kept_raw(pk)?))
    }

    /// Decapsulates `ct` with a kept secret key into a buffer of the catalog's length.
    pub fn decaps_kept(
        &self,
        sk: &mut SecretKey,
        ct: &[u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        let a = self.meta().algorithm;
        check_len("ciphertext", ct.len(), a.ct_len)?;
        check_len("shared secret buffer", ss.len(), a.ss_len)?;
        self.decaps_kept_raw(sk, ct, ss)
    }

    /// Rebuilds a kept secret key from its bytes.
    pub fn sk_import(&self, sk: &[u8]) -> Result<SecretKey, KemError> {
        check_len("secret key", sk.len(), self.meta().algorithm.sk_len)?;
        self.sk_import_raw(sk)
    }

    /// A kept secret key's bytes, where the library can export them.
    pub fn sk_export(&self, sk: &SecretKey) -> Result<Vec<u8>, KemError> {
        let mut out = vec![0; self.meta().algorithm.sk_len];
        self.sk_export_raw(sk, &mut out)?;
        Ok(out)
    }

    /// Parses a peer's public key into the library's object (the `pk-import` operation);
    /// [`KemError::Unsupported`] when the library has no such step.
    pub fn pk_import(&self, pk: &[u8]) -> Result<(), KemError> {
        if !self.imports().public_key {
            return Err(KemError::Unsupported);
        }
        check_len("public key", pk.len(), self.meta().algorithm.pk_len)?;
        self.pk_import_raw(pk)
    }

    /// Convenience: a fresh key pair with a kept secret key.
    pub fn keypair_kept_vec(&self) -> Result<(Vec<u8>, SecretKey), KemError> {
        let mut pk = vec![0; self.meta().algorithm.pk_len];
        let sk = self.keypair_kept(&mut pk)?;
        Ok((pk, sk))
    }

    /// Convenience: decapsulation with a kept key to an owned vector.
    pub fn decaps_kept_vec(&self, sk: &mut SecretKey, ct: &[u8]) -> Result<Vec<u8>, KemError> {
        let mut ss = vec![0; self.meta().algorithm.ss_len];
        self.decaps_kept(sk, ct, &mut ss)?;
        Ok(ss)
    }

    /// Convenience: a fresh key pair as owned vectors.
    pub fn keypair_vec(&self) -> Result<(Vec<u8>, Vec<u8>), KemError> {
        let a = self.meta().algorithm;
        let (mut pk, mut sk) = (vec![0; a.pk_len], vec![0; a.sk_len]);
        self.keypair(&mut pk, &mut sk)?;
        Ok((pk, sk))
    }

    /// Convenience: encapsulation to owned vectors `(ct, ss)`.
    pub fn encaps_vec(&self, pk: &[u8]) -> Result<(Vec<u8>, Vec<u8>), KemError> {
        let a = self.meta().algorithm;
        let (mut ct, mut ss) = (vec![0; a.ct_len], vec![0; a.ss_len]);
        self.encaps(pk, &mut ct, &mut ss)?;
        Ok((ct, ss))
    }

    /// Convenience: decapsulation to an owned vector.
    pub fn decaps_vec(&self, sk: &[u8], ct: &[u8]) -> Result<Vec<u8>, KemError> {
        let mut ss = vec![0; self.meta().algorithm.ss_len];
        self.decaps(sk, ct, &mut ss)?;
        Ok(ss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library that must never be called: every entry point panics.
    struct Untouchable(ImplMeta);

    impl Kem for Untouchable {
        fn meta(&self) -> &ImplMeta {
            &self.0
        }
        fn keypair_raw(&self, _: &mut [u8], _: &mut [u8]) -> Result<(), KemError> {
            panic!("keypair reached the library")
        }
        fn encaps_raw(&self, _: &[u8], _: &mut [u8], _: &mut [u8]) -> Result<(), KemError> {
            panic!("encaps reached the library")
        }
        fn decaps_raw(&self, _: &[u8], _: &[u8], _: &mut [u8]) -> Result<(), KemError> {
            panic!("decaps reached the library")
        }
        fn keypair_kept_raw(&self, _: &mut [u8]) -> Result<SecretKey, KemError> {
            panic!("keypair (kept) reached the library")
        }
        fn decaps_kept_raw(
            &self,
            _: &mut SecretKey,
            _: &[u8],
            _: &mut [u8],
        ) -> Result<(), KemError> {
            panic!("decaps (kept) reached the library")
        }
        fn sk_import_raw(&self, _: &[u8]) -> Result<SecretKey, KemError> {
            panic!("sk-import reached the library")
        }
        fn pk_import_raw(&self, _: &[u8]) -> Result<(), KemError> {
            panic!("pk-import reached the library")
        }
        fn imports(&self) -> Imports {
            Imports {
                secret_key: true,
                public_key: true,
            }
        }
        fn seed_lens(&self) -> SeedLens {
            SeedLens {
                keypair: Some(64),
                encaps: Some(32),
            }
        }
    }

    /// The guard in front of every implementation (what `verify`'s bad-lengths check
    /// exercises on each real one): a wrong length of any input or buffer, one byte short or
    /// long, is a length error naming it, and the library is never called.
    #[test]
    fn a_wrong_length_never_reaches_the_library() {
        let a = catalog::find("ML-KEM-768").unwrap();
        let k = Untouchable(ImplMeta {
            algorithm: a,
            implementation: "untouchable".into(),
            version: String::new(),
            dispatch: "",
        });
        let k: &dyn Kem = &k;
        for d in [-1isize, 1] {
            let n = |len: usize| vec![0u8; (len as isize + d) as usize];
            let (pk, sk, ct, ss) = (a.pk_len, a.sk_len, a.ct_len, a.ss_len);
            let mut kept = SecretKey::new(());
            let calls: Vec<(&str, Result<(), KemError>)> = vec![
                ("public key buffer", k.keypair(&mut n(pk), &mut vec![0; sk])),
                ("secret key buffer", k.keypair(&mut vec![0; pk], &mut n(sk))),
                (
                    "public key",
                    k.encaps(&n(pk), &mut vec![0; ct], &mut vec![0; ss]),
                ),
                (
                    "ciphertext buffer",
                    k.encaps(&vec![0; pk], &mut n(ct), &mut vec![0; ss]),
                ),
                (
                    "shared secret buffer",
                    k.encaps(&vec![0; pk], &mut vec![0; ct], &mut n(ss)),
                ),
                (
                    "secret key",
                    k.decaps(&n(sk), &vec![0; ct], &mut vec![0; ss]),
                ),
                (
                    "ciphertext",
                    k.decaps(&vec![0; sk], &n(ct), &mut vec![0; ss]),
                ),
                (
                    "shared secret buffer",
                    k.decaps(&vec![0; sk], &vec![0; ct], &mut n(ss)),
                ),
                ("public key buffer", k.keypair_kept(&mut n(pk)).map(drop)),
                (
                    "public key buffer",
                    k.keypair_again(&mut n(pk), &mut Some(SecretKey::new(vec![0u8; sk])))
                        .map(drop),
                ),
                (
                    "ciphertext",
                    k.decaps_kept(&mut kept, &n(ct), &mut vec![0; ss]),
                ),
                (
                    "shared secret buffer",
                    k.decaps_kept(&mut kept, &vec![0; ct], &mut n(ss)),
                ),
                ("secret key", k.sk_import(&n(sk)).map(drop)),
                ("public key", k.pk_import(&n(pk))),
                (
                    "key generation seed",
                    k.keypair_derand(&n(64), &mut vec![0; pk], &mut vec![0; sk]),
                ),
                (
                    "encapsulation seed",
                    k.encaps_derand(&vec![0; pk], &n(32), &mut vec![0; ct], &mut vec![0; ss]),
                ),
            ];
            for (what, r) in calls {
                match r {
                    Err(KemError::InvalidLength { what: named, .. }) => {
                        assert_eq!(named, what, "{d:+}")
                    }
                    other => panic!("{what} {d:+}: {other:?}"),
                }
            }
        }
    }

    /// The bytes a kept key holds, and where they live.
    fn kept_bytes(kept: &Option<SecretKey>) -> (*const u8, Vec<u8>) {
        let v = kept.as_ref().unwrap().get::<Vec<u8>>().unwrap();
        (v.as_ptr(), v.clone())
    }

    /// Byte-keyed providers make each new key in the previous key's buffer (what `keygen`
    /// times: no allocation, no zeroing, no box, as a C caller reusing its buffer), and the
    /// key made there is a real one: it decapsulates what is encapsulated to its public key.
    #[test]
    fn byte_keyed_keygen_writes_over_the_previous_key() {
        let k = crate::providers::liboqs::LibOqs::open("ML-KEM-512", "ML-KEM-512").unwrap();
        let k: &dyn Kem = &k;
        let a = k.meta().algorithm;
        let mut pk = vec![0u8; a.pk_len];
        let mut kept = None;
        k.keypair_again(&mut pk, &mut kept).unwrap();
        let (at, first) = kept_bytes(&kept);
        k.keypair_again(&mut pk, &mut kept).unwrap();
        let (again, second) = kept_bytes(&kept);
        assert_eq!(at, again, "the new key lives in the previous key's buffer");
        assert_ne!(first, second, "a new key, not the old one");
        let (ct, ss) = k.encaps_vec(&pk).unwrap();
        let mut out = vec![0u8; a.ss_len];
        k.decaps_kept(kept.as_mut().unwrap(), &ct, &mut out)
            .unwrap();
        assert_eq!(out, ss);
        // A previous key of another shape (another provider's object, a wrong length) is
        // replaced by a new key, never written into.
        for other in [SecretKey::new(7u32), SecretKey::new(vec![0u8; 3])] {
            let mut kept = Some(other);
            k.keypair_again(&mut pk, &mut kept).unwrap();
            assert_eq!(kept_bytes(&kept).1.len(), a.sk_len);
        }
    }

    /// Providers with key objects make a new object each time (the default), freeing the
    /// previous one first; the key works.
    #[test]
    fn typed_keygen_replaces_the_previous_key() {
        let k = crate::providers::registry::Registry::new(false)
            .get("ML-KEM-768@aws-lc")
            .unwrap();
        let a = k.meta().algorithm;
        let mut pk = vec![0u8; a.pk_len];
        let mut kept = Some(SecretKey::new(vec![0u8; a.sk_len]));
        k.keypair_again(&mut pk, &mut kept).unwrap();
        assert!(
            kept.as_ref().unwrap().get::<Vec<u8>>().is_err(),
            "aws-lc's own object"
        );
        let (ct, ss) = k.encaps_vec(&pk).unwrap();
        let mut out = vec![0u8; a.ss_len];
        k.decaps_kept(kept.as_mut().unwrap(), &ct, &mut out)
            .unwrap();
        assert_eq!(out, ss);
    }
}
