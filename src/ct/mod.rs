//! The engine of `kembench ct`: constant-time screening of each implementation and build, per
//! secret-handling operation, with three screens ([`crate::record::ct`]): secret flow under
//! memcheck, variable-latency instructions from instruction counts and the disassembly, and
//! dudect's timing test.
//!
//! `worker.rs` is the process every valgrind screen runs: one screened call inside a marker.

pub mod worker;
