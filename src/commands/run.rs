//! `kembench run`: measure, show a table, write result files as each benchmark finishes.

use super::store::Recorder;
use crate::cli::{FilterArgs, RunArgs};
use crate::export;
use crate::kem::registry::Registry;
use crate::kem::Kem;
use crate::measure::counters::{Counters, Pmu};
use crate::measure::heap;
use crate::measure::sampler::{Op, SamplerConfig, StopReason};
use crate::measure::timer::Timers;
use crate::output::{num, table, units};
use crate::record::Record;
use crate::run::result::{
    now_rfc3339, BenchResult, FailureKind, OperationResult, RunConfig, RunRecord, SCHEMA_VERSION,
};
use crate::run::{self, suite, Event};
use crate::store::{self, records, RunStatus, Store};
use anyhow::{bail, Context};
use comfy_table::{Cell, Color};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::HashSet;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Picks the implementations: the filters when given, else `--all` or the default suite.
fn select(
    registry: &Registry,
    filter: &FilterArgs,
    all: bool,
) -> anyhow::Result<(Vec<Arc<dyn Kem>>, String)> {
    let f = filter.to_filter();
    let filtered = !f.algorithms.is_empty()
        || !f.implementations.is_empty()
        || f.family.is_some()
        || f.level.is_some();
    if filtered {
        return Ok((registry.select(&f)?, "filtered".into()));
    }
    if all {
        return Ok((registry.all().to_vec(), "all".into()));
    }
    let labels: Vec<String> = registry.all().iter().map(|k| k.meta().label()).collect();
    let (chosen, missing) = suite::resolve(&labels);
    for m in &missing {
        eprintln!("warning: default suite entry {m} is not available in this build; skipped");
    }
    let impls = chosen
        .iter()
        .filter_map(|c| {
            registry
                .all()
                .iter()
                .find(|k| &k.meta().label() == c)
                .cloned()
        })
        .collect();
    Ok((impls, "default".into()))
}

fn sampler_config(a: &RunArgs) -> anyhow::Result<SamplerConfig> {
    if !(a.time_budget > 0.0 && a.time_budget.is_finite()) {
        bail!(
            "--time-budget must be a positive number of seconds, got {}",
            a.time_budget
        );
    }
    if !(a.warmup >= 0.0 && a.warmup.is_finite()) {
        bail!(
            "--warmup must be zero or a positive number of seconds, got {}",
            a.warmup
        );
    }
    if !(a.precision > 0.0 && a.precision < 100.0) {
        bail!(
            "--precision is a percentage between 0 and 100, got {}",
            a.precision
        );
    }
    if a.max_samples < a.min_samples {
        bail!(
            "--max-samples ({}) is below --min-samples ({})",
            a.max_samples,
            a.min_samples
        );
    }
    Ok(SamplerConfig {
        time_budget_s: a.time_budget,
        min_samples: a.min_samples as usize,
        max_samples: a.max_samples as usize,
        warmup_s: a.warmup,
        target_precision: a.precision / 100.0,
        rounds: a.rounds as usize,
        ..SamplerConfig::default()
    })
}

/// Round medians further apart than this are pointed out: the machine's speed moved.
const DRIFT: f64 = 0.05;

fn note(o: &OperationResult) -> String {
    let mut n = Vec::new();
    match o.stop_reason {
        StopReason::Precision => {}
        StopReason::Budget => n.push("budget".to_string()),
        StopReason::MaxSamples => n.push("sample cap".to_string()),
        StopReason::BelowMinimum => n.push("BELOW MIN SAMPLES".to_string()),
        StopReason::RoundsDisagree => n.push("rounds disagree".to_string()),
    }
    if o.round_spread > DRIFT {
        n.push(format!(
            "rounds differ {:.0}%{}",
            o.round_spread * 100.0,
            o.best_round_median_ns
                .map_or(String::new(), |b| format!(", best round {}", units::ns(b)))
        ));
    }
    if o.batch > 1 {
        n.push(format!("×{} per sample", o.batch));
    }
    n.join(", ")
}

