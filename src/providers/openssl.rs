//! OpenSSL 3.6 built from source (`openssl` crate, feature `vendored`), linked into kembench:
//! the adapter of [`crate::openssl_kem`] (what one timed call does is said there), drawing from
//! kembench's seeded stream when `profile` fixes its randomness.

use super::seeded;
use crate::kem::Kem;

pub use crate::openssl_kem::library_version;

/// kembench's seeded stream as the source of OpenSSL's seeded random provider.
pub(crate) fn seeded_source() -> crate::openssl_kem::Source {
    crate::openssl_kem::Source {
        install: seeded::install,
        fill: |buf| seeded::fill_or_os(buf).is_ok(),
    }
}

/// Every OpenSSL implementation.
pub fn implementations() -> Vec<Box<dyn Kem>> {
    crate::openssl_kem::set_source(seeded_source());
    let version = format!(
        "{} (openssl-src {})",
        library_version(),
        env!("KEMBENCH_DEP_OPENSSL_SRC")
    );
    crate::openssl_kem::implementations("openssl", &version)
}
