//! Checks (a)-(e), each on one implementation alone.

use super::{guarded, Check, Options, Outcome};
use crate::kem::{Kem, KemError};
use std::collections::BTreeMap;
use std::time::Instant;

/// Runs checks (a)-(e) on `k`.
pub fn run_all(k: &dyn Kem, opts: &Options) -> BTreeMap<Check, Outcome> {
    let mut m = BTreeMap::new();
    m.insert(Check::RoundTrip, guarded(|| round_trips(k, opts)));
    m.insert(Check::Sizes, guarded(|| sizes(k)));
    m.insert(Check::Canaries, guarded(|| canaries(k)));
    m.insert(Check::Tamper, guarded(|| tamper(k)));
    m.insert(Check::BadLengths, guarded(|| bad_lengths(k)));
    m
}

fn err(step: &str, e: KemError) -> Outcome {
    Outcome::Fail(format!("{step}: {e}"))
}

/// (a) Round trips until the budget is spent, never fewer than the minimum.
pub fn round_trips(k: &dyn Kem, opts: &Options) -> Outcome {
    let start = Instant::now();
    let mut n = 0;
    while n < opts.min_round_trips
        || (n < opts.max_round_trips && start.elapsed() < opts.round_trip_budget)
    {
        let (pk, sk) = match k.keypair_vec() {
            Ok(v) => v,
            Err(e) => return err("keypair", e),
        };
        let (ct, ss) = match k.encaps_vec(&pk) {
            Ok(v) => v,
            Err(e) => return err("encaps", e),
        };
        let ss2 = match k.decaps_vec(&sk, &ct) {
            Ok(v) => v,
            Err(e) => return err("decaps", e),
        };
        if ss != ss2 {
            return Outcome::Fail(format!("trip {}: decapsulated secret differs", n + 1));
        }
        n += 1;
    }
    Outcome::Pass(format!("{n} trips"))
}

/// (b) Outputs fill catalog-sized buffers, and the library's own declared lengths agree.
pub fn sizes(k: &dyn Kem) -> Outcome {
    let a = k.meta().algorithm;
    let catalog = [a.pk_len, a.sk_len, a.ct_len, a.ss_len];
    if let Some(declared) = k.declared_lens() {
        if declared != catalog {
            return Outcome::Fail(format!(
                "library declares pk/sk/ct/ss {declared:?}, catalog says {catalog:?}"
            ));
        }
    }
    // The adapters copy the library's own outputs into these buffers and fail (or panic,
    // caught) when a length differs, so one full exchange checks every output length.
    match k.keypair_vec().and_then(|(pk, sk)| {
        let (ct, ss) = k.encaps_vec(&pk)?;
        let ss2 = k.decaps_vec(&sk, &ct)?;
        Ok([pk.len(), sk.len(), ct.len(), ss2.len().min(ss.len())])
    }) {
        Ok(got) if got == catalog => Outcome::Pass(format!(
            "{}/{}/{}/{} bytes",
            a.pk_len, a.sk_len, a.ct_len, a.ss_len
        )),
        Ok(got) => Outcome::Fail(format!("got {got:?}, catalog {catalog:?}")),
        Err(e) => err("exchange", e),
    }
}

const CANARY: usize = 64;
const GUARD: u8 = 0xA5;
const FILL: u8 = 0x5A;

/// A buffer with canary bytes on both sides of the `len` bytes handed out.
struct Guarded(Vec<u8>, usize);

impl Guarded {
    fn new(len: usize) -> Self {
        let mut v = vec![GUARD; len + 2 * CANARY];
        v[CANARY..CANARY + len].fill(FILL);
        Guarded(v, len)
    }
    fn inner(&mut self) -> &mut [u8] {
        &mut self.0[CANARY..CANARY + self.1]
    }
    fn get(&self) -> &[u8] {
        &self.0[CANARY..CANARY + self.1]
    }
    fn intact(&self) -> bool {
        self.0[..CANARY].iter().all(|&b| b == GUARD)
            && self.0[CANARY + self.1..].iter().all(|&b| b == GUARD)
    }
    fn written(&self) -> bool {
        self.1 <= 2 || self.get().iter().any(|&b| b != FILL)
    }
}

