//! `kembench ct`: constant-time screening of each implementation and build, recorded, written
//! to the result files and printed; exit 1 when a finding no exception list explains remains,
//! or a finding listed as a known issue that the user did not accept by its id (`--accept`,
//! or an `[[accept]]` entry of an exception list).

use crate::cli::{positive_seconds, FilterArgs, OutputArgs, SessionArgs};
use crate::ct::{exceptions::Exceptions, Context};
use crate::ending::Ending;
use crate::env::Environment;
use crate::export::Outputs;
use crate::kem::Op;
use crate::output::Width;
use crate::providers::{Filter, Registry};
use crate::record::ct::{CtConfig, CtMeasured, CtRecord, CtResult, Screen};
use crate::record::Benchmark;
use crate::store::records;
use crate::store::{self, Recorder};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Options of `ct`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Which implementations.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// The screens (default: all three): secret-flow (memcheck), latency (division and other
    /// variable-latency instructions), timing (dudect).
    #[arg(long, value_delimiter = ',', value_parser = parse_screen)]
    pub screens: Vec<Screen>,
    /// Operations (default: keygen, encaps, decaps, the ones that handle secrets).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub ops: Vec<Op>,
    /// Seconds of the timing screen per implementation and operation.
    #[arg(long, default_value_t = 2.0)]
    pub timing_budget: f64,
    /// The seed of the marked random draws.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// An exception list of your own (TOML, as `ct-exceptions/*.toml`), added to kembench's.
    #[arg(long, value_name = "FILE")]
    pub exceptions: Vec<PathBuf>,
    /// Accept these known issues, by the id printed beside each finding (an `issue` entry of
    /// the exception lists): their findings no longer fail the run (exit 1 otherwise).
    #[arg(long, value_delimiter = ',', value_name = "ID")]
    pub accept: Vec<String>,
    /// Seconds a valgrind worker may run before it is stopped.
    #[arg(long, default_value_t = 300.0)]
    pub worker_timeout: f64,
    /// Screen every implementation of this build (default: the default suite, or the filters).
    #[arg(long)]
    pub all: bool,
    /// Whether the run is stored, and the interrupted run it completes.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Every finding and reason in its row, instead of tables that fit 120 columns.
    #[arg(long)]
    pub wide: bool,
    /// Result files.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The SHA-256 of `bytes`, in hexadecimal.
fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

fn parse_screen(s: &str) -> Result<Screen, String> {
    Screen::parse(s).ok_or_else(|| {
        let names: Vec<String> = Screen::ALL.iter().map(|x| x.as_str().to_string()).collect();
        let near = crate::suggest::nearest(s, &names);
        let near = if near.is_empty() {
            String::new()
        } else {
            format!(" (did you mean {}?)", near.join(", "))
        };
        format!(
            "unknown screen {s:?}{near}; the screens are {}",
            names.join(", ")
        )
    })
}

impl Args {
    /// Runs the command on the store `spec`.
    pub fn run(self, spec: &str) -> anyhow::Result<ExitCode> {
        command(&self.to_options()?, spec)
    }

    /// The validated options of `ct`.
    fn to_options(&self) -> anyhow::Result<Options> {
        positive_seconds("--timing-budget", self.timing_budget)?;
        positive_seconds("--worker-timeout", self.worker_timeout)?;
        let ops = if self.ops.is_empty() {
            crate::ct::worker::OPS.to_vec()
        } else {
            self.ops.clone()
        };
        if let Some(op) = ops.iter().find(|o| !crate::ct::worker::OPS.contains(o)) {
            crate::bail_usage!(
                "--ops {}: ct screens the operations that handle secrets: keygen, encaps, decaps",
                op.as_str()
            );
        }
        let mut exceptions = Exceptions::builtin()?;
        let mut sources: Vec<String> = crate::ct::exceptions::BUILTIN
            .iter()
            .map(|(path, text)| format!("{path} (kembench's, sha256 {})", sha256(text.as_bytes())))
            .collect();
        for f in &self.exceptions {
            exceptions.merge(Exceptions::load(f)?)?;
            let bytes = std::fs::read(f)?;
            sources.push(format!("{} (sha256 {})", f.display(), sha256(&bytes)));
        }
        exceptions.accept(&self.accept, "--accept");
        exceptions.check_accepted()?;
        self.session.check("a ct run")?;
        self.output.check_dirs()?;
        Ok(Options {
            resume: self.session.resume.clone(),
            filter: self.filter.to_filter(),
            include_mock: self.filter.include_mock,
            all: self.all,
            screens: if self.screens.is_empty() {
                Screen::ALL.to_vec()
            } else {
                self.screens.clone()
            },
            ops,
            timing_budget: Duration::from_secs_f64(self.timing_budget),
            seed: self.seed,
            exceptions,
            exception_sources: sources,
            accepted: self.accept.iter().map(|a| a.trim().to_string()).collect(),
            worker_timeout: Duration::from_secs_f64(self.worker_timeout),
            store: !self.session.no_store,
            outputs: self.output.files(),
            layout: Width::wide_if(self.wide),
        })
    }
}

