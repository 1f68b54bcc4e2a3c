//! A deterministic mock provider for CLI and report tests, off unless asked for.
//!
//! `MockKEM` is a toy: pk = H(sk), ct = m xor H(pk), ss = H(m || ct). It is correct (round trip,
//! implicit rejection, deterministic operations), fast and reproducible: randomness comes from a
//! counter, or from `profile`'s seeded stream once [`Kem::fix_randomness`] has installed one.
//! `mock/broken` decapsulates to a wrong secret, so that `verify` must fail it.
//!
//! With `KEMBENCH_MOCK_FAULTS=1` in the environment, two more test the crash-safety of `run`:
//! `mock/crash` raises SIGSEGV once it has encapsulated [`FAULT_AFTER`] times in a process,
//! and `mock/hang` never returns from decapsulation after as many calls
//! (`KEMBENCH_MOCK_FAULT_AFTER=N` changes the count). Both pass the quick correctness check
//! first, so the fault strikes while they are being warmed up or timed. `mock/slow` is correct
//! but sleeps a millisecond in every call, so that a run of it lasts long enough to interrupt.
//! `mock/slow-import` is correct but takes [`SLOW_IMPORT_STEPS`] rebuilding a secret-key object
//! from bytes, so that a test can see that cost under `sk-import` and not under `decaps`.
//!
//! With `KEMBENCH_MOCK_GATE=1`, one more mock per check of the correctness gate breaks exactly
//! that check's property and nothing else the check of it alone can see (each is meant to be
//! verified alone: any two mocks that derive their secrets differently fail interoperability):
//! `mock/wrong-sizes` (sizes), `mock/overflow` (canaries), `mock/accepts-tamper` (tamper),
//! `mock/export-differs` and `mock/panics` (kept keys), `mock/incompatible` (interop, beside
//! `mock/correct`), `mock/kat` and `mock/wrong-kat` (known answers), `mock/short-ct` (sizes:
//! a ciphertext one byte shorter than declared, written in place); `mock/broken` is the
//! round trip's. `tests/verify_gate.rs` shows `verify` failing each, naming the check.
//!
//! With `KEMBENCH_MOCK_CT=1`, four more are correct but leak the secret message during
//! decapsulation through one channel each, for `kembench ct`'s screens ([`CT_MOCKS`]):
//! `mock/ct-branch` (a branch), `mock/ct-index` (a table index), `mock/ct-division` (a division
//! instruction on a secret, beside one on the public ciphertext) and `mock/ct-timing`
//! (subnormal floating-point operands: time alone).
//!
//! With `KEMBENCH_MOCK_PROFILE=1`, `mock/unfixed` is correct but draws its key-generation and
//! encapsulation randomness from the operating system, which no seed fixes, and has no
//! derandomized entry points (as the PQClean crates and prebuilt libraries): its instruction
//! counts vary with its draws (it hashes one to four more times, as rejection sampling
//! retries), so that `profile --baseline` must gate it by its ranges over seeds.
//!
//! Secret keys are kept as objects that hold the public key beside the secret (as libraries
//! that recompute the public key on import keep it): importing from bytes hashes the secret,
//! decapsulating with a kept key does not.

use crate::kem::catalog::MOCK;
use crate::kem::{ImplMeta, Imports, Kem, KemError, Randomness, SecretKey, SeedLens};
use sha2::{Digest, Sha256};

