//! The `perf_event_open` group behind [`Pmu`](super::Pmu), on architectures perf-event2 has
//! bindings for.

use super::{CounterValues, Counters};
use perf_event::events::{Cache, CacheId, CacheOp, CacheResult, Hardware};
use perf_event::{Builder, Counter, Group};

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
