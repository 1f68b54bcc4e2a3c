//! Fixing an implementation's random draws from the seed, and the liboqs SHA-3 probe, as the
//! worker asks for them.

use crate::kem::Kem;
use crate::record::profile::RandomnessNote;

/// Fixes `k`'s random draws from `seed` where the library allows it
/// ([`Kem::fix_randomness`]), and says how, or why not.
pub fn fix(k: &dyn Kem, seed: &[u8; 32]) -> RandomnessNote {
    let r = k.fix_randomness(seed);
    RandomnessNote {
        fixed: r.is_fixed(),
        how: r.how().to_string(),
    }
}

/// Routes liboqs's SHA-3 through kembench's counting wrappers, whose frames are named
/// [`super::SHA3_PROBE_PREFIX`]`*`; an error for any other provider.
pub fn install_sha3_probe(k: &dyn Kem) -> anyhow::Result<()> {
    if k.meta().provider() != "liboqs" {
        anyhow::bail!(
            "--sha3-probe applies to liboqs only ({} is not liboqs)",
            k.meta().label()
        );
    }
    #[cfg(feature = "liboqs")]
    {
        crate::providers::liboqs::install_sha3_probe();
        Ok(())
    }
    #[cfg(not(feature = "liboqs"))]
    anyhow::bail!("this build has no liboqs")
}
