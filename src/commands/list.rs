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
    let impls = registry.select_unprepared(filter)?;
    let rows = list::rows(&impls);
    if json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    list::print(&rows, &impls, registry.unavailable(), layout);
    let named: Vec<&str> = impls
        .iter()
        .map(|k| k.meta().implementation.as_str())
        .collect();
    let mut on_demand: Vec<(&str, &str, usize)> = Vec::new();
    for k in registry.on_demand() {
        let m = k.meta();
        match on_demand
            .iter_mut()
            .find(|(id, _, _)| *id == m.implementation)
        {
            Some(e) => e.2 += 1,
            None => on_demand.push((&m.implementation, &m.version, 1)),
        }
    }
    for (id, version, n) in on_demand.iter().filter(|(id, _, _)| !named.contains(id)) {
        print!(
            "{}",
            crate::output::wrap(
                &format!(
                    "Also, picked only when named: `--impl {id}`, {n} algorithms of {version}."
                ),
                2
            )
        );
    }
    if !registry.builds().is_empty() {
        println!(
            "{} builds registered (`kembench builds`, `kembench add`): `kembench list --builds`.",
            registry.builds().len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