/// (c) Canary bytes around every output buffer stay untouched, and every output is written.
pub fn canaries(k: &dyn Kem) -> Outcome {
    let a = k.meta().algorithm;
    let (mut pk, mut sk) = (Guarded::new(a.pk_len), Guarded::new(a.sk_len));
    if let Err(e) = k.keypair(pk.inner(), sk.inner()) {
        return err("keypair", e);
    }
    let (mut ct, mut ss) = (Guarded::new(a.ct_len), Guarded::new(a.ss_len));
    if let Err(e) = k.encaps(pk.get(), ct.inner(), ss.inner()) {
        return err("encaps", e);
    }
    let mut ss2 = Guarded::new(a.ss_len);
    if let Err(e) = k.decaps(sk.get(), ct.get(), ss2.inner()) {
        return err("decaps", e);
    }
    for (name, b) in [
        ("public key", &pk),
        ("secret key", &sk),
        ("ciphertext", &ct),
        ("encaps secret", &ss),
        ("decaps secret", &ss2),
    ] {
        if !b.intact() {
            return Outcome::Fail(format!("canary overwritten around the {name}"));
        }
        if !b.written() {
            return Outcome::Fail(format!("the {name} buffer was left unwritten"));
        }
    }
    Outcome::Pass(format!("{CANARY}-byte canaries intact"))
}

/// (d) Tampered ciphertexts: implicit rejection where claimed, never the original secret.
pub fn tamper(k: &dyn Kem) -> Outcome {
    let a = k.meta().algorithm;
    let (pk, sk) = match k.keypair_vec() {
        Ok(v) => v,
        Err(e) => return err("keypair", e),
    };
    let (ct, ss) = match k.encaps_vec(&pk) {
        Ok(v) => v,
        Err(e) => return err("encaps", e),
    };
    let mut secrets = Vec::new();
    // The first byte and a middle byte: both lie in fully used bytes of every encoding here
    // (for X25519MLKEM768 both are in the ML-KEM part).
    for pos in [0, a.ct_len / 2] {
        let mut bad = ct.clone();
        bad[pos] ^= 1;
        let first = k.decaps_vec(&sk, &bad);
        if !a.implicit_rejection {
            if first.as_ref().is_ok_and(|s| *s == ss) {
                return Outcome::Fail(format!(
                    "tampered byte {pos} still gave the original secret"
                ));
            }
            continue;
        }
        let first = match first {
            Ok(s) => s,
            Err(e) => {
                return Outcome::Fail(format!("implicit rejection expected, got an error: {e}"))
            }
        };
        let again = match k.decaps_vec(&sk, &bad) {
            Ok(s) => s,
            Err(e) => return err("second decaps", e),
        };
        if first == ss {
            return Outcome::Fail(format!(
                "tampered byte {pos} still gave the original secret"
            ));
        }
        if first != again {
            return Outcome::Fail(format!(
                "tampered byte {pos} gave different secrets on two calls"
            ));
        }
        secrets.push(first);
    }
    if a.implicit_rejection {
        if secrets.len() == 2 && secrets[0] == secrets[1] {
            return Outcome::Fail("two different tampered ciphertexts gave the same secret".into());
        }
        Outcome::Pass("implicit rejection, deterministic".into())
    } else {
        Outcome::Pass("no implicit rejection claimed; secret never reproduced".into())
    }
}

/// (e) Wrong-length inputs and output buffers give `InvalidLength`, never a panic or crash.
pub fn bad_lengths(k: &dyn Kem) -> Outcome {
    let a = k.meta().algorithm;
    let (pk, sk) = match k.keypair_vec() {
        Ok(v) => v,
        Err(e) => return err("keypair", e),
    };
    let (ct, _) = match k.encaps_vec(&pk) {
        Ok(v) => v,
        Err(e) => return err("encaps", e),
    };
    let mut tried = 0;
    for delta in [-1isize, 1, -(a.pk_len.max(a.sk_len).max(a.ct_len) as isize)] {
        let resize = |v: &[u8]| {
            let n = (v.len() as isize + delta).max(0) as usize;
            let mut w = v.to_vec();
            w.resize(n, 0);
            w
        };
        let cases: [(&str, Result<(), KemError>); 5] = [
            (
                "public key",
                k.encaps(&resize(&pk), &mut vec![0; a.ct_len], &mut vec![0; a.ss_len]),
            ),
            (
                "secret key",
                k.decaps(&resize(&sk), &ct, &mut vec![0; a.ss_len]),
            ),
            (
                "ciphertext",
                k.decaps(&sk, &resize(&ct), &mut vec![0; a.ss_len]),
            ),
            (
                "shared secret buffer",
                k.decaps(&sk, &ct, &mut resize(&vec![0; a.ss_len])),
            ),
            (
                "public key buffer",
                k.keypair(&mut resize(&pk), &mut vec![0; a.sk_len]),
            ),
        ];
        for (what, r) in cases {
            tried += 1;
            match r {
                Err(KemError::InvalidLength { .. }) => {}
                Ok(()) => {
                    return Outcome::Fail(format!("a {what} of the wrong length was accepted"))
                }
                Err(e) => {
                    return Outcome::Fail(format!(
                        "a wrong-length {what} gave '{e}' instead of a length error"
                    ))
                }
            }
        }
    }
    Outcome::Pass(format!("{tried} wrong lengths refused"))
}
