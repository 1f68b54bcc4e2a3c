//! libcrux ML-KEM (formally verified Rust), portable and AVX2 variants called explicitly (and
//! NEON in a build for aarch64).
//!
//! libcrux takes its randomness as arguments, so the randomized operations draw 64 (key
//! generation) or 32 (encapsulation) bytes from the operating system first, exactly as its own
//! `rand` wrappers do, and the derandomized operations are the same functions with given seeds.
//! Under `profile` ([`Kem::fix_randomness`]) those bytes come from the seeded stream instead.
//!
//! # What one timed call does
//!
//! keygen: 64 bytes from the OS, `generate_key_pair`, the public key copied out and the
//! `MlKemPrivateKey` kept; encaps: the public key bytes into `MlKemPublicKey` (a copy; libcrux
//! validates nothing here), 32 bytes from the OS, `encapsulate`; decaps: `decapsulate` with
//! the kept private key (the ciphertext copied into its type). libcrux has no import step:
//! its keys are byte arrays.

use super::seeded;
use crate::kem::{ImplMeta, Kem, KemError, Randomness, SecretKey, SeedLens};

type EncFn = fn(&[u8], &[u8; 32], &mut [u8], &mut [u8]) -> Result<(), KemError>;
type KeepFn = fn(&[u8; 64], &mut [u8]) -> SecretKey;
type DecKeptFn = fn(&SecretKey, &[u8], &mut [u8]) -> Result<(), KemError>;
type ImportFn = fn(&[u8]) -> Result<SecretKey, KemError>;
type ExportFn = fn(&SecretKey, &mut [u8]) -> Result<(), KemError>;

/// One libcrux parameter set and code path.
pub struct Libcrux {
    meta: ImplMeta,
    enc: EncFn,
    keep: KeepFn,
    dec_kept: DecKeptFn,
    import: ImportFn,
    export: ExportFn,
}

/// `N` bytes from the operating system, or from `profile`'s seeded stream once
/// [`fix_randomness`](Kem::fix_randomness) has installed one.
fn random<const N: usize>() -> Result<[u8; N], KemError> {
    let mut r = [0u8; N];
    seeded::fill_or_os(&mut r).map_err(|e| KemError::Failure(format!("getrandom: {e}")))?;
    Ok(r)
}

fn array<const N: usize>(s: &[u8]) -> Result<&[u8; N], KemError> {
    s.try_into().map_err(|_| KemError::InvalidLength {
        what: "seed",
        expected: N,
        got: s.len(),
    })
}

impl Libcrux {
    /// A key pair from `seed` on the byte path: the kept key's bytes written out.
    fn keypair_from(&self, seed: &[u8; 64], pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        (self.export)(&(self.keep)(seed, pk), sk)
    }
}