/// `kembench ct`, validated.
#[derive(Debug)]
pub struct Options {
    /// The interrupted run to continue, if any.
    pub resume: Option<String>,
    /// Which implementations (empty: the default suite).
    pub filter: Filter,
    /// Whether the mock implementations are offered.
    pub include_mock: bool,
    /// Every implementation rather than the default suite.
    pub all: bool,
    /// The screens to run.
    pub screens: Vec<Screen>,
    /// The operations to screen.
    pub ops: Vec<Op>,
    /// The timing screen's budget per implementation and operation.
    pub timing_budget: Duration,
    /// The seed of the marked draws.
    pub seed: u64,
    /// kembench's exception lists and the user's.
    pub exceptions: Exceptions,
    /// The files of the lists, with their SHA-256, for the record.
    pub exception_sources: Vec<String>,
    /// The known issues accepted on the command line, by id, for the record.
    pub accepted: Vec<String>,
    /// How long a valgrind worker may run.
    pub worker_timeout: Duration,
    /// Record the run in the results store.
    pub store: bool,
    /// Result files.
    pub outputs: Outputs,
    /// How much the console tables show.
    pub layout: Width,
}

/// Runs `ct`.
fn command(o: &Options, store_spec: &str) -> anyhow::Result<ExitCode> {
    store::refuse_over_store(o.outputs.iter().map(|(_, p)| p.as_path()), store_spec)?;
    if let Some(sel) = &o.resume {
        return resume(sel, o, store_spec);
    }
    let registry = Registry::new(o.include_mock);
    let (impls, _) = crate::providers::suite::select(&registry, &o.filter, o.all)?;
    let valgrind = valgrind_for(&o.screens)?;
    let valgrind_version = match &valgrind {
        Ok(v) => crate::profile::valgrind::version(v).ok(),
        Err(_) => None,
    };
    let config = CtConfig {
        planned: impls.iter().map(|k| k.meta().label()).collect(),
        operations: o.ops.clone(),
        screens: o.screens.clone(),
        timing_budget_s: o.timing_budget.as_secs_f64(),
        seed: o.seed,
        exceptions: o.exception_sources.clone(),
        accepted: o.accepted.clone(),
        worker_timeout_s: o.worker_timeout.as_secs_f64(),
        include_mock: o.include_mock,
    };
    let run_id = store::new_run_id();
    let mut recorder = Recorder::open(store_spec, o.store, &run_id)?;
    let record = CtRecord::new(
        Some(run_id.clone()),
        store::recorded_command_line(),
        config,
        Environment::for_implementations(&impls),
        CtMeasured {
            valgrind: valgrind_version,
        },
    );
    recorder.begin(records::run_row(&record));
    recorder.announce(&run_id);
    execute(record, impls, recorder, valgrind, &o.exceptions, o)
}

