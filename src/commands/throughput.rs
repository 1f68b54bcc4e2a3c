//! `kembench throughput`: measure, record, write the result files, print the tables.

use crate::cli::{
    positive_seconds, FilterArgs, OutputArgs, SessionArgs, ShardArgs, MAX_THREADS_PER_CPU,
};
use crate::ending::{Ending, OnInterrupt};
use crate::env::Environment;
use crate::export::Outputs;
use crate::kem::Op;
use crate::measure::timer::Timers;
use crate::output::Width;
use crate::providers::Filter;
use crate::providers::Registry;
use crate::record::throughput::ThroughputConfig;
use crate::record::throughput::ThroughputRecord;
use crate::record::{now_rfc3339, AnyRecord, Benchmark, Nothing, RecordKind};
use crate::store::records;
use crate::store::{self, Recorder, Store};
use crate::throughput::measure;
use std::process::ExitCode;

/// Options of `throughput`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Which implementations.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Thread counts (default 1, 2, 4, ... up to twice the logical CPUs); must include 1.
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=4096))]
    pub threads: Vec<usize>,
    /// Seconds each thread count runs, per repeat.
    #[arg(long, default_value_t = 0.5)]
    pub duration: f64,
    /// Times the sequence of thread counts is measured, in rotation, so that every count sees
    /// the machine in the same mix of states; the median repeat is reported.
    #[arg(long, default_value_t = 3, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=50))]
    pub repeats: usize,
    /// Pin thread i to CPU i mod the logical CPUs.
    #[arg(long)]
    pub pin: bool,
    /// Run N independent processes instead of N threads (the ceiling threads should reach).
    #[arg(long)]
    pub processes: bool,
    /// Target connections per second for the cores-needed figures.
    #[arg(long, default_value_t = 70_000.0)]
    pub target_rate: f64,
    /// Operations (default: keygen, encaps, decaps, exchange).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub ops: Vec<crate::kem::Op>,
    /// Whether the run is stored, and the interrupted run it completes.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Every figure (the per-thread range) and every flag in its row, instead of tables that
    /// fit 120 columns.
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
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        command(&self.to_options(cpus)?, cpus, spec)
    }

    /// The validated options of `throughput`; `cpus` (the logical CPUs) sets the default
    /// thread counts.
    fn to_options(&self, cpus: usize) -> anyhow::Result<Options> {
        positive_seconds("--duration", self.duration)?;
        if !(self.target_rate > 0.0 && self.target_rate.is_finite()) {
            crate::bail_usage!("--target-rate must be positive, got {}", self.target_rate);
        }
        let threads = if self.threads.is_empty() {
            crate::record::scaling::calc::default_threads(cpus)
        } else {
            self.threads.clone()
        };
        let most = MAX_THREADS_PER_CPU * cpus.max(1);
        if let Some(&n) = threads.iter().find(|&&n| n > most) {
            crate::bail_usage!(
                "--threads {n} is more than {MAX_THREADS_PER_CPU} threads per logical CPU ({most} \
                 on this machine's {cpus}): such a run measures the scheduler, not the KEM, and \
                 takes minutes per point; the useful range ends at a few times the CPUs"
            );
        }
        if !threads.contains(&1) {
            crate::bail_usage!(
                "--threads must include 1: efficiency is measured against one thread"
            );
        }
        self.session.check("a run")?;
        let shard = self.shard.job(self.session.resume.is_some())?;
        self.output.check_dirs()?;
        Ok(Options {
            filter: self.filter.to_filter(),
            include_mock: self.filter.include_mock,
            shard,
            threads,
            duration_s: self.duration,
            repeats: self.repeats,
            pin: self.pin,
            processes: self.processes,
            target_rate: self.target_rate,
            ops: if self.ops.is_empty() {
                vec![Op::Keygen, Op::Encaps, Op::Decaps, Op::Exchange]
            } else {
                self.ops.clone()
            },
            resume: self.session.resume.clone(),
            store: !self.session.no_store,
            outputs: self.output.files(),
            layout: Width::wide_if(self.wide),
        })
    }
}

/// `kembench throughput`, validated.
#[derive(Debug, Clone)]
pub struct Options {
    /// Which implementations (empty: the default set).
    pub filter: Filter,
    /// Whether the mock implementations are offered.
    pub include_mock: bool,
    /// The sweep this run is one job of, if any.
    pub shard: Option<crate::shard::Job>,
    /// Thread (or process) counts, 1 included.
    pub threads: Vec<usize>,
    /// Seconds per thread count and repeat.
    pub duration_s: f64,
    /// Rotations over the thread counts.
    pub repeats: usize,
    /// Pin thread i to CPU i mod the logical CPUs.
    pub pin: bool,
    /// Independent processes instead of threads.
    pub processes: bool,
    /// Connections per second the capacity figures are sized for.
    pub target_rate: f64,
    /// Operations to measure.
    pub ops: Vec<Op>,
    /// The throughput run to resume, if any.
    pub resume: Option<String>,
    /// Record the run in the results store.
    pub store: bool,
    /// Result files.
    pub outputs: Outputs,
    /// How much the console tables show.
    pub layout: Width,
}

