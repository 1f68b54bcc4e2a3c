//! NIST's AES-256-CTR DRBG as the NIST PQC KAT generator (`rng.c`) uses it, without derivation
//! function or prediction resistance. liboqs keeps its copy in an internal library that
//! `liboqs.a` does not export, so kembench carries this small one.

use aes::cipher::{generic_array::GenericArray, BlockEncrypt, KeyInit};
use aes::Aes256;

/// The generator of NIST-format known-answer files, as liboqs's `kat_kem` and its
/// `tests/test_helpers.c` choose it: NIST's AES-256-CTR DRBG for every algorithm but HQC,
/// whose files are made with SHAKE256 over the seed and a domain byte: 0x01 for the round-4
/// specification (HQC-128/192/256, liboqs 0.13), 0x00 for the 2025-08-22 one (HQC-1/3/5: the
/// reference code's KAT files, as `hqc-kem`'s `tests/kat.rs` reads them).
pub enum KatGenerator {
    /// NIST's AES-256-CTR DRBG.
    Nist(NistDrbg),
    /// SHAKE256(seed || domain byte) (HQC).
    Hqc(Box<sha3::Shake256Reader>),
}

impl KatGenerator {
    /// The generator of `algorithm`'s known-answer files, seeded with `seed`.
    pub fn new(algorithm: &str, seed: &[u8; 48]) -> KatGenerator {
        use crate::kem::catalog::{find, HQC_FIPS207, HQC_ROUND4};
        let domain = match find(algorithm).map(|a| a.standard) {
            Some(HQC_ROUND4) => Some(1u8),
            Some(HQC_FIPS207) => Some(0u8),
            // A package of HQC that the catalog does not know (`kembench add`): round 4's, as
            // every HQC package before the 2025 specification.
            None if algorithm.starts_with("HQC-") => Some(1u8),
            _ => None,
        };
        match domain {
            Some(d) => {
                use sha3::digest::{ExtendableOutput, Update};
                let mut h = sha3::Shake256::default();
                h.update(seed);
                h.update(&[d]);
                KatGenerator::Hqc(Box::new(h.finalize_xof()))
            }
            None => KatGenerator::Nist(NistDrbg::new(seed)),
        }
    }

    /// The next `out.len()` bytes.
    pub fn fill(&mut self, out: &mut [u8]) {
        match self {
            KatGenerator::Nist(d) => d.fill(out),
            KatGenerator::Hqc(r) => sha3::digest::XofReader::read(r.as_mut(), out),
        }
    }
}

thread_local! {
    /// The known-answer generator of the thread making a transcript ([`kat_transcript`]). A
    /// transcript's draws happen on the thread that makes it, so no other thread needs to see
    /// it: a hook that runs inside every timed keygen and encaps takes no lock.
    static KAT: std::cell::RefCell<Option<KatGenerator>> = const { std::cell::RefCell::new(None) };
}

/// Fills `buf` from this thread's known-answer generator while it makes a transcript; false
/// (and `buf` untouched) otherwise. For an implementation's random draws to call first.
pub fn kat_fill(buf: &mut [u8]) -> bool {
    KAT.with_borrow_mut(|k| k.as_mut().map(|d| d.fill(buf)).is_some())
}

/// Clears this thread's known-answer generator when dropped (also when a transcript fails).
struct KatOff;

impl Drop for KatOff {
    fn drop(&mut self) {
        KAT.set(None);
    }
}

/// The NIST-format known-answer transcript of `entries` entries of `k`
/// ([`crate::kem::nist_kat::transcript`]) over its algorithm's [`KatGenerator`], for an
/// implementation whose every random draw takes [`kat_fill`] first.
pub fn kat_transcript(
    k: &dyn crate::kem::Kem,
    entries: usize,
) -> Result<String, crate::kem::KemError> {
    let _off = KatOff;
    let algorithm = k.meta().algorithm.name;
    let mut reseed = |seed: &[u8; 48]| KAT.set(Some(KatGenerator::new(algorithm, seed)));
    let mut draw = |out: &mut [u8]| {
        kat_fill(out);
    };
    crate::kem::nist_kat::transcript(k, entries, &mut reseed, &mut draw)
}

