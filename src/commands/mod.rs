//! The command line: the subcommands ([`Command`], one variant each) and their dispatch, then
//! one module per subcommand, each a leaf: it declares its own arguments (a measuring command's
//! `Args`, turned once into its validated `Options`), calls the engine (run, throughput,
//! profile, tls, verify, store, report) and the console, and returns the exit code. No command
//! module imports another; the argument groups several share are in [`crate::cli`].

mod builds;
mod compare;
mod ct;
mod list;
mod profile;
mod report;
mod run;
mod store;
mod throughput;
mod tls;
mod verify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Benchmark and profile KEMs and key exchange across implementations.
#[derive(Debug, Parser)]
#[command(name = "kembench", version, about, long_about = None)]
pub struct Cli {
    /// The results store: an SQLite file path, or a postgres:// URL (missing parts come from
    /// PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE). Default:
    /// $XDG_DATA_HOME/kembench/results.sqlite (~/.local/share/kembench/results.sqlite).
    #[arg(
        long,
        global = true,
        env = "KEMBENCH_STORE",
        hide_env_values = true,
        value_name = "PATH|URL"
    )]
    pub store: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// The settings given on the command line beside `--resume` (`--screens`, `--alg` ...):
    /// filled from clap's matches by [`Cli::parse_args`], not an argument.
    #[arg(skip)]
    pub beside_resume: Vec<String>,
}

impl Cli {
    /// The store to use: `--store`, `KEMBENCH_STORE`, or the default path.
    pub fn store_spec(&self) -> String {
        self.store
            .clone()
            .unwrap_or_else(|| crate::store::default_path().display().to_string())
    }

    /// The command line parsed as clap does (printing help, the version, or an error and
    /// exiting), except that an unknown subcommand is answered with the nearest subcommands a
    /// user can run ([`nearest_subcommands`]): clap's own tip names the hidden worker
    /// subcommands (`profle` → `profile-worker`) and misses short ones (`rn` → `runs`, not
    /// `run`).
    pub fn parse_args() -> Cli {
        use clap::{CommandFactory, FromArgMatches};
        let m = Cli::command()
            .try_get_matches()
            .unwrap_or_else(|e| with_visible_suggestions(e).exit());
        let mut cli =
            Cli::from_arg_matches(&m).unwrap_or_else(|e| e.format(&mut Cli::command()).exit());
        cli.beside_resume = beside_resume(&m);
        cli
    }
}

/// The options of a resumable command that are not settings of the run: where it is stored
/// and written, how much the console shows, which implementations are offered. Everything
/// else a resumed run takes from its own record.
const NOT_SETTINGS: &[&str] = &[
    "resume",
    "store",
    "no_store",
    "wide",
    "include_mock",
    "shard",
    "sweep",
];

/// The settings (`--screens`, `--time-budget`, `--alg` ...) given on the command line beside
/// `--resume` of a command that resumes a run, as typed (`--screens`); empty without
/// `--resume`. `--shard` and `--no-store` are refused with messages of their own.
fn beside_resume(m: &clap::ArgMatches) -> Vec<String> {
    use clap::parser::ValueSource;
    use clap::CommandFactory;
    let Some((name, sub)) = m.subcommand() else {
        return Vec::new();
    };
    let cmd = Cli::command();
    let Some(sc) = cmd.find_subcommand(name) else {
        return Vec::new();
    };
    // Asked only of a command that has `--resume` (clap's matches refuse an unknown id).
    if !sc.get_arguments().any(|a| a.get_id() == "resume")
        || sub.value_source("resume") != Some(ValueSource::CommandLine)
    {
        return Vec::new();
    }
    let outputs: Vec<&str> = crate::export::FORMATS.iter().map(|f| f.name()).collect();
    sc.get_arguments()
        .filter(|a| {
            let id = a.get_id().as_str();
            !NOT_SETTINGS.contains(&id)
                && !outputs.contains(&id)
                && sub.value_source(id) == Some(ValueSource::CommandLine)
        })
        .map(|a| match a.get_long() {
            Some(l) => format!("--{l}"),
            None => a.get_id().to_string(),
        })
        .collect()
}

