//! Records: what a measuring command produces, and what files, the store, `compare`, the
//! console and the report read. Every kind shares one header (schema version, run id, kind,
//! times, command line, configuration, environment) in [`Record`]; a kind says what it adds
//! through [`Kind`]. One vocabulary for kinds ([`RecordKind`]), run states ([`RunStatus`])
//! and benchmark outcomes ([`ResultStatus`]) lives here.
//!
//! Adding a record kind: a folder here with its marker type, its configuration and result types
//! and `impl Kind` (its [`Facts`] included), and one line in the list of kinds below
//! (`with_kinds!`), which declares its module and its engine's and generates [`RecordKind`],
//! [`AnyRecord`] and their dispatch (`kinds.rs`).

#[macro_use]
mod kinds;
pub mod compare;
mod failure;
mod load;
pub mod metrics;
pub mod scaling;
pub mod sweep;

/// The list of kinds, one line each (`Variant => module::Marker,`), handed to the macro `$then`:
/// here to [`kinds!`](kinds.rs), which declares each kind's record module (`record/module/`) and
/// generates `RecordKind`, `AnyRecord` and their dispatch; in `lib.rs` to `engines!`, which
/// declares each kind's engine, the top-level module of the same name (`src/module/`). Adding a
/// kind is its record folder, its engine folder, its command, one line here and its
/// subcommand's variant.
macro_rules! with_kinds {
    ($then:ident) => {
        $then! {
            /// `kembench run`: latency, heap and stack per operation.
            Latency => latency::Latency,
            /// `kembench throughput`: rates across thread counts.
            Throughput => throughput::Throughput,
            /// `kembench profile`: instruction counts and where they go, under callgrind.
            Profile => profile::Profile,
            /// `kembench tls`: real TLS 1.3 handshakes per group and stack.
            Tls => tls::Tls,
            /// `kembench ct`: constant-time screening (secret flow, latency, timing).
            Ct => ct::Ct,
        }
    };
}

/// A kind's configuration: the benchmarks it planned, in order.
pub trait Plans {
    /// The planned labels.
    fn planned(&self) -> &[String];
    /// The planned labels, to be replaced.
    fn planned_mut(&mut self) -> &mut Vec<String>;
}

/// A kind's state: whether its run was stopped before every benchmark completed.
pub trait Interrupts {
    /// Whether it was stopped.
    fn interrupted(&self) -> bool;
    /// Records whether it was stopped.
    fn set_interrupted(&mut self, interrupted: bool);
}

/// Implements [`Plans`] for a kind's configuration (its `planned` field) and [`Interrupts`] for
/// its state (its `interrupted` field): `kind_fields!(LatencyConfig, LatencyState);` in the kind's
/// module, the one place these fields are named for [`Kind`].
macro_rules! kind_fields {
    ($config:ty, $state:ty) => {
        impl $crate::record::Plans for $config {
            fn planned(&self) -> &[String] {
                &self.planned
            }
            fn planned_mut(&mut self) -> &mut Vec<String> {
                &mut self.planned
            }
        }
        impl $crate::record::Interrupts for $state {
            fn interrupted(&self) -> bool {
                self.interrupted
            }
            fn set_interrupted(&mut self, interrupted: bool) {
                self.interrupted = interrupted;
            }
        }
    };
}

with_kinds!(kinds);

pub use failure::{Failure, FailureKind};
pub use kinds::{Visit, VisitKind, VisitMut, VisitOwned};
pub use load::{load, load_as, parse, parse_as, LoadError};

use crate::env::Environment;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

