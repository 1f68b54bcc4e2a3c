//! (h) Known answers. Every vector file names its source in its `source` field.
//!
//! - ML-KEM: a subset of NIST's ACVP vectors (key generation from d || z, encapsulation from m,
//!   decapsulation of valid and modified ciphertexts) for every implementation, as far as its
//!   API reaches; and Go's accumulated ML-KEM-768 test for implementations with both seeded
//!   operations.
//! - Every liboqs algorithm: the SHA-256 of liboqs's NIST-format KAT transcript.
//! - X25519: RFC 7748's Diffie-Hellman vector, as a decapsulation.

use super::{Options, Outcome};
use crate::kem::{Kem, KemError};
use serde::Deserialize;
use sha3::digest::{ExtendableOutput, Update, XofReader};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One family of vectors: `None` when it does not apply, else what passed, why it failed, or
/// why it could not be run here (decapsulation vectors need secret-key bytes).
type KatStep = fn(&dyn Kem, &Options) -> Option<Outcome>;

/// ACVP subset, shipped in `data/kat/`.
#[derive(Deserialize)]
struct Acvp {
    keygen: Vec<AcvpCase<AcvpKeygen>>,
    encaps: Vec<AcvpCase<AcvpEncaps>>,
    decaps: Vec<AcvpCase<AcvpDecaps>>,
}

/// One ACVP test case: its id, the parameter set (a catalog name) and its values.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AcvpCase<T> {
    tc_id: u32,
    parameter_set: String,
    #[serde(flatten)]
    values: T,
}

#[derive(Deserialize)]
struct AcvpKeygen {
    d: String,
    z: String,
    ek: String,
    dk: String,
}

#[derive(Deserialize)]
struct AcvpEncaps {
    ek: String,
    m: String,
    c: String,
    k: String,
}

#[derive(Deserialize)]
struct AcvpDecaps {
    dk: String,
    c: String,
    k: String,
}

#[derive(Deserialize)]
struct LiboqsKats {
    kats: BTreeMap<String, LiboqsKat>,
}

#[derive(Deserialize)]
struct LiboqsKat {
    single: String,
}

#[derive(Deserialize)]
struct DhVectors {
    vectors: Vec<DhVector>,
}

#[derive(Deserialize)]
struct DhVector {
    sk: String,
    ct: String,
    ss: String,
}

fn acvp() -> &'static Acvp {
    static A: OnceLock<Acvp> = OnceLock::new();
    A.get_or_init(|| {
        serde_json::from_str(include_str!("../../data/kat/mlkem_acvp_subset.json"))
            .expect("shipped ACVP subset parses")
    })
}

fn liboqs_kats() -> &'static LiboqsKats {
    static K: OnceLock<LiboqsKats> = OnceLock::new();
    K.get_or_init(|| {
        serde_json::from_str(include_str!("../../data/kat/liboqs_kats.json"))
            .expect("shipped liboqs KAT digests parse")
    })
}

fn x25519_vectors() -> &'static DhVectors {
    static V: OnceLock<DhVectors> = OnceLock::new();
    V.get_or_init(|| {
        serde_json::from_str(include_str!("../../data/kat/x25519_rfc7748.json"))
            .expect("shipped RFC 7748 vectors parse")
    })
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).expect("shipped vectors are hex")
}

/// Runs every known-answer test that applies to `k`.
pub fn run(k: &dyn Kem, opts: &Options) -> Outcome {
    let (mut done, mut left_out) = (Vec::new(), Vec::new());
    let steps: [KatStep; 8] = [
        acvp_keygen,
        acvp_encaps,
        acvp_decaps,
        accumulated,
        // A package's own file first: its failure names the count and the field.
        package_rsp,
        liboqs_transcript,
        package_transcript,
        x25519_rfc7748,
    ];
    for step in steps {
        match step(k, opts) {
            None => {}
            Some(Outcome::Pass(what)) => done.push(what),
            Some(Outcome::Fail(why)) => return Outcome::Fail(why),
            Some(Outcome::Skip(why)) => left_out.push(why),
        }
    }
    if !left_out.is_empty() {
        left_out.dedup();
        let why = left_out.join("; ");
        return if done.is_empty() {
            Outcome::Skip(why)
        } else {
            Outcome::Pass(format!("{}; {why}", done.join(", ")))
        };
    }
    if done.is_empty() {
        let why = if k.seed_lens().keypair.is_none() {
            "no vectors apply (no seeded API, no decapsulation vectors for this algorithm)"
        } else {
            "no vectors shipped for this algorithm"
        };
        Outcome::Skip(why.into())
    } else {
        Outcome::Pass(done.join(", "))
    }
}

/// The vectors `which` give secret keys as bytes, which this implementation cannot take.
fn needs_sk_bytes(which: &str) -> Outcome {
    Outcome::Skip(format!(
        "{which} vectors not run: they give secret keys as bytes, and {}",
        super::checks::NO_SK_BYTES
    ))
}

