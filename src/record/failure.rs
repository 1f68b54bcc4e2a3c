//! How a benchmark ended abnormally ([`Failure`]): a worker process that crashed, hung or
//! was stopped, as every kind records it.

use super::ResultStatus;
use serde::{Deserialize, Serialize};

/// What went wrong with a benchmark's worker process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    /// The process died (a signal such as SIGSEGV or SIGABRT, or an unexpected exit).
    Crashed,
    /// It did not answer within the per-step timeout and was killed.
    TimedOut,
    /// Ctrl-C stopped the run before this benchmark completed.
    Interrupted,
}

impl FailureKind {
    /// The benchmark's status after such an end.
    pub fn status(self) -> ResultStatus {
        match self {
            FailureKind::Crashed => ResultStatus::Crashed,
            FailureKind::TimedOut => ResultStatus::TimedOut,
            FailureKind::Interrupted => ResultStatus::Interrupted,
        }
    }
}

/// A benchmark's abnormal end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// What happened.
    pub kind: FailureKind,
    /// The signal that ended the worker, if one did.
    pub signal: Option<i32>,
    /// Its name (`SIGSEGV`).
    pub signal_name: Option<String>,
    /// The worker's exit code, if it exited.
    pub exit_code: Option<i32>,
    /// The step in progress (`prepare`, `encaps round 2/5`, `finish`).
    pub during: String,
    /// A sentence for people.
    pub detail: String,
}

impl Failure {
    /// The status of a benchmark that ended with `failure` (if any), after a correctness
    /// check with `correctness`, with or without an error: a failure first, then a failed
    /// check, then an error.
    pub fn status_of(
        failure: Option<&Failure>,
        correctness: &crate::verify::Outcome,
        error: bool,
    ) -> ResultStatus {
        if let Some(f) = failure {
            f.kind.status()
        } else if correctness.failed() {
            ResultStatus::CheckFailed
        } else if error {
            ResultStatus::Error
        } else {
            ResultStatus::Ok
        }
    }

    /// Ctrl-C stopped the benchmark during `during`.
    pub fn interrupted(during: impl Into<String>, detail: impl Into<String>) -> Failure {
        Failure {
            kind: FailureKind::Interrupted,
            signal: None,
            signal_name: None,
            exit_code: None,
            during: during.into(),
            detail: detail.into(),
        }
    }
}
