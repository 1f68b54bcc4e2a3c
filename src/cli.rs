//! Command-line definitions (clap), and their one conversion into validated options
//! ([`crate::options`]): every argument is checked here, once.

use crate::export::{Format, FORMATS};
use crate::measure::sampler::{Op, SamplerConfig};
use crate::options::{Outputs, ProfileOptions, RunOptions, ThroughputOptions, TlsOptions};
use crate::output::Width;
use clap::{Args, Parser, Subcommand};

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
}

impl Cli {
    /// The store to use: `--store`, `KEMBENCH_STORE`, or the default path.
    pub fn store_spec(&self) -> String {
        self.store
            .clone()
            .unwrap_or_else(|| crate::store::default_path().display().to_string())
    }
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
    },
    /// Measure latency, TSC ticks, hardware counters, heap and stack of keygen, encaps, decaps
    /// and the full exchange (default suite unless filters or --all are given).
    Run {
        /// Which implementations.
        #[command(flatten)]
        filter: FilterArgs,
        /// Measurement options and output files.
        #[command(flatten)]
        args: RunArgs,
    },
    /// Sustained operations per second at several thread counts, scaling efficiency, and TLS 1.3
    /// server capacity (default: ML-KEM-768, X25519MLKEM768 and the classical baselines).
    Throughput {
        /// Which implementations.
        #[command(flatten)]
        filter: FilterArgs,
        /// Measurement options and output files.
        #[command(flatten)]
        args: ThroughputArgs,
    },
    /// Real TLS 1.3 handshakes between a client and a server (rustls and OpenSSL 3.6, run-time
    /// certificates): each checked (negotiated group, exported keys, certificate), CPU per
    /// handshake on each side (full, resumed, HelloRetryRequest), bytes and TCP segments per
    /// flight, scaling over threads, the cores for a target rate beside the bare-KEM model,
    /// and with `--network` handshake times under RTT and loss in private network namespaces.
    Tls {
        /// Measurement options and output files.
        #[command(flatten)]
        args: TlsArgs,
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
        #[arg(long, value_name = "PCT", value_parser = non_negative_pct)]
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
        #[arg(long, default_value = "json", value_parser = export_format())]
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
        args: ProfileArgs,
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
        /// Worker threads (default: the logical CPUs).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: Option<u16>,
        /// Fewest round trips per implementation, however slow it is.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
        min_round_trips: u32,
    },
}

/// Options of `run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Every implementation instead of the default suite (ignored when filters are given).
    #[arg(long)]
    pub all: bool,
    /// Operations to measure (default: all; sk-import and pk-import only where the library has
    /// that step).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub ops: Vec<crate::measure::sampler::Op>,
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
    /// Complete an interrupted run from the store: measure the benchmarks it did not finish,
    /// with its original configuration (other measurement options are ignored).
    #[arg(long, value_name = "RUN")]
    pub resume: Option<String>,
    /// Do not record the run in the results store.
    #[arg(long)]
    pub no_store: bool,
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
    /// Result files.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Result files, shared by `run` and `throughput`: one `--NAME FILE` option per format in
/// [`crate::export::FORMATS`] (`--json`, `--csv`, `--markdown`).
#[derive(Debug, Clone, Default)]
pub struct OutputArgs {
    files: Outputs,
}

