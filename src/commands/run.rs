//! `kembench run`: measure in worker processes, store and write each benchmark as it
//! finishes, print the table; `run --resume` completes an interrupted run.

use crate::cli::{positive_seconds, FilterArgs, OutputArgs, SessionArgs, ShardArgs};
use crate::ending::{Ending, OnInterrupt};
use crate::env::Environment;
use crate::export::Outputs;
use crate::kem::Op;
use crate::latency::{self, Event};
use crate::measure::counters::Pmu;
use crate::measure::heap;
use crate::measure::sampler::SamplerConfig;
use crate::measure::timer::Timers;
use crate::output;
use crate::output::Width;
use crate::providers::suite;
use crate::providers::Filter;
use crate::providers::Registry;
use crate::record::latency::LatencyRecord;
use crate::record::latency::{Latency, LatencyConfig, LatencyMeasured, SecretKeys};
use crate::record::{now_rfc3339, AnyRecord, Benchmark, RecordKind, ResultStatus};
use crate::store::records;
use crate::store::{self, Recorder, Store};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::process::ExitCode;
use std::time::Duration;

/// Options of `run`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Which implementations.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Every implementation instead of the default suite (ignored when filters are given).
    #[arg(long)]
    pub all: bool,
    /// Operations to measure (default: all; sk-import and pk-import only where the library has
    /// that step).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub ops: Vec<crate::kem::Op>,
    /// Time budget per operation, in seconds, warm-up excluded.
    #[arg(long, default_value_t = 1.0)]
    pub time_budget: f64,
    /// Fewest samples per operation, even past the budget (up to ten budgets).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(3..))]
    pub min_samples: u64,
    /// Most samples per operation.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(3..))]
    pub max_samples: u64,
    /// Warm-up per operation, in seconds.
    #[arg(long, default_value_t = 0.1)]
    pub warmup: f64,
    /// Rounds each benchmark's budget is split into, interleaved with the others in shuffled
    /// order (1: one benchmark after the other).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub rounds: u64,
    /// Do not pin the measuring thread to the last logical CPU.
    #[arg(long)]
    pub no_pin: bool,
    /// Seconds one step of a benchmark (preparing, one round, the final phases) may take
    /// before its worker process is killed and the benchmark recorded as timed out.
    #[arg(long, default_value_t = 120.0, value_name = "SECS")]
    pub step_timeout: f64,
    /// Whether the run is stored, and the interrupted run it completes.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Target half-width of the median's 95% confidence interval, in percent.
    #[arg(long, default_value_t = 1.0)]
    pub precision: f64,
    /// After the timed rounds, also count each operation's instructions under valgrind's
    /// callgrind (one call, as `kembench profile` does with one seed) and record them beside
    /// the times.
    #[arg(long)]
    pub instructions: bool,
    /// Every column (TSC ticks, cycles, quartiles, allocations, share, samples) and every
    /// note in full, instead of a table that fits 120 columns.
    #[arg(long)]
    pub wide: bool,
    /// One job of a sweep.
    #[command(flatten)]
    pub shard: ShardArgs,
    /// Result files.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl Args {
    /// Runs the command on the store `spec`.
    pub fn run(self, spec: &str) -> anyhow::Result<ExitCode> {
        command(&self.to_options()?, spec)
    }

    /// The validated options of `run`.
    fn to_options(&self) -> anyhow::Result<Options> {
        positive_seconds("--step-timeout", self.step_timeout)?;
        positive_seconds("--time-budget", self.time_budget)?;
        if !(self.warmup >= 0.0 && self.warmup.is_finite()) {
            crate::bail_usage!(
                "--warmup must be zero or a positive number of seconds, got {}",
                self.warmup
            );
        }
        if !(self.precision > 0.0 && self.precision < 100.0) {
            crate::bail_usage!(
                "--precision is a percentage between 0 and 100, got {}",
                self.precision
            );
        }
        if self.max_samples < self.min_samples {
            crate::bail_usage!(
                "--max-samples ({}) is below --min-samples ({})",
                self.max_samples,
                self.min_samples
            );
        }
        self.session.check("a run")?;
        let shard = self.shard.job(self.session.resume.is_some())?;
        self.output.check_dirs()?;
        Ok(Options {
            filter: self.filter.to_filter(),
            include_mock: self.filter.include_mock,
            all: self.all,
            ops: if self.ops.is_empty() {
                Op::ALL.to_vec()
            } else {
                self.ops.clone()
            },
            sampler: SamplerConfig {
                time_budget_s: self.time_budget,
                min_samples: self.min_samples as usize,
                max_samples: self.max_samples as usize,
                warmup_s: self.warmup,
                target_precision: self.precision / 100.0,
                rounds: self.rounds as usize,
                ..SamplerConfig::default()
            },
            pin: !self.no_pin,
            instructions: self.instructions,
            step_timeout_s: self.step_timeout,
            resume: self.session.resume.clone(),
            store: !self.session.no_store,
            outputs: self.output.files(),
            layout: Width::wide_if(self.wide),
            shard,
        })
    }
}

