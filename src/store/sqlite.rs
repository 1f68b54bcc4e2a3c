//! The SQLite backend: one local file, created on first use, never overwritten.

use super::db::{Backend, Db, Val};
use anyhow::{bail, Context};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a statement waits for another connection's lock before the store gives up.
const BUSY: Duration = Duration::from_secs(60);

/// An open SQLite store.
pub struct Sqlite {
    conn: Connection,
    path: PathBuf,
}

fn to_sql(p: &Val) -> rusqlite::types::Value {
    use rusqlite::types::Value;
    match p {
        Val::Int(Some(i)) => Value::Integer(*i),
        Val::Real(Some(f)) => Value::Real(*f),
        Val::Text(Some(s)) => Value::Text(s.clone()),
        _ => Value::Null,
    }
}

fn from_sql(v: ValueRef<'_>) -> Val {
    match v {
        ValueRef::Null => Val::Text(None),
        ValueRef::Integer(i) => Val::Int(Some(i)),
        ValueRef::Real(f) => Val::Real(Some(f)),
        ValueRef::Text(t) | ValueRef::Blob(t) => Val::text(String::from_utf8_lossy(t)),
    }
}

/// `$1` placeholders to SQLite's `?1`.
fn rewrite(sql: &str) -> String {
    sql.replace('$', "?")
}

fn exec(conn: &Connection, sql: &str, params: &[Val]) -> anyhow::Result<u64> {
    let values: Vec<_> = params.iter().map(to_sql).collect();
    let n = conn.execute(&rewrite(sql), rusqlite::params_from_iter(values))?;
    Ok(n as u64)
}

fn query(conn: &Connection, sql: &str, params: &[Val]) -> anyhow::Result<Vec<Vec<Val>>> {
    let values: Vec<_> = params.iter().map(to_sql).collect();
    let mut stmt = conn.prepare(&rewrite(sql))?;
    let cols = stmt.column_count();
    let mut rows = stmt.query(rusqlite::params_from_iter(values))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(
            (0..cols)
                .map(|i| row.get_ref(i).map(from_sql))
                .collect::<Result<_, _>>()?,
        );
    }
    Ok(out)
}

struct Tx<'a>(&'a Connection);

impl Db for Tx<'_> {
    fn exec(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<u64> {
        exec(self.0, sql, params)
    }
    fn query(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<Vec<Vec<Val>>> {
        query(self.0, sql, params)
    }
}

impl Sqlite {
    /// Opens the store at `path`, creating the file (and its directory) when it does not
    /// exist. A file that is not an SQLite database, or an SQLite database that is not a
    /// kembench store, is refused and left untouched. A store SQLite cannot write (a
    /// write-protected file or directory) is opened for reading only.
    pub fn open(path: &Path) -> anyhow::Result<Sqlite> {
        let exists = path.exists();
        if !exists {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                if !dir.is_dir() {
                    std::fs::create_dir_all(dir).with_context(|| {
                        format!("creating the store's directory {}", dir.display())
                    })?;
                }
            }
            eprintln!("Creating a new results store at {}", path.display());
        } else if path.is_dir() {
            bail!(
                "store {} is a directory; give a file path to --store",
                path.display()
            );
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| {
            if exists {
                format!("opening the store {}", path.display())
            } else {
                format!(
                    "creating the store {} (is its directory read-only?)",
                    path.display()
                )
            }
        })?;
        conn.busy_timeout(BUSY)?;
        // Read before writing anything: a damaged or foreign file must stay as it is.
        let (conn, tables) = match tables(&conn) {
            Ok(tables) => (conn, tables),
            // A store SQLite cannot open for writing (a WAL store in a write-protected
            // directory cannot have its -shm file created) is read as it is.
            Err(e) if exists && cannot_write(&e) => {
                drop(conn);
                read_only(path).map_err(|why| {
                    anyhow::anyhow!(
                        "the store {} cannot be opened ({e}), not even for reading: {why}",
                        path.display()
                    )
                })?
            }
            Err(e) => return Err(unreadable(path, &e)),
        };
        if exists && !tables.is_empty() && !tables.iter().any(|t| t == "kembench_schema") {
            bail!(
                "{} is an SQLite database but not a kembench store (no kembench_schema table); \
                 it was left untouched. Give another path with --store",
                path.display()
            );
        }
        conn.pragma_update(None, "foreign_keys", "ON")?;
        Ok(Sqlite {
            conn,
            path: path.to_path_buf(),
        })
    }
}

/// The names in the database's schema: the first read, which fails on a file that is not an
/// SQLite database, or that SQLite cannot open as asked.
fn tables(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT name FROM sqlite_master")?;
    let names = stmt.query_map([], |r| r.get::<_, String>(0))?;
    names.collect()
}

/// SQLite's result code of `e`, when it is one of SQLite's errors.
fn code(e: &rusqlite::Error) -> Option<rusqlite::ErrorCode> {
    match e {
        rusqlite::Error::SqliteFailure(f, _) => Some(f.code),
        _ => None,
    }
}