/// Why an ACVP case did not pass: its outputs or an error (the step fails, naming the case),
/// or a reason the step cannot run here at all (the step is skipped).
enum Miss {
    Fail(String),
    Skip(Outcome),
}

impl From<String> for Miss {
    fn from(why: String) -> Miss {
        Miss::Fail(why)
    }
}

/// Runs `check` on the cases of `k`'s algorithm among `cases`: `None` when there are none,
/// else the first miss (`{test} tcId N: why`, or the skip), else `{passed} N`.
fn acvp_cases<T>(
    k: &dyn Kem,
    cases: &[AcvpCase<T>],
    test: &str,
    passed: &str,
    check: impl Fn(&T) -> Result<(), Miss>,
) -> Option<Outcome> {
    let name = k.meta().algorithm.name;
    let vs: Vec<&AcvpCase<T>> = cases.iter().filter(|v| v.parameter_set == name).collect();
    if vs.is_empty() {
        return None;
    }
    for v in &vs {
        match check(&v.values) {
            Ok(()) => {}
            Err(Miss::Fail(why)) => {
                return Some(Outcome::Fail(format!("{test} tcId {}: {why}", v.tc_id)))
            }
            Err(Miss::Skip(outcome)) => return Some(outcome),
        }
    }
    Some(Outcome::Pass(format!("{passed} {}", vs.len())))
}

fn acvp_keygen(k: &dyn Kem, _: &Options) -> Option<Outcome> {
    k.seed_lens().keypair?;
    let a = k.meta().algorithm;
    acvp_cases(k, &acvp().keygen, "ACVP keyGen", "ACVP keyGen", |v| {
        let seed = [unhex(&v.d), unhex(&v.z)].concat();
        let (mut pk, mut sk) = (vec![0; a.pk_len], vec![0; a.sk_len]);
        k.keypair_derand(&seed, &mut pk, &mut sk)
            .map_err(|e| e.to_string())?;
        if pk != unhex(&v.ek) || sk != unhex(&v.dk) {
            return Err(Miss::Fail("keys differ".into()));
        }
        Ok(())
    })
}

fn acvp_encaps(k: &dyn Kem, _: &Options) -> Option<Outcome> {
    k.seed_lens().encaps?;
    let a = k.meta().algorithm;
    acvp_cases(k, &acvp().encaps, "ACVP encapsulation", "ACVP encap", |v| {
        let (mut ct, mut ss) = (vec![0; a.ct_len], vec![0; a.ss_len]);
        k.encaps_derand(&unhex(&v.ek), &unhex(&v.m), &mut ct, &mut ss)
            .map_err(|e| e.to_string())?;
        if ct != unhex(&v.c) || ss != unhex(&v.k) {
            return Err(Miss::Fail("outputs differ".into()));
        }
        Ok(())
    })
}

fn acvp_decaps(k: &dyn Kem, _: &Options) -> Option<Outcome> {
    // Decapsulation needs no seed: every implementation that takes FIPS 203 secret keys can be
    // checked, valid and modified ciphertexts alike (implicit rejection has a known answer).
    acvp_cases(
        k,
        &acvp().decaps,
        "ACVP decapsulation",
        "ACVP decap",
        |v| match k.decaps_vec(&unhex(&v.dk), &unhex(&v.c)) {
            Ok(ss) if ss == unhex(&v.k) => Ok(()),
            Err(KemError::Unsupported) => Err(Miss::Skip(needs_sk_bytes("ACVP decapsulation"))),
            Ok(_) => Err(Miss::Fail("secret differs".into())),
            Err(e) => Err(e.to_string().into()),
        },
    )
}

/// Go's `TestAccumulated` digests for ML-KEM-768 (FIPS 203 final): (iterations, SHA-3 digest).
const ACCUMULATED: [(usize, &str); 2] = [
    (
        100,
        "1114b1b6699ed191734fa339376afa7e285c9e6acf6ff0177d346696ce564415",
    ),
    (
        10_000,
        "8a518cc63da366322a8e7a818c7a0d63483cb3528d34a4cf42f35d5ad73f22fc",
    ),
];

/// The accumulated digest of `n` iterations of Go's test over `k` (ML-KEM-768 only).
pub fn accumulated_digest(k: &dyn Kem, n: usize) -> Result<String, String> {
    let a = k.meta().algorithm;
    let mut input = sha3::Shake128::default().finalize_xof();
    let mut acc = sha3::Shake128::default();
    let (mut seed, mut m, mut ct1) = ([0u8; 64], [0u8; 32], vec![0u8; a.ct_len]);
    let (mut pk, mut sk) = (vec![0; a.pk_len], vec![0; a.sk_len]);
    let (mut ct, mut ss) = (vec![0; a.ct_len], vec![0; a.ss_len]);
    for i in 0..n {
        input.read(&mut seed);
        k.keypair_derand(&seed, &mut pk, &mut sk)
            .map_err(|e| format!("iteration {i}: {e}"))?;
        acc.update(&pk);
        input.read(&mut m);
        k.encaps_derand(&pk, &m, &mut ct, &mut ss)
            .map_err(|e| format!("iteration {i}: {e}"))?;
        acc.update(&ct);
        acc.update(&ss);
        if k.decaps_vec(&sk, &ct)
            .map_err(|e| format!("iteration {i}: {e}"))?
            != ss
        {
            return Err(format!("iteration {i}: decapsulation disagrees"));
        }
        input.read(&mut ct1);
        let k1 = k
            .decaps_vec(&sk, &ct1)
            .map_err(|e| format!("iteration {i}: {e}"))?;
        acc.update(&k1);
    }
    let mut out = [0u8; 32];
    acc.finalize_xof().read(&mut out);
    Ok(hex::encode(out))
}

