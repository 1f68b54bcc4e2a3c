//! The sampling loop for one (implementation, operation).
//!
//! Inputs come from a pool prepared before timing: distinct public keys for encapsulation and
//! matching (secret key, ciphertext) pairs for decapsulation, used in turn, so a single cached
//! key does not flatter the figures beyond what a server handling many clients sees. After a
//! warm-up, each sample times `batch` calls with the clock and the fenced TSC; the batch is 1
//! unless a call is too short for the timer to resolve to 1%. The clock's two reads sit inside
//! the TSC's, so clock samples hold nothing but the calls (as a bare loop's do; each call with
//! the harness work listed below) and TSC samples also hold the clock's reads (one read's cost,
//! reported as the clock's overhead). Sampling stops when the 95% confidence interval of the
//! median is within the target precision (1% by default), or when the time budget is spent;
//! either way the result says which, with the precision reached.
//!
//! The budget can be split into rounds ([`OpSampler::round`]) that the runner interleaves with
//! other benchmarks: on shared machines whose speed drifts over seconds, each median then spans
//! the whole run, and disagreeing round medians show the drift instead of hiding it.
//!
//! # What a timed call holds besides the library
//!
//! The pieces below run inside the calls, between the clock's two reads, in `run`, `throughput`
//! and `profile` alike (all three call [`Workload::call`]); preparing inputs, refilling single-use
//! keys ([`Workload::ready`]) and the clock's reads happen outside them. Each piece says who pays
//! it: **user** (a program calling that library for real pays it too) or **kembench** (the
//! harness adds it, and why). Costs are instructions per call counted by callgrind, exact whatever
//! the machine's load, on the very call `run` times; shares are of that call's instructions, for
//! the cheapest operations a piece sits in: X25519 keygen on aws-lc (94,688 instructions; 7.4 µs
//! natively), ML-KEM-768 encaps on liboqs (120,736; 12.1 µs) and aws-lc's ML-KEM-768 pk-import
//! (1,575; 102 ns, the cheapest call kembench times). Measured at commit 75b4589 on the 2-core
//! Xeon VM (valgrind 3.19, seed 0) with `kembench profile --alg ML-KEM-768,X25519 --all --seeds 1
//! --callgrind-out DIR` (self counts per function and per source line, read with
//! `callgrind_annotate`) and `scripts/timed-share LABEL -v`, which runs the same profile worker
//! with `--dump-instr=yes` and gives each instruction of the call, through its inline chain, to
//! the library, to kembench or to kembench's allocator interposer (glibc's work goes to whoever
//! called it; freeing a library's own object is the library's). `profile`'s marker frame (about
//! 26 instructions) and its seeded random stream exist only there and are left out.
//!
//! 1. **Operation dispatch** (`match self.op` in [`Workload::call`]), kembench: one sampler serves
//!    every operation. 7 instructions (a jump table) in every call.
//! 2. **Pool index** (`turn`, `next = (i + 1) % len`, and the bounds-checked pool lookup),
//!    kembench: calls take distinct inputs, as a server's do. 10–11 instructions for `turn`, one
//!    of them a 64-bit division whose result only the next call needs, and about 10 for the
//!    lookup (encaps, decaps, the imports). Single-use keys (rustls decaps) take the next key
//!    instead: a readiness check and an increment.
//! 3. **Length checks** (the checked entry points on `dyn Kem`: `keypair_kept`, `encaps`,
//!    `decaps_kept`, `sk_import`, `pk_import`), kembench: the trait is over byte slices, and no
//!    adapter may be handed a short buffer (a typed API needs no check). A virtual `meta()` call
//!    (2 instructions in it), one compare per buffer and the virtual call of the adapter's
//!    `*_raw`: 12 (keygen) to 21 (encaps) instructions.
//!
//!    Pieces 1–3 together are the whole of kembench's share for the mock (`scripts/timed-share
//!    MockKEM@mock/correct --include-mock --ops encaps,decaps,pk-import`): encaps 56, decaps 55
//!    and the downcast, pk-import 42; keygen about 50 and sk-import 68 before the key's box. That
//!    is 0.05% of liboqs's ML-KEM-768 encaps, 0.05% of aws-lc's X25519 keygen and 3.4% of
//!    aws-lc's pk-import. `run`'s batch loop inlines the same code: a callgrind of `kembench run
//!    --include-mock --impl mock/correct --ops encaps` toggled on [`OpSampler::round`] counts the
//!    same source lines within one instruction per line, plus the loop's counter and `?`.
//! 4. **Key boxing** (`SecretKey::new` in keygen of providers with key objects, sk-import and
//!    exchange, and freeing the previous key's box at the next call), kembench: one object-safe
//!    trait keeps every provider's key type (a program keeps its key in a typed variable). One
//!    `malloc` and one `free`, about 210 instructions with glibc and the interposer at 75b4589
//!    (0.22% of aws-lc's X25519 keygen; the interposer's two calls cost about 20 fewer since its
//!    fast path); freeing the key object itself is the user's. libcrux moves its
//!    2,400-byte `MlKemPrivateKey` into the box (256 instructions of copying). Byte-keyed
//!    providers (liboqs, PQClean, builds) pay none of it in keygen: the new secret key is
//!    written over the previous key's bytes (`keypair_again` where `Kem::keeps_bytes`),
//!    as a C program writes each key into a buffer it owns; a type check (`get_mut`, about 15
//!    instructions) remains. Until commit 5a6dd98 each keygen allocated and zeroed a new
//!    2,400-byte buffer and a box: 3,265 instructions (2.8%) of liboqs's ML-KEM-768 keygen, and
//!    0.5% to 1.3% of its time against a bare C loop (`cargo bench --bench direct`).
//! 5. **Downcast** (`SecretKey::get`/`get_mut` in decaps), kembench, for the same reason: a
//!    virtual `type_id` call and a compare, 14 instructions.
//! 6. **Allocator interposer** (`measure/heap.rs`), kembench: it measures each call's peak heap
//!    and is linked into the worker for good. Every `malloc`, `free`, `calloc`, `realloc` and
//!    aligned allocation inside the call, the library's own included, goes through it before
//!    glibc. It tests its per-thread flag first and, off, jumps straight to glibc's function
//!    (the bookkeeping of a heap measurement is in cold functions of its own): 13 to 14
//!    instructions per call, TLS access included. liboqs's ML-KEM-768 encaps: 7 `aligned_alloc`
//!    and 7 `free`, 189 instructions (0.16%); aws-lc's X25519 keygen 84 (0.09%); OpenSSL's
//!    ML-KEM-768 encaps 771 (0.12%); the cheap imports most: aws-lc's ML-KEM-768 pk-import 63
//!    (4.2%), OpenSSL's X25519 pk-import 288 (2.7%). Until the fast path it saved six registers
//!    before testing the flag, 23 instructions per call: 329, 184, 1,562, 138 and 578 of those.
//!    libcrux's encaps and decaps, and PQClean's and RustCrypto's decaps, allocate nothing.
//! 7. **OpenSSL's context pool** (`GenPool` in `providers/openssl.rs`), kembench: one adapter
//!    object serves every thread, where a server keeps a key-generation context per thread.
//!    Keygen, and the ephemeral key of ECDH and DH encaps, take the context from a mutex-guarded
//!    stack and put it back: two uncontended lock/unlock pairs, a pop and a push, 101
//!    instructions (0.018% of OpenSSL's X25519 keygen).
//! 8. **libcrux's seed source** (`random` in `providers/libcrux.rs`), user: libcrux takes its
//!    randomness as arguments, and the adapter draws 64 bytes (keygen) or 32 (encaps) from
//!    `getrandom`, as libcrux's `rand` wrappers do. kembench's part is the test that no `profile`
//!    seed is installed, 2 to 4 instructions (the same test runs in RustCrypto's `SeededRng` and in
//!    the builds' `randombytes`, which adds about 20 for its known-answer switch, a static count).
//!    The system call is invisible to callgrind: natively `getrandom` takes 347 ns for 64 bytes
//!    and 237 ns for 32 (a C loop on this machine), 1.5% and 1.2% of libcrux/avx2's keygen
//!    (22.4 µs) and encaps (20.4 µs). Under `profile` the seeded stream replaces it.
//! 9. **Adapter glue** (each provider's `*_raw`), mostly user: the conversions any caller of that
//!    API writes. kembench's part, because the trait writes into caller buffers, is copying what
//!    the library returns as its own objects into kembench's fixed buffers: 136 instructions for
//!    a 1,088-byte ciphertext (libcrux, aws-lc, RustCrypto, rustls) and as many for a public key.
//!    Builds check the `OnceLock` of their functions (4 instructions). OpenSSL's `octet_param`
//!    (keygen, ECDH and DH encaps) also makes a lossy UTF-8 copy of the parameter's name on every
//!    call, used only in an error message: 166 instructions (0.03% of OpenSSL's X25519 keygen).
//!
//! `throughput`'s loop adds a relaxed load of its stop flag and a counter increment per call (not
//! profiled). kembench's whole share per call, pieces 1–9 (harness + interposer, from
//! `scripts/timed-share`; ML-KEM-768 unless named):
//!
//! | implementation | keygen | encaps | decaps | sk-import | pk-import |
//! |---|---|---|---|---|---|
//! | liboqs | 299 (0.26%) | 265 (0.22%) | 316 (0.21%) | | |
//! | pqclean/avx2 (ntruhps2048509) | 110 (0.03%) | 75 (0.12%) | 99 (0.08%) | | |
//! | libcrux/avx2 | 938 (0.45%) | 582 (0.28%) | 248 (0.11%) | | |
//! | rustcrypto | 556 (0.07%) | 395 (0.04%) | 265 (0.02%) | 632 (0.63%) | 76 (0.09%) |
//! | aws-lc | 668 (0.40%) | 415 (0.24%) | 204 (0.10%) | 331 (7.7%) | 117 (7.8%) |
//! | openssl | 1,268 (0.22%) | 976 (0.15%) | 226 (0.04%) | 1,136 (0.09%) | 727 (0.28%) |
//! | rustls/aws-lc-rs | 714 (0.42%) | 452 (0.27%) | 308 (0.14%) | | |
//! | X25519, aws-lc | 418 (0.44%) | 435 (0.10%) | 325 (0.10%) | 314 (0.34%) | |
//! | X25519, openssl | 884 (0.15%) | 1,217 (0.11%) | 557 (0.11%) | 624 (0.11%) | 384 (3.6%) |
//! | X25519, rustls/aws-lc-rs | 409 (0.43%) | 375 (0.09%) | 302 (0.09%) | | |
//!
//! Every row is from after the interposer's fast path (piece 6; commit 26eae83), measured with
//! `scripts/timed-share LABEL --ops keygen,encaps,decaps,sk-import,pk-import`; before it,
//! liboqs read 439/405/476, aws-lc's pk-import 192 (12%) and OpenSSL's X25519 pk-import 1,364
//! (as 75b4589 measured them). PQClean's
//! ML-KEM keygen and encaps are profiled through its derandomized entry points, hence the NTRU
//! row; its ML-KEM-768 decaps carries 64 (0.04%). Valgrind hides ADX and AVX-512, so aws-lc and OpenSSL
//! take other code paths under it than natively: the counts are of those paths.

