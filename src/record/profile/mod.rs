//! The record of `kembench profile`: per implementation and operation, exact instruction
//! counts under callgrind over several seeds, and for one seed where those instructions went
//! (functions, hot-path tree, source lines, primitive shares, simulated cache, folded stacks).

pub mod arches;
mod console;
mod csv;
pub mod tables;
pub mod compare;
pub mod flames;
pub mod gate;
use super::metrics::{Measure, Metric};
use super::Failure;
use super::compare::{Asked, Comparison, Compares};
use super::{Benchmark, Facts, Kind, Record, ResultStatus};
use crate::callgrind::OpAnalysis;
use crate::measure::counters::Counters;
use crate::kem::Op;
use crate::units::thousands;
use crate::verify::Outcome;
use serde::{Deserialize, Serialize};


/// The names of the wrappers `profile --sha3-probe` installs around liboqs's SHA-3 callbacks
/// start with this.
pub const SHA3_PROBE_PREFIX: &str = "kembench_sha3_probe";

/// The layout version of profile files.
pub const SCHEMA_VERSION: u32 = 1;

/// A profile record.
pub type ProfileRecord = Record<Profile>;

/// How `profile` was run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfileConfig {
    /// What was selected: `default`, `all`, or the filters (`--alg ML-KEM-768`).
    #[serde(default)]
    pub selection: String,
    /// Seeds profiled per implementation (seeds 0 to N-1).
    pub seeds: usize,
    /// Operations asked for (import steps only where the library has them).
    pub operations: Vec<Op>,
    /// `algorithm@implementation` of every planned benchmark, in order.
    pub planned: Vec<String>,
    /// The cache geometry callgrind simulated (not this machine's caches).
    pub cache_geometry: String,
    /// Frames of call chain callgrind kept per function (`--separate-callers`).
    pub separate_callers: usize,
    /// Depth of the hot-path tree.
    pub tree_depth: usize,
    /// Paths under this fraction of an operation are pruned from the tree.
    pub tree_threshold: f64,
    /// Whether liboqs's SHA-3 calls went through kembench's counting wrappers.
    pub sha3_probe: bool,
    /// The CPUs foreign builds' cycles were estimated for (`--cpus`), each with the LLVM
    /// scheduling model that priced it (empty: none asked, and in records from before this).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpus: Vec<CpuModel>,
    /// The LLVM whose models priced them (`Debian LLVM version 19.1.7`; empty without
    /// `--cpus`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub llvm: String,
}

/// A CPU cycles were estimated for, and the model that priced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuModel {
    /// The name as asked (`cortex-a76`).
    pub cpu: String,
    /// Its architecture (`aarch64`).
    pub arch: String,
    /// The CPU whose LLVM scheduling model prices it (`cortex-a57` for `cortex-a76`), or the
    /// name itself; a model kembench does not know the owner of is named by its resources
    /// (`model with resources Foo*`).
    pub model: String,
}

impl CpuModel {
    /// Whether LLVM prices this name with another CPU's model.
    pub fn substituted(&self) -> bool {
        self.model != self.cpu
    }

    /// `cortex-a76 (cortex-a57's model)`, or the name alone.
    pub fn describe(&self) -> String {
        if self.substituted() {
            format!("{} ({}'s model)", self.cpu, self.model)
        } else {
            self.cpu.clone()
        }
    }
}

/// Estimated cycles of one call on one CPU: every executed block priced by the CPU's LLVM
/// scheduling model (steady-state cycles per execution), times its executions. A model
/// estimate: no caches, branch mispredictions, memory latency or clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CycleEstimate {
    /// The CPU as asked (`cortex-a76`).
    pub cpu: String,
    /// The model that priced it (`cortex-a57`).
    pub model: String,
    /// Estimated cycles of the call (rounded).
    pub cycles: u64,
    /// Executed instructions the model priced.
    pub priced_instructions: u64,
    /// Executed instructions it could not (not decoded by LLVM's disassembler, or without
    /// scheduling information): left out of `cycles`.
    pub unpriced_instructions: u64,
    /// The blocks that carry most of the estimate, most first.
    pub blocks: Vec<BlockCost>,
}

impl CycleEstimate {
    /// The share of executed instructions the model priced.
    pub fn priced_share(&self) -> f64 {
        let all = self.priced_instructions + self.unpriced_instructions;
        if all == 0 {
            0.0
        } else {
            self.priced_instructions as f64 / all as f64
        }
    }
}

