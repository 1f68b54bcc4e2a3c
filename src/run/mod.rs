//! `run`: measure every selected implementation, one at a time, after a quick correctness
//! check, on one worker thread with a large stack.

pub mod result;
pub mod suite;

use crate::kem::Kem;
use crate::measure::counters::Pmu;
use crate::measure::sampler::{self, Op, SamplerConfig};
use crate::measure::timer::Timers;
use crate::verify::{self, Outcome};
use result::{BenchResult, OperationResult};
use std::sync::Arc;

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
    /// Measuring `label`'s `op` now.
    Started(String, Op),
    /// One implementation is done.
    Finished(Box<BenchResult>),
}

/// Measures one implementation: quick check, then each operation.
pub fn bench_one(
    k: &dyn Kem,
    ops: &[Op],
    cfg: &SamplerConfig,
    timers: &Timers,
    pmu: &mut Result<Pmu, String>,
    mut started: impl FnMut(Op),
) -> BenchResult {
    let m = k.meta();
    let a = m.algorithm;
    let mut r = BenchResult {
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
    };
    if r.correctness.failed() {
        return r;
    }
    for &op in ops {
        started(op);
        let (p, missing) = match pmu {
            Ok(p) => (Some(p), ""),
            Err(why) => (None, why.as_str()),
        };
        match sampler::sample(k, op, cfg, timers, p, missing) {
            Ok(s) => r.operations.push(OperationResult::from_sampled(s)),
            Err(e) => {
                r.error = Some(format!("{op:?}: {e}"));
                break;
            }
        }
    }
    r.fill_shares();
    r
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
            for k in impls {
                let label = k.meta().label();
                let r = bench_one(k.as_ref(), &ops, &cfg, &timers, &mut pmu, |op| {
                    let _ = tx.send(Event::Started(label.clone(), op));
                });
                if tx.send(Event::Finished(Box::new(r))).is_err() {
                    break;
                }
            }
        })
        .expect("spawn the measuring thread")
}
