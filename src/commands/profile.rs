//! `kembench profile`: profile under callgrind, record, write the result files and flame
//! graphs, print the tables.

use crate::cli::{
    non_negative_pct, positive_seconds, FilterArgs, OutputArgs, SessionArgs, ShardArgs,
};
use crate::ending::{Ending, OnInterrupt};
use crate::env::Environment;
use crate::export::Outputs;
use crate::files::Protected;
use crate::kem::Op;
use crate::output::Width;
use crate::profile::{self, valgrind, Plan};
use crate::providers::Filter;
use crate::providers::Registry;
use crate::record::profile::{ProfileConfig, ProfileMeasured, ProfileRecord, ProfileResult};
use crate::record::{AnyRecord, Benchmark, RecordKind};
use crate::store::records;
use crate::store::{self, Recorder, Store};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// Options of `profile`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Which implementations.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Every implementation instead of the default suite (ignored when filters are given).
    #[arg(long)]
    pub all: bool,
    /// Operations to profile (default: keygen, encaps, decaps; sk-import and pk-import only
    /// where the library has that step).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub ops: Vec<crate::kem::Op>,
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
    /// Estimate the cycles of each call on these CPUs (comma-separated LLVM names, `default`
    /// for each architecture's set: x86-64 this machine's model, znver4, sapphirerapids;
    /// aarch64 cortex-a55, cortex-a76, neoverse-n1, neoverse-v2; s390x z15, z16; ppc64le pwr9,
    /// pwr10; riscv64 sifive-u74, sifive-p670): every counted block (QEMU's for a foreign
    /// build, callgrind's per-instruction counts natively) priced by llvm-mca 19's scheduling
    /// model of the CPU.
    /// A model estimate (no caches, mispredictions, memory latency or clock); a name LLVM
    /// prices with another CPU's model says so.
    #[arg(long, value_delimiter = ',', value_name = "CPUS")]
    pub cpus: Vec<String>,
    /// Whether the run is stored, and the interrupted run it completes.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Every column, and every operation's hot-path tree, hottest functions and lines.
    #[arg(long)]
    pub wide: bool,
    /// Gate on exact counts against a baseline profile (a result file, or a run in the store:
    /// an id, `latest`, `latest~N`): after profiling, exit 1 when an operation executes more
    /// than --threshold percent more instructions than in the baseline, and print a Markdown
    /// summary (per operation: before, after, change; the functions whose self counts
    /// changed most). What a pull request's CI runs; see docs/ci.md.
    #[arg(long, value_name = "FILE|RUN")]
    pub baseline: Option<String>,
    /// With --baseline: the largest increase in instructions per operation that passes,
    /// percent (0 to 100; exact counts make a tight one possible).
    #[arg(long, value_name = "PCT", default_value_t = crate::record::profile::gate::DEFAULT_THRESHOLD_PCT)]
    pub threshold: f64,
    /// With --baseline: gate this profile's implementation NEW against the baseline's OLD
    /// (`OLD=NEW`, repeatable): for builds whose ids differ (another compiler or flags, as
    /// `local/pkg@gcc-12:O2=local/pkg@gcc-12:O0`).
    #[arg(long, value_name = "OLD=NEW", requires = "baseline")]
    pub pair: Vec<String>,
    /// With --baseline: pass even where the gate cannot compare (a baseline counted under
    /// another valgrind or simulated cache; an operation whose random draws the seed did not
    /// fix, profiled with one seed), saying what was not gated. Without it such a gate fails.
    #[arg(long, requires = "baseline")]
    pub allow_ungated: bool,
    /// With --baseline: also write the summary (Markdown, for a pull-request comment) here.
    #[arg(long, value_name = "FILE", requires = "baseline")]
    pub summary: Option<std::path::PathBuf>,
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
        command(&self.to_options(cpus)?, spec)
    }

    /// The validated options of `profile`.
    fn to_options(&self, cpus: usize) -> anyhow::Result<Options> {
        positive_seconds("--timeout", self.timeout)?;
        if self.tree_threshold >= 100.0 {
            crate::bail_usage!(
                "--tree-threshold is a percentage below 100, got {}",
                self.tree_threshold
            );
        }
        self.output.check_dirs()?;
        if !(0.0..=100.0).contains(&self.threshold) {
            crate::bail_usage!(
                "--threshold is a percentage from 0 to 100, got {}",
                self.threshold
            );
        }
        if self.baseline.is_some() && self.session.resume.is_some() {
            crate::bail_usage!("--baseline gates a new profile; it cannot be used with --resume");
        }
        if let Some(p) = &self.summary {
            crate::files::target(p)?;
        }
        self.session.check("a profile")?;
        let shard = self.shard.job(self.session.resume.is_some())?;
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
            filter: self.filter.to_filter(),
            include_mock: self.filter.include_mock,
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
            cpus: self.cpus.clone(),
            store: !self.session.no_store,
            resume: self.session.resume.clone(),
            outputs: self.output.files(),
            layout: Width::wide_if(self.wide),
            shard,
            gate: match &self.baseline {
                None => None,
                Some(baseline) => Some(GateOptions {
                    baseline: baseline.clone(),
                    threshold_pct: self.threshold,
                    allow_ungated: self.allow_ungated,
                    summary: self.summary.clone(),
                    pairs: self
                        .pair
                        .iter()
                        .map(|p| match p.split_once('=') {
                            Some((a, b)) if !a.is_empty() && !b.is_empty() => {
                                Ok((a.to_string(), b.to_string()))
                            }
                            _ => Err(crate::usage::Usage(format!(
                                "--pair takes OLD=NEW (two implementation ids), got {p:?}"
                            ))),
                        })
                        .collect::<Result<_, _>>()?,
                }),
            },
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
    /// The CPUs of `--cpus`, as asked.
    pub cpus: Vec<String>,
    /// Record the profile in the results store.
    pub store: bool,
    /// The profile to resume, if any.
    pub resume: Option<String>,
    /// Result files.
    pub outputs: Outputs,
    /// How much the console tables show.
    pub layout: Width,
    /// The sweep this profile is one job of, if any.
    pub shard: Option<crate::shard::Job>,
    /// The gate against a baseline, when asked for.
    pub gate: Option<GateOptions>,
}

