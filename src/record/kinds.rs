//! The one list of record kinds. [`kinds!`] turns it into [`RecordKind`] (every spelling a kind
//! has, read from the kind's [`Facts`](super::Facts)), [`AnyRecord`] (a record of any kind) and
//! their dispatch: parsing a file of a known kind, handing a record to code that is generic over
//! [`Kind`] ([`Visit`], [`VisitOwned`], [`VisitMut`]), and taking a record back out as its own
//! kind ([`AnyRecord::get`]). Nothing outside this file matches on every kind.
//!
//! The list itself is in `record/mod.rs`, where each line also declares the kind's module.
//! Adding a kind: its folder beside this file (a marker type with `impl Kind`, its facts, its
//! result type, its tables and CSV rows) and one line in that list.

use super::{AnyRecord, Kind, Record, RecordKind};
use crate::env::Environment;
use std::any::Any;
use std::marker::PhantomData;

/// Code that is generic over the kind of a record, run on a record of any kind by
/// [`AnyRecord::visit`] (Rust has no generic closures: this trait is one). `'a` is how long the
/// record is borrowed, so that what it gives back may borrow from it.
pub trait Visit<'a> {
    /// What it gives back.
    type Out;
    /// Runs on a record of kind `K`.
    fn visit<K: Kind>(self, r: &'a Record<K>) -> Self::Out;
}

/// Like [`Visit`], on a record it may change ([`AnyRecord::visit_mut`]).
pub trait VisitMut {
    /// What it gives back.
    type Out;
    /// Runs on a record of kind `K`.
    fn visit<K: Kind>(self, r: &mut Record<K>) -> Self::Out;
}

/// Like [`Visit`], on a record it takes ([`AnyRecord::into_visit`]).
pub trait VisitOwned {
    /// What it gives back.
    type Out;
    /// Runs on a record of kind `K`.
    fn visit<K: Kind>(self, r: Record<K>) -> Self::Out;
}

/// Code that is generic over a kind, run for a kind known only at run time by
/// [`RecordKind::visit`].
pub trait VisitKind {
    /// What it gives back.
    type Out;
    /// Runs for kind `K`.
    fn visit<K: Kind>(self) -> Self::Out;
}

