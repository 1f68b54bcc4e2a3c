//! The signatures of one TLS 1.3 handshake timed outside it, on the stack's own library: the
//! server's CertificateVerify signature with the leaf's key, and the client's three
//! verifications (the leaf's certificate signature with the intermediate's key, the
//! intermediate's with the root's key, and the CertificateVerify signature with the leaf's
//! key). rustls: its aws-lc-rs provider's signing key (`any_supported_type`, the scheme the
//! key chooses from the client's list) and the webpki verification algorithms of the same
//! provider; OpenSSL: `EVP_DigestSign`/`EVP_DigestVerify` (`X509_verify` for the
//! certificates) with the same keys. Certificate parsing is not timed: only the signatures.

use super::certs::Chain;
#[cfg(any(feature = "rustls", feature = "openssl-stack"))]
use super::groups::KeyAlg;
use super::groups::StackKind;

/// The CertificateVerify input TLS 1.3 signs (RFC 8446, 4.4.3): 64 spaces, the server's
/// context string, a zero byte and a transcript hash of 48 bytes (SHA-384, the hash of
/// TLS_AES_256_GCM_SHA384, the first suite of both stacks' defaults).
pub fn certificate_verify_input() -> Vec<u8> {
    let mut m = vec![b' '; 64];
    m.extend_from_slice(b"TLS 1.3, server CertificateVerify");
    m.push(0);
    // A fixed stand-in for the transcript hash: the signature does not depend on its value.
    m.extend((0..48u8).map(|i| i.wrapping_mul(151).wrapping_add(7)));
    m
}

/// One stack's signing and verification for a chain.
pub trait Signatures {
    /// The server's CertificateVerify signature over `msg` with the leaf's key.
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, String>;
    /// The client's three verifications: the leaf's and the intermediate's certificate
    /// signatures and `sig`, the CertificateVerify signature over `msg`; how many signatures
    /// were verified.
    fn verify(&self, msg: &[u8], sig: &[u8]) -> Result<usize, String>;
    /// What is timed, for the record (`ECDSA P-256 via aws-lc-rs`).
    fn describe(&self) -> String;
}

/// The signatures of `kind`'s stack for `chain`, checked once (a signature made, the three
/// verifications passing, a flipped signature refused), or why there are none.
#[cfg_attr(
    not(any(feature = "rustls", feature = "openssl-stack")),
    allow(unused_variables, unreachable_code)
)]
pub fn for_stack(kind: StackKind, chain: &Chain) -> Result<Box<dyn Signatures>, String> {
    let s: Box<dyn Signatures> = match kind {
        #[cfg(feature = "rustls")]
        StackKind::Rustls => Box::new(rustls_sigs::RustlsSigs::new(chain)?),
        #[cfg(feature = "openssl-stack")]
        StackKind::Openssl => Box::new(openssl_sigs::OpensslSigs::new(chain)?),
        StackKind::Boringssl | StackKind::Openssl4 => {
            return Err(format!(
                "{} runs in its own worker: its signatures are not timed bare (no other \
                 library's figure is borrowed)",
                super::groups::Worker::of(kind).map_or(kind.as_str(), |w| w.name)
            ))
        }
        #[allow(unreachable_patterns)]
        other => return Err(format!("this build has no {}", other.as_str())),
    };
    check(s.as_ref())?;
    Ok(s)
}

/// A signature is made and verifies with the chain; a flipped byte in it is refused.
pub fn check(s: &dyn Signatures) -> Result<(), String> {
    let msg = certificate_verify_input();
    let sig = s.sign(&msg)?;
    s.verify(&msg, &sig)
        .map_err(|e| format!("the CertificateVerify signature does not verify: {e}"))?;
    let mut bad = sig.clone();
    let n = bad.len() / 2;
    bad[n] ^= 1;
    if s.verify(&msg, &bad).is_ok() {
        return Err("a flipped signature verified".into());
    }
    Ok(())
}

/// One round's medians (sign, verify) in ns, each over a short sample (about `budget_s`), and
/// the number of signatures each verification checked.
pub fn round(s: &dyn Signatures, budget_s: f64) -> Result<([f64; 2], usize), String> {
    use std::time::Instant;
    let msg = certificate_verify_input();
    let sig = s.sign(&msg)?;
    let sample = |f: &dyn Fn() -> Result<(), String>| -> Result<f64, String> {
        let mut v = Vec::new();
        let t = Instant::now();
        while t.elapsed().as_secs_f64() < budget_s || v.len() < 5 {
            let a = Instant::now();
            f()?;
            v.push(a.elapsed().as_nanos() as f64);
        }
        Ok(crate::stats::median(&v))
    };
    let sign = sample(&|| s.sign(&msg).map(|_| ()))?;
    let verify = sample(&|| s.verify(&msg, &sig).map(|_| ()))?;
    Ok(([sign, verify], s.verify(&msg, &sig)?))
}