/// `kembench run`, validated.
#[derive(Debug, Clone)]
pub struct Options {
    /// Which implementations (empty: the default suite, or every one with `all`).
    pub filter: Filter,
    /// Whether the mock implementations are offered.
    pub include_mock: bool,
    /// Every implementation when no filter is given.
    pub all: bool,
    /// Operations to measure.
    pub ops: Vec<Op>,
    /// Sampling knobs.
    pub sampler: SamplerConfig,
    /// Pin the measuring thread to the last logical CPU.
    pub pin: bool,
    /// Seconds a worker may take over one step.
    pub step_timeout_s: f64,
    /// The run to resume, if any.
    pub resume: Option<String>,
    /// Count each operation's instructions under callgrind after the timed rounds.
    pub instructions: bool,
    /// Record the run in the results store.
    pub store: bool,
    /// Result files.
    pub outputs: Outputs,
    /// How much the console tables show.
    pub layout: Width,
    /// The sweep this run is one job of, if any.
    pub shard: Option<crate::shard::Job>,
}

/// The implementations `run` times: those that run on this machine. A build for another
/// architecture runs under QEMU, where time says nothing about the machine: one selected with
/// others is left out with a line on standard error saying why; a selection of foreign builds
/// alone is refused (exit 2), naming `profile`, which counts them.
fn native_only(
    impls: Vec<std::sync::Arc<dyn crate::kem::Kem>>,
) -> anyhow::Result<Vec<std::sync::Arc<dyn crate::kem::Kem>>> {
    let (foreign, native): (Vec<_>, Vec<_>) = impls
        .into_iter()
        .partition(|k| crate::engine::foreign_arch(k.as_ref()).is_some());
    if foreign.is_empty() {
        return Ok(native);
    }
    let mut archs: Vec<String> = foreign
        .iter()
        .filter_map(|k| crate::engine::foreign_arch(k.as_ref()))
        .map(|a| a.to_string())
        .collect();
    archs.sort();
    archs.dedup();
    let names: Vec<String> = foreign
        .iter()
        .map(|k| output::clean(&k.meta().label()))
        .collect();
    let why = format!(
        "{} {} for {}, which run{} under emulation (QEMU), where time says nothing about this \
         machine: `run` times builds that run here; `kembench profile` counts them and \
         `kembench verify` checks them",
        names.join(", "),
        if names.len() == 1 {
            "is a build"
        } else {
            "are builds"
        },
        archs.join(", "),
        if names.len() == 1 { "s" } else { "" },
    );
    if native.is_empty() {
        crate::bail_usage!("nothing to time: {why}");
    }
    eprint!("{}", output::wrap(&format!("run: left out {why}."), 2));
    Ok(native)
}