/// The console table of a run's results.
pub(super) fn print_table(results: &[BenchResult]) {
    let mut t = table(&[
        "algorithm",
        "implementation",
        "op",
        "median",
        "±CI95",
        "p25 – p75",
        "ops/s",
        "TSC ticks",
        "cycles",
        "peak heap",
        "allocs",
        "stack",
        "share",
        "n",
        "note",
    ]);
    for r in results {
        let failure = r.failure.as_ref().map(|f| {
            let what = match f.kind {
                FailureKind::Crashed => "CRASHED",
                FailureKind::TimedOut => "TIMED OUT",
                FailureKind::Interrupted => "INTERRUPTED",
            };
            format!("{what}: {}", f.detail)
        });
        if r.operations.is_empty() {
            let why = match (&r.correctness, &failure) {
                (crate::verify::Outcome::Fail(w), _) => {
                    format!("NOT TIMED: correctness check failed: {w}")
                }
                (_, Some(f)) => f.clone(),
                _ => format!("NOT MEASURED: {}", r.error.as_deref().unwrap_or("unknown")),
            };
            t.add_row(vec![
                Cell::new(&r.algorithm),
                Cell::new(&r.implementation),
                Cell::new(why).fg(Color::Red),
            ]);
            continue;
        }
        for o in &r.operations {
            let half = (o.median_ci95_high_ns - o.median_ci95_low_ns) / 2.0 / o.median_ns * 100.0;
            let cycles = match &o.counters {
                Counters::Measured(c) => units::count(c.cycles),
                Counters::Unavailable(_) => "n/a".into(),
            };
            t.add_row(vec![
                Cell::new(&r.algorithm),
                Cell::new(&r.implementation),
                Cell::new(o.operation.as_str()),
                num(units::ns(o.median_ns)),
                num(format!("{half:.1}%")),
                num(format!("{} – {}", units::ns(o.p25_ns), units::ns(o.p75_ns))),
                num(units::count(o.ops_per_sec)),
                num(o.tsc_median_ticks.map_or("-".into(), units::count)),
                num(cycles),
                num(o.peak_heap_bytes.map_or("n/a".into(), units::bytes)),
                num(o.allocations.map_or("n/a".into(), |a| a.to_string())),
                num(o.max_stack_bytes.map_or("n/a".into(), units::bytes)),
                num(o
                    .share_of_exchange
                    .map_or("-".into(), |x| format!("{:.0}%", x * 100.0))),
                num(o.samples),
                Cell::new(note(o)),
            ]);
        }
        if let Some(e) = &r.error {
            t.add_row(vec![
                Cell::new(&r.algorithm),
                Cell::new(&r.implementation),
                Cell::new(format!("STOPPED: {e}")).fg(Color::Red),
            ]);
        }
        if let Some(f) = failure {
            t.add_row(vec![
                Cell::new(&r.algorithm),
                Cell::new(&r.implementation),
                Cell::new(f).fg(Color::Red),
            ]);
        }
    }
    println!("{t}");
}

/// `algorithm@implementation operation: detail` for every operation that `pick` selects.
fn describe_ops(
    record: &RunRecord,
    pick: impl Fn(&OperationResult) -> bool,
    detail: impl Fn(&OperationResult) -> String,
) -> Vec<String> {
    let mut out = Vec::new();
    for r in &record.results {
        for o in r.operations.iter().filter(|o| pick(o)) {
            out.push(format!(
                "{}@{} {}: {}",
                r.algorithm,
                r.implementation,
                o.operation.as_str(),
                detail(o)
            ));
        }
    }
    out
}

/// Timers, counters, heap, drift and cut-short notes below the table.
pub(super) fn print_footer(record: &RunRecord) {
    let t = &record.timers;
    println!(
        "Timers: clock resolution {} / read {}{}.",
        units::ns(t.clock.resolution),
        units::ns(t.clock.overhead),
        match (t.tsc, t.tsc_ticks_per_ns) {
            (Some(p), Some(r)) => format!(
                "; TSC resolution {:.0} / read {:.0} ticks at {:.3} ticks/ns (TSC ticks are not core cycles)",
                p.resolution, p.overhead, r
            ),
            _ => String::new(),
        }
    );
    if let Some(why) = &record.counters_unavailable {
        println!(
            "Hardware counters (cycles, instructions, branch and cache misses) unavailable: {why}."
        );
    }
    if !record.heap_includes_c_allocations {
        println!("Heap figures unavailable: the malloc interposer is not active in this binary.");
    }
    let cut = describe_ops(
        record,
        |o| o.stop_reason != StopReason::Precision,
        |o| {
            format!(
                "{} samples, ±{:.1}% ({})",
                o.samples,
                o.achieved_precision * 100.0,
                o.stop_reason.as_str()
            )
        },
    );
    let drifted = describe_ops(
        record,
        |o| o.round_spread > DRIFT,
        |o| format!("rounds {:.0}% apart", o.round_spread * 100.0),
    );
    if !drifted.is_empty() {
        println!(
            "Round medians more than {:.0}% apart, so the machine's speed changed during the run ({} operations): {}",
            DRIFT * 100.0,
            drifted.len(),
            drifted.join(", ")
        );
    }
    if !cut.is_empty() {
        println!(
            "Stopped before the median's 95% interval reached ±{:.1}% ({} of the operations):",
            record.config.sampler.target_precision * 100.0,
            cut.len()
        );
        for c in cut {
            println!("  {c}");
        }
    }
}

