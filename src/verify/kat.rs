//! (h) Known answers. Every vector file names its source in its `source` field.
//!
//! - ML-KEM: a subset of NIST's ACVP vectors (key generation from d || z, encapsulation from m,
//!   decapsulation of valid and modified ciphertexts) for every implementation, as far as its
//!   API reaches; and Go's accumulated ML-KEM-768 test for implementations with both seeded
//!   operations.
//! - Every liboqs algorithm: the SHA-256 of liboqs's NIST-format KAT transcript.
//! - X25519: RFC 7748's Diffie-Hellman vector, as a decapsulation.
//! - HQC of the 2025-08-22 specification (`HQC-1/3/5`): the reference code's KAT files as
//!   `hqc-kem` ships them (`kat/hqc-*.rsp`, 100 entries each), regenerated entry by entry
//!   (the implementation's `known_answer_file`).
//! - X-Wing: the draft's test vectors as the `x-wing` crate ships them
//!   (`tests/test-vectors.json`), through the seeded key generation and encapsulation and a
//!   decapsulation from the secret-key bytes.

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
    all: String,
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

/// Between what passed and what was left out, in a pass that left some vectors out.
const LEFT_OUT: &str = "; ";

/// A pass's detail split into what ran and passed, and what was left out and why (`None` when
/// every vector that applies ran).
pub fn ran_and_left_out(detail: &str) -> (&str, Option<&str>) {
    match detail.split_once(LEFT_OUT) {
        Some((ran, left_out)) => (ran, Some(left_out)),
        None => (detail, None),
    }
}