/// The parts of a DER certificate the verifications need.
#[cfg(any(feature = "rustls", test))]
struct Parsed<'a> {
    /// The TBSCertificate, tag and length included (what the issuer signed).
    tbs: &'a [u8],
    /// The contents of the signature's AlgorithmIdentifier.
    sig_alg: &'a [u8],
    /// The signature (the BIT STRING's bytes after its unused-bits byte).
    sig: &'a [u8],
    /// The contents of the subject public key's AlgorithmIdentifier.
    key_alg: &'a [u8],
    /// The subject public key (the BIT STRING's bytes after its unused-bits byte).
    key: &'a [u8],
}

/// One DER element: its tag, its contents, the whole element, and what follows it.
#[cfg(any(feature = "rustls", test))]
type Tlv<'a> = (u8, &'a [u8], &'a [u8], &'a [u8]);

/// One DER element of `d`: (tag, contents, the whole element, the rest).
#[cfg(any(feature = "rustls", test))]
fn tlv(d: &[u8]) -> Result<Tlv<'_>, String> {
    let short = || "truncated DER".to_string();
    let (&tag, r) = d.split_first().ok_or_else(short)?;
    let (&l0, r) = r.split_first().ok_or_else(short)?;
    let (len, r) = if l0 < 0x80 {
        (l0 as usize, r)
    } else {
        let n = (l0 & 0x7f) as usize;
        if n == 0 || n > 4 || r.len() < n {
            return Err("bad DER length".into());
        }
        (r[..n].iter().fold(0usize, |a, &b| a << 8 | b as usize), &r[n..])
    };
    if r.len() < len {
        return Err(short());
    }
    let head = d.len() - r.len();
    Ok((tag, &r[..len], &d[..head + len], &r[len..]))
}

#[cfg(any(feature = "rustls", test))]
fn bits(b: &[u8]) -> Result<&[u8], String> {
    match b.split_first() {
        Some((0, rest)) => Ok(rest),
        _ => Err("a BIT STRING with unused bits".into()),
    }
}

#[cfg(any(feature = "rustls", test))]
fn parse(der: &[u8]) -> Result<Parsed<'_>, String> {
    let (_, cert, _, _) = tlv(der)?;
    let (_, tbs_c, tbs, rest) = tlv(cert)?;
    let (_, sig_alg, _, rest) = tlv(rest)?;
    let (_, sig, _, _) = tlv(rest)?;
    // version [0], serial, signature, issuer, validity, subject, then the key.
    let mut r = tbs_c;
    let (t, _, _, after) = tlv(r)?;
    if t == 0xa0 {
        r = after;
    }
    for _ in 0..5 {
        r = tlv(r)?.3;
    }
    let (_, spki, _, _) = tlv(r)?;
    let (_, key_alg, _, rest) = tlv(spki)?;
    let (_, key, _, _) = tlv(rest)?;
    Ok(Parsed {
        tbs,
        sig_alg,
        sig: bits(sig)?,
        key_alg,
        key: bits(key)?,
    })
}