use super::counters::{Counters, Pmu};
use super::heap::{self, HeapUsage};
use super::stack::{self, StackUsage};
use super::timer::{tsc, Timers};
use crate::kem::{Kem, KemError, Op, SecretKey};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Knobs of the sampling loop.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SamplerConfig {
    /// Time budget per operation, warm-up excluded (seconds).
    pub time_budget_s: f64,
    /// Fewest samples, even past the budget (within a hard limit of ten budgets).
    pub min_samples: usize,
    /// Most samples.
    pub max_samples: usize,
    /// Warm-up before sampling (seconds).
    pub warmup_s: f64,
    /// Target relative half-width of the median's 95% confidence interval.
    pub target_precision: f64,
    /// Distinct inputs prepared for encapsulation and decapsulation.
    pub pool: usize,
    /// Rounds each benchmark's budget is split into, interleaved with the other benchmarks in
    /// a shuffled order, so that each median spans the whole run rather than one moment of it.
    #[serde(default = "one_round")]
    pub rounds: usize,
}

fn one_round() -> usize {
    1
}

impl Default for SamplerConfig {
    fn default() -> Self {
        SamplerConfig {
            time_budget_s: 1.0,
            min_samples: 20,
            max_samples: 10_000,
            warmup_s: 0.1,
            target_precision: 0.01,
            pool: 16,
            rounds: 5,
        }
    }
}

