//! The correctness gate: nothing is benchmarked before it passes.
//!
//! Per (algorithm, implementation): round trips, sizes, canaries around output buffers, a
//! tampered ciphertext, wrong-length inputs, kept key objects against secret-key bytes,
//! interoperability with every other implementation of the same algorithm, and known answers
//! where test vectors apply. A panic inside an implementation is caught and reported as a
//! failure of the check that ran it.
//!
//! Secret keys are kept as the library's objects, as they are timed; the byte path (secret keys
//! as bytes) is checked beside it where the implementation has one. An implementation without
//! one (rustls, whose key shares never leave the library) is checked through kept keys alone;
//! what needs secret-key bytes (secret-key lengths, known answers) is left out with the reason,
//! never failed and never passed in silence.

pub mod checks;
mod interop;
pub mod kat;

use crate::kem::Kem;
use serde::Serialize;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The checks, in table order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// (a) key pair, encapsulation, decapsulation agree on the secret, many times.
    RoundTrip,
    /// (b) every output has the catalog's length, and the library's own lengths agree.
    Sizes,
    /// (c) canary bytes around caller buffers stay untouched, and outputs are written.
    Canaries,
    /// (d) a tampered ciphertext is rejected implicitly (or at least never yields the secret).
    Tamper,
    /// (e) wrong-length inputs and buffers give a clear error.
    BadLengths,
    /// (f) kept key objects and secret-key bytes (exported, imported) give the same secrets.
    KeptKeys,
    /// (g) interoperability with every other implementation of the algorithm.
    Interop,
    /// (h) known-answer tests.
    KnownAnswers,
}

impl Check {
    /// Every check, in table order.
    pub const ALL: [Check; 8] = [
        Check::RoundTrip,
        Check::Sizes,
        Check::Canaries,
        Check::Tamper,
        Check::BadLengths,
        Check::KeptKeys,
        Check::Interop,
        Check::KnownAnswers,
    ];

    /// Column header.
    pub fn title(self) -> &'static str {
        match self {
            Check::RoundTrip => "round trip",
            Check::Sizes => "sizes",
            Check::Canaries => "canaries",
            Check::Tamper => "tamper",
            Check::BadLengths => "bad lengths",
            Check::KeptKeys => "kept keys",
            Check::Interop => "interop",
            Check::KnownAnswers => "known answers",
        }
    }
}

/// How one check ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(tag = "status", content = "detail", rename_all = "lowercase")]
pub enum Outcome {
    /// Passed; the detail says what was checked (e.g. "412 trips").
    Pass(String),
    /// Failed, with the reason.
    Fail(String),
    /// Does not apply, with the reason.
    Skip(String),
}

impl Outcome {
    /// Whether this is a failure.
    pub fn failed(&self) -> bool {
        matches!(self, Outcome::Fail(_))
    }
}

/// Everything `verify` found for one implementation.
#[derive(Debug, Clone, Serialize)]
pub struct ImplReport {
    /// Algorithm name.
    pub algorithm: String,
    /// Implementation id.
    pub implementation: String,
    /// Provider version.
    pub version: String,
    /// One outcome per check.
    pub checks: BTreeMap<Check, Outcome>,
}

impl ImplReport {
    /// Whether every check passed or did not apply.
    pub fn passed(&self) -> bool {
        !self.checks.values().any(Outcome::failed)
    }
}

/// The whole gate's result.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Per implementation, in registry order.
    pub implementations: Vec<ImplReport>,
    /// Every interoperability pair that was run: (algorithm, keys by, encapsulation by, outcome).
    pub interop_pairs: Vec<interop::Pair>,
    /// Wall-clock seconds the gate took.
    pub seconds: f64,
}

impl Report {
    /// Whether every implementation passed.
    pub fn passed(&self) -> bool {
        self.implementations.iter().all(ImplReport::passed)
    }
}

