//! A result file written as a run goes, never over the file it replaces: the head and the
//! results so far go into an in-progress file beside it (`FILE.RUN.partial`, named on the
//! console) when the run starts, each finished result is appended there in place (the tail
//! rewritten after it), and when the run ends the whole file is written once more,
//! atomically, over FILE, and the in-progress file removed. So the bytes written grow with
//! the run, not with its square; the in-progress file is complete and readable after every
//! benchmark (an append that fails puts its previous tail back), and FILE is either what it
//! was before the run or the whole new file, whatever fails or crashes on the way.

use super::Format;
use crate::files::{self, Target};
use crate::record::Kind;
use crate::record::Record;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// One result file of a run in progress.
pub struct ResultFile {
    format: Format,
    path: PathBuf,
    /// The in-progress file; `None` for standard output and special files (a FIFO, a
    /// device), which get the whole file once, at the end.
    partial: Option<Partial>,
    /// Results written.
    count: usize,
}

/// The in-progress file of a regular result file.
struct Partial {
    /// The result file, symbolic links resolved: what the end replaces.
    real: PathBuf,
    /// The in-progress file beside it.
    path: PathBuf,
    /// The file appended to; `None` once an append failed (the file keeps the results
    /// before, and the end writes the whole result file).
    file: Option<File>,
    /// Where the tail starts: the next result goes here.
    tail_at: u64,
    /// The tail now at `tail_at`, put back when an append fails.
    tail: Vec<u8>,
}

impl Partial {
    /// Writes `bytes` where the tail was, then `tail` after them, and cuts the file there; on
    /// failure puts the previous tail back, so the file stays whole with the results before.
    fn write_at_tail(&mut self, bytes: &[u8], tail: &[u8]) -> std::io::Result<()> {
        let Some(f) = self.file.as_mut() else {
            return Ok(());
        };
        match write_at(f, self.tail_at, bytes, tail) {
            Ok(()) => {
                self.tail_at += bytes.len() as u64;
                self.tail = tail.to_vec();
                Ok(())
            }
            Err(e) => {
                // The bytes put back were in the file already: rewriting them needs no new
                // space, even on a full disk (so not through the injected full disk either).
                let (at, old) = (self.tail_at, &self.tail);
                let _ = f
                    .set_len(at + old.len() as u64)
                    .and_then(|()| f.seek(SeekFrom::Start(at)))
                    .and_then(|_| f.write_all(old));
                self.file = None;
                Err(e)
            }
        }
    }
}

/// Writes `bytes` then `tail` into `f` at `at`, and cuts the file after them.
fn write_at(f: &mut File, at: u64, bytes: &[u8], tail: &[u8]) -> std::io::Result<()> {
    f.seek(SeekFrom::Start(at))?;
    files::write_counted(f, bytes)?;
    files::write_counted(f, tail)?;
    f.set_len(at + (bytes.len() + tail.len()) as u64)?;
    f.flush()
}

