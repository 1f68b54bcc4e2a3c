//! The little SQL surface the store needs, so that its logic is written once for SQLite and
//! PostgreSQL: typed parameters, rows of typed values, and a transaction.

use anyhow::bail;

/// A parameter or a column value. Each variant carries its SQL type even when NULL, because
/// PostgreSQL checks a parameter's type against its column.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// BIGINT.
    Int(Option<i64>),
    /// DOUBLE PRECISION.
    Real(Option<f64>),
    /// TEXT.
    Text(Option<String>),
}

impl Val {
    /// A non-NULL text value.
    pub fn text(s: impl Into<String>) -> Val {
        Val::Text(Some(s.into()))
    }

    /// The text, or an error naming `what`.
    pub fn as_text(&self, what: &str) -> anyhow::Result<String> {
        match self {
            Val::Text(Some(s)) => Ok(s.clone()),
            other => bail!("store column {what}: expected text, found {other:?}"),
        }
    }

    /// Text or NULL.
    pub fn as_opt_text(&self) -> Option<String> {
        match self {
            Val::Text(s) => s.clone(),
            _ => None,
        }
    }

    /// The integer, or an error naming `what`.
    pub fn as_int(&self, what: &str) -> anyhow::Result<i64> {
        match self {
            Val::Int(Some(i)) => Ok(*i),
            other => bail!("store column {what}: expected an integer, found {other:?}"),
        }
    }
}

/// Statements against one connection (or one open transaction). SQL uses `$1, $2, ...`
/// placeholders; the SQLite side rewrites them.
pub trait Db {
    /// Runs a statement; returns the rows changed.
    fn exec(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<u64>;
    /// Runs a query; returns every row.
    fn query(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<Vec<Vec<Val>>>;
}

/// A connection that can run a closure in a transaction.
pub trait Backend {
    /// Runs `f` in a write transaction, committing when it succeeds and rolling back when it
    /// fails. With `exclusive`, concurrent writers wait for it (schema migrations).
    fn transaction(
        &mut self,
        exclusive: bool,
        f: &mut dyn FnMut(&mut dyn Db) -> anyhow::Result<()>,
    ) -> anyhow::Result<()>;
    /// Runs a read-only query outside any explicit transaction.
    fn read(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<Vec<Vec<Val>>>;
    /// Where the store is, for messages; never holds a password.
    fn location(&self) -> String;
    /// Called once the schema is current: settings that change the store (SQLite's WAL).
    fn ready_for_writes(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
    /// Whether the schema's tables exist (`kembench_schema`).
    fn has_schema_table(&mut self) -> anyhow::Result<bool>;
    /// Whether the store can only be read (a read-only file or directory).
    fn read_only(&self) -> bool {
        false
    }
}
