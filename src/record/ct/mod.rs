//! The record of `kembench ct`: per implementation (or build), the three constant-time screens
//! per secret-handling operation, what each found, and which findings a list of exceptions
//! explains.
//!
//! - **secret flow** (memcheck): every random byte and the secret key marked secret, public
//!   values declassified; every branch, memory index and system-call argument that depends on
//!   a secret;
//! - **latency** (callgrind's instruction counts joined with the binary's disassembly, or the
//!   QEMU plugin's for a foreign build): every instruction whose latency depends on its
//!   operands (division above all) executed during the operation;
//! - **timing** (dudect): two classes of inputs timed in random order, Welch's t on the raw and
//!   cropped timings and a second-order test: "no leak detected at N measurements", never
//!   "constant time".

pub mod compare;
pub mod reason;
mod csv;
pub mod tables;

use super::compare::{Asked, Comparison, Compares};
use super::metrics::{Measure, Metric};
use super::{Benchmark, Facts, Kind, Record, ResultStatus};
use crate::kem::Op;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the JSON layout.
pub const SCHEMA_VERSION: u32 = 1;

/// One of the three screens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Screen {
    /// Secret-dependent branches, memory indexes and system-call arguments, under memcheck.
    SecretFlow,
    /// Instructions whose latency depends on their operands (division), from instruction
    /// counts and the disassembly.
    Latency,
    /// dudect's fixed-against-random timing test.
    Timing,
}

impl Screen {
    /// Every screen, in report order.
    pub const ALL: [Screen; 3] = [Screen::SecretFlow, Screen::Latency, Screen::Timing];

    /// The name used on the command line, in files and in the exception lists.
    pub fn as_str(self) -> &'static str {
        match self {
            Screen::SecretFlow => "secret-flow",
            Screen::Latency => "latency",
            Screen::Timing => "timing",
        }
    }

    /// The screen named `s`.
    pub fn parse(s: &str) -> Option<Screen> {
        Screen::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// What a finding is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum FindingKind {
    /// A conditional branch (or conditional move memcheck treats as one) on secret data.
    Branch,
    /// A memory address computed from secret data.
    Index,
    /// A system-call argument (or the memory it points to) that holds secret data.
    Syscall,
    /// An instruction whose latency depends on its operands (`div`, `idiv`, `divsd`,
    /// `sqrtsd` ...), named by its mnemonic.
    VariableLatency {
        /// The mnemonic, lower case (`div`).
        mnemonic: String,
    },
    /// A measurable difference in time between the two input classes.
    Timing,
}

impl FindingKind {
    /// A short name for tables (`branch`, `index`, `syscall`, `div`, `timing`).
    pub fn short(&self) -> &str {
        match self {
            FindingKind::Branch => "branch",
            FindingKind::Index => "index",
            FindingKind::Syscall => "syscall",
            FindingKind::VariableLatency { mnemonic } => mnemonic,
            FindingKind::Timing => "timing",
        }
    }
}

/// Whether the operands of a variable-latency instruction can depend on secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SecretOperands {
    /// Seen to hold secret (undefined, under memcheck's marking) bits.
    Yes,
    /// Seen to hold only public bits on every execution checked.
    No,
    /// Not determined: the screen says why in the finding's detail.
    Unknown,
}

/// Which list explains a finding, as liboqs splits its suppressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExceptionList {
    /// Benign by analysis (e.g. rejection sampling of public values): the build passes.
    Benign,
    /// A known issue of the implementation, reported upstream or to be: listed, not excused.
    Issue,
}

impl ExceptionList {
    /// `benign` or `issue`.
    pub fn as_str(self) -> &'static str {
        match self {
            ExceptionList::Benign => "benign",
            ExceptionList::Issue => "issue",
        }
    }
}

/// The entry of the exception lists that a finding matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explained {
    /// The list.
    pub list: ExceptionList,
    /// The entry's id in the lists (unique, e.g. `mlkem-rej-uniform`).
    pub id: String,
    /// Why the finding is benign, or what the issue is.
    pub reason: String,
    /// For a known issue the user accepted by its id: what accepted it (`--accept`, or the
    /// `FILE:LINE` of an `[[accept]]` entry). An issue nobody accepted fails `ct` (exit 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<String>,
}