/// How a mock implementation misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// A correct toy KEM.
    Correct,
    /// Decapsulation returns a secret that differs from encapsulation's.
    WrongSecret,
    /// Encapsulation raises SIGSEGV after [`FAULT_AFTER`] calls in the process.
    Crash,
    /// Decapsulation never returns after [`FAULT_AFTER`] calls in the process.
    Hang,
    /// Correct, but every call sleeps a millisecond (a benchmark that takes a while).
    Slow,
    /// Correct, but importing a secret key from bytes takes [`SLOW_IMPORT_STEPS`].
    SlowImport,
    /// Correct, but declares a ciphertext length one byte longer than it writes.
    WrongSizes,
    /// Correct, but writes one byte past the end of the ciphertext buffer, as a C library
    /// with an off-by-one would.
    Overflow,
    /// Self-consistent, but the bytes of the ciphertext that tampering flips do not enter the
    /// secret: a tampered ciphertext still gives it.
    AcceptsTamper,
    /// Correct, but a kept key's exported bytes are not the key (one bit flipped).
    ExportDiffers,
    /// Correct, but panics when asked for a kept key's bytes.
    PanicsOnExport,
    /// Self-consistent, but masks with another label: it cannot talk to `mock/correct`.
    Incompatible,
    /// Correct, with a published known answer ([`KAT_SHA256`]) for its NIST-format transcript.
    KnownAnswer,
    /// Correct, but decapsulation branches on a bit of the decrypted (secret) message: a
    /// secret-dependent branch (`KEMBENCH_MOCK_CT=1`).
    SecretBranch,
    /// Correct, but decapsulation reads a table at an index taken from the secret message: a
    /// secret-dependent memory address.
    SecretIndex,
    /// Correct, but decapsulation divides a value made from the secret message by the modulus
    /// with a real division instruction (KyberSlash's pattern): no branch, no secret address.
    SecretDivision,
    /// Correct, but decapsulation multiplies floating-point numbers that are subnormal when a
    /// bit of the secret message is clear: no branch, no secret address, no division; the
    /// leak is in the time alone (subnormal operands are slow on x86).
    SecretTiming,
    /// Self-consistent and claiming [`KAT_SHA256`], but deriving its secrets with another
    /// label, so its transcript differs from the published one.
    WrongKnownAnswer,
    /// Correct, but its draws come from the operating system (no seed fixes them, no
    /// derandomized entry points) and its instruction counts vary with them.
    UnfixedDraws,
    /// Self-consistent, but its ciphertext is one byte shorter than it declares: encapsulation
    /// writes all but the buffer's last byte, which no operation reads.
    ShortCiphertext,
}

/// The SHA-256 of the correct mock's one-entry NIST-format KAT transcript: `mock/kat`'s
/// published figure (computed once from it, and checked by a test here).
pub const KAT_SHA256: &str = "a87d4194f7d738a6ea4e4325221fe99d03aa93be16ec1ff63a74d4dbb22ea7f0";

/// The opaque steps `mock/slow-import` takes in each secret-key import (a few hundred
/// microseconds): a fixed count rather than a time, so that a test sees the cost exactly in
/// `run --instructions` (at least one instruction a step), whatever the machine's speed.
pub const SLOW_IMPORT_STEPS: u64 = 500_000;

/// A mock secret key as the mock keeps it: the secret and its public key.
struct MockKey {
    sk: [u8; 32],
    pk: [u8; 32],
}

/// Calls before `mock/crash` and `mock/hang` misbehave (enough for the correctness check).
pub const FAULT_AFTER: u64 = 2_000;

/// Counts calls towards [`FAULT_AFTER`] (or `KEMBENCH_MOCK_FAULT_AFTER`); true once reached.
fn fault_due() -> bool {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static CALLS: AtomicU64 = AtomicU64::new(0);
    static AFTER: OnceLock<u64> = OnceLock::new();
    let after = *AFTER.get_or_init(|| {
        std::env::var("KEMBENCH_MOCK_FAULT_AFTER")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(FAULT_AFTER)
    });
    CALLS.fetch_add(1, Ordering::Relaxed) >= after
}

/// One mock implementation.
pub struct Mock {
    meta: ImplMeta,
    behaviour: Behaviour,
}

fn h(parts: &[&[u8]]) -> [u8; 32] {
    let mut d = Sha256::new();
    for p in parts {
        d.update(p);
    }
    d.finalize().into()
}

