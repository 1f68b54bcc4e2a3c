//! `liboqs/openssl-sha3`: liboqs's ML-KEM with OpenSSL's SHA-3 in place of liboqs's own, what a
//! liboqs user gets by building liboqs with `-DOQS_USE_SHA3_OPENSSL=ON`.
//!
//! The SHA-3 code is liboqs 0.13's own OpenSSL glue (`src/common/sha3/ossl_sha3.c`,
//! `ossl_sha3x4.c`, `ossl_helpers.c`, compiled by kembench's `build.rs` against the vendored
//! OpenSSL 3.6 that kembench links): one-shot hashes as `EVP_MD_CTX_new`, `EVP_DigestInit_ex`,
//! `EVP_DigestUpdate`, `EVP_DigestFinal_ex`/`EVP_DigestFinalXOF`, `EVP_MD_CTX_free`; incremental
//! SHAKE squeezed with `EVP_DigestSqueeze`; the 4-way SHAKE of ML-KEM's AVX2 code as four
//! one-way calls. It reaches liboqs through liboqs's SHA-3 callbacks, per thread
//! ([`super::sha3_probe`]): each operation of this label sets its thread's flag for its
//! duration, so the plain `liboqs` label, even in the same process, keeps liboqs's own SHA-3.
//! Everything else (the algorithm's code, the CPU dispatch, the randomness) is the `liboqs`
//! label's; outputs are identical, which the correctness gate checks like any label's.

use super::sha3_probe::with_openssl;
use super::{kat, LibOqs};
use crate::kem::{ImplMeta, Kem, KemError, Randomness, SeedLens};

/// The implementation id.
pub const IMPLEMENTATION: &str = "liboqs/openssl-sha3";

/// The algorithms offered with OpenSSL's SHA-3 (liboqs method names, which are the catalog's).
pub const ALGORITHMS: &[&str] = &["ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"];

/// One liboqs method whose SHA-3 is OpenSSL's.
pub struct LibOqsOpensslSha3 {
    meta: ImplMeta,
    inner: LibOqs,
}

impl LibOqsOpensslSha3 {
    /// Opens a liboqs method; `None` when this build of liboqs lacks it.
    pub fn open(method: &str) -> Option<Self> {
        let inner = LibOqs::open(method, method)?;
        let mut meta = inner.meta().clone();
        meta.implementation = IMPLEMENTATION.to_string();
        meta.version = format!("{}, SHA-3 by {}", meta.version, openssl::version::version());
        meta.dispatch = "run-time CPU dispatch; SHA-3 by OpenSSL through liboqs's callbacks";
        Some(LibOqsOpensslSha3 { meta, inner })
    }
}

impl Kem for LibOqsOpensslSha3 {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        with_openssl(|| self.inner.keypair_raw(pk, sk))
    }

    fn keeps_bytes(&self) -> bool {
        self.inner.keeps_bytes()
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        with_openssl(|| self.inner.encaps_raw(pk, ct, ss))
    }

    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        with_openssl(|| self.inner.decaps_raw(sk, ct, ss))
    }

    fn known_answer_transcript(&self, entries: usize) -> Option<Result<String, KemError>> {
        // The whole transcript on this thread, every operation with OpenSSL's SHA-3.
        Some(with_openssl(|| kat::transcript(&self.inner, entries)))
    }

    fn declared_lens(&self) -> Option<[usize; 4]> {
        self.inner.declared_lens()
    }

    fn seed_lens(&self) -> SeedLens {
        self.inner.seed_lens()
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        self.inner.fix_randomness(seed)
    }

    fn keypair_derand_raw(
        &self,
        seed: &[u8],
        pk: &mut [u8],
        sk: &mut [u8],
    ) -> Result<(), KemError> {
        with_openssl(|| self.inner.keypair_derand_raw(seed, pk, sk))
    }
}

/// Every `liboqs/openssl-sha3` implementation this build offers.
pub fn implementations() -> impl Iterator<Item = Box<dyn Kem>> {
    ALGORITHMS
        .iter()
        .filter_map(|m| LibOqsOpensslSha3::open(m))
        .map(|k| Box::new(k) as Box<dyn Kem>)
}

#[cfg(test)]
mod tests {
    use super::super::sha3_probe::ROUTED;
    use super::*;

    /// A round trip and the two-entry known-answer transcript of `k`.
    fn transcript(k: &dyn Kem) -> String {
        let (pk, sk) = k.keypair_vec().unwrap();
        let (ct, ss) = k.encaps_vec(&pk).unwrap();
        assert_eq!(k.decaps_vec(&sk, &ct).unwrap(), ss, "{}: round trip", k.meta().label());
        k.known_answer_transcript(2).unwrap().unwrap()
    }

    /// This thread's SHA-3 calls (liboqs's own, OpenSSL's) during `f`.
    fn routed(f: impl FnOnce()) -> (u64, u64) {
        ROUTED.with(|r| r.set((0, 0)));
        f();
        ROUTED.with(|r| r.get())
    }

    #[test]
    fn outputs_equal_liboqs_and_plain_liboqs_keeps_its_own_sha3() {
        for m in ALGORITHMS {
            let plain = LibOqs::open(m, m).unwrap();
            let ossl = LibOqsOpensslSha3::open(m).unwrap();
            assert_eq!(ossl.meta().label(), format!("{m}@liboqs/openssl-sha3"));
            let (own, by_openssl) = routed(|| assert_eq!(transcript(&ossl), transcript(&plain)));
            // The label's operations went to OpenSSL, the plain label's to liboqs.
            assert!(by_openssl > 0 && own > 0, "{m}: {own} own, {by_openssl} OpenSSL");
        }
        // Another thread hashes with OpenSSL all the while: this thread's plain liboqs still
        // calls liboqs's own SHA-3 only (the flag is the thread's, not the process's).
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let busy = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let ossl = LibOqsOpensslSha3::open("ML-KEM-768").unwrap();
                let mut n = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) || n == 0 {
                    let (pk, _) = (&ossl as &dyn Kem).keypair_vec().unwrap();
                    (&ossl as &dyn Kem).encaps_vec(&pk).unwrap();
                    n += 1;
                }
                ROUTED.with(|r| r.get())
            })
        };
        let plain = LibOqs::open("ML-KEM-768", "ML-KEM-768").unwrap();
        let (own, by_openssl) = routed(|| {
            for _ in 0..50 {
                transcript(&plain);
            }
        });
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let (_, other) = busy.join().unwrap();
        assert!(other > 0, "the other thread used OpenSSL");
        assert_eq!(by_openssl, 0, "plain liboqs routed to OpenSSL");
        assert!(own > 0);
    }
}
