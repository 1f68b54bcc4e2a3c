//! Result files: one module per format behind one trait. Adding a format is one file, one
//! enum variant and one match arm.

mod csv;
mod json;
pub mod markdown;

use crate::run::result::RunRecord;
use std::path::Path;

/// Turns a run into the bytes of one file format.
pub trait Exporter {
    /// Serialises the whole run.
    fn serialize(&self, run: &RunRecord) -> anyhow::Result<Vec<u8>>;
}

/// The formats `run` can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Everything, raw samples and environment included.
    Json,
    /// One row per (algorithm, implementation, operation), for spreadsheets.
    Csv,
    /// A table for papers and READMEs.
    Markdown,
}

impl Format {
    /// The exporter for this format.
    pub fn exporter(self) -> Box<dyn Exporter> {
        match self {
            Format::Json => Box::new(json::Json),
            Format::Csv => Box::new(csv::Csv),
            Format::Markdown => Box::new(markdown::Markdown),
        }
    }
}

/// Writes `run` to `path` atomically (temporary file, then rename), so a crash or Ctrl-C
/// while writing never leaves a half-written file over the previous one.
pub fn write(format: Format, run: &RunRecord, path: &Path) -> anyhow::Result<()> {
    write_atomic(path, &format.exporter().serialize(run)?)
}

/// Writes `bytes` to `path` through a temporary file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context;
    let tmp = path.with_extension(format!(
        "{}.tmp",
        path.extension().and_then(|e| e.to_str()).unwrap_or("out")
    ));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))?;
    Ok(())
}

#[cfg(test)]
pub(crate) mod fixture;
