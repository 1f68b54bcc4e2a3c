//! liboqs, built from source by the `oqs-sys` crate (vendored, without OpenSSL).
//!
//! liboqs picks its AVX2 code at run time where the CPU has it; there is no run-time switch to
//! its portable code. Key generation from a seed is offered where liboqs has it (ML-KEM);
//! liboqs 0.13 has no deterministic encapsulation. For `profile`, liboqs's `randombytes` can be
//! switched to the seeded stream ([`Kem::fix_randomness`]) and its SHA-3 calls can be marked
//! ([`install_sha3_probe`]). With feature `openssl`, ML-KEM is offered a second time with
//! OpenSSL's SHA-3 installed through liboqs's callbacks (`liboqs/openssl-sha3`,
//! `openssl_sha3`).

use crate::kem::{ImplMeta, Kem, KemError, Randomness, SeedLens};
use oqs_sys::kem as ffi;
use std::ffi::{CStr, CString};
use std::sync::Once;

/// The algorithms taken from liboqs: (liboqs method name, catalog name).
///
/// ML-KEM is here too (mlkem-native inside liboqs). NTRU is not in liboqs 0.13; Classic McEliece
/// and HQC are taken from liboqs only, since the PQClean crates define the same C symbols.
pub const ALGORITHMS: &[(&str, &str)] = &[
    ("ML-KEM-512", "ML-KEM-512"),
    ("ML-KEM-768", "ML-KEM-768"),
    ("ML-KEM-1024", "ML-KEM-1024"),
    ("Kyber512", "Kyber512"),
    ("Kyber768", "Kyber768"),
    ("Kyber1024", "Kyber1024"),
    ("FrodoKEM-640-AES", "FrodoKEM-640-AES"),
    ("FrodoKEM-640-SHAKE", "FrodoKEM-640-SHAKE"),
    ("FrodoKEM-976-AES", "FrodoKEM-976-AES"),
    ("FrodoKEM-976-SHAKE", "FrodoKEM-976-SHAKE"),
    ("FrodoKEM-1344-AES", "FrodoKEM-1344-AES"),
    ("FrodoKEM-1344-SHAKE", "FrodoKEM-1344-SHAKE"),
    ("Classic-McEliece-348864", "Classic-McEliece-348864"),
    ("Classic-McEliece-348864f", "Classic-McEliece-348864f"),
    ("Classic-McEliece-460896", "Classic-McEliece-460896"),
    ("Classic-McEliece-460896f", "Classic-McEliece-460896f"),
    ("Classic-McEliece-6688128", "Classic-McEliece-6688128"),
    ("Classic-McEliece-6688128f", "Classic-McEliece-6688128f"),
    ("Classic-McEliece-6960119", "Classic-McEliece-6960119"),
    ("Classic-McEliece-6960119f", "Classic-McEliece-6960119f"),
    ("Classic-McEliece-8192128", "Classic-McEliece-8192128"),
    ("Classic-McEliece-8192128f", "Classic-McEliece-8192128f"),
    ("HQC-128", "HQC-128"),
    ("HQC-192", "HQC-192"),
    ("HQC-256", "HQC-256"),
    ("BIKE-L1", "BIKE-L1"),
    ("BIKE-L3", "BIKE-L3"),
    ("BIKE-L5", "BIKE-L5"),
    ("sntrup761", "sntrup761"),
];

static INIT: Once = Once::new();

fn init() {
    // SAFETY: OQS_init has no preconditions; Once makes it run a single time.
    INIT.call_once(|| unsafe { oqs_sys::common::OQS_init() });
}

/// liboqs's own version string, e.g. `0.13.0`.
pub fn library_version() -> String {
    init();
    // SAFETY: OQS_version returns a static NUL-terminated string.
    unsafe { CStr::from_ptr(oqs_sys::common::OQS_version()) }
        .to_string_lossy()
        .into_owned()
}

/// What liboqs itself declares for one method (checked against the catalog by a test).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// Claimed NIST level.
    pub nist_level: u8,
    /// IND-CCA claim.
    pub ind_cca: bool,
    /// pk, sk, ct, ss lengths.
    pub lens: [usize; 4],
    /// Seed length of deterministic key generation (0 when none).
    pub keypair_seed_len: usize,
}

