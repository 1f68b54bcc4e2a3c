//! What `--store` (or `KEMBENCH_STORE`) names: an SQLite file or a PostgreSQL URL, parsed
//! once, strictly. An empty setting and an unknown URL scheme are errors, never a temporary
//! database or a directory named after a URL, and no message ever shows a password.

use crate::usage::Usage;
use std::path::PathBuf;

/// A store setting, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    /// An SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL URL, its scheme in lower case (`postgres://` or `postgresql://`).
    Postgres(String),
}

/// The URL schemes PostgreSQL accepts (in any case).
pub const POSTGRES_SCHEMES: [&str; 2] = ["postgres", "postgresql"];

/// The scheme of `s` when it looks like a URL (`word://`), and where that scheme starts.
fn scheme_at(s: &str) -> Option<(usize, &str)> {
    let end = s.find("://")?;
    // After the last character that cannot be in a scheme (which may be several bytes long).
    let start = s[..end]
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let scheme = &s[start..end];
    (!scheme.is_empty() && scheme.starts_with(|c: char| c.is_ascii_alphabetic()))
        .then_some((start, scheme))
}

/// `s` with the password of any URL in it (`scheme://user:password@host`, or a
/// `password=` parameter) replaced by `***`, whatever the scheme.
pub fn redact(s: &str) -> String {
    match scheme_at(s) {
        Some((start, _)) => format!("{}{}", &s[..start], super::pg::redact(&s[start..])),
        None => s.to_string(),
    }
}

impl Spec {
    /// Parses a store setting.
    pub fn parse(spec: &str) -> Result<Spec, Usage> {
        if spec.trim().is_empty() {
            return Err(Usage(format!(
                "the store setting is empty (--store \"\" or KEMBENCH_STORE=); give an SQLite file \
                 path or a postgres:// URL, or leave it unset for the default store {}",
                super::default_path().display()
            )));
        }
        if let Some((0, scheme)) = scheme_at(spec) {
            let lower = scheme.to_ascii_lowercase();
            if POSTGRES_SCHEMES.contains(&lower.as_str()) {
                return Ok(Spec::Postgres(format!("{lower}{}", &spec[scheme.len()..])));
            }
            return Err(Usage(format!(
                "the store {} has the URL scheme '{scheme}', which kembench does not know; give \
                 an SQLite file path, or a PostgreSQL URL starting with {}",
                redact(spec),
                POSTGRES_SCHEMES.map(|s| format!("{s}://")).join(" or ")
            )));
        }
        Ok(Spec::Sqlite(PathBuf::from(
            spec.strip_prefix("sqlite:").unwrap_or(spec),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any setting: a spec or a usage error, never a panic; and an error never shows a
        /// password given in `user:password@`.
        #[test]
        fn any_setting_parses_or_is_refused_without_the_password(
            scheme in "[a-zA-Z][a-zA-Z0-9+.-]{0,10}",
            rest in "[^@]{0,30}",
            raw in ".{0,60}",
        ) {
            let _ = Spec::parse(&raw);
            let _ = redact(&raw);
            let url = format!("{scheme}://user:Pw-9xQ7-secret@{rest}");
            if let Err(e) = Spec::parse(&url) {
                prop_assert!(!e.to_string().contains("Pw-9xQ7-secret"), "{}", e);
            }
            prop_assert!(!redact(&url).contains("Pw-9xQ7-secret"));
        }
    }

    /// A character of several bytes just before the scheme (proptest found one that panicked:
    /// the scheme was sliced one byte after its start).
    #[test]
    fn a_wide_character_before_the_scheme_is_no_panic() {
        assert_eq!(scheme_at("ñpostgres://u:pw@h/db"), Some((2, "postgres")));
        assert_eq!(scheme_at("\u{3ca4a}x://"), Some((4, "x")));
        assert!(!redact("ñpostgres://u:secret@h/db").contains("secret"));
    }

    #[test]
    fn paths_and_postgres_urls_in_any_case() {
        assert_eq!(
            Spec::parse("/tmp/s.sqlite").unwrap(),
            Spec::Sqlite("/tmp/s.sqlite".into())
        );
        assert_eq!(
            Spec::parse("sqlite:rel/s.db").unwrap(),
            Spec::Sqlite("rel/s.db".into())
        );
        for (given, wanted) in [
            ("postgres://u:p@h/db", "postgres://u:p@h/db"),
            ("Postgres://u:p@h/db", "postgres://u:p@h/db"),
            ("POSTGRESQL://u:p@h/db", "postgresql://u:p@h/db"),
        ] {
            assert_eq!(Spec::parse(given).unwrap(), Spec::Postgres(wanted.into()));
        }
        assert_eq!(
            Spec::parse("/data/postgres://x").unwrap(),
            Spec::Sqlite("/data/postgres://x".into())
        );
    }

    #[test]
    fn empty_and_unknown_schemes_are_refused_without_the_password() {
        assert!(Spec::parse("").is_err());
        assert!(Spec::parse("  ").is_err());
        for bad in [
            "postgre://kb:s3cret@h/db",
            "mysql://kb:s3cret@h/db",
            "pg://kb:s3cret@h",
        ] {
            let e = Spec::parse(bad).unwrap_err().to_string();
            assert!(!e.contains("s3cret"), "{e}");
            assert!(
                e.contains("postgres://") && e.contains("postgresql://"),
                "{e}"
            );
        }
    }

    #[test]
    fn redact_masks_passwords_of_any_url_inside_an_argument() {
        assert_eq!(
            redact("--store=postgre://kb:s3cret@h/db"),
            "--store=postgre://kb:***@h/db"
        );
        assert_eq!(redact("postgres://kb:p@ss@h/db"), "postgres://kb:***@h/db");
        assert_eq!(redact("plain/path.sqlite"), "plain/path.sqlite");
    }
}
