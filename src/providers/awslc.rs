//! aws-lc through `aws-lc-rs`: ML-KEM and ECDH (X25519, P-256, P-384, P-521).
//!
//! aws-lc-rs offers no deterministic operations, so its known answers come from FIPS 203
//! decapsulation vectors and from interoperability with implementations that do. For
//! `profile`, aws-lc's DRBG can be seeded from the seeded stream ([`Kem::fix_randomness`],
//! through aws-lc's entropy-source hook; see `aws_lc_random.rs`).
//!
//! # What one timed call does
//!
//! - keygen: `DecapsulationKey::generate` and the encapsulation key's bytes (ML-KEM), or
//!   `PrivateKey::generate` and `compute_public_key` (ECDH); the key object is kept.
//! - encaps: `EncapsulationKey::new` from the peer's bytes and `encapsulate` (ML-KEM), or an
//!   ephemeral `PrivateKey::generate`, `compute_public_key` and `agree` with the peer's bytes
//!   (ECDH: aws-lc parses and checks the peer point inside `agree`).
//! - decaps: `decapsulate` on the kept `DecapsulationKey`, or `agree` with the kept
//!   `PrivateKey` (the key is never rebuilt from bytes).
//! - sk-import: `DecapsulationKey::new` (a copy of the expanded key) or
//!   `PrivateKey::from_private_key` (X25519 and P-curves recompute the public key: a point
//!   multiplication), and dropping the key.
//! - pk-import (ML-KEM only; aws-lc-rs has no separate parse for ECDH peers):
//!   `EncapsulationKey::new`.

use crate::kem::{ImplMeta, Imports, Kem, KemError, Randomness, SecretKey};
use aws_lc_rs::agreement::{self, PrivateKey, UnparsedPublicKey};
use aws_lc_rs::encoding::{AsBigEndian, Curve25519SeedBin, EcPrivateKeyBin};
use aws_lc_rs::kem;

fn version() -> String {
    format!(
        "aws-lc-rs {} (aws-lc-sys {})",
        env!("KEMBENCH_DEP_AWS_LC_RS"),
        env!("KEMBENCH_DEP_AWS_LC_SYS")
    )
}

fn fail(what: &str) -> impl Fn(aws_lc_rs::error::Unspecified) -> KemError + '_ {
    move |_| KemError::Failure(format!("aws-lc {what} failed"))
}

/// aws-lc ML-KEM for one parameter set.
pub struct AwsLcMlKem {
    meta: ImplMeta,
    alg: &'static kem::Algorithm<kem::AlgorithmId>,
}

impl Kem for AwsLcMlKem {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        super::aws_lc_random::fix(seed);
        Randomness::Fixed(super::aws_lc_random::FIXED.into())
    }

    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        let dk = kem::DecapsulationKey::generate(self.alg).map_err(fail("keygen"))?;
        let ek = dk.encapsulation_key().map_err(fail("public key"))?;
        pk.copy_from_slice(ek.key_bytes().map_err(fail("public key export"))?.as_ref());
        sk.copy_from_slice(dk.key_bytes().map_err(fail("secret key export"))?.as_ref());
        Ok(())
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        let ek = kem::EncapsulationKey::new(self.alg, pk)
            .map_err(|e| KemError::Rejected(format!("public key: {e}")))?;
        let (c, k) = ek.encapsulate().map_err(fail("encapsulate"))?;
        ct.copy_from_slice(c.as_ref());
        ss.copy_from_slice(k.as_ref());
        Ok(())
    }

    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        Self::decapsulate(&self.import(sk)?, ct, ss)
    }

    fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
        let dk = kem::DecapsulationKey::generate(self.alg).map_err(fail("keygen"))?;
        let ek = dk.encapsulation_key().map_err(fail("public key"))?;
        pk.copy_from_slice(ek.key_bytes().map_err(fail("public key export"))?.as_ref());
        Ok(SecretKey::new(dk))
    }

    fn decaps_kept_raw(
        &self,
        sk: &mut SecretKey,
        ct: &[u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        Self::decapsulate(sk.get::<DecapsulationKey>()?, ct, ss)
    }

    fn sk_import_raw(&self, sk: &[u8]) -> Result<SecretKey, KemError> {
        Ok(SecretKey::new(self.import(sk)?))
    }

    fn sk_export_raw(&self, sk: &SecretKey, out: &mut [u8]) -> Result<(), KemError> {
        let dk = sk.get::<DecapsulationKey>()?;
        out.copy_from_slice(dk.key_bytes().map_err(fail("secret key export"))?.as_ref());
        Ok(())
    }

    fn pk_import_raw(&self, pk: &[u8]) -> Result<(), KemError> {
        kem::EncapsulationKey::new(self.alg, pk)
            .map(drop)
            .map_err(|e| KemError::Rejected(format!("public key: {e}")))
    }

    fn imports(&self) -> Imports {
        Imports {
            secret_key: true,
            public_key: true,
        }
    }
}

