//! The engine of `kembench tls`: real TLS 1.3 handshakes between a rustls or OpenSSL client
//! and server, with certificates made at run time. `groups.rs` holds the tables (groups,
//! certificate keys, stacks); `side.rs` what a stack offers; `rustls_stack.rs` and
//! `openssl_stack.rs` the two stacks, OpenSSL's
//! (and BoringSSL's worker) over the one in-memory pipe of `piped.rs`; `memory.rs` one handshake in memory with each side's
//! time; `wire.rs` what the flights carry; `measure.rs` one benchmark; `certs.rs` the chains.

pub mod certs;
pub mod conditions;
pub mod groups;
pub mod measure;
mod memory;
pub mod net;
pub mod network;
#[cfg(feature = "openssl-stack")]
pub mod openssl_stack;
pub mod piped;
#[cfg(feature = "rustls")]
mod rustls_stack;
pub mod side;
pub mod signature;
mod wire;
pub mod worker;

#[cfg(test)]
mod tests;
