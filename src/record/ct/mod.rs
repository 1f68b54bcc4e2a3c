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

use crate::measure::sampler::Op;
use serde::{Deserialize, Serialize};

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

    /// Whether a build with this verdict may be advised as the fastest (no unexplained
    /// finding).
    pub fn advisable(self) -> bool {
        !matches!(self, Verdict::Unexplained)
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
