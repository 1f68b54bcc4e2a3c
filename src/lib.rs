//! kembench: benchmark and profile key-encapsulation mechanisms and classical key exchange
//! side by side, across implementations, with numbers you can trust.
//!
//! - [`kem`]: the one KEM interface, the catalog of algorithms and the registry of
//!   implementations;
//! - [`providers`]: one adapter per library, each behind its cargo feature;
//! - [`verify`]: the correctness gate that every implementation passes before it is timed;
//! - [`cli`] and [`commands`]: the command line.

pub mod builds;
pub mod callgrind;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod ending;
pub mod engine;
pub mod env;
pub mod exit;
pub mod export;
pub mod files;
pub mod interrupt;
pub mod kem;
pub mod measure;
pub mod options;
pub mod output;
pub mod profile;
pub mod providers;
pub mod record;
pub mod report;
pub mod run;
pub mod stats;
pub mod store;
pub mod suggest;
pub mod table;
pub mod throughput;
pub mod tls;
pub mod units;
pub mod usage;
pub mod verify;