/// One thing a screen found in one operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// What it is.
    #[serde(flatten)]
    pub kind: FindingKind,
    /// The innermost function of the implementation's own code where it happens (inlined
    /// frames resolved where the debug information has them); empty for a timing finding.
    pub function: String,
    /// The call chain, innermost first, as far as the screen sees it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stack: Vec<String>,
    /// The object (shared library or executable) it is in, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `file:line`, where the object has line tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// How many times it happened in one call of the operation.
    pub count_per_call: u64,
    /// For a variable-latency instruction: whether its operands can depend on secrets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_operands: Option<SecretOperands>,
    /// The screen's own words (memcheck's message, the instruction as disassembled, the t
    /// statistics).
    pub detail: String,
    /// The exception-list entry that explains it; `None` for an unexplained finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explained: Option<Explained>,
}

impl Finding {
    /// A finding no list explains: it fails the screen.
    pub fn unexplained(&self) -> bool {
        self.explained.is_none()
    }

    /// A finding listed as a known issue that nobody accepted by its id: it fails `ct` too
    /// (a known leak is still a leak).
    pub fn unaccepted_issue(&self) -> bool {
        self.explained
            .as_ref()
            .is_some_and(|e| e.list == ExceptionList::Issue && e.accepted.is_none())
    }
}

/// dudect's statistics for one operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimingTest {
    /// The two classes, in words ("a fixed valid ciphertext against random valid ones").
    pub classes: String,
    /// Measurements taken, both classes together.
    pub measurements: u64,
    /// The largest |t| over the raw and the cropped tests, first order.
    pub max_t: f64,
    /// Which test gave it (`raw`, `cropped at the 12th percentile`).
    pub max_t_test: String,
    /// The second-order test's |t| (centred products).
    pub second_order_t: f64,
    /// |t| of the same test run on two halves of one class (an A/A test): the noise floor of
    /// this machine for this operation.
    pub noise_floor_t: f64,
    /// Whether the time budget stopped it before it was asked to stop.
    pub stopped_by_budget: bool,
    /// The timer used (`TSC`, `clock_gettime(CLOCK_MONOTONIC)`).
    pub timer: String,
    /// The CPU it was pinned to, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned_cpu: Option<usize>,
}

/// dudect's thresholds: |t| above this "probably leaks".
pub const T_PROBABLY: f64 = 10.0;
/// |t| above this "definitely leaks".
pub const T_DEFINITELY: f64 = 500.0;
/// No verdict before this many measurements.
pub const MIN_MEASUREMENTS: u64 = 10_000;

impl TimingTest {
    /// The largest of the first- and second-order |t|.
    pub fn worst_t(&self) -> f64 {
        self.max_t.abs().max(self.second_order_t.abs())
    }

    /// dudect's verdict in words: never "constant time".
    pub fn verdict(&self) -> String {
        let t = self.worst_t();
        if self.measurements < MIN_MEASUREMENTS {
            format!(
                "no verdict: stopped at {} measurements (dudect gives none before {})",
                self.measurements, MIN_MEASUREMENTS
            )
        } else if t > T_DEFINITELY {
            format!("definitely leaks (|t| = {t:.1} > {T_DEFINITELY})")
        } else if t > T_PROBABLY {
            format!("probably leaks (|t| = {t:.1} > {T_PROBABLY})")
        } else {
            format!("no leak detected at {} measurements", self.measurements)
        }
    }

    /// Whether the test says the operation leaks (|t| over [`T_PROBABLY`] with enough
    /// measurements).
    pub fn leaks(&self) -> bool {
        self.measurements >= MIN_MEASUREMENTS && self.worst_t() > T_PROBABLY
    }
}

/// Whether a screen ran on an operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "state", content = "why")]
pub enum Ran {
    /// It ran to the end.
    Screened,
    /// It could not run for this implementation or operation, and why (randomness that cannot
    /// be marked, no valgrind, a foreign build with no plugin ...). Nothing is reported as
    /// passing that was not screened.
    NotScreened(String),
    /// It started and failed, and how.
    Failed(String),
}

/// One screen on one operation of one implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScreenResult {
    /// The screen.
    pub screen: Screen,
    /// The operation.
    pub operation: Op,
    /// Whether it ran.
    pub ran: Ran,
    /// What was marked secret and declassified, what was counted, or the classes: how to
    /// read the result.
    pub how: String,
    /// What it found (a timing finding for a timing test that says it leaks).
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// dudect's figures (the timing screen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<TimingTest>,
}

