//! NIST's AES-256-CTR DRBG as the NIST PQC KAT generator (`rng.c`) uses it, without derivation
//! function or prediction resistance. liboqs keeps its copy in an internal library that
//! `liboqs.a` does not export, so kembench carries this small one.

use aes::cipher::{generic_array::GenericArray, BlockEncrypt, KeyInit};
use aes::Aes256;

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
}
