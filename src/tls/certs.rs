//! Certificates made at run time with rcgen: a root, an intermediate and a leaf for
//! `localhost`, with the key algorithms the [`CertKind`] names (one for the two CAs, one for
//! the leaf). rcgen signs ML-DSA through aws-lc-rs (`PKCS_ML_DSA_*`), so no kind needs
//! OpenSSL to be made. The server sends the leaf and the intermediate (as most public servers
//! do); the client trusts the root only. A worker executable (built without the `app`
//! feature, so without rcgen) is handed the chains kembench made (`worker::JobChain`).

use super::groups::CertKind;
#[cfg(feature = "app")]
use super::groups::KeyAlg;
#[cfg(feature = "app")]
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};

/// The name the leaf is issued for and the client checks.
pub const SERVER_NAME: &str = "localhost";

/// A chain and the leaf's key, DER encoded.
#[derive(Debug, Clone)]
pub struct Chain {
    /// The key kind.
    pub kind: CertKind,
    /// The leaf certificate.
    pub leaf_der: Vec<u8>,
    /// The intermediate certificate.
    pub intermediate_der: Vec<u8>,
    /// The root certificate (the client's trust anchor; never sent).
    pub root_der: Vec<u8>,
    /// The leaf's private key, PKCS #8.
    pub leaf_key_pkcs8: Vec<u8>,
}

#[cfg(feature = "app")]
fn key(alg: KeyAlg) -> Result<KeyPair, rcgen::Error> {
    KeyPair::generate_for(match alg {
        KeyAlg::EcdsaP256 => &rcgen::PKCS_ECDSA_P256_SHA256,
        KeyAlg::Ed25519 => &rcgen::PKCS_ED25519,
        KeyAlg::Rsa2048 => &rcgen::PKCS_RSA_SHA256,
        KeyAlg::MlDsa44 => &rcgen::PKCS_ML_DSA_44,
        KeyAlg::MlDsa65 => &rcgen::PKCS_ML_DSA_65,
        KeyAlg::MlDsa87 => &rcgen::PKCS_ML_DSA_87,
    })
}

#[cfg(feature = "app")]
fn ca_params(name: &str, path_len: u8) -> Result<CertificateParams, rcgen::Error> {
    let mut p = CertificateParams::new(Vec::<String>::new())?;
    p.distinguished_name
        .push(DnType::CommonName, format!("kembench {name}"));
    p.is_ca = IsCa::Ca(BasicConstraints::Constrained(path_len));
    p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    Ok(p)
}

#[cfg(feature = "app")]
impl Chain {
    /// A fresh chain of `kind`: root and intermediate keys of `kind.ca()`, the leaf's of
    /// `kind.leaf()`; each certificate is signed with its issuer's key.
    pub fn generate(kind: CertKind) -> Result<Chain, rcgen::Error> {
        let root_key = key(kind.ca())?;
        let root = rcgen::CertifiedIssuer::self_signed(ca_params("root", 1)?, root_key)?;
        let int_key = key(kind.ca())?;
        let intermediate =
            rcgen::CertifiedIssuer::signed_by(ca_params("intermediate", 0)?, int_key, &root)?;
        let leaf_key = key(kind.leaf())?;
        let mut lp = CertificateParams::new(vec![SERVER_NAME.to_string()])?;
        lp.distinguished_name.push(DnType::CommonName, SERVER_NAME);
        lp.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        lp.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
        let leaf = lp.signed_by(&leaf_key, &intermediate)?;
        Ok(Chain {
            kind,
            leaf_der: leaf.der().to_vec(),
            intermediate_der: intermediate.der().to_vec(),
            root_der: root.der().to_vec(),
            leaf_key_pkcs8: leaf_key.serialize_der(),
        })
    }
}

