//! RustCrypto's pure-Rust KEMs: `ml-kem` (FIPS 203), `hqc-kem` (HQC of the 2025-08-22
//! specification, the FIPS 207 draft: `HQC-1`/`-3`/`-5`) and `x-wing` (X-Wing,
//! draft-connolly-cfrg-xwing-kem-06).
//!
//! ML-KEM secret keys are exchanged in the FIPS 203 expanded form (the 2400-byte `dk` of
//! ML-KEM-768), as every other implementation here uses it, so decapsulation parses that form
//! each time. `ml-kem` 0.3 prefers 64-byte seeds as secret keys and marks the expanded form
//! deprecated.
//!
//! # What one timed call does
//!
//! ML-KEM:
//! - keygen: `generate_keypair_from_rng` and the encapsulation key's bytes; the
//!   `DecapsulationKey` is kept.
//! - encaps: `EncapsulationKey::new` from the peer's bytes (a parse) and
//!   `encapsulate_with_rng`.
//! - decaps: `decapsulate` with the kept `DecapsulationKey`.
//! - sk-import: `DecapsulationKey::from_expanded` (parses and checks the expanded key).
//! - pk-import: `EncapsulationKey::new` alone.
//!
//! HQC (`hqc-kem`, whose key types are the encodings themselves, nothing precomputed):
//! - keygen: `generate_key` and the encapsulation key's bytes; the `DecapsulationKey` (its
//!   bytes and a copy of the public key) is kept.
//! - encaps: `EncapsulationKey::try_from` the peer's bytes (a length check and a copy) and
//!   `encapsulate`.
//! - decaps: `Ciphertext::try_from` (a copy) and `decapsulate` with the kept key, which parses
//!   the secret key's vectors from its bytes on every call, as `hqc-kem` does for any caller.
//! - no import steps of their own (a copy).
//!
//! X-Wing (`x-wing`, whose secret key is a 32-byte seed):
//! - keygen: `generate_keypair_from_rng` (the seed expanded once: ML-KEM-768 key generation,
//!   an X25519 base-point multiplication) and the encapsulation key's bytes; the
//!   `DecapsulationKey` is kept.
//! - encaps: `EncapsulationKey::try_from` the peer's bytes (the ML-KEM-768 key parsed and
//!   checked) and `encapsulate_with_rng`.
//! - decaps: `decapsulate` with the kept key, which in x-wing 0.1 expands the seed again on
//!   every call (SHAKE256, ML-KEM-768 key generation, an X25519 base-point multiplication)
//!   before the ML-KEM-768 decapsulation, the X25519 exchange and the SHA3-256 combiner: what
//!   any user of the crate pays per decapsulation.
//! - sk-import: `DecapsulationKey::from` the seed (the expansion); pk-import:
//!   `EncapsulationKey::try_from` alone.
//!
//! The generator handed to each crate is [`SeededRng`]: `getrandom`, as the crates' own
//! generators use it, or `profile`'s seeded stream once [`Kem::fix_randomness`] has installed
//! one, or the known-answer generator while `verify` regenerates a KAT file.

use super::seeded::{self, SeededRng};
use crate::kem::{ImplMeta, Imports, Kem, KemError, Randomness, SecretKey, SeedLens};
use std::path::PathBuf;

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

/// How [`Kem::fix_randomness`] fixes hqc-kem's and x-wing's draws.
const FIXED_ARG: &str = "the crate takes its generator as an argument (keygen and encaps; decaps \
    draws none): kembench's seeded ChaCha20 stream instead of getrandom";

/// A file of a crate as the build fetched it (`build.rs`'s `KEMBENCH_SRC_*`), or of the copy
/// the environment variable of the same name names at run time (a registry moved since the
/// build); `None` when neither is known.
fn crate_file(var: &str, built: &str, rel: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var)
        .map(PathBuf::from)
        .or_else(|| (built != "absent").then(|| PathBuf::from(built)))?;
    Some(dir.join(rel))
}