fn xor(a: &[u8; 32], b: &[u8]) -> [u8; 32] {
    std::array::from_fn(|i| a[i] ^ b[i])
}

/// `mock/ct-division`'s division of a public value (the ciphertext's first byte, public
/// before decapsulation): the latency screen flags it too, and its operand check must find
/// its operands public, beside the secret ones of [`leak`].
#[inline(never)]
fn public_division(ct: &[u8]) {
    let q = std::hint::black_box(3329u32);
    std::hint::black_box((u32::from(ct[0]) << 4) / q);
}

/// What the constant-time mocks do during decapsulation with bytes of the message `m` mixed
/// with the secret key `sk` (nothing for the others): secret to a screen that marks the key
/// secret, and different for every ciphertext, so that a timing test that varies the
/// ciphertext can see it too. Each leaks through one channel only; results go through
/// [`std::hint::black_box`] so that the compiler keeps the work.
#[inline(never)]
fn leak(b: Behaviour, m: &[u8; 32], sk: &[u8; 32]) {
    let m: [u8; 32] = xor(m, sk);
    let m = &m;
    match b {
        // A branch on a secret bit, kept a branch (clippy would fold it into the match).
        Behaviour::SecretBranch if m[0] & 1 == 1 => {
            std::hint::black_box(h(&[b"branch", m]));
        }
        Behaviour::SecretIndex => {
            static TABLE: [u8; 256] = {
                let mut t = [0u8; 256];
                let mut i = 0;
                while i < 256 {
                    t[i] = (i as u8).wrapping_mul(167).wrapping_add(13);
                    i += 1;
                }
                t
            };
            std::hint::black_box(TABLE[usize::from(m[0])]);
        }
        Behaviour::SecretDivision => {
            // The divisor passes through black_box so that the compiler cannot turn the
            // division by a constant into a multiplication (as KyberSlash's compilers did
            // only at some flags).
            let q = std::hint::black_box(3329u32);
            let mut acc = 0u32;
            for &b in &m[..8] {
                acc ^= ((u32::from(b) << 4) + q / 2) / q;
            }
            std::hint::black_box(acc);
        }
        Behaviour::SecretTiming => {
            // 1.0000000000000002 when the bit is set, the smallest subnormal when it is clear:
            // chosen by arithmetic on the bits, not by a branch.
            let bit = u64::from(m[0] & 1);
            let x = f64::from_bits((bit * 0x3ff0_0000_0000_0000) | 1);
            let mut acc = std::hint::black_box(1.0f64);
            for _ in 0..400 {
                acc = std::hint::black_box(acc * x + x);
            }
            std::hint::black_box(acc);
        }
        _ => {}
    }
}

impl Mock {
    /// A mock implementation with the given behaviour and implementation id suffix.
    pub fn new(variant: &str, behaviour: Behaviour) -> Self {
        Mock {
            meta: ImplMeta {
                algorithm: &MOCK,
                implementation: format!("mock/{variant}"),
                version: format!("kembench {}", env!("CARGO_PKG_VERSION")),
                dispatch: "deterministic mock",
            },
            behaviour,
        }
    }