#[cfg(feature = "rustls")]
mod rustls_sigs {
    use super::{parse, Chain, KeyAlg, Signatures};
    use rustls::crypto::aws_lc_rs;
    use rustls::crypto::WebPkiSupportedAlgorithms;
    use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer, SignatureVerificationAlgorithm};
    use rustls::sign::SigningKey;
    use rustls::SignatureScheme;
    use std::sync::Arc;

    pub struct RustlsSigs {
        key: Arc<dyn SigningKey>,
        scheme: SignatureScheme,
        chain: Chain,
        algs: WebPkiSupportedAlgorithms,
        leaf: KeyAlg,
    }

    impl RustlsSigs {
        pub fn new(chain: &Chain) -> Result<RustlsSigs, String> {
            let der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(chain.leaf_key_pkcs8.clone()));
            let key = aws_lc_rs::sign::any_supported_type(&der).map_err(|e| format!("rustls: {e}"))?;
            let algs = aws_lc_rs::default_provider().signature_verification_algorithms;
            let offered: Vec<SignatureScheme> = algs
                .mapping
                .iter()
                .map(|m| m.0)
                .filter(|s| {
                    // TLS 1.3 has no PKCS #1 v1.5 or SHA-1 signatures in the handshake.
                    !matches!(
                        s,
                        SignatureScheme::RSA_PKCS1_SHA1
                            | SignatureScheme::RSA_PKCS1_SHA256
                            | SignatureScheme::RSA_PKCS1_SHA384
                            | SignatureScheme::RSA_PKCS1_SHA512
                            | SignatureScheme::ECDSA_SHA1_Legacy
                    )
                })
                .collect();
            let scheme = key
                .choose_scheme(&offered)
                .ok_or("rustls: the leaf key has no TLS 1.3 scheme")?
                .scheme();
            Ok(RustlsSigs {
                key,
                scheme,
                chain: chain.clone(),
                algs,
                leaf: chain.kind.leaf(),
            })
        }

        /// The provider's algorithm for a certificate signed as `sig_alg` with a key of `key_alg`.
        fn alg(&self, key_alg: &[u8], sig_alg: &[u8]) -> Result<&'static dyn SignatureVerificationAlgorithm, String> {
            self.algs
                .all
                .iter()
                .find(|a| {
                    a.public_key_alg_id().as_ref() == key_alg && a.signature_alg_id().as_ref() == sig_alg
                })
                .copied()
                .ok_or_else(|| "rustls: no verification algorithm for a certificate".to_string())
        }
    }

    impl Signatures for RustlsSigs {
        fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, String> {
            let s = self
                .key
                .choose_scheme(&[self.scheme])
                .ok_or("rustls: the scheme went away")?;
            s.sign(msg).map_err(|e| format!("rustls: {e}"))
        }

        fn verify(&self, msg: &[u8], sig: &[u8]) -> Result<usize, String> {
            let mut n = 0;
            let leaf = parse(&self.chain.leaf_der)?;
            let int = parse(&self.chain.intermediate_der)?;
            let root = parse(&self.chain.root_der)?;
            let bad = |what: &str| format!("rustls: the {what} signature does not verify");
            self.alg(int.key_alg, leaf.sig_alg)?
                .verify_signature(int.key, leaf.tbs, leaf.sig)
                .map_err(|_| bad("leaf's"))?;
            n += 1;
            self.alg(root.key_alg, int.sig_alg)?
                .verify_signature(root.key, int.tbs, int.sig)
                .map_err(|_| bad("intermediate's"))?;
            n += 1;
            let cv = self
                .algs
                .mapping
                .iter()
                .find(|m| m.0 == self.scheme)
                .and_then(|m| m.1.first())
                .ok_or("rustls: no verification algorithm for the scheme")?;
            cv.verify_signature(leaf.key, msg, sig)
                .map_err(|_| bad("CertificateVerify"))?;
            Ok(n + 1)
        }

        fn describe(&self) -> String {
            format!("{} ({:?}) via rustls/aws-lc-rs", self.leaf.name(), self.scheme)
        }
    }
}

#[cfg(feature = "openssl-stack")]
mod openssl_sigs {
    use super::{Chain, KeyAlg, Signatures};
    use openssl::hash::MessageDigest;
    use openssl::pkey::{PKey, Private, Public};
    use openssl::rsa::Padding;
    use openssl::sign::{RsaPssSaltlen, Signer, Verifier};
    use openssl::x509::X509;

    pub struct OpensslSigs {
        key: PKey<Private>,
        leaf_pub: PKey<Public>,
        int_pub: PKey<Public>,
        root_pub: PKey<Public>,
        leaf: X509,
        int: X509,
        alg: KeyAlg,
    }

    fn err(e: openssl::error::ErrorStack) -> String {
        format!("OpenSSL: {e}")
    }

    impl OpensslSigs {
        pub fn new(chain: &Chain) -> Result<OpensslSigs, String> {
            let leaf = X509::from_der(&chain.leaf_der).map_err(err)?;
            let int = X509::from_der(&chain.intermediate_der).map_err(err)?;
            let root = X509::from_der(&chain.root_der).map_err(err)?;
            Ok(OpensslSigs {
                key: PKey::private_key_from_pkcs8(&chain.leaf_key_pkcs8).map_err(err)?,
                leaf_pub: leaf.public_key().map_err(err)?,
                int_pub: int.public_key().map_err(err)?,
                root_pub: root.public_key().map_err(err)?,
                leaf,
                int,
                alg: chain.kind.leaf(),
            })
        }