/// Knobs of the gate.
#[derive(Debug, Clone)]
pub struct Options {
    /// Fewest round trips per implementation, however slow.
    pub min_round_trips: usize,
    /// Most round trips per implementation.
    pub max_round_trips: usize,
    /// Time after which round trips stop once the minimum is reached.
    pub round_trip_budget: Duration,
    /// Worker threads.
    pub threads: usize,
    /// Iterations of the accumulated ML-KEM-768 test.
    pub accumulated_iterations: usize,
    /// Check liboqs's transcripts over every count of its files (100, 10 for Classic
    /// McEliece) against its `all` digests, instead of the first count.
    pub all_counts: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            min_round_trips: 20,
            max_round_trips: 1000,
            round_trip_budget: Duration::from_millis(300),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            accumulated_iterations: 100,
            all_counts: false,
        }
    }
}

/// Runs `f`, turning a panic into a failure.
pub fn guarded(f: impl FnOnce() -> Outcome) -> Outcome {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        Outcome::Fail(format!("panicked: {msg}"))
    })
}

/// Runs `job(i)` for `0..n` on `threads` workers with large stacks; results in index order.
pub fn parallel<T: Send>(n: usize, threads: usize, job: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, n.max(1)) {
            std::thread::Builder::new()
                .stack_size(crate::kem::MEGABYTE_KEYS_STACK)
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let r = job(i);
                    out.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                })
                .expect("spawn verify worker");
        }
    });
    out.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// The environment variable that makes the gate name each step on stderr before it runs it
/// (`verify step: LABEL: STEP`), so that whoever started a `verify` process that died can say
/// in which step (`kembench builds` sets it for its gate).
pub const TRACE_VAR: &str = "KEMBENCH_VERIFY_TRACE";

/// Names the step about to run on `k`, when [`TRACE_VAR`] is set.
pub fn trace(k: &dyn Kem, step: &str) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os(TRACE_VAR).is_some()) {
        eprintln!("verify step: {}: {step}", k.meta().label());
    }
}

/// Runs the whole gate over `impls`; `progress` is told each step that finishes.
pub fn run(impls: &[Arc<dyn Kem>], opts: &Options, progress: &(dyn Fn(&str) + Sync)) -> Report {
    let start = Instant::now();
    let per_impl: Vec<BTreeMap<Check, Outcome>> = parallel(impls.len(), opts.threads, |i| {
        let k = impls[i].as_ref();
        let r = checks::run_all(k, opts);
        progress(&k.meta().label());
        r
    });
    let mut reports: Vec<ImplReport> = impls
        .iter()
        .zip(per_impl)
        .map(|(k, checks)| ImplReport {
            algorithm: k.meta().algorithm.name.to_string(),
            implementation: k.meta().implementation.clone(),
            version: k.meta().version.clone(),
            checks,
        })
        .collect();

    // Known answers on one thread alone (liboqs's KAT generator swaps its global randomness
    // source, which must not race with other liboqs calls), and before interoperability: an
    // implementation that fails its known answers fails its own checks, so a pair it breaks
    // counts against it alone, not against a correct peer (a build with a byte-order bug passes
    // its own round trips; only its known answers say it is the one at fault).
    let kats = parallel(impls.len(), 1, |i| {
        trace(impls[i].as_ref(), "known answers");
        guarded(|| kat::run(impls[i].as_ref(), opts))
    });
    for (r, o) in reports.iter_mut().zip(kats) {
        r.checks.insert(Check::KnownAnswers, o);
    }
    progress("known answers");

    let own_ok: Vec<bool> = reports
        .iter()
        .map(|r| !r.checks.values().any(Outcome::failed))
        .collect();
    let (pairs, per_impl_interop) = interop::run(impls, &own_ok, opts);
    for (r, o) in reports.iter_mut().zip(per_impl_interop) {
        r.checks.insert(Check::Interop, o);
    }
    progress("interoperability");

    Report {
        implementations: reports,
        interop_pairs: pairs,
        seconds: start.elapsed().as_secs_f64(),
    }
}
