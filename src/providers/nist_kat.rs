//! NIST-format known-answer transcripts (`PQCkemKAT_*.rsp`), made in-process for any
//! implementation whose random draws can be switched to a seeded generator.
//!
//! NIST's `PQCgenKAT_kem.c` (and liboqs's `tests/kat_kem.c`, PQClean's `nistkat.c` after it)
//! seeds its generator with the bytes 0..47, draws a 48-byte seed per entry, reseeds with it
//! and runs keypair, encaps, decaps. The generator itself is the caller's (NIST's AES-256-CTR
//! DRBG for almost every scheme; HQC uses SHAKE256): `reseed` installs it for the drawing thread
//! and `draw` takes bytes from it.

use crate::kem::{Kem, KemError};
use std::fmt::Write as _;

fn hex_line(out: &mut String, label: &str, bytes: &[u8]) {
    let _ = writeln!(out, "{label} = {}", hex::encode_upper(bytes));
}

/// The transcript of `entries` entries, byte for byte as liboqs's `kat_kem` prints it (no
/// header line; entries separated by one empty line). Its SHA-256 over one entry is what
/// liboqs's `kats.json` calls "single" and PQClean's `META.yml` calls `nistkat-sha256`.
pub fn transcript(
    k: &dyn Kem,
    entries: usize,
    reseed: &mut dyn FnMut(&[u8; 48]),
    draw: &mut dyn FnMut(&mut [u8]),
) -> Result<String, KemError> {
    // The outer generator only hands out the per-entry seeds, and kat_kem.c restores its state
    // after each entry: drawing every seed first gives the same sequence.
    let entropy: [u8; 48] = std::array::from_fn(|i| i as u8);
    reseed(&entropy);
    let mut seeds = vec![[0u8; 48]; entries];
    for s in &mut seeds {
        draw(s);
    }
    let mut out = String::new();
    for (count, seed) in seeds.iter().enumerate() {
        let _ = writeln!(out, "count = {count}");
        hex_line(&mut out, "seed", seed);
        reseed(seed);
        let (pk, sk) = k.keypair_vec()?;
        hex_line(&mut out, "pk", &pk);
        hex_line(&mut out, "sk", &sk);
        let (ct, ss) = k.encaps_vec(&pk)?;
        hex_line(&mut out, "ct", &ct);
        hex_line(&mut out, "ss", &ss);
        if count + 1 != entries {
            out.push('\n');
        }
        let ss2 = k.decaps_vec(&sk, &ct)?;
        if ss2 != ss {
            return Err(KemError::Failure(format!(
                "KAT entry {count}: shared secrets differ"
            )));
        }
    }
    Ok(out)
}
