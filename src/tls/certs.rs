//! Certificates made at run time with rcgen: a root, an intermediate and a leaf for
//! `localhost`, all with the key kind asked for. The server sends the leaf and the
//! intermediate (as most public servers do); the client trusts the root only.

use super::groups::CertKind;
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

fn key(kind: CertKind) -> Result<KeyPair, rcgen::Error> {
    match kind {
        CertKind::EcdsaP256 => KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256),
        CertKind::Ed25519 => KeyPair::generate_for(&rcgen::PKCS_ED25519),
        CertKind::Rsa2048 => KeyPair::generate_for(&rcgen::PKCS_RSA_SHA256),
    }
}

fn ca_params(name: &str, path_len: u8) -> Result<CertificateParams, rcgen::Error> {
    let mut p = CertificateParams::new(Vec::<String>::new())?;
    p.distinguished_name
        .push(DnType::CommonName, format!("kembench {name}"));
    p.is_ca = IsCa::Ca(BasicConstraints::Constrained(path_len));
    p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    Ok(p)
}

impl Chain {
    /// A fresh chain whose three keys are of `kind`.
    pub fn generate(kind: CertKind) -> Result<Chain, rcgen::Error> {
        let root_key = key(kind)?;
        let root = rcgen::CertifiedIssuer::self_signed(ca_params("root", 1)?, root_key)?;
        let int_key = key(kind)?;
        let intermediate =
            rcgen::CertifiedIssuer::signed_by(ca_params("intermediate", 0)?, int_key, &root)?;
        let leaf_key = key(kind)?;
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

    /// What the client verifies: the key kind and the chain's certificates, for the record.
    pub fn describe(&self) -> String {
        format!(
            "{} leaf ({} B) + intermediate ({} B) sent, root trusted",
            self.kind.as_str(),
            self.leaf_der.len(),
            self.intermediate_der.len()
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
}