/// One liboqs method, owned.
pub struct LibOqs {
    meta: ImplMeta,
    kem: *mut ffi::OQS_KEM,
}

// SAFETY: an OQS_KEM is an immutable table of lengths and function pointers once created, and
// liboqs's KEM functions are reentrant (they keep no state between calls).
unsafe impl Send for LibOqs {}
// SAFETY: see Send.
unsafe impl Sync for LibOqs {}

impl Drop for LibOqs {
    fn drop(&mut self) {
        // SAFETY: `kem` came from OQS_KEM_new and is freed once.
        unsafe { ffi::OQS_KEM_free(self.kem) }
    }
}

impl LibOqs {
    /// Opens a liboqs method; `None` when this build of liboqs lacks it.
    pub fn open(method: &str, catalog_name: &str) -> Option<Self> {
        init();
        let c = CString::new(method).ok()?;
        // SAFETY: `c` is a valid C string; a null result means "not enabled".
        let kem = unsafe { ffi::OQS_KEM_new(c.as_ptr()) };
        if kem.is_null() {
            return None;
        }
        let version = format!(
            "liboqs {} (oqs-sys {})",
            library_version(),
            env!("KEMBENCH_DEP_OQS_SYS")
        );
        Some(LibOqs {
            meta: ImplMeta::new(catalog_name, "liboqs", &version, "run-time CPU dispatch"),
            kem,
        })
    }

    fn k(&self) -> &ffi::OQS_KEM {
        // SAFETY: non-null, valid until drop.
        unsafe { &*self.kem }
    }

    /// The metadata liboqs declares for this method.
    pub fn declared(&self) -> Declared {
        let k = self.k();
        Declared {
            nist_level: k.claimed_nist_level,
            ind_cca: k.ind_cca,
            lens: [
                k.length_public_key,
                k.length_secret_key,
                k.length_ciphertext,
                k.length_shared_secret,
            ],
            keypair_seed_len: k.length_keypair_seed,
        }
    }
}

fn status(rc: oqs_sys::common::OQS_STATUS, what: &str) -> Result<(), KemError> {
    if rc == oqs_sys::common::OQS_STATUS::OQS_SUCCESS {
        Ok(())
    } else {
        Err(KemError::Failure(format!("liboqs {what} returned {rc:?}")))
    }
}

impl Kem for LibOqs {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        // SAFETY: buffers have the lengths liboqs declares (checked by the caller and by the
        // catalog test against `declared()`).
        status(
            unsafe { ffi::OQS_KEM_keypair(self.kem, pk.as_mut_ptr(), sk.as_mut_ptr()) },
            "keypair",
        )
    }

    fn keeps_bytes(&self) -> bool {
        true
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        // SAFETY: as above.
        status(
            unsafe { ffi::OQS_KEM_encaps(self.kem, ct.as_mut_ptr(), ss.as_mut_ptr(), pk.as_ptr()) },
            "encaps",
        )
    }

    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        // SAFETY: as above.
        status(
            unsafe { ffi::OQS_KEM_decaps(self.kem, ss.as_mut_ptr(), ct.as_ptr(), sk.as_ptr()) },
            "decaps",
        )
    }

    fn known_answer_transcript(&self, entries: usize) -> Option<Result<String, KemError>> {
        Some(kat::transcript(self, entries))
    }

    fn declared_lens(&self) -> Option<[usize; 4]> {
        Some(self.declared().lens)
    }

    fn seed_lens(&self) -> SeedLens {
        let k = self.k();
        SeedLens {
            keypair: (k.length_keypair_seed > 0 && k.keypair_derand.is_some())
                .then_some(k.length_keypair_seed),
            encaps: None,
        }
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        randomness::fix(seed);
        Randomness::Fixed(
            "liboqs's randombytes switched to kembench's seeded ChaCha20 stream \
             (OQS_randombytes_custom_algorithm, process-global): every draw of keygen, encaps \
             and decaps"
                .into(),
        )
    }

    fn keypair_derand_raw(
        &self,
        seed: &[u8],
        pk: &mut [u8],
        sk: &mut [u8],
    ) -> Result<(), KemError> {
        // SAFETY: as above; the seed has `length_keypair_seed` bytes (checked by the caller).
        status(
            unsafe {
                ffi::OQS_KEM_keypair_derand(
                    self.kem,
                    pk.as_mut_ptr(),
                    sk.as_mut_ptr(),
                    seed.as_ptr(),
                )
            },
            "keypair_derand",
        )
    }
}

