//! PQClean, through the `pqcrypto-mlkem` and `pqcrypto-ntru` crates.
//!
//! Each algorithm is offered twice where PQClean ships both: `pqclean/clean` (portable C) and
//! `pqclean/avx2` (hand-vectorised), called directly through the crates' `ffi` modules so that
//! a run compares them side by side instead of letting the safe API pick one. PQClean's ML-KEM
//! also has deterministic key generation and encapsulation (`*_derand`), which the crate does
//! not bind; they are declared here. The randomized functions draw from the operating system
//! through `getrandom`, which kembench's executable interposes ([`super::os_random`]) so that
//! [`Kem::fix_randomness`] can serve them from the seeded stream.

use crate::kem::{ImplMeta, Kem, KemError, Randomness, SeedLens};
use std::os::raw::c_int;

type KeypairFn = unsafe extern "C" fn(*mut u8, *mut u8) -> c_int;
type EncFn = unsafe extern "C" fn(*mut u8, *mut u8, *const u8) -> c_int;
type DecFn = unsafe extern "C" fn(*mut u8, *const u8, *const u8) -> c_int;
type KeypairDerandFn = unsafe extern "C" fn(*mut u8, *mut u8, *const u8) -> c_int;
type EncDerandFn = unsafe extern "C" fn(*mut u8, *mut u8, *const u8, *const u8) -> c_int;

/// One PQClean implementation: a table of C functions.
pub struct PqClean {
    meta: ImplMeta,
    keypair: KeypairFn,
    enc: EncFn,
    dec: DecFn,
    derand: Option<(KeypairDerandFn, EncDerandFn)>,
}

fn rc(code: c_int, what: &str) -> Result<(), KemError> {
    if code == 0 {
        Ok(())
    } else {
        Err(KemError::Failure(format!("PQClean {what} returned {code}")))
    }
}

impl Kem for PqClean {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        // SAFETY: the buffers have the catalog's lengths, which tests check against PQClean's
        // api.h constants via real outputs.
        rc(
            unsafe { (self.keypair)(pk.as_mut_ptr(), sk.as_mut_ptr()) },
            "keypair",
        )
    }

    fn keeps_bytes(&self) -> bool {
        true
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        // SAFETY: as above.
        rc(
            unsafe { (self.enc)(ct.as_mut_ptr(), ss.as_mut_ptr(), pk.as_ptr()) },
            "enc",
        )
    }

    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        // SAFETY: as above.
        rc(
            unsafe { (self.dec)(ss.as_mut_ptr(), ct.as_ptr(), sk.as_ptr()) },
            "dec",
        )
    }

    fn seed_lens(&self) -> SeedLens {
        match self.derand {
            Some(_) => SeedLens::ML_KEM,
            None => SeedLens::NONE,
        }
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        if super::os_random::interposed() {
            super::seeded::install(seed);
            super::os_random::capture(true);
            return Randomness::Fixed(INTERPOSED.into());
        }
        let repeatable = match self.derand {
            Some(_) => {
                "Keygen and encaps are repeatable only through the derandomized entry points \
                 (crypto_kem_keypair_derand, crypto_kem_enc_derand); decaps draws none."
            }
            None => {
                "NTRU has no derandomized entry points: keygen (two draws) and encaps (one) \
                 take fresh OS randomness in every call; decaps draws none."
            }
        };
        Randomness::NotFixed(format!("{NO_HOOK} {repeatable}"))
    }

    fn keypair_derand_raw(
        &self,
        seed: &[u8],
        pk: &mut [u8],
        sk: &mut [u8],
    ) -> Result<(), KemError> {
        let (kp, _) = self.derand.ok_or(KemError::Unsupported)?;
        // SAFETY: as above; `seed` holds d || z (64 bytes, checked by the caller).
        rc(
            unsafe { kp(pk.as_mut_ptr(), sk.as_mut_ptr(), seed.as_ptr()) },
            "keypair_derand",
        )
    }

    fn encaps_derand_raw(
        &self,
        pk: &[u8],
        seed: &[u8],
        ct: &mut [u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        let (_, enc) = self.derand.ok_or(KemError::Unsupported)?;
        // SAFETY: as above; `seed` holds m (32 bytes, checked by the caller).
        rc(
            unsafe { enc(ct.as_mut_ptr(), ss.as_mut_ptr(), pk.as_ptr(), seed.as_ptr()) },
            "enc_derand",
        )
    }
}