/// What a kind of record states about itself, once ([`Kind::FACTS`]): every spelling it has.
#[derive(Debug)]
pub struct Facts {
    /// The `kind` field of a result file (`kembench-run`).
    pub file_kind: &'static str,
    /// The `kind` column of the store (`run`).
    pub store_kind: &'static str,
    /// The newest schema version of this kind's files that this build reads.
    pub schema_version: u32,
    /// What a record of this kind is, for messages (`a run (`kembench run --json`)`).
    pub noun: &'static str,
    /// One run of this kind, for counts (`latency run`).
    pub singular: &'static str,
    /// Runs of this kind, plural, for messages about the store (`latency runs`).
    pub plural: &'static str,
    /// The subcommand that makes records of this kind (`run`).
    pub command: &'static str,
    /// Whether `kembench COMMAND --resume RUN` completes an interrupted run of this kind.
    pub resumable: bool,
    /// What `compare` can do with two records of this kind.
    pub compare: compare::Compares,
}

impl RecordKind {
    /// The `kind` field of a result file (`kembench-run`).
    pub fn file_kind(self) -> &'static str {
        self.facts().file_kind
    }

    /// The `kind` column of the store (`run`).
    pub fn store_kind(self) -> &'static str {
        self.facts().store_kind
    }

    /// The newest schema version of this kind's files that this build reads.
    pub fn schema_version(self) -> u32 {
        self.facts().schema_version
    }

    /// What a record of this kind is, for messages.
    pub fn noun(self) -> &'static str {
        self.facts().noun
    }

    /// Runs of this kind, plural, for messages about the store.
    pub fn plural(self) -> &'static str {
        self.facts().plural
    }

    /// `n` runs of this kind: `1 tls run`, `2 profiles`.
    pub fn count(self, n: usize) -> String {
        let f = self.facts();
        format!("{n} {}", if n == 1 { f.singular } else { f.plural })
    }

    /// The kind whose file spelling is `s`.
    pub fn from_file_kind(s: &str) -> Option<RecordKind> {
        Self::ALL.iter().copied().find(|k| k.file_kind() == s)
    }
}

/// A run's state in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// Still measuring, or the process died without saying (killed, power loss).
    Running,
    /// Every planned benchmark has a result.
    Complete,
    /// Stopped by Ctrl-C; `run --resume ID` completes it.
    Interrupted,
}

impl RunStatus {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Complete => "complete",
            RunStatus::Interrupted => "interrupted",
        }
    }

    /// The status whose stored spelling is `s`.
    pub fn parse(s: &str) -> Option<RunStatus> {
        [
            RunStatus::Running,
            RunStatus::Complete,
            RunStatus::Interrupted,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
    }
}

/// How one benchmark ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultStatus {
    /// Measured.
    Ok,
    /// Failed the correctness check and was not timed.
    CheckFailed,
    /// An error stopped the measurement part-way.
    Error,
    /// The worker process died.
    Crashed,
    /// The worker process stopped answering and was killed.
    TimedOut,
    /// Ctrl-C stopped it; `run --resume` measures it again.
    Interrupted,
}

impl ResultStatus {
    /// The stored spelling (`ok`, `check-failed`, `error`, `crashed`, `timed-out`,
    /// `interrupted`).
    pub fn as_str(self) -> &'static str {
        match self {
            ResultStatus::Ok => "ok",
            ResultStatus::CheckFailed => "check-failed",
            ResultStatus::Error => "error",
            ResultStatus::Crashed => "crashed",
            ResultStatus::TimedOut => "timed-out",
            ResultStatus::Interrupted => "interrupted",
        }
    }
}

/// One benchmark of a record: one (algorithm, implementation).
pub trait Benchmark {
    /// Algorithm name.
    fn algorithm(&self) -> &str;
    /// Implementation id.
    fn implementation(&self) -> &str;
    /// How it ended.
    fn status(&self) -> ResultStatus;
    /// Whether it is final (not to be measured again on resume).
    fn is_final(&self) -> bool {
        true
    }
    /// Whether it has any figure at all (a benchmark that failed, or that had nothing to
    /// measure, has none).
    fn measured(&self) -> bool {
        self.status() == ResultStatus::Ok
    }
    /// Its latency statistics per operation (the store keeps a row for each); none for kinds
    /// without them.
    fn operations(&self) -> &[latency::OperationResult] {
        &[]
    }
    /// `algorithm@implementation`.
    fn label(&self) -> String {
        format!("{}@{}", self.algorithm(), self.implementation())
    }
}