/// One executed block's part of an estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockCost {
    /// Its first instruction's address.
    pub address: u64,
    /// The function it is in.
    pub function: String,
    /// Its instructions.
    pub instructions: u64,
    /// Its executions in the call.
    pub executions: u64,
    /// The model's steady-state cycles per execution.
    pub cycles_per_execution: f64,
    /// Executions × cycles per execution (rounded).
    pub cycles: u64,
}

/// What `profile` found about the machine and valgrind before profiling.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfileMeasured {
    /// `valgrind --version`.
    pub valgrind: String,
    /// CPU features this process sees natively (CPUID).
    pub cpu_features_native: Vec<String>,
    /// CPU features a process sees under valgrind (libraries dispatch on these).
    pub cpu_features_under_valgrind: Vec<String>,
    /// Why the real hardware counters are unavailable here (`None`: they are available and
    /// each operation's `native` figures come from them).
    pub pmu_unavailable: Option<String>,
}

impl ProfileMeasured {
    /// Features present natively but hidden under valgrind (AVX-512, typically).
    pub fn features_lost_under_valgrind(&self) -> Vec<String> {
        self.cpu_features_native
            .iter()
            .filter(|f| !self.cpu_features_under_valgrind.contains(f))
            .cloned()
            .collect()
    }
}

/// Whether and how an implementation's random draws were fixed by the seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RandomnessNote {
    /// True when every draw of the profiled calls comes from the seed.
    pub fixed: bool,
    /// How, or why not.
    pub how: String,
}

/// Instruction counts of one operation across seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// One count per seed, in seed order.
    pub per_seed: Vec<u64>,
    /// The fewest.
    pub min: u64,
    /// The median (the lower middle value for an even count).
    pub median: u64,
    /// The most.
    pub max: u64,
}

impl Spread {
    /// The spread of `per_seed` (which must not be empty).
    pub fn of(per_seed: Vec<u64>) -> Spread {
        let mut sorted = per_seed.clone();
        sorted.sort_unstable();
        Spread {
            min: sorted[0],
            median: sorted[(sorted.len() - 1) / 2],
            max: sorted[sorted.len() - 1],
            per_seed,
        }
    }

    /// Whether the count differed between seeds.
    pub fn varies(&self) -> bool {
        self.min != self.max
    }

    /// (max − min) / median.
    pub fn relative_range(&self) -> f64 {
        if self.median == 0 {
            0.0
        } else {
            (self.max - self.min) as f64 / self.median as f64
        }
    }

    /// [`describe`](Self::describe) in a few characters: `1 seed`, `same ×3`, `spread 3.9%`.
    pub fn spread(&self) -> String {
        if self.per_seed.len() >= 2 && self.varies() {
            format!("spread {:.1}%", 100.0 * self.relative_range())
        } else {
            self.describe()
        }
    }

    /// How the count varied across seeds, for tables: `1 seed`, `same ×3` when it did not
    /// vary, else `min – max (x%)`.
    pub fn describe(&self) -> String {
        if self.per_seed.len() < 2 {
            "1 seed".into()
        } else if !self.varies() {
            format!("same ×{}", self.per_seed.len())
        } else {
            format!(
                "{} – {} ({:.1}%)",
                thousands(self.min),
                thousands(self.max),
                100.0 * self.relative_range()
            )
        }
    }
}

/// One operation's profile.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpProfile {
    /// The operation.
    pub operation: Op,
    /// What one profiled call was (the entry point used).
    pub call: String,
    /// Instructions of one call, per seed.
    pub instructions: Spread,
    /// Where the instructions of seed 0's call went.
    pub analysis: OpAnalysis,
    /// Real hardware counters per call of the same operation run natively, where the
    /// machine has them.
    pub native: Counters,
    /// For a foreign build counted under emulation: what the emulator's plugin saw besides
    /// the instructions (seed 0's call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulated: Option<Emulated>,
    /// Estimated cycles of seed 0's call per CPU of `--cpus` (empty: none asked), from its
    /// exact block counts: the plugin's for a foreign build, callgrind's per-instruction
    /// counts for a native one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub estimates: Vec<CycleEstimate>,
}

