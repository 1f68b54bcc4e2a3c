//! `kembench ct`: constant-time screening of each implementation and build, recorded, written
//! to the result files and printed; exit 1 when a finding no exception list explains remains.

use crate::cli::{positive_seconds, FilterArgs, OutputArgs};
use crate::ct::{exceptions::Exceptions, Context};
use crate::ending::Ending;
use crate::env::Environment;
use crate::export::Outputs;
use crate::measure::sampler::Op;
use crate::output::Width;
use crate::providers::{Filter, Registry};
use crate::record::ct::{CtConfig, CtMeasured, CtRecord, CtResult, Screen, Verdict};
use crate::record::Benchmark;
use crate::store::records;
use crate::store::{self, Recorder};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Options of `ct`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
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
    /// Seconds a valgrind worker may run before it is stopped.
    #[arg(long, default_value_t = 300.0)]
    pub worker_timeout: f64,
    /// Screen every implementation of this build (default: the default suite, or the filters).
    #[arg(long)]
    pub all: bool,
    /// Do not record the run in the results store.
    #[arg(long)]
    pub no_store: bool,
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
    /// The validated options of `ct`.
    pub fn to_options(&self, filter: &FilterArgs) -> anyhow::Result<Options> {
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
        self.output.check_dirs()?;
        Ok(Options {
            filter: filter.to_filter(),
            include_mock: filter.include_mock,
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
            worker_timeout: Duration::from_secs_f64(self.worker_timeout),
            store: !self.no_store,
            outputs: self.output.files(),
            layout: Width::wide_if(self.wide),
        })
    }
}

/// `kembench ct`, validated.
#[derive(Debug)]
pub struct Options {
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
pub fn run(o: &Options, store_spec: &str) -> anyhow::Result<ExitCode> {
    store::refuse_over_store(o.outputs.iter().map(|(_, p)| p.as_path()), store_spec)?;
    let registry = Registry::new(o.include_mock);
    let (impls, _) = crate::providers::suite::select(&registry, &o.filter, o.all)?;
    // The valgrind screens need valgrind: said now, with the command that installs it, not
    // after every implementation has been reported as not screened.
    let needs_valgrind = o
        .screens
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
    let valgrind_version = match &valgrind {
        Ok(v) => crate::profile::valgrind::version(v).ok(),
        Err(_) => None,
    };
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
    let run_id = store::new_run_id();
    let mut recorder = Recorder::open(store_spec, o.store, &run_id)?;
    let record = CtRecord::new(
        Some(run_id.clone()),
        store::recorded_command_line(),
        CtConfig {
            planned: impls.iter().map(|k| k.meta().label()).collect(),
            operations: o.ops.clone(),
            screens: o.screens.clone(),
            timing_budget_s: o.timing_budget.as_secs_f64(),
            seed: o.seed,
            exceptions: o.exception_sources.clone(),
            worker_timeout_s: o.worker_timeout.as_secs_f64(),
            include_mock: o.include_mock,
        },
        Environment::for_implementations(&impls),
        CtMeasured {
            valgrind: valgrind_version,
        },
    );
    recorder.begin(records::run_row(&record));
    recorder.announce(&run_id);
    let mut end = Ending::start(
        record,
        recorder,
        &o.outputs,
        "the implementation in progress",
    )?
    .failed_when(|r: &CtResult| !r.measured() || r.verdict() == Verdict::Unexplained);
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
            k.meta().label(),
            i + 1,
            impls.len()
        );
        let r = crate::ct::screen_one(
            &ctx,
            &plan,
            k.as_ref(),
            &o.exceptions,
            &crate::interrupt::requested,
        );
        end.put(r);
    }
    end.finish(crate::interrupt::requested(), o.layout, |_, _| Ok(()))
}