impl ResultFile {
    /// Starts `path` with `r`'s head, its results so far and the tail, in its in-progress
    /// file (named on standard error); `path` itself is untouched until
    /// [`ResultFile::finish`]. Standard output (`-`) and special files are written once, at
    /// the end; a symbolic link is followed to the file it names. When the in-progress file
    /// cannot be written, it is removed and the error names `path` and the reason.
    pub fn create<K: Kind>(format: Format, path: &Path, r: &Record<K>) -> anyhow::Result<Self> {
        let mut f = ResultFile {
            format,
            path: path.to_path_buf(),
            partial: None,
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
        let tail = layout.tail(r, f.count)?;
        let id = r
            .run_id
            .clone()
            .unwrap_or_else(|| std::process::id().to_string());
        let partial_path = files::sibling(&real, &format!("{id}.partial"));
        let mut partial = Partial {
            real,
            path: partial_path,
            file: None,
            tail_at: 0,
            tail: Vec::new(),
        };
        let started = File::create(&partial.path).and_then(|file| {
            partial.file = Some(file);
            partial.write_at_tail(&head, &tail)
        });
        if let Err(e) = started {
            let _ = std::fs::remove_file(&partial.path);
            anyhow::bail!(
                "cannot write {} (in progress as {}): {e}; {}",
                path.display(),
                partial.path.display(),
                untouched(path)
            );
        }
        eprintln!(
            "writing {} as {} until the run ends",
            path.display(),
            partial.path.display()
        );
        f.partial = Some(partial);
        Ok(f)
    }

    /// The file asked for.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The in-progress file, for a regular result file.
    pub fn in_progress(&self) -> Option<&Path> {
        self.partial.as_ref().map(|p| p.path.as_path())
    }

    /// Its format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Appends `item`, the newest result of `r`, and rewrites the tail after it. When that
    /// fails, the in-progress file keeps the results before and is not appended to again.
    pub fn append<K: Kind>(&mut self, r: &Record<K>, item: &K::Result) -> anyhow::Result<()> {
        let Some(p) = self.partial.as_mut().filter(|p| p.file.is_some()) else {
            return Ok(());
        };
        let layout = self.format.layout::<K>();
        let bytes = layout.item(r, self.count, item)?;
        let tail = layout.tail(r, self.count + 1)?;
        if let Err(e) = p.write_at_tail(&bytes, &tail) {
            anyhow::bail!(
                "cannot append to {} (the in-progress {}): {e}; it keeps the {} result(s) \
                 before, and {} is written whole when the run ends",
                p.path.display(),
                self.path.display(),
                self.count,
                self.path.display()
            );
        }
        self.count += 1;
        Ok(())
    }

    /// Writes the whole final file (results in their final order, final header) atomically
    /// over the old one and removes the in-progress file. When that fails, the old file is
    /// left as it was and the in-progress file keeps the results appended to it (removed when
    /// it holds none); the error says so.
    pub fn finish<K: Kind>(self, r: &Record<K>) -> anyhow::Result<PathBuf> {
        let bytes = self.format.serialize(r)?;
        let Some(p) = self.partial else {
            files::write_output(&self.path, &bytes)?;
            return Ok(self.path);
        };
        drop(p.file);
        if let Err(e) = files::write_atomic(&p.real, &bytes) {
            let kept = if self.count > 0 {
                format!(
                    "; the {} result(s) written before are in {}",
                    self.count,
                    p.path.display()
                )
            } else {
                let _ = std::fs::remove_file(&p.path);
                String::new()
            };
            anyhow::bail!("{e:#}; {}{kept}", untouched(&self.path));
        }
        let _ = std::fs::remove_file(&p.path);
        Ok(self.path)
    }

    /// Removes the in-progress file of a result file whose run never started (another
    /// result file could not be created): it holds only what the store already has.
    pub fn abandon(self) {
        if let Some(p) = self.partial {
            drop(p.file);
            let _ = std::fs::remove_file(&p.path);
        }
    }
}

/// Fills this test thread's disk: `bytes` left from now on for result files (`None`:
/// unlimited), for the tests of what a full disk leaves.
#[cfg(test)]
pub(crate) fn disk_left(bytes: Option<u64>) {
    files::tests::DISK_LEFT.set(bytes);
}

/// What became of `path` when writing it failed: left as it was, or never created.
fn untouched(path: &Path) -> String {
    if path.exists() {
        format!("{} is left as it was", path.display())
    } else {
        format!("{} was not created", path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::FORMATS;

    #[test]
    fn appended_files_are_the_whole_file_at_every_step_and_never_over_the_old_one() {
        let dir = std::env::temp_dir().join(format!("kembench-file-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let full = crate::export::fixture::run();
        for f in FORMATS {
            let path = dir.join(format!("r.{}", f.name()));
            std::fs::write(&path, b"the old result").unwrap();
            let mut r = full.clone();
            r.results.clear();
            let mut file = ResultFile::create(*f, &path, &r).unwrap();
            let partial = file.in_progress().unwrap().to_path_buf();
            assert_eq!(std::fs::read(&partial).unwrap(), f.serialize(&r).unwrap());
            for item in &full.results {
                r.results.push(item.clone());
                file.append(&r, item).unwrap();
                assert_eq!(
                    std::fs::read(&partial).unwrap(),
                    f.serialize(&r).unwrap(),
                    "{}",
                    f.name()
                );
                assert_eq!(std::fs::read(&path).unwrap(), b"the old result");
            }
            file.finish(&r).unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), f.serialize(&full).unwrap());
            assert!(!partial.exists(), "the in-progress file is removed");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_full_disk_never_costs_the_old_file_nor_what_was_written() {
        let dir = std::env::temp_dir().join(format!("kembench-file-full-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.json");
        let old = b"{\"the old result\": true}".to_vec();
        std::fs::write(&path, &old).unwrap();
        let full = crate::export::fixture::run();
        assert!(full.results.len() >= 2);
        let mut r = full.clone();
        r.results.clear();

        // Full before the run starts: nothing is left behind, and the old file is untouched.
        disk_left(Some(10));
        let e = ResultFile::create(Format::JSON, &path, &r).err().unwrap();
        disk_left(None);
        let e = format!("{e:#}");
        assert!(
            e.contains("r.json") && e.contains("No space left on device"),
            "{e}"
        );
        assert!(e.contains("is left as it was"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), old);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "{e}");
        let new = dir.join("new.json");
        ResultFile::create(Format::JSON, &new, &r)
            .unwrap()
            .abandon();
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "room again");
        disk_left(Some(0));
        let e = format!(
            "{:#}",
            ResultFile::create(Format::JSON, &new, &r).err().unwrap()
        );
        disk_left(None);
        assert!(e.contains("new.json was not created"), "{e}");
        assert!(!new.exists());

        // Full part-way: the in-progress file keeps the results before, whole.
        let mut file = ResultFile::create(Format::JSON, &path, &r).unwrap();
        let partial = file.in_progress().unwrap().to_path_buf();
        r.results.push(full.results[0].clone());
        file.append(&r, &full.results[0]).unwrap();
        let one = std::fs::read(&partial).unwrap();
        assert_eq!(one, Format::JSON.serialize(&r).unwrap());
        disk_left(Some(3));
        r.results.push(full.results[1].clone());
        let e = format!("{:#}", file.append(&r, &full.results[1]).unwrap_err());
        assert!(e.contains("No space left on device"), "{e}");
        assert_eq!(std::fs::read(&partial).unwrap(), one, "the tail put back");
        // And at the end: the old file stays, the in-progress one is kept and named.
        disk_left(Some(0));
        let e = format!("{:#}", file.finish(&r).unwrap_err());
        disk_left(None);
        assert!(
            e.contains("No space left on device")
                && e.contains("r.json is left as it was")
                && e.contains(&partial.display().to_string()),
            "{e}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), old);
        assert_eq!(std::fs::read(&partial).unwrap(), one);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
