//! openssl-src 400.0.2 (OpenSSL 4.0.3) under the version openssl-sys's `vendored` feature asks
//! for: `workers/tls-openssl4` patches crates.io's openssl-src with this crate, so that the
//! `openssl` crate it links is built on OpenSSL 4.0.3 instead of 3.6.

pub use openssl_src_400::*;