/// Runs `run`.
fn command(o: &Options, store_spec: &str) -> anyhow::Result<ExitCode> {
    store::refuse_over_store(o.outputs.iter().map(|(_, p)| p.as_path()), store_spec)?;
    if let Some(sel) = &o.resume {
        return resume(sel, o, store_spec);
    }
    if o.instructions {
        // Missing valgrind is an error before anything is measured, not after.
        crate::profile::valgrind::locate()?;
    }
    let registry = Registry::new(o.include_mock);
    let (impls, selection) = suite::select(&registry, &o.filter, o.all)?;
    let impls = native_only(impls)?;
    let (impls, sweep) = crate::shard::split(o.shard.as_ref(), impls, "run");
    let run_id = store::new_run_id();
    // Open the store before measuring: a bad store is an error now, not after the run.
    let mut recorder = Recorder::open(store_spec, o.store, &run_id)?;

    let environment = Environment::for_implementations(&impls);
    print!("{}", output::environment(&environment, o.layout));
    let pinned_cpu = if o.pin {
        crate::engine::cpu::last_allowed_cpu()
    } else {
        None
    };
    let timers = Timers::calibrate();
    let counters_unavailable = Pmu::open().err();
    let mut record = LatencyRecord::new(
        Some(run_id.clone()),
        store::recorded_command_line(),
        LatencyConfig {
            selection: selection.to_string(),
            algorithms: o.filter.algorithms.clone(),
            implementations: o.filter.implementations.clone(),
            family: o.filter.family.map(|f| f.to_string()),
            level: o.filter.level,
            operations: o.ops.clone(),
            sampler: o.sampler.clone(),
            pinned_cpu,
            include_mock: o.include_mock,
            planned: impls.iter().map(|k| k.meta().label()).collect(),
            step_timeout_s: Some(o.step_timeout_s),
        },
        environment,
        LatencyMeasured {
            timers,
            counters_unavailable,
            heap_includes_c_allocations: heap::interposer_active(),
            decaps_secret_key: SecretKeys::Kept,
        },
    );
    record.sweep = sweep;
    recorder.begin(records::run_row(&record));
    recorder.announce(&run_id);
    let plan = latency::Plan {
        impls,
        ops: o.ops.clone(),
        cfg: o.sampler.clone(),
        timers,
        pin: pinned_cpu,
        include_mock: o.include_mock,
        step_timeout: Duration::from_secs_f64(o.step_timeout_s),
        exe: std::env::current_exe().context("locating the kembench binary for its workers")?,
    };
    execute(record, &plan, recorder, o, store_spec)
}

