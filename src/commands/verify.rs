//! `kembench verify`: the correctness gate as a table (or JSON) and an exit code.

use crate::cli::FilterArgs;
use crate::providers::{Filter, Registry};
use crate::verify;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `kembench verify`'s command line.
#[derive(Debug, clap::Args)]
pub struct Args {
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
}

impl Args {
    /// Runs `verify`.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let mut opts = verify::Options {
            min_round_trips: self.min_round_trips as usize,
            all_counts: self.all_counts,
            ..verify::Options::default()
        };
        if let Some(t) = self.threads {
            opts.threads = t as usize;
        }
        let output = if self.json {
            Output::Json
        } else {
            Output::Table(crate::output::Width::wide_if(self.wide))
        };
        let mut selected = self.filter.to_filter();
        selected.algorithms.extend(self.exact_alg);
        selected.implementations.extend(self.exact_impl);
        gate(&selected, self.filter.include_mock, &opts, output)
    }
}

/// How `verify` prints its report.
enum Output {
    /// The report as JSON.
    Json,
    /// The console table, fitted or wide.
    Table(crate::output::Width),
}

/// Runs the gate on the implementations `filter` selects and prints its report.
fn gate(
    filter: &Filter,
    include_mock: bool,
    opts: &verify::Options,
    output: Output,
) -> anyhow::Result<ExitCode> {
    let registry = Registry::new(include_mock);
    let impls = registry.select(filter)?;
    let total = impls.len();
    let done = AtomicUsize::new(0);
    let tty = std::io::stderr().is_terminal();
    let progress = |what: &str| {
        if tty {
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            eprint!("\r\x1b[2Kverify: {what} ({}/{total})", n.min(total));
        }
    };
    let report = verify::run(&impls, opts, &progress);
    if tty {
        eprint!("\r\x1b[2K");
    }
    match output {
        Output::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Output::Table(layout) => crate::output::verify::print_table(&report, layout),
    }
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::exit::FAILED)
    })
}
