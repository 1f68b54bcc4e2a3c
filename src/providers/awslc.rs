//! aws-lc through `aws-lc-rs`: ML-KEM and ECDH (X25519, P-256, P-384, P-521).
//!
//! aws-lc-rs offers no deterministic operations, so its known answers come from FIPS 203
//! decapsulation vectors and from interoperability with implementations that do.

use crate::kem::{ImplMeta, Kem, KemError};
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
        let dk = kem::DecapsulationKey::new(self.alg, sk)
            .map_err(|e| KemError::Rejected(format!("secret key: {e}")))?;
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
        let key = PrivateKey::from_private_key(self.alg, sk)
            .map_err(|e| KemError::Rejected(format!("secret key: {e}")))?;
        self.derive(&key, ct, ss)
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
