//! One adapter per provider, each behind its cargo feature.

#[cfg(feature = "aws-lc")]
pub mod awslc;
#[cfg(feature = "libcrux")]
pub mod libcrux;
#[cfg(feature = "liboqs")]
pub mod liboqs;
pub mod mock;
#[cfg(feature = "openssl")]
pub mod openssl;
#[cfg(feature = "pqclean")]
pub mod pqclean;
#[cfg(feature = "rustcrypto")]
pub mod rustcrypto;

use crate::kem::Kem;

/// An implementation this build or this CPU cannot offer, with the reason.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Unavailable {
    /// `algorithm@implementation`.
    pub label: String,
    /// Why it is left out.
    pub reason: String,
}

/// Implementations a provider offers here, and those it leaves out.
pub type Offered = (Vec<Box<dyn Kem>>, Vec<Unavailable>);

/// Every real implementation this build and CPU offer, and those left out.
pub fn all() -> Offered {
    #[allow(unused_mut)]
    let mut impls: Vec<Box<dyn Kem>> = Vec::new();
    #[allow(unused_mut)]
    let mut unavailable: Vec<Unavailable> = Vec::new();
    #[cfg(feature = "liboqs")]
    impls.extend(liboqs::implementations());
    #[cfg(feature = "pqclean")]
    {
        let (i, s) = pqclean::implementations();
        impls.extend(i);
        unavailable.extend(s);
    }
    #[cfg(feature = "libcrux")]
    {
        let (i, s) = libcrux::implementations();
        impls.extend(i);
        unavailable.extend(s);
    }
    #[cfg(feature = "rustcrypto")]
    impls.extend(rustcrypto::implementations());
    #[cfg(feature = "aws-lc")]
    impls.extend(awslc::implementations());
    #[cfg(feature = "openssl")]
    impls.extend(openssl::implementations());
    (impls, unavailable)
}