/// A serialisable part of a record.
pub trait Part: Debug + Clone + Serialize + DeserializeOwned + 'static {}
impl<T: Debug + Clone + Serialize + DeserializeOwned + 'static> Part for T {}

/// What a record kind adds to the common header.
pub trait Kind: Debug + Clone + Copy + 'static {
    /// What the kind states about itself: its spellings and schema version.
    const FACTS: Facts;
    /// Fields between the run id and `kind` (a latency run's interruption state).
    type State: Part + Default + Interrupts;
    /// The configuration the run was made with.
    type Config: Part + Plans;
    /// Fields between the environment and the results (a latency run's timers).
    type Measured: Part;
    /// One benchmark's result.
    type Result: Part + Benchmark;

    /// The selection as the store's `selection` column shows it: by default the planned
    /// benchmarks.
    fn selection(config: &Self::Config) -> String {
        Self::planned(config).join(",")
    }

    /// Every benchmark label the run set out to measure, in the order it planned them: the
    /// order results are listed in, and what `--resume` completes.
    fn planned(config: &Self::Config) -> &[String] {
        config.planned()
    }

    /// The planned list, to be replaced (a sweep read back as one record plans the whole
    /// sweep).
    fn planned_mut(config: &mut Self::Config) -> &mut Vec<String> {
        config.planned_mut()
    }

    /// Whether the run was stopped before every benchmark completed.
    fn interrupted(state: &Self::State) -> bool {
        state.interrupted()
    }

    /// Records in `state` whether the run was stopped before every benchmark completed.
    fn set_interrupted(state: &mut Self::State, interrupted: bool) {
        state.set_interrupted(interrupted);
    }

    /// Every table of `record` over `items` (its results, or while the Markdown export
    /// streams, one result or the first few), with what is said around them: what the console,
    /// the Markdown export and the report draw.
    fn tables(record: &Record<Self>, items: &[Self::Result]) -> crate::table::Tables;

    /// The header of this kind's CSV files: one row per measurement, units in the column names.
    const CSV_HEADER: &'static [&'static str];

    /// The CSV rows of `result`, one of `record`'s results: one per measurement, each with a
    /// field per column of [`Kind::CSV_HEADER`].
    fn csv_rows(record: &Record<Self>, result: &Self::Result) -> Vec<Vec<String>>;

    /// What is wrong with one result read from outside (an imported file): a measurement
    /// with no sample, a negative or non-finite time or rate.
    fn check_result(result: &Self::Result) -> Result<(), String>;

    /// The dashboard points of `result` ([`metrics`]): one per (operation, measure) it
    /// measured, none for a benchmark that failed.
    fn metrics(result: &Self::Result) -> Vec<metrics::Metric>;

    /// What counted or timed the figures, beyond the machine and kembench's build (the
    /// provenance an exported point carries): `profile` names valgrind and the CPU features
    /// under it.
    fn counted_under(_measured: &Self::Measured) -> Option<String> {
        None
    }

    /// `compare` of two records of this kind, `old` then `new`, named and thresholded as
    /// `asked`; `None` for a kind that is not compared (its [`Facts::compare`] says so).
    fn compare<'a>(
        _old: &'a Record<Self>,
        _new: &'a Record<Self>,
        _asked: compare::Asked<'a>,
    ) -> Option<Box<dyn compare::Comparison + 'a>> {
        None
    }
}