/// `run --instructions`: counts one call of each measured operation under callgrind (after
/// the timed rounds, so valgrind never competes with them for the CPU) and stores the
/// results again with the counts.
fn add_instructions(end: &mut Ending<Latency>, plan: &latency::Plan) -> anyhow::Result<()> {
    let impls: Vec<_> = plan
        .impls
        .iter()
        .filter(|k| {
            end.record()
                .results
                .iter()
                .any(|r| r.label() == k.meta().label() && !r.operations.is_empty())
        })
        .cloned()
        .collect();
    if impls.is_empty() {
        return Ok(());
    }
    eprintln!(
        "run: counting instructions under callgrind ({} implementation(s)) ...",
        impls.len()
    );
    let counted = crate::profile::instruction_counts(
        impls,
        plan.ops.clone(),
        plan.include_mock,
        plan.exe.clone(),
        &crate::interrupt::requested,
    )?;
    for p in counted {
        end.amend(&p.label(), |r| {
            if p.status() != ResultStatus::Ok {
                let why = p
                    .failure
                    .as_ref()
                    .map(|f| f.detail.clone())
                    .or(p.error.clone())
                    .unwrap_or_else(|| p.status().as_str().to_string());
                eprintln!("warning: {}: instructions not counted: {why}", p.label());
            }
            for o in &mut r.operations {
                o.callgrind_instructions = p.op(o.operation).map(|x| x.instructions.median);
            }
        });
    }
    Ok(())
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
fn resume(selector: &str, o: &Options, store_spec: &str) -> anyhow::Result<ExitCode> {
    let mut st = Store::open(store_spec)?;
    let (id, mut record) =
        crate::resume::load(&mut st, selector, RecordKind::Latency, "run", |r| match r {
            AnyRecord::Latency(r) => Some(r),
            _ => None,
        })?;
    let here = crate::env::Environment::collect();
    if let Some(diff) = same_machine(&record.environment, &here) {
        crate::bail_usage!("run {id} was measured on another machine or build ({diff}); resuming it here would mix the two. Start a new run instead");
    }
    let registry = Registry::new(record.config.include_mock);
    let impls = crate::resume::unfinished(&record, &id, &registry)?;
    let finished = record.results.iter().filter(|r| r.is_final()).count();
    println!(
        "Resuming run {id}: {} of {} benchmarks to measure ({} already finished)",
        impls.len(),
        record.config.planned.len(),
        finished
    );
    record.state.resumed_at.push(now_rfc3339());
    let c = &record.config;
    let plan = latency::Plan {
        impls,
        ops: c.operations.clone(),
        cfg: c.sampler.clone(),
        timers: record.measured.timers,
        pin: c.pinned_cpu,
        include_mock: c.include_mock,
        step_timeout: Duration::from_secs_f64(c.step_timeout_s.unwrap_or(o.step_timeout_s)),
        exe: std::env::current_exe().context("locating the kembench binary for its workers")?,
    };
    execute(*record, &plan, Recorder::with(st, &id), o, store_spec)
}

/// Measures `plan` into `record`, storing each benchmark and appending it to the result
/// files as it finishes, then prints the table.
fn execute(
    record: LatencyRecord,
    plan: &latency::Plan,
    recorder: Recorder,
    o: &Options,
    store_spec: &str,
) -> anyhow::Result<ExitCode> {
    let outputs = &o.outputs;
    let mut end = Ending::start(record, recorder, outputs, "the step in progress")?
        .naming_files()
        .on_interrupt(OnInterrupt::CountAndResume("run"));
    let rounds = plan.cfg.rounds.max(1) as u64;
    let total = plan.impls.len() as u64 * (2 + rounds * plan.ops.len() as u64);
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
            .context("progress bar template")?,
    );
    let interrupted =
        latency::measure_all(plan, &crate::interrupt::INTERRUPTS, &mut |ev| match ev {
            Event::Step(label, what) => {
                bar.inc(1);
                bar.set_message(format!("{label} {what}"));
            }
            Event::Finished(r) => {
                if let Some(f) = &r.failure {
                    bar.suspend(|| eprintln!("{}: {}", r.label(), f.detail));
                }
                end.put(*r);
            }
        });
    bar.finish_and_clear();
    if o.instructions && !interrupted {
        add_instructions(&mut end, plan)?;
    }
    let mut screening = Vec::new();
    let code = end.finish(interrupted, o.layout, |rec, _| {
        screening =
            crate::record::latency::console::screening(rec, &stored_verdicts(rec, store_spec));
        Ok(())
    })?;
    for t in &screening {
        print!("{}", output::shown(t, o.layout));
    }
    Ok(code)
}

/// The constant-time verdicts of the `ct` runs in the store, for a run that measured a builds
/// matrix (none otherwise, and none when the store has no ct run or cannot be read: the speed
/// tables are then as they always were, and a store that cannot be read is said).
fn stored_verdicts(rec: &LatencyRecord, store_spec: &str) -> crate::record::ct::Verdicts {
    use crate::record::ct::{Ct, Verdicts};
    if crate::record::latency::matrix::matrices(rec, Op::Exchange).is_empty() {
        return Verdicts::none();
    }
    let ids = match Store::open_existing(store_spec).and_then(|mut s| s.runs()) {
        Ok(runs) => runs
            .into_iter()
            .filter(|r| r.kind == RecordKind::Ct.store_kind())
            .map(|r| r.id)
            .collect::<Vec<_>>(),
        Err(_) => return Verdicts::none(),
    };
    let mut records = Vec::new();
    for id in ids {
        match crate::store::load_kind::<Ct>(store_spec, &id) {
            Ok((_, r)) => records.push(r),
            Err(e) => eprintln!("warning: ct run {id} in the store could not be read: {e:#}"),
        }
    }
    Verdicts::of(&records)
}