/// valgrind's executable, or why there is none; an error when a screen asked for needs it
/// (said now, with the command that installs it, not after every implementation has been
/// reported as not screened).
fn valgrind_for(screens: &[Screen]) -> anyhow::Result<Result<PathBuf, String>> {
    let needs_valgrind = screens
        .iter()
        .any(|s| matches!(s, Screen::SecretFlow | Screen::Latency));
    let valgrind = crate::profile::valgrind::locate().map_err(|_| {
        "valgrind is not installed (needed by the secret-flow and latency screens of `kembench \
         ct`): install it with `sudo apt-get install valgrind` or run scripts/setup, or screen \
         timing alone with `--screens timing`"
            .to_string()
    });
    if let (true, Err(e)) = (needs_valgrind, &valgrind) {
        anyhow::bail!("{e}");
    }
    Ok(valgrind)
}

/// `ct --resume RUN`: screens, with the run's own configuration, the planned implementations
/// it has no final result for. Refused when valgrind's version or the exception lists differ
/// from the run's (its findings are explained by one set of lists and seen by one valgrind).
fn resume(selector: &str, o: &Options, store_spec: &str) -> anyhow::Result<ExitCode> {
    use crate::record::{AnyRecord, RecordKind};
    let mut st = store::Store::open_existing(store_spec)?;
    let (id, mut record) =
        crate::resume::load(&mut st, selector, RecordKind::Ct, "ct", |r| match r {
            AnyRecord::Ct(r) => Some(r),
            _ => None,
        })?;
    let c = record.config.clone();
    let valgrind = valgrind_for(&c.screens)?;
    let version = match &valgrind {
        Ok(v) => crate::profile::valgrind::version(v).ok(),
        Err(_) => None,
    };
    if version != record.measured.valgrind {
        crate::bail_usage!(
            "ct run {id} was screened under {}, and this machine has {}: one run's findings \
             come from one valgrind. The run stays resumable where its valgrind is.",
            record.measured.valgrind.as_deref().unwrap_or("no valgrind"),
            version.as_deref().unwrap_or("no valgrind")
        );
    }
    let mut exceptions = resumed_exceptions(&id, &c.exceptions)?;
    exceptions.accept(&c.accepted, "--accept");
    exceptions.check_accepted()?;
    let registry = Registry::new(c.include_mock);
    let todo = crate::resume::unfinished(&*record, &id, &registry)?;
    println!(
        "Resuming ct run {id}: {} of {} implementations to screen",
        todo.len(),
        c.planned.len()
    );
    record.results.retain(|r| r.is_final());
    record.state.interrupted = false;
    let opts = Options {
        resume: None,
        filter: Filter::default(),
        include_mock: c.include_mock,
        all: false,
        screens: c.screens.clone(),
        ops: c.operations.clone(),
        timing_budget: Duration::from_secs_f64(c.timing_budget_s),
        seed: c.seed,
        exceptions: Exceptions::builtin()?,
        exception_sources: c.exceptions.clone(),
        accepted: c.accepted.clone(),
        worker_timeout: Duration::from_secs_f64(c.worker_timeout_s),
        store: true,
        outputs: o.outputs.clone(),
        layout: o.layout,
    };
    execute(
        *record,
        todo,
        store::Recorder::with(st, &id),
        valgrind,
        &exceptions,
        &opts,
    )
}

/// The exception lists a resumed run was started with: kembench's own must be the same
/// (their SHA-256 in the run's sources), and each file of the user's is read again and must
/// be unchanged.
fn resumed_exceptions(id: &str, sources: &[String]) -> anyhow::Result<Exceptions> {
    let mut exceptions = Exceptions::builtin()?;
    let builtin: Vec<String> = crate::ct::exceptions::BUILTIN
        .iter()
        .map(|(path, text)| format!("{path} (kembench's, sha256 {})", sha256(text.as_bytes())))
        .collect();
    let changed = |what: &str| -> anyhow::Error {
        crate::usage::Usage(format!(
            "ct run {id} cannot be resumed with the same exception lists: {what}; one run's \
             findings are explained by one set of lists. Start a new run."
        ))
        .into()
    };
    for b in &builtin {
        if !sources.contains(b) {
            return Err(changed(&format!(
                "kembench's own lists changed since ({b})"
            )));
        }
    }
    for s in sources.iter().filter(|s| !builtin.contains(s)) {
        if s.contains("(kembench's, sha256 ") {
            return Err(changed(&format!(
                "kembench's own lists changed since ({s})"
            )));
        }
        let Some((path, sum)) = s.rsplit_once(" (sha256 ") else {
            return Err(changed(&format!(
                "the run names a list kembench cannot read: {s}"
            )));
        };
        let path = PathBuf::from(path);
        let bytes = std::fs::read(&path)
            .map_err(|e| changed(&format!("{} cannot be read: {e}", path.display())))?;
        if format!("{})", sha256(&bytes)) != sum {
            return Err(changed(&format!("{} changed since", path.display())));
        }
        exceptions.merge(Exceptions::load(&path)?)?;
    }
    Ok(exceptions)
}

