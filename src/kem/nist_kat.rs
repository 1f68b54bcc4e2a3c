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

/// One KAT entry: its fields (`count`, `seed`, `pk`, `sk`, `ct`, `ss`) in file order, with the
/// 1-based line of each.
pub type Entry = Vec<(String, String, usize)>;

/// The entries of a NIST KAT response file (or of a transcript): `name = value` lines, a new
/// entry at each `count`; `#` comments and blank lines ignored.
pub fn parse_rsp(text: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_ascii_uppercase());
        if k == "count" || out.is_empty() {
            out.push(Vec::new());
        }
        if let Some(e) = out.last_mut() {
            e.push((k, v, i + 1));
        }
    }
    out
}

/// The first difference between `expected` (the file) and `got` (regenerated): which count,
/// which field, and the file's line; `None` when every field of every expected entry matches.
pub fn first_difference(expected: &[Entry], got: &[Entry]) -> Option<String> {
    for (n, want) in expected.iter().enumerate() {
        let count = want
            .iter()
            .find(|(k, _, _)| k == "count")
            .map_or(n.to_string(), |(_, v, _)| v.clone());
        let Some(have) = got.get(n) else {
            return Some(format!("count = {count}: not regenerated"));
        };
        for (k, v, line) in want {
            match have.iter().find(|(hk, _, _)| hk == k) {
                Some((_, hv, _)) if hv == v => {}
                Some(_) => return Some(format!("count = {count}: {k} differs (file line {line})")),
                None => return Some(format!("count = {count}: no {k} regenerated")),
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rsp_files_are_read_and_the_first_difference_named() {
        let file = "# ML-KEM-512\n\ncount = 0\nseed = 00\npk = AB\nss = 01\n\ncount = 1\nseed = 11\npk = CD\nss = 02\n";
        let want = parse_rsp(file);
        assert_eq!(want.len(), 2);
        assert_eq!(want[1][2], ("pk".into(), "CD".into(), 10));
        let same = parse_rsp(&file.to_lowercase());
        assert_eq!(first_difference(&want, &same), None);
        let other = parse_rsp(&file.replace("pk = CD", "pk = CE"));
        assert_eq!(
            first_difference(&want, &other).as_deref(),
            Some("count = 1: pk differs (file line 10)")
        );
        assert!(first_difference(&want, &want[..1])
            .unwrap()
            .contains("not regenerated"));
    }
}
