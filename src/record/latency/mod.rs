//! The latency kind, the record of `kembench run` ([`Latency`]; "run" alone is any stored run): every statistic with its unit in its name, the raw samples,
//! the configuration, the timers, and how each benchmark ended.

pub mod console;
mod csv;
pub mod tables;
pub mod compare;
pub mod matrix;
pub mod versions;

use super::metrics::{Measure, Metric};
use super::compare::{Asked, Comparison, Compares};
use super::{Benchmark, Facts, Failure, FailureKind, Kind, Record, ResultStatus};
use crate::measure::counters::Counters;
use crate::kem::Op;
use crate::measure::sampler::{Sampled, SamplerConfig, StopReason};
use crate::measure::timer::Timers;
use crate::stats::{self, OutlierCounts};
use crate::verify::Outcome;
use serde::{Deserialize, Serialize};

/// Version of the JSON layout; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Round medians further apart than this (slowest over fastest, minus one) mean that the
/// machine's speed moved while an operation was measured; the console and the report say so.
pub const DRIFT: f64 = 0.05;

/// Bootstrap resamples for the median's confidence interval.
const RESAMPLES: usize = 2000;

/// Statistics of one operation of one implementation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OperationResult {
    /// The operation.
    pub operation: Op,
    /// Samples taken.
    pub samples: usize,
    /// Calls per sample (1 unless a call is too short for the timer).
    pub batch: usize,
    /// Warm-up calls before sampling.
    pub warmup_calls: u64,
    /// Why sampling stopped.
    pub stop_reason: StopReason,
    /// Relative half-width of the median's 95% interval when sampling stopped.
    pub achieved_precision: f64,
    /// Median per-call time.
    pub median_ns: f64,
    /// Mean per-call time.
    pub mean_ns: f64,
    /// Sample standard deviation.
    pub stddev_ns: f64,
    /// Fastest sample.
    pub min_ns: f64,
    /// Slowest sample.
    pub max_ns: f64,
    /// 5th percentile.
    pub p5_ns: f64,
    /// 25th percentile.
    pub p25_ns: f64,
    /// 75th percentile.
    pub p75_ns: f64,
    /// 95th percentile.
    pub p95_ns: f64,
    /// 99th percentile.
    pub p99_ns: f64,
    /// Median absolute deviation (unscaled).
    pub mad_ns: f64,
    /// Lower end of the median's 95% bootstrap confidence interval.
    pub median_ci95_low_ns: f64,
    /// Upper end of the median's 95% bootstrap confidence interval.
    pub median_ci95_high_ns: f64,
    /// Tukey outliers, counted (never removed).
    pub outliers: OutlierCounts,
    /// Operations per second on one thread, from the median.
    pub ops_per_sec: f64,
    /// Median per-call TSC ticks (not core cycles); `None` without a TSC.
    pub tsc_median_ticks: Option<f64>,
    /// Hardware counters per call, or why there are none.
    pub counters: Counters,
    /// Peak heap above the baseline during one call; `None` when not measurable.
    pub peak_heap_bytes: Option<u64>,
    /// Heap allocations in one call, C libraries included.
    pub allocations: Option<u64>,
    /// Deepest stack use of one call.
    pub max_stack_bytes: Option<u64>,
    /// This operation's share of keygen + encaps + decaps medians (not for `exchange`).
    pub share_of_exchange: Option<f64>,
    /// The median of each round (rounds interleave the benchmarks over the whole run).
    #[serde(default)]
    pub round_medians_ns: Vec<f64>,
    /// Slowest round median over the fastest, minus one: how much the machine's speed moved
    /// while this operation was measured.
    #[serde(default)]
    pub round_spread: f64,
    /// The fastest round's median: on a machine whose speed moves (a VM sharing its cores
    /// with other tenants), the figure least disturbed by them and the most repeatable from
    /// run to run, though an optimistic one. `None` in records from before it existed.
    #[serde(default)]
    pub best_round_median_ns: Option<f64>,
    /// Instructions of one call counted under callgrind (`run --instructions`; exact, seed 0
    /// of `profile`'s method); `None` when not counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callgrind_instructions: Option<u64>,
    /// Every sample's per-call time.
    pub raw_samples_ns: Vec<f64>,
    /// Every sample's per-call TSC ticks.
    pub raw_samples_tsc_ticks: Vec<f64>,
}

/// Slowest over fastest minus one; 0 for fewer than two values.
fn spread(v: &[f64]) -> f64 {
    let (lo, hi) = v.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| {
        (lo.min(x), hi.max(x))
    });
    if v.len() < 2 || lo <= 0.0 {
        0.0
    } else {
        hi / lo - 1.0
    }
}

impl OperationResult {
    /// Whether the round medians are more than [`DRIFT`] apart.
    pub fn drifted(&self) -> bool {
        self.round_spread > DRIFT
    }

