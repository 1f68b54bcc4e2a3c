//! `kembench list`: the catalog joined with the registry.

use crate::cli::FilterArgs;
use crate::output::list;
use crate::providers::{Filter, Registry};
use std::process::ExitCode;

/// `kembench list`'s command line.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which implementations.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// List the builds `kembench builds` registered (and those that failed) instead.
    #[arg(long)]
    pub builds: bool,
    /// Every column (standard, classical bits, IND-CCA) and every line unwrapped (default:
    /// the headline columns within 120 columns).
    #[arg(long)]
    pub wide: bool,
}

impl Args {
    /// Runs `list` (`list --builds` is the builds module's, see [`Args::builds`]).
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let layout = crate::output::Width::wide_if(self.wide);
        catalog(
            &self.filter.to_filter(),
            self.filter.include_mock,
            self.json,
            layout,
        )
    }
}

/// The catalog joined with the registry, as a table or JSON.
fn catalog(
    filter: &Filter,
    include_mock: bool,
    json: bool,
    layout: crate::output::Width,
) -> anyhow::Result<ExitCode> {
    let registry = Registry::new(include_mock);
    let impls = registry.select(filter)?;
    let rows = list::rows(&impls);
    if json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    list::print(&rows, &impls, registry.unavailable(), layout);
    if !registry.builds().is_empty() {
        println!(
            "{} builds registered (`kembench builds`, `kembench add`): `kembench list --builds`.",
            registry.builds().len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
