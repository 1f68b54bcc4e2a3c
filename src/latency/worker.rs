//! The benchmark worker: a `kembench run-worker` process that loads one implementation and
//! measures it on request, so that a crash or a hang in that implementation ends only this
//! process and never the run.

use super::protocol::{self, Init, Reply, Request};
use super::skeleton;
use crate::engine::cpu::pin_current_thread;
use crate::engine::quick_check;
use crate::measure::counters::Pmu;
use crate::kem::Op;
use crate::measure::sampler::OpSampler;
use crate::providers::registry::Registry;
use crate::record::latency::OperationResult;
use std::io::BufRead;
use std::time::Duration;

fn send(r: &Reply) -> std::io::Result<()> {
    protocol::WIRE.send(r)
}

fn next(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
) -> anyhow::Result<Option<Request>> {
    match lines.next() {
        None => Ok(None),
        Some(line) => {
            let line = line?;
            match protocol::WIRE.decode(&line) {
                Some(request) => Ok(Some(request?)),
                None => anyhow::bail!("not a request: {line:?}"),
            }
        }
    }
}

/// Serves requests from stdin until `Finish` or the end of input, on a stack of at least
/// [`MEGABYTE_KEYS_STACK`](crate::kem::MEGABYTE_KEYS_STACK) (megabyte keys are returned by
/// value in some libraries).
///
/// The supervisor starts workers with that stack limit, so the process's main thread measures,
/// as a bare C loop's does: on a spawned thread (a stack and an allocator arena of its own, in
/// mapped memory) the same liboqs calls ran about 1% slower on this kind of machine. A worker
/// started without the limit measures on a spawned thread with a stack of that size.
pub fn serve() -> anyhow::Result<()> {
    let panicked = |_| anyhow::anyhow!("the measuring thread panicked");
    if main_stack_is_large_enough() {
        return std::panic::catch_unwind(serve_here).map_err(panicked)?;
    }
    std::thread::Builder::new()
        .name("kembench-worker".into())
        .stack_size(crate::kem::MEGABYTE_KEYS_STACK)
        .spawn(serve_here)?
        .join()
        .map_err(panicked)?
}

/// Whether the main thread's stack may grow to
/// [`MEGABYTE_KEYS_STACK`](crate::kem::MEGABYTE_KEYS_STACK) (the soft `RLIMIT_STACK`, which
/// Linux applies to the main thread's stack).
fn main_stack_is_large_enough() -> bool {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into `r`.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut r) } == 0;
    ok && (r.rlim_cur == libc::RLIM_INFINITY
        || r.rlim_cur >= crate::kem::MEGABYTE_KEYS_STACK as u64)
}

fn serve_here() -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let init: Init = match next(&mut lines)? {
        Some(Request::Init(i)) => *i,
        Some(other) => {
            send(&Reply::Fatal(format!("expected Init first, got {other:?}")))?;
            return Ok(());
        }
        None => return Ok(()),
    };
    let registry = Registry::new(init.include_mock);
    let Some(k) = registry.get(&init.label) else {
        send(&Reply::Fatal(format!(
            "{} is not an implementation in this build",
            init.label
        )))?;
        return Ok(());
    };
    if let Some(cpu) = init.pin {
        pin_current_thread(cpu);
    }
    // Counters count the thread that opened them: open them here.
    let mut pmu = Pmu::open();
    send(&Reply::Ready)?;

    let cfg = &init.cfg;
    let rounds = cfg.rounds.max(1);
    let budget = Duration::from_secs_f64(cfg.time_budget_s / rounds as f64);
    let min_per_round = cfg.min_samples.div_ceil(rounds).max(3);
    let mut result = skeleton(
        k.as_ref(),
        crate::verify::Outcome::Skip("not checked yet".into()),
    );
    let mut samplers: Vec<OpSampler<'_>> = Vec::new();
    while let Some(req) = next(&mut lines)? {
        match req {
            Request::Init(_) => send(&Reply::Fatal("Init sent twice".into()))?,
            Request::Prepare => {
                result.correctness = quick_check(k.as_ref());
                if !result.correctness.failed() {
                    result.error = Op::none_offered(&init.ops, k.as_ref());
                    // Import operations exist only where the library has the step.
                    for op in init
                        .ops
                        .iter()
                        .copied()
                        .filter(|op| op.offered_by(k.as_ref()))
                    {
                        match OpSampler::prepare(k.as_ref(), op, cfg, &init.timers) {
                            Ok(s) => samplers.push(s),
                            Err(e) => {
                                result.error = Some(format!("{}: {e}", op.as_str()));
                                samplers.clear();
                                break;
                            }
                        }
                    }
                }
                send(&Reply::Prepared {
                    ops: samplers.iter().map(|s| s.op()).collect(),
                    result: Box::new(result.clone()),
                })?;
            }
            Request::Round { op, .. } => {
                let mut error = None;
                if let Some(s) = samplers.iter_mut().find(|s| s.op() == op) {
                    if !s.full(cfg) {
                        if let Err(e) = s.round(cfg, budget, min_per_round, true) {
                            error = Some(format!("{}: {e}", op.as_str()));
                        }
                    }
                }
                if let Some(e) = &error {
                    result.error = Some(e.clone());
                    samplers.clear();
                }
                send(&Reply::RoundDone { error })?;
            }
            Request::Finish => {
                let missing = pmu.as_ref().err().cloned().unwrap_or_default();
                for s in samplers.drain(..) {
                    // An operation that never got a round (Ctrl-C came first) has nothing to
                    // summarise.
                    if s.samples() == 0 {
                        continue;
                    }
                    let op = s.op();
                    match s.finish(cfg, pmu.as_mut().ok(), &missing) {
                        Ok(sampled) => result
                            .operations
                            .push(OperationResult::from_sampled(sampled)),
                        Err(e) => {
                            result.error = Some(format!("{}: {e}", op.as_str()));
                            break;
                        }
                    }
                }
                result.fill_shares();
                send(&Reply::Finished(Box::new(result)))?;
                return Ok(());
            }
        }
    }
    Ok(())
}
