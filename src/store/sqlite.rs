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
    /// kembench store, is refused and left untouched.
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
        let s = Sqlite {
            conn,
            path: path.to_path_buf(),
        };
        // Read before writing anything: a damaged or foreign file must stay as it is.
        let tables: Vec<String> = match query(&s.conn, "SELECT name FROM sqlite_master", &[]) {
            Ok(rows) => rows
                .iter()
                .filter_map(|r| r.first().and_then(Val::as_opt_text))
                .collect(),
            Err(e) => bail!(
                "store {} is not a readable SQLite database ({e}); it was left untouched. \
                 Move it away or give another path with --store",
                path.display()
            ),
        };
        if exists && !tables.is_empty() && !tables.iter().any(|t| t == "kembench_schema") {
            bail!(
                "{} is an SQLite database but not a kembench store (no kembench_schema table); \
                 it was left untouched. Give another path with --store",
                path.display()
            );
        }
        s.conn.pragma_update(None, "foreign_keys", "ON")?;
        Ok(s)
    }
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
