//! Fixed, synthetic records (a run, a throughput run, a profile) for the exporters' snapshot
//! tests and the report's: no clock, no machine.

use crate::callgrind::{
    CacheCounts, FoldedStack, FunctionCost, FunctionLines, HotNode, LineCost, OpAnalysis,
    Primitive, Share,
};
use crate::env::{Build, Cpu, Environment, ProviderVersion};
use crate::measure::counters::{CounterValues, Counters};
use crate::measure::heap::HeapUsage;
use crate::measure::sampler::{Op, Sampled, SamplerConfig, StopReason};
use crate::measure::stack::StackUsage;
use crate::measure::timer::{TimerProfile, Timers};
use crate::record::profile::{
    OpProfile, ProfileConfig, ProfileMeasured, ProfileRecord, ProfileResult, RandomnessNote, Spread,
};
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

/// A hot-path node whose share of its parent is computed from `parent`.
fn node(name: &str, instructions: u64, parent: u64, children: Vec<HotNode>) -> HotNode {
    HotNode {
        name: name.into(),
        instructions,
        share_of_parent: instructions as f64 / parent as f64,
        children,
    }
}

/// One operation of [`profile`]: a harness wrapper, the library's entry point, then Keccak
/// (54%), an NTT (20%), a function named like markup (10%) and a draw from the RNG (4%), every
/// figure `scale` times that of a 10,000-instruction call.
fn op_profile(operation: Op, scale: u64, per_seed: Vec<u64>) -> OpProfile {
    let n = |x: u64| x * scale;
    let root = operation.as_str();
    let entry = format!("{root};harness;wrapper;kem_{root}");
    let folded: Vec<FoldedStack> = [
        (format!("{entry};gen_matrix;KeccakF1600_StatePermute"), 5400),
        (format!("{entry};gen_matrix"), 600),
        (format!("{entry};poly_ntt"), 2000),
        (format!("{entry};randombytes"), 400),
        (format!("{entry};<script>alert(4)</script>"), 1000),
        (entry.clone(), 500),
        (format!("{root};harness"), 100),
    ]
    .into_iter()
    .map(|(stack, i)| FoldedStack {
        stack,
        instructions: n(i),
    })
    .collect();
    let tree = node(
        root,
        n(10_000),
        n(10_000),
        vec![node(
            "harness",
            n(10_000),
            n(10_000),
            vec![node(
                "wrapper",
                n(9_900),
                n(10_000),
                vec![node(
                    &format!("kem_{root}"),
                    n(9_900),
                    n(9_900),
                    vec![
                        node(
                            "gen_matrix",
                            n(6_000),
                            n(9_900),
                            vec![node("KeccakF1600_StatePermute", n(5_400), n(6_000), vec![])],
                        ),
                        node("poly_ntt", n(2_000), n(9_900), vec![]),
                        node("<script>alert(4)</script>", n(1_000), n(9_900), vec![]),
                        node("randombytes", n(400), n(9_900), vec![]),
                    ],
                )],
            )],
        )],
    );
    let shares = Primitive::ALL
        .iter()
        .map(|&primitive| Share {
            primitive,
            instructions: n(match primitive {
                Primitive::Keccak => 5_400,
                Primitive::Rng => 400,
                Primitive::Other => 4_200,
                _ => 0,
            }),
        })
        .collect();
    OpProfile {
        operation,
        call: format!("kem_{root}"),
        instructions: Spread::of(per_seed),
        analysis: OpAnalysis {
            instructions: n(10_000),
            cache: Some(CacheCounts {
                data_refs: n(3_000),
                i1_misses: n(10),
                d1_misses: n(20),
                ll_misses: n(5),
                estimated_cycles: n(13_000),
            }),
            functions: vec![FunctionCost {
                name: "KeccakF1600_StatePermute".into(),
                object: "libexample.so".into(),
                self_instructions: n(5_400),
                inclusive_instructions: n(5_400),
                calls: 12,
            }],
            tree,
            lines: vec![FunctionLines {
                function: "KeccakF1600_StatePermute".into(),
                file: "keccak.c".into(),
                lines: vec![LineCost {
                    line: 42,
                    instructions: n(2_000),
                }],
            }],
            shares,
            folded,
            truncated_instructions: 0,
        },
        native: Counters::Unavailable("no PMU".into()),
    }
}

/// Two implementations profiled over three seeds: one with keygen (the same count for every
/// seed) and encaps (counts that vary), one that failed its check and has no operations.
pub fn profile() -> ProfileRecord {
    let good = ProfileResult {
        algorithm: "MockKEM".into(),
        family: "test".into(),
        implementation: "mock/correct".into(),
        version: "kembench 0.1.0".into(),
        correctness: Outcome::Pass("3 trips".into()),
        randomness: RandomnessNote {
            fixed: true,
            how: "every draw from the seeded stream".into(),
        },
        operations: vec![
            op_profile(Op::Keygen, 1, vec![10_000, 10_000, 10_000]),
            op_profile(Op::Encaps, 2, vec![20_000, 20_600, 19_800]),
        ],
        error: None,
        failure: None,
    };
    let bad = ProfileResult {
        implementation: "mock/<broken>".into(),
        correctness: Outcome::Fail("trip 1: decapsulated secret differs".into()),
        operations: Vec::new(),
        ..good.clone()
    };
    ProfileRecord {
        schema_version: crate::record::profile::SCHEMA_VERSION,
        run_id: Some("20261122-120000-0123abcd".into()),
        state: Default::default(),
        kind: "kembench-profile".into(),
        started_at: "2026-11-22T12:00:00Z".into(),
        finished_at: Some("2026-11-22T12:01:00Z".into()),
        command_line: vec!["kembench".into(), "profile".into()],
        config: ProfileConfig {
            selection: "--include-mock --alg MockKEM".into(),
            seeds: 3,
            operations: vec![Op::Keygen, Op::Encaps],
            planned: vec![
                "MockKEM@mock/correct".into(),
                "MockKEM@mock/<broken>".into(),
            ],
            cache_geometry: "I1 and D1 32 KiB 8-way, LL 8 MiB 16-way, 64-byte lines".into(),
            separate_callers: 100,
            tree_depth: 8,
            tree_threshold: 0.01,
            sha3_probe: false,
        },
        environment: environment(),
        measured: ProfileMeasured {
            valgrind: "valgrind-3.19.0".into(),
            cpu_features_native: vec!["avx2".into(), "avx512f".into()],
            cpu_features_under_valgrind: vec!["avx2".into()],
            pmu_unavailable: Some("no PMU".into()),
        },
        results: vec![good, bad],
    }
}