/// Generates [`RecordKind`] and [`AnyRecord`] from the list of kinds:
/// `Variant => module::Marker` per kind, with its doc comment.
macro_rules! kinds {
    ($( $(#[$doc:meta])* $variant:ident => $module:ident :: $marker:ident, )*) => {
        $( pub mod $module; )*

        /// The kinds of record (the list is in `src/record/mod.rs`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum RecordKind {
            $( $(#[$doc])* $variant, )*
        }

        impl RecordKind {
            /// Every kind, in the list's order.
            pub const ALL: &'static [RecordKind] = &[$( RecordKind::$variant, )*];

            /// What the kind states about itself.
            pub fn facts(self) -> &'static $crate::record::Facts {
                match self {
                    $( RecordKind::$variant => &<$module::$marker as $crate::record::Kind>::FACTS, )*
                }
            }

            /// Runs `v` for this kind.
            pub fn visit<V: VisitKind>(self, v: V) -> V::Out {
                match self {
                    $( RecordKind::$variant => v.visit::<$module::$marker>(), )*
                }
            }

            /// The kind of the records of kind `K`.
            pub fn of<K: $crate::record::Kind>() -> RecordKind {
                let id = std::any::TypeId::of::<K>();
                $( if id == std::any::TypeId::of::<$module::$marker>() {
                    return RecordKind::$variant;
                } )*
                unreachable!("every Kind is in the list of kinds")
            }
        }

        /// A record of any kind, as read from a file or the store.
        #[derive(Debug, Clone)]
        pub enum AnyRecord {
            $( $(#[$doc])* $variant(Box<Record<$module::$marker>>), )*
        }

        impl AnyRecord {
            /// Its kind.
            pub fn kind(&self) -> RecordKind {
                match self {
                    $( AnyRecord::$variant(_) => RecordKind::$variant, )*
                }
            }

            /// Runs `v` on the record, with its kind known.
            pub fn visit<'a, V: Visit<'a>>(&'a self, v: V) -> V::Out {
                match self {
                    $( AnyRecord::$variant(r) => v.visit(r.as_ref()), )*
                }
            }

            /// Runs `v` on the record, which it may change.
            pub fn visit_mut<V: VisitMut>(&mut self, v: V) -> V::Out {
                match self {
                    $( AnyRecord::$variant(r) => v.visit(r.as_mut()), )*
                }
            }

            /// Hands the record to `v`.
            pub fn into_visit<V: VisitOwned>(self, v: V) -> V::Out {
                match self {
                    $( AnyRecord::$variant(r) => v.visit(*r), )*
                }
            }

            /// A record of kind `K` as a record of any kind.
            pub fn wrap<K: $crate::record::Kind>(r: Record<K>) -> AnyRecord {
                let mut slot = Some(r);
                let any: &mut dyn std::any::Any = &mut slot;
                $( if let Some(r) = any.downcast_mut::<Option<Record<$module::$marker>>>() {
                    return AnyRecord::$variant(Box::new(r.take().expect("just put")));
                } )*
                unreachable!("every Kind is in the list of kinds")
            }

            /// Parses `v` as a record of kind `kind` (its kind and schema already checked).
            pub(crate) fn from_value(
                kind: RecordKind,
                v: serde_json::Value,
            ) -> serde_json::Result<AnyRecord> {
                match kind {
                    $( RecordKind::$variant => serde_json::from_value(v)
                        .map(|r| AnyRecord::$variant(Box::new(r))), )*
                }
            }
        }

        $(
            impl From<Record<$module::$marker>> for AnyRecord {
                fn from(r: Record<$module::$marker>) -> AnyRecord {
                    AnyRecord::$variant(Box::new(r))
                }
            }
        )*
    };
}

impl AnyRecord {
    /// The record as a record of kind `K`, or `None` when it is of another kind.
    pub fn get<K: Kind>(&self) -> Option<&Record<K>> {
        self.visit(Get(PhantomData))
    }

    /// The record taken as a record of kind `K`, or itself back when it is of another kind.
    pub fn take<K: Kind>(self) -> Result<Box<Record<K>>, AnyRecord> {
        if self.kind() != RecordKind::of::<K>() {
            return Err(self);
        }
        Ok(self
            .into_visit(Take(PhantomData))
            .expect("the kind was checked"))
    }

    /// The command line it was made with.
    pub fn command_line(&self) -> &[String] {
        self.visit(CommandLine)
    }

    /// The machine it was made on.
    pub fn environment(&self) -> &Environment {
        self.visit(Env)
    }

    /// The sweep it is a shard of, or the whole sweep it holds.
    pub fn sweep(&self) -> Option<&super::sweep::Sweep> {
        self.visit(SweepOf)
    }
}

/// [`AnyRecord::sweep`].
struct SweepOf;
impl<'a> Visit<'a> for SweepOf {
    type Out = Option<&'a super::sweep::Sweep>;
    fn visit<K: Kind>(self, r: &'a Record<K>) -> Self::Out {
        r.sweep.as_ref()
    }
}

/// [`AnyRecord::get`]: the record if it is of kind `W`.
struct Get<W>(PhantomData<W>);

impl<'a, W: Kind> Visit<'a> for Get<W> {
    type Out = Option<&'a Record<W>>;
    fn visit<K: Kind>(self, r: &'a Record<K>) -> Self::Out {
        (r as &dyn Any).downcast_ref::<Record<W>>()
    }
}

/// [`AnyRecord::take`]: the record if it is of kind `W`.
struct Take<W>(PhantomData<W>);

impl<W: Kind> VisitOwned for Take<W> {
    type Out = Option<Box<Record<W>>>;
    fn visit<K: Kind>(self, r: Record<K>) -> Self::Out {
        (Box::new(r) as Box<dyn Any>).downcast::<Record<W>>().ok()
    }
}

/// [`AnyRecord::command_line`].
struct CommandLine;

impl<'a> Visit<'a> for CommandLine {
    type Out = &'a [String];
    fn visit<K: Kind>(self, r: &'a Record<K>) -> Self::Out {
        &r.command_line
    }
}

/// [`AnyRecord::environment`].
struct Env;

impl<'a> Visit<'a> for Env {
    type Out = &'a Environment;
    fn visit<K: Kind>(self, r: &'a Record<K>) -> Self::Out {
        &r.environment
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::record::{latency::Latency, profile::Profile, throughput::Throughput, tls::Tls};

    #[test]
    fn every_spelling_is_unique_and_reads_back() {
        for facts in [
            |k: RecordKind| k.file_kind(),
            |k: RecordKind| k.store_kind(),
            |k: RecordKind| k.noun(),
            |k: RecordKind| k.plural(),
        ] {
            let mut seen: Vec<&str> = RecordKind::ALL.iter().map(|k| facts(*k)).collect();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), RecordKind::ALL.len());
        }
        for k in RecordKind::ALL {
            assert_eq!(RecordKind::from_file_kind(k.file_kind()), Some(*k));
        }
        assert_eq!(RecordKind::from_file_kind("kembench-verify"), None);
    }

    #[test]
    fn a_marker_type_names_its_kind() {
        assert_eq!(RecordKind::of::<Latency>(), RecordKind::Latency);
        assert_eq!(RecordKind::of::<Throughput>(), RecordKind::Throughput);
        assert_eq!(RecordKind::of::<Profile>(), RecordKind::Profile);
        assert_eq!(RecordKind::of::<Tls>(), RecordKind::Tls);
    }

    #[test]
    fn a_record_comes_back_out_as_its_own_kind_only() {
        let any = AnyRecord::from(fixture::tls());
        assert_eq!(any.kind(), RecordKind::Tls);
        assert!(any.get::<Tls>().is_some());
        assert!(any.get::<Latency>().is_none());
        let any = any.take::<Latency>().unwrap_err();
        let tls = any.take::<Tls>().unwrap();
        assert_eq!(tls.results.len(), fixture::tls().results.len());
        let run = AnyRecord::from(fixture::run());
        assert_eq!(run.command_line(), &fixture::run().command_line[..]);
        assert_eq!(
            run.environment().hostname,
            fixture::run().environment.hostname
        );
    }
}