/// What QEMU's counting plugin saw of one call of a foreign build, besides its instructions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Emulated {
    /// The architecture (`s390x`).
    pub arch: String,
    /// The emulator and its version (`qemu-s390x version 7.2.22 ...`).
    pub emulator: String,
    /// Memory loads QEMU reports for the call (its accesses: a 32-byte vector load may be
    /// several; s390x's storage-to-storage instructions report none).
    pub loads: u64,
    /// Memory stores, counted the same way.
    pub stores: u64,
    /// Instructions per class of the mix (`divide`, `multiply`, `branch`, `vector`; classes
    /// overlap), by mnemonic from binutils' disassembly of the program (QEMU's where binutils
    /// has none).
    pub mix: Vec<MixCount>,
    /// Instructions of the empty calibration region, subtracted from the call's.
    pub calibration: u64,
    /// The CPU as the emulator presented it to the program: platform and the vector and
    /// crypto capabilities of its auxiliary vector (empty in records from before this).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cpu: String,
    /// The functions that executed divisions in the call, and how many (most first): where a
    /// division on secret data would leak its timing (KyberSlash).
    #[serde(default)]
    pub divisions: Vec<FunctionCount>,
    /// Every division instruction executed in the call, by address (most executed first): what
    /// `ct`'s latency screen reports for a foreign build (empty in records from before this).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub division_sites: Vec<DivisionSite>,
}

/// One division instruction of a foreign build and its executions in one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DivisionSite {
    /// The function it is in.
    pub function: String,
    /// Its address in the program.
    pub address: u64,
    /// The instruction as disassembled (`dsgr %r2,%r1`, `sdiv w0, w1, w2`).
    pub instruction: String,
    /// `file:line`, where the program has line tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// Executions in the call.
    pub executions: u64,
}

/// Instructions of some kind executed in one function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCount {
    /// The function.
    pub function: String,
    /// How many.
    pub instructions: u64,
}

/// Instructions of one class of the mix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MixCount {
    /// The class (`divide`, `multiply`, `branch`, `vector`).
    pub class: String,
    /// Instructions of that class executed in the call.
    pub instructions: u64,
}

/// One (algorithm, implementation)'s profile.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfileResult {
    /// Algorithm name.
    pub algorithm: String,
    /// Family.
    pub family: String,
    /// Implementation id.
    pub implementation: String,
    /// The provider's version.
    pub version: String,
    /// The correctness gate's quick check (profiled only when it passed).
    pub correctness: Outcome,
    /// Whether the seed fixed the implementation's random draws.
    pub randomness: RandomnessNote,
    /// One entry per profiled operation.
    pub operations: Vec<OpProfile>,
    /// What went wrong, when something did.
    pub error: Option<String>,
    /// The worker's abnormal end under valgrind (crash, timeout, Ctrl-C).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
}

impl ProfileResult {
    /// Its filter tags in the report's tables (family, level, implementation).
    pub fn tags(&self) -> Option<crate::table::Tags> {
        Some(crate::table::Tags::catalogued(
            &self.family,
            crate::kem::catalog::level_of(&self.algorithm),
            &self.implementation,
        ))
    }

    /// The profile of `op`, if it was profiled.
    pub fn op(&self, op: Op) -> Option<&OpProfile> {
        self.operations.iter().find(|o| o.operation == op)
    }

    /// What went wrong, one sentence each (without the label): the worker's abnormal end,
    /// the error, a failed correctness check.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(f) = &self.failure {
            out.push(f.detail.clone());
        }
        if let Some(e) = &self.error {
            out.push(e.clone());
        }
        if let Outcome::Fail(why) = &self.correctness {
            out.push(format!("failed the correctness check, not profiled: {why}"));
        }
        out
    }

    /// The flame graph (SVG, by inferno) of one of its operations, titled with the
    /// implementation and the operation: what `profile --flamegraphs` writes and the report
    /// shows.
    pub fn flamegraph(&self, o: &OpProfile) -> anyhow::Result<String> {
        crate::callgrind::flamegraph(
            &o.analysis.folded,
            &format!("{} {}", self.label(), o.operation.as_str()),
            &format!(
                "{} instructions under callgrind (seed 0)",
                thousands(o.analysis.instructions)
            ),
        )
    }
}

impl Benchmark for ProfileResult {
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

    fn is_final(&self) -> bool {
        self.status() != ResultStatus::Interrupted
    }
}

