//! `kembench verify`: the correctness gate as a table (or JSON) and an exit code.

use crate::providers::{Filter, Registry};
use crate::verify;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How `verify` prints its report.
pub enum Output {
    /// The report as JSON.
    Json,
    /// The console table, fitted or wide.
    Table(crate::output::Width),
}

/// Runs `verify`.
pub fn run(
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