impl clap::FromArgMatches for OutputArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let files = FORMATS
            .iter()
            .filter_map(|f| {
                m.get_one::<std::path::PathBuf>(f.name())
                    .map(|p| (*f, p.clone()))
            })
            .collect();
        Ok(OutputArgs { files })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for OutputArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        FORMATS.iter().fold(cmd, |cmd, f| {
            cmd.arg(
                clap::Arg::new(f.name())
                    .long(f.name())
                    .value_name("FILE")
                    .value_parser(clap::value_parser!(std::path::PathBuf))
                    .help(format!("Write {}", f.about())),
            )
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl OutputArgs {
    /// The requested files with their formats.
    pub fn files(&self) -> Outputs {
        self.files.clone()
    }

    /// Fails before any measuring when an output is a directory, its directory does not
    /// exist, or two outputs name the same file.
    pub fn check_dirs(&self) -> anyhow::Result<()> {
        let mut seen = Vec::new();
        for (_, p) in self.files() {
            crate::files::target(&p)?;
            let real = crate::files::real(&p);
            if p.as_os_str() != "-" && seen.contains(&real) {
                crate::bail_usage!(
                    "{} is given for two outputs; give each its own file",
                    p.display()
                );
            }
            seen.push(real);
        }
        Ok(())
    }
}

/// Options of `throughput`.
#[derive(Debug, Clone, Args)]
pub struct ThroughputArgs {
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
    pub ops: Vec<crate::measure::sampler::Op>,
    /// Do not record the run in the results store.
    #[arg(long)]
    pub no_store: bool,
    /// Measure the implementations an interrupted throughput run (id, `latest`, ...) has no
    /// final result for, with that run's own configuration.
    #[arg(long, value_name = "RUN")]
    pub resume: Option<String>,
    /// Every figure (the per-thread range) and every flag in its row, instead of tables that
    /// fit 120 columns.
    #[arg(long)]
    pub wide: bool,
    /// Result files.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Options of `tls`.
#[derive(Debug, Clone, Args)]
pub struct TlsArgs {
    /// Key-exchange groups, by TLS name or kembench's algorithm name (default: X25519,
    /// secp256r1, secp384r1, X25519MLKEM768, SecP256r1MLKEM768, MLKEM768, MLKEM1024; also
    /// secp521r1, ffdhe2048).
    #[arg(long, value_delimiter = ',')]
    pub groups: Vec<String>,
    /// TLS stacks: rustls, openssl (default: both).
    #[arg(long = "stack", value_delimiter = ',')]
    pub stacks: Vec<String>,
    /// Server certificate keys: ecdsa-p256, ed25519, rsa2048 (default: ecdsa-p256).
    #[arg(long = "cert", value_delimiter = ',')]
    pub certs: Vec<String>,
    /// Kinds of handshake: full, resumed, hrr (default: all three).
    #[arg(long, value_delimiter = ',')]
    pub modes: Vec<String>,
    /// Seconds of in-memory handshakes per benchmark, shared by the kinds in interleaved rounds.
    #[arg(long, default_value_t = 2.0, value_name = "SECS")]
    pub duration: f64,
    /// Thread counts for scaling (default 1 and the logical CPUs); must include 1. `0` alone
    /// skips scaling.
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=4096))]
    pub threads: Vec<usize>,
    /// Seconds per thread count (three repeats in rotation share it).
    #[arg(long, default_value_t = 1.5, value_name = "SECS")]
    pub scaling_duration: f64,
    /// Target handshakes per second for the cores-needed figures.
    #[arg(long, default_value_t = 70_000.0)]
    pub target_rate: f64,
    /// Network conditions to measure over loopback TCP between private network namespaces:
    /// `default` (RTT 5.6, 31.2, 78.7, 195.7 ms at 0% loss, and 31.2 ms at 1, 2, 3, 5, 10%
    /// loss), or profiles `rtt<MS>-loss<PCT>[-rate<MBIT>]` (`rtt31.2-loss3`). Needs root
    /// (network namespaces); skipped with the reason otherwise.
    #[arg(long, value_delimiter = ',', value_name = "PROFILES")]
    pub network: Vec<String>,
    /// Handshakes per network condition with loss (a tenth as many, at least 100, at 0%).
    #[arg(long, default_value_t = 1000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(10..=100_000))]
    pub network_handshakes: usize,
    /// Most handshakes in flight at once per benchmark under a network condition, fewer at
    /// short round trips (at most 260 started per second); 1: one after another, as
    /// pq-tls-benchmark.
    #[arg(long, default_value_t = 16, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    pub network_concurrency: usize,
    /// Benchmarks measured under network conditions at once, each in namespaces of its own
    /// (1: one after another).
    #[arg(long, default_value_t = 4, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=16))]
    pub network_parallel: usize,
    /// Do not record the run in the results store.
    #[arg(long)]
    pub no_store: bool,
    /// Every figure in its row, instead of tables that fit 120 columns.
    #[arg(long)]
    pub wide: bool,
    /// Result files.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Options of `profile`.
#[derive(Debug, Clone, Args)]
pub struct ProfileArgs {
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
    /// Every column, and every operation's hot-path tree, hottest functions and lines.
    #[arg(long)]
    pub wide: bool,
    /// Result files.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl ProfileArgs {
    /// The validated options of `profile`.
    pub fn to_options(&self, filter: &FilterArgs, cpus: usize) -> anyhow::Result<ProfileOptions> {
        positive_seconds("--timeout", self.timeout)?;
        if self.tree_threshold >= 100.0 {
            crate::bail_usage!(
                "--tree-threshold is a percentage below 100, got {}",
                self.tree_threshold
            );
        }
        self.output.check_dirs()?;
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
        Ok(ProfileOptions {
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
            outputs: self.output.files(),
            layout: Width::wide_if(self.wide),
        })
    }
}

/// `export --format NAME`: one of [`crate::export::FORMATS`].
fn export_format() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(Format::names())
        .map(|name: String| Format::by_name(&name).expect("a possible value names a format"))
}