    /// Summarises raw measurements.
    pub fn from_sampled(s: Sampled) -> OperationResult {
        let sum = stats::summarize(&s.samples_ns, RESAMPLES, 0x6b656d62)
            .expect("the sampler always takes at least one sample");
        let tsc_median = (!s.samples_tsc.is_empty()).then(|| stats::median(&s.samples_tsc));
        OperationResult {
            operation: s.op,
            samples: sum.n,
            batch: s.batch,
            warmup_calls: s.warmup_calls,
            stop_reason: s.stop,
            achieved_precision: s.achieved_precision,
            median_ns: sum.median,
            mean_ns: sum.mean,
            stddev_ns: sum.stddev,
            min_ns: sum.min,
            max_ns: sum.max,
            p5_ns: sum.p5,
            p25_ns: sum.p25,
            p75_ns: sum.p75,
            p95_ns: sum.p95,
            p99_ns: sum.p99,
            mad_ns: sum.mad,
            median_ci95_low_ns: sum.median_ci_low,
            median_ci95_high_ns: sum.median_ci_high,
            outliers: sum.outliers,
            ops_per_sec: sum.ops_per_sec(),
            tsc_median_ticks: tsc_median,
            counters: s.counters,
            peak_heap_bytes: s.heap.map(|h| h.peak_heap_bytes),
            allocations: s.heap.map(|h| h.allocations),
            max_stack_bytes: s.stack.map(|st| st.max_stack_bytes),
            share_of_exchange: None,
            round_spread: spread(&s.round_medians_ns),
            best_round_median_ns: s.round_medians_ns.iter().copied().reduce(f64::min),
            callgrind_instructions: None,
            round_medians_ns: s.round_medians_ns,
            raw_samples_ns: s.samples_ns,
            raw_samples_tsc_ticks: s.samples_tsc,
        }
    }
}

/// Everything measured for one (algorithm, implementation).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchResult {
    /// Algorithm name.
    pub algorithm: String,
    /// Family (kebab-case).
    pub family: String,
    /// Claimed NIST level; `None` for classical algorithms.
    pub nist_level: Option<u8>,
    /// Implementation id.
    pub implementation: String,
    /// Provider version.
    pub version: String,
    /// Public key bytes.
    pub pk_bytes: usize,
    /// Secret key bytes.
    pub sk_bytes: usize,
    /// Ciphertext bytes.
    pub ct_bytes: usize,
    /// Shared secret bytes.
    pub ss_bytes: usize,
    /// Bytes a key exchange puts on the wire (pk + ct).
    pub wire_bytes: usize,
    /// The quick correctness check run before timing.
    pub correctness: Outcome,
    /// One entry per operation measured (none when the correctness check failed).
    pub operations: Vec<OperationResult>,
    /// An error that stopped measuring part-way, if any.
    pub error: Option<String>,
    /// How the benchmark's worker process ended abnormally (crash, timeout, Ctrl-C), if it
    /// did; the operations measured before that are kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
}


impl BenchResult {
    /// Fills each operation's share of keygen + encaps + decaps.
    pub fn fill_shares(&mut self) {
        let median = |op: Op| self.op(op).map(|o| o.median_ns);
        if let (Some(k), Some(e), Some(d)) =
            (median(Op::Keygen), median(Op::Encaps), median(Op::Decaps))
        {
            let total = k + e + d;
            for o in &mut self.operations {
                o.share_of_exchange = match o.operation {
                    Op::Keygen | Op::Encaps | Op::Decaps => Some(o.median_ns / total),
                    // The exchange is the whole; imports are not part of it.
                    Op::Exchange | Op::SkImport | Op::PkImport => None,
                };
            }
        }
    }

    /// The result of one operation, if measured.
    pub fn op(&self, op: Op) -> Option<&OperationResult> {
        self.operations.iter().find(|o| o.operation == op)
    }
}

/// The configuration a run was made with.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LatencyConfig {
    /// `default` (the default suite), `all`, or `filtered`.
    pub selection: String,
    /// Algorithm filters given.
    pub algorithms: Vec<String>,
    /// Implementation filters given.
    pub implementations: Vec<String>,
    /// Family filter.
    pub family: Option<String>,
    /// Level filter.
    pub level: Option<u8>,
    /// Operations measured.
    pub operations: Vec<Op>,
    /// Sampling knobs.
    pub sampler: SamplerConfig,
    /// The CPU the measuring thread was pinned to, if any.
    #[serde(default)]
    pub pinned_cpu: Option<usize>,
    /// Whether the mock implementations were offered (`--include-mock`).
    #[serde(default)]
    pub include_mock: bool,
    /// Every `algorithm@implementation` the run set out to measure (what `--resume` completes).
    #[serde(default)]
    pub planned: Vec<String>,
    /// Seconds one step of a benchmark's worker (prepare, one round, finish) may take before
    /// the worker is killed and the benchmark recorded as timed out.
    #[serde(default)]
    pub step_timeout_s: Option<f64>,
}

/// What a latency run records beside the common header, before `kind`: whether Ctrl-C (or a
/// crash of `run` itself) stopped it, and when it was resumed.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LatencyState {
    /// Stopped by Ctrl-C before every benchmark completed.
    #[serde(default)]
    pub interrupted: bool,
    /// When `run --resume` continued this run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumed_at: Vec<String>,
}

