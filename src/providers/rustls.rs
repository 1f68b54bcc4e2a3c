//! rustls's key-exchange groups, with its aws-lc-rs crypto provider, driven as a TLS 1.3
//! client and server drive them: X25519MLKEM768, SecP256r1MLKEM768, MLKEM768, MLKEM1024,
//! X25519, SECP256R1 and SECP384R1.
//!
//! One timed call:
//! - **keygen** is `SupportedKxGroup::start()`: the client's key share (for a hybrid, both key
//!   pairs and the concatenated share, as rustls builds it for a ClientHello). The kept secret
//!   key is the `Box<dyn ActiveKeyExchange>` that rustls returns.
//! - **encaps** is the server's `SupportedKxGroup::start_and_complete(client_share)`: it parses
//!   the client share, encapsulates (ML-KEM) or makes an ephemeral key pair and derives (ECDH),
//!   and returns the server share (the ciphertext) and the secret.
//! - **decaps** is the client's `ActiveKeyExchange::complete(server_share)`: it consumes the key
//!   share, so keys are single-use and timing prepares a fresh one for every call.
//!
//! The shared secret is rustls's `SharedSecret` before the key schedule: for the hybrids the
//! two secrets concatenated in the group's order (ML-KEM first for X25519MLKEM768, the ECDH
//! secret first for SecP256r1MLKEM768), for ECDH the raw x-coordinate. Each call copies
//! rustls's owned outputs (shares and secret are `Vec`s inside rustls) into kembench's buffers.
//!
//! rustls never exposes a secret key as bytes and has no way to build a key share from bytes:
//! the byte operations (`keypair_raw`, `decaps_raw`) and secret-key export are
//! [`KemError::Unsupported`], and there is no import step. `verify` checks this provider
//! through kept keys and interoperability (with aws-lc and OpenSSL), not known answers.
//!
//! For `profile`, the draws are fixed as aws-lc's are ([`Kem::fix_randomness`]): rustls's
//! groups draw only from aws-lc.

use crate::kem::{check_len, ImplMeta, Kem, KemError, Randomness, SecretKey};
use rustls::crypto::aws_lc_rs::kx_group;
use rustls::crypto::{ActiveKeyExchange, SupportedKxGroup};

/// A kept key share: `None` once `complete` has consumed it.
type KeyShare = Option<Box<dyn ActiveKeyExchange>>;

fn version() -> String {
    format!(
        "rustls {} (aws-lc-rs {}, aws-lc-sys {})",
        env!("KEMBENCH_DEP_RUSTLS"),
        env!("KEMBENCH_DEP_AWS_LC_RS"),
        env!("KEMBENCH_DEP_AWS_LC_SYS")
    )
}

/// Copies one of rustls's outputs into a caller buffer, refusing a length mismatch.
fn put(what: &'static str, out: &mut [u8], from: &[u8]) -> Result<(), KemError> {
    check_len(what, from.len(), out.len())?;
    out.copy_from_slice(from);
    Ok(())
}

fn rejected(e: rustls::Error) -> KemError {
    KemError::Rejected(format!("rustls: {e}"))
}

/// One rustls key-exchange group.
pub struct RustlsKx {
    meta: ImplMeta,
    group: &'static dyn SupportedKxGroup,
}

impl Kem for RustlsKx {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        super::aws_lc_random::fix(seed);
        Randomness::Fixed(super::aws_lc_random::FIXED.into())
    }

    fn keypair_raw(&self, _pk: &mut [u8], _sk: &mut [u8]) -> Result<(), KemError> {
        Err(KemError::Unsupported)
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        let done = self.group.start_and_complete(pk).map_err(rejected)?;
        put("server share", ct, &done.pub_key)?;
        put("shared secret", ss, done.secret.secret_bytes())
    }

    fn decaps_raw(&self, _sk: &[u8], _ct: &[u8], _ss: &mut [u8]) -> Result<(), KemError> {
        Err(KemError::Unsupported)
    }

    fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
        let share = self
            .group
            .start()
            .map_err(|e| KemError::Failure(format!("rustls key share: {e}")))?;
        put("client share", pk, share.pub_key())?;
        Ok(SecretKey::new::<KeyShare>(Some(share)))
    }

    fn decaps_kept_raw(
        &self,
        sk: &mut SecretKey,
        ct: &[u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        let share = sk.get_mut::<KeyShare>()?.take().ok_or_else(|| {
            KemError::Failure("rustls key share already completed (single use)".into())
        })?;
        let secret = share.complete(ct).map_err(rejected)?;
        put("shared secret", ss, secret.secret_bytes())
    }

    fn sk_import_raw(&self, _sk: &[u8]) -> Result<SecretKey, KemError> {
        Err(KemError::Unsupported)
    }

    fn sk_export_raw(&self, _sk: &SecretKey, _out: &mut [u8]) -> Result<(), KemError> {
        Err(KemError::Unsupported)
    }

    fn single_use_keys(&self) -> bool {
        true
    }
}

