//! One module per subcommand; each returns the process exit code.

mod compare;
mod list;
mod report;
mod run;
mod throughput;
mod verify;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// The environment record, with the versions of the implementations about to be measured.
fn environment_for(impls: &[std::sync::Arc<dyn crate::kem::Kem>]) -> crate::env::Environment {
    let mut env = crate::env::Environment::collect();
    env.providers = impls
        .iter()
        .map(|k| crate::env::ProviderVersion {
            implementation: k.meta().implementation.clone(),
            version: k.meta().version.clone(),
        })
        .collect();
    env.providers
        .sort_by(|a, b| a.implementation.cmp(&b.implementation));
    env.providers.dedup();
    env
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::List { filter, json } => list::run(&filter, json),
        Command::Run { filter, args } => run::run(&filter, &args),
        Command::Compare {
            old,
            new,
            noise,
            fail_on_regression,
            json,
        } => compare::run(&old, &new, noise, fail_on_regression, json),
        Command::Report {
            files,
            output,
            format,
            noise,
        } => report::run(&files, output.as_deref(), format, noise),
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