/// `profile --baseline`, validated.
#[derive(Debug, Clone)]
pub struct GateOptions {
    /// The baseline's selector (a file, or a run in the store).
    pub baseline: String,
    /// The largest increase that passes, percent.
    pub threshold_pct: f64,
    /// Pass, saying so, where the gate cannot compare (`--allow-ungated`).
    pub allow_ungated: bool,
    /// Where the Markdown summary also goes.
    pub summary: Option<std::path::PathBuf>,
    /// Baseline implementation ids gated against other ids of this profile: (old, new).
    pub pairs: Vec<(String, String)>,
}

/// A profile about to be made: the record, what to profile, and where it goes.
struct Started {
    record: ProfileRecord,
    impls: Vec<std::sync::Arc<dyn crate::kem::Kem>>,
    include_mock: bool,
    valgrind: std::path::PathBuf,
    recorder: Recorder,
    baseline: Option<Baseline>,
}

/// A loaded baseline, ready to gate a new profile.
struct Baseline {
    name: String,
    record: ProfileRecord,
    threshold_pct: f64,
    allow_ungated: bool,
    summary: Option<std::path::PathBuf>,
}

/// Runs `profile`.
fn command(o: &Options, store_spec: &str) -> anyhow::Result<ExitCode> {
    let summary = o.gate.as_ref().and_then(|g| g.summary.as_deref());
    let outputs = || o.outputs.iter().map(|(_, p)| p.as_path()).chain(summary);
    store::refuse_over_store(outputs(), store_spec)?;
    // A baseline given as a file is an input: no output may replace it.
    if let Some(g) = o.gate.as_ref().filter(|g| Path::new(&g.baseline).is_file()) {
        let input = [Protected::new(
            "the --baseline profile, an input of this command",
            &g.baseline,
        )];
        outputs().try_for_each(|out| crate::files::refuse_overwrite(out, &input))?;
    }
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
    let (impls, sweep) = crate::shard::split(o.shard.as_ref(), impls, "profile");
    let (cpus, llvm) = cycle_models(&o.cpus, &impls)?;
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
        cpus,
        llvm,
    };
    // The baseline is read, and checked against what is about to be profiled, before
    // anything is measured.
    let baseline = match &o.gate {
        None => None,
        Some(g) => Some(load_baseline(g, store_spec, &config.planned)?),
    };
    let run_id = store::new_run_id();
    let mut recorder = Recorder::open(store_spec, o.store, &run_id)?;
    let mut record = ProfileRecord::new(
        Some(run_id.clone()),
        store::recorded_command_line(),
        config,
        Environment::for_implementations(&impls),
        measured,
    );
    record.sweep = sweep;
    recorder.begin(records::run_row(&record));
    recorder.announce(&run_id);
    let started = Started {
        record,
        impls,
        include_mock: o.include_mock,
        valgrind,
        recorder,
        baseline,
    };
    execute(started, o, store_spec)
}

