//! The PostgreSQL backend, for fleets: many machines write into one database at once.
//!
//! Connection details come from the URL (`postgres://user:password@host:port/db?options=...`)
//! and, for whatever the URL leaves out, the usual libpq variables `PGHOST`, `PGPORT`,
//! `PGUSER`, `PGPASSWORD` and `PGDATABASE`. The connection is not encrypted (no TLS); use it
//! on a trusted network or a Unix socket. Passwords never appear in messages.

use super::db::{Backend, Db, Val};
use anyhow::{bail, Context};
use postgres::types::{ToSql, Type};
use postgres::{Client, Config, NoTls};
use std::time::Duration;

/// Key of the advisory lock that serialises schema migrations across writers.
const MIGRATION_LOCK: i64 = 0x6b65_6d62_656e_6368;

/// An open PostgreSQL store.
pub struct Pg {
    client: Client,
    location: String,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Why a URL whose authority holds more than one `@` is refused: a password with an
/// unencoded `@` would be split into a password and part of the host name, and that part
/// shown in messages.
fn several_ats(url: &str) -> Option<String> {
    let authority = url.split_once("://").map_or(url, |(_, rest)| {
        rest.split(['/', '?']).next().unwrap_or(rest)
    });
    (authority.matches('@').count() > 1).then(|| {
        format!(
            "the store URL {} has more than one '@' before the host: an '@' inside the \
             user name or password must be percent-encoded as %40",
            redact(url)
        )
    })
}

/// The connection settings: the URL first, then the PG environment variables, then libpq's
/// defaults (local socket or localhost, the login name as user and database).
pub fn config(url: &str) -> anyhow::Result<Config> {
    let mut c: Config = url
        .parse()
        .map_err(|e| anyhow::anyhow!("cannot parse the PostgreSQL URL {} ({e})", redact(url)))?;
    if c.get_hosts().is_empty() {
        match env("PGHOST") {
            Some(h) => {
                for h in h.split(',') {
                    c.host(h);
                }
            }
            None if std::path::Path::new("/var/run/postgresql").is_dir() => {
                c.host_path("/var/run/postgresql");
            }
            None => {
                c.host("localhost");
            }
        }
    }
    if c.get_ports().is_empty() {
        if let Some(p) = env("PGPORT") {
            c.port(
                p.parse()
                    .with_context(|| format!("PGPORT={p} is not a port"))?,
            );
        }
    }
    let login = env("USER").unwrap_or_else(|| "postgres".into());
    if c.get_user().is_none() {
        c.user(&env("PGUSER").unwrap_or_else(|| login.clone()));
    }
    if c.get_password().is_none() {
        if let Some(p) = env("PGPASSWORD") {
            c.password(p);
        }
    }
    if c.get_dbname().is_none() {
        let user = c.get_user().unwrap_or(&login).to_string();
        c.dbname(&env("PGDATABASE").unwrap_or(user));
    }
    if c.get_application_name().is_none() {
        c.application_name("kembench");
    }
    if c.get_connect_timeout().is_none() {
        c.connect_timeout(Duration::from_secs(10));
    }
    Ok(c)
}

/// The URL with any password replaced by `***`.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            None => authority.to_string(),
        },
        None => authority.to_string(),
    };
    // `password=` may also come as a query parameter.
    let tail = tail
        .split('&')
        .map(|kv| {
            let (k, _) = kv.split_once('=').unwrap_or((kv, ""));
            if k.trim_start_matches('?') == "password" {
                format!("{k}=***")
            } else {
                kv.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("&");
    format!("{scheme}://{authority}{tail}")
}

fn describe(c: &Config) -> String {
    use postgres::config::Host;
    let host = match c.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) => p.display().to_string(),
        None => "?".into(),
    };
    let port = c.get_ports().first().copied().unwrap_or(5432);
    format!(
        "postgres://{}@{host}:{port}/{}",
        c.get_user().unwrap_or("?"),
        c.get_dbname().unwrap_or("?")
    )
}

fn params(p: &[Val]) -> Vec<Box<dyn ToSql + Sync>> {
    p.iter()
        .map(|v| -> Box<dyn ToSql + Sync> {
            match v {
                Val::Int(i) => Box::new(*i),
                Val::Real(f) => Box::new(*f),
                Val::Text(s) => Box::new(s.clone()),
            }
        })
        .collect()
}

fn rows(rows: Vec<postgres::Row>) -> anyhow::Result<Vec<Vec<Val>>> {
    rows.iter()
        .map(|r| {
            (0..r.len())
                .map(|i| {
                    let t = r.columns()[i].type_();
                    Ok(if *t == Type::INT8 {
                        Val::Int(r.try_get(i)?)
                    } else if *t == Type::INT4 {
                        Val::Int(r.try_get::<_, Option<i32>>(i)?.map(i64::from))
                    } else if *t == Type::FLOAT8 {
                        Val::Real(r.try_get(i)?)
                    } else if *t == Type::TEXT || *t == Type::VARCHAR || *t == Type::NAME {
                        Val::Text(r.try_get(i)?)
                    } else {
                        bail!("store: unexpected column type {t} from PostgreSQL")
                    })
                })
                .collect()
        })
        .collect()
}

