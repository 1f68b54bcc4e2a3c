//! kembench: benchmark and profile key-encapsulation mechanisms and classical key exchange
//! side by side, across implementations, with numbers you can trust.
//!
//! ARCHITECTURE.md names every module's layer and what it may import. In short:
//! - [`kem`]: the one KEM interface and the catalog of algorithms;
//! - [`measure`], [`stats`], [`verify`]: timing, statistics and the correctness gate every
//!   implementation passes before it is timed;
//! - [`record`]: the typed records every measuring command produces; its list of kinds
//!   (`record::with_kinds!`) declares each kind's engine here, the top-level modules named
//!   after their kinds (`latency`, the engine of `kembench run`, `throughput`, `profile`, `tls`,
//!   `ct`);
//! - with the `app` feature (on by default): `providers` (one adapter per library, each
//!   behind its own feature), `builds`, the stores, exports, reports, the console and the
//!   command line (`cli`, `commands`). Without it the library is the measuring core a TLS
//!   stack's worker executable links (`workers/tls-boring`): kem, measure, stats, verify,
//!   record, engine and [`tls`].

/// `print!` for the whole crate: standard output through [`interrupt::print`], which writes
/// nothing more, and asks a measuring command to stop, once its reader has gone away.
#[cfg_attr(not(feature = "app"), allow(unused_macros))]
macro_rules! print {
    ($($t:tt)*) => {
        $crate::interrupt::print(format_args!($($t)*))
    };
}

/// `println!` for the whole crate, as [`print!`].
#[cfg_attr(not(feature = "app"), allow(unused_macros))]
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
        // An engine that needs the `app` feature says so at its top (`#![cfg(...)]`).
        $( pub mod $module; )*
    };
}

with_kinds!(engines);

pub mod arch;
#[cfg(feature = "app")]
pub mod builds;
pub mod callgrind;
#[cfg(feature = "app")]
pub mod cli;
#[cfg(feature = "app")]
pub mod commands;
#[cfg(feature = "app")]
pub mod cycles;
#[cfg(feature = "app")]
pub mod ending;
pub mod engine;
pub mod env;
#[cfg(feature = "app")]
pub mod exit;
#[cfg(feature = "app")]
pub mod export;
pub mod files;
pub mod interrupt;
pub mod kem;
pub mod measure;
pub mod missing;
#[cfg(feature = "openssl-stack")]
pub mod openssl_kem;
#[cfg(feature = "app")]
pub mod output;
#[cfg(feature = "app")]
pub mod providers;
#[cfg(feature = "app")]
pub mod report;
#[cfg(feature = "app")]
pub mod resume;
#[cfg(feature = "app")]
pub mod shard;
pub mod signals;
pub mod stats;
#[cfg(feature = "app")]
pub mod store;
#[cfg(feature = "app")]
pub mod suggest;
pub mod table;
pub mod units;
pub mod usage;
pub mod verify;
