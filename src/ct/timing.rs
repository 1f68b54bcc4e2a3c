//! The timing screen: dudect's fixed-against-random test (Reparaz, Balasch, Verbauwhede 2017)
//! on each secret-handling operation, natively, in a child process per implementation
//! (`kembench ct-timing-worker`) pinned to one CPU, so that a crash or a hang ends only it.
//!
//! Per operation, two classes of inputs, all prepared before anything is timed; the class of
//! each measurement is drawn at random, so that the two classes are interleaved and whatever
//! drifts (this VM's two speed states, frequency, other tenants) falls on both alike:
//! - keygen: a fixed seed against random seeds, through `keypair_derand`;
//! - encaps: a fixed encapsulation seed against random ones, through `encaps_derand`, to one
//!   public key;
//! - keygen or encaps without that entry point: the library's own draws, fixed by
//!   [`Kem::fix_randomness`] and replayed from a seed installed, untimed, before each call (a
//!   fixed seed against random ones), once the same seed is seen to give the same output twice;
//!   where the draws are not fixed or do not replay, the reason in one sentence;
//! - decaps: two tests, one key: a fixed valid ciphertext against random valid ones, and random
//!   valid ciphertexts against random bytes (implicit rejection; only for schemes that promise
//!   it, not for a key exchange, which rejects a bad peer value openly). Each gets half the budget;
//!   the record's `timing` holds the test with the larger |t|, `how` and a finding's `detail`
//!   give both.
//!
//! The statistics are [`crate::stats::dudect`]'s. The noise floor is an A/A test: the first
//! class's measurements split at random into two halves, through the same statistics.

use crate::engine::cpu;
use crate::kem::{Kem, KemError};
use crate::kem::Op;
use crate::measure::timer;
use crate::record::ct::{
    Finding, FindingKind, Ran, Screen, ScreenResult, TimingTest, MIN_MEASUREMENTS, T_DEFINITELY,
};
use crate::stats::dudect::{crop_thresholds, Dudect, Figures, NUMBER_PERCENTILES};
use rand::{Rng, SeedableRng};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::Context;

/// The prefix of the worker's one line of results on standard output.
pub const WIRE: crate::engine::wire::Wire = crate::engine::wire::Wire::new("KEMBENCH-CT-TIMING ");

/// Inputs in each random pool (seeds, ciphertexts).
const POOL: usize = 1024;
/// Measurements of the first batch: timed, used only for the cropping thresholds (as dudect
/// discards its first batch), and as warm-up.
const FIRST_BATCH: usize = 2_000;
/// Measurements per batch: timed in a row, then pushed to the statistics, so that the
/// statistics' work stays outside the timed calls and the budget is checked once a batch.
const BATCH: usize = 2_000;

/// Calls timed first, to size the batches, and thrown away.
const WARM_UP: usize = 16;
/// The fewest measurements in a batch, however slow the operation.
const MIN_BATCH: usize = 16;

/// Screens `ops` of `k` for timing leaks, one [`ScreenResult`] per op in order, in a child
/// `kembench ct-timing-worker` (natively, pinned).
pub fn screen(ctx: &Context, k: &dyn Kem, ops: &[Op]) -> Vec<ScreenResult> {
    if let Some(arch) = k.build().and_then(|b| b.arch.as_ref()) {
        return not_screened_all(
            ops,
            &format!("a {arch} build runs under QEMU: timings under an emulator mean nothing"),
        );
    }
    match run_worker(ctx, &k.meta().label(), ops) {
        Ok(r) => r,
        Err(e) => ops
            .iter()
            .map(|&op| ScreenResult {
                ran: Ran::Failed(format!("{e:#}")),
                ..ScreenResult::not_screened(Screen::Timing, op, "")
            })
            .collect(),
    }
}

fn not_screened_all(ops: &[Op], why: &str) -> Vec<ScreenResult> {
    ops.iter()
        .map(|&op| ScreenResult::not_screened(Screen::Timing, op, why))
        .collect()
}