impl ScreenResult {
    /// A screen that did not run on `operation`, and why.
    pub fn not_screened(screen: Screen, operation: Op, why: impl Into<String>) -> ScreenResult {
        ScreenResult {
            screen,
            operation,
            ran: Ran::NotScreened(why.into()),
            how: String::new(),
            findings: Vec::new(),
            timing: None,
        }
    }

    /// Findings no exception explains.
    pub fn unexplained(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.unexplained())
    }
}

/// The verdict on one implementation (or one build), over every screen and operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// A finding no exception explains: the build is not advised until it is explained.
    Unexplained,
    /// Every finding is explained, and at least one is a known issue of the implementation.
    KnownIssue,
    /// A screen could not run or failed: nothing to say about what it would have found.
    Incomplete,
    /// Every finding is listed as benign, every screen ran.
    Benign,
    /// Every screen ran and found nothing.
    Clean,
}

impl Verdict {
    /// The word used in tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Unexplained => "unexplained findings",
            Verdict::KnownIssue => "known issue",
            Verdict::Incomplete => "incomplete",
            Verdict::Benign => "benign findings only",
            Verdict::Clean => "no finding",
        }
    }

    /// Whether a build with this verdict may be advised as the fastest: no unexplained
    /// finding, and no finding listed as a known issue of the implementation (a known leak is
    /// explained, not excused: KyberSlash's builds are never the ★).
    pub fn advisable(self) -> bool {
        !matches!(self, Verdict::Unexplained | Verdict::KnownIssue)
    }
}

/// The verdict over a set of screen results.
pub fn verdict<'a>(screens: impl IntoIterator<Item = &'a ScreenResult>) -> Verdict {
    let (mut unexplained, mut issue, mut incomplete, mut benign) = (false, false, false, false);
    for s in screens {
        if s.ran != Ran::Screened {
            incomplete = true;
        }
        for f in &s.findings {
            match &f.explained {
                None => unexplained = true,
                Some(e) if e.list == ExceptionList::Issue => issue = true,
                Some(_) => benign = true,
            }
        }
    }
    if unexplained {
        Verdict::Unexplained
    } else if issue {
        Verdict::KnownIssue
    } else if incomplete {
        Verdict::Incomplete
    } else if benign {
        Verdict::Benign
    } else {
        Verdict::Clean
    }
}

/// Everything screened of one implementation (or one build).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CtResult {
    /// Algorithm.
    pub algorithm: String,
    /// Family.
    pub family: String,
    /// Implementation id (a build's id for a build).
    pub implementation: String,
    /// Provider version (a build's source version).
    pub version: String,
    /// For a build: what it is in one line (source, compiler, flags: `pqclean/clean, gcc-12,
    /// -O2`); its full facts are the record's `environment.builds`. `None` for a library
    /// linked into kembench.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// One entry per (screen, operation) asked for, those that did not run included (the
    /// engine records every one: a pair missing here counts as not screened).
    pub screens: Vec<ScreenResult>,
    /// An error that stopped the screening of this implementation, if any.
    pub error: Option<String>,
    /// Ctrl-C or SIGTERM stopped it part-way (what was screened is kept).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

impl CtResult {
    /// The result of `screen` on `operation`, if it was recorded.
    pub fn screen(&self, screen: Screen, operation: Op) -> Option<&ScreenResult> {
        self.screens
            .iter()
            .find(|s| s.screen == screen && s.operation == operation)
    }

    /// The verdict over every screen and operation. A result that an error or Ctrl-C stopped,
    /// or that has no screen at all, is at best incomplete: it never reads as clean.
    pub fn verdict(&self) -> Verdict {
        let v = verdict(&self.screens);
        let cut_short = self.error.is_some() || self.interrupted || self.screens.is_empty();
        if cut_short && v > Verdict::Incomplete {
            Verdict::Incomplete
        } else {
            v
        }
    }

    /// The verdict over the screens of `operation` alone.
    pub fn verdict_of(&self, operation: Op) -> Verdict {
        let of: Vec<&ScreenResult> = self
            .screens
            .iter()
            .filter(|s| s.operation == operation)
            .collect();
        if of.is_empty() {
            Verdict::Incomplete
        } else {
            verdict(of)
        }
    }