/// Ctrl-C presses during this process's run: one stops after the step in progress, two stop
/// at once.
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

fn install_ctrl_c() {
    let r = ctrlc::set_handler(|| {
        let n = INTERRUPTS.fetch_add(1, Ordering::SeqCst) + 1;
        if n == 1 {
            eprintln!("\nCtrl-C: stopping after the step in progress and keeping everything measured (Ctrl-C again to stop at once)");
        } else {
            eprintln!("\nCtrl-C again: stopping now");
        }
    });
    if let Err(e) = r {
        eprintln!("warning: cannot catch Ctrl-C ({e}); an interrupted run keeps only what was already stored");
    }
}

/// Runs `run`.
pub fn run(filter: &FilterArgs, args: &RunArgs, store_spec: &str) -> anyhow::Result<ExitCode> {
    if !(args.step_timeout > 0.0 && args.step_timeout.is_finite()) {
        bail!(
            "--step-timeout must be a positive number of seconds, got {}",
            args.step_timeout
        );
    }
    if let Some(sel) = &args.resume {
        return resume(sel, args, store_spec);
    }
    let cfg = sampler_config(args)?;
    let registry = Registry::new(filter.include_mock);
    let (impls, selection) = select(&registry, filter, args.all)?;
    let ops: Vec<Op> = if args.ops.is_empty() {
        Op::ALL.to_vec()
    } else {
        args.ops.clone()
    };
    args.output.check_dirs()?;
    let run_id = store::new_run_id();
    // Open the store before measuring: a bad store is an error now, not after the run.
    let mut recorder = Recorder::open(store_spec, !args.no_store, &run_id)?;

    let environment = super::environment_for(&impls);
    for l in environment.summary_lines() {
        println!("{l}");
    }
    let pinned_cpu = if args.no_pin {
        None
    } else {
        std::thread::available_parallelism()
            .ok()
            .map(|n| n.get() - 1)
    };
    let timers = Timers::calibrate();
    let counters_unavailable = Pmu::open().err();
    let mut record = RunRecord {
        schema_version: SCHEMA_VERSION,
        run_id: Some(run_id.clone()),
        interrupted: false,
        resumed_at: Vec::new(),
        kind: "kembench-run".into(),
        started_at: now_rfc3339(),
        finished_at: None,
        command_line: crate::store::recorded_command_line(),
        config: RunConfig {
            selection,
            algorithms: filter.algorithms.clone(),
            implementations: filter.implementations.clone(),
            family: filter.family.map(|f| f.to_string()),
            level: filter.level,
            operations: ops.clone(),
            sampler: cfg.clone(),
            pinned_cpu,
            include_mock: filter.include_mock,
            planned: impls.iter().map(|k| k.meta().label()).collect(),
            step_timeout_s: Some(args.step_timeout),
        },
        environment,
        timers,
        counters_unavailable,
        heap_includes_c_allocations: heap::interposer_active(),
        results: Vec::new(),
    };
    recorder.begin(records::run_row(&record));
    if let Some(at) = recorder.location() {
        println!("Run {run_id}, recorded in {at}");
    }
    let plan = run::Plan {
        impls,
        ops,
        cfg,
        timers,
        pin: pinned_cpu,
        include_mock: filter.include_mock,
        step_timeout: Duration::from_secs_f64(args.step_timeout),
        exe: std::env::current_exe().context("locating the kembench binary for its workers")?,
    };
    execute(&mut record, &plan, &mut recorder, &args.output.files())
}

/// Whether `here` is the machine and build a run was made on; the first difference if not.
fn same_machine(run: &crate::env::Environment, here: &crate::env::Environment) -> Option<String> {
    let pairs = [
        ("host", &run.hostname, &here.hostname),
        ("CPU", &run.cpu.model, &here.cpu.model),
        (
            "kembench version",
            &run.build.kembench_version,
            &here.build.kembench_version,
        ),
        (
            "kembench commit",
            &run.build.git_commit,
            &here.build.git_commit,
        ),
    ];
    pairs
        .iter()
        .find(|(_, a, b)| a != b)
        .map(|(what, a, b)| format!("{what} was {a}, is {b}"))
}

