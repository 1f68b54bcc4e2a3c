//! Measuring one implementation's throughput: latency first, then every thread count in
//! rotation, then the capacity figures. Takes the run's plain configuration; nothing here
//! knows the command line.

use super::{run_processes, run_threads};
use crate::kem::Kem;
use crate::kem::Op;
use crate::measure::sampler::{self, SamplerConfig};
use crate::measure::timer::Timers;
use crate::providers::{Filter, Registry, SelectError};
use crate::record::scaling::calc;
use crate::record::scaling::Point;
use crate::record::throughput::{OpThroughput, ThroughputConfig, ThroughputResult};
use std::sync::Arc;
use std::time::Duration;

/// Implementations measured when no filter is given: the TLS key exchanges operators choose
/// between, with the classical baselines.
pub const DEFAULT_SET: &[&str] = &[
    "ML-KEM-768@liboqs",
    "ML-KEM-768@aws-lc",
    "X25519MLKEM768@openssl",
    "X25519@aws-lc",
    "P-256@aws-lc",
    "ffdhe2048@openssl",
];

/// The filters' selection, or [`DEFAULT_SET`] (what this build has of it) without filters.
pub fn select(registry: &Registry, filter: &Filter) -> Result<Vec<Arc<dyn Kem>>, SelectError> {
    if filter.is_empty() {
        Ok(DEFAULT_SET.iter().filter_map(|l| registry.get(l)).collect())
    } else {
        registry.select(filter)
    }
}

/// Measures one implementation: its single-call latency, then every operation of `cfg` at
/// every thread (or process) count in rotation, `cfg.repeats` times, and its TLS capacity.
/// Correctness is checked first; an implementation that fails is not measured. When `stop`
/// says so (Ctrl-C, SIGTERM), it stops after the thread count in progress and returns the
/// operations measured whole, marked `interrupted`.
pub fn measure_one(
    k: &Arc<dyn Kem>,
    cfg: &ThroughputConfig,
    include_mock: bool,
    timers: &Timers,
    cpus: usize,
    stop: &dyn Fn() -> bool,
) -> ThroughputResult {
    let (ops, threads) = (&cfg.operations, &cfg.threads);
    let m = k.meta();
    let mut r = ThroughputResult {
        algorithm: m.algorithm.name.to_string(),
        family: m.algorithm.family.to_string(),
        implementation: m.implementation.clone(),
        version: m.version.clone(),
        operations: Vec::new(),
        capacity: None,
        error: None,
        interrupted: false,
    };
    if let crate::verify::Outcome::Fail(why) = crate::engine::quick_check(k.as_ref()) {
        r.error = Some(format!("not measured: correctness check failed: {why}"));
        return r;
    }
    let duration = Duration::from_secs_f64(cfg.duration_s);
    let lat_cfg = SamplerConfig {
        time_budget_s: 0.3,
        warmup_s: 0.05,
        rounds: 1,
        ..SamplerConfig::default()
    };
    // Import operations exist only where the library has the step. Single-use keys (ephemeral
    // key shares) cannot be decapsulated in a sustained loop without making new keys inside
    // it, so their decapsulation is left to `exchange` here (the README says so).
    let measurable =
        |op: Op| op.offered_by(k.as_ref()) && !(op == Op::Decaps && k.single_use_keys());
    if !ops.iter().any(|&op| measurable(op)) {
        let why: Vec<String> = ops
            .iter()
            .map(|&op| {
                op.not_offered(k.as_ref()).unwrap_or_else(|| {
                    "decaps: its keys are single-use (an ephemeral key share is decapsulated \
                     once): measured within exchange"
                        .into()
                })
            })
            .collect();
        r.error = Some(format!("nothing to measure: {}", why.join("; ")));
        return r;
    }
    for op in ops.iter().copied().filter(|&op| measurable(op)) {
        let latency = match sampler::sample(k.as_ref(), op, &lat_cfg, timers, None, "") {
            Ok(s) => crate::stats::median(&s.samples_ns),
            Err(e) => {
                r.error = Some(format!("{}: {e}", op.as_str()));
                return r;
            }
        };
        // Every thread count once per repeat, in rotation: a machine whose speed drifts then
        // affects all counts alike instead of flattering one of them.
        let mut raws: Vec<Vec<Vec<(u64, f64)>>> = vec![Vec::new(); threads.len()];
        for _ in 0..cfg.repeats {
            for (i, &n) in threads.iter().enumerate() {
                if stop() {
                    r.interrupted = true;
                    return r;
                }
                let raw = if cfg.processes {
                    run_processes(&m.label(), include_mock, op, n, duration, cfg.pinned)
                } else {
                    run_threads(k, op, n, duration, cfg.pinned, 16)
                };
                match raw {
                    Ok(raw) => raws[i].push(raw),
                    Err(e) => {
                        r.error = Some(format!("{} at {n} threads: {e}", op.as_str()));
                        return r;
                    }
                }
            }
        }
        let mut points: Vec<Point> = Vec::new();
        for (i, &n) in threads.iter().enumerate() {
            let (raw, totals) = calc::median_repeat(&raws[i]);
            let one = points
                .first()
                .filter(|p| p.threads == 1)
                .map(|p| p.total_ops_per_sec);
            let mut p = calc::point(n, raw, one, cpus);
            p.repeat_totals_ops_per_sec = totals;
            points.push(p);
        }
        let (ratio, flag) = match points.iter().find(|p| p.threads == 1) {
            Some(p) => calc::latency_check(p.total_ops_per_sec, latency),
            None => (f64::NAN, None),
        };
        r.operations.push(OpThroughput {
            operation: op,
            latency_median_ns: latency,
            one_thread_vs_latency: ratio,
            points,
            flags: flag.into_iter().collect(),
        });
    }
    // Capacity from the largest thread count not above the logical CPUs: per-core rates there
    // include what sharing the machine costs.
    let per_core = |op: Op| -> Option<(usize, f64)> {
        let o = r.op(op)?;
        let p = o
            .points
            .iter()
            .filter(|p| p.threads <= cpus)
            .max_by_key(|p| p.threads)?;
        Some((p.threads, p.total_ops_per_sec / p.threads as f64))
    };
    if let (Some((t, kg)), Some((_, enc)), Some((_, dec))) = (
        per_core(Op::Keygen),
        per_core(Op::Encaps),
        per_core(Op::Decaps),
    ) {
        r.capacity = Some(calc::capacity(t, kg, enc, dec, cfg.target_rate));
    }
    r
}