/// `e`, or for an unknown subcommand the same error with [`nearest_subcommands`] as its tip.
fn with_visible_suggestions(e: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    use clap::CommandFactory;
    let Some(ContextValue::String(name)) = e.get(ContextKind::InvalidSubcommand) else {
        return e;
    };
    if e.kind() != ErrorKind::InvalidSubcommand {
        return e;
    }
    let mut cmd = Cli::command();
    let visible: Vec<String> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| s.get_name().to_string())
        .collect();
    let near = nearest_subcommands(name, &visible);
    let mut out = clap::Error::new(ErrorKind::InvalidSubcommand).with_cmd(&cmd);
    out.insert(
        ContextKind::InvalidSubcommand,
        ContextValue::String(name.clone()),
    );
    if !near.is_empty() {
        out.insert(
            ContextKind::SuggestedSubcommand,
            ContextValue::Strings(near),
        );
    }
    out.insert(
        ContextKind::Usage,
        ContextValue::StyledStr(cmd.render_usage()),
    );
    out
}

/// The subcommands of `names` nearest to `typed`, best first: those one or two edits away
/// (a letter missing, extra, wrong or two swapped) and those that read alike
/// (Jaro-Winkler above 0.85), at most three.
fn nearest_subcommands(typed: &str, names: &[String]) -> Vec<String> {
    let typed = typed.to_ascii_lowercase();
    let mut scored: Vec<(usize, f64, &String)> = names
        .iter()
        .map(|n| {
            let edits = strsim::damerau_levenshtein(&typed, n);
            (edits, strsim::jaro_winkler(&typed, n), n)
        })
        .filter(|(edits, alike, _)| *edits <= 2 || *alike > 0.85)
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    scored
        .into_iter()
        .take(3)
        .map(|(_, _, n)| n.clone())
        .collect()
}

/// The subcommands: each variant holds its command's own arguments, declared in the command's
/// module, which also runs it.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List algorithms, their sizes and their implementations.
    List(list::Args),
    /// Add your own KEM: a directory of C sources implementing the NIST KEM API (api.h with
    /// CRYPTO_* sizes and crypto_kem_keypair/enc/dec, as in NIST submission packages and PQClean),
    /// compiled like `builds`, checked against the package's own KAT file, and registered as
    /// `local/<name>@<compiler>:<flags>` for every later command.
    Add(builds::AddArgs),
    /// Compile the C sources kembench carries (PQClean clean, AVX2, opt) with every compiler and
    /// flag set into separate shared objects, check each with the correctness gate, and register
    /// them as implementations (`pqclean/clean@gcc-12:O3`); cached, so a second call compiles
    /// nothing. Exits 1 if a build failed to compile or failed the gate.
    Builds(builds::Args),
    /// Measure latency, TSC ticks, hardware counters, heap and stack of keygen, encaps, decaps
    /// and the full exchange (default suite unless filters or --all are given).
    Run(run::Args),
    /// Sustained operations per second at several thread counts, scaling efficiency, and TLS 1.3
    /// server capacity (default: ML-KEM-768, X25519MLKEM768 and the classical baselines).
    Throughput(throughput::Args),
    /// Real TLS 1.3 handshakes between a client and a server (rustls and OpenSSL 3.6, run-time
    /// certificates): each checked (negotiated group, exported keys, certificate), CPU per
    /// handshake on each side (full, resumed, HelloRetryRequest), bytes and TCP segments per
    /// flight, scaling over threads, the cores for a target rate beside the bare-KEM model,
    /// and with `--network` handshake times under RTT and loss in private network namespaces.
    Tls(tls::Args),
    /// Compare two runs: ratio of medians with a bootstrap interval and a verdict per
    /// operation, and the environment differences above the table. Each side is a run in the
    /// store (an id or a unique part of one, `latest`, `latest~N`, `host:NAME` or `cpu:TEXT`
    /// for the latest complete run on that host or CPU) or a `run --json` file.
    Compare(compare::Args),
    /// List the runs in the store, newest first: id, status, time, host, CPU, selection and
    /// how many benchmarks are stored (and how many of them did not end well).
    Runs(store::RunsArgs),
    /// Show one stored run: its environment, configuration and table.
    Show(store::ShowArgs),
    /// Write one stored run as JSON (the `run --json` layout, raw samples included), CSV or
    /// Markdown.
    Export(store::ExportArgs),
    /// Load a results file written elsewhere (the `--json` file of `run`, `throughput`,
    /// `profile` or `tls`) into the store, after validating it.
    Import(store::ImportArgs),
    /// Build a report from runs and profiles: one self-contained HTML page (inline CSS, JS and
    /// SVG charts, nothing fetched) or Markdown with one SVG file per chart. With several
    /// latency runs, the first is the baseline of a comparison and the last is the one
    /// charted; of several profiles, the last is shown.
    Report(report::Args),
    /// Exact instruction counts and where they go, under valgrind's callgrind: per operation
    /// the count over several seeds, shares in Keccak, SHA-2, AES, the RNG and bignum
    /// arithmetic, the hot-path tree, the hottest functions and lines, simulated cache misses,
    /// and flame graphs (default suite unless filters or --all are given).
    Profile(profile::Args),
    /// One worker process of `profile`, run under callgrind (internal).
    #[command(hide = true)]
    ProfileWorker(profile::WorkerArgs),
    /// Constant-time screening per secret-handling operation: secret-dependent branches and
    /// memory indexes under memcheck (every random byte marked secret), division and other
    /// variable-latency instructions from instruction counts and the disassembly, and dudect's
    /// timing test; findings an exception list explains are marked with its reason. Exits 1
    /// while a finding no list explains remains, or a known issue not accepted by its id
    /// (`--accept`) (default suite unless filters or --all).
    Ct(ct::Args),
    /// One worker process of `ct`, run under memcheck or callgrind (internal).
    #[command(hide = true)]
    CtWorker(ct::WorkerArgs),
    /// One timing worker of `ct`: dudect's test natively, pinned to one CPU (internal).
    #[command(hide = true)]
    CtTimingWorker(ct::TimingWorkerArgs),
    /// One benchmark's worker process of `run` (internal).
    #[command(hide = true)]
    RunWorker,
    /// One process of `throughput --processes` (internal).
    #[command(hide = true)]
    ThroughputWorker(throughput::WorkerArgs),
    /// Run the correctness gate: round trips, sizes, canaries, tampering, bad lengths,
    /// interoperability and known answers. Exits 1 if any check fails.
    Verify(verify::Args),
}