/// The generator's state.
#[derive(Clone)]
pub struct NistDrbg {
    key: [u8; 32],
    v: [u8; 16],
}

fn increment(v: &mut [u8; 16]) {
    for b in v.iter_mut().rev() {
        let (n, carry) = b.overflowing_add(1);
        *b = n;
        if !carry {
            break;
        }
    }
}

impl NistDrbg {
    /// `randombytes_init(entropy_input, NULL, 256)`.
    pub fn new(entropy: &[u8; 48]) -> Self {
        let mut d = NistDrbg {
            key: [0; 32],
            v: [0; 16],
        };
        d.update(Some(entropy));
        d
    }

    fn block(&self, input: &[u8; 16]) -> [u8; 16] {
        let cipher = Aes256::new(GenericArray::from_slice(&self.key));
        let mut b = GenericArray::clone_from_slice(input);
        cipher.encrypt_block(&mut b);
        b.into()
    }

    fn update(&mut self, provided: Option<&[u8; 48]>) {
        let mut temp = [0u8; 48];
        for chunk in temp.chunks_mut(16) {
            increment(&mut self.v);
            chunk.copy_from_slice(&self.block(&self.v));
        }
        if let Some(p) = provided {
            for (t, p) in temp.iter_mut().zip(p) {
                *t ^= p;
            }
        }
        self.key.copy_from_slice(&temp[..32]);
        self.v.copy_from_slice(&temp[32..]);
    }

    /// `randombytes(out, out.len())`.
    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(16) {
            increment(&mut self.v);
            let b = self.block(&self.v);
            chunk.copy_from_slice(&b[..chunk.len()]);
        }
        self.update(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_seed_of_every_nist_kat_file() {
        // Every NIST PQC KAT response file starts with this seed: the DRBG seeded with 0..47.
        let mut d = NistDrbg::new(&std::array::from_fn(|i| i as u8));
        let mut seed = [0u8; 48];
        d.fill(&mut seed);
        assert_eq!(
            hex::encode_upper(seed),
            "061550234D158C5EC95595FE04EF7A25767F2E24CC2BC479D09D86DC9ABCFDE7056A8C266F9EF97ED08541DBD2E1FFA1"
        );
    }

    /// The first seeds of each HQC specification's KAT files: round 4's (liboqs's
    /// `kats.json` transcripts) and the 2025-08-22 one's, read from the `hqc-kem` crate's
    /// `kat/hqc-1.rsp` as the build fetched it.
    #[test]
    fn each_hqc_specification_draws_its_kat_seeds_with_its_own_domain_byte() {
        let first = |algorithm: &str| {
            let mut g = KatGenerator::new(algorithm, &std::array::from_fn(|i| i as u8));
            let mut seed = [0u8; 48];
            g.fill(&mut seed);
            hex::encode_upper(seed)
        };
        let dir = env!("KEMBENCH_SRC_HQC_KEM");
        assert_ne!(dir, "absent", "the kembench build found no hqc-kem crate");
        let rsp = std::fs::read_to_string(std::path::Path::new(dir).join("kat/hqc-1.rsp")).unwrap();
        let want = rsp
            .lines()
            .find_map(|l| l.strip_prefix("seed = "))
            .unwrap()
            .trim();
        assert_eq!(first("HQC-1"), want);
        assert_eq!(first("HQC-5"), want);
        assert_ne!(first("HQC-128"), want);
        assert_eq!(first("HQC-128"), first("HQC-RMRS-128"));
        assert!(first("ML-KEM-768").starts_with("061550234D158C5E"));
    }
}