/// What a latency run records after the environment: how its timers, counters and heap
/// meter behave on this machine.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LatencyMeasured {
    /// Timer resolution and overhead measured at the start.
    pub timers: Timers,
    /// Why hardware counters are unavailable, when they are.
    pub counters_unavailable: Option<String>,
    /// Whether heap figures count C allocations (the malloc interposer is active).
    pub heap_includes_c_allocations: bool,
    /// How `decaps` (and `exchange`) held the secret key. Records written before kembench
    /// kept key objects have no such field and read as [`SecretKeys::Bytes`].
    #[serde(default)]
    pub decaps_secret_key: SecretKeys,
}

/// How a run's decapsulations held the secret key, which decides what a `decaps` figure
/// contains: comparing a run of one kind with a run of the other compares different work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SecretKeys {
    /// Rebuilt from bytes in every call (kembench before key objects): `decaps` includes
    /// what is now `sk-import`.
    #[default]
    Bytes,
    /// The library's own key object, kept from key generation (as a TLS endpoint keeps it).
    Kept,
}

impl std::fmt::Display for SecretKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SecretKeys::Bytes => "rebuilt from bytes in every decaps (the import included)",
            SecretKeys::Kept => "kept as the library's key object",
        })
    }
}

/// The latency run record kind.
#[derive(Debug, Clone, Copy)]
pub struct Latency;

kind_fields!(LatencyConfig, LatencyState);

impl Kind for Latency {
    const FACTS: Facts = Facts {
        file_kind: "kembench-run",
        store_kind: "run",
        schema_version: SCHEMA_VERSION,
        noun: "a run (`kembench run --json`)",
        singular: "latency run",
        plural: "latency runs",
        command: "run",
        resumable: true,
        compare: Compares {
            compares: true,
            no_gate: None,
            flame_graphs: false,
        },
    };
    type State = LatencyState;
    type Config = LatencyConfig;
    type Measured = LatencyMeasured;
    type Result = BenchResult;

    /// `default`, `all`, or the filters, e.g. `--alg ML-KEM-* --impl liboqs`.
    fn selection(c: &LatencyConfig) -> String {
        if c.selection != "filtered" {
            return c.selection.clone();
        }
        super::describe_filter(
            &c.algorithms,
            &c.implementations,
            c.family.as_deref(),
            c.level,
        )
    }

    fn tables(record: &LatencyRecord, items: &[BenchResult]) -> crate::table::Tables {
        tables::tables(record, items)
    }

    const CSV_HEADER: &'static [&'static str] = csv::HEADER;

    fn csv_rows(record: &LatencyRecord, result: &BenchResult) -> Vec<Vec<String>> {
        csv::rows(record, result)
    }

    /// Per operation: the median's latency with its 95% bootstrap interval, and callgrind's
    /// exact instructions where `run --instructions` counted them.
    fn metrics(r: &BenchResult) -> Vec<Metric> {
        let mut out = Vec::new();
        if !r.measured() {
            return out;
        }
        for o in &r.operations {
            let op = o.operation.as_str();
            out.push(
                Metric::new(&r.algorithm, &r.implementation, op, Measure::Latency, o.median_ns)
                    .within(o.median_ci95_low_ns, o.median_ci95_high_ns),
            );
            if let Some(n) = o.callgrind_instructions {
                out.push(Metric::new(
                    &r.algorithm,
                    &r.implementation,
                    op,
                    Measure::Instructions,
                    n as f64,
                ));
            }
        }
        out
    }

    fn check_result(r: &BenchResult) -> Result<(), String> {
        for o in &r.operations {
            let op = o.operation.as_str();
            if o.samples == 0 || o.raw_samples_ns.is_empty() {
                return Err(format!("{op} has no sample"));
            }
            super::check_times(
                op,
                [
                    o.median_ns,
                    o.mean_ns,
                    o.min_ns,
                    o.max_ns,
                    o.p25_ns,
                    o.p75_ns,
                ]
                .iter()
                .chain(&o.raw_samples_ns)
                .chain(&o.round_medians_ns),
            )?;
        }
        Ok(())
    }

    fn compare<'a>(
        old: &'a LatencyRecord,
        new: &'a LatencyRecord,
        asked: Asked<'a>,
    ) -> Option<Box<dyn Comparison + 'a>> {
        Some(Box::new(compare::Compared::new(old, new, asked)))
    }
}

/// A whole run: what `--json` writes.
pub type LatencyRecord = Record<Latency>;

impl Benchmark for BenchResult {
    fn measured(&self) -> bool {
        !self.operations.is_empty()
    }

    fn algorithm(&self) -> &str {
        &self.algorithm
    }

    fn implementation(&self) -> &str {
        &self.implementation
    }

    fn status(&self) -> ResultStatus {
        Failure::status_of(
            self.failure.as_ref(),
            &self.correctness,
            self.error.is_some(),
        )
    }

    fn operations(&self) -> &[OperationResult] {
        &self.operations
    }

    /// Anything but a benchmark Ctrl-C stopped, which `run --resume` measures again.
    fn is_final(&self) -> bool {
        self.failure
            .as_ref()
            .is_none_or(|f| f.kind != FailureKind::Interrupted)
    }
}
