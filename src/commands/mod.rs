//! One module per subcommand; each returns the process exit code.

mod compare;
mod list;
mod report;
mod run;
mod store;
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
    let spec = cli.store_spec();
    match cli.command {
        Command::List { filter, json } => list::run(&filter, json),
        Command::Run { filter, args } => run::run(&filter, &args, &spec),
        Command::RunWorker => crate::run::worker::serve().map(|()| ExitCode::SUCCESS),
        Command::Compare {
            old,
            new,
            noise,
            fail_on_regression,
            json,
        } => compare::run(&spec, &old, &new, noise, fail_on_regression, json),
        Command::Runs { json, limit } => store::runs(&spec, json, limit),
        Command::Show { run } => store::show(&spec, &run),
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
        } => report::run(&spec, &files, output.as_deref(), format, noise),
        Command::Throughput { filter, args } => throughput::run(&filter, &args, &spec),
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
