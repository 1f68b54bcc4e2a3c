//! A fixed, synthetic run for the exporters' snapshot tests: no clock, no machine.

use crate::env::{Build, Cpu, Environment, ProviderVersion};
use crate::measure::counters::{CounterValues, Counters};
use crate::measure::heap::HeapUsage;
use crate::measure::sampler::{Op, Sampled, SamplerConfig, StopReason};
use crate::measure::stack::StackUsage;
use crate::measure::timer::{TimerProfile, Timers};
use crate::record::run::{
    BenchResult, OperationResult, RunConfig, RunMeasured, RunRecord, RunState, SCHEMA_VERSION,
};
use crate::record::throughput::{
    OpThroughput, ThroughputConfig, ThroughputRecord, ThroughputResult,
};
use crate::verify::Outcome;

/// A fixed environment.
pub fn environment() -> Environment {
    Environment {
        hostname: "bench<host>".into(),
        os: "Debian GNU/Linux 12 (bookworm)".into(),
        kernel: "6.1.0".into(),
        arch: "x86_64".into(),
        cpu: Cpu {
            model: "Example CPU @ 3.00GHz".into(),
            vendor: "GenuineIntel".into(),
            logical_cpus: 2,
            physical_cores: 1,
            smt: true,
            flags: vec!["avx2".into(), "aes".into(), "constant_tsc".into()],
            nominal_mhz: Some(3000.0),
            governor: None,
            turbo: None,
            perf_event_paranoid: Some(2),
        },
        memory_bytes: 24 << 30,
        hypervisor: Some("KVM".into()),
        build: Build {
            kembench_version: "0.1.0".into(),
            git_commit: "0123456789ab".into(),
            rustc: "rustc 1.95.0".into(),
            cc: "cc (Debian 12.2.0-14) 12.2.0".into(),
            profile: "release".into(),
            opt_level: "3".into(),
            target: "x86_64-unknown-linux-gnu".into(),
            target_features: vec!["sse2".into()],
        },
        providers: vec![ProviderVersion {
            implementation: "mock/correct".into(),
            version: "kembench 0.1.0".into(),
        }],
    }
}

fn op(op: Op, base: f64, counters: Counters) -> OperationResult {
    let samples_ns: Vec<f64> = (0..40).map(|i| base + ((i * 7) % 11) as f64).collect();
    let samples_tsc = samples_ns.iter().map(|x| x * 3.0).collect();
    OperationResult::from_sampled(Sampled {
        op,
        batch: if base < 1000.0 { 64 } else { 1 },
        samples_ns,
        samples_tsc,
        round_medians_ns: vec![base + 5.0, base + 4.0],
        stop: if op == Op::Exchange {
            StopReason::Budget
        } else {
            StopReason::Precision
        },
        achieved_precision: 0.004,
        warmup_calls: 100,
        counters,
        heap: Some(HeapUsage {
            peak_heap_bytes: 4096,
            allocations: 3,
            allocated_bytes: 4200,
        }),
        stack: Some(StackUsage {
            max_stack_bytes: 12_288,
        }),
    })
}

/// Two implementations: one measured (with counters on one op), one that failed its check.
pub fn run() -> RunRecord {
    let measured = Counters::Measured(CounterValues {
        cycles: 30_000.0,
        instructions: 90_000.0,
        branch_misses: 12.0,
        llc_misses: 3.0,
        l1d_read_misses: 40.0,
        calls: 1000,
    });
    let none = Counters::Unavailable("no PMU".into());
    let mut good = BenchResult {
        algorithm: "MockKEM".into(),
        family: "test".into(),
        nist_level: Some(1),
        implementation: "mock/correct".into(),
        version: "kembench 0.1.0".into(),
        pk_bytes: 32,
        sk_bytes: 32,
        ct_bytes: 32,
        ss_bytes: 32,
        wire_bytes: 64,
        correctness: Outcome::Pass("3 trips".into()),
        operations: vec![
            op(Op::Keygen, 500.0, measured),
            op(Op::Encaps, 10_000.0, none.clone()),
            op(Op::Decaps, 12_000.0, none.clone()),
            op(Op::Exchange, 23_000.0, none),
        ],
        error: None,
        failure: None,
    };
    good.fill_shares();
    let bad = BenchResult {
        implementation: "mock/<broken>".into(),
        correctness: Outcome::Fail("trip 1: decapsulated secret differs".into()),
        operations: Vec::new(),
        ..good.clone()
    };
    RunRecord {
        schema_version: SCHEMA_VERSION,
        run_id: None,
        state: RunState::default(),
        kind: "kembench-run".into(),
        started_at: "2026-11-22T12:00:00Z".into(),
        finished_at: Some("2026-11-22T12:01:00Z".into()),
        command_line: vec!["kembench".into(), "run".into()],
        config: RunConfig {
            selection: "filtered".into(),
            algorithms: vec![],
            implementations: vec!["mock/*".into()],
            family: None,
            level: None,
            operations: Op::ALL.to_vec(),
            sampler: SamplerConfig::default(),
            pinned_cpu: Some(1),
            include_mock: true,
            planned: vec![
                "MockKEM@mock/correct".into(),
                "MockKEM@mock/<broken>".into(),
            ],
            step_timeout_s: Some(120.0),
        },
        environment: environment(),
        measured: RunMeasured {
            timers: Timers {
                clock: TimerProfile {
                    resolution: 20.0,
                    overhead: 25.0,
                },
                tsc: Some(TimerProfile {
                    resolution: 40.0,
                    overhead: 60.0,
                }),
                tsc_ticks_per_ns: Some(3.0),
            },
            counters_unavailable: Some("perf_event_open: No such file or directory".into()),
            heap_includes_c_allocations: true,
            decaps_secret_key: crate::record::run::SecretKeys::Kept,
        },
        results: vec![good, bad],
    }
}

/// One implementation at one and two threads, with capacity figures.
pub fn throughput() -> ThroughputRecord {
    let one = crate::throughput::calc::point(1, &[(10_000, 1.0)], None, 2);
    let two = crate::throughput::calc::point(2, &[(9_000, 1.0), (11_500, 1.0)], Some(10_000.0), 2);
    let op = |operation| OpThroughput {
        operation,
        latency_median_ns: 100_000.0,
        one_thread_vs_latency: 1.0,
        points: vec![one.clone(), two.clone()],
        flags: vec![],
    };
    ThroughputRecord {
        schema_version: crate::record::throughput::SCHEMA_VERSION,
        run_id: None,
        state: Default::default(),
        kind: "kembench-throughput".into(),
        started_at: "2026-11-22T12:00:00Z".into(),
        finished_at: Some("2026-11-22T12:01:00Z".into()),
        command_line: vec!["kembench".into(), "throughput".into()],
        config: ThroughputConfig {
            threads: vec![1, 2],
            duration_s: 1.0,
            repeats: 3,
            pinned: false,
            processes: false,
            target_rate: 70_000.0,
            operations: vec![Op::Keygen, Op::Encaps, Op::Decaps],
            planned: vec!["ML-KEM-768@liboqs".into()],
        },
        environment: environment(),
        measured: crate::record::Nothing {},
        results: vec![ThroughputResult {
            algorithm: "MockKEM".into(),
            family: "test".into(),
            implementation: "mock/<correct>".into(),
            version: "kembench 0.1.0".into(),
            operations: vec![op(Op::Keygen), op(Op::Encaps), op(Op::Decaps)],
            capacity: Some(crate::throughput::calc::capacity(
                2, 10_250.0, 10_250.0, 10_250.0, 70_000.0,
            )),
            error: None,
            interrupted: false,
        }],
    }
}