macro_rules! rustcrypto_hqc {
    ($ty:ident, $name:literal, $m:ident, $rsp:literal) => {
        /// RustCrypto HQC (2025-08-22 specification) for one parameter set.
        pub struct $ty {
            meta: ImplMeta,
        }

        impl $ty {
            fn new() -> Self {
                $ty {
                    meta: ImplMeta::new(
                        $name,
                        "rustcrypto",
                        &format!("hqc-kem {}", env!("KEMBENCH_DEP_HQC_KEM")),
                        "run-time CPU dispatch (PCLMULQDQ)",
                    ),
                }
            }

            fn secret(sk: &[u8]) -> Result<hqc_kem::$m::DecapsulationKey, KemError> {
                hqc_kem::$m::DecapsulationKey::try_from(sk).map_err(|_| bad("secret key"))
            }

            fn public(pk: &[u8]) -> Result<hqc_kem::$m::EncapsulationKey, KemError> {
                hqc_kem::$m::EncapsulationKey::try_from(pk).map_err(|_| bad("public key"))
            }

            fn decapsulate(
                dk: &hqc_kem::$m::DecapsulationKey,
                ct: &[u8],
                ss: &mut [u8],
            ) -> Result<(), KemError> {
                let c = hqc_kem::$m::Ciphertext::try_from(ct).map_err(|_| bad("ciphertext"))?;
                ss.copy_from_slice(dk.decapsulate(&c).as_ref());
                Ok(())
            }

            fn encapsulated(
                (c, k): (hqc_kem::$m::Ciphertext, hqc_kem::$m::SharedSecret),
                ct: &mut [u8],
                ss: &mut [u8],
            ) {
                ct.copy_from_slice(c.as_ref());
                ss.copy_from_slice(k.as_ref());
            }
        }

        impl Kem for $ty {
            fn meta(&self) -> &ImplMeta {
                &self.meta
            }

            fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
                let (ek, dk) = hqc_kem::$m::generate_key(&mut SeededRng);
                pk.copy_from_slice(ek.as_ref());
                sk.copy_from_slice(dk.as_ref());
                Ok(())
            }

            fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
                let ek = Self::public(pk)?;
                Self::encapsulated(ek.encapsulate(&mut SeededRng), ct, ss);
                Ok(())
            }

            fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
                Self::decapsulate(&Self::secret(sk)?, ct, ss)
            }

            fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
                let (ek, dk) = hqc_kem::$m::generate_key(&mut SeededRng);
                pk.copy_from_slice(ek.as_ref());
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
                Ok(SecretKey::new(Self::secret(sk)?))
            }

            fn sk_export_raw(&self, sk: &SecretKey, out: &mut [u8]) -> Result<(), KemError> {
                let dk: &hqc_kem::$m::DecapsulationKey = sk.get()?;
                out.copy_from_slice(dk.as_ref());
                Ok(())
            }

            fn seed_lens(&self) -> SeedLens {
                // Key generation from seed_kem; encapsulation from m || salt, the order in
                // which `encapsulate` draws them.
                SeedLens {
                    keypair: Some(32),
                    encaps: Some(hqc_kem::$m::MESSAGE_SIZE + hqc_kem::$m::SALT_SIZE),
                }
            }

            fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
                seeded::install(seed);
                Randomness::Fixed(FIXED_ARG.into())
            }

            fn keypair_derand_raw(
                &self,
                seed: &[u8],
                pk: &mut [u8],
                sk: &mut [u8],
            ) -> Result<(), KemError> {
                let seed: &[u8; 32] = seed.try_into().map_err(|_| bad("seed"))?;
                let (ek, dk) = hqc_kem::$m::generate_key_deterministic(seed);
                pk.copy_from_slice(ek.as_ref());
                sk.copy_from_slice(dk.as_ref());
                Ok(())
            }

            fn encaps_derand_raw(
                &self,
                pk: &[u8],
                seed: &[u8],
                ct: &mut [u8],
                ss: &mut [u8],
            ) -> Result<(), KemError> {
                let (m, salt) = seed.split_at(hqc_kem::$m::MESSAGE_SIZE);
                let salt: &[u8; 16] = salt.try_into().map_err(|_| bad("salt"))?;
                let out = Self::public(pk)?
                    .encapsulate_deterministic(m, salt)
                    .map_err(|e| KemError::Failure(format!("{e:?}")))?;
                Self::encapsulated(out, ct, ss);
                Ok(())
            }

            fn known_answer_transcript(
                &self,
                entries: usize,
            ) -> Option<Result<String, KemError>> {
                Some(super::drbg::kat_transcript(self, entries))
            }

            /// The reference implementation's KAT file as `hqc-kem` ships it (100 entries).
            fn known_answer_file(&self) -> Option<PathBuf> {
                crate_file(
                    "KEMBENCH_SRC_HQC_KEM",
                    env!("KEMBENCH_SRC_HQC_KEM"),
                    concat!("kat/", $rsp),
                )
            }
        }
    };
}

rustcrypto_hqc!(RustCryptoHqc1, "HQC-1", hqc128, "hqc-1.rsp");
rustcrypto_hqc!(RustCryptoHqc3, "HQC-3", hqc192, "hqc-3.rsp");
rustcrypto_hqc!(RustCryptoHqc5, "HQC-5", hqc256, "hqc-5.rsp");

/// RustCrypto X-Wing (draft-connolly-cfrg-xwing-kem-06).
pub struct RustCryptoXWing {
    meta: ImplMeta,
}