/// Why sampling stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// The median's confidence interval reached the target precision.
    Precision,
    /// The time budget was spent first; the achieved precision is reported.
    Budget,
    /// The sample cap was reached.
    MaxSamples,
    /// Ten budgets were spent before the minimum sample count: fewer samples than asked.
    BelowMinimum,
    /// Each round reached the precision alone, but the rounds disagree: the machine's speed
    /// changed while the run went on (see the round medians).
    RoundsDisagree,
}

impl StopReason {
    /// The kebab-case name, as in the JSON files.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Precision => "precision",
            StopReason::Budget => "budget",
            StopReason::MaxSamples => "max-samples",
            StopReason::BelowMinimum => "below-minimum",
            StopReason::RoundsDisagree => "rounds-disagree",
        }
    }

    /// The words for people (console, report): `sample cap` rather than `max-samples`.
    pub fn label(self) -> &'static str {
        match self {
            StopReason::Precision => "precision",
            StopReason::Budget => "budget",
            StopReason::MaxSamples => "sample cap",
            StopReason::BelowMinimum => "below minimum",
            StopReason::RoundsDisagree => "rounds disagree",
        }
    }
}

/// Raw measurements of one operation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sampled {
    /// The operation.
    pub op: Op,
    /// Calls per sample.
    pub batch: usize,
    /// Per-call clock time of each sample (ns).
    pub samples_ns: Vec<f64>,
    /// Per-call TSC ticks of each sample; empty without a TSC.
    pub samples_tsc: Vec<f64>,
    /// The median of each round, in the order taken.
    pub round_medians_ns: Vec<f64>,
    /// Why sampling stopped.
    pub stop: StopReason,
    /// Relative half-width of the median's 95% order-statistic interval at the stop.
    pub achieved_precision: f64,
    /// Warm-up calls made.
    pub warmup_calls: u64,
    /// Hardware counters over a separate counted phase.
    pub counters: Counters,
    /// Heap use of one call (the largest of three).
    pub heap: Option<HeapUsage>,
    /// Stack depth of one call.
    pub stack: Option<StackUsage>,
}