/// Runs every known-answer test that applies to `k`.
pub fn run(k: &dyn Kem, opts: &Options) -> Outcome {
    let (mut done, mut left_out) = (Vec::new(), Vec::new());
    let steps: [KatStep; 9] = [
        acvp_keygen,
        acvp_encaps,
        acvp_decaps,
        accumulated,
        // A package's own file first: its failure names the count and the field.
        package_rsp,
        liboqs_transcript,
        package_transcript,
        x25519_rfc7748,
        x_wing_draft,
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
        return if done.is_empty() {
            Outcome::Skip(left_out.join("; "))
        } else {
            Outcome::Pass(format!(
                "{}{LEFT_OUT}{}",
                done.join(", "),
                left_out.join("; ")
            ))
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

/// Why ACVP's `which` vectors, of which `cases` has some for `k`'s algorithm, cannot run on an
/// API without the seeded operation they need; `None` when there are none to run.
fn no_seeded_api<T>(k: &dyn Kem, cases: &[AcvpCase<T>], which: &str, op: &str) -> Option<Outcome> {
    let name = k.meta().algorithm.name;
    cases.iter().any(|v| v.parameter_set == name).then(|| {
        Outcome::Skip(format!(
            "ACVP {which} vectors not run: the library offers no {op} from a given seed"
        ))
    })
}

fn acvp_keygen(k: &dyn Kem, _: &Options) -> Option<Outcome> {
    if k.seed_lens().keypair.is_none() {
        return no_seeded_api(k, &acvp().keygen, "keyGen", "key generation");
    }
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
    if k.seed_lens().encaps.is_none() {
        return no_seeded_api(k, &acvp().encaps, "encapsulation", "encapsulation");
    }
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

/// Counts of liboqs's full KAT files: 100, or 10 for Classic McEliece (its `max_kats`).
fn liboqs_counts(algorithm: &str) -> usize {
    if algorithm.starts_with("Classic-McEliece") {
        10
    } else {
        100
    }
}

fn liboqs_transcript(k: &dyn Kem, opts: &Options) -> Option<Outcome> {
    if k.known_answer_digest().is_some() {
        return None; // checked against its own package's digest instead
    }
    let name = k.meta().algorithm.name;
    let kat = liboqs_kats().kats.get(name)?;
    let (counts, want, what) = if opts.all_counts {
        let n = liboqs_counts(name);
        (n, &kat.all, format!("liboqs KAT, {n} counts"))
    } else {
        (1, &kat.single, "liboqs KAT".to_string())
    };
    let transcript = k.known_answer_transcript(counts)?;
    Some(match transcript {
        Ok(t) => {
            let got = hex::encode(sha2::Sha256::digest(t.as_bytes()));
            if &got == want {
                Outcome::Pass(what)
            } else {
                Outcome::Fail(format!("{what}: digest {got}, expected {want}"))
            }
        }
        Err(e) => Outcome::Fail(format!("{what}: {e}")),
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

/// One of the X-Wing draft's test vectors (`seed`, `eseed`, `sk`, `pk`, `ct`, `ss`, hex).
#[derive(Deserialize)]
struct XWingVector {
    seed: String,
    eseed: String,
    sk: String,
    pk: String,
    ct: String,
    ss: String,
}

/// Where the X-Wing draft's test vectors are: the `x-wing` crate as the build fetched it
/// (`build.rs`), or the copy `KEMBENCH_SRC_X_WING` names at run time.
fn x_wing_vectors_path() -> Option<std::path::PathBuf> {
    let built = env!("KEMBENCH_SRC_X_WING");
    let dir = std::env::var_os("KEMBENCH_SRC_X_WING")
        .map(std::path::PathBuf::from)
        .or_else(|| (built != "absent").then(|| std::path::PathBuf::from(built)))?;
    Some(dir.join("tests/test-vectors.json"))
}

/// The X-Wing draft's test vectors: seeded key generation (keys), seeded encapsulation
/// (ciphertext, secret) and decapsulation of the vector's ciphertext with its secret key.
fn x_wing_draft(k: &dyn Kem, _: &Options) -> Option<Outcome> {
    if k.meta().algorithm.name != "X-Wing" {
        return None;
    }
    let Some(path) = x_wing_vectors_path() else {
        return Some(Outcome::Fail(
            "X-Wing draft vectors: the build found no x-wing crate; set KEMBENCH_SRC_X_WING to \
             its directory"
                .into(),
        ));
    };
    let vs: Vec<XWingVector> = match std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => return Some(Outcome::Fail(format!("{}: {e}", path.display()))),
    };
    if vs.is_empty() {
        return Some(Outcome::Fail(format!("{} has no vectors", path.display())));
    }
    let a = k.meta().algorithm;
    let check = |v: &XWingVector| -> Result<(), String> {
        let (mut pk, mut sk) = (vec![0; a.pk_len], vec![0; a.sk_len]);
        k.keypair_derand(&unhex(&v.seed), &mut pk, &mut sk)
            .map_err(|e| format!("keygen: {e}"))?;
        if pk != unhex(&v.pk) || sk != unhex(&v.sk) {
            return Err("keys differ".into());
        }
        let (mut ct, mut ss) = (vec![0; a.ct_len], vec![0; a.ss_len]);
        k.encaps_derand(&pk, &unhex(&v.eseed), &mut ct, &mut ss)
            .map_err(|e| format!("encaps: {e}"))?;
        if ct != unhex(&v.ct) || ss != unhex(&v.ss) {
            return Err("encapsulation outputs differ".into());
        }
        match k.decaps_vec(&unhex(&v.sk), &unhex(&v.ct)) {
            Ok(s) if s == unhex(&v.ss) => Ok(()),
            Ok(_) => Err("decapsulated secret differs".into()),
            Err(e) => Err(format!("decaps: {e}")),
        }
    };
    for (i, v) in vs.iter().enumerate() {
        if let Err(why) = check(v) {
            return Some(Outcome::Fail(format!(
                "X-Wing draft vector {}: {why}",
                i + 1
            )));
        }
    }
    Some(Outcome::Pass(format!("X-Wing draft vectors {}", vs.len())))
}

use sha2::Digest as _;

#[cfg(test)]
mod tests {
    //! Each family of known answers fails on an implementation that is wrong in exactly what
    //! that family sees: a real implementation, wrapped to corrupt one output.

    use super::*;
    use crate::kem::{ImplMeta, Imports, SecretKey, SeedLens};
    use crate::providers::Registry;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// What the wrapper corrupts.
    #[derive(Clone, Copy, PartialEq)]
    enum Corrupt {
        /// A seeded key pair's public key, from the `n`th call on (0: every call).
        KeygenAfter(usize),
        /// A seeded encapsulation's ciphertext.
        Encaps,
        /// A decapsulation's secret from secret-key bytes.
        Decaps,
        /// One hex digit of the NIST-format transcript's first shared secret.
        Transcript,
        /// A seeded key pair made from another seed (one bit flipped) from the `n`th call on:
        /// a valid, self-consistent key pair, only not the one the seed names.
        SeedAfter(usize),
    }

    struct Wrapped {
        inner: Arc<dyn Kem>,
        corrupt: Corrupt,
        calls: AtomicUsize,
        rsp: Option<PathBuf>,
    }

    fn wrap(label: &str, corrupt: Corrupt) -> Wrapped {
        let inner = Registry::new(false)
            .get(label)
            .unwrap_or_else(|| panic!("{label} is not registered"));
        Wrapped {
            inner,
            corrupt,
            calls: AtomicUsize::new(0),
            rsp: None,
        }
    }

    impl Kem for Wrapped {
        fn meta(&self) -> &ImplMeta {
            self.inner.meta()
        }
        fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
            self.inner.keypair_raw(pk, sk)
        }
        fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
            self.inner.encaps_raw(pk, ct, ss)
        }
        fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
            self.inner.decaps_raw(sk, ct, ss)?;
            if self.corrupt == Corrupt::Decaps {
                ss[0] ^= 1;
            }
            Ok(())
        }
        fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
            self.inner.keypair_kept_raw(pk)
        }
        fn decaps_kept_raw(
            &self,
            sk: &mut SecretKey,
            ct: &[u8],
            ss: &mut [u8],
        ) -> Result<(), KemError> {
            self.inner.decaps_kept_raw(sk, ct, ss)
        }
        fn imports(&self) -> Imports {
            self.inner.imports()
        }
        fn seed_lens(&self) -> SeedLens {
            self.inner.seed_lens()
        }
        fn keypair_derand_raw(
            &self,
            seed: &[u8],
            pk: &mut [u8],
            sk: &mut [u8],
        ) -> Result<(), KemError> {
            if let Corrupt::SeedAfter(n) = self.corrupt {
                if self.calls.fetch_add(1, Ordering::Relaxed) >= n {
                    let mut other = seed.to_vec();
                    other[0] ^= 1;
                    return self.inner.keypair_derand_raw(&other, pk, sk);
                }
            }
            self.inner.keypair_derand_raw(seed, pk, sk)?;
            if let Corrupt::KeygenAfter(n) = self.corrupt {
                if self.calls.fetch_add(1, Ordering::Relaxed) >= n {
                    pk[0] ^= 1;
                }
            }
            Ok(())
        }
        fn encaps_derand_raw(
            &self,
            pk: &[u8],
            seed: &[u8],
            ct: &mut [u8],
            ss: &mut [u8],
        ) -> Result<(), KemError> {
            self.inner.encaps_derand_raw(pk, seed, ct, ss)?;
            if self.corrupt == Corrupt::Encaps {
                ct[0] ^= 1;
            }
            Ok(())
        }
        fn known_answer_transcript(&self, entries: usize) -> Option<Result<String, KemError>> {
            let t = self.inner.known_answer_transcript(entries)?;
            Some(t.map(|t| {
                if self.corrupt == Corrupt::Transcript {
                    let at = t.find("ss = ").expect("a shared secret") + 5;
                    let digit = if &t[at..at + 1] == "0" { "1" } else { "0" };
                    format!("{}{digit}{}", &t[..at], &t[at + 1..])
                } else {
                    t
                }
            }))
        }
        fn known_answer_file(&self) -> Option<PathBuf> {
            self.rsp.clone().or_else(|| self.inner.known_answer_file())
        }
    }

    fn fails(k: &dyn Kem, says: &str) {
        match run(k, &Options::default()) {
            Outcome::Fail(why) => assert!(why.contains(says), "{why}"),
            other => panic!("{}: {other:?}", k.meta().label()),
        }
    }

    #[test]
    fn a_wrong_seeded_key_pair_fails_acvp_key_generation() {
        fails(
            &wrap("ML-KEM-768@rustcrypto", Corrupt::KeygenAfter(0)),
            "ACVP keyGen tcId",
        );
    }

    #[test]
    fn a_wrong_seeded_ciphertext_fails_acvp_encapsulation() {
        fails(
            &wrap("ML-KEM-768@rustcrypto", Corrupt::Encaps),
            "ACVP encapsulation tcId",
        );
    }

    #[test]
    fn a_wrong_decapsulation_fails_acvp_decapsulation() {
        // aws-lc has no seeded operations: the decapsulation vectors are its only ACVP check.
        fails(
            &wrap("ML-KEM-768@aws-lc", Corrupt::Decaps),
            "ACVP decapsulation tcId",
        );
    }

    #[test]
    fn a_key_pair_wrong_only_after_the_acvp_cases_fails_the_accumulated_test() {
        let cases = acvp()
            .keygen
            .iter()
            .filter(|v| v.parameter_set == "ML-KEM-768")
            .count();
        let k = wrap("ML-KEM-768@rustcrypto", Corrupt::KeygenAfter(cases));
        // The public key no longer matches the secret key: the first iteration says so.
        fails(&k, "accumulated: iteration 0");
    }

    /// Key pairs that are valid and consistent (every decapsulation agrees) but not the
    /// seed's, past the ACVP cases: only the accumulated digest sees it, and it fails naming
    /// both digests.
    #[test]
    fn a_consistent_but_wrong_key_pair_fails_the_accumulated_digest() {
        let cases = acvp()
            .keygen
            .iter()
            .filter(|v| v.parameter_set == "ML-KEM-768")
            .count();
        let k = wrap("ML-KEM-768@rustcrypto", Corrupt::SeedAfter(cases));
        let (n, want) = ACCUMULATED
            .iter()
            .copied()
            .find(|(n, _)| *n >= Options::default().accumulated_iterations)
            .unwrap();
        fails(&k, &format!("accumulated x{n}: digest "));
        fails(
            &wrap("ML-KEM-768@rustcrypto", Corrupt::SeedAfter(cases)),
            &format!(", expected {want}"),
        );
    }

    #[test]
    fn a_wrong_transcript_fails_the_liboqs_digest() {
        fails(
            &wrap("ML-KEM-768@liboqs", Corrupt::Transcript),
            "liboqs KAT: digest",
        );
    }

    /// HQC of the 2025-08-22 specification passes against the reference code's KAT file as
    /// `hqc-kem` ships it (all 100 entries), and a transcript wrong in one digit fails naming
    /// the count and the field.
    #[test]
    fn hqc_1_is_checked_against_its_specifications_kat_file() {
        let k = wrap("HQC-1@rustcrypto", Corrupt::KeygenAfter(usize::MAX));
        assert_eq!(
            run(&k, &Options::default()),
            Outcome::Pass("hqc-1.rsp, 100 entries".into())
        );
        fails(
            &wrap("HQC-1@rustcrypto", Corrupt::Transcript),
            "hqc-1.rsp: count = 0: ss differs",
        );
    }

    /// X-Wing passes the draft's test vectors, and fails them when its seeded encapsulation,
    /// its seeded key generation or its decapsulation is wrong.
    #[test]
    fn x_wing_is_checked_against_the_drafts_vectors() {
        let k = wrap("X-Wing@rustcrypto", Corrupt::KeygenAfter(usize::MAX));
        assert_eq!(
            run(&k, &Options::default()),
            Outcome::Pass("X-Wing draft vectors 3".into())
        );
        fails(
            &wrap("X-Wing@rustcrypto", Corrupt::KeygenAfter(0)),
            "X-Wing draft vector 1: keys differ",
        );
        fails(
            &wrap("X-Wing@rustcrypto", Corrupt::Encaps),
            "X-Wing draft vector 1: encapsulation outputs differ",
        );
        fails(
            &wrap("X-Wing@rustcrypto", Corrupt::Decaps),
            "X-Wing draft vector 1: decapsulated secret differs",
        );
    }

    #[test]
    fn a_wrong_x25519_secret_fails_rfc_7748() {
        fails(
            &wrap("X25519@aws-lc", Corrupt::Decaps),
            "RFC 7748 vector 1: secret differs",
        );
    }

    /// liboqs's shipped files, in the oqs-sys crate the build compiled liboqs from.
    fn liboqs_file(rel: &str) -> serde_json::Value {
        let root = env!("KEMBENCH_SRC_OQS_SYS");
        assert_ne!(root, "absent", "the kembench build found no oqs-sys crate");
        let path = std::path::Path::new(root).join("liboqs").join(rel);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_str(&text).unwrap()
    }

    /// Every digest kembench carries (`data/kat/liboqs_kats.json`, single and all counts) is
    /// liboqs's own, as its source tree ships it: checked against that file, not against
    /// figures kembench wrote.
    #[test]
    fn the_liboqs_digests_are_the_ones_liboqs_ships() {
        let shipped = liboqs_file("tests/KATs/kem/kats.json");
        let ours = &liboqs_kats().kats;
        assert!(ours.len() >= 29, "{}", ours.len());
        for (name, kat) in ours {
            assert_eq!(
                shipped[name]["single"],
                kat.single.as_str(),
                "{name} single"
            );
        }
        for (name, kat) in ours {
            assert_eq!(shipped[name]["all"], kat.all.as_str(), "{name} all");
        }
    }

    /// liboqs's digest over every count (100, or 10 for Classic McEliece), which `verify` does
    /// not run (it checks the first count, as liboqs's own quick test does): kembench's
    /// in-process KAT generation reproduces them all, for every liboqs algorithm but the
    /// larger Classic McEliece sets (minutes of key generation here; their first count is
    /// checked by `verify`).
    #[test]
    fn liboqs_transcripts_match_liboqs_over_every_count() {
        let raw: serde_json::Value =
            serde_json::from_str(include_str!("../../data/kat/liboqs_kats.json")).unwrap();
        let registry = Registry::new(false);
        let mut checked = 0;
        for (name, kat) in raw["kats"].as_object().unwrap() {
            let mceliece = name.starts_with("Classic-McEliece");
            if mceliece && !name.starts_with("Classic-McEliece-348864") {
                continue;
            }
            let Some(k) = registry.get(&format!("{name}@liboqs")) else {
                panic!("{name}@liboqs is not registered");
            };
            let counts = liboqs_counts(name);
            let t = k.known_answer_transcript(counts).unwrap().unwrap();
            let got = hex::encode(sha2::Sha256::digest(t.as_bytes()));
            assert_eq!(got, kat["all"].as_str().unwrap(), "{name}, {counts} counts");
            checked += 1;
        }
        assert!(checked >= 20, "{checked}");
    }

    /// Every ACVP case kembench carries (`data/kat/mlkem_acvp_subset.json`) is NIST's, as
    /// liboqs ships ACVP-Server's files: each value equals the case of the same tcId there.
    #[test]
    fn the_acvp_subset_is_nists_cases() {
        let keygen =
            liboqs_file("tests/ACVP_Vectors/ML-KEM-keyGen-FIPS203/internalProjection.json");
        let encdec =
            liboqs_file("tests/ACVP_Vectors/ML-KEM-encapDecap-FIPS203/internalProjection.json");
        // (group, case) of `tc_id` for `set` and, for encapDecap, `function`.
        let find = |file: &serde_json::Value, set: &str, function: Option<&str>, tc_id: u32| {
            let groups = file["testGroups"].as_array().unwrap();
            groups
                .iter()
                .filter(|g| g["parameterSet"] == set)
                .filter(|g| function.is_none_or(|f| g["function"] == f))
                .find_map(|g| {
                    g["tests"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|t| t["tcId"] == tc_id)
                        .map(|t| (g.clone(), t.clone()))
                })
                .unwrap_or_else(|| panic!("{set} tcId {tc_id} is not in NIST's file"))
        };
        let hex_eq = |a: &serde_json::Value, b: &str, what: &str| {
            assert!(
                a.as_str().unwrap().eq_ignore_ascii_case(b),
                "{what}: {a} vs {b}"
            );
        };
        let a = acvp();
        for c in &a.keygen {
            let (_, t) = find(&keygen, &c.parameter_set, None, c.tc_id);
            let v = &c.values;
            for (field, ours) in [("d", &v.d), ("z", &v.z), ("ek", &v.ek), ("dk", &v.dk)] {
                hex_eq(&t[field], ours, &format!("keyGen {} {field}", c.tc_id));
            }
        }
        for c in &a.encaps {
            let (_, t) = find(&encdec, &c.parameter_set, Some("encapsulation"), c.tc_id);
            let v = &c.values;
            for (field, ours) in [("ek", &v.ek), ("m", &v.m), ("c", &v.c), ("k", &v.k)] {
                hex_eq(&t[field], ours, &format!("encap {} {field}", c.tc_id));
            }
        }
        for c in &a.decaps {
            let (g, t) = find(&encdec, &c.parameter_set, Some("decapsulation"), c.tc_id);
            let v = &c.values;
            hex_eq(&g["dk"], &v.dk, &format!("decap {} dk", c.tc_id));
            hex_eq(&t["c"], &v.c, &format!("decap {} c", c.tc_id));
            hex_eq(&t["k"], &v.k, &format!("decap {} k", c.tc_id));
        }
        assert_eq!(
            (a.keygen.len(), a.encaps.len(), a.decaps.len()),
            (12, 12, 12)
        );
    }

    /// A package's response file is compared entry by entry: the first count and field that
    /// differ are named, and the file's own entries pass.
    #[test]
    fn a_response_file_that_disagrees_names_the_count_and_the_field() {
        let dir = std::env::temp_dir().join(format!("kembench-kat-rsp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rsp = dir.join("PQCkemKAT_2400.rsp");
        let mut k = wrap("ML-KEM-768@liboqs", Corrupt::KeygenAfter(usize::MAX));
        let transcript = k.known_answer_transcript(3).unwrap().unwrap();
        std::fs::write(&rsp, format!("# ML-KEM-768\n\n{transcript}\n")).unwrap();
        k.rsp = Some(rsp.clone());
        assert_eq!(
            package_rsp(&k, &Options::default()),
            Some(Outcome::Pass("PQCkemKAT_2400.rsp, 3 entries".into()))
        );
        // The second entry's ciphertext, one digit changed in the file.
        let second = transcript.find("count = 1").unwrap();
        let ct = second + transcript[second..].find("ct = ").unwrap() + 5;
        let mut edited = transcript.clone();
        let digit = if &edited[ct..ct + 1] == "0" { "1" } else { "0" };
        edited.replace_range(ct..ct + 1, digit);
        std::fs::write(&rsp, format!("# ML-KEM-768\n\n{edited}\n")).unwrap();
        match package_rsp(&k, &Options::default()) {
            Some(Outcome::Fail(why)) => {
                assert!(why.starts_with("PQCkemKAT_2400.rsp: count = 1"), "{why}");
                assert!(why.contains("ct differs"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