type DecapsulationKey = kem::DecapsulationKey<kem::AlgorithmId>;

impl AwsLcMlKem {
    fn import(&self, sk: &[u8]) -> Result<DecapsulationKey, KemError> {
        kem::DecapsulationKey::new(self.alg, sk)
            .map_err(|e| KemError::Rejected(format!("secret key: {e}")))
    }

    fn decapsulate(dk: &DecapsulationKey, ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        let k = dk.decapsulate(ct.into()).map_err(fail("decapsulate"))?;
        ss.copy_from_slice(k.as_ref());
        Ok(())
    }
}

/// aws-lc ECDH in the DHKEM model (see the crate docs).
pub struct AwsLcEcdh {
    meta: ImplMeta,
    alg: &'static agreement::Algorithm,
}

impl AwsLcEcdh {
    fn secret_bytes(&self, key: &PrivateKey, out: &mut [u8]) -> Result<(), KemError> {
        if std::ptr::eq(self.alg, &agreement::X25519) {
            let b: Curve25519SeedBin = key.as_be_bytes().map_err(fail("secret key export"))?;
            out.copy_from_slice(b.as_ref());
        } else {
            let b: EcPrivateKeyBin = key.as_be_bytes().map_err(fail("secret key export"))?;
            out.copy_from_slice(b.as_ref());
        }
        Ok(())
    }

    fn import(&self, sk: &[u8]) -> Result<PrivateKey, KemError> {
        PrivateKey::from_private_key(self.alg, sk)
            .map_err(|e| KemError::Rejected(format!("secret key: {e}")))
    }

    fn derive(&self, key: &PrivateKey, peer: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        agreement::agree(
            key,
            UnparsedPublicKey::new(self.alg, peer),
            KemError::Rejected("peer public value rejected".into()),
            |s| {
                ss.copy_from_slice(s);
                Ok(())
            },
        )
    }
}

impl Kem for AwsLcEcdh {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        super::aws_lc_random::fix(seed);
        Randomness::Fixed(super::aws_lc_random::FIXED.into())
    }

    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        let key = PrivateKey::generate(self.alg).map_err(fail("keygen"))?;
        pk.copy_from_slice(
            key.compute_public_key()
                .map_err(fail("public key"))?
                .as_ref(),
        );
        self.secret_bytes(&key, sk)
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        let eph = PrivateKey::generate(self.alg).map_err(fail("keygen"))?;
        ct.copy_from_slice(
            eph.compute_public_key()
                .map_err(fail("public key"))?
                .as_ref(),
        );
        self.derive(&eph, pk, ss)
    }

    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        self.derive(&self.import(sk)?, ct, ss)
    }

    fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
        let key = PrivateKey::generate(self.alg).map_err(fail("keygen"))?;
        pk.copy_from_slice(
            key.compute_public_key()
                .map_err(fail("public key"))?
                .as_ref(),
        );
        Ok(SecretKey::new(key))
    }

    fn decaps_kept_raw(
        &self,
        sk: &mut SecretKey,
        ct: &[u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        self.derive(sk.get::<PrivateKey>()?, ct, ss)
    }

    fn sk_import_raw(&self, sk: &[u8]) -> Result<SecretKey, KemError> {
        Ok(SecretKey::new(self.import(sk)?))
    }

    fn sk_export_raw(&self, sk: &SecretKey, out: &mut [u8]) -> Result<(), KemError> {
        self.secret_bytes(sk.get::<PrivateKey>()?, out)
    }

    fn imports(&self) -> Imports {
        Imports {
            secret_key: true,
            public_key: false,
        }
    }
}

/// Every aws-lc implementation.
pub fn implementations() -> Vec<Box<dyn Kem>> {
    let v = version();
    let meta = |name| ImplMeta::new(name, "aws-lc", &v, "run-time CPU dispatch");
    vec![
        Box::new(AwsLcMlKem {
            meta: meta("ML-KEM-512"),
            alg: &kem::ML_KEM_512,
        }),
        Box::new(AwsLcMlKem {
            meta: meta("ML-KEM-768"),
            alg: &kem::ML_KEM_768,
        }),
        Box::new(AwsLcMlKem {
            meta: meta("ML-KEM-1024"),
            alg: &kem::ML_KEM_1024,
        }),
        Box::new(AwsLcEcdh {
            meta: meta("X25519"),
            alg: &agreement::X25519,
        }),
        Box::new(AwsLcEcdh {
            meta: meta("P-256"),
            alg: &agreement::ECDH_P256,
        }),
        Box::new(AwsLcEcdh {
            meta: meta("P-384"),
            alg: &agreement::ECDH_P384,
        }),
        Box::new(AwsLcEcdh {
            meta: meta("P-521"),
            alg: &agreement::ECDH_P521,
        }),
    ]
}
