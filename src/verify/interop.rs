//! (g) Interoperability: for every algorithm with two or more implementations, every ordered
//! pair (X, Y): key pair from X, encapsulation by Y, decapsulation by X. X holds its secret key
//! as its library's object (the kept path, as timed), so implementations without secret-key
//! bytes (rustls) interoperate too.

use super::{guarded, parallel, Options, Outcome};
use crate::kem::Kem;
use serde::Serialize;
use std::sync::Arc;

/// Round trips per ordered pair.
const TRIPS: usize = 3;

/// One ordered pair's result.
#[derive(Debug, Clone, Serialize)]
pub struct Pair {
    /// Algorithm.
    pub algorithm: String,
    /// Implementation that made the key pair and decapsulated.
    pub keys_by: String,
    /// Implementation that encapsulated.
    pub encaps_by: String,
    /// Outcome.
    pub outcome: Outcome,
}

fn pair(x: &dyn Kem, y: &dyn Kem) -> Outcome {
    let step = format!("interop with {}", y.meta().label());
    super::trace(x, &step);
    super::trace(y, &step);
    for t in 0..TRIPS {
        let (pk, mut sk) = match x.keypair_kept_vec() {
            Ok(v) => v,
            Err(e) => return Outcome::Fail(format!("keypair: {e}")),
        };
        let (ct, ss) = match y.encaps_vec(&pk) {
            Ok(v) => v,
            Err(e) => return Outcome::Fail(format!("encaps by {}: {e}", y.meta().implementation)),
        };
        match x.decaps_kept_vec(&mut sk, &ct) {
            Ok(s) if s == ss => {}
            Ok(_) => return Outcome::Fail(format!("trip {}: secrets differ", t + 1)),
            Err(e) => return Outcome::Fail(format!("decaps: {e}")),
        }
    }
    Outcome::Pass(format!("{TRIPS} trips"))
}

