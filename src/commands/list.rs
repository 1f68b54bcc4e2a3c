//! `kembench list`: the catalog joined with the registry.

use crate::output::list;
use crate::providers::{Filter, Registry};
use std::process::ExitCode;

/// Runs `list`.
pub fn run(
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
