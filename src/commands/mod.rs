//! One module per subcommand; each returns the process exit code.

mod list;
mod run;
mod throughput;
mod verify;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::List { filter, json } => list::run(&filter, json),
        Command::Run { filter, args } => run::run(&filter, &args),
        Command::Throughput { filter, args } => throughput::run(&filter, &args),
        Command::ThroughputWorker {
            label,
            op,
            duration,
            pin_cpu,
            include_mock,
        } => throughput::worker(&label, op, duration, pin_cpu, include_mock),
        Command::Verify {
            filter,
            json,
            threads,
            min_round_trips,
        } => verify::run(&filter, json, threads, min_round_trips),
    }
}
