//! The latency engine, `kembench run` (its records are [`crate::record::latency`]): measure every
//! selected implementation after a quick correctness check, each in its
//! own worker process (a crash or hang there ends only that benchmark), in interleaved rounds.
#![cfg(feature = "app")]

pub mod protocol;
pub mod supervisor;
pub mod worker;

use crate::engine::ended::{failure, Ended};
use crate::kem::Kem;
use crate::kem::Op;
use crate::measure::sampler::SamplerConfig;
use crate::measure::timer::Timers;
use crate::record::latency::{BenchResult};
use crate::record::{Failure};
use crate::record::Benchmark;
use crate::verify::Outcome;
use protocol::{Init, Reply, Request};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use supervisor::Worker;

/// What `measure_all` reports while it runs.
pub enum Event {
    /// Now working on `label`: `what` (`preparing`, `encaps round 2/5`, ...).
    Step(String, String),
    /// One benchmark is done (measured, failed, or stopped); store it now.
    Finished(Box<BenchResult>),
}

/// A result with the implementation's sizes and no measurements yet.
pub fn skeleton(k: &dyn Kem, correctness: Outcome) -> BenchResult {
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
        correctness,
        operations: Vec::new(),
        error: None,
        failure: None,
    }
}

/// What to measure and how.
pub struct Plan {
    /// The implementations (the parent reads only their descriptions).
    pub impls: Vec<Arc<dyn Kem>>,
    /// Operations.
    pub ops: Vec<Op>,
    /// Sampling knobs.
    pub cfg: SamplerConfig,
    /// The run's timer calibration.
    pub timers: Timers,
    /// CPU the measuring threads are pinned to.
    pub pin: Option<usize>,
    /// Whether the mock implementations are offered (workers must build the same registry).
    pub include_mock: bool,
    /// Longest a worker may take over one step.
    pub step_timeout: Duration,
    /// The kembench binary that workers run.
    pub exe: PathBuf,
}

/// One benchmark in flight.
struct Slot {
    worker: Option<Worker>,
    result: BenchResult,
    ops: Vec<Op>,
    /// Emitted (finished, failed or never started).
    done: bool,
}

impl Slot {
    fn fail(&mut self, ended: &Ended, during: &str, emit: &mut dyn FnMut(Event)) {
        if let Some(mut w) = self.worker.take() {
            w.kill();
        }
        self.result.failure = Some(failure(ended, during));
        self.done = true;
        emit(Event::Finished(Box::new(self.result.clone())));
    }

    fn call(
        &mut self,
        req: &Request,
        plan: &Plan,
        abort: &dyn Fn() -> bool,
        during: &str,
        emit: &mut dyn FnMut(Event),
    ) -> Option<Reply> {
        let w = self.worker.as_mut()?;
        match w.call(req, plan.step_timeout, abort) {
            Ok(Reply::Fatal(why)) => {
                self.fail(&Ended::Garbled(why), during, emit);
                None
            }
            Ok(r) => Some(r),
            Err(e) => {
                self.fail(&e, during, emit);
                None
            }
        }
    }
}

/// Measures every implementation of `plan`: each in a worker process that checks it and
/// prepares its inputs, then `rounds` rounds in which every (implementation, operation) gets
/// its share of the budget in a freshly shuffled order, then the counted, heap and stack
/// phases. A crash or a timeout ends that benchmark only, with the failure recorded. The
/// first Ctrl-C (`interrupts` ≥ 1) stops after the step in progress and summarises what was
/// sampled; the second kills the workers at once. Returns whether the run was interrupted.
pub fn measure_all(plan: &Plan, interrupts: &AtomicUsize, emit: &mut dyn FnMut(Event)) -> bool {
    let stopping = || interrupts.load(Ordering::SeqCst) >= 1;
    let abort = || interrupts.load(Ordering::SeqCst) >= 2;
    let rounds = plan.cfg.rounds.max(1);
    let mut slots: Vec<Slot> = plan
        .impls
        .iter()
        .map(|k| Slot {
            worker: None,
            result: skeleton(
                k.as_ref(),
                Outcome::Skip("not checked: the benchmark did not start".into()),
            ),
            ops: Vec::new(),
            done: false,
        })
        .collect();

    for (slot, k) in slots.iter_mut().zip(&plan.impls) {
        if stopping() {
            break;
        }
        let label = k.meta().label();
        emit(Event::Step(label.clone(), "preparing".into()));
        let init = Init {
            label,
            include_mock: plan.include_mock,
            ops: plan.ops.clone(),
            cfg: plan.cfg.clone(),
            timers: plan.timers,
            pin: plan.pin,
        };
        match Worker::start(&plan.exe, &init, plan.step_timeout, &abort) {
            Ok(w) => slot.worker = Some(w),
            Err(e) => {
                slot.fail(&e, "start", emit);
                continue;
            }
        }
        if let Some(Reply::Prepared { ops, result }) =
            slot.call(&Request::Prepare, plan, &abort, "prepare", emit)
        {
            slot.result = *result;
            slot.ops = ops;
            if slot.ops.is_empty() {
                // Failed its check, or preparing failed: nothing to time.
                slot.worker = None;
                slot.done = true;
                emit(Event::Finished(Box::new(slot.result.clone())));
            }
        }
    }

    let mut order: Vec<(usize, Op)> = slots
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.ops.iter().map(move |&op| (i, op)))
        .collect();
    let mut rng = SmallRng::seed_from_u64(0x6b656d62);
    let mut rounds_done = 0;
    'rounds: for round in 0..rounds {
        order.shuffle(&mut rng);
        for &(i, op) in &order {
            if stopping() {
                break 'rounds;
            }
            let slot = &mut slots[i];
            if slot.done || slot.result.error.is_some() {
                continue;
            }
            let during = format!("{} round {}/{rounds}", op.as_str(), round + 1);
            emit(Event::Step(slot.result.label(), during.clone()));
            if let Some(Reply::RoundDone { error: Some(e) }) =
                slot.call(&Request::Round { op, round }, plan, &abort, &during, emit)
            {
                slot.result.error = Some(e);
            }
        }
        rounds_done = round + 1;
    }

    let interrupted = stopping();
    for slot in slots.iter_mut().filter(|s| !s.done) {
        if slot.worker.is_none() {
            // Never started: Ctrl-C came first.
            slot.result.failure = Some(Failure::interrupted(
                "waiting to start",
                "Ctrl-C stopped the run before this benchmark started",
            ));
            slot.done = true;
            emit(Event::Finished(Box::new(slot.result.clone())));
            continue;
        }
        if abort() {
            slot.fail(&Ended::Aborted, "finish", emit);
            continue;
        }
        emit(Event::Step(
            slot.result.label(),
            "counters, heap, stack".into(),
        ));
        if let Some(Reply::Finished(mut r)) =
            slot.call(&Request::Finish, plan, &abort, "finish", emit)
        {
            if rounds_done < rounds {
                r.failure = Some(Failure::interrupted(
                    format!("round {}/{rounds}", rounds_done + 1),
                    format!(
                        "Ctrl-C stopped the run after {rounds_done} of {rounds} rounds; the statistics cover the samples taken"
                    ),
                ));
            }
            slot.worker = None;
            slot.done = true;
            emit(Event::Finished(r));
        }
    }
    interrupted
}
