//! What each measuring command was asked to do, validated: the command line (clap) is turned
//! into these once, and no engine is handed a clap type. Below the commands, clap appears only
//! as the `ValueEnum` derive of the two enums that are argument values themselves
//! (`measure::sampler::Op`, `report::ReportFormat`), so that their names are declared once, on the
//! type.

use crate::export::Format;
use crate::measure::sampler::{Op, SamplerConfig};
use crate::output::Width;
use crate::providers::Filter;
use std::path::PathBuf;

/// Result files to write: each format with its path.
pub type Outputs = Vec<(Format, PathBuf)>;

/// `kembench run`, validated.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Which implementations (empty: the default suite, or every one with `all`).
    pub filter: Filter,
    /// Whether the mock implementations are offered.
    pub include_mock: bool,
    /// Every implementation when no filter is given.
    pub all: bool,
    /// Operations to measure.
    pub ops: Vec<Op>,
    /// Sampling knobs.
    pub sampler: SamplerConfig,
    /// Pin the measuring thread to the last logical CPU.
    pub pin: bool,
    /// Seconds a worker may take over one step.
    pub step_timeout_s: f64,
    /// The run to resume, if any.
    pub resume: Option<String>,
    /// Count each operation's instructions under callgrind after the timed rounds.
    pub instructions: bool,
    /// Record the run in the results store.
    pub store: bool,
    /// Result files.
    pub outputs: Outputs,
    /// How much the console tables show.
    pub layout: Width,
}

/// `kembench throughput`, validated.
#[derive(Debug, Clone)]
pub struct ThroughputOptions {
    /// Which implementations (empty: the default set).
    pub filter: Filter,
    /// Whether the mock implementations are offered.
    pub include_mock: bool,
    /// Thread (or process) counts, 1 included.
    pub threads: Vec<usize>,
    /// Seconds per thread count and repeat.
    pub duration_s: f64,
    /// Rotations over the thread counts.
    pub repeats: usize,
    /// Pin thread i to CPU i mod the logical CPUs.
    pub pin: bool,
    /// Independent processes instead of threads.
    pub processes: bool,
    /// Connections per second the capacity figures are sized for.
    pub target_rate: f64,
    /// Operations to measure.
    pub ops: Vec<Op>,
    /// The throughput run to resume, if any.
    pub resume: Option<String>,
    /// Record the run in the results store.
    pub store: bool,
    /// Result files.
    pub outputs: Outputs,
    /// How much the console tables show.
    pub layout: Width,
}

/// `kembench tls`, validated.
#[derive(Debug, Clone)]
pub struct TlsOptions {
    /// Groups.
    pub groups: Vec<&'static crate::tls::groups::Group>,
    /// Stacks.
    pub stacks: Vec<crate::tls::groups::StackKind>,
    /// Certificate keys.
    pub certs: Vec<crate::tls::groups::CertKind>,
    /// Kinds of handshake.
    pub modes: Vec<crate::record::tls::Mode>,
    /// Seconds of in-memory handshakes per benchmark.
    pub duration_s: f64,
    /// Thread counts for scaling (empty: none).
    pub threads: Vec<usize>,
    /// Seconds per thread count.
    pub scaling_duration_s: f64,
    /// Target handshakes per second.
    pub target_rate: f64,
    /// Network conditions (empty: none).
    pub network: Vec<crate::record::tls::NetProfile>,
    /// Handshakes per lossy network condition.
    pub network_handshakes: usize,
    /// Handshakes in flight at once under a network condition.
    pub network_concurrency: usize,
    /// Benchmarks under network conditions at once.
    pub network_parallel: usize,
    /// Record the run in the results store.
    pub store: bool,
    /// Result files.
    pub outputs: Outputs,
    /// How much the console tables show.
    pub layout: Width,
}

/// `kembench profile`, validated.
#[derive(Debug, Clone)]
pub struct ProfileOptions {
    /// Which implementations (empty: the default suite, or every one with `all`).
    pub filter: Filter,
    /// Whether the mock implementations are offered.
    pub include_mock: bool,
    /// Every implementation instead of the default suite.
    pub all: bool,
    /// Operations to profile.
    pub ops: Vec<Op>,
    /// Seeds per implementation.
    pub seeds: usize,
    /// Implementations profiled at once.
    pub jobs: usize,
    /// Longest one worker may run, in seconds.
    pub timeout_s: f64,
    /// Levels of the hot-path tree.
    pub tree_depth: usize,
    /// Paths under this fraction of an operation are pruned.
    pub tree_threshold: f64,
    /// Directory for flame-graph SVGs.
    pub flamegraphs: Option<std::path::PathBuf>,
    /// Directory for callgrind's raw files.
    pub callgrind_out: Option<std::path::PathBuf>,
    /// Route liboqs's SHA-3 through counting wrappers.
    pub sha3_probe: bool,
    /// Record the profile in the results store.
    pub store: bool,
    /// Result files.
    pub outputs: Outputs,
    /// How much the console tables show.
    pub layout: Width,
}