fn run_query<C: postgres::GenericClient>(
    c: &mut C,
    sql: &str,
    p: &[Val],
) -> anyhow::Result<Vec<Vec<Val>>> {
    let boxed = params(p);
    let refs: Vec<&(dyn ToSql + Sync)> = boxed.iter().map(|b| b.as_ref()).collect();
    rows(c.query(sql, &refs)?)
}

fn run_exec<C: postgres::GenericClient>(c: &mut C, sql: &str, p: &[Val]) -> anyhow::Result<u64> {
    let boxed = params(p);
    let refs: Vec<&(dyn ToSql + Sync)> = boxed.iter().map(|b| b.as_ref()).collect();
    Ok(c.execute(sql, &refs)?)
}

struct Tx<'a, 'b>(&'a mut postgres::Transaction<'b>);

impl Db for Tx<'_, '_> {
    fn exec(&mut self, sql: &str, p: &[Val]) -> anyhow::Result<u64> {
        run_exec(self.0, sql, p)
    }
    fn query(&mut self, sql: &str, p: &[Val]) -> anyhow::Result<Vec<Vec<Val>>> {
        run_query(self.0, sql, p)
    }
}

impl Pg {
    /// Connects to the server `url` names.
    pub fn open(url: &str) -> anyhow::Result<Pg> {
        if let Some(why) = several_ats(url) {
            return Err(crate::usage::Usage(why).into());
        }
        let cfg = config(url)?;
        let location = describe(&cfg);
        // The driver's error and its causes (refused, unknown host, authentication failed for
        // a user, no such database) follow as the error's chain; none holds the password.
        let client = cfg.connect(NoTls).map_err(|e| {
            anyhow::Error::new(e)
                .context(format!("cannot connect to the PostgreSQL store {location}"))
        })?;
        let mut pg = Pg { client, location };
        pg.check_schema()?;
        Ok(pg)
    }

    /// Refuses a connection whose `search_path` names no schema that exists: PostgreSQL
    /// would find no kembench tables there and create none ("no schema has been selected to
    /// create in"), so the store would seem empty to a reader and fail a run.
    fn check_schema(&mut self) -> anyhow::Result<()> {
        let row = self.client.query_one(
            "SELECT current_schema()::text, current_setting('search_path'), current_database()::text",
            &[],
        )?;
        if row.get::<_, Option<String>>(0).is_some() {
            return Ok(());
        }
        let path: String = row.get(1);
        let db: String = row.get(2);
        let names = search_path_names(&path);
        let missing = match names.as_slice() {
            [one] => format!("the schema {one} does not exist in database {db}"),
            _ => format!(
                "none of the schemas of its search_path ({}) exists in database {db}",
                names.join(", ")
            ),
        };
        let create = names
            .iter()
            .find(|n| *n != "$user")
            .map_or("NAME", String::as_str)
            .to_string();
        let it = if names.len() == 1 { "it" } else { "one" };
        bail!(
            "the PostgreSQL store {}: {missing}, so kembench has nowhere to read or record \
             runs. Create {it} (`CREATE SCHEMA {create};` as a user allowed to) or name an \
             existing schema in the URL (?options=-c%20search_path%3DNAME)",
            self.location
        )
    }
}

/// The schema names of a `search_path` setting (`a, "b c"`), unquoted.
fn search_path_names(path: &str) -> Vec<String> {
    path.split(',')
        .map(|n| n.trim().trim_matches('"').to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

impl Backend for Pg {
    fn transaction(
        &mut self,
        exclusive: bool,
        f: &mut dyn FnMut(&mut dyn Db) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut tx = self.client.transaction()?;
        if exclusive {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        }
        f(&mut Tx(&mut tx))?;
        tx.commit()?;
        Ok(())
    }

    fn read(&mut self, sql: &str, p: &[Val]) -> anyhow::Result<Vec<Vec<Val>>> {
        run_query(&mut self.client, sql, p)
    }

    fn location(&self) -> String {
        self.location.clone()
    }

    fn has_schema_table(&mut self) -> anyhow::Result<bool> {
        let r = self.client.query(
            "SELECT 1 FROM information_schema.tables \
             WHERE table_schema = current_schema() AND table_name = 'kembench_schema'",
            &[],
        )?;
        Ok(!r.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted_from_urls() {
        assert_eq!(
            redact("postgres://alice:s3cret@db.example:5432/bench"),
            "postgres://alice:***@db.example:5432/bench"
        );
        assert_eq!(
            redact("postgresql://db/bench?user=bob&password=hunter2&sslmode=disable"),
            "postgresql://db/bench?user=bob&password=***&sslmode=disable"
        );
        assert_eq!(redact("postgres://bob@db/x"), "postgres://bob@db/x");
    }

    #[test]
    fn search_path_names_are_listed_unquoted() {
        assert_eq!(search_path_names("nosuch"), ["nosuch"]);
        assert_eq!(
            search_path_names("\"$user\", public, \"Odd One\""),
            ["$user", "public", "Odd One"]
        );
        assert!(search_path_names("").is_empty());
    }

    #[test]
    fn url_settings_win_over_the_environment_and_defaults_fill_the_rest() {
        let c = config("postgres://alice:pw@db.example:6543/bench").unwrap();
        assert_eq!(c.get_user(), Some("alice"));
        assert_eq!(c.get_dbname(), Some("bench"));
        assert_eq!(c.get_ports(), &[6543]);
        assert_eq!(c.get_password(), Some(&b"pw"[..]));
        assert!(!describe(&c).contains("pw"));
    }
}
