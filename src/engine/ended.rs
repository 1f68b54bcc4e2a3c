//! How a child process (a `run` worker, a profiled run under valgrind, a build's gate) ended
//! when it gave no answer, the signal's name, and the [`Failure`] recorded for it.

use crate::record::{Failure, FailureKind};

/// Why a worker gave no reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// It died: by a signal, or by exiting.
    Died {
        /// The signal, if one ended it.
        signal: Option<i32>,
        /// The exit code, if it exited.
        code: Option<i32>,
    },
    /// No reply within the timeout; it was killed.
    TimedOut,
    /// A second Ctrl-C: it was killed without waiting.
    Aborted,
    /// It replied with something that is not a reply (a bug, or a corrupted stream).
    Garbled(String),
}

pub use crate::signals::signal_name;

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ended::Died {
                signal: Some(s), ..
            } => write!(f, "killed by {}", signal_name(*s)),
            Ended::Died { code: Some(c), .. } => write!(f, "exited with status {c}"),
            Ended::Died { .. } => write!(f, "ended"),
            Ended::TimedOut => write!(f, "timed out"),
            Ended::Aborted => write!(f, "stopped by a second Ctrl-C"),
            Ended::Garbled(why) => write!(f, "sent an unreadable reply ({why})"),
        }
    }
}

/// The record of a worker that ended without answering (crash, timeout, Ctrl-C) during `during`.
pub fn failure(ended: &Ended, during: &str) -> Failure {
    let (kind, signal, exit_code) = match ended {
        Ended::Died { signal, code } => (FailureKind::Crashed, *signal, *code),
        Ended::Garbled(_) => (FailureKind::Crashed, None, None),
        Ended::TimedOut => (FailureKind::TimedOut, None, None),
        Ended::Aborted => (FailureKind::Interrupted, None, None),
    };
    Failure {
        kind,
        signal,
        signal_name: signal.map(signal_name),
        exit_code,
        during: during.to_string(),
        detail: format!("the benchmark's worker process {ended} during {during}"),
    }
}