    /// Whether `ct` fails on this result: nothing screened, a finding no exception explains,
    /// or a known issue nobody accepted by its id.
    pub fn fails(&self) -> bool {
        !self.measured()
            || self.verdict() == Verdict::Unexplained
            || self
                .screens
                .iter()
                .any(|s| s.findings.iter().any(Finding::unaccepted_issue))
    }

    /// Every finding no exception explains.
    pub fn unexplained(&self) -> impl Iterator<Item = (&ScreenResult, &Finding)> {
        self.screens
            .iter()
            .flat_map(|s| s.unexplained().map(move |f| (s, f)))
    }

    /// The operations screened or asked for, in the order of [`Op::ALL`].
    pub fn operations(&self) -> Vec<Op> {
        Op::ALL
            .iter()
            .copied()
            .filter(|o| self.screens.iter().any(|s| s.operation == *o))
            .collect()
    }
}

/// Configuration of a ct run: what a reader needs to run it again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CtConfig {
    /// Every `algorithm@implementation` the run set out to screen.
    pub planned: Vec<String>,
    /// The operations screened.
    pub operations: Vec<Op>,
    /// The screens run.
    pub screens: Vec<Screen>,
    /// The timing screen's budget per operation, seconds.
    pub timing_budget_s: f64,
    /// The seed of every marked random draw.
    pub seed: u64,
    /// The exception files used, each with its SHA-256 (`exceptions/ct.toml (SHA-256 …)`).
    #[serde(default)]
    pub exceptions: Vec<String>,
    /// The known issues accepted on the command line (`--accept`), by id; those accepted in
    /// an exception list are in that list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepted: Vec<String>,
    /// How long one worker under valgrind could run before it was killed, seconds.
    #[serde(default)]
    pub worker_timeout_s: f64,
    /// Whether the mock implementations were included.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_mock: bool,
}

/// What a ct run records before `kind` when Ctrl-C or SIGTERM stopped it (nothing otherwise).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CtState {
    /// Stopped before every implementation was screened.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// What a ct run records of the machine before its results: valgrind's version.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CtMeasured {
    /// `valgrind --version` (`valgrind-3.19.0`); `None` when valgrind was not found (the
    /// secret-flow and latency screens then say so on every operation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valgrind: Option<String>,
}

/// The ct record kind.
#[derive(Debug, Clone, Copy)]
pub struct Ct;

/// A whole ct run: what `ct --json` writes.
pub type CtRecord = Record<Ct>;

kind_fields!(CtConfig, CtState);

impl Kind for Ct {
    const FACTS: Facts = Facts {
        file_kind: "kembench-ct",
        store_kind: "ct",
        schema_version: SCHEMA_VERSION,
        noun: "a ct run (`kembench ct --json`)",
        singular: "ct run",
        plural: "ct runs",
        command: "ct",
        resumable: true,
        compare: Compares {
            compares: true,
            no_gate: None,
            flame_graphs: false,
        },
    };
    type State = CtState;
    type Config = CtConfig;
    type Measured = CtMeasured;
    type Result = CtResult;

    fn tables(record: &CtRecord, items: &[CtResult]) -> crate::table::Tables {
        tables::tables(record, items)
    }

