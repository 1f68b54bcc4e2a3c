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

use crate::cli::{self, noise_fraction, CompileArgs, FilterArgs};
use crate::export::Format;
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

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List algorithms, their sizes and their implementations.
    List {
        /// Which implementations.
        #[command(flatten)]
        filter: FilterArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// List the builds `kembench builds` registered (and those that failed) instead.
        #[arg(long)]
        builds: bool,
        /// Every column (standard, classical bits, IND-CCA) and every line unwrapped (default:
        /// the headline columns within 120 columns).
        #[arg(long)]
        wide: bool,
    },
    /// Add your own KEM: a directory of C sources implementing the NIST KEM API (api.h with
    /// CRYPTO_* sizes and crypto_kem_keypair/enc/dec, as in NIST submission packages and PQClean),
    /// compiled like `builds`, checked against the package's own KAT file, and registered as
    /// `local/<name>@<compiler>:<flags>` for every later command.
    Add {
        /// The package directory (the one holding api.h), or a prebuilt shared library that
        /// exports crypto_kem_keypair/enc/dec.
        path: std::path::PathBuf,
        /// For a prebuilt library: its public-key, secret-key, ciphertext and shared-secret
        /// bytes (api.h's CRYPTO_PUBLICKEYBYTES, ...), unless --implements gives them.
        #[arg(long, value_delimiter = ',', num_args = 1..)]
        sizes: Vec<usize>,
        /// Its name (default: CRYPTO_ALGNAME from api.h, else the directory's name).
        #[arg(long)]
        name: Option<String>,
        /// The catalog algorithm it implements (e.g. ML-KEM-768): its sizes must match, and the
        /// gate then checks interoperability with every implementation of it.
        #[arg(long)]
        implements: Option<String>,
        /// Compilers, flag sets (default: gcc, -O3), the gate's limit, JSON.
        #[command(flatten)]
        compile: CompileArgs,
        /// Its claimed NIST level (a scheme of its own).
        #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
        level: Option<u8>,
        /// It claims IND-CCA with implicit rejection: the gate's tamper check then demands a
        /// pseudo-random secret for a tampered ciphertext (a scheme of its own).
        #[arg(long)]
        implicit_rejection: bool,
        /// Replace the builds another package or library registered under the same name
        /// (without it, a name that holds a verified build of another package is refused).
        #[arg(long)]
        replace: bool,
        /// Architectures to build the package for (default: this machine's), as `builds
        /// --arch`: a foreign one is cross-compiled into a static program with kembench's
        /// driver and gated under QEMU (needs --implements or a catalog name: the driver
        /// takes the catalog's sizes).
        #[arg(long, value_delimiter = ',')]
        arch: Vec<String>,
    },
    /// Compile the C sources kembench carries (PQClean clean, AVX2, opt) with every compiler and
    /// flag set into separate shared objects, check each with the correctness gate, and register
    /// them as implementations (`pqclean/clean@gcc-12:O3`); cached, so a second call compiles
    /// nothing. Exits 1 if a build failed to compile or failed the gate.
    Builds {
        /// Algorithm names or globs (`ML-KEM-768`, `ntru*`); repeat or separate by commas.
        #[arg(long = "alg", value_delimiter = ',')]
        algorithms: Vec<String>,
        /// Sources, by id or glob: `pqclean/clean`, `pqclean/avx2`, `pqclean/opt`.
        #[arg(long = "impl", value_delimiter = ',')]
        sources: Vec<String>,
        /// A source tree to build (repeatable): `liboqs=PATH` (a liboqs checkout or release,
        /// built with its CMake) or `pqclean=PATH` (a PQClean checkout's `crypto_kem/*`). Its
        /// builds are named with the tree's declared version and its git commit or content
        /// digest (`ML-KEM-768@liboqs-0.13.0+g1a2b3c4/auto@gcc-12:O3`), gated with the
        /// tree's own known answers. Without --impl, only the trees' sources are built.
        #[arg(long = "source", value_name = "KIND=PATH")]
        trees: Vec<String>,
        /// Compilers, flag sets (default: gcc and clang, -O2;-O3;-O3 -march=native), the
        /// gate's limit, JSON.
        #[command(flatten)]
        compile: CompileArgs,
        /// Compilers run at once (default: the logical CPUs).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
        jobs: Option<u16>,
        /// Run the gate again on builds this kembench already verified.
        #[arg(long)]
        reverify: bool,
        /// Build only shard K of N (K from 1) of the (source, compiler, flag set)
        /// combinations, split deterministically and balanced by expected cost: N jobs
        /// sharing one build cache (KEMBENCH_BUILD_DIR) build the whole matrix once.
        #[arg(long, value_name = "K/N", value_parser = crate::shard::Shard::from_str_arg)]
        shard: Option<crate::shard::Shard>,
        /// Architectures to build for (default: this machine's): `s390x`, `aarch64`,
        /// `ppc64le`, `riscv64` are cross-compiled into static programs run under QEMU's
        /// user-mode emulation, gated there (known answers, interoperability with this
        /// machine's implementations), and counted by `profile`, never timed. With a foreign
        /// architecture the default flag sets are -O2;-O3;-O3 -march=vector, where
        /// `-march=vector` stands for each architecture's vector unit: -march=z13 on s390x,
        /// -march=armv8.2-a+sve on aarch64, -mcpu=power9 on ppc64le, -march=x86-64-v3 on
        /// x86-64 (none on riscv64: said, not built).
        #[arg(long, value_delimiter = ',')]
        arch: Vec<String>,
    },
    /// Measure latency, TSC ticks, hardware counters, heap and stack of keygen, encaps, decaps
    /// and the full exchange (default suite unless filters or --all are given).
    Run {
        /// Which implementations.
        #[command(flatten)]
        filter: FilterArgs,
        /// Measurement options and output files.
        #[command(flatten)]
        args: run::Args,
    },
    /// Sustained operations per second at several thread counts, scaling efficiency, and TLS 1.3
    /// server capacity (default: ML-KEM-768, X25519MLKEM768 and the classical baselines).
    Throughput {
        /// Which implementations.
        #[command(flatten)]
        filter: FilterArgs,
        /// Measurement options and output files.
        #[command(flatten)]
        args: throughput::Args,
    },
    /// Real TLS 1.3 handshakes between a client and a server (rustls and OpenSSL 3.6, run-time
    /// certificates): each checked (negotiated group, exported keys, certificate), CPU per
    /// handshake on each side (full, resumed, HelloRetryRequest), bytes and TCP segments per
    /// flight, scaling over threads, the cores for a target rate beside the bare-KEM model,
    /// and with `--network` handshake times under RTT and loss in private network namespaces.
    Tls {
        /// Measurement options and output files.
        #[command(flatten)]
        args: tls::Args,
    },
    /// Compare two runs: ratio of medians with a bootstrap interval and a verdict per
    /// operation, and the environment differences above the table. Each side is a run in the
    /// store (an id or a unique part of one, `latest`, `latest~N`, `host:NAME` or `cpu:TEXT`
    /// for the latest complete run on that host or CPU) or a `run --json` file.
    Compare {
        /// The older run.
        old: String,
        /// The newer run.
        new: String,
        /// Changes smaller than this percentage are called noise.
        #[arg(long, default_value_t = 2.0)]
        noise: f64,
        /// Exit 1 when any operation is slower by more than this percentage, significantly
        /// (zero or more).
        #[arg(long, value_name = "PCT", value_parser = cli::non_negative_pct)]
        fail_on_regression: Option<f64>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// With two profiles: write a differential flame graph per (implementation,
        /// operation) into this directory (created if missing).
        #[arg(long, value_name = "DIR")]
        flamegraphs: Option<std::path::PathBuf>,
    },
    /// List the runs in the store, newest first: id, status, time, host, CPU, selection and
    /// how many benchmarks are stored (and how many of them did not end well).
    Runs {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Show at most this many runs (1 or more).
        #[arg(long, default_value_t = 50, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        limit: usize,
        /// Every column (the CPU, the start to the second) and no wrapping (default: a table
        /// within 120 columns).
        #[arg(long)]
        wide: bool,
    },
    /// Show one stored run: its environment, configuration and table.
    Show {
        /// Run id (or a unique part), `latest`, `latest~N`, `host:NAME`, `cpu:TEXT`.
        run: String,
        /// Every column (TSC ticks, cycles, quartiles, allocations, share, samples) and every
        /// note in full, instead of a table that fits 120 columns.
        #[arg(long)]
        wide: bool,
    },
    /// Write one stored run as JSON (the `run --json` layout, raw samples included), CSV or
    /// Markdown.
    Export {
        /// Run id (or a unique part), `latest`, `latest~N`, `host:NAME`, `cpu:TEXT`.
        run: String,
        /// Output format.
        #[arg(long, default_value = "json", value_parser = cli::export_format())]
        format: Format,
        /// Write here instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<std::path::PathBuf>,
    },
    /// Load a results file written elsewhere (the `--json` file of `run`, `throughput`,
    /// `profile` or `tls`) into the store, after validating it.
    Import {
        /// The JSON file.
        file: std::path::PathBuf,
    },
    /// Build a report from runs and profiles: one self-contained HTML page (inline CSS, JS and
    /// SVG charts, nothing fetched) or Markdown with one SVG file per chart. With several
    /// latency runs, the first is the baseline of a comparison and the last is the one
    /// charted; of several profiles, the last is shown.
    Report {
        /// Runs and profiles in the store (id or a unique part, `latest`, `latest~N`,
        /// `host:NAME`, `cpu:TEXT`) or result files (the `--json` file of `run`, `throughput`,
        /// `profile` or `tls`), in any mix; runs are compared in the order given. Default: the
        /// latest run in the store.
        #[arg(value_name = "RUN|FILE")]
        files: Vec<String>,
        /// Where to write: the HTML file (default report.html), or with `--format markdown` a
        /// directory for report.md and the SVG charts (default report/; created if missing).
        #[arg(short, long, value_name = "PATH")]
        output: Option<std::path::PathBuf>,
        /// html: one self-contained page; markdown: report.md plus one SVG file per chart.
        #[arg(long, value_enum, default_value_t = crate::report::ReportFormat::Html)]
        format: crate::report::ReportFormat,
        /// In the comparison of runs, changes smaller than this percentage are called noise.
        #[arg(long, default_value_t = 2.0, value_name = "PCT")]
        noise: f64,
    },
    /// Exact instruction counts and where they go, under valgrind's callgrind: per operation
    /// the count over several seeds, shares in Keccak, SHA-2, AES, the RNG and bignum
    /// arithmetic, the hot-path tree, the hottest functions and lines, simulated cache misses,
    /// and flame graphs (default suite unless filters or --all are given).
    Profile {
        /// Which implementations.
        #[command(flatten)]
        filter: FilterArgs,
        /// Profiling options and output files.
        #[command(flatten)]
        args: profile::Args,
    },
    /// One worker process of `profile`, run under callgrind (internal).
    #[command(hide = true)]
    ProfileWorker {
        /// `algorithm@implementation`.
        #[arg(long, default_value = "")]
        label: String,
        /// The seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Operations.
        #[arg(long, value_delimiter = ',', value_enum)]
        ops: Vec<crate::measure::sampler::Op>,
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
    },
    /// Constant-time screening per secret-handling operation: secret-dependent branches and
    /// memory indexes under memcheck (every random byte marked secret), division and other
    /// variable-latency instructions from instruction counts and the disassembly, and dudect's
    /// timing test; findings an exception list explains are marked with its reason. Exits 1
    /// while a finding no list explains remains, or a known issue not accepted by its id
    /// (`--accept`) (default suite unless filters or --all).
    Ct {
        /// Which implementations.
        #[command(flatten)]
        filter: FilterArgs,
        /// Screening options and output files.
        #[command(flatten)]
        args: ct::Args,
    },
    /// One worker process of `ct`, run under memcheck or callgrind (internal).
    #[command(hide = true)]
    CtWorker {
        /// `algorithm@implementation`.
        #[arg(long)]
        label: String,
        /// The operations, in order.
        #[arg(long, value_delimiter = ',', value_enum)]
        ops: Vec<crate::measure::sampler::Op>,
        /// The seed of the draws.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Offer the mock provider.
        #[arg(long)]
        include_mock: bool,
    },
    /// One timing worker of `ct`: dudect's test natively, pinned to one CPU (internal).
    #[command(hide = true)]
    CtTimingWorker {
        /// `algorithm@implementation`.
        #[arg(long)]
        label: String,
        /// The operations, in order.
        #[arg(long, value_delimiter = ',', value_enum)]
        ops: Vec<crate::measure::sampler::Op>,
        /// The time budget per operation, in milliseconds.
        #[arg(long)]
        budget_ms: u64,
        /// The seed of the classes' draws and the inputs.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Offer the mock provider.
        #[arg(long)]
        include_mock: bool,
    },
    /// One benchmark's worker process of `run` (internal).
    #[command(hide = true)]
    RunWorker,
    /// One process of `throughput --processes` (internal).
    #[command(hide = true)]
    ThroughputWorker {
        /// `algorithm@implementation`.
        #[arg(long)]
        label: String,
        /// The operation.
        #[arg(long, value_enum)]
        op: crate::measure::sampler::Op,
        /// Seconds to run.
        #[arg(long)]
        duration: f64,
        /// Pin to this CPU.
        #[arg(long)]
        pin_cpu: Option<usize>,
        /// Offer the mock provider.
        #[arg(long)]
        include_mock: bool,
    },
    /// Run the correctness gate: round trips, sizes, canaries, tampering, bad lengths,
    /// interoperability and known answers. Exits 1 if any check fails.
    Verify {
        /// Which implementations.
        #[command(flatten)]
        filter: FilterArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Every check's detail in its cell, and every line unwrapped (default: verdicts in the
        /// table, within 120 columns, and the details below it).
        #[arg(long)]
        wide: bool,
        /// Worker threads (default: the logical CPUs).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: Option<u16>,
        /// Fewest round trips per implementation, however slow it is.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
        min_round_trips: u32,
        /// Check liboqs's known answers over every count of its KAT files (100, 10 for Classic
        /// McEliece: minutes of key generation for the larger sets) instead of the first.
        #[arg(long)]
        all_counts: bool,
        /// An algorithm name taken whole (never cut at commas): the gate of `builds` and
        /// `add` names its builds' algorithm with it.
        #[arg(long, hide = true)]
        exact_alg: Vec<String>,
        /// An implementation id taken whole (never cut at commas, a build made with
        /// `-Wl,-O1`): the gate of `builds` and `add` names its builds with it.
        #[arg(long, hide = true)]
        exact_impl: Vec<String>,
    },
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let spec = cli.store_spec();
    crate::resume::refuse_settings(&cli.beside_resume)?;
    match cli.command {
        Command::List {
            filter,
            json,
            builds,
            wide,
        } => {
            if builds {
                builds::list(&filter.to_filter(), json)
            } else {
                let layout = crate::output::Width::wide_if(wide);
                list::run(&filter.to_filter(), filter.include_mock, json, layout)
            }
        }
        Command::Add {
            path,
            sizes,
            name,
            implements,
            compile,
            level,
            implicit_rejection,
            replace,
            arch,
        } => builds::add(&builds::AddArgs {
            path,
            sizes,
            name,
            implements,
            compile: compiling(compile.or(&["gcc"], &["-O3"])),
            level,
            implicit_rejection,
            replace,
            archs: parse_archs(&arch)?,
        }),
        Command::Builds {
            algorithms,
            sources,
            trees,
            compile,
            jobs,
            reverify,
            shard,
            arch,
        } => {
            let archs = parse_archs(&arch)?;
            let flags: &[&str] = if archs.iter().any(|a| a.foreign()) {
                &["-O2", "-O3", "-O3 -march=vector"]
            } else {
                &["-O2", "-O3", "-O3 -march=native"]
            };
            builds::run(&builds::Args {
                algorithms,
                sources,
                trees,
                compile: compiling(compile.or(&["gcc", "clang"], flags)),
                jobs: jobs.map(usize::from),
                reverify,
                shard,
                archs,
            })
        }
        Command::Run { filter, args } => run::run(&args.to_options(&filter)?, &spec),
        Command::RunWorker => crate::run::worker::serve().map(|()| ExitCode::SUCCESS),
        Command::Ct { filter, args } => ct::run(&args.to_options(&filter)?, &spec),
        Command::CtWorker {
            label,
            ops,
            seed,
            include_mock,
        } => crate::ct::worker::serve(crate::ct::worker::WorkerArgs {
            label,
            ops,
            seed,
            include_mock,
        })
        .map(|()| ExitCode::SUCCESS),
        Command::CtTimingWorker {
            label,
            ops,
            budget_ms,
            seed,
            include_mock,
        } => crate::ct::timing::serve_worker(
            &label,
            &ops,
            std::time::Duration::from_millis(budget_ms),
            seed,
            include_mock,
        )
        .map(|()| ExitCode::SUCCESS),
        Command::Profile { filter, args } => {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            profile::run(&args.to_options(&filter, cpus)?, &spec)
        }
        Command::ProfileWorker {
            label,
            seed,
            ops,
            include_mock,
            sha3_probe,
            cpu_features,
            native,
        } => if cpu_features {
            crate::profile::worker::features()
        } else {
            crate::profile::worker::serve(crate::profile::worker::WorkerArgs {
                label,
                seed,
                ops,
                include_mock,
                sha3_probe,
                native,
            })
        }
        .map(|()| ExitCode::SUCCESS),
        Command::Compare {
            old,
            new,
            noise,
            fail_on_regression,
            json,
            flamegraphs,
        } => compare::run(
            &spec,
            &old,
            &new,
            noise_fraction(noise)?,
            fail_on_regression,
            json,
            flamegraphs.as_deref(),
        ),
        Command::Runs { json, limit, wide } => {
            store::runs(&spec, json, limit, crate::output::Width::wide_if(wide))
        }
        Command::Show { run, wide } => {
            store::show(&spec, &run, crate::output::Width::wide_if(wide))
        }
        Command::Export {
            run,
            format,
            output,
        } => store::export(&spec, &run, format, output.as_deref()),
        Command::Import { file } => store::import(&spec, &file),
        Command::Report {
            files,
            output,
            format,
            noise,
        } => report::run(
            &spec,
            &files,
            output.as_deref(),
            format,
            noise_fraction(noise)?,
        ),
        Command::Throughput { filter, args } => {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            throughput::run(&args.to_options(&filter, cpus)?, cpus, &spec)
        }
        Command::Tls { args } => {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            tls::run(&args.to_options(cpus)?, cpus, &spec)
        }
        Command::ThroughputWorker {
            label,
            op,
            duration,
            pin_cpu,
            include_mock,
        } => crate::throughput::serve_worker(&label, op, duration, pin_cpu, include_mock)
            .map(|()| ExitCode::SUCCESS),
        Command::Verify {
            filter,
            json,
            wide,
            threads,
            min_round_trips,
            all_counts,
            exact_alg,
            exact_impl,
        } => {
            let mut opts = crate::verify::Options {
                min_round_trips: min_round_trips as usize,
                all_counts,
                ..crate::verify::Options::default()
            };
            if let Some(t) = threads {
                opts.threads = t as usize;
            }
            let output = if json {
                verify::Output::Json
            } else {
                verify::Output::Table(crate::output::Width::wide_if(wide))
            };
            let mut selected = filter.to_filter();
            selected.algorithms.extend(exact_alg);
            selected.implementations.extend(exact_impl);
            verify::run(&selected, filter.include_mock, &opts, output)
        }
    }
}

/// The compile arguments of `builds` and `add` as those commands take them.
/// `--arch` values as architectures; an unknown one is refused, suggesting the nearest.
fn parse_archs(arch: &[String]) -> anyhow::Result<Vec<crate::arch::Arch>> {
    let names = crate::arch::Arch::names();
    Ok(crate::arch::Arch::parse_list(arch).map_err(|bad| {
        crate::usage::Usage(format!(
            "unknown architecture '{bad}'{} (kembench builds for {})",
            crate::suggest::hint(&bad, &names),
            names.join(", ")
        ))
    })?)
}

fn compiling(c: CompileArgs) -> builds::Compile {
    builds::Compile {
        cc: c.cc,
        flags: c.flags,
        gate_timeout: std::time::Duration::from_secs(c.gate_timeout),
        json: c.json,
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
