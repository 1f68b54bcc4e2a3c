//! The engine of `kembench ct`: constant-time screening of each implementation and build, per
//! secret-handling operation, with three screens ([`crate::record::ct`]): secret flow under
//! memcheck, variable-latency instructions from instruction counts and the disassembly, and
//! dudect's timing test.
//!
//! `worker.rs` is the process every valgrind screen runs: one screened call per operation,
//! each inside its own marker.
#![cfg(feature = "app")]

pub mod exceptions;
pub mod latency;
pub mod secret_flow;
pub mod timing;
pub mod worker;

use std::path::PathBuf;
use std::time::Duration;

/// What every screen needs to run, the same for every implementation.
#[derive(Debug, Clone)]
pub struct Context {
    /// kembench's own executable, re-run as `kembench ct-worker` (under valgrind or natively).
    pub exe: PathBuf,
    /// Offer the mock implementations in the workers (`--include-mock`).
    pub include_mock: bool,
    /// The seed of the draws (`ct-worker --seed`).
    pub seed: u64,
    /// valgrind's executable, or why there is none (with the command that installs it).
    pub valgrind: Result<PathBuf, String>,
    /// A folder of this run's own for the screens' files (memcheck's XML, callgrind's dumps);
    /// removed when the run ends.
    pub work_dir: PathBuf,
    /// The timing screen's budget per implementation and operation.
    pub timing_budget: Duration,
    /// How long a valgrind worker may run before it is killed (Classic McEliece's key
    /// generation under memcheck takes a while).
    pub worker_timeout: Duration,
}
pub mod plan;
pub use plan::{screen_one, Plan};

/// A folder of this run's own for the screens' files, removed when dropped.
#[derive(Debug)]
pub struct WorkDir(PathBuf);

impl WorkDir {
    /// A new, empty folder under the system's temporary folder.
    pub fn new() -> std::io::Result<WorkDir> {
        let d = std::env::temp_dir().join(format!(
            "kembench-ct-{}-{:08x}",
            std::process::id(),
            rand::random::<u32>()
        ));
        std::fs::create_dir(&d)?;
        Ok(WorkDir(d))
    }

    /// Its path.
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
