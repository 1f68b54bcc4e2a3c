//! Checks (a)-(f), each on one implementation alone.

use super::{guarded, Check, Options, Outcome};
use crate::kem::{Kem, KemError, SecretKey};
use std::collections::BTreeMap;
use std::time::Instant;

/// Runs checks (a)-(f) on `k`.
pub fn run_all(k: &dyn Kem, opts: &Options) -> BTreeMap<Check, Outcome> {
    let mut m = BTreeMap::new();
    let mut check = |c: Check, f: &dyn Fn() -> Outcome| {
        super::trace(k, c.title());
        m.insert(c, guarded(f));
    };
    check(Check::RoundTrip, &|| round_trips(k, opts));
    check(Check::Sizes, &|| sizes(k));
    check(Check::Canaries, &|| canaries(k));
    check(Check::Tamper, &|| tamper(k));
    check(Check::BadLengths, &|| bad_lengths(k));
    check(Check::KeptKeys, &|| kept_keys(k));
    m
}

fn err(step: &str, e: KemError) -> Outcome {
    Outcome::Fail(format!("{step}: {e}"))
}

/// Why a check leaves out what needs secret-key bytes.
pub const NO_SK_BYTES: &str =
    "the library keeps its secret keys inside (no secret-key bytes, no byte operations)";

/// Two byte strings: (public key, secret key) or (encapsulated, decapsulated secret).
type Pair = (Vec<u8>, Vec<u8>);