impl ProfileRecord {
    /// The profiled implementations whose random draws the seed did not fix, grouped by the
    /// reason: (how, `algorithm@implementation` labels), in the order of the results.
    pub fn unfixed_randomness(&self) -> Vec<(&str, Vec<String>)> {
        let mut out: Vec<(&str, Vec<String>)> = Vec::new();
        for r in self
            .results
            .iter()
            .filter(|r| !r.operations.is_empty() && !r.randomness.fixed)
        {
            match out.iter_mut().find(|(how, _)| *how == r.randomness.how) {
                Some((_, labels)) => labels.push(r.label()),
                None => out.push((&r.randomness.how, vec![r.label()])),
            }
        }
        out
    }
}

/// Whether a profile run was stopped before it finished, and when it was resumed (nothing
/// otherwise, as in files from before these existed).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ProfileState {
    /// Stopped by Ctrl-C or SIGTERM.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// When `profile --resume` continued this run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumed_at: Vec<String>,
}

/// The marker type of profile records.
#[derive(Debug, Clone, Copy)]
pub struct Profile;

kind_fields!(ProfileConfig, ProfileState);

impl Kind for Profile {
    const FACTS: Facts = Facts {
        file_kind: "kembench-profile",
        store_kind: "profile",
        schema_version: SCHEMA_VERSION,
        noun: "a profile (`kembench profile --json`)",
        singular: "profile",
        plural: "profiles",
        command: "profile",
        resumable: false,
        compare: Compares {
            compares: true,
            no_gate: None,
            flame_graphs: true,
        },
    };
    type State = ProfileState;
    type Config = ProfileConfig;
    type Measured = ProfileMeasured;
    type Result = ProfileResult;

    fn selection(config: &ProfileConfig) -> String {
        if config.selection.is_empty() {
            config.planned.join(",")
        } else {
            config.selection.clone()
        }
    }

    fn tables(record: &ProfileRecord, items: &[ProfileResult]) -> crate::table::Tables {
        tables::tables(record, items)
    }

    const CSV_HEADER: &'static [&'static str] = csv::HEADER;

    fn csv_rows(record: &ProfileRecord, result: &ProfileResult) -> Vec<Vec<String>> {
        csv::rows(record, result)
    }

    /// Per operation: exact instructions (the median over seeds; the fewest and most as
    /// bounds when there are several seeds).
    fn metrics(r: &ProfileResult) -> Vec<Metric> {
        let counts = r.operations.iter().map(|o| {
            let i = &o.instructions;
            let m = Metric::new(
                &r.algorithm,
                &r.implementation,
                o.operation.as_str(),
                Measure::Instructions,
                i.median as f64,
            );
            if i.per_seed.len() > 1 {
                m.within(i.min as f64, i.max as f64)
            } else {
                m
            }
        });
        // Estimated cycles per CPU: `decaps@neoverse-v2`.
        let estimates = r.operations.iter().flat_map(|o| {
            o.estimates.iter().map(|e| {
                Metric::new(
                    &r.algorithm,
                    &r.implementation,
                    &format!("{}@{}", o.operation.as_str(), e.cpu),
                    Measure::EstimatedCycles,
                    e.cycles as f64,
                )
            })
        });
        counts.chain(estimates).collect()
    }

    fn counted_under(m: &ProfileMeasured) -> Option<String> {
        Some(format!(
            "{} (callgrind); CPU features under it: {}",
            m.valgrind,
            m.cpu_features_under_valgrind.join(" ")
        ))
    }

    fn check_result(r: &ProfileResult) -> Result<(), String> {
        for o in &r.operations {
            let op = o.operation.as_str();
            if o.instructions.per_seed.is_empty() {
                return Err(format!("{op} has no instruction count"));
            }
            let shares: u64 = o.analysis.shares.iter().map(|s| s.instructions).sum();
            if shares != o.analysis.instructions {
                return Err(format!(
                    "{op}: the primitive shares add up to {shares} instructions, not {}",
                    o.analysis.instructions
                ));
            }
        }
        Ok(())
    }

    fn compare<'a>(
        old: &'a ProfileRecord,
        new: &'a ProfileRecord,
        asked: Asked<'a>,
    ) -> Option<Box<dyn Comparison + 'a>> {
        Some(Box::new(compare::Compared::new(old, new, asked)))
    }
}

/// The hottest function of `a` by its own instructions and its share, as a table cell reads it
/// (`` `name` 12.3% ``); empty when no function was counted.
fn hottest_cell(a: &crate::callgrind::OpAnalysis) -> String {
    a.hottest_self(1)
        .first()
        .map_or(String::new(), |(f, share)| {
            format!("{} {:.1}%", crate::table::code(&f.name), 100.0 * share)
        })
}

