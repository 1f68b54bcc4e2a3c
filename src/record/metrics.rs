//! Dashboard points: one number per (benchmark, measure), what continuous-benchmarking
//! dashboards read (github-action-benchmark, Bencher's BMF, libcrux's action; see
//! `export/dashboard.rs`). Each kind says which points its results hold ([`Kind::metrics`]).
//!
//! Names are part of kembench's interface: a dashboard keys its history on them, so they stay
//! the same across versions. A benchmark is `ALGORITHM@IMPLEMENTATION/OPERATION`
//! (`ML-KEM-768@liboqs/keygen`, `X25519MLKEM768@rustls/ecdsa-p256/full-server`); a measure is
//! one of [`Measure`]'s names.
//!
//! [`Kind::metrics`]: super::Kind::metrics

/// What a point measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Measure {
    /// Time per call, nanoseconds (a median; its 95% interval as the bounds).
    Latency,
    /// Calls per second.
    Throughput,
    /// Instructions executed per call, exact (callgrind).
    Instructions,
    /// Constant-time findings no exception explains, per operation, exact (`kembench ct`).
    Findings,
    /// Cycles per call on a CPU kembench does not have, estimated by an LLVM scheduling model
    /// from exact block counts (`profile --cpus`; the CPU is in the operation's name).
    EstimatedCycles,
}

impl Measure {
    /// Every measure, in the order points are listed.
    pub const ALL: [Measure; 5] = [
        Measure::Latency,
        Measure::Throughput,
        Measure::Instructions,
        Measure::Findings,
        Measure::EstimatedCycles,
    ];

    /// The stable name: Bencher's measure slugs (`latency` in nanoseconds, `throughput` in
    /// operations per second, `instructions`).
    pub fn name(self) -> &'static str {
        match self {
            Measure::Latency => "latency",
            Measure::Throughput => "throughput",
            Measure::Instructions => "instructions",
            Measure::Findings => "unexplained-findings",
            Measure::EstimatedCycles => "estimated-cycles",
        }
    }

    /// The unit, as dashboards show it.
    pub fn unit(self) -> &'static str {
        match self {
            Measure::Latency => "ns",
            Measure::Throughput => "ops/s",
            Measure::Instructions => "instructions",
            Measure::Findings => "findings",
            Measure::EstimatedCycles => "cycles (model estimate)",
        }
    }

    /// Whether a smaller value is the better one.
    pub fn smaller_is_better(self) -> bool {
        !matches!(self, Measure::Throughput)
    }

    /// Whether the value varies from run to run (timings) or is exact (instruction counts):
    /// a gate on a noisy measure needs a wider threshold.
    pub fn noisy(self) -> bool {
        !matches!(
            self,
            Measure::Instructions | Measure::Findings | Measure::EstimatedCycles
        )
    }
}

/// One point: a benchmark's value in one measure, with bounds where kembench has them.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// The algorithm.
    pub algorithm: String,
    /// The implementation id.
    pub implementation: String,
    /// The operation (`keygen`, `encaps`, `decaps`, ... ; `full-server` for TLS).
    pub operation: String,
    /// What is measured.
    pub measure: Measure,
    /// The value.
    pub value: f64,
    /// The lower bound (a 95% interval, or the fewest over seeds), if any.
    pub lower: Option<f64>,
    /// The upper bound, if any.
    pub upper: Option<f64>,
}

impl Metric {
    /// A point without bounds.
    pub fn new(
        algorithm: &str,
        implementation: &str,
        operation: &str,
        measure: Measure,
        value: f64,
    ) -> Metric {
        Metric {
            algorithm: algorithm.to_string(),
            implementation: implementation.to_string(),
            operation: operation.to_string(),
            measure,
            value,
            lower: None,
            upper: None,
        }
    }

    /// The same point with bounds.
    pub fn within(mut self, lower: f64, upper: f64) -> Metric {
        self.lower = Some(lower);
        self.upper = Some(upper);
        self
    }

    /// The benchmark's stable name: `ALGORITHM@IMPLEMENTATION/OPERATION`.
    pub fn benchmark(&self) -> String {
        format!(
            "{}@{}/{}",
            self.algorithm, self.implementation, self.operation
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names dashboards key on: changing one breaks every user's history, so they are
    /// spelled out here.
    #[test]
    fn names_are_stable() {
        let names: Vec<_> = Measure::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(
            names,
            [
                "latency",
                "throughput",
                "instructions",
                "unexplained-findings",
                "estimated-cycles"
            ]
        );
        let m = Metric::new("ML-KEM-768", "liboqs", "keygen", Measure::Latency, 1.0);
        assert_eq!(m.benchmark(), "ML-KEM-768@liboqs/keygen");
        assert!(Measure::Latency.smaller_is_better() && !Measure::Throughput.smaller_is_better());
        assert!(!Measure::Instructions.noisy() && Measure::Latency.noisy());
        assert!(!Measure::EstimatedCycles.noisy() && Measure::EstimatedCycles.smaller_is_better());
    }
}