/// Every rustls group whose algorithm is in the catalog, as `rustls/aws-lc-rs`.
pub fn implementations() -> Vec<Box<dyn Kem>> {
    let v = version();
    let groups: [(&str, &'static dyn SupportedKxGroup); 7] = [
        ("X25519MLKEM768", kx_group::X25519MLKEM768),
        ("SecP256r1MLKEM768", kx_group::SECP256R1MLKEM768),
        ("ML-KEM-768", kx_group::MLKEM768),
        ("ML-KEM-1024", kx_group::MLKEM1024),
        ("X25519", kx_group::X25519),
        ("P-256", kx_group::SECP256R1),
        ("P-384", kx_group::SECP384R1),
    ];
    groups
        .into_iter()
        .map(|(name, group)| {
            Box::new(RustlsKx {
                meta: ImplMeta::new(name, "rustls/aws-lc-rs", &v, "run-time CPU dispatch (aws-lc)"),
                group,
            }) as Box<dyn Kem>
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_key_share_completes_once() {
        for k in implementations() {
            let k = k.as_ref();
            let (pk, mut sk) = k.keypair_kept_vec().unwrap();
            let (ct, ss) = k.encaps_vec(&pk).unwrap();
            assert_eq!(k.decaps_kept_vec(&mut sk, &ct).unwrap(), ss);
            assert!(
                matches!(k.decaps_kept_vec(&mut sk, &ct), Err(KemError::Failure(_))),
                "{}",
                k.meta().label()
            );
            assert!(k.single_use_keys());
        }
    }

    #[test]
    fn secret_key_bytes_are_unsupported() {
        for k in implementations() {
            let k = k.as_ref();
            let (_, sk) = k.keypair_kept_vec().unwrap();
            assert_eq!(k.sk_export(&sk).err(), Some(KemError::Unsupported));
            assert_eq!(k.keypair_vec().err(), Some(KemError::Unsupported));
            let sk_bytes = vec![0; k.meta().algorithm.sk_len];
            assert_eq!(k.sk_import(&sk_bytes).err(), Some(KemError::Unsupported));
            assert_eq!(k.imports(), crate::kem::Imports::NONE);
        }
    }

    #[test]
    fn hybrid_shares_put_each_part_where_the_draft_says() {
        // X25519MLKEM768: ML-KEM first; SecP256r1MLKEM768: the uncompressed P-256 point first.
        let imps = implementations();
        let by = |name: &str| {
            imps.iter()
                .find(|k| k.meta().algorithm.name == name)
                .unwrap()
        };
        let (pk, _) = by("SecP256r1MLKEM768").keypair_kept_vec().unwrap();
        assert_eq!(pk.len(), 65 + 1184);
        assert_eq!(pk[0], 0x04, "uncompressed P-256 point first");
        let (ct, ss) = by("SecP256r1MLKEM768").encaps_vec(&pk).unwrap();
        assert_eq!((ct.len(), ss.len(), ct[0]), (65 + 1088, 64, 0x04));
        let (pk, _) = by("X25519MLKEM768").keypair_kept_vec().unwrap();
        assert_eq!(pk.len(), 1184 + 32);
    }

    #[test]
    fn a_malformed_share_is_rejected() {
        for k in implementations() {
            let k = k.as_ref();
            let a = k.meta().algorithm;
            let mut bad = vec![0xff; a.pk_len];
            if a.pk_len == 32 {
                // Every 32-byte string is an X25519 public value; none is a valid P-256 point.
                continue;
            }
            bad[0] = 0x07;
            let r = k.encaps_vec(&bad);
            assert!(
                matches!(r, Err(KemError::Rejected(_))),
                "{}: {:?}",
                k.meta().label(),
                r.map(|_| ())
            );
        }
    }
}