/// Prepared inputs and output buffers for one operation.
///
/// The pool is laid out so that a call touches only what a real caller would: the `i`-th
/// public key, kept secret key, ciphertext or secret-key bytes, and fixed output buffers.
pub struct Workload<'a> {
    k: &'a dyn Kem,
    op: Op,
    /// Public keys (encaps, pk-import).
    pks: Vec<Vec<u8>>,
    /// Kept secret keys and their ciphertexts (decaps).
    keys: Vec<(SecretKey, Vec<u8>)>,
    /// Secret keys as bytes (sk-import).
    sk_bytes: Vec<Vec<u8>>,
    /// The key made by the last keygen, exchange or sk-import call (replaced by the next one).
    kept: Option<SecretKey>,
    pk: Vec<u8>,
    ct: Vec<u8>,
    ss: Vec<u8>,
    ss2: Vec<u8>,
    pool: usize,
    /// The pool input the next call takes. Single-use keys are taken in order and never
    /// again, so for them `keys.len() - next` is the number still fresh.
    next: usize,
    /// Decapsulation with keys that decapsulate only once (asked of the library once, here).
    single_use: bool,
}

impl<'a> Workload<'a> {
    /// Prepares a pool of inputs for `op`: public keys; kept secret keys with a ciphertext
    /// each; secret keys as bytes.
    pub fn new(k: &'a dyn Kem, op: Op, pool: usize) -> Result<Self, KemError> {
        let a = k.meta().algorithm;
        if !op.offered_by(k) {
            return Err(KemError::Unsupported);
        }
        // Megabyte keys (Classic McEliece) get a smaller pool.
        let pool = if a.has_megabyte_keys() {
            pool.min(4)
        } else {
            pool
        }
        .max(1);
        let mut w = Workload {
            k,
            op,
            pks: Vec::new(),
            keys: Vec::new(),
            sk_bytes: Vec::new(),
            kept: None,
            pk: vec![0; a.pk_len],
            ct: vec![0; a.ct_len],
            ss: vec![0; a.ss_len],
            ss2: vec![0; a.ss_len],
            pool,
            next: 0,
            single_use: op == Op::Decaps && k.single_use_keys(),
        };
        match op {
            Op::Encaps | Op::PkImport => {
                for _ in 0..pool {
                    w.pks.push(k.keypair_kept_vec()?.0);
                }
            }
            Op::Decaps => w.fill_keys(pool)?,
            Op::SkImport => {
                for _ in 0..pool {
                    let (_, sk) = k.keypair_kept_vec()?;
                    w.sk_bytes.push(k.sk_export(&sk)?);
                }
            }
            Op::Keygen | Op::Exchange => {}
        }
        Ok(w)
    }