    fn pause(&self) {
        if self.behaviour == Behaviour::Slow {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// Rebuilds the key object from bytes: the public key is recomputed.
    fn import(&self, sk: &[u8]) -> MockKey {
        if self.behaviour == Behaviour::SlowImport {
            // Work rather than sleep: the cost must be CPU time, as a real import's is.
            for i in 0..SLOW_IMPORT_STEPS {
                std::hint::black_box(i);
            }
        }
        let mut key = MockKey {
            sk: [0; 32],
            pk: h(&[sk]),
        };
        key.sk.copy_from_slice(sk);
        key
    }

    /// The mask a message is hidden under: H(label || pk).
    fn mask(&self, pk: &[u8]) -> [u8; 32] {
        let label: &[u8] = if self.behaviour == Behaviour::Incompatible {
            b"mask-other"
        } else {
            b"mask"
        };
        h(&[label, pk])
    }

    /// The shared secret of message `m` sent as `ct`: H("ss" || m || ct).
    fn secret(&self, m: &[u8; 32], ct: &[u8]) -> [u8; 32] {
        match self.behaviour {
            Behaviour::AcceptsTamper => {
                // The first and middle bytes, which the gate's tampering flips, left out.
                let mut kept = *m;
                kept[0] = 0;
                kept[m.len() / 2] = 0;
                h(&[b"ss", &kept])
            }
            Behaviour::WrongKnownAnswer => h(&[b"ss-other", m, ct]),
            // The last byte of the message and of the ciphertext are not part of it.
            Behaviour::ShortCiphertext => h(&[b"ss", &m[..31], &ct[..31]]),
            _ => h(&[b"ss", m, ct]),
        }
    }

    fn decaps_with(&self, key: &MockKey, ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        if self.behaviour == Behaviour::Hang && fault_due() {
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
        self.pause();
        let m = xor(&self.mask(&key.pk), ct);
        if self.behaviour == Behaviour::SecretDivision {
            public_division(ct);
        }
        leak(self.behaviour, &m, &key.sk);
        let mut k = self.secret(&m, ct);
        if self.behaviour == Behaviour::WrongSecret {
            k[0] ^= 1;
        }
        ss.copy_from_slice(&k);
        Ok(())
    }

    fn next_random(&self, label: &[u8]) -> [u8; 32] {
        let mut seeded = [0; 32];
        if self.behaviour == Behaviour::UnfixedDraws {
            getrandom::fill(&mut seeded).expect("the operating system's random source");
            // One to four more hashes, by the draw: counts that vary with the draws, as a
            // rejection sampler's retries do.
            for _ in 0..=(seeded[0] % 4) {
                seeded = std::hint::black_box(h(&[label, &seeded]));
            }
            return seeded;
        }
        if super::drbg::kat_fill(&mut seeded) || super::seeded::fill(&mut seeded) {
            return seeded;
        }
        // A per-thread counter: throughput threads must not share a written cache line.
        thread_local!(static COUNTER: std::cell::Cell<u64> = const { std::cell::Cell::new(0) });
        let n = COUNTER.with(|c| {
            let n = c.get();
            c.set(n + 1);
            n
        });
        h(&[label, self.meta.implementation.as_bytes(), &n.to_le_bytes()])
    }
}

impl Kem for Mock {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        self.pause();
        let seed = self.next_random(b"keygen");
        self.keypair_derand_raw(&seed, pk, sk)
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        if self.behaviour == Behaviour::Crash && fault_due() {
            // SAFETY: setrlimit and raise are async-signal-safe libc calls with valid
            // arguments; no core file is wanted from a deliberate crash.
            unsafe {
                let none = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::setrlimit(libc::RLIMIT_CORE, &none);
                libc::raise(libc::SIGSEGV);
            }
        }
        self.pause();
        let m = self.next_random(b"encaps");
        self.encaps_derand_raw(pk, &m, ct, ss)?;
        if self.behaviour == Behaviour::Overflow {
            // SAFETY: none; this is the bug `mock/overflow` exists to have. It writes one byte
            // past the ciphertext buffer, as a C library with an off-by-one would. The gate
            // hands out buffers with canaries around them, so the byte lands in a canary and
            // the gate refuses the mock before anything times it; elsewhere (the gate's own
            // `Vec`s of 32 bytes) it lands in the allocator's rounding of the allocation. The
            // mock exists only with `KEMBENCH_MOCK_GATE=1`.
            unsafe { ct.as_mut_ptr().add(ct.len()).write(0) };
        }
        Ok(())
    }

    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        self.decaps_with(&self.import(sk), ct, ss)
    }

    fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
        self.pause();
        let sk = self.next_random(b"keygen");
        let key = MockKey { sk, pk: h(&[&sk]) };
        pk.copy_from_slice(&key.pk);
        Ok(SecretKey::new(key))
    }

