//! `run`: measure every selected implementation, one at a time, after a quick correctness
//! check, on one worker thread with a large stack.

pub mod result;
pub mod suite;

use crate::kem::Kem;
use crate::measure::counters::Pmu;
use crate::measure::sampler::{self, Op, SamplerConfig};
use crate::measure::timer::Timers;
use crate::verify::{self, Outcome};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use result::{BenchResult, OperationResult};
use std::sync::Arc;
use std::time::Duration;

/// The quick gate before timing: a few round trips and the canary check. The full gate is
/// `kembench verify`.
pub fn quick_check(k: &dyn Kem) -> Outcome {
    let opts = verify::Options {
        min_round_trips: 3,
        max_round_trips: 3,
        ..verify::Options::default()
    };
    match verify::guarded(|| verify::checks::round_trips(k, &opts)) {
        Outcome::Pass(_) => verify::guarded(|| verify::checks::canaries(k)),
        other => other,
    }
}

/// What the worker reports while it runs.
pub enum Event {
    /// Measuring `label`'s `op` now, in round `round` (0-based).
    Started(String, Op, usize),
    /// One implementation is done.
    Finished(Box<BenchResult>),
}

fn new_result(k: &dyn Kem) -> BenchResult {
    let m = k.meta();
    let a = m.algorithm;
    BenchResult {
        algorithm: a.name.to_string(),
        family: a.family.to_string(),
        nist_level: a.nist_level,
        implementation: m.implementation.clone(),
        version: m.version.clone(),
        pk_bytes: a.pk_len,
        sk_bytes: a.sk_len,
        ct_bytes: a.ct_len,
        ss_bytes: a.ss_len,
        wire_bytes: a.wire_bytes(),
        correctness: quick_check(k),
        operations: Vec::new(),
        error: None,
    }
}

/// Measures every implementation: quick checks, then `cfg.rounds` rounds in which every
/// (implementation, operation) gets its share of the budget in a freshly shuffled order, then
/// the counted, heap and stack phases. `emit` receives events as they happen.
pub fn measure_all(
    impls: &[Arc<dyn Kem>],
    ops: &[Op],
    cfg: &SamplerConfig,
    timers: &Timers,
    pmu: &mut Result<Pmu, String>,
    emit: &mut dyn FnMut(Event),
) {
    let rounds = cfg.rounds.max(1);
    let mut results: Vec<BenchResult> = impls.iter().map(|k| new_result(k.as_ref())).collect();
    // Prepared samplers: (implementation index, sampler).
    let mut samplers: Vec<(usize, sampler::OpSampler<'_>)> = Vec::new();
    for (i, k) in impls.iter().enumerate() {
        if results[i].correctness.failed() {
            continue;
        }
        for &op in ops {
            emit(Event::Started(k.meta().label(), op, 0));
            match sampler::OpSampler::prepare(k.as_ref(), op, cfg, timers) {
                Ok(s) => samplers.push((i, s)),
                Err(e) => {
                    results[i].error = Some(format!("{}: {e}", op.as_str()));
                    break;
                }
            }
        }
        samplers.retain(|(j, _)| results[*j].error.is_none() || *j != i);
    }
    let budget = Duration::from_secs_f64(cfg.time_budget_s / rounds as f64);
    let min_per_round = cfg.min_samples.div_ceil(rounds).max(3);
    let mut rng = SmallRng::seed_from_u64(0x6b656d62);
    let mut order: Vec<usize> = (0..samplers.len()).collect();
    for round in 0..rounds {
        order.shuffle(&mut rng);
        for &n in &order {
            let (i, s) = &mut samplers[n];
            if results[*i].error.is_some() || s.full(cfg) {
                continue;
            }
            emit(Event::Started(impls[*i].meta().label(), s.op(), round));
            if let Err(e) = s.round(cfg, budget, min_per_round, true) {
                results[*i].error = Some(format!("{}: {e}", s.op().as_str()));
            }
        }
    }
    let mut by_impl: Vec<Vec<sampler::OpSampler<'_>>> =
        (0..impls.len()).map(|_| Vec::new()).collect();
    for (i, s) in samplers {
        by_impl[i].push(s);
    }
    for (i, (mut r, ss)) in results.into_iter().zip(by_impl).enumerate() {
        if r.error.is_none() {
            for s in ss {
                let op = s.op();
                let (p, missing) = match pmu {
                    Ok(p) => (Some(p), ""),
                    Err(why) => (None, why.as_str()),
                };
                emit(Event::Started(impls[i].meta().label(), op, rounds));
                match s.finish(cfg, p, missing) {
                    Ok(sampled) => r.operations.push(OperationResult::from_sampled(sampled)),
                    Err(e) => {
                        r.error = Some(format!("{}: {e}", op.as_str()));
                        break;
                    }
                }
            }
        }
        r.fill_shares();
        emit(Event::Finished(Box::new(r)));
    }
}

/// Pins the calling thread to `cpu`; false when the OS refuses.
pub fn pin_current_thread(cpu: usize) -> bool {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET stays inside it (checked
    // against CPU_SETSIZE); pid 0 means the calling thread.
    unsafe {
        if cpu >= libc::CPU_SETSIZE as usize {
            return false;
        }
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// Runs every implementation in turn on a worker thread, sending events as it goes. With
/// `pin`, the worker is pinned to that CPU first (migrations between cores add noise).
pub fn spawn(
    impls: Vec<Arc<dyn Kem>>,
    ops: Vec<Op>,
    cfg: SamplerConfig,
    timers: Timers,
    pin: Option<usize>,
    tx: std::sync::mpsc::Sender<Event>,
) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("kembench-run".into())
        .stack_size(verify::WORKER_STACK)
        .spawn(move || {
            if let Some(cpu) = pin {
                pin_current_thread(cpu);
            }
            // Counters count the thread that opened them: open them here.
            let mut pmu = Pmu::open();
            measure_all(&impls, &ops, &cfg, &timers, &mut pmu, &mut |e| {
                let _ = tx.send(e);
            });
        })
        .expect("spawn the measuring thread")
}
