//! Hardware performance counters through `perf_event_open`: core cycles, instructions, branch
//! misses, last-level cache misses and L1 data-cache read misses.
//!
//! Where the machine offers none (a VM without a virtual PMU, a restrictive
//! `perf_event_paranoid`), opening fails and the reason is kept as a typed value that the
//! output explains once; nothing crashes and no zero is printed in place of a figure.

use perf_event::events::{Cache, CacheId, CacheOp, CacheResult, Hardware};
use perf_event::{Builder, Counter, Group};
use serde::{Deserialize, Serialize};

/// Per-call means of the hardware events over a counted phase.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CounterValues {
    /// Core clock cycles per call (not TSC ticks).
    pub cycles: f64,
    /// Retired instructions per call.
    pub instructions: f64,
    /// Mispredicted branches per call.
    pub branch_misses: f64,
    /// Last-level cache misses per call.
    pub llc_misses: f64,
    /// L1 data-cache read misses per call.
    pub l1d_read_misses: f64,
    /// Calls in the counted phase.
    pub calls: u64,
}

/// Counters, or why there are none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", content = "value", rename_all = "lowercase")]
pub enum Counters {
    /// Measured.
    Measured(CounterValues),
    /// Not available here, with the reason.
    Unavailable(String),
}

/// An open group of the five events on the current thread.
pub struct Pmu {
    group: Group,
    members: [Counter; 5],
}

fn builder<E: perf_event::events::Event>(e: E) -> Builder<'static> {
    let mut b = Builder::new(e);
    b.observe_self()
        .any_cpu()
        .exclude_kernel(true)
        .exclude_hv(true);
    b
}

impl Pmu {
    /// Opens the events on the current thread, or says why it cannot.
    pub fn open() -> Result<Pmu, String> {
        let mut group = Group::new().map_err(|e| format!("perf_event_open: {e}"))?;
        let l1d = Cache {
            which: CacheId::L1D,
            operation: CacheOp::READ,
            result: CacheResult::MISS,
        };
        let mut add = |b: Builder<'static>, what: &str| {
            group
                .add(&b)
                .map_err(|e| format!("perf_event_open({what}): {e}"))
        };
        let members = [
            add(builder(Hardware::CPU_CYCLES), "cycles")?,
            add(builder(Hardware::INSTRUCTIONS), "instructions")?,
            add(builder(Hardware::BRANCH_MISSES), "branch-misses")?,
            add(builder(Hardware::CACHE_MISSES), "LLC misses")?,
            add(builder(l1d), "L1D read misses")?,
        ];
        Ok(Pmu { group, members })
    }

    /// Counts `calls` calls of `f` and returns per-call means.
    pub fn count(&mut self, calls: u64, mut f: impl FnMut()) -> Counters {
        let mut run = || -> std::io::Result<Option<[u64; 5]>> {
            self.group.reset()?;
            self.group.enable()?;
            for _ in 0..calls {
                f();
            }
            self.group.disable()?;
            let data = self.group.read()?;
            if data.time_running().is_some_and(|t| t.is_zero()) {
                return Ok(None);
            }
            Ok(Some(std::array::from_fn(|i| data[&self.members[i]])))
        };
        match run() {
            Ok(Some(v)) => {
                let per = |x: u64| x as f64 / calls.max(1) as f64;
                Counters::Measured(CounterValues {
                    cycles: per(v[0]),
                    instructions: per(v[1]),
                    branch_misses: per(v[2]),
                    llc_misses: per(v[3]),
                    l1d_read_misses: per(v[4]),
                    calls,
                })
            }
            Ok(None) => Counters::Unavailable("the PMU never scheduled the event group".into()),
            Err(e) => Counters::Unavailable(format!("reading counters: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_either_measure_or_explain() {
        match Pmu::open() {
            Ok(mut p) => match p.count(10, || {
                std::hint::black_box((0..1000u64).sum::<u64>());
            }) {
                Counters::Measured(v) => assert!(v.instructions > 0.0),
                Counters::Unavailable(why) => assert!(!why.is_empty()),
            },
            Err(why) => assert!(why.contains("perf_event_open"), "{why}"),
        }
    }
}
