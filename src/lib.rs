//! kembench: benchmark and profile key-encapsulation mechanisms and classical key exchange
//! side by side, across implementations, with numbers you can trust.
//!
//! - [`kem`]: the one KEM interface, the catalog of algorithms and the registry of
//!   implementations;
//! - [`providers`]: one adapter per library, each behind its cargo feature;
//! - [`verify`]: the correctness gate that every implementation passes before it is timed;
//! - [`cli`] and [`commands`]: the command line.
//!
//! The list of record kinds (`record::with_kinds!`, in `record/mod.rs`) declares each kind's
//! engine here: `run`, `throughput`, `profile` and `tls`, the top-level modules named after
//! their kinds.

/// `print!` for the whole crate: standard output through [`interrupt::print`], which writes
/// nothing more, and asks a measuring command to stop, once its reader has gone away.
macro_rules! print {
    ($($t:tt)*) => {
        $crate::interrupt::print(format_args!($($t)*))
    };
}

/// `println!` for the whole crate, as [`print!`].
macro_rules! println {
    () => {
        $crate::interrupt::print(format_args!("\n"))
    };
    ($($t:tt)*) => {
        $crate::interrupt::print(format_args!("{}\n", format_args!($($t)*)))
    };
}

#[macro_use]
pub mod record;

/// Declares the engine of every kind in the list: the top-level module of the kind's name.
macro_rules! engines {
    ($( $(#[$doc:meta])* $variant:ident => $module:ident :: $marker:ident, )*) => {
        $( pub mod $module; )*
    };
}

with_kinds!(engines);

pub mod arch;
pub mod builds;
pub mod callgrind;
pub mod cli;
pub mod commands;
pub mod ending;
pub mod engine;
pub mod env;
pub mod exit;
pub mod export;
pub mod files;
pub mod interrupt;
pub mod kem;
pub mod measure;
pub mod missing;
pub mod output;
pub mod providers;
pub mod report;
pub mod resume;
pub mod shard;
pub mod signals;
pub mod stats;
pub mod store;
pub mod suggest;
pub mod table;
pub mod units;
pub mod usage;
pub mod verify;