/// How PQClean's draws are fixed: through kembench's own `getrandom`.
const INTERPOSED: &str = "PQClean's C code draws through PQCRYPTO_RUST_randombytes \
    (pqcrypto-internals 0.2), which calls getrandom 0.3's fill, which finds getrandom with \
    dlsym(RTLD_DEFAULT): kembench's executable defines and exports its own (providers::os_random), \
    which serves kembench's seeded ChaCha20 stream while a seed is installed: every draw of \
    keygen and encaps (decaps draws none)";

/// Why PQClean's draws cannot be fixed in-process where kembench's `getrandom` is not the one
/// found.
const NO_HOOK: &str = "PQClean's C code draws through PQCRYPTO_RUST_randombytes \
    (pqcrypto-internals 0.2), which calls getrandom 0.3's fill; on Linux that crate finds \
    libc's getrandom with dlsym(RTLD_DEFAULT), and kembench's interposed getrandom is not the \
    one found in this executable (it is defined and exported on Linux with glibc only).";

macro_rules! mlkem_derand_decls {
    ($($kp:ident, $enc:ident;)*) => {
        unsafe extern "C" {
            $(
                fn $kp(pk: *mut u8, sk: *mut u8, coins: *const u8) -> c_int;
                fn $enc(ct: *mut u8, ss: *mut u8, pk: *const u8, coins: *const u8) -> c_int;
            )*
        }
    };
}

mlkem_derand_decls! {
    PQCLEAN_MLKEM512_CLEAN_crypto_kem_keypair_derand, PQCLEAN_MLKEM512_CLEAN_crypto_kem_enc_derand;
    PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair_derand, PQCLEAN_MLKEM768_CLEAN_crypto_kem_enc_derand;
    PQCLEAN_MLKEM1024_CLEAN_crypto_kem_keypair_derand, PQCLEAN_MLKEM1024_CLEAN_crypto_kem_enc_derand;
}
#[cfg(target_arch = "x86_64")]
mlkem_derand_decls! {
    PQCLEAN_MLKEM512_AVX2_crypto_kem_keypair_derand, PQCLEAN_MLKEM512_AVX2_crypto_kem_enc_derand;
    PQCLEAN_MLKEM768_AVX2_crypto_kem_keypair_derand, PQCLEAN_MLKEM768_AVX2_crypto_kem_enc_derand;
    PQCLEAN_MLKEM1024_AVX2_crypto_kem_keypair_derand, PQCLEAN_MLKEM1024_AVX2_crypto_kem_enc_derand;
}

/// Whether this CPU runs PQClean's AVX2 code (it needs AVX2, BMI2 and POPCNT).
pub fn avx2_usable() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn version(krate: &str) -> String {
    let v = match krate {
        "pqcrypto-mlkem" => env!("KEMBENCH_DEP_PQCRYPTO_MLKEM"),
        _ => env!("KEMBENCH_DEP_PQCRYPTO_NTRU"),
    };
    format!("PQClean via {krate} {v}")
}

macro_rules! entry {
    ($out:ident, $name:literal, $krate:literal, $variant:literal, $ffi:path,
     $kp:ident, $enc:ident, $dec:ident $(, derand: $kpd:ident, $encd:ident)?) => {{
        use $ffi as f;
        #[allow(unused_mut, unused_assignments)]
        let mut derand: Option<(KeypairDerandFn, EncDerandFn)> = None;
        $( derand = Some(($kpd as KeypairDerandFn, $encd as EncDerandFn)); )?
        let dispatch = if $variant == "avx2" { "AVX2 code called directly" } else { "portable C called directly" };
        $out.push(PqClean {
            meta: ImplMeta::new($name, concat!("pqclean/", $variant), &version($krate), dispatch),
            keypair: f::$kp,
            enc: f::$enc,
            dec: f::$dec,
            derand,
        });
    }};
}

