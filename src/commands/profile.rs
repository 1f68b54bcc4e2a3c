//! `kembench profile`: profile under callgrind, record, write the result files and flame
//! graphs, print the tables.

use crate::cli::{non_negative_pct, positive_seconds, FilterArgs, OutputArgs};
use crate::ending::{Ending, OnInterrupt};
use crate::env::Environment;
use crate::export::Outputs;
use crate::measure::sampler::Op;
use crate::output::Width;
use crate::profile::{self, valgrind, Plan};
use crate::providers::Filter;
use crate::providers::Registry;
use crate::record::profile::{ProfileConfig, ProfileMeasured, ProfileRecord, ProfileResult};
use crate::record::{AnyRecord, Benchmark, RecordKind};
use crate::store::records;
use crate::store::{self, Recorder, Store};
use std::process::ExitCode;
use std::time::Duration;

/// Options of `profile`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Every implementation instead of the default suite (ignored when filters are given).
    #[arg(long)]
    pub all: bool,
    /// Operations to profile (default: keygen, encaps, decaps; sk-import and pk-import only
    /// where the library has that step).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub ops: Vec<crate::measure::sampler::Op>,
    /// Seeds per implementation: counts that depend on the key (rejection sampling, retries)
    /// are reported as min / median / max over them.
    #[arg(long, default_value_t = 3, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100))]
    pub seeds: usize,
    /// Implementations profiled at once (default: the logical CPUs; counts do not depend on it).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub jobs: Option<usize>,
    /// Seconds one worker (one implementation, one seed) may run under valgrind before it is
    /// killed and the benchmark recorded as timed out.
    #[arg(long, default_value_t = 600.0, value_name = "SECS")]
    pub timeout: f64,
    /// Levels of the hot-path tree.
    #[arg(long, default_value_t = 8, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    pub tree_depth: usize,
    /// Paths under this percentage of an operation are left out of the tree.
    #[arg(long, default_value_t = 1.0, value_name = "PCT", value_parser = non_negative_pct)]
    pub tree_threshold: f64,
    /// Write one flame-graph SVG per (implementation, operation) into this directory (created
    /// if missing; existing files of the same names are replaced, nothing else is touched).
    #[arg(long, value_name = "DIR")]
    pub flamegraphs: Option<std::path::PathBuf>,
    /// Keep callgrind's raw files here (`LABEL/seedN/OP.callgrind`, for kcachegrind or
    /// callgrind_annotate).
    #[arg(long, value_name = "DIR")]
    pub callgrind_out: Option<std::path::PathBuf>,
    /// Route liboqs's SHA-3 through counting wrappers and print, for each liboqs
    /// implementation, the instructions inside them beside the Keccak share the symbol
    /// classifier found (a cross-check of the classifier; the wrappers add a few
    /// instructions per hash call, so the counts are not those of a plain profile).
    #[arg(long)]
    pub sha3_probe: bool,
    /// Do not record the profile in the results store.
    #[arg(long)]
    pub no_store: bool,
    /// Complete an interrupted profile from the store: profile, with the run's own
    /// configuration (operations, seeds, tree), the planned implementations it has no final
    /// result for. Filters and profile options given with it are ignored.
    #[arg(long, value_name = "RUN")]
    pub resume: Option<String>,
    /// Every column, and every operation's hot-path tree, hottest functions and lines.
    #[arg(long)]
    pub wide: bool,
    /// Result files.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl Args {
    /// The validated options of `profile`.
    pub fn to_options(&self, filter: &FilterArgs, cpus: usize) -> anyhow::Result<Options> {
        positive_seconds("--timeout", self.timeout)?;
        if self.tree_threshold >= 100.0 {
            crate::bail_usage!(
                "--tree-threshold is a percentage below 100, got {}",
                self.tree_threshold
            );
        }
        self.output.check_dirs()?;
        if self.resume.is_some() && self.no_store {
            crate::bail_usage!(
                "--resume continues a profile from the results store; it cannot be used with \
                 --no-store"
            );
        }
        for (flag, dir) in [
            ("--flamegraphs", &self.flamegraphs),
            ("--callgrind-out", &self.callgrind_out),
        ] {
            if let Some(d) = dir {
                if d.exists() && !d.is_dir() {
                    crate::bail_usage!("{flag} {} exists and is not a directory", d.display());
                }
            }
        }
        Ok(Options {
            filter: filter.to_filter(),
            include_mock: filter.include_mock,
            all: self.all,
            ops: if self.ops.is_empty() {
                vec![Op::Keygen, Op::Encaps, Op::Decaps]
            } else {
                self.ops.clone()
            },
            seeds: self.seeds,
            jobs: self.jobs.unwrap_or(cpus).max(1),
            timeout_s: self.timeout,
            tree_depth: self.tree_depth,
            tree_threshold: self.tree_threshold / 100.0,
            flamegraphs: self.flamegraphs.clone(),
            callgrind_out: self.callgrind_out.clone(),
            sha3_probe: self.sha3_probe,
            store: !self.no_store,
            resume: self.resume.clone(),
            outputs: self.output.files(),
            layout: Width::wide_if(self.wide),
        })
    }
}