impl Chain {
    /// What the client verifies: the key kind and the chain's certificates, for the record.
    pub fn describe(&self) -> String {
        format!(
            "{} leaf ({} B) + {} intermediate ({} B) sent, {} root ({} B) trusted",
            self.kind.leaf().name(),
            self.leaf_der.len(),
            self.kind.ca().name(),
            self.intermediate_der.len(),
            self.kind.ca().name(),
            self.root_der.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_makes_a_chain() {
        for kind in CertKind::ALL {
            let c = Chain::generate(kind).unwrap();
            assert!(!c.leaf_der.is_empty() && !c.root_der.is_empty());
            assert_ne!(c.leaf_der, c.intermediate_der);
        }
    }

    /// OpenSSL's verifier (not rcgen's or aws-lc's code) checks the chain: the leaf, the
    /// intermediate as untrusted, the root as the only anchor, the host name.
    #[cfg(feature = "openssl-stack")]
    fn openssl_verifies(c: &Chain) -> Result<(), String> {
        use openssl::stack::Stack;
        use openssl::x509::store::X509StoreBuilder;
        use openssl::x509::{X509StoreContext, X509};
        let e = |e: openssl::error::ErrorStack| e.to_string();
        let leaf = X509::from_der(&c.leaf_der).map_err(e)?;
        let mut untrusted = Stack::new().map_err(e)?;
        untrusted
            .push(X509::from_der(&c.intermediate_der).map_err(e)?)
            .map_err(e)?;
        let mut store = X509StoreBuilder::new().map_err(e)?;
        store
            .add_cert(X509::from_der(&c.root_der).map_err(e)?)
            .map_err(e)?;
        let mut param = openssl::x509::verify::X509VerifyParam::new().map_err(e)?;
        param.set_host(SERVER_NAME).map_err(e)?;
        store.set_param(&param).map_err(e)?;
        let store = store.build();
        let mut ctx = X509StoreContext::new().map_err(e)?;
        let (ok, why) = ctx
            .init(&store, &leaf, &untrusted, |c| {
                let ok = c.verify_cert()?;
                Ok((ok, c.error().to_string()))
            })
            .map_err(e)?;
        if ok {
            Ok(())
        } else {
            Err(why)
        }
    }

    /// The algorithm OID of a certificate's public key, as OpenSSL reads it.
    #[cfg(feature = "openssl-stack")]
    fn key_name(der: &[u8]) -> String {
        let pk = openssl::x509::X509::from_der(der)
            .unwrap()
            .public_key()
            .unwrap();
        let id = pk.id();
        if id == openssl::pkey::Id::EC {
            "ECDSA P-256".into()
        } else if id == openssl::pkey::Id::ED25519 {
            "Ed25519".into()
        } else if id == openssl::pkey::Id::RSA {
            "RSA 2048".into()
        } else {
            // ML-DSA has no Id constant in the crate: its bit length names the set.
            format!("other ({} bits)", pk.bits())
        }
    }

    #[cfg(feature = "openssl-stack")]
    #[test]
    fn openssl_verifies_every_chain_and_its_key_algorithms() {
        for kind in CertKind::ALL {
            let c = Chain::generate(kind).unwrap();
            openssl_verifies(&c).unwrap_or_else(|e| panic!("{}: {e}", kind.as_str()));
            for (der, alg) in [
                (&c.leaf_der, kind.leaf()),
                (&c.intermediate_der, kind.ca()),
                (&c.root_der, kind.ca()),
            ] {
                let got = key_name(der);
                if alg.is_mldsa() {
                    assert!(got.starts_with("other"), "{}: {got}", kind.as_str());
                } else {
                    assert_eq!(got, alg.name(), "{}", kind.as_str());
                }
            }
        }
    }

    #[cfg(feature = "openssl-stack")]
    #[test]
    fn openssl_rejects_broken_chains() {
        for kind in [CertKind::MlDsa65, CertKind::MlDsa65UnderP256, CertKind::P256UnderMlDsa65] {
            let good = Chain::generate(kind).unwrap();
            // Another chain's root: the intermediate's signature does not verify.
            let other = Chain::generate(kind).unwrap();
            let mut bad = good.clone();
            bad.root_der = other.root_der.clone();
            assert!(openssl_verifies(&bad).is_err(), "{}", kind.as_str());
            // A flipped byte in the leaf's signature (its last bytes).
            let mut bad = good.clone();
            let n = bad.leaf_der.len();
            bad.leaf_der[n - 5] ^= 1;
            assert!(openssl_verifies(&bad).is_err(), "{}", kind.as_str());
            assert!(openssl_verifies(&good).is_ok());
        }
    }
}