/// Every liboqs implementation this build offers (liboqs as built, then ML-KEM with OpenSSL's
/// SHA-3, `liboqs/openssl-sha3`, with feature `openssl`), and the methods its liboqs leaves out
/// with why.
pub fn implementations() -> super::Offered {
    let mut offered = super::Offered::default();
    for (method, name) in ALGORITHMS {
        match LibOqs::open(method, name) {
            Some(k) => offered.impls.push(Box::new(k)),
            None => offered.unavailable.push(super::Unavailable {
                label: format!("{name}@liboqs"),
                reason: not_enabled(method, std::env::consts::ARCH),
            }),
        }
    }
    #[cfg(feature = "openssl")]
    offered.impls.extend(openssl_sha3::implementations());
    offered
}

/// Why this build's liboqs lacks `method` when built for `arch`.
fn not_enabled(method: &str, arch: &str) -> String {
    let why = if method.starts_with("BIKE") && matches!(arch, "s390x" | "powerpc64") {
        // liboqs's .CMake/alg_support.cmake: BIKE's code assumes little-endian.
        format!("liboqs's CMake turns BIKE off on big-endian {arch}")
    } else {
        "liboqs's CMake options for this target leave it out".to_string()
    };
    format!("not enabled in this build of liboqs: {why}")
}

pub mod kat;
#[cfg(feature = "openssl")]
pub mod openssl_sha3;
pub(crate) mod randomness;
mod sha3_probe;

pub use sha3_probe::{install_sha3_probe, SHA3_PROBE_PREFIX};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_method_is_built_and_matches_the_catalog() {
        for (method, name) in ALGORITHMS {
            let k = LibOqs::open(method, name).unwrap_or_else(|| panic!("{method} not built"));
            let d = k.declared();
            let a = k.meta().algorithm;
            assert_eq!(d.lens, [a.pk_len, a.sk_len, a.ct_len, a.ss_len], "{name}");
            assert_eq!(Some(d.nist_level), a.nist_level, "{name}: NIST level");
            assert_eq!(d.ind_cca, a.ind_cca, "{name}: IND-CCA claim");
        }
    }

    #[test]
    fn a_method_left_out_says_why() {
        assert_eq!(
            not_enabled("BIKE-L1", "s390x"),
            "not enabled in this build of liboqs: liboqs's CMake turns BIKE off on big-endian s390x"
        );
        assert!(not_enabled("BIKE-L1", "aarch64").contains("options for this target"));
        // Every method is offered as `liboqs` or said as left out (`liboqs/openssl-sha3`
        // comes on top).
        let offered = implementations();
        let own = offered
            .impls
            .iter()
            .filter(|k| k.meta().implementation == "liboqs")
            .count();
        assert_eq!(own + offered.unavailable.len(), ALGORITHMS.len());
    }

    #[test]
    fn kat_transcript_has_the_nist_layout() {
        let k = LibOqs::open("ML-KEM-512", "ML-KEM-512").unwrap();
        let t = kat::transcript(&k, 2).unwrap();
        let labels: Vec<&str> = t
            .lines()
            .map(|l| l.split(" = ").next().unwrap_or(""))
            .collect();
        assert_eq!(
            labels,
            [
                "count", "seed", "pk", "sk", "ct", "ss", "", "count", "seed", "pk", "sk", "ct",
                "ss"
            ]
        );
        assert!(t.contains("seed = 061550234D158C5EC95595FE04EF7A25767F2E24CC2BC479D09D86DC9ABCFDE7056A8C266F9EF97ED08541DBD2E1FFA1"));
    }
}