    fn fill_keys(&mut self, n: usize) -> Result<(), KemError> {
        self.keys.clear();
        for _ in 0..n {
            let (pk, sk) = self.k.keypair_kept_vec()?;
            let (ct, _) = self.k.encaps_vec(&pk)?;
            self.keys.push((sk, ct));
        }
        self.next = 0;
        Ok(())
    }

    /// The pool index for this call, advancing in turn through `len` inputs.
    #[inline(always)]
    fn turn(&mut self, len: usize) -> usize {
        let i = self.next;
        self.next = (i + 1) % len;
        i
    }

    /// Makes sure the next `calls` calls find their inputs ready, so that nothing is prepared
    /// inside a timed section. Only single-use keys (decapsulation) need fresh ones; call it
    /// before every timed batch.
    pub fn ready(&mut self, calls: usize) -> Result<(), KemError> {
        if self.single_use && self.keys.len() - self.next < calls {
            self.fill_keys(calls.max(self.pool))?;
        }
        Ok(())
    }

    /// `calls` calls counted by the hardware counters `pmu` (inputs readied first, so nothing
    /// is prepared inside the counted phase), or the first call's error.
    pub fn count(&mut self, pmu: &mut Pmu, calls: u64) -> Result<Counters, KemError> {
        self.ready(calls as usize)?;
        let mut failed = None;
        let c = pmu.count(calls, || {
            if let Err(e) = self.call() {
                failed = Some(e);
            }
        });
        failed.map_or(Ok(c), Err)
    }

