//! Result files: one file per format, each writing every record kind through one interface.
//!
//! A format lays a record out as a head, one part per result and a tail ([`Layout`]), so
//! that every measuring command (`run`, `throughput`, `profile`, `tls`) writes each finished
//! benchmark once, appending it to the file ([`file::ResultFile`]), and the whole file once
//! more at the end.
//!
//! Adding a format: a file here with a unit struct implementing [`Layout`] for each record
//! kind and `exporter!(Type, "name", "about")`, and one entry in [`FORMATS`] (plus its `mod`
//! line). The command line derives from that list:
//! `run --NAME FILE`, `throughput --NAME FILE` and `export --format NAME`.

/// Implements [`Exporter`] for a format type that implements [`Layout`] for every kind:
/// `exporter!(Type, "name", "what --name FILE writes");`.
macro_rules! exporter {
    ($ty:ty, $name:literal, $about:literal) => {
        impl $crate::export::Exporter for $ty {
            fn name(&self) -> &'static str {
                $name
            }

            fn about(&self) -> &'static str {
                $about
            }

            fn run(&self) -> &dyn $crate::export::Layout<$crate::record::run::Run> {
                self
            }

            fn throughput(
                &self,
            ) -> &dyn $crate::export::Layout<$crate::record::throughput::Throughput> {
                self
            }

            fn profile(&self) -> &dyn $crate::export::Layout<$crate::record::profile::Profile> {
                self
            }

            fn tls(&self) -> &dyn $crate::export::Layout<$crate::record::tls::Tls> {
                self
            }
        }
    };
}

mod csv;
pub mod file;
mod json;
pub mod markdown;

use crate::record::profile::Profile;
use crate::record::run::Run;
use crate::record::throughput::Throughput;
use crate::record::tls::Tls;
use crate::record::{AnyRecord, Kind, Record};

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

/// A file format for every record kind.
pub trait Exporter: Sync {
    /// The format's name: the flag `--NAME FILE` and `export --format NAME`.
    fn name(&self) -> &'static str;
    /// One line for `--help`.
    fn about(&self) -> &'static str;
    /// The layout of latency runs.
    fn run(&self) -> &dyn Layout<Run>;
    /// The layout of throughput runs.
    fn throughput(&self) -> &dyn Layout<Throughput>;
    /// The layout of profiles.
    fn profile(&self) -> &dyn Layout<Profile>;
    /// The layout of tls runs.
    fn tls(&self) -> &dyn Layout<Tls>;
}

/// A record kind that every format can write.
pub trait Exportable: Kind {
    /// `format`'s layout for this kind.
    fn layout(format: Format) -> &'static dyn Layout<Self>;
}

impl Exportable for Run {
    fn layout(format: Format) -> &'static dyn Layout<Run> {
        format.0.run()
    }
}

impl Exportable for Throughput {
    fn layout(format: Format) -> &'static dyn Layout<Throughput> {
        format.0.throughput()
    }
}

impl Exportable for Profile {
    fn layout(format: Format) -> &'static dyn Layout<Profile> {
        format.0.profile()
    }
}

impl Exportable for Tls {
    fn layout(format: Format) -> &'static dyn Layout<Tls> {
        format.0.tls()
    }
}

/// One of the [`FORMATS`].
#[derive(Clone, Copy)]
pub struct Format(&'static dyn Exporter);

/// Every format, in the order `--help` lists them.
pub static FORMATS: &[Format] = &[
    Format(&json::Json),
    Format(&csv::Csv),
    Format(&markdown::Markdown),
];

impl Format {
    /// JSON: everything, raw samples and environment included.
    pub const JSON: Format = Format(&json::Json);

    /// Its name.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// One line for `--help`.
    pub fn about(self) -> &'static str {
        self.0.about()
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
    pub fn serialize<K: Exportable>(self, r: &Record<K>) -> anyhow::Result<Vec<u8>> {
        K::layout(self).whole(r)
    }

    /// The whole file for a record of any kind.
    pub fn serialize_any(self, r: &AnyRecord) -> anyhow::Result<Vec<u8>> {
        match r {
            AnyRecord::Run(r) => self.serialize(r.as_ref()),
            AnyRecord::Throughput(t) => self.serialize(t.as_ref()),
            AnyRecord::Profile(p) => self.serialize(p.as_ref()),
            AnyRecord::Tls(t) => self.serialize(t.as_ref()),
        }
    }
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Format {}

#[cfg(test)]
pub(crate) mod fixture;

#[cfg(test)]
mod tests {
    use super::*;

    /// `r` put together from its head, items and tail in `f`.
    fn streamed<K: Exportable>(f: Format, r: &Record<K>) -> Vec<u8> {
        let l = K::layout(f);
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
