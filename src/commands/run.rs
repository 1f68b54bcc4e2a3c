//! `kembench run`: measure, show a table, write result files as each benchmark finishes.

use crate::cli::{FilterArgs, RunArgs};
use crate::export;
use crate::kem::registry::Registry;
use crate::kem::Kem;
use crate::measure::counters::{Counters, Pmu};
use crate::measure::heap;
use crate::measure::sampler::{Op, SamplerConfig, StopReason};
use crate::measure::timer::Timers;
use crate::output::{num, table, units};
use crate::run::result::{
    now_rfc3339, BenchResult, OperationResult, RunConfig, RunRecord, SCHEMA_VERSION,
};
use crate::run::{self, suite, Event};
use anyhow::{bail, Context};
use comfy_table::{Cell, Color};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::process::ExitCode;
use std::sync::Arc;

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
        n.push(format!("rounds differ {:.0}%", o.round_spread * 100.0));
    }
    if o.batch > 1 {
        n.push(format!("×{} per sample", o.batch));
    }
    n.join(", ")
}

fn print_table(results: &[BenchResult]) {
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
        if r.operations.is_empty() {
            let why = match &r.correctness {
                crate::verify::Outcome::Fail(w) => {
                    format!("NOT TIMED: correctness check failed: {w}")
                }
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

fn print_footer(record: &RunRecord) {
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

/// Runs `run`.
pub fn run(filter: &FilterArgs, args: &RunArgs) -> anyhow::Result<ExitCode> {
    let cfg = sampler_config(args)?;
    let registry = Registry::new(filter.include_mock);
    let (impls, selection) = select(&registry, filter, args.all)?;
    let ops: Vec<Op> = if args.ops.is_empty() {
        Op::ALL.to_vec()
    } else {
        args.ops.clone()
    };
    args.output.check_dirs()?;
    let outputs = args.output.files();

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
        kind: "kembench-run".into(),
        started_at: now_rfc3339(),
        finished_at: None,
        command_line: std::env::args().collect(),
        config: RunConfig {
            selection,
            algorithms: filter.algorithms.clone(),
            implementations: filter.implementations.clone(),
            family: filter.family.map(|f| f.to_string()),
            level: filter.level,
            operations: ops.clone(),
            sampler: cfg.clone(),
            pinned_cpu,
        },
        environment,
        timers,
        counters_unavailable,
        heap_includes_c_allocations: heap::interposer_active(),
        results: Vec::new(),
    };

    let rounds = cfg.rounds.max(1);
    let prepare_steps = (impls.len() * ops.len()) as u64;
    let total = prepare_steps * (rounds as u64 + 2);
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
            .context("progress bar template")?,
    );
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = run::spawn(impls, ops.clone(), cfg, timers, pinned_cpu, tx);
    let mut failed = false;
    for ev in rx {
        match ev {
            Event::Started(label, op, round) => {
                bar.inc(1);
                let phase = match round {
                    0 if bar.position() <= prepare_steps => "preparing".to_string(),
                    r if r >= rounds => "counters, heap, stack".to_string(),
                    r => format!("round {}/{rounds}", r + 1),
                };
                bar.set_message(format!("{label} {} ({phase})", op.as_str()));
            }
            Event::Finished(r) => {
                failed |= r.correctness.failed() || r.error.is_some();
                record.results.push(*r);
                // Write after every benchmark: a crash or Ctrl-C later loses nothing measured.
                for (fmt, path) in &outputs {
                    export::write(*fmt, &record, path)?;
                }
            }
        }
    }
    bar.finish_and_clear();
    if worker.join().is_err() {
        eprintln!("error: the measuring thread panicked; results so far are kept");
        failed = true;
    }
    record.finished_at = Some(now_rfc3339());
    for (fmt, path) in &outputs {
        export::write(*fmt, &record, path)?;
        println!("wrote {}", path.display());
    }
    print_table(&record.results);
    print_footer(&record);
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