/// Every PQClean implementation this build and CPU offer, and the ones left out with why.
pub fn implementations() -> super::Offered {
    let mut v: Vec<PqClean> = Vec::new();
    let mut skipped = Vec::new();
    entry!(v, "ML-KEM-512", "pqcrypto-mlkem", "clean", pqcrypto_mlkem::ffi,
        PQCLEAN_MLKEM512_CLEAN_crypto_kem_keypair, PQCLEAN_MLKEM512_CLEAN_crypto_kem_enc,
        PQCLEAN_MLKEM512_CLEAN_crypto_kem_dec,
        derand: PQCLEAN_MLKEM512_CLEAN_crypto_kem_keypair_derand, PQCLEAN_MLKEM512_CLEAN_crypto_kem_enc_derand);
    entry!(v, "ML-KEM-768", "pqcrypto-mlkem", "clean", pqcrypto_mlkem::ffi,
        PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair, PQCLEAN_MLKEM768_CLEAN_crypto_kem_enc,
        PQCLEAN_MLKEM768_CLEAN_crypto_kem_dec,
        derand: PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair_derand, PQCLEAN_MLKEM768_CLEAN_crypto_kem_enc_derand);
    entry!(v, "ML-KEM-1024", "pqcrypto-mlkem", "clean", pqcrypto_mlkem::ffi,
        PQCLEAN_MLKEM1024_CLEAN_crypto_kem_keypair, PQCLEAN_MLKEM1024_CLEAN_crypto_kem_enc,
        PQCLEAN_MLKEM1024_CLEAN_crypto_kem_dec,
        derand: PQCLEAN_MLKEM1024_CLEAN_crypto_kem_keypair_derand, PQCLEAN_MLKEM1024_CLEAN_crypto_kem_enc_derand);
    entry!(
        v,
        "ntruhps2048509",
        "pqcrypto-ntru",
        "clean",
        pqcrypto_ntru::ffi,
        PQCLEAN_NTRUHPS2048509_CLEAN_crypto_kem_keypair,
        PQCLEAN_NTRUHPS2048509_CLEAN_crypto_kem_enc,
        PQCLEAN_NTRUHPS2048509_CLEAN_crypto_kem_dec
    );
    entry!(
        v,
        "ntruhps2048677",
        "pqcrypto-ntru",
        "clean",
        pqcrypto_ntru::ffi,
        PQCLEAN_NTRUHPS2048677_CLEAN_crypto_kem_keypair,
        PQCLEAN_NTRUHPS2048677_CLEAN_crypto_kem_enc,
        PQCLEAN_NTRUHPS2048677_CLEAN_crypto_kem_dec
    );
    entry!(
        v,
        "ntruhps4096821",
        "pqcrypto-ntru",
        "clean",
        pqcrypto_ntru::ffi,
        PQCLEAN_NTRUHPS4096821_CLEAN_crypto_kem_keypair,
        PQCLEAN_NTRUHPS4096821_CLEAN_crypto_kem_enc,
        PQCLEAN_NTRUHPS4096821_CLEAN_crypto_kem_dec
    );
    entry!(
        v,
        "ntruhps40961229",
        "pqcrypto-ntru",
        "clean",
        pqcrypto_ntru::ffi,
        PQCLEAN_NTRUHPS40961229_CLEAN_crypto_kem_keypair,
        PQCLEAN_NTRUHPS40961229_CLEAN_crypto_kem_enc,
        PQCLEAN_NTRUHPS40961229_CLEAN_crypto_kem_dec
    );
    entry!(
        v,
        "ntruhrss701",
        "pqcrypto-ntru",
        "clean",
        pqcrypto_ntru::ffi,
        PQCLEAN_NTRUHRSS701_CLEAN_crypto_kem_keypair,
        PQCLEAN_NTRUHRSS701_CLEAN_crypto_kem_enc,
        PQCLEAN_NTRUHRSS701_CLEAN_crypto_kem_dec
    );
    entry!(
        v,
        "ntruhrss1373",
        "pqcrypto-ntru",
        "clean",
        pqcrypto_ntru::ffi,
        PQCLEAN_NTRUHRSS1373_CLEAN_crypto_kem_keypair,
        PQCLEAN_NTRUHRSS1373_CLEAN_crypto_kem_enc,
        PQCLEAN_NTRUHRSS1373_CLEAN_crypto_kem_dec
    );

    if avx2_usable() {
        // A block, not the `if`: on other architectures the `else` below still lists them.
        #[cfg(target_arch = "x86_64")]
        {
        entry!(v, "ML-KEM-512", "pqcrypto-mlkem", "avx2", pqcrypto_mlkem::ffi,
            PQCLEAN_MLKEM512_AVX2_crypto_kem_keypair, PQCLEAN_MLKEM512_AVX2_crypto_kem_enc,
            PQCLEAN_MLKEM512_AVX2_crypto_kem_dec,
            derand: PQCLEAN_MLKEM512_AVX2_crypto_kem_keypair_derand, PQCLEAN_MLKEM512_AVX2_crypto_kem_enc_derand);
        entry!(v, "ML-KEM-768", "pqcrypto-mlkem", "avx2", pqcrypto_mlkem::ffi,
            PQCLEAN_MLKEM768_AVX2_crypto_kem_keypair, PQCLEAN_MLKEM768_AVX2_crypto_kem_enc,
            PQCLEAN_MLKEM768_AVX2_crypto_kem_dec,
            derand: PQCLEAN_MLKEM768_AVX2_crypto_kem_keypair_derand, PQCLEAN_MLKEM768_AVX2_crypto_kem_enc_derand);
        entry!(v, "ML-KEM-1024", "pqcrypto-mlkem", "avx2", pqcrypto_mlkem::ffi,
            PQCLEAN_MLKEM1024_AVX2_crypto_kem_keypair, PQCLEAN_MLKEM1024_AVX2_crypto_kem_enc,
            PQCLEAN_MLKEM1024_AVX2_crypto_kem_dec,
            derand: PQCLEAN_MLKEM1024_AVX2_crypto_kem_keypair_derand, PQCLEAN_MLKEM1024_AVX2_crypto_kem_enc_derand);
        entry!(
            v,
            "ntruhps2048509",
            "pqcrypto-ntru",
            "avx2",
            pqcrypto_ntru::ffi,
            PQCLEAN_NTRUHPS2048509_AVX2_crypto_kem_keypair,
            PQCLEAN_NTRUHPS2048509_AVX2_crypto_kem_enc,
            PQCLEAN_NTRUHPS2048509_AVX2_crypto_kem_dec
        );
        entry!(
            v,
            "ntruhps2048677",
            "pqcrypto-ntru",
            "avx2",
            pqcrypto_ntru::ffi,
            PQCLEAN_NTRUHPS2048677_AVX2_crypto_kem_keypair,
            PQCLEAN_NTRUHPS2048677_AVX2_crypto_kem_enc,
            PQCLEAN_NTRUHPS2048677_AVX2_crypto_kem_dec
        );
        entry!(
            v,
            "ntruhps4096821",
            "pqcrypto-ntru",
            "avx2",
            pqcrypto_ntru::ffi,
            PQCLEAN_NTRUHPS4096821_AVX2_crypto_kem_keypair,
            PQCLEAN_NTRUHPS4096821_AVX2_crypto_kem_enc,
            PQCLEAN_NTRUHPS4096821_AVX2_crypto_kem_dec
        );
        entry!(
            v,
            "ntruhrss701",
            "pqcrypto-ntru",
            "avx2",
            pqcrypto_ntru::ffi,
            PQCLEAN_NTRUHRSS701_AVX2_crypto_kem_keypair,
            PQCLEAN_NTRUHRSS701_AVX2_crypto_kem_enc,
            PQCLEAN_NTRUHRSS701_AVX2_crypto_kem_dec
        );
        }
    } else {
        for a in [
            "ML-KEM-512",
            "ML-KEM-768",
            "ML-KEM-1024",
            "ntruhps2048509",
            "ntruhps2048677",
            "ntruhps4096821",
            "ntruhrss701",
        ] {
            skipped.push(super::Unavailable {
                label: format!("{a}@pqclean/avx2"),
                reason: super::avx2_missing(std::env::consts::ARCH, "AVX2, BMI2 or POPCNT"),
            });
        }
    }
    let impls = v.into_iter().map(|k| Box::new(k) as Box<dyn Kem>).collect();
    super::Offered {
        impls,
        unavailable: skipped,
    }
}
