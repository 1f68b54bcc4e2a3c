//! Writing files so that a crash or Ctrl-C never leaves a half-written file behind.

use std::path::Path;

/// Writes `bytes` to `path` through a temporary file and a rename, so a crash or Ctrl-C
/// while writing never leaves a half-written file over the previous one.
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
