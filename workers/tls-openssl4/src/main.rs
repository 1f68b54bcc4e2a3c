//! kembench's OpenSSL 4 worker: OpenSSL 4.0.3 (openssl-src 400.0.2, through this crate's
//! `[patch]` of openssl-src) as a TLS stack of kembench, driven by kembench's own OpenSSL stack
//! (`kembench::tls::openssl_stack`, the very code that measures the vendored OpenSSL 3.6 in
//! kembench's process) and measured by kembench's own code (`kembench::tls::worker::serve`).
//! It reads a job as JSON on standard input and writes the results as JSON on standard output;
//! kembench's `tls --stack openssl4` runs it. Each group's key exchange is timed bare beside
//! the handshakes by the adapter `--impl openssl4` measures (`kembench::openssl_kem`, this
//! crate's library). A separate executable because OpenSSL 4 and the
//! OpenSSL 3.6 kembench vendors export the same C symbols.

use kembench::tls::certs::Chain;
use kembench::tls::groups::{Group, HelloShape, StackKind};
use kembench::tls::openssl_stack::{self, Openssl};
use kembench::tls::side::Stack;
use std::sync::Arc;

fn make(g: &Group, chain: &Chain, shape: HelloShape) -> Result<Box<dyn Stack>, String> {
    Ok(Box::new(Openssl::new(g, chain, shape)?))
}

fn main() -> std::process::ExitCode {
    // The library this executable linked must be OpenSSL 4: a build that fell back on another
    // OpenSSL (a system one) would be measured under the wrong name.
    if openssl_stack::kind() != StackKind::Openssl4 {
        eprintln!(
            "kembench-tls-openssl4: linked {}, not OpenSSL 4",
            openssl_stack::version()
        );
        return std::process::ExitCode::from(1);
    }
    let kems: Vec<Arc<dyn kembench::kem::Kem>> = kembench::openssl_kem::implementations(
        "openssl4",
        &kembench::openssl_kem::library_version(),
    )
    .into_iter()
    .map(Arc::from)
    .collect();
    let kem_for = move |g: &Group| {
        kems.iter()
            .find(|k| k.meta().algorithm.name == g.algorithm)
            .cloned()
    };
    kembench::tls::worker::serve_stdio_with(
        "kembench-tls-openssl4",
        StackKind::Openssl4,
        &make,
        &kem_for,
    )
}