    fn decaps_kept_raw(
        &self,
        sk: &mut SecretKey,
        ct: &[u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        self.decaps_with(sk.get::<MockKey>()?, ct, ss)
    }

    fn sk_import_raw(&self, sk: &[u8]) -> Result<SecretKey, KemError> {
        Ok(SecretKey::new(self.import(sk)))
    }

    fn sk_export_raw(&self, sk: &SecretKey, out: &mut [u8]) -> Result<(), KemError> {
        if self.behaviour == Behaviour::PanicsOnExport {
            panic!("mock/panics: the secret key cannot be exported");
        }
        out.copy_from_slice(&sk.get::<MockKey>()?.sk);
        if self.behaviour == Behaviour::ExportDiffers {
            out[0] ^= 1;
        }
        Ok(())
    }

    fn declared_lens(&self) -> Option<[usize; 4]> {
        let a = &MOCK;
        (self.behaviour == Behaviour::WrongSizes).then_some([
            a.pk_len,
            a.sk_len,
            a.ct_len + 1,
            a.ss_len,
        ])
    }

    fn known_answer_transcript(&self, entries: usize) -> Option<Result<String, KemError>> {
        if !matches!(
            self.behaviour,
            Behaviour::KnownAnswer | Behaviour::WrongKnownAnswer
        ) {
            return None;
        }
        Some(super::drbg::kat_transcript(self, entries))
    }

    fn known_answer_digest(&self) -> Option<(String, String)> {
        matches!(
            self.behaviour,
            Behaviour::KnownAnswer | Behaviour::WrongKnownAnswer
        )
        .then(|| {
            (
                KAT_SHA256.to_string(),
                "the mock's published figure".to_string(),
            )
        })
    }

    fn pk_import_raw(&self, pk: &[u8]) -> Result<(), KemError> {
        // A parse that reads the whole key, as real ones do.
        std::hint::black_box(h(&[pk]));
        Ok(())
    }

    fn imports(&self) -> Imports {
        Imports {
            secret_key: true,
            public_key: true,
        }
    }

    fn seed_lens(&self) -> SeedLens {
        if self.behaviour == Behaviour::UnfixedDraws {
            return SeedLens {
                keypair: None,
                encaps: None,
            };
        }
        SeedLens {
            keypair: Some(32),
            encaps: Some(32),
        }
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        if self.behaviour == Behaviour::UnfixedDraws {
            return Randomness::NotFixed(
                "mock/unfixed draws from the operating system and has no derandomized entry \
                 points"
                    .into(),
            );
        }
        super::seeded::install(seed);
        Randomness::Fixed(
            "the mock's keygen and encaps draws come from kembench's seeded ChaCha20 stream \
             instead of its counter (decaps draws none)"
                .into(),
        )
    }

    fn keypair_derand_raw(
        &self,
        seed: &[u8],
        pk: &mut [u8],
        sk: &mut [u8],
    ) -> Result<(), KemError> {
        sk.copy_from_slice(seed);
        pk.copy_from_slice(&h(&[seed]));
        Ok(())
    }

    fn encaps_derand_raw(
        &self,
        pk: &[u8],
        seed: &[u8],
        ct: &mut [u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        let c = xor(&self.mask(pk), seed);
        if self.behaviour == Behaviour::ShortCiphertext {
            ct[..31].copy_from_slice(&c[..31]);
        } else {
            ct.copy_from_slice(&c);
        }
        let m: [u8; 32] = seed.try_into().map_err(|_| KemError::InvalidLength {
            what: "encapsulation seed",
            expected: 32,
            got: seed.len(),
        })?;
        ss.copy_from_slice(&self.secret(&m, &c));
        Ok(())
    }
}

/// The mock implementations: one correct, one broken, and with `KEMBENCH_MOCK_FAULTS=1` one
/// that crashes, one that hangs, one that is slow and one whose key import is slow.
pub fn implementations() -> Vec<Box<dyn Kem>> {
    let mut v: Vec<Box<dyn Kem>> = vec![
        Box::new(Mock::new("correct", Behaviour::Correct)),
        Box::new(Mock::new("broken", Behaviour::WrongSecret)),
    ];
    if std::env::var("KEMBENCH_MOCK_FAULTS").is_ok_and(|v| v == "1") {
        v.push(Box::new(Mock::new("crash", Behaviour::Crash)));
        v.push(Box::new(Mock::new("hang", Behaviour::Hang)));
        v.push(Box::new(Mock::new("slow", Behaviour::Slow)));
        v.push(Box::new(Mock::new("slow-import", Behaviour::SlowImport)));
    }
    if std::env::var("KEMBENCH_MOCK_GATE").is_ok_and(|v| v == "1") {
        for (id, b) in GATE_MOCKS {
            v.push(Box::new(Mock::new(id, b)));
        }
    }
    if std::env::var("KEMBENCH_MOCK_CT").is_ok_and(|v| v == "1") {
        for (id, b) in CT_MOCKS {
            v.push(Box::new(Mock::new(id, b)));
        }
    }
    if std::env::var("KEMBENCH_MOCK_PROFILE").is_ok_and(|v| v == "1") {
        v.push(Box::new(Mock::new("unfixed", Behaviour::UnfixedDraws)));
    }
    v
}

/// The mocks of `KEMBENCH_MOCK_CT=1`, for the constant-time screens: each is correct and leaks
/// its secret message through one channel during decapsulation (`mock/correct` is the clean
/// one): (implementation id suffix, behaviour).
pub const CT_MOCKS: [(&str, Behaviour); 4] = [
    ("ct-branch", Behaviour::SecretBranch),
    ("ct-index", Behaviour::SecretIndex),
    ("ct-division", Behaviour::SecretDivision),
    ("ct-timing", Behaviour::SecretTiming),
];

/// The mocks of `KEMBENCH_MOCK_GATE=1`: (implementation id suffix, behaviour).
pub const GATE_MOCKS: [(&str, Behaviour); 9] = [
    ("wrong-sizes", Behaviour::WrongSizes),
    ("overflow", Behaviour::Overflow),
    ("accepts-tamper", Behaviour::AcceptsTamper),
    ("export-differs", Behaviour::ExportDiffers),
    ("panics", Behaviour::PanicsOnExport),
    ("incompatible", Behaviour::Incompatible),
    ("kat", Behaviour::KnownAnswer),
    ("wrong-kat", Behaviour::WrongKnownAnswer),
    ("short-ct", Behaviour::ShortCiphertext),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// `mock/kat`'s transcript opens with NIST's first seed and has the published digest
    /// (the check that `mock/wrong-kat` fails can also pass); `mock/wrong-kat`'s has another.
    #[test]
    fn the_published_known_answer_is_the_correct_mocks() {
        use sha2::Digest as _;
        {
            let k = Mock::new("kat", Behaviour::KnownAnswer);
            let t = k.known_answer_transcript(1).unwrap().unwrap();
            // NIST's first seed, with which every PQCkemKAT file opens.
            let first = "count = 0\nseed = 061550234D158C5EC95595FE04EF7A25767F2E24CC2BC479\
                         D09D86DC9ABCFDE7056A8C266F9EF97ED08541DBD2E1FFA1\n";
            assert!(t.starts_with(first), "{t}");
            assert_eq!(hex::encode(Sha256::digest(t.as_bytes())), KAT_SHA256);
        }
        let wrong = Mock::new("wrong-kat", Behaviour::WrongKnownAnswer);
        let t = wrong.known_answer_transcript(1).unwrap().unwrap();
        assert_ne!(hex::encode(Sha256::digest(t.as_bytes())), KAT_SHA256);
    }
}
