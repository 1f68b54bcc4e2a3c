//! `kembench report [RUN|FILE...]`: an HTML (or Markdown) report from stored runs, profiles and
//! tls runs or result files; with none given, from the latest run in the store.

use crate::files::Protected;
use crate::record::RecordKind;
use crate::report::{self, data::Dataset, ReportFormat};
use crate::store::Store;
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `kembench report`'s command line.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Runs and profiles in the store (id or a unique part, `latest`, `latest~N`,
    /// `host:NAME`, `cpu:TEXT`) or result files (the `--json` file of `run`, `throughput`,
    /// `profile` or `tls`), in any mix; runs are compared in the order given. Default: the
    /// latest run in the store.
    #[arg(value_name = "RUN|FILE")]
    files: Vec<String>,
    /// Where to write: the HTML file (default report.html), or with `--format markdown` a
    /// directory for report.md and the SVG charts (default report/; created if missing).
    #[arg(short, long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// html: one self-contained page; markdown: report.md plus one SVG file per chart.
    #[arg(long, value_enum, default_value_t = ReportFormat::Html)]
    format: ReportFormat,
    /// In the comparison of runs, changes smaller than this percentage are called noise.
    #[arg(long, default_value_t = 2.0, value_name = "PCT")]
    noise: f64,
}

impl Args {
    /// Runs `report` on the store `spec`.
    pub fn run(self, spec: &str) -> anyhow::Result<ExitCode> {
        report(
            spec,
            &self.files,
            self.output.as_deref(),
            self.format,
            crate::cli::noise_fraction(self.noise)?,
        )
    }
}

/// Writes the report.
fn report(
    spec: &str,
    inputs: &[String],
    output: Option<&Path>,
    format: ReportFormat,
    noise: f64,
) -> anyhow::Result<ExitCode> {
    let latest;
    let inputs = if inputs.is_empty() {
        latest = [latest_run(spec)?];
        &latest[..]
    } else {
        inputs
    };
    let mut protected = crate::store::protected(spec);
    for i in inputs.iter().filter(|i| Path::new(i).is_file()) {
        protected.push(Protected::new("an input of this report", i));
    }
    let out = output.map_or_else(|| format.default_output(), Path::to_path_buf);
    if format == ReportFormat::Html {
        // Checked before anything is read: a bad output is the first thing said.
        crate::files::target(&out)?;
        crate::files::refuse_overwrite(&out, &protected)?;
    }
    let mut records = Vec::with_capacity(inputs.len());
    for i in inputs {
        let (name, r) = crate::store::load(spec, i, None)?;
        records.push((PathBuf::from(name), r));
    }
    let data = Dataset::from_records(records);
    let written = report::write(&data, format, &out, noise, &protected)?;
    let counts: Vec<String> = RecordKind::ALL
        .iter()
        .filter(|k| data.count(**k) > 0)
        .map(|k| k.count(data.count(*k)))
        .collect();
    let counts = match counts.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => "nothing".into(),
    };
    println!(
        "Report from {counts}: {}",
        match format {
            ReportFormat::Html => out.display().to_string(),
            ReportFormat::Markdown => format!(
                "{} ({} chart files beside it)",
                written[0].display(),
                written.len() - 1
            ),
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// The id of the newest run in the store, of either kind, said on stdout.
fn latest_run(spec: &str) -> anyhow::Result<String> {
    let mut s = Store::open_existing(spec)
        .context("no RUN given, so the report would be of the latest run in the store")?;
    let id = s
        .resolve("latest", None)
        .context("no RUN given, so the report would be of the latest run in the store")?;
    let run = s.load(&id)?.summary;
    let sweep = match s.sweep_of(&id)? {
        Some(sweep) => format!(
            " It is one shard of sweep {sweep}: `kembench report sweep:{sweep}` reports the whole \
             sweep."
        ),
        None => String::new(),
    };
    print!(
        "{}",
        crate::output::wrap(
            &crate::output::clean(&format!(
                "No RUN given: reporting the latest run in {}: {id} ({}, {}, host {}, started \
                 {}).{sweep}",
                s.location(),
                run.kind,
                run.status,
                run.host,
                run.started_at
            )),
            2
        )
    );
    Ok(id)
}