/// How `builds` and `add` compile and gate what they build: one argument group for both, each
/// command with its own defaults for compilers and flag sets ([`CompileArgs::or`]).
#[derive(Debug, Clone, Args)]
pub struct CompileArgs {
    /// Compilers, by name on PATH or path (default: gcc,clang for `builds`, gcc for `add`).
    #[arg(long, value_delimiter = ',')]
    pub cc: Vec<String>,
    /// Flag sets, separated by ';' (each may hold several flags; default: `-O2;-O3;-O3
    /// -march=native` for `builds`, `-O3` for `add`).
    #[arg(long, value_delimiter = ';', allow_hyphen_values = true)]
    pub flags: Vec<String>,
    /// Seconds one correctness gate may take before a hanging build or package is killed.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub gate_timeout: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

impl CompileArgs {
    /// These arguments with `cc` and `flags` as the defaults of compilers and flag sets
    /// where none were given.
    pub fn or(mut self, cc: &[&str], flags: &[&str]) -> CompileArgs {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        if self.cc.is_empty() {
            self.cc = owned(cc);
        }
        if self.flags.is_empty() {
            self.flags = owned(flags);
        }
        self
    }
}

/// Selection of (algorithm, implementation) pairs, shared by every command.
#[derive(Debug, Clone, Args)]
pub struct FilterArgs {
    /// Algorithm names or globs, case-insensitive (e.g. `ML-KEM-*`); repeat or separate by commas.
    #[arg(long = "alg", value_delimiter = ',')]
    pub algorithms: Vec<String>,
    /// Implementation ids or globs (e.g. `liboqs`, `pqclean/*`, `libcrux/avx2`).
    #[arg(long = "impl", value_delimiter = ',')]
    pub implementations: Vec<String>,
    /// Only this family: module-lattice, ntru-lattice, unstructured-lattice, code-based,
    /// elliptic-curve, finite-field, hybrid.
    #[arg(long, value_parser = parse_family)]
    pub family: Option<crate::kem::Family>,
    /// Only this claimed NIST security level (1-5).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
    pub level: Option<u8>,
    /// Also offer the deterministic mock implementations (for tests).
    #[arg(long)]
    pub include_mock: bool,
}

fn parse_family(s: &str) -> Result<crate::kem::Family, String> {
    use crate::kem::Family;
    Family::parse(&s.to_ascii_lowercase()).ok_or_else(|| {
        let names: Vec<String> = Family::ALL.iter().map(|f| f.as_str().to_string()).collect();
        let near = crate::suggest::nearest(s, &names);
        let hint = if near.is_empty() {
            String::new()
        } else {
            format!(" (did you mean {}?)", near.join(", "))
        };
        format!("unknown family '{s}'{hint}; known: {}", names.join(", "))
    })
}

/// A positive, finite number of seconds, or an error naming the flag.
fn positive_seconds(flag: &str, v: f64) -> anyhow::Result<f64> {
    if v > 0.0 && v.is_finite() {
        Ok(v)
    } else {
        crate::bail_usage!("{flag} must be a positive number of seconds, got {v}")
    }
}

/// A percentage of zero or more (`--fail-on-regression`).
fn non_negative_pct(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v >= 0.0 && v.is_finite() => Ok(v),
        Ok(v) => Err(format!(
            "{v} is not a percentage of zero or more (a slowdown of more than PCT%)"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// A noise threshold given in percent, as a fraction.
pub fn noise_fraction(pct: f64) -> anyhow::Result<f64> {
    if (0.0..100.0).contains(&pct) {
        Ok(pct / 100.0)
    } else {
        crate::bail_usage!("--noise is a percentage between 0 and 100, got {pct}")
    }
}

impl RunArgs {
    /// The validated options of `run`.
    pub fn to_options(&self, filter: &FilterArgs) -> anyhow::Result<RunOptions> {
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
        if self.resume.is_some() && self.no_store {
            crate::bail_usage!("--resume continues a run from the results store; it cannot be used with --no-store");
        }
        self.output.check_dirs()?;
        Ok(RunOptions {
            filter: filter.to_filter(),
            include_mock: filter.include_mock,
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
            resume: self.resume.clone(),
            store: !self.no_store,
            outputs: self.output.files(),
            layout: Width::wide_if(self.wide),
        })
    }
}

/// The most threads (or processes) `throughput` starts per logical CPU.
pub const MAX_THREADS_PER_CPU: usize = 64;

impl ThroughputArgs {
    /// The validated options of `throughput`; `cpus` (the logical CPUs) sets the default
    /// thread counts.
    pub fn to_options(
        &self,
        filter: &FilterArgs,
        cpus: usize,
    ) -> anyhow::Result<ThroughputOptions> {
        positive_seconds("--duration", self.duration)?;
        if !(self.target_rate > 0.0 && self.target_rate.is_finite()) {
            crate::bail_usage!("--target-rate must be positive, got {}", self.target_rate);
        }
        let threads = if self.threads.is_empty() {
            crate::record::throughput::calc::default_threads(cpus)
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
        if self.resume.is_some() && self.no_store {
            crate::bail_usage!("--resume continues a run from the results store; it cannot be used with --no-store");
        }
        self.output.check_dirs()?;
        Ok(ThroughputOptions {
            filter: filter.to_filter(),
            include_mock: filter.include_mock,
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
            resume: self.resume.clone(),
            store: !self.no_store,
            outputs: self.output.files(),
            layout: Width::wide_if(self.wide),
        })
    }
}

/// Each name of `given` (or every default when empty) looked up with `find`; an unknown name
/// is a usage error that suggests the nearest of `names`.
fn pick<T: Copy>(
    flag: &str,
    given: &[String],
    defaults: Vec<T>,
    names: Vec<String>,
    find: impl Fn(&str) -> Option<T>,
) -> anyhow::Result<Vec<T>> {
    if given.is_empty() {
        return Ok(defaults);
    }
    let mut out = Vec::new();
    for g in given {
        match find(g.trim()) {
            Some(v) => out.push(v),
            None => {
                let near = crate::suggest::nearest(g, &names);
                let hint = if near.is_empty() {
                    String::new()
                } else {
                    format!(" (did you mean {}?)", near.join(", "))
                };
                crate::bail_usage!("{flag}: unknown {g:?}{hint}; known: {}", names.join(", "));
            }
        }
    }
    Ok(out)
}

impl TlsArgs {
    /// The validated options of `tls`; `cpus` sets the default thread counts.
    pub fn to_options(&self, cpus: usize) -> anyhow::Result<TlsOptions> {
        use crate::record::tls::Mode;
        use crate::tls::groups::{CertKind, Group, StackKind, GROUPS};
        positive_seconds("--duration", self.duration)?;
        positive_seconds("--scaling-duration", self.scaling_duration)?;
        if !(self.target_rate > 0.0 && self.target_rate.is_finite()) {
            crate::bail_usage!("--target-rate must be positive, got {}", self.target_rate);
        }
        let groups = pick(
            "--groups",
            &self.groups,
            GROUPS.iter().filter(|g| g.default).collect(),
            GROUPS.iter().map(|g| g.tls_name.to_string()).collect(),
            Group::find,
        )?;
        let stacks = pick(
            "--stack",
            &self.stacks,
            StackKind::ALL.to_vec(),
            StackKind::ALL
                .iter()
                .map(|k| k.as_str().to_string())
                .collect(),
            StackKind::parse,
        )?;
        let certs = pick(
            "--cert",
            &self.certs,
            vec![CertKind::EcdsaP256],
            CertKind::ALL
                .iter()
                .map(|c| c.as_str().to_string())
                .collect(),
            CertKind::parse,
        )?;
        let modes = pick(
            "--modes",
            &self.modes,
            Mode::ALL.to_vec(),
            Mode::ALL.iter().map(|m| m.as_str().to_string()).collect(),
            Mode::parse,
        )?;
        let threads = if self.threads.is_empty() {
            let mut t = vec![1];
            if cpus > 1 {
                t.push(cpus);
            }
            t
        } else if self.threads == [0] {
            Vec::new()
        } else {
            self.threads.clone()
        };
        if !threads.is_empty() && !threads.contains(&1) {
            crate::bail_usage!("--threads must include 1: scaling is measured against one thread");
        }
        let most = MAX_THREADS_PER_CPU * cpus.max(1);
        if let Some(&n) = threads.iter().find(|&&n| n > most || n == 0) {
            crate::bail_usage!("--threads {n}: give 1 to {most} (or 0 alone to skip scaling)");
        }
        let network = crate::tls::conditions::parse_profiles(&self.network)
            .map_err(|e| crate::usage::Usage(format!("--network: {e}")))?;
        self.output.check_dirs()?;
        Ok(TlsOptions {
            groups,
            stacks,
            certs,
            modes,
            duration_s: self.duration,
            threads,
            scaling_duration_s: self.scaling_duration,
            target_rate: self.target_rate,
            network,
            network_handshakes: self.network_handshakes,
            network_concurrency: self.network_concurrency,
            network_parallel: self.network_parallel,
            store: !self.no_store,
            outputs: self.output.files(),
            layout: Width::wide_if(self.wide),
        })
    }
}

impl FilterArgs {
    /// The registry filter these arguments describe.
    pub fn to_filter(&self) -> crate::providers::registry::Filter {
        crate::providers::registry::Filter {
            algorithms: self.algorithms.clone(),
            implementations: self.implementations.clone(),
            family: self.family,
            level: self.level,
        }
    }
}