    /// One call of the operation, with the next input of the pool.
    #[inline(always)]
    pub fn call(&mut self) -> Result<(), KemError> {
        let k = self.k;
        match self.op {
            // The new key replaces the previous one (`keypair_again`): byte-keyed providers
            // write it over the previous key's buffer, as a C caller reuses its own; the others
            // free the previous key first, as a loop that frees each key after use does (with
            // both alive, the new key's allocations land elsewhere in the heap).
            Op::Keygen => k.keypair_again(&mut self.pk, &mut self.kept).map(drop),
            Op::Encaps => {
                let i = self.turn(self.pks.len());
                k.encaps(&self.pks[i], &mut self.ct, &mut self.ss)
            }
            Op::Decaps => {
                let i = if self.single_use {
                    // Timed batches were readied beforehand; this refills only in untimed
                    // loops (warm-up, throughput's own preparation).
                    self.ready(1)?;
                    self.next += 1;
                    self.next - 1
                } else {
                    self.turn(self.keys.len())
                };
                let (sk, ct) = &mut self.keys[i];
                k.decaps_kept(sk, ct, &mut self.ss)
            }
            Op::Exchange => {
                let sk = k.keypair_again(&mut self.pk, &mut self.kept)?;
                k.encaps(&self.pk, &mut self.ct, &mut self.ss)?;
                k.decaps_kept(sk, &self.ct, &mut self.ss2)
            }
            Op::SkImport => {
                let i = self.turn(self.sk_bytes.len());
                self.kept = None;
                self.kept = Some(k.sk_import(&self.sk_bytes[i])?);
                Ok(())
            }
            Op::PkImport => {
                let i = self.turn(self.pks.len());
                k.pk_import(&self.pks[i])
            }
        }
    }
}

/// Relative half-width of the distribution-free 95% confidence interval of the median
/// (order statistics at n/2 ± 1.96·√n/2). Cheap enough to evaluate while sampling; the final
/// interval reported comes from the bootstrap in `stats`.
pub fn order_statistic_precision(samples: &[f64]) -> f64 {
    let n = samples.len();
    if n < 3 {
        return f64::INFINITY;
    }
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let half = 1.96 * (n as f64).sqrt() / 2.0;
    let lo = ((n as f64 / 2.0 - half).floor().max(0.0)) as usize;
    let hi = ((n as f64 / 2.0 + half).ceil() as usize).min(n - 1);
    let median = s[n / 2];
    if median <= 0.0 {
        return f64::INFINITY;
    }
    (s[hi] - s[lo]) / 2.0 / median
}

/// Calls per sample so that one sample spans at least 100 timer resolutions and 100 read
/// overheads: the timer then quantizes a sample by at most 1%.
pub fn batch_size(call_ns: f64, timers: &Timers) -> usize {
    let floor = 100.0 * timers.clock.resolution.max(timers.clock.overhead).max(1.0);
    if call_ns >= floor {
        1
    } else {
        ((floor / call_ns.max(0.1)).ceil() as usize).next_power_of_two()
    }
}

/// One operation being sampled, possibly over several rounds interleaved with others.
pub struct OpSampler<'a> {
    w: Workload<'a>,
    op: Op,
    batch: usize,
    call_ns: f64,
    warmup_calls: u64,
    samples_ns: Vec<f64>,
    samples_tsc: Vec<f64>,
    round_medians_ns: Vec<f64>,
    spent: Duration,
}