/// `kembench profile`, validated.
#[derive(Debug, Clone)]
pub struct Options {
    /// Which implementations (empty: the default suite, or every one with `all`).
    pub filter: Filter,
    /// Whether the mock implementations are offered.
    pub include_mock: bool,
    /// Every implementation instead of the default suite.
    pub all: bool,
    /// Operations to profile.
    pub ops: Vec<Op>,
    /// Seeds per implementation.
    pub seeds: usize,
    /// Implementations profiled at once.
    pub jobs: usize,
    /// Longest one worker may run, in seconds.
    pub timeout_s: f64,
    /// Levels of the hot-path tree.
    pub tree_depth: usize,
    /// Paths under this fraction of an operation are pruned.
    pub tree_threshold: f64,
    /// Directory for flame-graph SVGs.
    pub flamegraphs: Option<std::path::PathBuf>,
    /// Directory for callgrind's raw files.
    pub callgrind_out: Option<std::path::PathBuf>,
    /// Route liboqs's SHA-3 through counting wrappers.
    pub sha3_probe: bool,
    /// Record the profile in the results store.
    pub store: bool,
    /// The profile to resume, if any.
    pub resume: Option<String>,
    /// Result files.
    pub outputs: Outputs,
    /// How much the console tables show.
    pub layout: Width,
}

/// Runs `profile`.
pub fn run(o: &Options, store_spec: &str) -> anyhow::Result<ExitCode> {
    store::refuse_over_store(o.outputs.iter().map(|(_, p)| p.as_path()), store_spec)?;
    // The folders the profile writes into exist before anything is measured: one that cannot
    // be made stops the command now, not after minutes of profiling.
    for (flag, dir) in [
        ("--flamegraphs", &o.flamegraphs),
        ("--callgrind-out", &o.callgrind_out),
    ] {
        if let Some(d) = dir {
            std::fs::create_dir_all(d)
                .map_err(|e| anyhow::anyhow!("{flag}: cannot create {}: {e}", d.display()))?;
        }
    }
    if let Some(sel) = &o.resume {
        return resume(sel, o, store_spec);
    }
    let valgrind = valgrind::locate()?;
    let version = valgrind::version(&valgrind)?;
    let exe = std::env::current_exe()?;
    let registry = Registry::new(o.include_mock);
    let (impls, selection) = crate::providers::suite::select(&registry, &o.filter, o.all)?;
    let under_valgrind = profile::features_under_valgrind(&valgrind, &exe)?;
    let measured = ProfileMeasured {
        valgrind: version,
        cpu_features_native: valgrind::cpu_features(),
        cpu_features_under_valgrind: under_valgrind,
        pmu_unavailable: crate::measure::counters::Pmu::open().err(),
    };
    let config = ProfileConfig {
        selection: if selection == "filtered" {
            let f = &o.filter;
            crate::record::describe_filter(
                &f.algorithms,
                &f.implementations,
                f.family.map(|x| x.to_string()).as_deref(),
                f.level,
            )
        } else {
            selection.to_string()
        },
        seeds: o.seeds,
        operations: o.ops.clone(),
        planned: impls.iter().map(|k| k.meta().label()).collect(),
        cache_geometry: valgrind::CACHE_GEOMETRY.to_string(),
        separate_callers: valgrind::SEPARATE_CALLERS,
        tree_depth: o.tree_depth,
        tree_threshold: o.tree_threshold,
        sha3_probe: o.sha3_probe,
    };
    let run_id = store::new_run_id();
    let mut recorder = Recorder::open(store_spec, o.store, &run_id)?;
    let record = ProfileRecord::new(
        Some(run_id.clone()),
        store::recorded_command_line(),
        config,
        Environment::for_implementations(&impls),
        measured,
    );
    recorder.begin(records::run_row(&record));
    recorder.announce(&run_id);
    execute(
        record,
        impls,
        o,
        o.include_mock,
        valgrind,
        recorder,
        store_spec,
    )
}