/// Runs the parsed command line: each command runs from its own module, on the store the
/// command line names where it reads or writes one.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    openssl4_locator();
    let spec = cli.store_spec();
    crate::resume::refuse_settings(&cli.beside_resume)?;
    match cli.command {
        // `list --builds` lists what the builds module registered.
        Command::List(a) if a.builds => builds::list(&a.filter.to_filter(), a.json),
        Command::List(a) => a.run(),
        Command::Add(a) => a.run(),
        Command::Builds(a) => a.run(),
        Command::Run(a) => a.run(&spec),
        Command::RunWorker => crate::latency::worker::serve().map(|()| ExitCode::SUCCESS),
        Command::Throughput(a) => a.run(&spec),
        Command::ThroughputWorker(a) => a.run(),
        Command::Tls(a) => a.run(&spec),
        Command::Profile(a) => a.run(&spec),
        Command::ProfileWorker(a) => a.run(),
        Command::Ct(a) => a.run(&spec),
        Command::CtWorker(a) => a.run(),
        Command::CtTimingWorker(a) => a.run(),
        Command::Verify(a) => a.run(),
        Command::Compare(a) => a.run(&spec),
        Command::Runs(a) => a.run(&spec),
        Command::Show(a) => a.run(&spec),
        Command::Export(a) => a.run(&spec),
        Command::Import(a) => a.run(&spec),
        Command::Report(a) => a.run(&spec),
    }
}

/// How `--impl openssl4` finds OpenSSL 4's library: OpenSSL 4's TLS worker (`tls::worker`),
/// whose build makes the library too, built on first use into the build cache.
fn openssl4_locator() {
    #[cfg(feature = "openssl")]
    {
        use crate::tls::worker::{self, Worker};
        let w = Worker::of(crate::tls::groups::StackKind::Openssl4)
            .expect("OpenSSL 4 runs in a worker of its own");
        crate::providers::openssl4::set_locator(crate::providers::openssl4::Locator {
            find: || {
                let w = Worker::of(crate::tls::groups::StackKind::Openssl4)
                    .expect("OpenSSL 4 runs in a worker of its own");
                worker::stack_worker(
                    w,
                    &crate::providers::built::manifest::dir().join(w.dir),
                    &crate::interrupt::requested,
                )
            },
            var: w.var,
            exe: w.exe,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visible() -> Vec<String> {
        use clap::CommandFactory;
        Cli::command()
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| s.get_name().to_string())
            .collect()
    }

    #[test]
    fn a_mistyped_subcommand_is_answered_with_the_ones_a_user_runs() {
        let names = visible();
        assert!(!names.iter().any(|n| n.ends_with("-worker")), "{names:?}");
        assert_eq!(nearest_subcommands("rn", &names)[0], "run");
        assert_eq!(nearest_subcommands("profle", &names), ["profile"]);
        assert_eq!(nearest_subcommands("comapre", &names)[0], "compare");
        assert!(nearest_subcommands("xyzzyq", &names).is_empty());
    }
}