        /// The digest of the TLS 1.3 scheme OpenSSL uses for the leaf's key (none for
        /// Ed25519 and ML-DSA, which sign the message itself).
        fn digest(&self) -> Option<MessageDigest> {
            match self.alg {
                KeyAlg::EcdsaP256 | KeyAlg::Rsa2048 => Some(MessageDigest::sha256()),
                _ => None,
            }
        }
    }

    impl Signatures for OpensslSigs {
        fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, String> {
            let mut s = match self.digest() {
                Some(d) => Signer::new(d, &self.key),
                None => Signer::new_without_digest(&self.key),
            }
            .map_err(err)?;
            if self.alg == KeyAlg::Rsa2048 {
                // rsa_pss_rsae_sha256, as TLS 1.3 requires of RSA.
                s.set_rsa_padding(Padding::PKCS1_PSS).map_err(err)?;
                s.set_rsa_pss_saltlen(RsaPssSaltlen::DIGEST_LENGTH).map_err(err)?;
            }
            s.sign_oneshot_to_vec(msg).map_err(err)
        }

        fn verify(&self, msg: &[u8], sig: &[u8]) -> Result<usize, String> {
            let mut n = 0;
            if !self.leaf.verify(&self.int_pub).map_err(err)? {
                return Err("OpenSSL: the leaf's signature does not verify".into());
            }
            n += 1;
            if !self.int.verify(&self.root_pub).map_err(err)? {
                return Err("OpenSSL: the intermediate's signature does not verify".into());
            }
            n += 1;
            let mut v = match self.digest() {
                Some(d) => Verifier::new(d, &self.leaf_pub),
                None => Verifier::new_without_digest(&self.leaf_pub),
            }
            .map_err(err)?;
            if self.alg == KeyAlg::Rsa2048 {
                v.set_rsa_padding(Padding::PKCS1_PSS).map_err(err)?;
                v.set_rsa_pss_saltlen(RsaPssSaltlen::DIGEST_LENGTH).map_err(err)?;
            }
            // An ill-formed signature is an error on the stack, not just false: either refuses.
            match v.verify_oneshot(sig, msg) {
                Ok(true) => Ok(n + 1),
                _ => Err("OpenSSL: the CertificateVerify signature does not verify".into()),
            }
        }

        fn describe(&self) -> String {
            format!("{} via OpenSSL EVP_DigestSign/Verify", self.alg.name())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tls::groups::CertKind;

    #[test]
    fn the_input_is_certificate_verifys() {
        let m = certificate_verify_input();
        assert_eq!(m.len(), 64 + 33 + 1 + 48);
        assert!(m[..64].iter().all(|&b| b == b' '));
        assert_eq!(m[97], 0);
    }

    #[test]
    fn parse_finds_the_key_and_refuses_truncated_der() {
        let c = Chain::generate(CertKind::EcdsaP256).unwrap();
        let p = parse(&c.leaf_der).unwrap();
        assert_eq!(p.key.len(), 65); // an uncompressed P-256 point
        assert!(c.leaf_der.windows(p.tbs.len()).any(|w| w == p.tbs));
        assert!(parse(&c.leaf_der[..c.leaf_der.len() / 2]).is_err());
    }

    #[cfg(all(feature = "rustls", feature = "openssl-stack"))]
    #[test]
    fn every_kind_signs_and_verifies_on_both_stacks() {
        for kind in CertKind::ALL {
            let c = Chain::generate(kind).unwrap();
            for stack in [StackKind::Rustls, StackKind::Openssl] {
                for_stack(stack, &c).unwrap_or_else(|e| panic!("{} {}: {e}", kind.as_str(), stack.as_str()));
            }
        }
        let c = Chain::generate(CertKind::EcdsaP256).unwrap();
        assert!(for_stack(StackKind::Boringssl, &c).is_err());
    }

    /// A chain whose root is another chain's: the intermediate's signature is refused by both.
    #[cfg(all(feature = "rustls", feature = "openssl-stack"))]
    #[test]
    fn a_wrong_root_fails_the_chain_verification() {
        for kind in [CertKind::EcdsaP256, CertKind::MlDsa65] {
            let mut c = Chain::generate(kind).unwrap();
            c.root_der = Chain::generate(kind).unwrap().root_der;
            for stack in [StackKind::Rustls, StackKind::Openssl] {
                let e = for_stack(stack, &c).err().unwrap();
                assert!(e.contains("does not verify"), "{e}");
            }
        }
    }
}
