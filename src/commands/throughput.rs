//! `kembench throughput` and its hidden worker-process mode.

use super::store::Recorder;
use crate::cli::{FilterArgs, ThroughputArgs};
use crate::export::{write_atomic, Format};
use crate::kem::registry::{Filter, Registry};
use crate::kem::Kem;
use crate::measure::sampler::{self, Op, SamplerConfig};
use crate::measure::timer::Timers;
use crate::output::{num, table, units};
use crate::run::result::now_rfc3339;
use crate::store::{records, RunStatus};
use crate::throughput::calc::{self, Point};
use crate::throughput::record::{
    OpThroughput, ThroughputConfig, ThroughputRecord, ThroughputResult, SCHEMA_VERSION,
};
use crate::throughput::{run_processes, run_threads, worker_process};
use anyhow::{bail, Context};
use comfy_table::{Cell, Color};
use std::process::ExitCode;
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

fn select(registry: &Registry, filter: &FilterArgs) -> anyhow::Result<Vec<Arc<dyn Kem>>> {
    let f = filter.to_filter();
    if !f.algorithms.is_empty()
        || !f.implementations.is_empty()
        || f.family.is_some()
        || f.level.is_some()
    {
        return Ok(registry.select(&f)?);
    }
    Ok(DEFAULT_SET
        .iter()
        .filter_map(|l| {
            registry
                .all()
                .iter()
                .find(|k| k.meta().label() == *l)
                .cloned()
        })
        .collect())
}

