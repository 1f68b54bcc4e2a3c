//! `kembench report`: a report built from records of every kind (runs, throughput runs,
//! profiles, tls runs), stored or in the files their commands write with `--json`.
//!
//! - [`data`] gathers the runs (records told apart by their `kind`, schema version checked);
//! - [`summary`] ranks implementations and algorithms (pure functions of a run);
//! - [`sections`] assembles the [`doc::Document`], one section per file in the order of
//!   [`sections::SECTIONS`], each with its own tables and charts;
//! - [`charts`] holds what the charts share (colours, legends, axes); each chart is drawn by
//!   plotters into an SVG string;
//! - [`html`] renders the document as one self-contained page and [`markdown`] as `report.md`
//!   plus one SVG file per chart.

pub mod charts;
pub mod data;
pub mod doc;
pub mod html;
pub mod markdown;
pub mod sections;
pub mod summary;

use anyhow::Context;
use data::Dataset;
use std::path::{Path, PathBuf};

/// The report's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// One self-contained HTML file: inline CSS, JS and SVG, nothing fetched.
    Html,
    /// A directory with `report.md` and one SVG file per chart.
    Markdown,
}

impl ReportFormat {
    /// Where the report goes when `-o` is not given.
    pub fn default_output(self) -> PathBuf {
        match self {
            ReportFormat::Html => PathBuf::from("report.html"),
            ReportFormat::Markdown => PathBuf::from("report"),
        }
    }
}

/// The name of the Markdown report inside its directory.
pub const MARKDOWN_FILE: &str = "report.md";

/// Builds the report of `data` and writes it to `out` (a file for HTML, `-` for standard
/// output, a directory for Markdown, created if missing), never over one of `protected` (the
/// store, the inputs); `noise` is the comparison's noise threshold as a fraction. Returns the
/// files written.
pub fn write(
    data: &Dataset,
    format: ReportFormat,
    out: &Path,
    noise: f64,
    protected: &[crate::files::Protected],
) -> anyhow::Result<Vec<PathBuf>> {
    let doc = sections::build(data, noise)?;
    match format {
        ReportFormat::Html => {
            if out.is_dir() {
                crate::bail_usage!(
                    "{} is a directory; give the HTML file to write (e.g. {})",
                    out.display(),
                    out.join("report.html").display()
                );
            }
            if let Some(dir) = out
                .parent()
                .filter(|d| !d.as_os_str().is_empty() && !d.is_dir())
            {
                crate::bail_usage!(
                    "cannot write {}: directory {} does not exist",
                    out.display(),
                    dir.display()
                );
            }
            crate::files::target(out)?;
            crate::files::refuse_overwrite(out, protected)?;
            crate::files::write_output(out, html::render(&doc).as_bytes())?;
            Ok(vec![out.to_path_buf()])
        }
        ReportFormat::Markdown => {
            if out.exists() && !out.is_dir() {
                crate::bail_usage!(
                    "{} is a file; with --format markdown, -o names a directory (report.md and the SVG charts go in it)",
                    out.display()
                );
            }
            let r = markdown::render(&doc);
            let files: Vec<(PathBuf, &str)> =
                std::iter::once((out.join(MARKDOWN_FILE), r.text.as_str()))
                    .chain(
                        r.files
                            .iter()
                            .map(|(name, svg)| (out.join(name), svg.as_str())),
                    )
                    .collect();
            // Every file is checked before the first is written.
            for (p, _) in &files {
                crate::files::refuse_overwrite(p, protected)?;
            }
            std::fs::create_dir_all(out)
                .with_context(|| format!("creating directory {}", out.display()))?;
            for (p, text) in &files {
                crate::files::write_atomic(p, text.as_bytes())?;
            }
            Ok(files.into_iter().map(|(p, _)| p).collect())
        }
    }
}