/// `profile --resume RUN`: profiles, with the run's own configuration, the planned
/// implementations it has no final result for, under the valgrind that made its counts.
fn resume(selector: &str, o: &Options, store_spec: &str) -> anyhow::Result<ExitCode> {
    let mut st = Store::open_existing(store_spec)?;
    let (id, mut record) = crate::resume::load(
        &mut st,
        selector,
        RecordKind::Profile,
        "profile",
        |r| match r {
            AnyRecord::Profile(r) => Some(r),
            _ => None,
        },
    )?;
    let valgrind = valgrind::locate()?;
    let version = valgrind::version(&valgrind)?;
    if version != record.measured.valgrind {
        crate::bail_usage!(
            "profile {id} was counted under {}, and this machine has {version}: exact counts \
             of two valgrind versions are not one profile. The run stays resumable where its \
             valgrind is.",
            record.measured.valgrind
        );
    }
    let include_mock = record.config.planned.iter().any(|l| l.contains("@mock/"));
    let registry = Registry::new(include_mock);
    let todo = crate::resume::unfinished(&record, &id, &registry)?;
    println!(
        "Resuming profile {id}: {} of {} implementations to profile",
        todo.len(),
        record.config.planned.len()
    );
    // The unfinished results are profiled again from the start.
    record.results.retain(|r| r.is_final());
    record.state.interrupted = false;
    record.state.resumed_at.push(crate::record::now_rfc3339());
    execute(
        *record,
        todo,
        o,
        include_mock,
        valgrind,
        Recorder::with(st, &id),
        store_spec,
    )
}

/// Profiles `impls` into `record` with the record's configuration, storing each result as
/// it finishes, then writes the flame graphs and prints the tables. Ctrl-C or SIGTERM kills
/// the profiles in progress: what finished is kept and the run is interrupted, resumable.
fn execute(
    record: ProfileRecord,
    impls: Vec<std::sync::Arc<dyn crate::kem::Kem>>,
    o: &Options,
    include_mock: bool,
    valgrind: std::path::PathBuf,
    recorder: Recorder,
    store_spec: &str,
) -> anyhow::Result<ExitCode> {
    let exe = std::env::current_exe()?;
    let config = record.config.clone();
    let mut end = Ending::start(
        record,
        recorder,
        &o.outputs,
        "killing the profiles in progress",
    )?
    .on_interrupt(OnInterrupt::Resume("profile"));
    let plan = Plan {
        impls,
        config,
        include_mock,
        jobs: o.jobs,
        timeout: Duration::from_secs_f64(o.timeout_s),
        valgrind,
        names: profile::symbols::unsized_text_symbols(&exe),
        exe,
        keep: o.callgrind_out.clone(),
        debug: crate::callgrind::DebugInfo::new(),
    };
    let total = plan.impls.len();
    eprintln!(
        "profile: {total} implementation(s), {} seed(s) each, {} at a time, under callgrind ...",
        plan.config.seeds, plan.jobs
    );
    let mut done = 0;
    profile::profile_all(
        &plan,
        &crate::interrupt::requested,
        &mut |r: ProfileResult| {
            done += 1;
            eprintln!(
                "profile: {} ({done} of {total}): {}",
                r.label(),
                r.status().as_str()
            );
            end.put(r);
        },
    );
    end.finish(crate::interrupt::requested(), o.layout, |record, _| {
        if let Some(dir) = &o.flamegraphs {
            let n = crate::files::write_into(
                dir,
                crate::record::profile::flames::all(record)?,
                &store::protected(store_spec),
            )?;
            eprintln!("profile: {n} flame graph(s) in {}", dir.display());
        }
        Ok(())
    })
}