/// Screens `impls` into `record`, each result stored as it is made; Ctrl-C or SIGTERM stops
/// between implementations and leaves the run interrupted, resumable.
fn execute(
    record: CtRecord,
    impls: Vec<std::sync::Arc<dyn crate::kem::Kem>>,
    recorder: Recorder,
    valgrind: Result<PathBuf, String>,
    exceptions: &Exceptions,
    o: &Options,
) -> anyhow::Result<ExitCode> {
    let work = crate::ct::WorkDir::new()?;
    let ctx = Context {
        exe: std::env::current_exe()?,
        include_mock: o.include_mock,
        seed: o.seed,
        valgrind,
        work_dir: work.path().to_path_buf(),
        timing_budget: o.timing_budget,
        worker_timeout: o.worker_timeout,
    };
    let mut end = Ending::start(
        record,
        recorder,
        &o.outputs,
        "the implementation in progress",
    )?
    .on_interrupt(crate::ending::OnInterrupt::CountAndResume("ct"))
    .failed_when(CtResult::fails);
    let plan = crate::ct::Plan {
        screens: o.screens.clone(),
        ops: o.ops.clone(),
    };
    for (i, k) in impls.iter().enumerate() {
        if crate::interrupt::requested() {
            break;
        }
        eprintln!(
            "ct: {} ({} of {}) ...",
            crate::output::clean(&k.meta().label()),
            i + 1,
            impls.len()
        );
        let r = crate::ct::screen_one(
            &ctx,
            &plan,
            k.as_ref(),
            exceptions,
            &crate::interrupt::requested,
        );
        end.put(r);
    }
    end.finish(crate::interrupt::requested(), o.layout, |_, _| Ok(()))
}

/// `kembench ct-worker`'s command line: one worker process of `ct`, run under memcheck or
/// callgrind (internal).
#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
    /// `algorithm@implementation`.
    #[arg(long)]
    label: String,
    /// The operations, in order.
    #[arg(long, value_delimiter = ',', value_enum)]
    ops: Vec<Op>,
    /// The seed of the draws.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Offer the mock provider.
    #[arg(long)]
    include_mock: bool,
}

impl WorkerArgs {
    /// Serves the screened operations.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        crate::ct::worker::serve(crate::ct::worker::WorkerArgs {
            label: self.label,
            ops: self.ops,
            seed: self.seed,
            include_mock: self.include_mock,
        })
        .map(|()| ExitCode::SUCCESS)
    }
}

/// `kembench ct-timing-worker`'s command line: one timing worker of `ct`, dudect's test
/// natively, pinned to one CPU (internal).
#[derive(Debug, clap::Args)]
pub struct TimingWorkerArgs {
    /// `algorithm@implementation`.
    #[arg(long)]
    label: String,
    /// The operations, in order.
    #[arg(long, value_delimiter = ',', value_enum)]
    ops: Vec<Op>,
    /// The time budget per operation, in milliseconds.
    #[arg(long)]
    budget_ms: u64,
    /// The seed of the classes' draws and the inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Offer the mock provider.
    #[arg(long)]
    include_mock: bool,
}

impl TimingWorkerArgs {
    /// Serves the timing test.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        crate::ct::timing::serve_worker(
            &self.label,
            &self.ops,
            Duration::from_millis(self.budget_ms),
            self.seed,
            self.include_mock,
        )
        .map(|()| ExitCode::SUCCESS)
    }
}
