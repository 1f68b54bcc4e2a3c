//! `kembench report RUN...`: an HTML (or Markdown) report from stored runs or result files.

use crate::report::{self, data::Dataset, Format};
use anyhow::bail;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs `report`.
pub fn run(
    spec: &str,
    inputs: &[String],
    output: Option<&Path>,
    format: Format,
    noise_pct: f64,
) -> anyhow::Result<ExitCode> {
    if !(0.0..100.0).contains(&noise_pct) {
        bail!("--noise is a percentage between 0 and 100, got {noise_pct}");
    }
    let mut records = Vec::with_capacity(inputs.len());
    for i in inputs {
        let (name, r) = super::store::load(spec, i, None)?;
        records.push((PathBuf::from(name), r));
    }
    let data = Dataset::from_records(records);
    let out = output.map_or_else(|| format.default_output(), Path::to_path_buf);
    let written = report::write(&data, format, &out, noise_pct / 100.0)?;
    println!(
        "Report from {} run{} and {} throughput run{}: {}",
        data.runs.len(),
        if data.runs.len() == 1 { "" } else { "s" },
        data.throughputs.len(),
        if data.throughputs.len() == 1 { "" } else { "s" },
        match format {
            Format::Html => out.display().to_string(),
            Format::Markdown => format!(
                "{} ({} chart files beside it)",
                written[0].display(),
                written.len() - 1
            ),
        }
    );
    Ok(ExitCode::SUCCESS)
}