fn run_worker(ctx: &Context, label: &str, ops: &[Op]) -> anyhow::Result<Vec<ScreenResult>> {
    let names: Vec<&str> = ops.iter().map(|o| o.as_str()).collect();
    let mut cmd = Command::new(&ctx.exe);
    cmd.arg("ct-timing-worker")
        .args(["--label", label, "--ops", &names.join(",")])
        .args(["--budget-ms", &ctx.timing_budget.as_millis().to_string()])
        .args(["--seed", &ctx.seed.to_string()]);
    if ctx.include_mock {
        cmd.arg("--include-mock");
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot start {}: {e}", ctx.exe.display()))?;
    // Every op's budget, plus the preparation (pools of ciphertexts, Classic McEliece keys).
    let limit = ctx.timing_budget * (ops.len() as u32) + ctx.worker_timeout;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            anyhow::bail!(
                "the timing worker for {label} ran past {:.0} s and was killed",
                limit.as_secs_f64()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (out, err) = (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    match WIRE.first(&out) {
        Some(results) if status.success() => Ok(results?),
        _ => anyhow::bail!(
            "the timing worker for {label} ended with {status} and no results: {}",
            err.trim()
        ),
    }
}

/// The worker's side: loads `label` and sends its results as one message ([`WIRE`]) on
/// standard output.
pub fn serve_worker(
    label: &str,
    ops: &[Op],
    budget: Duration,
    seed: u64,
    include_mock: bool,
) -> anyhow::Result<()> {
    let registry = crate::providers::Registry::new(include_mock);
    let k = registry
        .get(label)
        .ok_or_else(|| anyhow::anyhow!("{label} is not an implementation in this build"))?;
    let ops = ops.to_vec();
    let results = std::thread::Builder::new()
        .name("kembench-ct-timing".into())
        .stack_size(crate::kem::MEGABYTE_KEYS_STACK)
        .spawn(move || {
            let cpu = cpu::last_allowed_cpu().filter(|&c| cpu::pin_current_thread(c));
            screen_here(k.as_ref(), &ops, budget, seed, cpu)
        })?
        .join()
        .map_err(|_| anyhow::anyhow!("the timing thread panicked"))?;
    WIRE.send(&results)?;
    Ok(())
}

/// Screens `ops` of `k` in this thread (already pinned to `pinned_cpu`, if any).
pub fn screen_here(
    k: &dyn Kem,
    ops: &[Op],
    budget: Duration,
    seed: u64,
    pinned_cpu: Option<usize>,
) -> Vec<ScreenResult> {
    let clock = Clock::choose();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    ops.iter()
        .map(|&op| {
            let setup = Setup {
                budget,
                clock,
                pinned_cpu,
            };
            match screen_op(k, op, &setup, &mut rng) {
                Ok(Some(r)) => r,
                Ok(None) => ScreenResult::not_screened(Screen::Timing, op, why_not(k, op)),
                Err(e) => ScreenResult {
                    ran: Ran::Failed(format!("preparing the inputs failed: {e}")),
                    ..ScreenResult::not_screened(Screen::Timing, op, "")
                },
            }
        })
        .collect()
}

fn why_not(k: &dyn Kem, op: Op) -> String {
    match op {
        Op::Keygen => "no derandomized key generation (keypair_derand): a fixed class of key \
                       generation needs a fixed seed"
            .into(),
        Op::Encaps => "no derandomized encapsulation (encaps_derand): a fixed class of \
                       encapsulation needs a fixed seed"
            .into(),
        Op::Decaps if k.single_use_keys() => "keys are single-use (rustls's key-exchange \
            groups): a fixed ciphertext cannot be decapsulated twice under one key, and a fresh \
            key per call would make the classes differ in key as much as in ciphertext"
            .into(),
        other => format!(
            "{} handles no secret the timing screen can set",
            other.as_str()
        ),
    }
}

/// How one test is run.
#[derive(Debug, Clone, Copy)]
struct Setup {
    budget: Duration,
    clock: Clock,
    pinned_cpu: Option<usize>,
}

/// The timer: the fenced TSC where its rate is constant and invariant, else the monotonic
/// clock.
#[derive(Debug, Clone, Copy)]
enum Clock {
    Tsc,
    Monotonic(Instant),
}

impl Clock {
    fn choose() -> Clock {
        let flags = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let flags = flags
            .lines()
            .find(|l| l.starts_with("flags"))
            .unwrap_or_default();
        let has = |f: &str| flags.split_whitespace().any(|w| w == f);
        if timer::tsc().is_some() && has("constant_tsc") && has("nonstop_tsc") {
            Clock::Tsc
        } else {
            Clock::Monotonic(Instant::now())
        }
    }

    #[inline(always)]
    fn read(self) -> u64 {
        match self {
            Clock::Tsc => timer::tsc().unwrap_or(0),
            Clock::Monotonic(origin) => origin.elapsed().as_nanos() as u64,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Clock::Tsc => "TSC (constant and invariant; lfence-fenced rdtsc), ticks",
            Clock::Monotonic(_) => "clock_gettime(CLOCK_MONOTONIC), ns",
        }
    }
}

/// What one dudect test measured.
#[derive(Debug, Clone)]
struct Outcome {
    classes: String,
    test: Figures,
    noise: Figures,
    stopped_by_budget: bool,
    errors: u64,
}

impl Outcome {
    fn timing(&self, s: &Setup) -> TimingTest {
        TimingTest {
            classes: self.classes.clone(),
            measurements: self.test.measurements,
            max_t: self.test.max_t,
            max_t_test: self.test.max_t_test.clone(),
            second_order_t: self.test.second_order_t,
            noise_floor_t: self.noise.worst(),
            stopped_by_budget: self.stopped_by_budget,
            timer: s.clock.name().into(),
            pinned_cpu: s.pinned_cpu,
        }
    }

    fn words(&self) -> String {
        let t = &self.test;
        let stop = if self.stopped_by_budget {
            format!("stopped at {} measurements by the budget", t.measurements)
        } else {
            format!(
                "stopped at {} measurements: |t| over {T_DEFINITELY}",
                t.measurements
            )
        };
        let errors = if self.errors > 0 {
            format!(", {} calls returned an error", self.errors)
        } else {
            String::new()
        };
        format!(
            "{}: max |t| {:.2} ({}), second-order |t| {:.2}, noise floor (A/A) |t| {:.2}; {stop}{errors}",
            self.classes,
            t.max_t,
            t.max_t_test,
            t.second_order_t,
            self.noise.worst()
        )
    }
}

/// The screen of one op, `None` where it has no meaningful classes here.
fn screen_op(
    k: &dyn Kem,
    op: Op,
    s: &Setup,
    rng: &mut rand::rngs::StdRng,
) -> Result<Option<ScreenResult>, KemError> {
    let a = k.meta().algorithm;
    let lens = k.seed_lens();
    let outcomes = match op {
        Op::Keygen => {
            let Some(len) = lens.keypair else {
                return replayed(k, op, s, rng);
            };
            let fixed = vec![pool(len, rng).swap_remove(0)];
            let random = pool(len, rng);
            let (mut pk, mut sk) = (vec![0; a.pk_len], vec![0; a.sk_len]);
            k.keypair_derand(&fixed[0], &mut pk, &mut sk)?;
            let mut call = |seed: &[u8]| k.keypair_derand(seed, &mut pk, &mut sk).is_err();
            vec![measure(
                "a fixed key-generation seed against random seeds (keypair_derand)",
                [&fixed, &random],
                &mut |_| {},
                &mut call,
                s.budget,
                s.clock,
                rng,
            )]
        }
        Op::Encaps => {
            let Some(len) = lens.encaps else {
                return replayed(k, op, s, rng);
            };
            let (pk, _sk) = k.keypair_vec()?;
            let fixed = vec![pool(len, rng).swap_remove(0)];
            let random = pool(len, rng);
            let (mut ct, mut ss) = (vec![0; a.ct_len], vec![0; a.ss_len]);
            k.encaps_derand(&pk, &fixed[0], &mut ct, &mut ss)?;
            let mut call = |seed: &[u8]| k.encaps_derand(&pk, seed, &mut ct, &mut ss).is_err();
            vec![measure(
                "a fixed encapsulation seed against random seeds (encaps_derand), one public key",
                [&fixed, &random],
                &mut |_| {},
                &mut call,
                s.budget,
                s.clock,
                rng,
            )]
        }
        Op::Decaps => {
            if k.single_use_keys() {
                return Ok(None);
            }
            let (pk, mut sk) = k.keypair_kept_vec()?;
            let mut valid = Vec::with_capacity(POOL + 1);
            for _ in 0..=POOL {
                let (mut ct, mut ss) = (vec![0; a.ct_len], vec![0; a.ss_len]);
                k.encaps(&pk, &mut ct, &mut ss)?;
                valid.push(ct);
            }
            let fixed = vec![valid.pop().expect("POOL + 1 ciphertexts")];
            let invalid = pool(a.ct_len, rng);
            let mut ss = vec![0; a.ss_len];
            k.decaps_kept(&mut sk, &fixed[0], &mut ss)?;
            let mut call = |ct: &[u8]| k.decaps_kept(&mut sk, ct, &mut ss).is_err();
            // Valid against invalid ciphertexts only where the scheme promises implicit
            // rejection: a key exchange (X25519, P-256, FFDH) rejects an invalid peer value
            // openly, on a public input, and that difference in time says nothing secret.
            let rejects = a.implicit_rejection;
            let first = measure(
                "a fixed valid ciphertext against random valid ones, one key",
                [&fixed, &valid],
                &mut |_| {},
                &mut call,
                if rejects { s.budget / 2 } else { s.budget },
                s.clock,
                rng,
            );
            if !rejects {
                return Ok(Some(result(op, s, &[first])));
            }
            let second = measure(
                "random valid ciphertexts against random bytes (implicit rejection), one key",
                [&valid, &invalid],
                &mut |_| {},
                &mut call,
                s.budget / 2,
                s.clock,
                rng,
            );
            vec![first, second]
        }
        _ => return Ok(None),
    };
    Ok(Some(result(op, s, &outcomes)))
}

/// The seed of the draws replayed in one call of keygen or encaps.
fn replay_seed(seed: &[u8]) -> [u8; 32] {
    seed.try_into().expect("replay seeds are 32 bytes")
}

/// Keygen or encaps of an implementation without the derandomized entry point: its own random
/// draws, fixed by [`Kem::fix_randomness`] and replayed from a seed installed (untimed) just
/// before each call, a fixed seed against random ones (encaps to one public key). The draws
/// are checked to replay first: the same seed twice must give the same output. Where they are
/// not fixed, or do not replay (a library generator that the seed only starts, as aws-lc's
/// per-thread DRBG), the result is not screened and says why in one sentence.
fn replayed(
    k: &dyn Kem,
    op: Op,
    s: &Setup,
    rng: &mut rand::rngs::StdRng,
) -> Result<Option<ScreenResult>, KemError> {
    let fixed = vec![rng.random::<[u8; 32]>().to_vec()];
    let random = pool(32, rng);
    // The reasons name no operation: keygen's and encaps' read as one cause.
    let fix = k.fix_randomness(&replay_seed(&fixed[0]));
    if !fix.is_fixed() {
        let why = format!(
            "no derandomized entry point (keypair_derand, encaps_derand) and random draws that \
             cannot be fixed, so no fixed class can be made: {}",
            fix.how()
        );
        return Ok(Some(ScreenResult::not_screened(Screen::Timing, op, why)));
    }
    let pk = match op {
        Op::Encaps => k.keypair_kept_vec()?.0,
        _ => Vec::new(),
    };
    let once = |seed: &[u8]| -> Result<Vec<u8>, KemError> {
        crate::providers::seeded::install(&replay_seed(seed));
        match op {
            Op::Keygen => Ok(k.keypair_kept_vec()?.0),
            _ => Ok(k.encaps_vec(&pk)?.0),
        }
    };
    if once(&fixed[0])? != once(&fixed[0])? {
        let why = format!(
            "no derandomized entry point (keypair_derand, encaps_derand), and its draws do not \
             replay: the same seed installed before two calls gave two different outputs (the \
             seed only starts a generator of the library's own), so no fixed class can be made; \
             its draws: {}",
            fix.how()
        );
        return Ok(Some(ScreenResult::not_screened(Screen::Timing, op, why)));
    }
    let a = k.meta().algorithm;
    let (mut out, mut ct, mut ss) = (vec![0; a.pk_len], vec![0; a.ct_len], vec![0; a.ss_len]);
    let mut kept = None;
    let mut prepare = |seed: &[u8]| crate::providers::seeded::install(&replay_seed(seed));
    let mut call = |_: &[u8]| match op {
        Op::Keygen => {
            // The previous call's key is dropped here, in both classes alike.
            kept = k.keypair_kept(&mut out).ok();
            kept.is_none()
        }
        _ => k.encaps(&pk, &mut ct, &mut ss).is_err(),
    };
    let classes = match op {
        Op::Keygen => {
            "a fixed seed of the library's own draws against random seeds (every draw of key \
             generation replayed from kembench's seeded stream, the seed installed untimed \
             before each call)"
        }
        _ => {
            "a fixed seed of the library's own draws against random seeds (every draw of \
             encapsulation replayed from kembench's seeded stream, the seed installed untimed \
             before each call), one public key"
        }
    };
    let outcome = measure(
        classes,
        [&fixed, &random],
        &mut prepare,
        &mut call,
        s.budget,
        s.clock,
        rng,
    );
    drop(kept);
    // Later preparations (decaps' pool of ciphertexts) draw afresh.
    crate::providers::seeded::install(&rng.random());
    Ok(Some(result(op, s, &[outcome])))
}

/// [`POOL`] random byte strings of `len` bytes.
fn pool(len: usize, rng: &mut rand::rngs::StdRng) -> Vec<Vec<u8>> {
    (0..POOL)
        .map(|_| (0..len).map(|_| rng.random()).collect())
        .collect()
}

/// The record of one op from its tests: the worst test in `timing`, every test in `how`, a
/// finding for each test that says it leaks.
fn result(op: Op, s: &Setup, outcomes: &[Outcome]) -> ScreenResult {
    let worst = outcomes
        .iter()
        .max_by(|a, b| a.test.worst().total_cmp(&b.test.worst()))
        .expect("at least one test");
    let timing = worst.timing(s);
    let mut how: Vec<String> = outcomes.iter().map(Outcome::words).collect();
    if outcomes.len() > 1 {
        how.push("each test had half the budget; the figures recorded are the worse test's".into());
    }
    how.push(format!(
        "the noise floor is the same test on two random halves of the first class (an A/A \
         test): {:.2} here; dudect's thresholds are 10 (probably leaks) and 500 (definitely), \
         with no verdict below {MIN_MEASUREMENTS} measurements; verdict: {}",
        timing.noise_floor_t,
        timing.verdict()
    ));
    let findings = outcomes
        .iter()
        .filter(|o| o.timing(s).leaks())
        .map(|o| Finding {
            kind: FindingKind::Timing,
            function: String::new(),
            stack: Vec::new(),
            object: None,
            line: None,
            count_per_call: 1,
            secret_operands: None,
            detail: o.words(),
            explained: None,
        })
        .collect();
    ScreenResult {
        screen: Screen::Timing,
        operation: op,
        ran: Ran::Screened,
        how: how.join("; "),
        findings,
        timing: Some(timing),
    }
}

/// dudect's loop: `prepare(input)` runs untimed before each call (it installs the seed of a
/// replayed draw), `call(input)` runs the operation on one input and says whether it returned
/// an error. Per batch, the class of each measurement is drawn at random and its input (one of
/// `pools[class]`, at random) copied into a slot of its own, as dudect's reference code
/// prepares its inputs, so that both classes are read from the same kind of freshly written
/// memory (a fixed input read from one place would be hotter in the caches than a pool's);
/// then the batch is timed in a row and pushed to the statistics. Until `budget` is spent, or
/// |t| passes [`T_DEFINITELY`] with enough measurements.
fn measure(
    classes: &str,
    pools: [&[Vec<u8>]; 2],
    prepare: &mut dyn FnMut(&[u8]),
    call: &mut dyn FnMut(&[u8]) -> bool,
    budget: Duration,
    clock: Clock,
    rng: &mut rand::rngs::StdRng,
) -> Outcome {
    let start = Instant::now();
    let len = pools[0][0].len();
    let n = BATCH.max(FIRST_BATCH);
    let mut slots = vec![0u8; n * len];
    let mut plan = Vec::with_capacity(n);
    let mut times = Vec::with_capacity(n);
    let mut errors = 0u64;
    let mut batch = |n: usize, rng: &mut rand::rngs::StdRng| {
        plan.clear();
        for slot in slots.chunks_exact_mut(len).take(n) {
            let class = rng.random_range(0..2usize);
            let pool = pools[class];
            slot.copy_from_slice(&pool[rng.random_range(0..pool.len())]);
            plan.push(class);
        }
        times.clear();
        for (slot, &class) in slots.chunks_exact(len).zip(&plan) {
            prepare(slot);
            let t0 = clock.read();
            let failed = call(slot);
            let t1 = clock.read();
            errors += u64::from(failed);
            times.push((t1.wrapping_sub(t0) as f64, class));
        }
        times.clone()
    };
    // Sizes from a warm-up of a few calls, so that a slow operation (Classic McEliece's key
    // generation) still gets a first batch and several batches within its budget.
    let warm = batch(WARM_UP, rng);
    let per_call = (start.elapsed().as_secs_f64() / WARM_UP as f64).max(1e-9);
    let fit = |share: f64, most: usize| {
        ((budget.as_secs_f64() * share / per_call) as usize).clamp(MIN_BATCH, most)
    };
    let (first_n, batch_n) = (fit(0.1, FIRST_BATCH), fit(0.05, BATCH));
    drop(warm);
    let first: Vec<f64> = batch(first_n, rng).iter().map(|t| t.0).collect();
    let thresholds = crop_thresholds(&first, NUMBER_PERCENTILES);
    let mut test = Dudect::new(thresholds.clone());
    let mut noise = Dudect::new(thresholds);
    let stopped_by_budget = loop {
        if start.elapsed() >= budget {
            break true;
        }
        for (x, class) in batch(batch_n, rng) {
            test.push(x, class);
            if class == 0 {
                noise.push(x, rng.random_range(0..2));
            }
        }
        let f = test.figures();
        if f.measurements >= MIN_MEASUREMENTS && f.worst() > T_DEFINITELY {
            break false;
        }
    };
    Outcome {
        classes: classes.into(),
        test: test.figures(),
        noise: noise.figures(),
        stopped_by_budget,
        errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::Registry;

    fn mock(name: &str) -> std::sync::Arc<dyn Kem> {
        Registry::new(true)
            .get(&format!("MockKEM@mock/{name}"))
            .expect("the mock")
    }

    #[test]
    fn a_foreign_build_is_not_screened_and_a_missing_seed_says_why() {
        let k = mock("correct");
        assert!(why_not(k.as_ref(), Op::Keygen).contains("keypair_derand"));
        let ops = [Op::Keygen, Op::Decaps];
        let r = not_screened_all(&ops, "x");
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].operation, Op::Decaps);
    }

    #[test]
    fn an_op_without_classes_is_not_screened() {
        let k = mock("correct");
        let r = screen_here(
            k.as_ref(),
            &[Op::PkImport],
            Duration::from_millis(10),
            1,
            None,
        );
        assert!(matches!(r[0].ran, Ran::NotScreened(_)), "{r:?}");
    }

    #[test]
    fn a_short_budget_gives_no_verdict_and_says_where_it_stopped() {
        let k = mock("correct");
        let r = screen_here(k.as_ref(), &[Op::Decaps], Duration::from_millis(1), 1, None);
        let t = r[0].timing.as_ref().expect("figures");
        assert!(t.stopped_by_budget);
        assert!(t.measurements < MIN_MEASUREMENTS, "{t:?}");
        assert!(t.verdict().starts_with("no verdict"), "{}", t.verdict());
        assert!(r[0].how.contains("stopped at"), "{}", r[0].how);
        assert!(r[0].findings.is_empty());
    }

    /// How the draws of [`NoDerand`] behave once fixed.
    #[derive(Clone, Copy)]
    enum Draws {
        /// As the mock's: from the seeded stream, replayed by installing the seed again.
        Seeded,
        /// Not fixable.
        NotFixed,
        /// Fixed once, but never the same twice (a generator the seed only starts).
        NoReplay,
    }

    /// The mock with its derandomized entry points hidden.
    struct NoDerand {
        inner: std::sync::Arc<dyn Kem>,
        draws: Draws,
        calls: std::sync::atomic::AtomicU8,
    }

    impl NoDerand {
        fn new(draws: Draws) -> NoDerand {
            NoDerand {
                inner: mock("correct"),
                draws,
                calls: std::sync::atomic::AtomicU8::new(0),
            }
        }

        fn drift(&self, out: &mut [u8]) {
            if matches!(self.draws, Draws::NoReplay) {
                out[0] ^= self
                    .calls
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                    .wrapping_add(1);
            }
        }
    }

    impl Kem for NoDerand {
        fn meta(&self) -> &crate::kem::ImplMeta {
            self.inner.meta()
        }

        fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
            self.inner.keypair_raw(pk, sk)?;
            self.drift(pk);
            Ok(())
        }

        fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
            self.inner.encaps_raw(pk, ct, ss)?;
            self.drift(ct);
            Ok(())
        }

        fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
            self.inner.decaps_raw(sk, ct, ss)
        }

        fn fix_randomness(&self, seed: &[u8; 32]) -> crate::kem::Randomness {
            match self.draws {
                Draws::NotFixed => crate::kem::Randomness::NotFixed(
                    "this test's library draws from a generator of its own that no hook reaches"
                        .into(),
                ),
                _ => self.inner.fix_randomness(seed),
            }
        }
    }

    fn replay_screen(draws: Draws) -> Vec<ScreenResult> {
        let _g = crate::providers::seeded::tests::LOCK
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let k = NoDerand::new(draws);
        let r = screen_here(
            &k,
            &[Op::Keygen, Op::Encaps],
            Duration::from_millis(20),
            1,
            None,
        );
        crate::providers::seeded::uninstall();
        crate::providers::os_random::capture(false);
        r
    }

    #[test]
    fn without_derandomized_entry_points_the_draws_are_replayed_for_the_fixed_class() {
        for r in replay_screen(Draws::Seeded) {
            assert_eq!(r.ran, Ran::Screened, "{r:?}");
            assert!(r.how.contains("replayed from kembench's seeded stream"), "{}", r.how);
            assert!(r.timing.is_some());
        }
    }

    #[test]
    fn draws_that_cannot_be_fixed_name_their_reason() {
        for r in replay_screen(Draws::NotFixed) {
            let Ran::NotScreened(why) = &r.ran else {
                panic!("{r:?}")
            };
            assert!(why.contains("cannot be fixed"), "{why}");
            assert!(why.contains("no hook reaches"), "the library's own reason: {why}");
        }
    }

    #[test]
    fn draws_that_do_not_replay_name_their_reason() {
        for r in replay_screen(Draws::NoReplay) {
            let Ran::NotScreened(why) = &r.ran else {
                panic!("{r:?}")
            };
            assert!(why.contains("do not replay"), "{why}");
        }
    }
}
