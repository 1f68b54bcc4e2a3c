//! The argument groups and value parsers that several commands share (clap): result files,
//! the selection of implementations, compiling, and the checks of seconds, percentages and
//! names. Each command declares its own arguments and their one conversion into validated
//! options in its module (`commands/NAME.rs`); no engine is handed a clap type. Below the
//! commands, clap appears only as the `ValueEnum` derive of the two enums that are argument
//! values themselves (`kem::Op`, `report::ReportFormat`), so that their names are
//! declared once, on the type.

use crate::export::{Format, Outputs, FORMATS};
use clap::Args;

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

/// `export --format NAME`: one of [`crate::export::FORMATS`].
pub fn export_format() -> impl clap::builder::TypedValueParser<Value = Format> {
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
    /// Flag sets, separated by ';' (each may hold several flags, split into words as a shell
    /// splits them: `-DMSG='a b'` is one flag; default: `-O2;-O3;-O3 -march=native` for
    /// `builds`, `-O3` for `add`).
    #[arg(long, allow_hyphen_values = true)]
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

/// `--no-store` and `--resume RUN`: what every measuring command (`run`, `throughput`,
/// `profile`, `ct`, `tls`) says about its session, declared once.
#[derive(Debug, Clone, Default, Args)]
pub struct SessionArgs {
    /// Do not record the run in the results store.
    #[arg(long)]
    pub no_store: bool,
    /// Complete an interrupted run of this command from the results store (its id, `latest`,
    /// ...): measure the benchmarks it planned and has no final result for, with that run's
    /// own configuration, into the same run.
    #[arg(long, value_name = "RUN")]
    pub resume: Option<String>,
}

impl SessionArgs {
    /// Refuses `--resume` with `--no-store`; `what` names what `--resume` continues (`a run`,
    /// `a profile`).
    pub fn check(&self, what: &str) -> anyhow::Result<()> {
        if self.resume.is_some() && self.no_store {
            crate::bail_usage!(
                "--resume continues {what} from the results store; it cannot be used with \
                 --no-store"
            );
        }
        Ok(())
    }
}

/// `--shard K/N` and `--sweep ID`: this command is one job of a sweep.
#[derive(Debug, Clone, Default, Args)]
pub struct ShardArgs {
    /// Measure only shard K of N (K from 1) of the planned list, split deterministically and
    /// balanced by expected cost, so that N jobs of any scheduler (a CI matrix, a Slurm
    /// array, a Kubernetes indexed Job) measure the plan once between them; needs --sweep.
    #[arg(long, value_name = "K/N", value_parser = crate::shard::Shard::from_str_arg)]
    pub shard: Option<crate::shard::Shard>,
    /// The sweep's id, the same in every job of it (e.g. the CI run's id): its runs carry it,
    /// and `report`, `compare`, `export` and `show` read `sweep:ID` as one run.
    #[arg(long, value_name = "ID")]
    pub sweep: Option<String>,
}

impl ShardArgs {
    /// The job these flags describe: none without `--shard`; `--shard` without `--sweep`
    /// (or the reverse), a malformed sweep id, and `--shard` on a command that resumes a run
    /// (`resuming`) are refused.
    pub fn job(&self, resuming: bool) -> anyhow::Result<Option<crate::shard::Job>> {
        if self.shard.is_some() && resuming {
            crate::bail_usage!(
                "--resume completes a run, shard of a sweep or not, as it was planned; it \
                 cannot be used with --shard"
            );
        }
        match (self.shard, &self.sweep) {
            (None, None) => Ok(None),
            (Some(shard), Some(id)) => {
                crate::shard::check_sweep_id(id).map_err(crate::usage::Usage)?;
                Ok(Some(crate::shard::Job {
                    shard,
                    sweep: id.clone(),
                }))
            }
            (Some(shard), None) => crate::bail_usage!(
                "--shard {shard} needs --sweep ID, one id shared by the sweep's {} jobs (e.g. \
                 --sweep \"$GITHUB_RUN_ID\"), so that their runs are read back as one",
                shard.count
            ),
            (None, Some(_)) => crate::bail_usage!(
                "--sweep names the sweep this job is a shard of; give --shard K/N with it"
            ),
        }
    }
}

/// A positive, finite number of seconds, or an error naming the flag.
pub fn positive_seconds(flag: &str, v: f64) -> anyhow::Result<f64> {
    if v > 0.0 && v.is_finite() {
        Ok(v)
    } else {
        crate::bail_usage!("{flag} must be a positive number of seconds, got {v}")
    }
}

/// A percentage of zero or more (`--fail-on-regression`).
pub fn non_negative_pct(s: &str) -> Result<f64, String> {
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

/// The most threads (or processes) `throughput` starts per logical CPU.
pub const MAX_THREADS_PER_CPU: usize = 64;

/// Each name of `given` (or every default when empty) looked up with `find`; an unknown name
/// is a usage error that suggests the nearest of `names`.
pub fn pick<T: Copy>(
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