/// A key pair on the byte path; `None` where the implementation has none (rustls).
pub fn byte_keypair(k: &dyn Kem) -> Result<Option<Pair>, KemError> {
    match k.keypair_vec() {
        Ok(v) => Ok(Some(v)),
        Err(KemError::Unsupported) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Fresh key pairs the round trips draw at least, whatever the budget: two per path (kept
/// keys, secret-key bytes). Past the budget, the trips still owed to the minimum reuse each
/// path's last key pair with a fresh encapsulation each: a scheme whose key generation takes a
/// second (Classic McEliece) makes its minimum of trips without a second per trip.
const MIN_KEY_PAIRS: usize = 4;

/// The key pairs the round trips keep for reuse, one per path.
#[derive(Default)]
struct Keys {
    kept: Option<(Vec<u8>, SecretKey)>,
    bytes: Option<Pair>,
    /// Key pairs drawn.
    drawn: usize,
}

/// One exchange with a kept key (what is timed): the encapsulated and decapsulated secrets.
/// `fresh` draws a new key pair; otherwise the last one is reused where it can be.
fn kept_trip(k: &dyn Kem, keys: &mut Keys, fresh: bool) -> Result<Pair, Outcome> {
    // A single-use kept key is never used twice.
    let (pk, mut sk) = match keys.kept.take() {
        Some(kp) if !fresh && !k.single_use_keys() => kp,
        _ => {
            keys.drawn += 1;
            k.keypair_kept_vec().map_err(|e| err("keypair", e))?
        }
    };
    let (ct, ss) = k.encaps_vec(&pk).map_err(|e| err("encaps", e))?;
    let ss2 = k
        .decaps_kept_vec(&mut sk, &ct)
        .map_err(|e| err("decaps", e))?;
    keys.kept = Some((pk, sk));
    Ok((ss, ss2))
}

/// One exchange on the byte path; `None` where there is none. `fresh` as [`kept_trip`]'s.
fn byte_trip(k: &dyn Kem, keys: &mut Keys, fresh: bool) -> Result<Option<Pair>, Outcome> {
    let (pk, sk) = match keys.bytes.take() {
        Some(kp) if !fresh => kp,
        _ => {
            let Some(kp) = byte_keypair(k).map_err(|e| err("keypair (bytes)", e))? else {
                return Ok(None);
            };
            keys.drawn += 1;
            kp
        }
    };
    let (ct, ss) = k.encaps_vec(&pk).map_err(|e| err("encaps", e))?;
    let ss2 = k
        .decaps_vec(&sk, &ct)
        .map_err(|e| err("decaps (bytes)", e))?;
    keys.bytes = Some((pk, sk));
    Ok(Some((ss, ss2)))
}

/// (a) Round trips until the budget is spent, never fewer than the minimum: kept keys (what
/// is timed) and, on alternate trips, secret-key bytes where the implementation has them.
/// Each trip within the budget draws its own key pair; the trips past it that the minimum
/// still asks for reuse key pairs (at least [`MIN_KEY_PAIRS`] drawn), and the detail says how
/// many were drawn when fewer than the trips.
pub fn round_trips(k: &dyn Kem, opts: &Options) -> Outcome {
    let start = Instant::now();
    let mut n = 0;
    let mut bytes = true;
    let mut keys = Keys::default();
    while n < opts.min_round_trips
        || (n < opts.max_round_trips && start.elapsed() < opts.round_trip_budget)
    {
        let on_bytes = n % 2 == 1 && bytes;
        let fresh = keys.drawn < MIN_KEY_PAIRS || start.elapsed() < opts.round_trip_budget;
        let trip = if on_bytes {
            byte_trip(k, &mut keys, fresh)
        } else {
            kept_trip(k, &mut keys, fresh).map(Some)
        };
        match trip {
            Err(o) => return o,
            Ok(None) => bytes = false,
            Ok(Some((ss, ss2))) if ss != ss2 => {
                let how = if on_bytes { "bytes" } else { "kept key" };
                return Outcome::Fail(format!(
                    "trip {} ({how}): decapsulated secret differs",
                    n + 1
                ));
            }
            Ok(Some(_)) => n += 1,
        }
    }
    let pairs = if keys.drawn < n {
        format!(", {} key pairs", keys.drawn)
    } else {
        String::new()
    };
    if bytes {
        Outcome::Pass(format!("{n} trips{pairs}"))
    } else {
        Outcome::Pass(format!("{n} trips, kept keys only{pairs}"))
    }
}

/// The bytes the output buffers of [`sizes`]' exchanges are filled with beforehand, one
/// exchange each. An output's last byte that still holds the fill after every exchange was
/// never written: the library wrote fewer bytes than the catalog's length. A written last byte
/// holds all three only by a chance of 2^-24 if it is random, never if it is constant.
const LENGTH_FILLS: [u8; 3] = [0x00, 0xFF, 0x5A];

/// Outputs of one exchange, named.
type Named = Vec<(&'static str, Vec<u8>)>;

/// The outputs of one exchange into buffers filled with `fill` beforehand, named: on the
/// kept-key path and, where there is one, the byte path; and whether there was one.
fn filled_exchange(k: &dyn Kem, fill: u8) -> Result<(Named, bool), KemError> {
    let a = k.meta().algorithm;
    let mut pk = vec![fill; a.pk_len];
    let mut sk = k.keypair_kept(&mut pk)?;
    let (mut ct, mut ss) = (vec![fill; a.ct_len], vec![fill; a.ss_len]);
    k.encaps(&pk, &mut ct, &mut ss)?;
    let mut ss2 = vec![fill; a.ss_len];
    k.decaps_kept(&mut sk, &ct, &mut ss2)?;
    let (mut pk_b, mut sk_b) = (vec![fill; a.pk_len], vec![fill; a.sk_len]);
    let bytes = match k.keypair(&mut pk_b, &mut sk_b) {
        Err(KemError::Unsupported) => false,
        Err(e) => return Err(e),
        Ok(()) => true,
    };
    let mut out = vec![
        ("public key", pk),
        ("ciphertext", ct),
        ("encaps secret", ss),
        ("decaps secret", ss2),
    ];
    if bytes {
        // A ciphertext of the byte path's own key pair: decapsulating another key pair's
        // ciphertext is an error in a KEM without implicit rejection (HQC round 4).
        let (mut ct_b, mut ss_b) = (vec![fill; a.ct_len], vec![fill; a.ss_len]);
        k.encaps(&pk_b, &mut ct_b, &mut ss_b)?;
        let mut ss3 = vec![fill; a.ss_len];
        k.decaps(&sk_b, &ct_b, &mut ss3)?;
        out.extend([
            ("public key (bytes)", pk_b),
            ("secret key", sk_b),
            ("decaps secret (bytes)", ss3),
        ]);
    }
    Ok((out, bytes))
}

/// (b) The library's own declared lengths agree with the catalog's, and every output is as
/// long as the catalog says: the adapters copy a library's outputs into catalog-sized buffers
/// and fail (or panic, caught) on a longer or shorter one; an output written in place that
/// is shorter leaves its buffer's last byte unwritten ([`LENGTH_FILLS`]).
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
    let mut unwritten: Option<Vec<(&str, usize)>> = None;
    let mut bytes = false;
    for fill in LENGTH_FILLS {
        let (outs, b) = match filled_exchange(k, fill) {
            Ok(v) => v,
            Err(e) => return err("exchange", e),
        };
        bytes = b;
        let tails: Vec<(&str, usize)> = outs
            .iter()
            .filter(|(_, v)| v.last() == Some(&fill))
            .map(|(name, v)| (*name, v.len()))
            .collect();
        unwritten = Some(match unwritten {
            None => tails,
            Some(before) => before.into_iter().filter(|t| tails.contains(t)).collect(),
        });
    }
    if let Some(&(name, len)) = unwritten.as_deref().and_then(<[_]>::first) {
        return Outcome::Fail(format!(
            "the {name} is shorter than the catalog's {len} bytes: its last byte was never written"
        ));
    }
    if bytes {
        Outcome::Pass(format!(
            "{}/{}/{}/{} bytes",
            a.pk_len, a.sk_len, a.ct_len, a.ss_len
        ))
    } else {
        Outcome::Pass(format!(
            "{}/-/{}/{} bytes; secret key not checked: {NO_SK_BYTES}",
            a.pk_len, a.ct_len, a.ss_len
        ))
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

/// (c) Canary bytes around every output buffer stay untouched, and every output is written:
/// on the kept-key path and, where there is one, on the byte path.
pub fn canaries(k: &dyn Kem) -> Outcome {
    let a = k.meta().algorithm;
    let mut bufs: Vec<(&str, Guarded)> = Vec::new();

    let mut pk = Guarded::new(a.pk_len);
    let mut sk = match k.keypair_kept(pk.inner()) {
        Ok(sk) => sk,
        Err(e) => return err("keypair", e),
    };
    let (mut ct, mut ss) = (Guarded::new(a.ct_len), Guarded::new(a.ss_len));
    if let Err(e) = k.encaps(pk.get(), ct.inner(), ss.inner()) {
        return err("encaps", e);
    }
    let mut ss2 = Guarded::new(a.ss_len);
    if let Err(e) = k.decaps_kept(&mut sk, ct.get(), ss2.inner()) {
        return err("decaps", e);
    }
    bufs.extend([
        ("public key", pk),
        ("ciphertext", ct),
        ("encaps secret", ss),
        ("decaps secret", ss2),
    ]);

    let (mut pk, mut sk) = (Guarded::new(a.pk_len), Guarded::new(a.sk_len));
    let bytes = match k.keypair(pk.inner(), sk.inner()) {
        Err(KemError::Unsupported) => false,
        Err(e) => return err("keypair (bytes)", e),
        Ok(()) => {
            let (mut ct, mut ss) = (Guarded::new(a.ct_len), Guarded::new(a.ss_len));
            if let Err(e) = k.encaps(pk.get(), ct.inner(), ss.inner()) {
                return err("encaps", e);
            }
            let mut ss2 = Guarded::new(a.ss_len);
            if let Err(e) = k.decaps(sk.get(), ct.get(), ss2.inner()) {
                return err("decaps (bytes)", e);
            }
            bufs.extend([
                ("public key (bytes)", pk),
                ("secret key", sk),
                ("decaps secret (bytes)", ss2),
            ]);
            true
        }
    };
    for (name, b) in &bufs {
        if !b.intact() {
            return Outcome::Fail(format!("canary overwritten around the {name}"));
        }
        if !b.written() {
            return Outcome::Fail(format!("the {name} buffer was left unwritten"));
        }
    }
    if bytes {
        Outcome::Pass(format!("{CANARY}-byte canaries intact"))
    } else {
        Outcome::Pass(format!(
            "{CANARY}-byte canaries intact; no secret-key buffer: {NO_SK_BYTES}"
        ))
    }
}

/// The ciphertext bytes that tampering flips: the first byte and a middle byte of the
/// ciphertext, or of a hybrid's post-quantum part (a hybrid's classical part may open with a
/// point-format byte that is refused outright, as SecP256r1MLKEM768's does). Both lie in
/// fully used bytes of every encoding here.
pub fn tamper_positions(a: &crate::kem::Algorithm) -> [usize; 2] {
    let r = a.post_quantum_ct().unwrap_or(0..a.ct_len);
    [r.start, r.start + r.len() / 2]
}

/// What decapsulating a tampered ciphertext gave, judged against the original secret.
fn judge_tampered(
    implicit: bool,
    pos: usize,
    got: Result<Vec<u8>, KemError>,
    ss: &[u8],
) -> Result<Option<Vec<u8>>, Outcome> {
    match got {
        Ok(s) if s == ss => Err(Outcome::Fail(format!(
            "tampered byte {pos} still gave the original secret"
        ))),
        Ok(s) => Ok(Some(s)),
        Err(e) if implicit => Err(Outcome::Fail(format!(
            "implicit rejection expected, got an error: {e}"
        ))),
        Err(_) => Ok(None),
    }
}

/// (d) Tampered ciphertexts, decapsulated with kept keys: implicit rejection where claimed
/// (deterministic, where a kept key can decapsulate twice), never the original secret.
pub fn tamper(k: &dyn Kem) -> Outcome {
    let a = k.meta().algorithm;
    let implicit = a.implicit_rejection;
    let exchange = || -> Result<(SecretKey, Vec<u8>, Vec<u8>), Outcome> {
        let (pk, sk) = k.keypair_kept_vec().map_err(|e| err("keypair", e))?;
        let (ct, ss) = k.encaps_vec(&pk).map_err(|e| err("encaps", e))?;
        Ok((sk, ct, ss))
    };
    let tampered = |ct: &[u8], pos: usize| {
        let mut bad = ct.to_vec();
        bad[pos] ^= 1;
        bad
    };
    if k.single_use_keys() {
        // A key share decapsulates once: one exchange per tampered byte, and whether the
        // rejection is deterministic cannot be observed.
        for pos in tamper_positions(a) {
            let (mut sk, ct, ss) = match exchange() {
                Ok(v) => v,
                Err(o) => return o,
            };
            let got = k.decaps_kept_vec(&mut sk, &tampered(&ct, pos));
            if let Err(o) = judge_tampered(implicit, pos, got, &ss) {
                return o;
            }
        }
        return Outcome::Pass(if implicit {
            "implicit rejection (single-use keys: determinism not observable)".into()
        } else {
            "no implicit rejection claimed; secret never reproduced (single-use keys)".into()
        });
    }
    let (mut sk, ct, ss) = match exchange() {
        Ok(v) => v,
        Err(o) => return o,
    };
    let mut secrets = Vec::new();
    for pos in tamper_positions(a) {
        let bad = tampered(&ct, pos);
        let first = match judge_tampered(implicit, pos, k.decaps_kept_vec(&mut sk, &bad), &ss) {
            Ok(Some(s)) => s,
            Ok(None) => continue,
            Err(o) => return o,
        };
        if !implicit {
            continue;
        }
        let again = match k.decaps_kept_vec(&mut sk, &bad) {
            Ok(s) => s,
            Err(e) => return err("second decaps", e),
        };
        if first != again {
            return Outcome::Fail(format!(
                "tampered byte {pos} gave different secrets on two calls"
            ));
        }
        secrets.push(first);
    }
    if implicit {
        if secrets.len() == 2 && secrets[0] == secrets[1] {
            return Outcome::Fail("two different tampered ciphertexts gave the same secret".into());
        }
        Outcome::Pass("implicit rejection, deterministic".into())
    } else {
        Outcome::Pass("no implicit rejection claimed; secret never reproduced".into())
    }
}

/// (e) Wrong-length inputs and output buffers give `InvalidLength`, never a panic or crash:
/// through kept keys, and through secret-key bytes where the implementation has them.
pub fn bad_lengths(k: &dyn Kem) -> Outcome {
    let a = k.meta().algorithm;
    let (pk, mut kept) = match k.keypair_kept_vec() {
        Ok(v) => v,
        Err(e) => return err("keypair", e),
    };
    let (ct, _) = match k.encaps_vec(&pk) {
        Ok(v) => v,
        Err(e) => return err("encaps", e),
    };
    let sk = match byte_keypair(k) {
        Ok(v) => v.map(|(_, sk)| sk),
        Err(e) => return err("keypair (bytes)", e),
    };
    let mut tried = 0;
    for delta in [-1isize, 1, -(a.pk_len.max(a.sk_len).max(a.ct_len) as isize)] {
        let resize = |v: &[u8]| {
            let n = (v.len() as isize + delta).max(0) as usize;
            let mut w = v.to_vec();
            w.resize(n, 0);
            w
        };
        let ss_buf = || vec![0; a.ss_len];
        let mut cases: Vec<(&str, Result<(), KemError>)> = vec![
            (
                "public key",
                k.encaps(&resize(&pk), &mut vec![0; a.ct_len], &mut ss_buf()),
            ),
            (
                "ciphertext",
                k.decaps_kept(&mut kept, &resize(&ct), &mut ss_buf()),
            ),
            (
                "shared secret buffer",
                k.decaps_kept(&mut kept, &ct, &mut resize(&ss_buf())),
            ),
            (
                "public key buffer",
                k.keypair_kept(&mut resize(&pk)).map(drop),
            ),
        ];
        if let Some(sk) = &sk {
            cases.extend([
                ("secret key", k.decaps(&resize(sk), &ct, &mut ss_buf())),
                ("imported secret key", k.sk_import(&resize(sk)).map(drop)),
                (
                    "ciphertext (bytes)",
                    k.decaps(sk, &resize(&ct), &mut ss_buf()),
                ),
                (
                    "secret key buffer",
                    k.keypair(&mut pk.clone(), &mut resize(sk)),
                ),
            ]);
        }
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
    if sk.is_some() {
        Outcome::Pass(format!("{tried} wrong lengths refused"))
    } else {
        Outcome::Pass(format!(
            "{tried} wrong lengths refused; secret-key lengths not tried: {NO_SK_BYTES}"
        ))
    }
}

/// Exchanges per kept-key check.
const KEPT_TRIPS: usize = 3;

/// Fails unless a decapsulation gave `want`.
fn same(step: &str, got: Result<Vec<u8>, KemError>, want: &[u8]) -> Result<(), Outcome> {
    match got {
        Ok(s) if s == want => Ok(()),
        Ok(_) => Err(Outcome::Fail(format!(
            "{step}: secret differs from encapsulation's"
        ))),
        Err(e) => Err(err(step, e)),
    }
}

/// Fails unless two decapsulations of a tampered ciphertext agree (both secrets equal, or
/// both refused).
fn agree(
    step: &str,
    a: Result<Vec<u8>, KemError>,
    b: Result<Vec<u8>, KemError>,
) -> Result<(), Outcome> {
    if a.ok() == b.ok() {
        Ok(())
    } else {
        Err(Outcome::Fail(format!(
            "{step}: kept key and bytes disagree on a tampered ciphertext"
        )))
    }
}

/// (f) The kept-key path (what is timed) and the byte path (known answers) give the
/// same secrets: a kept key's exported bytes decapsulate to encapsulation's secret, directly
/// and re-imported, as the kept key does; a key pair's bytes, imported, decapsulate as the
/// bytes do. Tampered ciphertexts give the same rejection secret both ways.
pub fn kept_keys(k: &dyn Kem) -> Outcome {
    kept_keys_trips(k).unwrap_or_else(|o| o)
}

fn kept_keys_trips(k: &dyn Kem) -> Result<Outcome, Outcome> {
    let pos = tamper_positions(k.meta().algorithm)[1];
    let tampered = |ct: &[u8]| {
        let mut bad = ct.to_vec();
        bad[pos] ^= 1;
        bad
    };
    let (mut exports, mut bytes) = (true, true);
    for _ in 0..KEPT_TRIPS {
        let (pk, mut sk) = k.keypair_kept_vec().map_err(|e| err("keypair", e))?;
        let (ct, ss) = k.encaps_vec(&pk).map_err(|e| err("encaps", e))?;
        match k.sk_export(&sk) {
            Err(KemError::Unsupported) => exports = false,
            Err(e) => return Err(err("sk-export", e)),
            Ok(b) => {
                same("decaps of the exported bytes", k.decaps_vec(&b, &ct), &ss)?;
                let mut back = k.sk_import(&b).map_err(|e| err("sk-import", e))?;
                same(
                    "decaps with the exported key re-imported",
                    k.decaps_kept_vec(&mut back, &ct),
                    &ss,
                )?;
            }
        }
        same(
            "decaps with the kept key",
            k.decaps_kept_vec(&mut sk, &ct),
            &ss,
        )?;

        let Some((pk, sk)) = byte_keypair(k).map_err(|e| err("keypair (bytes)", e))? else {
            bytes = false;
            continue;
        };
        let (ct, ss) = k.encaps_vec(&pk).map_err(|e| err("encaps", e))?;
        let import = || k.sk_import(&sk).map_err(|e| err("sk-import", e));
        same("decaps of the bytes", k.decaps_vec(&sk, &ct), &ss)?;
        let mut imported = import()?;
        same(
            "decaps with the imported key",
            k.decaps_kept_vec(&mut imported, &ct),
            &ss,
        )?;
        let bad = tampered(&ct);
        agree(
            "imported key vs bytes",
            k.decaps_kept_vec(&mut import()?, &bad),
            k.decaps_vec(&sk, &bad),
        )?;
        match k.sk_export(&import()?) {
            Ok(b) if b != sk => {
                return Err(Outcome::Fail(
                    "an imported key exports other bytes than it was imported from".into(),
                ))
            }
            Ok(_) | Err(KemError::Unsupported) => {}
            Err(e) => return Err(err("sk-export", e)),
        }
    }
    Ok(match (exports, bytes) {
        (false, false) => Outcome::Skip(format!("nothing to compare: {NO_SK_BYTES}")),
        (true, true) => Outcome::Pass(format!(
            "{KEPT_TRIPS} trips: kept key = its exported bytes = re-imported; bytes = imported"
        )),
        (false, true) => Outcome::Pass(format!(
            "{KEPT_TRIPS} trips: bytes = imported key; kept keys cannot be exported"
        )),
        (true, false) => Outcome::Pass(format!(
            "{KEPT_TRIPS} trips: kept key = its exported bytes = re-imported; no byte key pairs"
        )),
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::kem::{catalog, ImplMeta};
    use crate::providers::mock::{Behaviour, Mock};
    use crate::verify::{Check, Options};

    /// How a test implementation departs from the correct mock.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Twist {
        /// No secret-key bytes and single-use kept keys, as rustls.
        KeptOnly,
        /// Decapsulation from bytes gives another secret than the kept key.
        BytesDisagree,
        /// Export writes other bytes than the kept key holds.
        ExportWrong,
        /// Decapsulation with a kept key gives another secret than encapsulation's.
        KeptDisagree,
        /// Encapsulation writes all but the ciphertext's last byte (an output one byte
        /// shorter than the catalog's, written in place).
        ShortCiphertext,
        /// Decapsulation with a kept key returns success without writing the secret.
        SecretUnwritten,
        /// The operation named (`keypair`, `encaps`, `decaps`) fails with an error, on every
        /// path.
        Fails(&'static str),
        /// A ciphertext the implementation did not make itself (a tampered one), decapsulated
        /// with a kept key, is answered as said.
        Tampered(Rejection),
        /// A kept key gives another secret from its second decapsulation on (a library whose
        /// key object a decapsulation spoils).
        SpoiledOnReuse,
    }

    /// How a test implementation answers a tampered ciphertext.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Rejection {
        /// With an error (explicit rejection).
        Error,
        /// With a new secret on every call (not deterministic).
        Fresh,
        /// With the same secret whatever the ciphertext.
        Constant,
        /// With a secret of the ciphertext the first time, an error the second.
        ErrorOnSecond,
    }

    /// The ciphertexts a test implementation made, and the others it was given.
    type Made = (Vec<Vec<u8>>, Vec<Vec<u8>>);

    /// The correct mock with a twist.
    pub(in crate::verify) struct Twisted {
        inner: Mock,
        meta: ImplMeta,
        twist: Twist,
        /// The ciphertexts it made, and how often each other ciphertext was decapsulated
        /// (for [`Twist::Tampered`]).
        made: std::sync::Mutex<Made>,
        /// The bytes of every kept key decapsulated with (for [`Twist::SpoiledOnReuse`]).
        used: std::sync::Mutex<Vec<Vec<u8>>>,
        single_use: bool,
    }

    impl Twisted {
        fn new(twist: Twist) -> Self {
            let inner = Mock::new("correct", Behaviour::Correct);
            let mut meta = inner.meta().clone();
            meta.implementation = "mock/twisted".into();
            Twisted {
                inner,
                meta,
                twist,
                made: Default::default(),
                used: Default::default(),
                single_use: false,
            }
        }

        fn fails(&self, op: &str) -> Result<(), KemError> {
            match self.twist {
                Twist::Fails(o) if o == op => Err(KemError::Failure(format!("{op} broke"))),
                _ => Ok(()),
            }
        }

        /// The answer to a tampered `ct` under [`Twist::Tampered`]; `None` for a ciphertext it
        /// made itself, or without that twist.
        fn tampered(&self, ct: &[u8], ss: &mut [u8]) -> Option<Result<(), KemError>> {
            let Twist::Tampered(how) = self.twist else {
                return None;
            };
            let mut made = self.made.lock().unwrap();
            if made.0.iter().any(|c| c == ct) {
                return None;
            }
            let seen = made.1.iter().filter(|c| *c == ct).count();
            made.1.push(ct.to_vec());
            let n = made.1.len() as u8;
            Some(match how {
                Rejection::Error => Err(KemError::Failure("ciphertext rejected".into())),
                Rejection::Fresh => {
                    ss.fill(n);
                    Ok(())
                }
                Rejection::Constant => {
                    ss.fill(7);
                    Ok(())
                }
                Rejection::ErrorOnSecond if seen > 0 => Err(KemError::Failure("key spent".into())),
                Rejection::ErrorOnSecond => {
                    ss.copy_from_slice(&ct[..ss.len()]);
                    Ok(())
                }
            })
        }

        /// A rustls-like implementation of the mock's algorithm (`mock/kept-only`).
        pub(in crate::verify) fn kept_only() -> Self {
            let mut t = Twisted::new(Twist::KeptOnly);
            t.meta.implementation = "mock/kept-only".into();
            t
        }

        /// The same, claiming another algorithm of the mock's lengths (X25519).
        pub(in crate::verify) fn kept_only_x25519() -> Self {
            let mut t = Twisted::kept_only();
            t.meta.algorithm = catalog::find("X25519").unwrap();
            t
        }

        fn no_bytes(&self) -> bool {
            self.twist == Twist::KeptOnly
        }
    }

    type Share = Option<SecretKey>;

    impl Kem for Twisted {
        fn meta(&self) -> &ImplMeta {
            &self.meta
        }
        fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
            if self.no_bytes() {
                return Err(KemError::Unsupported);
            }
            self.fails("keypair")?;
            self.inner.keypair_raw(pk, sk)
        }
        fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
            self.fails("encaps")?;
            if self.twist == Twist::ShortCiphertext {
                let mut whole = vec![0; ct.len()];
                self.inner.encaps_raw(pk, &mut whole, ss)?;
                let n = ct.len() - 1;
                ct[..n].copy_from_slice(&whole[..n]);
                return Ok(());
            }
            self.inner.encaps_raw(pk, ct, ss)?;
            self.made.lock().unwrap().0.push(ct.to_vec());
            Ok(())
        }
        fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
            self.fails("decaps")?;
            match self.twist {
                Twist::KeptOnly => return Err(KemError::Unsupported),
                Twist::BytesDisagree => {
                    self.inner.decaps_raw(sk, ct, ss)?;
                    ss[0] ^= 1;
                }
                _ => self.inner.decaps_raw(sk, ct, ss)?,
            }
            Ok(())
        }
        fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
            self.fails("keypair")?;
            let sk = self.inner.keypair_kept_raw(pk)?;
            Ok(if self.no_bytes() {
                SecretKey::new::<Share>(Some(sk))
            } else {
                sk
            })
        }
        fn decaps_kept_raw(
            &self,
            sk: &mut SecretKey,
            ct: &[u8],
            ss: &mut [u8],
        ) -> Result<(), KemError> {
            self.fails("decaps")?;
            if let Some(answer) = self.tampered(ct, ss) {
                return answer;
            }
            match self.twist {
                Twist::SecretUnwritten => return Ok(()),
                Twist::KeptDisagree => {
                    self.inner.decaps_kept_raw(sk, ct, ss)?;
                    ss[0] ^= 1;
                    return Ok(());
                }
                Twist::SpoiledOnReuse => {
                    let mut bytes = vec![0; self.meta.algorithm.sk_len];
                    self.inner.sk_export_raw(sk, &mut bytes)?;
                    self.inner.decaps_kept_raw(sk, ct, ss)?;
                    let mut used = self.used.lock().unwrap();
                    if used.contains(&bytes) {
                        ss[0] ^= 1;
                    }
                    used.push(bytes);
                    return Ok(());
                }
                _ => {}
            }
            if !self.no_bytes() {
                return self.inner.decaps_kept_raw(sk, ct, ss);
            }
            let mut once = sk
                .get_mut::<Share>()?
                .take()
                .ok_or_else(|| KemError::Failure("key share used twice".into()))?;
            self.inner.decaps_kept_raw(&mut once, ct, ss)
        }
        fn sk_import_raw(&self, sk: &[u8]) -> Result<SecretKey, KemError> {
            if self.no_bytes() {
                return Err(KemError::Unsupported);
            }
            self.inner.sk_import_raw(sk)
        }
        fn sk_export_raw(&self, sk: &SecretKey, out: &mut [u8]) -> Result<(), KemError> {
            match self.twist {
                Twist::KeptOnly => return Err(KemError::Unsupported),
                Twist::ExportWrong => {
                    self.inner.sk_export_raw(sk, out)?;
                    out[0] ^= 1;
                }
                _ => self.inner.sk_export_raw(sk, out)?,
            }
            Ok(())
        }
        fn single_use_keys(&self) -> bool {
            self.no_bytes() || self.single_use
        }
    }

    fn detail(o: &Outcome) -> &str {
        match o {
            Outcome::Pass(d) | Outcome::Fail(d) | Outcome::Skip(d) => d,
        }
    }

    #[test]
    fn without_secret_key_bytes_every_check_runs_on_kept_keys_and_says_what_it_left_out() {
        let k = Twisted::kept_only();
        let m = run_all(&k, &Options::default());
        for (check, o) in &m {
            assert!(!o.failed(), "{check:?}: {o:?}");
        }
        let pass = |c: Check, says: &str| {
            let o = &m[&c];
            assert!(
                matches!(o, Outcome::Pass(_)) && detail(o).contains(says),
                "{c:?}: {o:?}"
            );
        };
        pass(Check::RoundTrip, "kept keys only");
        pass(Check::Sizes, "secret key not checked");
        pass(Check::Canaries, "no secret-key buffer");
        pass(Check::Tamper, "single-use keys");
        pass(Check::BadLengths, "secret-key lengths not tried");
        assert!(
            matches!(&m[&Check::KeptKeys], Outcome::Skip(why) if why.contains(NO_SK_BYTES)),
            "{:?}",
            m[&Check::KeptKeys]
        );
    }

    #[test]
    fn the_correct_mock_passes_with_both_paths() {
        let m = run_all(
            &Mock::new("correct", Behaviour::Correct),
            &Options::default(),
        );
        for (check, o) in &m {
            assert!(matches!(o, Outcome::Pass(_)), "{check:?}: {o:?}");
            assert!(!detail(o).contains("not "), "{check:?}: {o:?}");
        }
        assert!(detail(&m[&Check::KeptKeys]).contains("re-imported"));
    }

    #[test]
    fn a_byte_path_that_disagrees_with_kept_keys_fails() {
        let k = Twisted::new(Twist::BytesDisagree);
        let o = kept_keys(&k);
        assert!(
            matches!(&o, Outcome::Fail(why) if why.contains("exported bytes")),
            "{o:?}"
        );
        let o = round_trips(&k, &Options::default());
        assert!(
            matches!(&o, Outcome::Fail(why) if why.contains("(bytes)")),
            "{o:?}"
        );
    }

    #[test]
    fn an_export_that_loses_the_key_fails() {
        let o = kept_keys(&Twisted::new(Twist::ExportWrong));
        assert!(o.failed(), "{o:?}");
    }

    #[test]
    fn a_single_use_key_that_is_reused_is_an_error_not_a_secret() {
        let k = Twisted::kept_only();
        let k: &dyn Kem = &k;
        let (pk, mut sk) = k.keypair_kept_vec().unwrap();
        let (ct, ss) = k.encaps_vec(&pk).unwrap();
        assert_eq!(k.decaps_kept_vec(&mut sk, &ct).unwrap(), ss);
        assert!(k.decaps_kept_vec(&mut sk, &ct).is_err());
    }

    #[test]
    fn hybrid_tampering_hits_the_post_quantum_part() {
        let p = catalog::find("SecP256r1MLKEM768").unwrap();
        assert_eq!(tamper_positions(p), [65, 65 + 544]);
        let x = catalog::find("X25519MLKEM768").unwrap();
        assert_eq!(tamper_positions(x), [0, 544]);
        let m = catalog::find("ML-KEM-768").unwrap();
        assert_eq!(tamper_positions(m), [0, 544]);
    }

    /// `check` of `k` fails with a reason containing `says`.
    fn fails_with(check: fn(&dyn Kem) -> Outcome, k: &dyn Kem, says: &str) {
        let o = guarded(|| check(k));
        assert!(
            matches!(&o, Outcome::Fail(why) if why.contains(says)),
            "expected a failure saying {says:?}, got {o:?}"
        );
    }

    fn tampered(how: Rejection) -> Twisted {
        Twisted::new(Twist::Tampered(how))
    }

    /// Where implicit rejection is claimed, an error for a tampered ciphertext fails tamper,
    /// with kept keys that decapsulate many times and with single-use ones; where it is not
    /// claimed, an error is a rejection and passes.
    #[test]
    fn an_error_where_implicit_rejection_is_claimed_fails_tamper() {
        fails_with(
            tamper,
            &tampered(Rejection::Error),
            "implicit rejection expected, got an error: implementation failure: ciphertext rejected",
        );
        let mut once = tampered(Rejection::Error);
        once.single_use = true;
        fails_with(tamper, &once, "implicit rejection expected, got an error");
        let mut explicit = tampered(Rejection::Error);
        explicit.meta.algorithm = catalog::find("X25519").unwrap();
        let o = tamper(&explicit);
        assert!(
            matches!(&o, Outcome::Pass(d) if d.contains("no implicit rejection claimed")),
            "{o:?}"
        );
        assert!(matches!(
            tamper(&Twisted::new(Twist::ExportWrong)),
            Outcome::Pass(_)
        ));
    }

    /// A rejection secret that changes from call to call is not implicit rejection.
    #[test]
    fn a_rejection_secret_that_changes_between_calls_fails_tamper() {
        fails_with(
            tamper,
            &tampered(Rejection::Fresh),
            "tampered byte 0 gave different secrets on two calls",
        );
    }

    /// One secret for two different tampered ciphertexts is not implicit rejection (a
    /// constant is not derived from the ciphertext).
    #[test]
    fn one_rejection_secret_for_two_ciphertexts_fails_tamper() {
        fails_with(
            tamper,
            &tampered(Rejection::Constant),
            "two different tampered ciphertexts gave the same secret",
        );
    }

    /// An error on the second decapsulation of the same tampered ciphertext fails tamper.
    #[test]
    fn an_error_on_the_second_decapsulation_fails_tamper() {
        fails_with(
            tamper,
            &tampered(Rejection::ErrorOnSecond),
            "second decaps: implementation failure: key spent",
        );
    }

    /// An output one byte shorter than the catalog's, written in place, fails sizes naming
    /// it, though its canaries are intact and the rest of it is written (only sizes sees it).
    #[test]
    fn an_output_shorter_than_the_catalogs_fails_sizes() {
        let k = Twisted::new(Twist::ShortCiphertext);
        fails_with(
            sizes,
            &k,
            "the ciphertext is shorter than the catalog's 32 bytes: its last byte was never written",
        );
        assert!(
            matches!(canaries(&k), Outcome::Pass(_)),
            "{:?}",
            canaries(&k)
        );
        assert!(matches!(
            sizes(&Twisted::new(Twist::ExportWrong)),
            Outcome::Pass(_)
        ));
    }

    /// A library whose output is longer or shorter than the buffer its adapter copies it
    /// into (the adapters' `copy_from_slice`) panics in the adapter: sizes fails, naming the
    /// panic.
    #[test]
    fn an_adapter_that_finds_another_output_length_fails_sizes() {
        struct Longer(Mock);
        impl Kem for Longer {
            fn meta(&self) -> &ImplMeta {
                self.0.meta()
            }
            fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
                self.0.keypair_raw(pk, sk)
            }
            fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
                let mut library = vec![0; ct.len() + 1];
                self.0.encaps_raw(pk, &mut library[..ct.len()], ss)?;
                ct.copy_from_slice(&library);
                Ok(())
            }
            fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
                self.0.decaps_raw(sk, ct, ss)
            }
        }
        fails_with(
            sizes,
            &Longer(Mock::new("correct", Behaviour::Correct)),
            "does not match destination slice length (32)",
        );
    }

    /// An output left unwritten, its canaries intact, fails canaries naming the buffer.
    #[test]
    fn an_output_left_unwritten_fails_canaries() {
        fails_with(
            canaries,
            &Twisted::new(Twist::SecretUnwritten),
            "the decaps secret buffer was left unwritten",
        );
    }

    /// Past the budget, the trips the minimum still asks for reuse key pairs (four drawn, the
    /// count said); a single-use key is never reused; a key spoiled by its first use fails at
    /// the first trip that reuses it.
    #[test]
    fn round_trips_past_the_budget_reuse_key_pairs_and_still_check_each_trip() {
        let opts = Options {
            round_trip_budget: std::time::Duration::ZERO,
            ..Options::default()
        };
        let o = round_trips(&Twisted::new(Twist::BytesDisagree), &opts);
        assert!(o.failed(), "{o:?}");
        let o = round_trips(&Mock::new("correct", Behaviour::Correct), &opts);
        assert_eq!(detail(&o), "20 trips, 4 key pairs", "{o:?}");
        let o = round_trips(&Twisted::kept_only(), &opts);
        assert_eq!(detail(&o), "20 trips, kept keys only", "{o:?}");
        assert!(matches!(o, Outcome::Pass(_)), "{o:?}");
        let o = round_trips(&Twisted::new(Twist::SpoiledOnReuse), &opts);
        // Trips 1 and 3 draw the kept path's two fresh key pairs; trip 5 reuses the second.
        assert_eq!(
            o,
            Outcome::Fail("trip 5 (kept key): decapsulated secret differs".into())
        );
        // Within the budget every trip draws its own key pair (nothing reused, nothing said).
        let o = round_trips(&Twisted::new(Twist::SpoiledOnReuse), &Options::default());
        assert!(matches!(o, Outcome::Pass(_)), "{o:?}");
        assert!(!detail(&o).contains("key pairs"), "{o:?}");
    }

    /// A kept key that decapsulates to another secret fails the round trip on its first
    /// (kept-key) trip, and the kept-key check.
    #[test]
    fn a_kept_key_that_gives_another_secret_fails_the_round_trip() {
        let k = Twisted::new(Twist::KeptDisagree);
        let o = round_trips(&k, &Options::default());
        assert!(
            matches!(&o, Outcome::Fail(why) if why == "trip 1 (kept key): decapsulated secret differs"),
            "{o:?}"
        );
        fails_with(
            kept_keys,
            &k,
            "decaps with the exported key re-imported: secret differs",
        );
    }

    /// An implementation whose key generation, encapsulation or decapsulation fails with an
    /// error fails every check that calls it, naming the step (never a pass, never a panic).
    #[test]
    fn an_error_from_the_implementation_fails_every_check_naming_the_step() {
        let opts = Options::default();
        let round_trip = |k: &dyn Kem| round_trips(k, &opts);
        type CheckFn<'a> = (&'a str, &'a dyn Fn(&dyn Kem) -> Outcome);
        let all: [CheckFn; 6] = [
            ("round trip", &round_trip),
            ("sizes", &sizes),
            ("canaries", &canaries),
            ("tamper", &tamper),
            ("bad lengths", &bad_lengths),
            ("kept keys", &kept_keys),
        ];
        for op in ["keypair", "encaps", "decaps"] {
            let k = Twisted::new(Twist::Fails(op));
            for (name, check) in all {
                if (name, op) == ("bad lengths", "decaps") {
                    // It never decapsulates a ciphertext of the right lengths: every wrong
                    // length is refused by the guard in front of the implementation.
                    continue;
                }
                let o = guarded(|| check(&k));
                let Outcome::Fail(why) = &o else {
                    panic!("{op} failing: {name} did not fail: {o:?}");
                };
                let said = match (name, op) {
                    ("sizes", _) => format!("exchange: implementation failure: {op} broke"),
                    // Implicit rejection claimed: a refused decapsulation is not one.
                    ("tamper", "decaps") => {
                        format!("implicit rejection expected, got an error: implementation failure: {op} broke")
                    }
                    _ => format!("implementation failure: {op} broke"),
                };
                assert!(why.contains(&said), "{op} failing, {name}: {why}");
            }
        }
    }
}