impl Kem for Libcrux {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        self.keypair_from(&random::<64>()?, pk, sk)
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        (self.enc)(pk, &random::<32>()?, ct, ss)
    }

    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        (self.dec_kept)(&(self.import)(sk)?, ct, ss)
    }

    fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
        Ok((self.keep)(&random::<64>()?, pk))
    }

    fn decaps_kept_raw(
        &self,
        sk: &mut SecretKey,
        ct: &[u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        (self.dec_kept)(sk, ct, ss)
    }

    fn sk_import_raw(&self, sk: &[u8]) -> Result<SecretKey, KemError> {
        (self.import)(sk)
    }

    fn sk_export_raw(&self, sk: &SecretKey, out: &mut [u8]) -> Result<(), KemError> {
        (self.export)(sk, out)
    }

    fn seed_lens(&self) -> SeedLens {
        SeedLens::ML_KEM
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        seeded::install(seed);
        Randomness::Fixed(
            "the adapter draws libcrux's randomness itself (64 bytes for keygen, 32 for encaps; \
             decaps draws none): from kembench's seeded ChaCha20 stream instead of getrandom"
                .into(),
        )
    }

    fn keypair_derand_raw(
        &self,
        seed: &[u8],
        pk: &mut [u8],
        sk: &mut [u8],
    ) -> Result<(), KemError> {
        self.keypair_from(array::<64>(seed)?, pk, sk)
    }

    fn encaps_derand_raw(
        &self,
        pk: &[u8],
        seed: &[u8],
        ct: &mut [u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        (self.enc)(pk, array::<32>(seed)?, ct, ss)
    }
}

/// Lengths were checked before the call; a conversion failure here is a catalog bug.
fn bad(what: &'static str) -> KemError {
    KemError::Failure(format!("{what} does not fit libcrux's type"))
}

macro_rules! libcrux_entry {
    ($name:literal, $variant:literal, $m:path, $pk:path, $sk:path, $ct:path) => {{
        use $ct as Ct;
        use $m as m;
        use $pk as Pk;
        use $sk as Sk;
        fn enc(pk: &[u8], seed: &[u8; 32], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
            let pk = Pk::try_from(pk).map_err(|_| bad("public key"))?;
            let (c, k) = m::encapsulate(&pk, *seed);
            ct.copy_from_slice(c.as_ref());
            ss.copy_from_slice(&k);
            Ok(())
        }
        // Kept keys are libcrux's own private-key type, as a libcrux user keeps them.
        fn keep(seed: &[u8; 64], pk: &mut [u8]) -> SecretKey {
            let kp = m::generate_key_pair(*seed);
            pk.copy_from_slice(kp.pk());
            SecretKey::new(kp.into_parts().0)
        }
        fn dec_kept(sk: &SecretKey, ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
            let ct = Ct::try_from(ct).map_err(|_| bad("ciphertext"))?;
            ss.copy_from_slice(&m::decapsulate(sk.get::<Sk>()?, &ct));
            Ok(())
        }
        fn import(sk: &[u8]) -> Result<SecretKey, KemError> {
            Ok(SecretKey::new(
                Sk::try_from(sk).map_err(|_| bad("secret key"))?,
            ))
        }
        fn export(sk: &SecretKey, out: &mut [u8]) -> Result<(), KemError> {
            out.copy_from_slice(sk.get::<Sk>()?.as_slice());
            Ok(())
        }
        let dispatch = match $variant {
            "avx2" => "AVX2 code called directly",
            "neon" => "NEON code called directly",
            _ => "portable Rust called directly",
        };
        Libcrux {
            meta: ImplMeta::new(
                $name,
                concat!("libcrux/", $variant),
                &format!("libcrux-ml-kem {}", env!("KEMBENCH_DEP_LIBCRUX_ML_KEM")),
                dispatch,
            ),
            enc,
            keep,
            dec_kept,
            import,
            export,
        }
    }};
}

/// Whether this CPU runs libcrux's AVX2 code.
fn avx2_usable() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Every libcrux implementation this build and CPU offer, and the ones left out with why.
pub fn implementations() -> super::Offered {
    use libcrux_ml_kem::{mlkem1024, mlkem512, mlkem768};
    // Portable only on architectures without AVX2 or NEON code.
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(unused_mut)
    )]
    let mut v = vec![
        libcrux_entry!(
            "ML-KEM-512",
            "portable",
            mlkem512::portable,
            mlkem512::MlKem512PublicKey,
            mlkem512::MlKem512PrivateKey,
            mlkem512::MlKem512Ciphertext
        ),
        libcrux_entry!(
            "ML-KEM-768",
            "portable",
            mlkem768::portable,
            mlkem768::MlKem768PublicKey,
            mlkem768::MlKem768PrivateKey,
            mlkem768::MlKem768Ciphertext
        ),
        libcrux_entry!(
            "ML-KEM-1024",
            "portable",
            mlkem1024::portable,
            mlkem1024::MlKem1024PublicKey,
            mlkem1024::MlKem1024PrivateKey,
            mlkem1024::MlKem1024Ciphertext
        ),
    ];
    let mut skipped = Vec::new();
    #[cfg(target_arch = "x86_64")]
    if avx2_usable() {
        v.push(libcrux_entry!(
            "ML-KEM-512",
            "avx2",
            mlkem512::avx2,
            mlkem512::MlKem512PublicKey,
            mlkem512::MlKem512PrivateKey,
            mlkem512::MlKem512Ciphertext
        ));
        v.push(libcrux_entry!(
            "ML-KEM-768",
            "avx2",
            mlkem768::avx2,
            mlkem768::MlKem768PublicKey,
            mlkem768::MlKem768PrivateKey,
            mlkem768::MlKem768Ciphertext
        ));
        v.push(libcrux_entry!(
            "ML-KEM-1024",
            "avx2",
            mlkem1024::avx2,
            mlkem1024::MlKem1024PublicKey,
            mlkem1024::MlKem1024PrivateKey,
            mlkem1024::MlKem1024Ciphertext
        ));
    }
    // NEON is part of every aarch64 CPU: no run-time check.
    #[cfg(target_arch = "aarch64")]
    {
        v.push(libcrux_entry!(
            "ML-KEM-512",
            "neon",
            mlkem512::neon,
            mlkem512::MlKem512PublicKey,
            mlkem512::MlKem512PrivateKey,
            mlkem512::MlKem512Ciphertext
        ));
        v.push(libcrux_entry!(
            "ML-KEM-768",
            "neon",
            mlkem768::neon,
            mlkem768::MlKem768PublicKey,
            mlkem768::MlKem768PrivateKey,
            mlkem768::MlKem768Ciphertext
        ));
        v.push(libcrux_entry!(
            "ML-KEM-1024",
            "neon",
            mlkem1024::neon,
            mlkem1024::MlKem1024PublicKey,
            mlkem1024::MlKem1024PrivateKey,
            mlkem1024::MlKem1024Ciphertext
        ));
    }
    if !avx2_usable() {
        for a in ["ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"] {
            skipped.push(super::Unavailable {
                label: format!("{a}@libcrux/avx2"),
                reason: super::avx2_missing(std::env::consts::ARCH, "AVX2"),
            });
        }
    }
    let impls = v.into_iter().map(|k| Box::new(k) as Box<dyn Kem>).collect();
    super::Offered {
        impls,
        unavailable: skipped,
    }
}