/// The CPUs of `--cpus` for the architectures of `impls` (a foreign build's, the host's for the
/// others), each with its model, and the LLVM that prices them: refused (bad input) for an
/// unknown name (with the nearest), a CPU of another architecture or one without a model.
fn cycle_models(
    asked: &[String],
    impls: &[std::sync::Arc<dyn crate::kem::Kem>],
) -> anyhow::Result<(Vec<crate::record::profile::CpuModel>, String)> {
    if asked.is_empty() {
        return Ok((Vec::new(), String::new()));
    }
    // A foreign build's architecture, or the host's for a native implementation (counted
    // under callgrind, instruction by instruction).
    let mut arches: Vec<crate::arch::Arch> = impls
        .iter()
        .map(|k| crate::engine::foreign_arch(k.as_ref()).unwrap_or_else(crate::arch::Arch::host))
        .collect();
    arches.sort();
    arches.dedup();
    let tools = crate::cycles::Tools::find().map_err(anyhow::Error::msg)?;
    let models =
        crate::cycles::resolve(&tools, &arches, asked).map_err(|r| crate::usage::Usage(r.0))?;
    for m in models.iter().filter(|m| m.substituted()) {
        eprintln!(
            "profile: --cpus {}: {} prices it with {}'s scheduling model",
            m.cpu, tools.version, m.model
        );
    }
    Ok((models, tools.version))
}

/// Reads the baseline of `--baseline`: a profile, sharing at least one implementation with
/// `planned` (a baseline of another set is refused with both sets named).
fn load_baseline(
    g: &GateOptions,
    store_spec: &str,
    planned: &[String],
) -> anyhow::Result<Baseline> {
    let (name, mut record) =
        store::load_kind::<crate::record::profile::Profile>(store_spec, &g.baseline)
            .map_err(|e| e.context("--baseline"))?;
    for (old, new) in &g.pairs {
        if !record.results.iter().any(|r| r.implementation == *old) {
            crate::bail_usage!(
                "--pair {old}={new}: the baseline {name} has no implementation {old}"
            );
        }
        crate::record::profile::gate::pair(&mut record, old, new);
    }
    // In common: the same label, or the same build of another version of a source tree (the
    // gate pairs them, see `compare::partner`).
    let version_less = |l: &str| match l.split_once('@') {
        Some((alg, id)) => format!("{alg}@{}", crate::arch::BuildId::version_less(id)),
        None => l.to_string(),
    };
    let planned_less: Vec<String> = planned.iter().map(|l| version_less(l)).collect();
    if !record
        .config
        .planned
        .iter()
        .any(|l| planned.contains(l) || planned_less.contains(&version_less(l)))
    {
        crate::bail_usage!(
            "--baseline {name} profiled {}, and this profile would profile {}: nothing in common to gate on",
            record.config.planned.join(", "),
            planned.join(", ")
        );
    }
    Ok(Baseline {
        name,
        record,
        threshold_pct: g.threshold_pct,
        allow_ungated: g.allow_ungated,
        summary: g.summary.clone(),
    })
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
    let started = Started {
        record: *record,
        impls: todo,
        include_mock,
        valgrind,
        recorder: Recorder::with(st, &id),
        baseline: None,
    };
    execute(started, o, store_spec)
}

