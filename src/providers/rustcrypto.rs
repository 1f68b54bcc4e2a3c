//! RustCrypto's `ml-kem` (pure Rust).
//!
//! Secret keys are exchanged in the FIPS 203 expanded form (the 2400-byte `dk` of ML-KEM-768),
//! as every other implementation here uses it, so decapsulation parses that form each time.
//! `ml-kem` 0.3 prefers 64-byte seeds as secret keys and marks the expanded form deprecated.
//!
//! # What one timed call does
//!
//! - keygen: `generate_keypair_from_rng` and the encapsulation key's bytes; the
//!   `DecapsulationKey` is kept.
//! - encaps: `EncapsulationKey::new` from the peer's bytes (a parse) and
//!   `encapsulate_with_rng`.
//! - decaps: `decapsulate` with the kept `DecapsulationKey`.
//! - sk-import: `DecapsulationKey::from_expanded` (parses and checks the expanded key).
//! - pk-import: `EncapsulationKey::new` alone.
//!
//! The generator handed to ml-kem is [`SeededRng`]: `getrandom`, as ml-kem's own
//! `generate_keypair` and `encapsulate` use it, or `profile`'s seeded stream once
//! [`Kem::fix_randomness`] has installed one.

use super::seeded::{self, SeededRng};
use crate::kem::{ImplMeta, Imports, Kem, KemError, Randomness, SecretKey, SeedLens};

/// How [`Kem::fix_randomness`] fixes ml-kem's draws.
const FIXED: &str = "ml-kem takes its generator as an argument (generate_keypair_from_rng, \
    encapsulate_with_rng; decaps draws none): kembench's seeded ChaCha20 stream instead of \
    getrandom";

/// Lengths were checked before the call; a conversion failure here is a catalog bug.
fn bad(what: &'static str) -> KemError {
    KemError::Failure(format!("{what} does not fit ml-kem's type"))
}