    const CSV_HEADER: &'static [&'static str] = csv::HEADER;

    fn csv_rows(record: &CtRecord, result: &CtResult) -> Vec<Vec<String>> {
        csv::rows(record, result)
    }

    /// Per operation screened (`decaps`): the number of findings no exception explains, over
    /// every screen that ran on it (exact: a dashboard's regression is a new one).
    fn metrics(r: &CtResult) -> Vec<Metric> {
        r.operations()
            .into_iter()
            .filter(|o| {
                r.screens
                    .iter()
                    .any(|s| s.operation == *o && s.ran == Ran::Screened)
            })
            .map(|o| {
                let n = r
                    .screens
                    .iter()
                    .filter(|s| s.operation == o)
                    .map(|s| s.unexplained().count())
                    .sum::<usize>();
                Metric::new(
                    &r.algorithm,
                    &r.implementation,
                    o.as_str(),
                    Measure::Findings,
                    n as f64,
                )
            })
            .collect()
    }

    fn counted_under(measured: &CtMeasured) -> Option<String> {
        measured.valgrind.clone()
    }

    fn check_result(r: &CtResult) -> Result<(), String> {
        let mut seen = std::collections::HashSet::new();
        for s in &r.screens {
            let what = format!("{} on {}", s.screen.as_str(), s.operation.as_str());
            if !seen.insert((s.screen, s.operation)) {
                return Err(format!("{what} appears twice"));
            }
            if s.ran != Ran::Screened && !s.findings.is_empty() {
                return Err(format!("{what} did not run but has findings"));
            }
            if let Some(t) = &s.timing {
                if s.screen != Screen::Timing {
                    return Err(format!("{what} has dudect's figures"));
                }
                for (name, v) in [
                    ("max |t|", t.max_t),
                    ("second-order |t|", t.second_order_t),
                    ("noise floor |t|", t.noise_floor_t),
                ] {
                    if !v.is_finite() {
                        return Err(format!("{what}: {name} is {v}"));
                    }
                }
            } else if s.screen == Screen::Timing && s.ran == Ran::Screened {
                return Err(format!("{what} ran but has no figures"));
            }
            for f in &s.findings {
                if f.count_per_call == 0 {
                    return Err(format!(
                        "{what}: the {} finding in {:?} happened 0 times per call",
                        f.kind.short(),
                        f.function
                    ));
                }
            }
        }
        Ok(())
    }

    fn compare<'a>(
        old: &'a CtRecord,
        new: &'a CtRecord,
        asked: Asked<'a>,
    ) -> Option<Box<dyn Comparison + 'a>> {
        Some(Box::new(compare::Compared::new(old, new, asked)))
    }
}

impl Benchmark for CtResult {
    fn algorithm(&self) -> &str {
        &self.algorithm
    }

    fn implementation(&self) -> &str {
        &self.implementation
    }

    fn status(&self) -> ResultStatus {
        if self.interrupted {
            ResultStatus::Interrupted
        } else if self.error.is_some() {
            ResultStatus::Error
        } else {
            ResultStatus::Ok
        }
    }

    fn measured(&self) -> bool {
        self.screens.iter().any(|s| s.ran == Ran::Screened)
    }

    fn is_final(&self) -> bool {
        !self.interrupted
    }
}

/// The verdicts of screened builds and implementations, by `algorithm@implementation`: what
/// the speed tables (the builds matrix, the fastest implementations) mark beside each figure
/// and choose the fastest by. Empty: nothing was screened, and the tables say nothing of it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdicts(BTreeMap<String, Verdict>);

impl Verdicts {
    /// No verdict at all: the speed tables as they are without screening.
    pub fn none() -> Verdicts {
        Verdicts::default()
    }

    /// The verdicts of `records`, a later record's (by start time) in place of an earlier
    /// one's for the same implementation.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a CtRecord>) -> Verdicts {
        let mut sorted: Vec<&CtRecord> = records.into_iter().collect();
        sorted.sort_by(|a, b| a.started_at.cmp(&b.started_at));
        let mut v = Verdicts::default();
        for r in sorted {
            for x in &r.results {
                v.insert(&x.label(), x.verdict());
            }
        }
        v
    }

    /// Sets the verdict of `label` (`algorithm@implementation`).
    pub fn insert(&mut self, label: &str, verdict: Verdict) {
        self.0.insert(label.to_string(), verdict);
    }

    /// Whether any implementation was screened.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The verdict of `algorithm@implementation`, if it was screened.
    pub fn get(&self, algorithm: &str, implementation: &str) -> Option<Verdict> {
        self.0.get(&format!("{algorithm}@{implementation}")).copied()
    }

    /// Whether `algorithm@implementation` may be named the fastest: screened with no
    /// unexplained finding and no known issue, or not screened at all.
    pub fn advisable(&self, algorithm: &str, implementation: &str) -> bool {
        self.get(algorithm, implementation)
            .is_none_or(Verdict::advisable)
    }

    /// What the speed tables write beside a figure: `None` when nothing was screened (the
    /// tables as before), else the verdict's words or `not screened`.
    pub fn mark(&self, algorithm: &str, implementation: &str) -> Option<&'static str> {
        if self.is_empty() {
            return None;
        }
        Some(
            self.get(algorithm, implementation)
                .map_or("not screened", Verdict::as_str),
        )
    }
}

#[cfg(test)]
mod tests;