/// Profiles `impls` into `record` with the record's configuration, storing each result as
/// it finishes, then writes the flame graphs and prints the tables. Ctrl-C or SIGTERM kills
/// the profiles in progress: what finished is kept and the run is interrupted, resumable.
fn execute(s: Started, o: &Options, store_spec: &str) -> anyhow::Result<ExitCode> {
    let Started {
        record,
        impls,
        include_mock,
        valgrind,
        recorder,
        baseline,
    } = s;
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
    let foreign = plan
        .impls
        .iter()
        .filter(|k| crate::engine::foreign_arch(k.as_ref()).is_some())
        .count();
    let how = match (foreign, total - foreign) {
        (0, _) => "under callgrind".to_string(),
        (_, 0) => "under QEMU with kembench's counting plugin".to_string(),
        (f, _) => format!(
            "under callgrind ({f} foreign build(s) under QEMU with kembench's counting plugin)"
        ),
    };
    eprintln!(
        "profile: {total} implementation(s), {} seed(s) each, {} at a time, {how} ...",
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
    let mut gated = None;
    let code = end.finish(crate::interrupt::requested(), o.layout, |record, _| {
        if let Some(dir) = &o.flamegraphs {
            let n = crate::files::write_into(
                dir,
                crate::record::profile::flames::all(record)?,
                &store::protected(store_spec),
            )?;
            eprintln!("profile: {n} flame graph(s) in {}", dir.display());
        }
        if let Some(b) = &baseline {
            gated = Some(crate::record::profile::gate::gate(
                &b.name,
                &b.record,
                record,
                b.threshold_pct,
                b.allow_ungated,
            ));
        }
        Ok(())
    })?;
    let (Some(g), Some(b)) = (gated, baseline) else {
        return Ok(code);
    };
    println!("\n{}", g.markdown.trim_end());
    if let Some(path) = &b.summary {
        crate::files::write_output(path, g.markdown.as_bytes())?;
        eprintln!("profile: the gate's summary is in {}", path.display());
    }
    println!("Gate: {}", g.verdict);
    Ok(if g.passed || code != ExitCode::SUCCESS {
        code
    } else {
        ExitCode::from(crate::exit::FAILED)
    })
}

/// `kembench profile-worker`'s command line: one worker process of `profile`, run under
/// callgrind (internal).
#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
    /// `algorithm@implementation`.
    #[arg(long, default_value = "")]
    label: String,
    /// The seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Operations.
    #[arg(long, value_delimiter = ',', value_enum)]
    ops: Vec<Op>,
    /// Offer the mock provider.
    #[arg(long)]
    include_mock: bool,
    /// Route liboqs's SHA-3 through the counting wrappers.
    #[arg(long)]
    sha3_probe: bool,
    /// Only print the CPU features this process sees.
    #[arg(long)]
    cpu_features: bool,
    /// Run natively: the correctness check and the hardware counters.
    #[arg(long)]
    native: bool,
}

impl WorkerArgs {
    /// Serves the profiled run (or prints the CPU features).
    pub fn run(self) -> anyhow::Result<ExitCode> {
        if self.cpu_features {
            profile::worker::features()
        } else {
            profile::worker::serve(profile::worker::WorkerArgs {
                label: self.label,
                seed: self.seed,
                ops: self.ops,
                include_mock: self.include_mock,
                sha3_probe: self.sha3_probe,
                native: self.native,
            })
        }
        .map(|()| ExitCode::SUCCESS)
    }
}
