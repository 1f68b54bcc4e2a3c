//! Writing output files without ever losing data: never over the results store or an input
//! of the same command (compared by real path, symbolic links and relative paths resolved) or
//! an SQLite database, atomically for regular files (a temporary file renamed over the old
//! one, removed again when writing fails), in place for special files (a FIFO,
//! `/dev/stdout`), to standard output for `-`, and never into a directory.

use crate::usage::Usage;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where an output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Standard output (`-`).
    Stdout,
    /// A regular file (or one to be created), symbolic links resolved: written atomically.
    Regular(PathBuf),
    /// A FIFO, a character device or a socket: written in place, never replaced.
    Special(PathBuf),
}

/// What `path` names as an output: `-` is standard output, a symbolic link is followed, a
/// directory is an error.
pub fn target(path: &Path) -> Result<Target, Usage> {
    if path.as_os_str() == "-" {
        return Ok(Target::Stdout);
    }
    let resolved = match std::fs::canonicalize(path) {
        Ok(p) => p,
        // Not there yet (or a dangling link): where it will be created.
        Err(_) => real(path),
    };
    match std::fs::metadata(&resolved) {
        Ok(m) if m.is_dir() => Err(Usage(format!(
            "{} is a directory; give a file to write",
            path.display()
        ))),
        Ok(m) if !m.is_file() => Ok(Target::Special(resolved)),
        // Said first by `refuse_overwrite`; here too, for an output no command checked.
        Ok(_) if is_sqlite(&resolved) => Err(over_database(path)),
        _ => {
            if let Some(dir) = resolved.parent().filter(|d| !d.is_dir()) {
                return Err(Usage(format!(
                    "cannot write {}: directory {} does not exist",
                    path.display(),
                    dir.display()
                )));
            }
            Ok(Target::Regular(resolved))
        }
    }
}

/// `path` made absolute with its existing part's symbolic links resolved, for comparing.
pub fn real(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (abs.parent(), abs.file_name()) {
        (Some(dir), Some(name)) => real(dir).join(name),
        _ => abs,
    }
}

/// A file an output must never replace, and what it is (for the message).
#[derive(Debug, Clone)]
pub struct Protected {
    /// What the file is: `the results store`, `an input of this command`.
    pub what: String,
    /// The file.
    pub path: PathBuf,
}

impl Protected {
    /// `path`, which is `what`.
    pub fn new(what: impl Into<String>, path: impl Into<PathBuf>) -> Protected {
        Protected {
            what: what.into(),
            path: path.into(),
        }
    }
}

/// Refuses an output `out` that is (by real path) one of `protected`, or an SQLite database
/// (another results store than the command's own: never a result file's place).
pub fn refuse_overwrite(out: &Path, protected: &[Protected]) -> Result<(), Usage> {
    if out.as_os_str() == "-" {
        return Ok(());
    }
    let o = real(out);
    for p in protected {
        if real(&p.path) == o {
            return Err(Usage(format!(
                "refusing to write {} over {} ({}); give another output path",
                out.display(),
                p.what,
                p.path.display()
            )));
        }
    }
    if is_sqlite(&o) {
        return Err(over_database(out));
    }
    Ok(())
}

/// The refusal of an output `out` that is an SQLite database.
fn over_database(out: &Path) -> Usage {
    Usage(format!(
        "refusing to write {} over an SQLite database (a results store?); give another output \
         path",
        out.display()
    ))
}

/// Whether `path` is a regular file that starts as every SQLite database does.
fn is_sqlite(path: &Path) -> bool {
    use std::io::Read;
    const MAGIC: &[u8; 16] = b"SQLite format 3\0";
    let mut head = [0u8; 16];
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
        && &head == MAGIC
}

/// Bytes this process wrote to output files, for the injected full disk of
/// [`write_counted`].
static WRITTEN: AtomicU64 = AtomicU64::new(0);

/// A test hook: with `KEMBENCH_MOCK_FAULTS=1`, `KEMBENCH_MOCK_DISK_FULL_AFTER=BYTES` makes
/// the disk of every output file full once this process has written BYTES bytes to them:
/// the write that crosses the limit writes what fits and fails with `ENOSPC`, as a real full
/// disk does. The results store is not affected (`KEMBENCH_MOCK_STORE_FAILS_AFTER` is its
/// own hook).
fn disk_full_after() -> Option<u64> {
    if std::env::var("KEMBENCH_MOCK_FAULTS").ok()? != "1" {
        return None;
    }
    std::env::var("KEMBENCH_MOCK_DISK_FULL_AFTER")
        .ok()?
        .parse()
        .ok()
}

/// Writes all of `bytes` to an output file `w` (the injected full disk of
/// [`disk_full_after`] applies).
pub fn write_counted(w: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    #[cfg(test)]
    if let Some(left) = tests::DISK_LEFT.get() {
        let fits = left.min(bytes.len() as u64);
        tests::DISK_LEFT.set(Some(left - fits));
        w.write_all(&bytes[..fits as usize])?;
        return if fits < bytes.len() as u64 {
            Err(std::io::Error::from_raw_os_error(libc::ENOSPC))
        } else {
            Ok(())
        };
    }
    if let Some(limit) = disk_full_after() {
        let left = limit.saturating_sub(WRITTEN.load(Ordering::Relaxed));
        if (bytes.len() as u64) > left {
            w.write_all(&bytes[..left as usize])?;
            WRITTEN.fetch_add(left, Ordering::Relaxed);
            return Err(std::io::Error::from_raw_os_error(libc::ENOSPC));
        }
    }
    w.write_all(bytes)?;
    WRITTEN.fetch_add(bytes.len() as u64, Ordering::Relaxed);
    Ok(())
}