impl RustCryptoXWing {
    fn new() -> Self {
        RustCryptoXWing {
            meta: ImplMeta::new(
                "X-Wing",
                "rustcrypto",
                &format!("x-wing {}", env!("KEMBENCH_DEP_X_WING")),
                "portable Rust",
            ),
        }
    }

    fn public(pk: &[u8]) -> Result<x_wing::EncapsulationKey, KemError> {
        x_wing::EncapsulationKey::try_from(pk)
            .map_err(|_| KemError::Rejected("invalid encapsulation key".into()))
    }

    fn secret(sk: &[u8]) -> Result<x_wing::DecapsulationKey, KemError> {
        let seed: [u8; x_wing::DECAPSULATION_KEY_SIZE] =
            sk.try_into().map_err(|_| bad("secret key"))?;
        Ok(x_wing::DecapsulationKey::from(seed))
    }

    fn decapsulate(
        dk: &x_wing::DecapsulationKey,
        ct: &[u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        use x_wing::Decapsulate;
        let c = x_wing::Ciphertext::try_from(ct).map_err(|_| bad("ciphertext"))?;
        ss.copy_from_slice(&dk.decapsulate(&c));
        Ok(())
    }

    fn keypair(pk: &mut [u8]) -> x_wing::DecapsulationKey {
        use x_wing::{Kem as _, KeyExport};
        let (dk, ek) = x_wing::XWingKem::generate_keypair_from_rng(&mut SeededRng);
        pk.copy_from_slice(&ek.to_bytes());
        dk
    }
}

impl Kem for RustCryptoXWing {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        sk.copy_from_slice(Self::keypair(pk).as_bytes());
        Ok(())
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        use x_wing::Encapsulate;
        let (c, k) = Self::public(pk)?.encapsulate_with_rng(&mut SeededRng);
        ct.copy_from_slice(&c);
        ss.copy_from_slice(&k);
        Ok(())
    }

    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        Self::decapsulate(&Self::secret(sk)?, ct, ss)
    }

    fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
        Ok(SecretKey::new(Self::keypair(pk)))
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
        Ok(SecretKey::new(Self::secret(sk)?))
    }

    fn sk_export_raw(&self, sk: &SecretKey, out: &mut [u8]) -> Result<(), KemError> {
        let dk: &x_wing::DecapsulationKey = sk.get()?;
        out.copy_from_slice(dk.as_bytes());
        Ok(())
    }

    fn pk_import_raw(&self, pk: &[u8]) -> Result<(), KemError> {
        Self::public(pk).map(drop)
    }

    fn imports(&self) -> Imports {
        Imports {
            secret_key: true,
            public_key: true,
        }
    }

    fn seed_lens(&self) -> SeedLens {
        // The draft's seeded operations: key generation from the 32-byte seed that is the
        // secret key, encapsulation from 64 bytes (ML-KEM's m, then the X25519 ephemeral).
        SeedLens {
            keypair: Some(x_wing::DECAPSULATION_KEY_SIZE),
            encaps: Some(x_wing::ENCAPSULATION_RANDOMNESS_SIZE),
        }
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        seeded::install(seed);
        Randomness::Fixed(FIXED_ARG.into())
    }

    fn keypair_derand_raw(
        &self,
        seed: &[u8],
        pk: &mut [u8],
        sk: &mut [u8],
    ) -> Result<(), KemError> {
        use x_wing::{Decapsulator, KeyExport};
        let dk = Self::secret(seed)?;
        pk.copy_from_slice(&dk.encapsulation_key().to_bytes());
        sk.copy_from_slice(dk.as_bytes());
        Ok(())
    }

    fn encaps_derand_raw(
        &self,
        pk: &[u8],
        seed: &[u8],
        ct: &mut [u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        let seed: [u8; x_wing::ENCAPSULATION_RANDOMNESS_SIZE] =
            seed.try_into().map_err(|_| bad("seed"))?;
        // The draft's `EncapsulateDerand` (x-wing's hazmat entry point, what its own test
        // vectors run through).
        let (c, k) = Self::public(pk)?.encapsulate_deterministic(&seed.into());
        ct.copy_from_slice(&c);
        ss.copy_from_slice(&k);
        Ok(())
    }
}

/// Every RustCrypto implementation.
pub fn implementations() -> Vec<Box<dyn Kem>> {
    vec![
        Box::new(RustCrypto512::new()),
        Box::new(RustCrypto768::new()),
        Box::new(RustCrypto1024::new()),
        Box::new(RustCryptoHqc1::new()),
        Box::new(RustCryptoHqc3::new()),
        Box::new(RustCryptoHqc5::new()),
        Box::new(RustCryptoXWing::new()),
    ]
}