/// Runs `throughput`, or with `--resume` completes an interrupted one.
fn command(o: &Options, cpus: usize, store_spec: &str) -> anyhow::Result<ExitCode> {
    store::refuse_over_store(o.outputs.iter().map(|(_, p)| p.as_path()), store_spec)?;
    if let Some(sel) = &o.resume {
        return resume(sel, o, cpus, store_spec);
    }
    let registry = Registry::new(o.include_mock);
    let impls = measure::select(&registry, &o.filter)?;
    let (impls, sweep) = crate::shard::split(o.shard.as_ref(), impls, "throughput");
    let run_id = store::new_run_id();
    let mut recorder = Recorder::open(store_spec, o.store, &run_id)?;
    let environment = Environment::for_implementations(&impls);
    let mut record = ThroughputRecord::new(
        Some(run_id.clone()),
        store::recorded_command_line(),
        ThroughputConfig {
            threads: o.threads.clone(),
            duration_s: o.duration_s,
            repeats: o.repeats,
            pinned: o.pin,
            processes: o.processes,
            target_rate: o.target_rate,
            operations: o.ops.clone(),
            planned: impls.iter().map(|k| k.meta().label()).collect(),
        },
        environment,
        Nothing {},
    );
    record.sweep = sweep;
    recorder.begin(records::run_row(&record));
    recorder.announce(&run_id);
    execute(record, impls, o, cpus, recorder)
}

/// `throughput --resume RUN`: measures, with the run's own configuration, the planned
/// implementations it has no final result for.
fn resume(selector: &str, o: &Options, cpus: usize, store_spec: &str) -> anyhow::Result<ExitCode> {
    let mut st = Store::open_existing(store_spec)?;
    let (id, mut record) = crate::resume::load(
        &mut st,
        selector,
        RecordKind::Throughput,
        "throughput",
        |r| match r {
            AnyRecord::Throughput(r) => Some(r),
            _ => None,
        },
    )?;
    let registry = Registry::new(planned_mock(&record));
    let todo = crate::resume::unfinished(&record, &id, &registry)?;
    println!(
        "Resuming throughput run {id}: {} of {} implementations to measure",
        todo.len(),
        record.config.planned.len()
    );
    // The unfinished results are measured again from the start.
    record.results.retain(|r| r.is_final());
    record.state.interrupted = false;
    record.state.resumed_at.push(now_rfc3339());
    execute(*record, todo, o, cpus, Recorder::with(st, &id))
}

/// Whether `record` planned mock implementations (its workers and registry must offer them).
fn planned_mock(record: &ThroughputRecord) -> bool {
    record.config.planned.iter().any(|l| l.contains("@mock/"))
}

/// Measures `impls` into `record`, storing and appending each as it finishes, then prints
/// the tables. Ctrl-C or SIGTERM stops after the thread count in progress: what was measured
/// is kept and the run is `interrupted`, resumable.
fn execute(
    record: ThroughputRecord,
    impls: Vec<std::sync::Arc<dyn crate::kem::Kem>>,
    o: &Options,
    cpus: usize,
    recorder: Recorder,
) -> anyhow::Result<ExitCode> {
    let timers = Timers::calibrate();
    let include_mock = o.include_mock || planned_mock(&record);
    let mut end = Ending::start(record, recorder, &o.outputs, "the thread count in progress")?
        .on_interrupt(OnInterrupt::Resume("throughput"));
    for (i, k) in impls.iter().enumerate() {
        if crate::interrupt::requested() {
            break;
        }
        eprintln!(
            "throughput: {} ({} of {}) ...",
            k.meta().label(),
            i + 1,
            impls.len()
        );
        let r = measure::measure_one(
            k,
            &end.record().config,
            include_mock,
            &timers,
            cpus,
            &crate::interrupt::requested,
        );
        end.put(r);
    }
    end.finish(crate::interrupt::requested(), o.layout, |_, _| Ok(()))
}

/// `kembench throughput-worker`'s command line: one process of `throughput --processes`
/// (internal).
#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
    /// `algorithm@implementation`.
    #[arg(long)]
    label: String,
    /// The operation.
    #[arg(long, value_enum)]
    op: Op,
    /// Seconds to run.
    #[arg(long)]
    duration: f64,
    /// Pin to this CPU.
    #[arg(long)]
    pin_cpu: Option<usize>,
    /// Offer the mock provider.
    #[arg(long)]
    include_mock: bool,
}

impl WorkerArgs {
    /// Runs the operation for the duration and reports.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        crate::throughput::serve_worker(
            &self.label,
            self.op,
            self.duration,
            self.pin_cpu,
            self.include_mock,
        )
        .map(|()| ExitCode::SUCCESS)
    }
}
