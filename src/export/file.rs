//! A result file written as a run goes: the head and the results so far when it starts,
//! then each finished result appended in place (the tail rewritten after it), and the whole
//! file once more, atomically, when the run ends. So the bytes written grow with the run,
//! not with its square, and the file is complete and readable after every benchmark.

use super::Format;
use crate::files::{self, Target};
use crate::record::Kind;
use crate::record::Record;
use anyhow::Context;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// One result file of a run in progress.
pub struct ResultFile {
    format: Format,
    path: PathBuf,
    /// The file appended to; `None` for standard output and special files (a FIFO, a
    /// device), which get the whole file once, at the end.
    file: Option<File>,
    /// Where the tail starts: the next result goes here.
    tail_at: u64,
    /// Results written.
    count: usize,
}

impl ResultFile {
    /// Creates (or replaces) `path` with `r`'s head, its results so far and the tail.
    /// Standard output (`-`) and special files are written once, at the end; a symbolic link
    /// is followed to the file it names.
    pub fn create<K: Kind>(format: Format, path: &Path, r: &Record<K>) -> anyhow::Result<Self> {
        let mut f = ResultFile {
            format,
            path: path.to_path_buf(),
            file: None,
            tail_at: 0,
            count: r.results.len(),
        };
        let Target::Regular(real) = files::target(path)? else {
            return Ok(f);
        };
        let layout = format.layout::<K>();
        let mut head = layout.head(r)?;
        for (i, item) in r.results.iter().enumerate() {
            head.extend(layout.item(r, i, item)?);
        }
        f.file = Some(File::create(&real).with_context(|| format!("creating {}", path.display()))?);
        f.write_at_tail(&head, &layout.tail(r, f.count)?)?;
        Ok(f)
    }

    /// Its format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Appends `item`, the newest result of `r`, and rewrites the tail after it.
    pub fn append<K: Kind>(&mut self, r: &Record<K>, item: &K::Result) -> anyhow::Result<()> {
        if self.file.is_none() {
            return Ok(());
        }
        let layout = self.format.layout::<K>();
        let bytes = layout.item(r, self.count, item)?;
        self.count += 1;
        self.write_at_tail(&bytes, &layout.tail(r, self.count)?)
    }

    /// Writes `bytes` where the tail was, then `tail` after them, and cuts the file there.
    fn write_at_tail(&mut self, bytes: &[u8], tail: &[u8]) -> anyhow::Result<()> {
        let Some(f) = self.file.as_mut() else {
            return Ok(());
        };
        let path = &self.path;
        let io = |e: std::io::Error| {
            anyhow::Error::new(e).context(format!("writing {}", path.display()))
        };
        f.seek(SeekFrom::Start(self.tail_at)).map_err(io)?;
        f.write_all(bytes).map_err(io)?;
        self.tail_at += bytes.len() as u64;
        f.write_all(tail).map_err(io)?;
        f.set_len(self.tail_at + tail.len() as u64).map_err(io)?;
        f.flush().map_err(io)
    }

    /// Writes the whole final file (results in their final order, final header) atomically
    /// over the one written so far.
    pub fn finish<K: Kind>(self, r: &Record<K>) -> anyhow::Result<PathBuf> {
        drop(self.file);
        files::write_output(&self.path, &self.format.serialize(r)?)?;
        Ok(self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::FORMATS;

    #[test]
    fn appended_files_are_the_whole_file_at_every_step() {
        let dir = std::env::temp_dir().join(format!("kembench-file-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let full = crate::export::fixture::run();
        for f in FORMATS {
            let path = dir.join(format!("r.{}", f.name()));
            let mut r = full.clone();
            r.results.clear();
            let mut file = ResultFile::create(*f, &path, &r).unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), f.serialize(&r).unwrap());
            for item in &full.results {
                r.results.push(item.clone());
                file.append(&r, item).unwrap();
                assert_eq!(
                    std::fs::read(&path).unwrap(),
                    f.serialize(&r).unwrap(),
                    "{}",
                    f.name()
                );
            }
            file.finish(&r).unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), f.serialize(&full).unwrap());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
