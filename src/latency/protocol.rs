//! What `run` and its benchmark worker processes say to each other: one JSON message per
//! line, requests on the worker's stdin, replies on its stdout, both on the engines' one line
//! protocol ([`WIRE`], so that anything a C library prints there cannot be mistaken for a
//! reply).

use crate::engine::wire::Wire;
use crate::kem::Op;
use crate::measure::sampler::SamplerConfig;
use crate::measure::timer::Timers;
use crate::record::latency::BenchResult;
use serde::{Deserialize, Serialize};

/// `run`'s channel: its prefix marks a request or reply line.
pub const WIRE: Wire = Wire::new("KEMBENCH-WORKER ");

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
