//! One module per subcommand, each a leaf: it turns validated options into calls to the
//! engine (run, throughput, verify, store, report) and the console, and returns the exit code.
//! No command module imports another.

mod builds;
mod compare;
mod list;
mod profile;
mod report;
mod run;
mod store;
mod throughput;
mod tls;
mod verify;

use crate::cli::{noise_fraction, Cli, Command};
use std::process::ExitCode;

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let spec = cli.store_spec();
    match cli.command {
        Command::List {
            filter,
            json,
            builds,
        } => {
            if builds {
                builds::list(&filter.to_filter(), json)
            } else {
                list::run(&filter.to_filter(), filter.include_mock, json)
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
        } => builds::add(&builds::AddArgs {
            path,
            sizes,
            name,
            implements,
            compile: compiling(compile.or(&["gcc"], &["-O3"])),
            level,
            implicit_rejection,
        }),
        Command::Builds {
            algorithms,
            sources,
            compile,
            jobs,
            reverify,
        } => builds::run(&builds::Args {
            algorithms,
            sources,
            compile: compiling(compile.or(&["gcc", "clang"], &["-O2", "-O3", "-O3 -march=native"])),
            jobs: jobs.map(usize::from),
            reverify,
        }),
        Command::Run { filter, args } => run::run(&args.to_options(&filter)?, &spec),
        Command::RunWorker => crate::run::worker::serve().map(|()| ExitCode::SUCCESS),
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
        Command::Runs { json, limit } => store::runs(&spec, json, limit),
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
            threads,
            min_round_trips,
        } => {
            let mut opts = crate::verify::Options {
                min_round_trips: min_round_trips as usize,
                ..crate::verify::Options::default()
            };
            if let Some(t) = threads {
                opts.threads = t as usize;
            }
            verify::run(&filter.to_filter(), filter.include_mock, &opts, json)
        }
    }
}

/// The compile arguments of `builds` and `add` as those commands take them.
fn compiling(c: crate::cli::CompileArgs) -> builds::Compile {
    builds::Compile {
        cc: c.cc,
        flags: c.flags,
        gate_timeout: std::time::Duration::from_secs(c.gate_timeout),
        json: c.json,
    }
}
