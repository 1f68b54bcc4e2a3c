//! [`Pmu`](super::Pmu) in a build for an architecture that perf-event2 has no bindings for
//! (s390x, powerpc64): it never opens, and says why.

use super::Counters;

/// Hardware counters in a build without perf_event bindings: there is no value of this type.
pub enum Pmu {}

impl Pmu {
    /// Says that this build has no counter support.
    pub fn open() -> Result<Pmu, String> {
        Err(format!(
            "hardware counters are not supported by this build (perf_event_open: perf-event2 has \
             no bindings for {})",
            std::env::consts::ARCH
        ))
    }

    /// Never called: there is no `Pmu` value.
    pub fn count(&mut self, _calls: u64, _f: impl FnMut()) -> Counters {
        match *self {}
    }
}