/// Runs every pair; returns the pairs and one summary outcome per implementation. A failed
/// pair counts against an implementation that fails its own checks (`own_ok[i]` false), or
/// against both when both pass alone (then neither can be blamed alone: a pair failure). It
/// never counts against a correct implementation whose peer fails its own checks.
pub fn run(impls: &[Arc<dyn Kem>], own_ok: &[bool], opts: &Options) -> (Vec<Pair>, Vec<Outcome>) {
    let mut jobs = Vec::new();
    for (i, x) in impls.iter().enumerate() {
        for (j, y) in impls.iter().enumerate() {
            if i != j && x.meta().algorithm.name == y.meta().algorithm.name {
                jobs.push((i, j));
            }
        }
    }
    let outcomes = parallel(jobs.len(), opts.threads, |n| {
        let (i, j) = jobs[n];
        guarded(|| pair(impls[i].as_ref(), impls[j].as_ref()))
    });
    let pairs: Vec<Pair> = jobs
        .iter()
        .zip(&outcomes)
        .map(|(&(i, j), o)| Pair {
            algorithm: impls[i].meta().algorithm.name.to_string(),
            keys_by: impls[i].meta().implementation.clone(),
            encaps_by: impls[j].meta().implementation.clone(),
            outcome: o.clone(),
        })
        .collect();
    let summary = (0..impls.len())
        .map(|i| {
            let mine: Vec<(usize, bool, &Outcome)> = jobs
                .iter()
                .zip(&outcomes)
                .filter(|((a, b), _)| *a == i || *b == i)
                .map(|(&(a, b), o)| (if a == i { b } else { a }, a == i, o))
                .collect();
            if mine.is_empty() {
                return Outcome::Skip("only implementation of its algorithm here".into());
            }
            let name = |j: usize| impls[j].meta().implementation.clone();
            let mut blamed = Vec::new();
            let mut excused = std::collections::BTreeSet::new();
            for (other, my_keys, o) in &mine {
                let Outcome::Fail(detail) = o else { continue };
                if own_ok[i] && !own_ok[*other] {
                    excused.insert(name(*other));
                } else {
                    let holder = if *my_keys { i } else { *other };
                    blamed.push(format!(
                        "with {}, keys by {}: {detail}",
                        name(*other),
                        name(holder)
                    ));
                }
            }
            let peers = mine.len() / 2;
            if !blamed.is_empty() {
                Outcome::Fail(blamed.join("; "))
            } else if excused.is_empty() {
                Outcome::Pass(format!("{peers} peers"))
            } else {
                let excused: Vec<String> = excused.into_iter().collect();
                let why = format!(
                    "pairs with {} fail, which fails its own checks",
                    excused.join(", ")
                );
                if excused.len() == peers {
                    Outcome::Skip(format!("no peer that passes its own checks ({why})"))
                } else {
                    Outcome::Pass(format!("{} peers ({why})", peers - excused.len()))
                }
            }
        })
        .collect();
    (pairs, summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::mock::{Behaviour, Mock};
    use crate::verify::checks::tests::Twisted;

    #[test]
    fn pairs_hold_keys_as_objects_and_never_cross_algorithms() {
        let impls: Vec<Arc<dyn Kem>> = vec![
            Arc::new(Mock::new("correct", Behaviour::Correct)),
            Arc::new(Twisted::kept_only()),
            Arc::new(Twisted::kept_only_x25519()),
        ];
        let (pairs, summary) = run(&impls, &[true; 3], &Options::default());
        let names: Vec<(&str, &str)> = pairs
            .iter()
            .map(|p| (p.keys_by.as_str(), p.encaps_by.as_str()))
            .collect();
        // The implementation without secret-key bytes holds keys in one pair and
        // encapsulates in the other; the X25519 one has no peer.
        assert_eq!(
            names,
            [
                ("mock/correct", "mock/kept-only"),
                ("mock/kept-only", "mock/correct")
            ]
        );
        assert!(pairs.iter().all(|p| !p.outcome.failed()), "{pairs:?}");
        assert!(matches!(&summary[2], Outcome::Skip(_)), "{summary:?}");
    }

    /// Two specifications are two algorithms: HQC round 4 (liboqs's HQC-128) and the
    /// 2025-08-22 specification (RustCrypto's HQC-1) are never paired, nor X-Wing with the TLS
    /// hybrid X25519MLKEM768 (another combiner); each is the only implementation of its
    /// algorithm here.
    #[test]
    fn no_pair_crosses_specifications() {
        let registry = crate::providers::Registry::new(false);
        let get = |label: &str| {
            registry
                .get(label)
                .unwrap_or_else(|| panic!("{label} is not registered"))
        };
        let impls: Vec<Arc<dyn Kem>> = vec![
            get("HQC-128@liboqs"),
            get("HQC-1@rustcrypto"),
            get("X-Wing@rustcrypto"),
            get("X25519MLKEM768@openssl"),
        ];
        let (pairs, summary) = run(&impls, &[true; 4], &Options::default());
        assert!(pairs.is_empty(), "{pairs:?}");
        for s in &summary {
            assert_eq!(
                s,
                &Outcome::Skip("only implementation of its algorithm here".into())
            );
        }
    }

    #[test]
    fn a_holder_whose_kept_key_is_wrong_fails_its_pairs() {
        let impls: Vec<Arc<dyn Kem>> = vec![
            Arc::new(Mock::new("correct", Behaviour::Correct)),
            Arc::new(Mock::new("broken", Behaviour::WrongSecret)),
        ];
        // mock/broken decapsulates wrongly: the pair where it holds the key fails, the pair
        // where it only encapsulates passes.
        let (pairs, _) = run(&impls, &[true, false], &Options::default());
        for p in &pairs {
            assert_eq!(p.outcome.failed(), p.keys_by == "mock/broken", "{pairs:?}");
        }
    }
}
