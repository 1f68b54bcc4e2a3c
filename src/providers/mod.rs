//! One adapter per provider, each behind its cargo feature, and the registry that assembles
//! them.
//!
//! Adding a provider: its adapter file here (with a `pub fn implementations()` returning
//! `Vec<Box<dyn Kem>>` or an [`Offered`]), its cargo feature in `Cargo.toml`, and one line in
//! the `providers!` list below. Nothing else names providers: `list`, `verify`, the tests and
//! the default build's provider count derive from that list.

#[cfg(any(feature = "aws-lc", feature = "rustls"))]
mod aws_lc_random;
pub mod built;
pub mod drbg;
pub mod foreign;
pub mod mock;
#[cfg(feature = "openssl")]
pub mod openssl4;
pub mod os_random;
pub mod registry;
pub mod secrets;
pub mod seeded;
pub mod suite;

pub use registry::{Filter, Registry, SelectError};

use crate::kem::Kem;

/// An implementation this build or this CPU cannot offer, with the reason.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Unavailable {
    /// `algorithm@implementation`.
    pub label: String,
    /// Why it is left out.
    pub reason: String,
}

/// Why AVX2 code is left out on `arch` (the build's target architecture): a build for another
/// architecture has none; an x86-64 CPU may lack the instructions it `needs`.
#[cfg(any(feature = "pqclean", feature = "libcrux"))]
fn avx2_missing(arch: &str, needs: &str) -> String {
    if arch == "x86_64" {
        format!("this CPU lacks {needs}")
    } else {
        format!("AVX2 code is x86-64 only; this build is for {arch}")
    }
}

/// Implementations a provider offers here, and those it leaves out.
#[derive(Default)]
pub struct Offered {
    /// What this build and CPU offer.
    pub impls: Vec<Box<dyn Kem>>,
    /// What is left out, with the reason.
    pub unavailable: Vec<Unavailable>,
}

impl From<Vec<Box<dyn Kem>>> for Offered {
    fn from(impls: Vec<Box<dyn Kem>>) -> Offered {
        Offered {
            impls,
            unavailable: Vec::new(),
        }
    }
}

/// Implementations built on first use and selected only when named (`openssl4`: OpenSSL
/// 4.0.3's library, minutes to build), none opened yet.
pub fn on_demand() -> Vec<Box<dyn Kem>> {
    #[allow(unused_mut)]
    let mut v: Vec<Box<dyn Kem>> = Vec::new();
    #[cfg(feature = "openssl")]
    v.extend(openssl4::on_demand());
    v
}

/// Builds and opens the on-demand implementations among `picked` (see [`on_demand`]).
pub fn prepare(picked: &[std::sync::Arc<dyn Kem>]) {
    #[cfg(feature = "openssl")]
    if picked
        .iter()
        .any(|k| k.meta().implementation == openssl4::ID)
    {
        openssl4::prepare();
    }
    let _ = picked;
}

impl Offered {
    fn extend(&mut self, other: Offered) {
        self.impls.extend(other.impls);
        self.unavailable.extend(other.unavailable);
    }
}

/// Declares the provider modules, each behind its cargo feature, and the functions that list
/// them. One line per provider: `module: "cargo-feature",`.
macro_rules! providers {
    ($($module:ident: $feature:literal,)*) => {
        $(
            #[cfg(feature = $feature)]
            pub mod $module;
        )*

        /// The providers compiled into this build (their cargo feature names).
        pub const BUILT: &[&str] = &[$(#[cfg(feature = $feature)] $feature,)*];

        /// Every provider of the list, compiled into this build or not (their cargo feature
        /// names).
        pub const LISTED: &[&str] = &[$($feature,)*];

        /// Every real implementation this build and CPU offer, and those left out, in
        /// registry order.
        pub fn all() -> Offered {
            #[allow(unused_mut)]
            let mut all = Offered::default();
            $(
                #[cfg(feature = $feature)]
                all.extend($module::implementations().into());
            )*
            all
        }
    };
}

providers! {
    liboqs: "liboqs",
    pqclean: "pqclean",
    libcrux: "libcrux",
    rustcrypto: "rustcrypto",
    awslc: "aws-lc",
    openssl: "openssl",
    rustls: "rustls",
}

#[cfg(test)]
mod tests {
    #[cfg(any(feature = "pqclean", feature = "libcrux"))]
    #[test]
    fn avx2_left_out_for_the_cpu_or_for_the_build() {
        assert_eq!(super::avx2_missing("x86_64", "AVX2"), "this CPU lacks AVX2");
        assert_eq!(
            super::avx2_missing("s390x", "AVX2"),
            "AVX2 code is x86-64 only; this build is for s390x"
        );
    }
}