fn measure_one(
    k: &Arc<dyn Kem>,
    ops: &[Op],
    args: &ThroughputArgs,
    include_mock: bool,
    timers: &Timers,
    threads: &[usize],
    cpus: usize,
) -> ThroughputResult {
    let m = k.meta();
    let mut r = ThroughputResult {
        algorithm: m.algorithm.name.to_string(),
        family: m.algorithm.family.to_string(),
        implementation: m.implementation.clone(),
        version: m.version.clone(),
        operations: Vec::new(),
        capacity: None,
        error: None,
    };
    if let crate::verify::Outcome::Fail(why) = crate::run::quick_check(k.as_ref()) {
        r.error = Some(format!("not measured: correctness check failed: {why}"));
        return r;
    }
    let duration = Duration::from_secs_f64(args.duration);
    let lat_cfg = SamplerConfig {
        time_budget_s: 0.3,
        warmup_s: 0.05,
        rounds: 1,
        ..SamplerConfig::default()
    };
    for &op in ops {
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
        for _ in 0..args.repeats {
            for (i, &n) in threads.iter().enumerate() {
                let raw = if args.processes {
                    run_processes(&m.label(), include_mock, op, n, duration, args.pin)
                } else {
                    run_threads(k, op, n, duration, args.pin, 16)
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
        let o = r.operations.iter().find(|o| o.operation == op)?;
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
        r.capacity = Some(calc::capacity(t, kg, enc, dec, args.target_rate));
    }
    r
}

/// Cores with enough digits to tell 0.02 from 0.
fn cores(c: f64) -> String {
    if c < 10.0 {
        format!("{c:.2}")
    } else {
        format!("{c:.1}")
    }
}

/// The console tables of a throughput run.
pub(super) fn print(record: &ThroughputRecord) {
    let mut t = table(&[
        "algorithm",
        "implementation",
        "op",
        "threads",
        "ops/s",
        "per-thread min – max",
        "speedup",
        "efficiency",
        "flags",
    ]);
    for r in &record.results {
        if let Some(e) = &r.error {
            t.add_row(vec![
                Cell::new(&r.algorithm),
                Cell::new(&r.implementation),
                Cell::new(e).fg(Color::Red),
            ]);
        }
        for o in &r.operations {
            for p in &o.points {
                let (min, max) = (p.min_thread_rate(), p.max_thread_rate());
                let mut flags: Vec<String> = p.flags.clone();
                if p.threads == 1 {
                    flags.extend(o.flags.iter().cloned());
                }
                t.add_row(vec![
                    Cell::new(&r.algorithm),
                    Cell::new(&r.implementation),
                    Cell::new(o.operation.as_str()),
                    num(p.threads),
                    num(units::count(p.total_ops_per_sec)),
                    num(format!("{} – {}", units::count(min), units::count(max))),
                    num(format!("{:.2}x", p.speedup)),
                    num(format!("{:.0}%", p.efficiency * 100.0)),
                    if flags.is_empty() {
                        Cell::new("")
                    } else {
                        Cell::new(flags.join("; ")).fg(Color::Red)
                    },
                ]);
            }
        }
    }
    println!("{t}");
    let caps: Vec<_> = record
        .results
        .iter()
        .filter_map(|r| r.capacity.as_ref().map(|c| (r, c)))
        .collect();
    if !caps.is_empty() {
        let mut c = table(&[
            "algorithm",
            "implementation",
            "server hs/s/core",
            "client hs/s/core",
            "server cores",
            "client cores",
            "basis",
        ]);
        for (r, cap) in caps {
            c.add_row(vec![
                Cell::new(&r.algorithm),
                Cell::new(&r.implementation),
                num(units::count(cap.server_handshakes_per_sec_per_core)),
                num(units::count(cap.client_handshakes_per_sec_per_core)),
                num(cores(cap.server_cores_for_target)),
                num(cores(cap.client_cores_for_target)),
                num(format!("{} threads", cap.basis_threads)),
            ]);
        }
        println!(
            "TLS 1.3 capacity: the server encapsulates, the client makes a key pair and decapsulates; cores needed for {} connections/s:",
            units::count(record.config.target_rate)
        );
        println!("{c}");
    }
    println!(
        "Efficiency = speedup / min(threads, {} logical CPUs). {}",
        record.environment.cpu.logical_cpus,
        if record.config.processes {
            "Mode: independent processes."
        } else {
            "Mode: threads in one process."
        }
    );
}

/// Runs `throughput`.
pub fn run(
    filter: &FilterArgs,
    args: &ThroughputArgs,
    store_spec: &str,
) -> anyhow::Result<ExitCode> {
    if !(args.duration > 0.0 && args.duration.is_finite()) {
        bail!(
            "--duration must be a positive number of seconds, got {}",
            args.duration
        );
    }
    if !(args.target_rate > 0.0 && args.target_rate.is_finite()) {
        bail!("--target-rate must be positive, got {}", args.target_rate);
    }
    args.output.check_dirs()?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = if args.threads.is_empty() {
        calc::default_threads(cpus)
    } else {
        args.threads.clone()
    };
    if !threads.contains(&1) {
        bail!("--threads must include 1: efficiency is measured against one thread");
    }
    let ops: Vec<Op> = if args.ops.is_empty() {
        vec![Op::Keygen, Op::Encaps, Op::Decaps, Op::Exchange]
    } else {
        args.ops.clone()
    };
    let registry = Registry::new(filter.include_mock);
    let impls = select(&registry, filter)?;
    args.output.check_dirs()?;
    let run_id = crate::store::new_run_id();
    let mut recorder = Recorder::open(store_spec, !args.no_store, &run_id)?;
    let environment = super::environment_for(&impls);
    let timers = Timers::calibrate();
    let mut record = ThroughputRecord {
        schema_version: SCHEMA_VERSION,
        run_id: Some(run_id.clone()),
        kind: "kembench-throughput".into(),
        started_at: now_rfc3339(),
        finished_at: None,
        command_line: crate::store::recorded_command_line(),
        config: ThroughputConfig {
            threads: threads.clone(),
            duration_s: args.duration,
            repeats: args.repeats,
            pinned: args.pin,
            processes: args.processes,
            target_rate: args.target_rate,
            operations: ops.clone(),
            planned: impls.iter().map(|k| k.meta().label()).collect(),
        },
        environment,
        results: Vec::new(),
    };
    recorder.begin(records::throughput_row(&record));
    if let Some(at) = recorder.location() {
        println!("Run {run_id}, recorded in {at}");
    }
    let mut failed = false;
    for k in &impls {
        eprintln!("throughput: {} ...", k.meta().label());
        let r = measure_one(k, &ops, args, filter.include_mock, &timers, &threads, cpus);
        failed |= r.error.is_some();
        recorder.put(records::throughput_result(&r));
        record.results.push(r);
        save(&record, args)?;
    }
    record.finished_at = Some(now_rfc3339());
    recorder.finish(
        RunStatus::Complete,
        record.finished_at.as_deref(),
        records::throughput_row(&record).map(|r| r.header_json),
    );
    if !recorder.ok() {
        recorder.rescue(&record.to_json()?);
    }
    save(&record, args)?;
    print(&record);
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn save(record: &ThroughputRecord, args: &ThroughputArgs) -> anyhow::Result<()> {
    for (format, path) in args.output.files() {
        let bytes = match format {
            Format::Json => record.to_json()?,
            Format::Csv => record.to_csv()?,
            Format::Markdown => record.to_markdown()?,
        };
        write_atomic(&path, &bytes)?;
    }
    Ok(())
}

/// The hidden worker process of `throughput --processes`.
pub fn worker(
    label: &str,
    op: Op,
    duration: f64,
    pin_cpu: Option<usize>,
    include_mock: bool,
) -> anyhow::Result<ExitCode> {
    let registry = Registry::new(include_mock);
    let (alg, imp) = label
        .split_once('@')
        .context("label is algorithm@implementation")?;
    let f = Filter {
        algorithms: vec![alg.into()],
        implementations: vec![imp.into()],
        ..Filter::default()
    };
    let k = registry
        .select(&f)?
        .into_iter()
        .next()
        .context("no such implementation")?;
    worker_process(
        k.as_ref(),
        op,
        Duration::from_secs_f64(duration),
        pin_cpu,
        16,
    )?;
    Ok(ExitCode::SUCCESS)
}