/// Whether `e` says the file could not be opened as asked (for writing, or with its journal
/// files), rather than that it is not a database.
fn cannot_write(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode::{CannotOpen, ReadOnly};
    matches!(code(e), Some(CannotOpen | ReadOnly))
}

/// The error for a store whose first read failed with `e`: a file that is not a database is
/// left for the user to move away; a full or failing file system, or anything else, is said
/// as it is.
fn unreadable(path: &Path, e: &rusqlite::Error) -> anyhow::Error {
    use rusqlite::ErrorCode::{DatabaseCorrupt, DiskFull, NotADatabase, SystemIoFailure};
    let path = path.display();
    match code(e) {
        Some(NotADatabase | DatabaseCorrupt) => anyhow::anyhow!(
            "store {path} is not a readable SQLite database ({e}); it was left untouched. \
             Move it away or give another path with --store"
        ),
        Some(DiskFull | SystemIoFailure) => anyhow::anyhow!(
            "the store {path} cannot be opened: {e} (is its file system full? SQLite needs room \
             beside the store for its -wal and -shm files); it was left untouched. Free space \
             there or give another path with --store"
        ),
        _ => anyhow::anyhow!("the store {path} cannot be opened ({e}); it was left untouched"),
    }
}

/// Opens the store at `path` for reading only, as SQLite allows in a write-protected
/// directory: first as usual (a WAL store whose -shm file exists), then, when its
/// write-ahead log is empty or gone (so that the file alone holds every row), as an
/// immutable file, which SQLite reads without any -shm file or lock.
fn read_only(path: &Path) -> Result<(Connection, Vec<String>), String> {
    let open = |name: &Path, flags: OpenFlags| -> rusqlite::Result<(Connection, Vec<String>)> {
        let conn = Connection::open_with_flags(name, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
        conn.busy_timeout(BUSY)?;
        let tables = tables(&conn)?;
        Ok((conn, tables))
    };
    let first = match open(path, OpenFlags::SQLITE_OPEN_READ_ONLY) {
        Ok(opened) => return Ok(opened),
        Err(e) => e,
    };
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let wal = PathBuf::from(wal);
    if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
        return Err(format!(
            "{first}; its write-ahead log {} holds rows that SQLite reads only with a -shm file \
             beside it, which cannot be created there. Make the directory writable for one \
             `kembench runs`, or copy the store's three files elsewhere",
            wal.display()
        ));
    }
    open(
        Path::new(&immutable_uri(path)),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(|e| format!("{first}; opened as an immutable file: {e}"))
}

/// The SQLite URI that opens `path` as an immutable file (no locks, no journal files): every
/// byte but unreserved ones and `/` percent-encoded, so that `?`, `#` or `%` in a file name
/// stay part of it.
fn immutable_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    uri
}

impl Backend for Sqlite {
    fn transaction(
        &mut self,
        _exclusive: bool,
        f: &mut dyn FnMut(&mut dyn Db) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        // IMMEDIATE takes the write lock at once, so every write transaction (migrations
        // included) is serialised against other processes instead of failing part-way.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        f(&mut Tx(&tx))?;
        tx.commit()?;
        Ok(())
    }

    fn read(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<Vec<Vec<Val>>> {
        query(&self.conn, sql, params)
    }

    fn location(&self) -> String {
        self.path.display().to_string()
    }

    fn ready_for_writes(&mut self) -> anyhow::Result<()> {
        // Several kembench processes may write at once; WAL lets readers and one writer share
        // the file. Set only once the schema is known to be ours and current. The switch needs
        // the file to itself, and SQLite answers "locked" at once there instead of waiting
        // (waiting while holding a read lock could deadlock): when other processes open the
        // same new store at the same moment, the switch is tried again until it is made, by
        // this connection or another.
        let deadline = Instant::now() + BUSY;
        loop {
            match self.conn.pragma_update(None, "journal_mode", "WAL") {
                Ok(()) => return Ok(()),
                Err(e) if is_busy(&e) && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Err(e) => return Err(e).context("switching the store to WAL mode"),
            }
        }
    }

    fn read_only(&self) -> bool {
        // SQLite opens a write-protected file for reading only, and says so here.
        self.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false)
    }

    fn has_schema_table(&mut self) -> anyhow::Result<bool> {
        let rows = query(
            &self.conn,
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kembench_schema'",
            &[],
        )?;
        Ok(!rows.is_empty())
    }
}

/// Whether `e` is SQLite's "database is locked" (another connection holds the lock).
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::DatabaseBusy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_immutable_uri_keeps_every_byte_of_the_path() {
        assert_eq!(
            immutable_uri(Path::new("/data/a b?#%é.sqlite")),
            "file:/data/a%20b%3F%23%25%C3%A9.sqlite?immutable=1"
        );
        assert_eq!(
            immutable_uri(Path::new("rel/s.sqlite")),
            "file:rel/s.sqlite?immutable=1"
        );
    }
}
