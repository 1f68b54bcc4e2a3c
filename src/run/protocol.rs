//! What `run` and its benchmark worker processes say to each other: one JSON message per
//! line, requests on the worker's stdin, replies on its stdout behind [`PREFIX`] (so that
//! anything a C library prints there cannot be mistaken for a reply).

use crate::measure::sampler::{Op, SamplerConfig};
use crate::measure::timer::Timers;
use crate::record::run::BenchResult;
use serde::{Deserialize, Serialize};

/// Marks a reply line on the worker's stdout.
pub const PREFIX: &str = "KEMBENCH-WORKER ";

/// Everything a worker needs to know, sent first.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Init {
    /// `algorithm@implementation`.
    pub label: String,
    /// Whether the mock implementations are offered.
    pub include_mock: bool,
    /// Operations to measure.
    pub ops: Vec<Op>,
    /// Sampling knobs.
    pub cfg: SamplerConfig,
    /// The parent's timer calibration (one per run).
    pub timers: Timers,
    /// Pin the measuring thread to this CPU.
    pub pin: Option<usize>,
}

/// From `run` to a worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Request {
    /// Load the implementation; answered by [`Reply::Ready`].
    Init(Box<Init>),
    /// Quick correctness check, then prepare inputs and warm up every operation.
    Prepare,
    /// One round of one operation (0-based round).
    Round {
        /// The operation.
        op: Op,
        /// The round.
        round: usize,
    },
    /// Counters, heap and stack, then the statistics of everything sampled so far.
    Finish,
}

/// From a worker to `run`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    /// The implementation is loaded.
    Ready,
    /// Checked and prepared: the operations ready for rounds, and the result so far
    /// (correctness outcome, sizes, an error if preparing failed).
    Prepared {
        /// Operations that will take rounds.
        ops: Vec<Op>,
        /// The result so far.
        result: Box<BenchResult>,
    },
    /// A round is done; an error stops this benchmark.
    RoundDone {
        /// What failed, if anything.
        error: Option<String>,
    },
    /// The finished result.
    Finished(Box<BenchResult>),
    /// The worker cannot go on (unknown implementation, bad request).
    Fatal(String),
}

/// One reply line.
pub fn encode(r: &Reply) -> String {
    format!(
        "{PREFIX}{}",
        serde_json::to_string(r).expect("replies always serialise")
    )
}

/// The reply on a line, if it holds one.
pub fn decode(line: &str) -> Option<Result<Reply, serde_json::Error>> {
    line.strip_prefix(PREFIX).map(serde_json::from_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_survive_the_line_format_and_other_output_is_not_a_reply() {
        let line = encode(&Reply::RoundDone {
            error: Some("x\ny".into()),
        });
        assert!(!line.contains('\n'));
        match decode(&line) {
            Some(Ok(Reply::RoundDone { error })) => assert_eq!(error.as_deref(), Some("x\ny")),
            other => panic!("{other:?}"),
        }
        assert!(decode("liboqs says hello").is_none());
        assert!(matches!(decode("KEMBENCH-WORKER {bad"), Some(Err(_))));
    }
}