/// Whether `id` has the form of the run ids kembench writes: `YYYYMMDD-HHMMSS-xxxxxxxx`
/// (digits, then eight hexadecimal digits): no path separator, no `..`, no control character.
pub fn is_run_id(id: &str) -> bool {
    let parts: Vec<&str> = id.split('-').collect();
    matches!(parts.as_slice(), [date, time, random]
        if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit())
            && time.len() == 6 && time.bytes().all(|b| b.is_ascii_digit())
            && random.len() == 8 && random.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Checks that `values` are finite and not negative; `what` names them in the error.
pub fn check_times<'a>(
    what: &str,
    values: impl IntoIterator<Item = &'a f64>,
) -> Result<(), String> {
    match values.into_iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
        Some(v) => Err(format!(
            "{what} has the value {v}; times and rates are finite and not negative"
        )),
        None => Ok(()),
    }
}

/// No fields: for kinds that add nothing at a place in the header.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Nothing {}

/// Every record describes its tables through its kind ([`Kind::tables`]).
impl<K: Kind> crate::table::Described for Record<K> {
    type Item = K::Result;
    fn tables(&self, items: &[K::Result]) -> crate::table::Tables {
        K::tables(self, items)
    }
}

/// A record of kind `K`: the common header, what `K` adds, and the results. Fields serialise
/// in this order (the files' layout since schema version 1).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Record<K: Kind> {
    /// The layout's version ([`Facts::schema_version`] when written).
    pub schema_version: u32,
    /// The run's id in the results store, when it was recorded in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The sweep this run is a shard of (`--shard K/N --sweep ID`), or the whole sweep when
    /// its shards were read back as one record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<sweep::Sweep>,
    /// What the kind keeps before `kind`.
    #[serde(flatten)]
    pub state: K::State,
    /// [`Facts::file_kind`].
    pub kind: String,
    /// Start time, RFC 3339 UTC.
    pub started_at: String,
    /// End time, RFC 3339 UTC; `None` while running or when interrupted.
    pub finished_at: Option<String>,
    /// The command line (store passwords redacted).
    pub command_line: Vec<String>,
    /// Configuration.
    pub config: K::Config,
    /// Machine, OS, compilers, provider versions.
    pub environment: Environment,
    /// What the kind measured about the machine before the results.
    #[serde(flatten)]
    pub measured: K::Measured,
    /// One entry per (algorithm, implementation).
    pub results: Vec<K::Result>,
}

impl<K: Kind> Record<K> {
    /// A new record started now, with no results yet.
    pub fn new(
        run_id: Option<String>,
        command_line: Vec<String>,
        config: K::Config,
        environment: Environment,
        measured: K::Measured,
    ) -> Record<K> {
        Record {
            schema_version: K::FACTS.schema_version,
            run_id,
            sweep: None,
            state: K::State::default(),
            kind: K::FACTS.file_kind.to_string(),
            started_at: now_rfc3339(),
            finished_at: None,
            command_line,
            config,
            environment,
            measured,
            results: Vec::new(),
        }
    }

    /// Whether the run stopped before every benchmark completed.
    pub fn interrupted(&self) -> bool {
        K::interrupted(&self.state)
    }

    /// Marks the run's end: interrupted (no end time, resumable) or finished now.
    pub fn end(&mut self, interrupted: bool) {
        K::set_interrupted(&mut self.state, interrupted);
        self.finished_at = (!interrupted).then(now_rfc3339);
    }

    /// The store's status for this record.
    pub fn status(&self) -> RunStatus {
        if self.interrupted() {
            RunStatus::Interrupted
        } else {
            RunStatus::Complete
        }
    }

    /// The header alone: this record with an empty result list (the results are not copied).
    pub fn without_results(&self) -> Record<K> {
        Record {
            schema_version: self.schema_version,
            run_id: self.run_id.clone(),
            sweep: self.sweep.clone(),
            state: self.state.clone(),
            kind: self.kind.clone(),
            started_at: self.started_at.clone(),
            finished_at: self.finished_at.clone(),
            command_line: self.command_line.clone(),
            config: self.config.clone(),
            environment: self.environment.clone(),
            measured: self.measured.clone(),
            results: Vec::new(),
        }
    }