macro_rules! rustcrypto_kem {
    ($ty:ident, $name:literal, $params:ident, $m:ident) => {
        /// RustCrypto ML-KEM for one parameter set.
        pub struct $ty {
            meta: ImplMeta,
        }

        #[allow(deprecated)] // the expanded key form; see the module docs
        impl Kem for $ty {
            fn meta(&self) -> &ImplMeta {
                &self.meta
            }

            fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
                use ml_kem::{ExpandedKeyEncoding, Kem as _, KeyExport};
                let (dk, ek) = ml_kem::$params::generate_keypair_from_rng(&mut SeededRng);
                pk.copy_from_slice(&ek.to_bytes());
                sk.copy_from_slice(&dk.to_expanded_bytes());
                Ok(())
            }

            fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
                use ml_kem::Encapsulate;
                let key = pk.try_into().map_err(|_| bad("public key"))?;
                let ek = ml_kem::$m::EncapsulationKey::new(&key)
                    .map_err(|_| KemError::Rejected("invalid encapsulation key".into()))?;
                let (c, k) = ek.encapsulate_with_rng(&mut SeededRng);
                ct.copy_from_slice(&c);
                ss.copy_from_slice(&k);
                Ok(())
            }

            fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
                Self::decapsulate(&Self::import(sk)?, ct, ss)
            }

            fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
                use ml_kem::{Kem as _, KeyExport};
                let (dk, ek) = ml_kem::$params::generate_keypair_from_rng(&mut SeededRng);
                pk.copy_from_slice(&ek.to_bytes());
                Ok(SecretKey::new(dk))
            }

            fn decaps_kept_raw(
                &self,
                sk: &mut SecretKey,
                ct: &[u8],
                ss: &mut [u8],
            ) -> Result<(), KemError> {
                Self::decapsulate(sk.get()?, ct, ss)
            }

            fn sk_import_raw(&self, sk: &[u8]) -> Result<SecretKey, KemError> {
                Ok(SecretKey::new(Self::import(sk)?))
            }

            fn sk_export_raw(&self, sk: &SecretKey, out: &mut [u8]) -> Result<(), KemError> {
                use ml_kem::ExpandedKeyEncoding;
                let dk: &ml_kem::$m::DecapsulationKey = sk.get()?;
                out.copy_from_slice(&dk.to_expanded_bytes());
                Ok(())
            }

            fn pk_import_raw(&self, pk: &[u8]) -> Result<(), KemError> {
                let key = pk.try_into().map_err(|_| bad("public key"))?;
                ml_kem::$m::EncapsulationKey::new(&key)
                    .map(drop)
                    .map_err(|_| KemError::Rejected("invalid encapsulation key".into()))
            }

            fn imports(&self) -> Imports {
                Imports {
                    secret_key: true,
                    public_key: true,
                }
            }

            fn seed_lens(&self) -> SeedLens {
                SeedLens::ML_KEM
            }

            fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
                seeded::install(seed);
                Randomness::Fixed(FIXED.into())
            }

            fn keypair_derand_raw(
                &self,
                seed: &[u8],
                pk: &mut [u8],
                sk: &mut [u8],
            ) -> Result<(), KemError> {
                use ml_kem::{ExpandedKeyEncoding, KeyExport};
                let seed: ml_kem::Seed = seed.try_into().map_err(|_| bad("seed"))?;
                let dk = ml_kem::$m::DecapsulationKey::from_seed(seed);
                pk.copy_from_slice(&dk.encapsulation_key().to_bytes());
                sk.copy_from_slice(&dk.to_expanded_bytes());
                Ok(())
            }

            fn encaps_derand_raw(
                &self,
                pk: &[u8],
                seed: &[u8],
                ct: &mut [u8],
                ss: &mut [u8],
            ) -> Result<(), KemError> {
                let key = pk.try_into().map_err(|_| bad("public key"))?;
                let ek = ml_kem::$m::EncapsulationKey::new(&key)
                    .map_err(|_| KemError::Rejected("invalid encapsulation key".into()))?;
                let m: ml_kem::B32 = seed.try_into().map_err(|_| bad("seed"))?;
                let (c, k) = ek.encapsulate_deterministic(&m);
                ct.copy_from_slice(&c);
                ss.copy_from_slice(&k);
                Ok(())
            }
        }

        #[allow(deprecated)] // the expanded key form; see the module docs
        impl $ty {
            fn import(sk: &[u8]) -> Result<ml_kem::$m::DecapsulationKey, KemError> {
                let expanded: ml_kem::$m::ExpandedDecapsulationKey =
                    sk.try_into().map_err(|_| bad("secret key"))?;
                ml_kem::$m::DecapsulationKey::from_expanded(&expanded)
                    .map_err(|_| KemError::Rejected("invalid decapsulation key".into()))
            }

            fn decapsulate(
                dk: &ml_kem::$m::DecapsulationKey,
                ct: &[u8],
                ss: &mut [u8],
            ) -> Result<(), KemError> {
                use ml_kem::Decapsulate;
                let c: ml_kem::$m::Ciphertext = ct.try_into().map_err(|_| bad("ciphertext"))?;
                ss.copy_from_slice(&dk.decapsulate(&c));
                Ok(())
            }

            fn new() -> Self {
                $ty {
                    meta: ImplMeta::new(
                        $name,
                        "rustcrypto",
                        &format!("ml-kem {}", env!("KEMBENCH_DEP_ML_KEM")),
                        "portable Rust",
                    ),
                }
            }
        }
    };
}

rustcrypto_kem!(RustCrypto512, "ML-KEM-512", MlKem512, ml_kem_512);
rustcrypto_kem!(RustCrypto768, "ML-KEM-768", MlKem768, ml_kem_768);
rustcrypto_kem!(RustCrypto1024, "ML-KEM-1024", MlKem1024, ml_kem_1024);

/// Every RustCrypto implementation.
pub fn implementations() -> Vec<Box<dyn Kem>> {
    vec![
        Box::new(RustCrypto512::new()),
        Box::new(RustCrypto768::new()),
        Box::new(RustCrypto1024::new()),
    ]
}