fn accumulated(k: &dyn Kem, opts: &Options) -> Option<Outcome> {
    if k.meta().algorithm.name != "ML-KEM-768" {
        return None;
    }
    let s = k.seed_lens();
    if s.keypair != Some(64) || s.encaps != Some(32) {
        return None;
    }
    let (n, want) = ACCUMULATED
        .iter()
        .copied()
        .find(|(n, _)| *n >= opts.accumulated_iterations)
        .unwrap_or(ACCUMULATED[0]);
    Some(match accumulated_digest(k, n) {
        Ok(got) if got == want => Outcome::Pass(format!("accumulated x{n}")),
        Ok(got) => Outcome::Fail(format!("accumulated x{n}: digest {got}, expected {want}")),
        Err(e) => Outcome::Fail(format!("accumulated: {e}")),
    })
}

/// The first NIST KAT entry against the digest the implementation's own source package
/// publishes (PQClean's `META.yml`), for builds whose draws kembench can seed.
fn package_transcript(k: &dyn Kem, _: &Options) -> Option<Outcome> {
    let (want, from) = k.known_answer_digest()?;
    let transcript = k.known_answer_transcript(1)?;
    Some(match transcript {
        Ok(t) => {
            let got = hex::encode(sha2::Sha256::digest(t.as_bytes()));
            if got == want {
                Outcome::Pass(format!("NIST KAT ({from})"))
            } else {
                Outcome::Fail(format!("NIST KAT digest {got}, expected {want} ({from})"))
            }
        }
        Err(e) => Outcome::Fail(format!("NIST KAT: {e}")),
    })
}

/// The package's own KAT response file, regenerated through the implementation and NIST's DRBG
/// and compared entry by entry: the first differing count and field are named.
fn package_rsp(k: &dyn Kem, _: &Options) -> Option<Outcome> {
    use crate::kem::nist_kat::{first_difference, parse_rsp};
    let path = k.known_answer_file()?;
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => return Some(Outcome::Fail(format!("{}: {e}", path.display()))),
    };
    let want = parse_rsp(&text);
    if want.is_empty() {
        return Some(Outcome::Fail(format!("{name} has no KAT entries")));
    }
    let Some(got) = k.known_answer_transcript(want.len()) else {
        return Some(Outcome::Skip(format!(
            "{name} not checked: the implementation's random draws cannot be seeded"
        )));
    };
    Some(match got {
        Ok(t) => match first_difference(&want, &parse_rsp(&t)) {
            None => Outcome::Pass(format!("{name}, {} entries", want.len())),
            Some(d) => Outcome::Fail(format!("{name}: {d}")),
        },
        Err(e) => Outcome::Fail(format!("{name}: {e}")),
    })
}

fn liboqs_transcript(k: &dyn Kem, _: &Options) -> Option<Outcome> {
    if k.known_answer_digest().is_some() {
        return None; // checked against its own package's digest instead
    }
    let want = &liboqs_kats().kats.get(k.meta().algorithm.name)?.single;
    let transcript = k.known_answer_transcript(1)?;
    Some(match transcript {
        Ok(t) => {
            let got = hex::encode(sha2::Sha256::digest(t.as_bytes()));
            if &got == want {
                Outcome::Pass("liboqs KAT".to_string())
            } else {
                Outcome::Fail(format!("liboqs KAT digest {got}, expected {want}"))
            }
        }
        Err(e) => Outcome::Fail(format!("liboqs KAT: {e}")),
    })
}

fn x25519_rfc7748(k: &dyn Kem, _: &Options) -> Option<Outcome> {
    if k.meta().algorithm.name != "X25519" {
        return None;
    }
    let vs = &x25519_vectors().vectors;
    for (i, v) in vs.iter().enumerate() {
        match k.decaps_vec(&unhex(&v.sk), &unhex(&v.ct)) {
            Ok(ss) if ss == unhex(&v.ss) => {}
            Err(KemError::Unsupported) => return Some(needs_sk_bytes("RFC 7748")),
            Ok(_) => {
                return Some(Outcome::Fail(format!(
                    "RFC 7748 vector {}: secret differs",
                    i + 1
                )))
            }
            Err(e) => return Some(Outcome::Fail(format!("RFC 7748 vector {}: {e}", i + 1))),
        }
    }
    Some(Outcome::Pass(format!("RFC 7748 {}", vs.len())))
}

use sha2::Digest as _;