/// The name of the temporary file beside `path` that ends with `suffix`
/// (`r.json` → `r.json.tmp`; `r` → `r.out.tmp`).
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    path.with_extension(format!(
        "{}.{suffix}",
        path.extension().and_then(|e| e.to_str()).unwrap_or("out")
    ))
}

/// Writes `bytes` to `path` as its [`Target`] calls for.
pub fn write_output(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    match target(path)? {
        Target::Stdout => {
            let mut out = std::io::stdout().lock();
            match out.write_all(bytes).and_then(|()| out.flush()) {
                // The reader stopped reading (`| head`): not an error of this command.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                    crate::interrupt::reader_gone();
                    Ok(())
                }
                r => Ok(r?),
            }
        }
        Target::Special(p) => std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .and_then(|mut f| write_counted(&mut f, bytes))
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", p.display())),
        Target::Regular(p) => write_atomic(&p, bytes),
    }
}

/// Writes `bytes` to the regular file `path` through a temporary file and a rename, so a
/// crash or Ctrl-C while writing never leaves a half-written file over the previous one; the
/// temporary file is removed when writing fails, and the error names `path` and the reason
/// (`No space left on device`).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = sibling(path, "tmp");
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| write_counted(&mut f, bytes))
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        anyhow::bail!("cannot write {}: {e}", path.display());
    }
    Ok(())
}

/// Writes each (file name, contents) of `files` into the folder `dir` (created when missing),
/// atomically and never over a protected file; returns how many were written.
pub fn write_into(
    dir: &Path,
    files: Vec<(String, String)>,
    protected: &[Protected],
) -> anyhow::Result<usize> {
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    for (name, contents) in &files {
        let path = dir.join(name);
        refuse_overwrite(&path, protected)?;
        write_atomic(&path, contents.as_bytes())?;
    }
    Ok(files.len())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// The space left on this test thread's disk, when a test fills it: output files
        /// written on the thread take from it, and a write that does not fit fails with
        /// `ENOSPC` (the environment's hook is process-wide; tests run side by side).
        pub(crate) static DISK_LEFT: Cell<Option<u64>> = const { Cell::new(None) };
    }

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kembench-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn targets() {
        let d = dir("targets");
        assert_eq!(target(Path::new("-")).unwrap(), Target::Stdout);
        assert!(target(&d).is_err());
        let f = d.join("new.json");
        assert_eq!(target(&f).unwrap(), Target::Regular(real(&f)));
        assert!(target(&d.join("missing/x.json")).is_err());
        let regular = d.join("a.json");
        std::fs::write(&regular, "old").unwrap();
        let link = d.join("link.json");
        std::os::unix::fs::symlink(&regular, &link).unwrap();
        assert_eq!(target(&link).unwrap(), Target::Regular(real(&regular)));
        assert!(matches!(
            target(Path::new("/dev/null")).unwrap(),
            Target::Special(_)
        ));
    }

    #[test]
    fn a_symlink_is_followed_and_stays_a_symlink() {
        let d = dir("symlink");
        let regular = d.join("a.json");
        std::fs::write(&regular, "old").unwrap();
        let link = d.join("link.json");
        std::os::unix::fs::symlink(&regular, &link).unwrap();
        write_output(&link, b"new").unwrap();
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&regular).unwrap(), b"new");
        assert_eq!(
            std::fs::read_dir(&d).unwrap().count(),
            2,
            "no stray temporary file"
        );
    }

    #[test]
    fn outputs_over_protected_files_are_refused_by_real_path() {
        let d = dir("protect");
        let store = d.join("s.sqlite");
        std::fs::write(&store, "db").unwrap();
        let p = [Protected::new("the results store", &store)];
        let relative = d.join("sub/../s.sqlite");
        std::fs::create_dir_all(d.join("sub")).unwrap();
        assert!(refuse_overwrite(&relative, &p).is_err());
        let link = d.join("l");
        std::os::unix::fs::symlink(&store, &link).unwrap();
        assert!(refuse_overwrite(&link, &p).is_err());
        assert!(refuse_overwrite(&d.join("other.json"), &p).is_ok());
        assert!(refuse_overwrite(Path::new("-"), &p).is_ok());
    }

    #[test]
    fn a_full_disk_leaves_the_old_file_as_it_was_and_says_why() {
        let d = dir("full");
        let target = d.join("out.json");
        std::fs::write(&target, b"the old contents").unwrap();
        DISK_LEFT.set(Some(4));
        let e = write_atomic(&target, b"the new contents").unwrap_err();
        DISK_LEFT.set(None);
        let e = format!("{e:#}");
        assert!(
            e.contains(&target.display().to_string()) && e.contains("No space left on device"),
            "{e}"
        );
        assert_eq!(std::fs::read(&target).unwrap(), b"the old contents");
        assert_eq!(
            std::fs::read_dir(&d).unwrap().count(),
            1,
            "no temporary file"
        );
    }

    #[test]
    fn an_sqlite_database_is_never_an_output() {
        let d = dir("sqlite");
        let other = d.join("other.sqlite");
        let mut db = b"SQLite format 3\0".to_vec();
        db.extend([0u8; 84]);
        std::fs::write(&other, &db).unwrap();
        let e = refuse_overwrite(&other, &[]).unwrap_err();
        assert!(e.0.contains("over an SQLite database"), "{}", e.0);
        std::fs::write(d.join("r.json"), b"{}").unwrap();
        assert!(refuse_overwrite(&d.join("r.json"), &[]).is_ok());
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let d = dir("fail");
        let target = d.join("out.json");
        std::fs::create_dir_all(&target).unwrap(); // rename over a directory fails
        assert!(write_atomic(&target, b"x").is_err());
        assert!(!d.join("out.json.tmp").exists());
    }
}