fn median_of(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

impl<'a> OpSampler<'a> {
    /// Prepares the inputs, warms up and picks the batch size.
    pub fn prepare(
        k: &'a dyn Kem,
        op: Op,
        cfg: &SamplerConfig,
        timers: &Timers,
    ) -> Result<Self, KemError> {
        let mut w = Workload::new(k, op, cfg.pool)?;
        let (warmup_calls, call_ns) = warm_up(&mut w, cfg.warmup_s)?;
        Ok(OpSampler {
            w,
            op,
            batch: batch_size(call_ns, timers),
            call_ns,
            warmup_calls,
            samples_ns: Vec::new(),
            samples_tsc: Vec::new(),
            round_medians_ns: Vec::new(),
            spent: Duration::ZERO,
        })
    }

    /// Samples for one round: until `budget` is spent (after at least `min_samples`, within
    /// ten budgets) or this round's median is within the target precision. A short warm-up
    /// first, since other benchmarks ran in between and evicted caches.
    pub fn round(
        &mut self,
        cfg: &SamplerConfig,
        budget: Duration,
        min_samples: usize,
        rewarm: bool,
    ) -> Result<(), KemError> {
        if rewarm {
            let (n, _) = warm_up(&mut self.w, (cfg.warmup_s / 4.0).min(0.02))?;
            self.warmup_calls += n;
        }
        let first = self.samples_ns.len();
        let hard_limit = budget * 10;
        let start = Instant::now();
        let mut next_check = min_samples.max(3);
        loop {
            self.w.ready(self.batch)?;
            // The clock's section is the inner one: nothing but the calls (and the clock's
            // own read) between its two reads, as in a bare loop. The fenced TSC reads cost
            // some 60 ns here and would add that to every clock sample; the TSC section
            // includes the clock reads instead (see the module docs).
            let c0 = tsc();
            let t0 = Instant::now();
            for _ in 0..self.batch {
                self.w.call()?;
            }
            let dt = t0.elapsed();
            let c1 = tsc();
            self.samples_ns
                .push(dt.as_nanos() as f64 / self.batch as f64);
            if let (Some(a), Some(b)) = (c0, c1) {
                self.samples_tsc
                    .push(b.wrapping_sub(a) as f64 / self.batch as f64);
            }
            let n = self.samples_ns.len() - first;
            let elapsed = start.elapsed();
            // Each round may take its share of the sample cap, so later rounds still run.
            if self.samples_ns.len() >= cfg.max_samples
                || n >= cfg.max_samples.div_ceil(cfg.rounds.max(1))
            {
                break;
            }
            if n < min_samples {
                if elapsed >= hard_limit {
                    break;
                }
                continue;
            }
            if elapsed >= budget {
                break;
            }
            if n >= next_check {
                if order_statistic_precision(&self.samples_ns[first..]) <= cfg.target_precision {
                    break;
                }
                next_check = n + (n / 8).max(10);
            }
        }
        self.spent += start.elapsed();
        self.round_medians_ns
            .push(median_of(&self.samples_ns[first..]));
        Ok(())
    }

    /// The operation.
    pub fn op(&self) -> Op {
        self.op
    }

    /// Samples taken so far.
    pub fn samples(&self) -> usize {
        self.samples_ns.len()
    }

    /// Whether the sample cap is reached.
    pub fn full(&self, cfg: &SamplerConfig) -> bool {
        self.samples_ns.len() >= cfg.max_samples
    }

    /// Counted phase, heap and stack; returns everything measured.
    pub fn finish(
        mut self,
        cfg: &SamplerConfig,
        pmu: Option<&mut Pmu>,
        pmu_missing: &str,
    ) -> Result<Sampled, KemError> {
        let achieved_precision = order_statistic_precision(&self.samples_ns);
        let n = self.samples_ns.len();
        let budget = Duration::from_secs_f64(cfg.time_budget_s);
        let stop = if n >= cfg.max_samples {
            StopReason::MaxSamples
        } else if n < cfg.min_samples {
            StopReason::BelowMinimum
        } else if achieved_precision <= cfg.target_precision {
            StopReason::Precision
        } else if self.spent >= budget.mul_f64(0.9) {
            StopReason::Budget
        } else {
            // Every round stopped on its own precision but the pooled samples did not reach
            // it: the rounds disagree (the machine's speed changed between them).
            StopReason::RoundsDisagree
        };
        let w = &mut self.w;
        // Counted phase, apart from the timed one so counter reads never sit inside a sample.
        let counters = match pmu {
            Some(p) => w.count(p, ((0.05e9 / self.call_ns) as u64).clamp(1, 10_000))?,
            None => Counters::Unavailable(pmu_missing.to_string()),
        };

        // Heap: the largest of three calls (lazily initialised tables settle in the warm-up).
        let mut heap_use: Option<HeapUsage> = None;
        if heap::interposer_active() {
            for _ in 0..3 {
                w.ready(1)?;
                let (r, h) = heap::measure(|| w.call());
                r?;
                heap_use = Some(match heap_use {
                    Some(prev) if prev.peak_heap_bytes >= h.peak_heap_bytes => prev,
                    _ => h,
                });
            }
        }

        // Stack: one call on a fresh, painted thread. Painting costs time in proportion to the
        // stack, so only megabyte-key algorithms get the 64 MiB one.
        let stack_size = w.k.meta().algorithm.stack_size();
        w.ready(1)?;
        let stack_use = match stack::measure(stack_size, || w.call()) {
            Ok((r, s)) => {
                r?;
                Some(s)
            }
            Err(_) => {
                return Err(KemError::Failure(
                    "operation panicked while measuring its stack".into(),
                ))
            }
        };

        Ok(Sampled {
            op: self.op,
            batch: self.batch,
            samples_ns: self.samples_ns,
            samples_tsc: self.samples_tsc,
            round_medians_ns: self.round_medians_ns,
            stop,
            achieved_precision,
            warmup_calls: self.warmup_calls,
            counters,
            heap: heap_use,
            stack: stack_use,
        })
    }
}

/// Warm-up: at least 3 calls and `seconds`; returns the calls made and the mean call time.
fn warm_up(w: &mut Workload<'_>, seconds: f64) -> Result<(u64, f64), KemError> {
    let start = Instant::now();
    let mut calls = 0u64;
    while calls < 3 || start.elapsed().as_secs_f64() < seconds {
        w.call()?;
        calls += 1;
    }
    Ok((calls, start.elapsed().as_nanos() as f64 / calls as f64))
}

/// Samples one operation of `k` in a single round (no interleaving).
pub fn sample(
    k: &dyn Kem,
    op: Op,
    cfg: &SamplerConfig,
    timers: &Timers,
    pmu: Option<&mut Pmu>,
    pmu_missing: &str,
) -> Result<Sampled, KemError> {
    let cfg = &SamplerConfig {
        rounds: 1,
        ..cfg.clone()
    };
    let mut s = OpSampler::prepare(k, op, cfg, timers)?;
    s.round(
        cfg,
        Duration::from_secs_f64(cfg.time_budget_s),
        cfg.min_samples,
        false,
    )?;
    s.finish(cfg, pmu, pmu_missing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::timer::TimerProfile;
    use crate::providers::registry::Registry;

    fn timers(res: f64) -> Timers {
        Timers {
            clock: TimerProfile {
                resolution: res,
                overhead: res,
            },
            tsc: None,
            tsc_ticks_per_ns: None,
        }
    }

    #[test]
    fn stop_reason_names_match_the_json() {
        for r in [
            StopReason::Precision,
            StopReason::Budget,
            StopReason::MaxSamples,
            StopReason::BelowMinimum,
            StopReason::RoundsDisagree,
        ] {
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
    }

    #[test]
    fn short_calls_are_batched_to_a_power_of_two() {
        let t = timers(30.0);
        assert_eq!(batch_size(10_000.0, &t), 1);
        assert_eq!(batch_size(3_000.0, &t), 1);
        let b = batch_size(100.0, &t);
        assert!(b >= 30 && b.is_power_of_two(), "{b}");
    }

    #[test]
    fn precision_of_constant_samples_is_zero_and_of_spread_samples_positive() {
        assert_eq!(order_statistic_precision(&[5.0; 100]), 0.0);
        let spread: Vec<f64> = (0..100).map(|i| 100.0 + i as f64).collect();
        let p = order_statistic_precision(&spread);
        assert!(p > 0.0 && p < 0.2, "{p}");
        assert!(order_statistic_precision(&[1.0]).is_infinite());
    }

    #[test]
    fn sampling_the_mock_stops_and_measures_everything() {
        let r = Registry::mock_only();
        let k = r.all()[0].clone();
        let cfg = SamplerConfig {
            time_budget_s: 0.05,
            min_samples: 10,
            warmup_s: 0.01,
            ..SamplerConfig::default()
        };
        let t = Timers::calibrate();
        for op in Op::ALL {
            let s = sample(k.as_ref(), op, &cfg, &t, None, "test").unwrap();
            assert!(s.samples_ns.len() >= 10, "{op:?}");
            assert!(s.samples_ns.iter().all(|x| *x > 0.0));
            assert!(matches!(s.counters, Counters::Unavailable(_)));
            assert!(s.stack.is_some());
        }
    }
}