/// `run --resume RUN`: measures the planned benchmarks the run has no final result for.
fn resume(selector: &str, args: &RunArgs, store_spec: &str) -> anyhow::Result<ExitCode> {
    if args.no_store {
        bail!("--resume continues a run from the results store; it cannot be used with --no-store");
    }
    args.output.check_dirs()?;
    let mut st = Store::open(store_spec)?;
    let id = st.resolve(selector, Some("run"))?;
    let stored = st.load(&id)?;
    if stored.summary.status == RunStatus::Complete.as_str() {
        bail!("run {id} is complete; there is nothing to resume");
    }
    if stored.summary.status == RunStatus::Running.as_str() {
        eprintln!(
            "warning: run {id} is still marked running: its process ended without saying so (killed, power loss), or it is still measuring somewhere; if it is, stop this resume"
        );
    }
    let Record::Run(mut record) = store::records::record(&stored)? else {
        bail!("run {id} is not a `kembench run`");
    };
    let here = crate::env::Environment::collect();
    if let Some(diff) = same_machine(&record.environment, &here) {
        bail!("run {id} was measured on another machine or build ({diff}); resuming it here would mix the two. Start a new run instead");
    }
    let finished: HashSet<String> = record
        .results
        .iter()
        .filter(|r| r.is_final())
        .map(BenchResult::label)
        .collect();
    let registry = Registry::new(record.config.include_mock);
    let mut impls = Vec::new();
    for label in record
        .config
        .planned
        .iter()
        .filter(|l| !finished.contains(*l))
    {
        match registry.all().iter().find(|k| &k.meta().label() == label) {
            Some(k) => impls.push(k.clone()),
            None => eprintln!("warning: {label} is not in this build; it stays unmeasured"),
        }
    }
    println!(
        "Resuming run {id}: {} of {} benchmarks to measure ({} already finished)",
        impls.len(),
        record.config.planned.len(),
        finished.len()
    );
    record.resumed_at.push(now_rfc3339());
    let c = &record.config;
    let plan = run::Plan {
        impls,
        ops: c.operations.clone(),
        cfg: c.sampler.clone(),
        timers: record.timers,
        pin: c.pinned_cpu,
        include_mock: c.include_mock,
        step_timeout: Duration::from_secs_f64(c.step_timeout_s.unwrap_or(args.step_timeout)),
        exe: std::env::current_exe().context("locating the kembench binary for its workers")?,
    };
    let mut recorder = Recorder::with(st, &id);
    execute(&mut record, &plan, &mut recorder, &args.output.files())
}

/// Measures `plan` into `record`, storing and writing each benchmark as it finishes, then
/// prints the table.
fn execute(
    record: &mut RunRecord,
    plan: &run::Plan,
    recorder: &mut Recorder,
    outputs: &[(export::Format, std::path::PathBuf)],
) -> anyhow::Result<ExitCode> {
    install_ctrl_c();
    let rounds = plan.cfg.rounds.max(1) as u64;
    let total = plan.impls.len() as u64 * (2 + rounds * plan.ops.len() as u64);
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
            .context("progress bar template")?,
    );
    let mut write_error = None;
    let interrupted = run::measure_all(plan, &INTERRUPTS, &mut |ev| match ev {
        Event::Step(label, what) => {
            bar.inc(1);
            bar.set_message(format!("{label} {what}"));
        }
        Event::Finished(r) => {
            if let Some(f) = &r.failure {
                bar.suspend(|| eprintln!("{}: {}", r.label(), f.detail));
            }
            recorder.put(records::bench_result(&r));
            match record.results.iter_mut().find(|x| x.label() == r.label()) {
                Some(slot) => *slot = *r,
                None => record.results.push(*r),
            }
            // Files too are rewritten after every benchmark.
            for (fmt, path) in outputs {
                if let Err(e) = export::write(*fmt, record, path) {
                    write_error.get_or_insert(e);
                }
            }
        }
    });
    bar.finish_and_clear();
    // Benchmarks finish in any order (failures first); list them as planned.
    record.sort_as_planned();
    record.interrupted = interrupted;
    record.finished_at = (!interrupted).then(now_rfc3339);
    let status = if interrupted {
        RunStatus::Interrupted
    } else {
        RunStatus::Complete
    };
    recorder.finish(
        status,
        record.finished_at.as_deref(),
        records::run_header(record),
    );
    if !recorder.ok() {
        recorder.rescue(&export::Format::Json.exporter().serialize(record)?);
    }
    for (fmt, path) in outputs {
        export::write(*fmt, record, path)?;
        println!("wrote {}", path.display());
    }
    if let Some(e) = write_error {
        eprintln!("warning: a result file could not be written part-way: {e:#}");
    }
    print_table(&record.results);
    print_footer(record);
    let id = record.run_id.as_deref().unwrap_or("?");
    if interrupted {
        println!(
            "Interrupted: {} of {} benchmarks finished.{}",
            record.results.iter().filter(|r| r.is_final()).count(),
            record.config.planned.len().max(record.results.len()),
            if recorder.location().is_some() {
                format!(" `kembench run --resume {id}` completes the run.")
            } else {
                String::new()
            }
        );
        return Ok(ExitCode::from(130));
    }
    let failed = record.results.iter().any(|r| r.status() != "ok");
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
