//! Result files: one file per format, each writing every record kind through one interface.
//!
//! A format lays a record out as a head, one part per result and a tail ([`Layout`]), so
//! that every measuring command (`run`, `throughput`, `profile`, `tls`) writes each finished
//! benchmark once, appending it to the file's in-progress copy ([`file::ResultFile`]), and
//! the whole file once more, over the old one, at the end.
//!
//! Every format lays out any kind of record: JSON serialises the record, CSV writes the
//! kind's columns and rows ([`Kind::CSV_HEADER`], [`Kind::csv_rows`]), Markdown draws the
//! kind's described tables ([`Kind::tables`]); no format names a kind.
//!
//! Adding a format: a file here with a unit struct implementing [`Exporter`] and, for every
//! kind, [`Layout`] (`impl<K: Kind> Layout<K> for Type`), and one line in the `formats!` list
//! below (plus its `mod` line). The command line derives from that list:
//! `run --NAME FILE`, `throughput --NAME FILE` and `export --format NAME`.

mod csv;
mod dashboard;
pub mod file;
mod json;
pub mod markdown;

use crate::record::{AnyRecord, Kind, Record, Visit};

/// How one format lays out records of kind `K`: the file is the head, every result's part in
/// order, and the tail.
pub trait Layout<K: Kind> {
    /// What comes before the results.
    fn head(&self, r: &Record<K>) -> anyhow::Result<Vec<u8>>;
    /// Result number `index` (from 0) of `r`.
    fn item(&self, r: &Record<K>, index: usize, item: &K::Result) -> anyhow::Result<Vec<u8>>;
    /// What comes after `count` results (the tail may summarise the results so far).
    fn tail(&self, r: &Record<K>, count: usize) -> anyhow::Result<Vec<u8>>;
    /// The whole file.
    fn whole(&self, r: &Record<K>) -> anyhow::Result<Vec<u8>> {
        let mut out = self.head(r)?;
        for (i, item) in r.results.iter().enumerate() {
            out.extend(self.item(r, i, item)?);
        }
        out.extend(self.tail(r, r.results.len())?);
        Ok(out)
    }
}

/// A file format: its name and help; its [`Layout`] of every kind is what [`Format`] hands out.
pub trait Exporter: Sync {
    /// The format's name: the flag `--NAME FILE` and `export --format NAME`.
    fn name(&self) -> &'static str;
    /// One line for `--help`.
    fn about(&self) -> &'static str;
}

/// Generates [`Format`]'s dispatch from the list of formats: `Variant => module::Type`.
macro_rules! formats {
    ($( $variant:ident => $module:ident :: $ty:ident, )*) => {
        /// Which format.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum Id {
            $( $variant, )*
        }

        /// Every format, in the order `--help` lists them.
        pub static FORMATS: &[Format] = &[$( Format(Id::$variant), )*];

        impl Format {
            /// Its name and help.
            fn exporter(self) -> &'static dyn Exporter {
                match self.0 {
                    $( Id::$variant => &$module::$ty, )*
                }
            }

            /// Its layout of records of kind `K`.
            pub fn layout<K: Kind>(self) -> &'static dyn Layout<K> {
                match self.0 {
                    $( Id::$variant => &$module::$ty, )*
                }
            }
        }
    };
}

formats! {
    Json => json::Json,
    Csv => csv::Csv,
    Markdown => markdown::Markdown,
    GithubActionBenchmark => dashboard::GithubSmaller,
    GithubActionBenchmarkBigger => dashboard::GithubBigger,
    Bmf => dashboard::Bmf,
    LibcruxBenchmark => dashboard::Libcrux,
}

/// One of the [`FORMATS`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Format(Id);

/// Result files to write: each format with its path.
pub type Outputs = Vec<(Format, std::path::PathBuf)>;

impl Format {
    /// JSON: everything, raw samples and environment included.
    pub const JSON: Format = Format(Id::Json);

    /// Its name.
    pub fn name(self) -> &'static str {
        self.exporter().name()
    }

    /// One line for `--help`.
    pub fn about(self) -> &'static str {
        self.exporter().about()
    }

    /// The format called `name`.
    pub fn by_name(name: &str) -> Option<Format> {
        FORMATS.iter().copied().find(|f| f.name() == name)
    }

    /// Every format's name.
    pub fn names() -> Vec<&'static str> {
        FORMATS.iter().map(|f| f.name()).collect()
    }

    /// The whole file for `r`.
    pub fn serialize<K: Kind>(self, r: &Record<K>) -> anyhow::Result<Vec<u8>> {
        self.layout::<K>().whole(r)
    }

    /// The whole file for a record of any kind.
    pub fn serialize_any(self, r: &AnyRecord) -> anyhow::Result<Vec<u8>> {
        r.visit(Serialize(self))
    }
}

/// [`Format::serialize_any`]: the whole file, with the record's kind known.
struct Serialize(Format);

impl Visit<'_> for Serialize {
    type Out = anyhow::Result<Vec<u8>>;
    fn visit<K: Kind>(self, r: &Record<K>) -> Self::Out {
        self.0.serialize(r)
    }
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
pub(crate) mod fixture;

#[cfg(test)]
mod tests {
    use super::*;

    /// `r` put together from its head, items and tail in `f`.
    fn streamed<K: Kind>(f: Format, r: &Record<K>) -> Vec<u8> {
        let l = f.layout::<K>();
        let mut parts = l.head(r).unwrap();
        for (i, item) in r.results.iter().enumerate() {
            parts.extend(l.item(r, i, item).unwrap());
        }
        parts.extend(l.tail(r, r.results.len()).unwrap());
        parts
    }

    /// Head, items and tail put together give exactly the whole file, for every format and
    /// kind: what `run` appends as it goes is what it writes at the end.
    #[test]
    fn streamed_parts_make_the_whole_file() {
        let (run, tp, tls) = (fixture::run(), fixture::throughput(), fixture::tls());
        for f in FORMATS {
            assert_eq!(
                streamed(*f, &run),
                f.serialize(&run).unwrap(),
                "{}",
                f.name()
            );
            assert_eq!(streamed(*f, &tp), f.serialize(&tp).unwrap(), "{}", f.name());
            assert_eq!(
                streamed(*f, &tls),
                f.serialize(&tls).unwrap(),
                "{}",
                f.name()
            );
            let ct = fixture::ct();
            assert_eq!(streamed(*f, &ct), f.serialize(&ct).unwrap(), "{}", f.name());
        }
    }

    #[test]
    fn names_are_unique() {
        let mut n = Format::names();
        n.sort();
        n.dedup();
        assert_eq!(n.len(), FORMATS.len());
    }
}
