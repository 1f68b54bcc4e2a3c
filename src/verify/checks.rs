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

/// One exchange with a kept key (what is timed): the encapsulated and decapsulated secrets.
fn kept_trip(k: &dyn Kem) -> Result<Pair, Outcome> {
    let (pk, mut sk) = k.keypair_kept_vec().map_err(|e| err("keypair", e))?;
    let (ct, ss) = k.encaps_vec(&pk).map_err(|e| err("encaps", e))?;
    let ss2 = k
        .decaps_kept_vec(&mut sk, &ct)
        .map_err(|e| err("decaps", e))?;
    Ok((ss, ss2))
}

/// One exchange on the byte path; `None` where there is none.
fn byte_trip(k: &dyn Kem) -> Result<Option<Pair>, Outcome> {
    let Some((pk, sk)) = byte_keypair(k).map_err(|e| err("keypair (bytes)", e))? else {
        return Ok(None);
    };
    let (ct, ss) = k.encaps_vec(&pk).map_err(|e| err("encaps", e))?;
    let ss2 = k
        .decaps_vec(&sk, &ct)
        .map_err(|e| err("decaps (bytes)", e))?;
    Ok(Some((ss, ss2)))
}

/// (a) Round trips until the budget is spent, never fewer than the minimum: kept keys (what
/// is timed) and, on alternate trips, secret-key bytes where the implementation has them.
pub fn round_trips(k: &dyn Kem, opts: &Options) -> Outcome {
    let start = Instant::now();
    let mut n = 0;
    let mut bytes = true;
    while n < opts.min_round_trips
        || (n < opts.max_round_trips && start.elapsed() < opts.round_trip_budget)
    {
        let on_bytes = n % 2 == 1 && bytes;
        let trip = if on_bytes {
            byte_trip(k)
        } else {
            kept_trip(k).map(Some)
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
    if bytes {
        Outcome::Pass(format!("{n} trips"))
    } else {
        Outcome::Pass(format!("{n} trips, kept keys only"))
    }
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
    let exchange = || -> Result<([usize; 4], bool), KemError> {
        let (pk, mut sk) = k.keypair_kept_vec()?;
        let (ct, ss) = k.encaps_vec(&pk)?;
        let ss2 = k.decaps_kept_vec(&mut sk, &ct)?;
        let sk_len = byte_keypair(k)?.map(|(_, sk)| sk.len());
        let got = [
            pk.len(),
            sk_len.unwrap_or(a.sk_len),
            ct.len(),
            ss2.len().min(ss.len()),
        ];
        Ok((got, sk_len.is_some()))
    };
    match exchange() {
        Ok((got, true)) if got == catalog => Outcome::Pass(format!(
            "{}/{}/{}/{} bytes",
            a.pk_len, a.sk_len, a.ct_len, a.ss_len
        )),
        Ok((got, false)) if got == catalog => Outcome::Pass(format!(
            "{}/-/{}/{} bytes; secret key not checked: {NO_SK_BYTES}",
            a.pk_len, a.ct_len, a.ss_len
        )),
        Ok((got, _)) => Outcome::Fail(format!("got {got:?}, catalog {catalog:?}")),
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
    }

    /// The correct mock with a twist.
    pub(in crate::verify) struct Twisted {
        inner: Mock,
        meta: ImplMeta,
        twist: Twist,
    }

    impl Twisted {
        fn new(twist: Twist) -> Self {
            let inner = Mock::new("correct", Behaviour::Correct);
            let mut meta = inner.meta().clone();
            meta.implementation = "mock/twisted".into();
            Twisted { inner, meta, twist }
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
            self.inner.keypair_raw(pk, sk)
        }
        fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
            self.inner.encaps_raw(pk, ct, ss)
        }
        fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
            match self.twist {
                Twist::KeptOnly => return Err(KemError::Unsupported),
                Twist::BytesDisagree => {
                    self.inner.decaps_raw(sk, ct, ss)?;
                    ss[0] ^= 1;
                }
                Twist::ExportWrong => self.inner.decaps_raw(sk, ct, ss)?,
            }
            Ok(())
        }
        fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
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
                Twist::BytesDisagree => self.inner.sk_export_raw(sk, out)?,
            }
            Ok(())
        }
        fn single_use_keys(&self) -> bool {
            self.no_bytes()
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
}