    /// The header as JSON, as the store keeps it.
    pub fn header_json(&self) -> serde_json::Result<String> {
        serde_json::to_string(&self.without_results())
    }

    /// The result of (`algorithm`, `implementation`), if the record has one.
    pub fn result(&self, algorithm: &str, implementation: &str) -> Option<&K::Result> {
        self.results
            .iter()
            .find(|x| x.algorithm() == algorithm && x.implementation() == implementation)
    }

    /// Checks a record read from outside before it is stored: its run id (when it has one)
    /// has kembench's form, its sweep section (when it has one) is sound, no benchmark appears
    /// twice, and every result is sound
    /// ([`Kind::check_result`]).
    pub fn check(&self) -> Result<(), String> {
        if let Some(id) = &self.run_id {
            if !is_run_id(id) {
                return Err(format!(
                    "run id {:?} is not of the form kembench writes (YYYYMMDD-HHMMSS-xxxxxxxx)",
                    id
                ));
            }
        }
        if let Some(s) = &self.sweep {
            s.check()?;
        }
        let mut seen = std::collections::HashSet::new();
        for r in &self.results {
            let label = r.label();
            if label.chars().any(char::is_control) {
                return Err(format!(
                    "the benchmark {label:?} has a control character in its name"
                ));
            }
            if !seen.insert(label.clone()) {
                return Err(format!("{label} appears twice"));
            }
            K::check_result(r).map_err(|e| format!("{label}: {e}"))?;
        }
        Ok(())
    }

    /// The planned benchmarks with no final result: what `get` finds for each label (an
    /// implementation in the registry), and the labels it does not find.
    pub fn unfinished<T>(&self, get: impl Fn(&str) -> Option<T>) -> (Vec<T>, Vec<String>) {
        let finished: std::collections::HashSet<String> = self
            .results
            .iter()
            .filter(|r| r.is_final())
            .map(Benchmark::label)
            .collect();
        let mut todo = Vec::new();
        let mut missing = Vec::new();
        for label in K::planned(&self.config)
            .iter()
            .filter(|l| !finished.contains(*l))
        {
            match get(label) {
                Some(k) => todo.push(k),
                None => missing.push(label.clone()),
            }
        }
        (todo, missing)
    }

    /// Puts the results in the planned order (benchmarks finish, and are stored, in any
    /// order); unplanned ones go last, in the order they had.
    pub fn sort_as_planned(&mut self) {
        let mut position = std::collections::HashMap::new();
        for (i, label) in K::planned(&self.config).iter().enumerate() {
            position.entry(label.as_str()).or_insert(i);
        }
        // A stable sort: results of equal rank keep their order.
        self.results.sort_by_cached_key(|r| {
            position
                .get(r.label().as_str())
                .copied()
                .unwrap_or(usize::MAX)
        });
    }

    /// Puts `r` in place of the result with the same label, or adds it.
    pub fn put(&mut self, r: K::Result) {
        let label = r.label();
        match self.results.iter_mut().find(|x| x.label() == label) {
            Some(slot) => *slot = r,
            None => self.results.push(r),
        }
    }
}

/// A selection by filters as its command-line flags (`--alg ML-KEM-768 --impl liboqs`), for
/// the store's `selection` column.
pub fn describe_filter(
    algorithms: &[String],
    implementations: &[String],
    family: Option<&str>,
    level: Option<u8>,
) -> String {
    let mut parts = Vec::new();
    if !algorithms.is_empty() {
        parts.push(format!("--alg {}", algorithms.join(",")));
    }
    if !implementations.is_empty() {
        parts.push(format!("--impl {}", implementations.join(",")));
    }
    if let Some(f) = family {
        parts.push(format!("--family {f}"));
    }
    if let Some(l) = level {
        parts.push(format!("--level {l}"));
    }
    parts.join(" ")
}

/// Now, RFC 3339 UTC with seconds.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
