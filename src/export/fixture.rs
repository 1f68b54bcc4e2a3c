//! Fixed, synthetic records (a run, one with builds, a throughput run, a profile, a tls run, a
//! ct run) for the exporters' snapshot tests and the report's: no clock, no machine.

use crate::callgrind::{
    CacheCounts, FoldedStack, FunctionCost, FunctionLines, HotNode, LineCost, OpAnalysis,
    Primitive, Share,
};
use crate::env::{Build, Cpu, Environment, ProviderVersion};
use crate::kem::Op;
use crate::measure::counters::{CounterValues, Counters};
use crate::measure::heap::HeapUsage;
use crate::measure::sampler::{Sampled, SamplerConfig, StopReason};
use crate::measure::stack::StackUsage;
use crate::measure::timer::{TimerProfile, Timers};
use crate::record::latency::{
    BenchResult, LatencyConfig, LatencyMeasured, LatencyRecord, LatencyState, OperationResult,
    SCHEMA_VERSION,
};
use crate::record::profile::{
    OpProfile, ProfileConfig, ProfileMeasured, ProfileRecord, ProfileResult, RandomnessNote, Spread,
};
use crate::record::throughput::{
    OpThroughput, ThroughputConfig, ThroughputRecord, ThroughputResult,
};
use crate::record::tls::{
    Checks, Flight, KemShare, Mechanisms, Mode, ModeCost, NetPoint, NetProfile,
    Spread as TlsSpread, TlsCapacity, TlsConfig, TlsRecord, TlsResult, CLIENT_FINISHED,
    CLIENT_HELLO, SECOND_CLIENT_HELLO, SERVER_FLIGHT,
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
        builds: Vec::new(),
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
pub fn run() -> LatencyRecord {
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
    LatencyRecord {
        schema_version: SCHEMA_VERSION,
        run_id: None,
        sweep: None,
        state: LatencyState::default(),
        kind: "kembench-run".into(),
        started_at: "2026-11-22T12:00:00Z".into(),
        finished_at: Some("2026-11-22T12:01:00Z".into()),
        command_line: vec!["kembench".into(), "run".into()],
        config: LatencyConfig {
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
        measured: LatencyMeasured {
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
            decaps_secret_key: crate::record::latency::SecretKeys::Kept,
        },
        results: vec![good, bad],
    }
}

/// The builds of [`run_with_builds`]: (source, compiler, flag set, speed factor against the
/// portable source built by gcc at `-O2`, deepest stack in bytes). The factors are chosen so
/// that the vectorised source is the faster one and `-O3 -march=native` beats `-O2`, with
/// clang ahead of gcc on the vectorised source only: the fastest build is not simply the
/// corner of the matrix.
pub const BUILDS: [(&str, &str, &str, f64, u64); 8] = [
    ("pqclean/clean", "gcc-12", "-O2", 1.0, 15_056),
    ("pqclean/clean", "gcc-12", "-O3 -march=native", 0.85, 15_456),
    ("pqclean/clean", "clang-14", "-O2", 0.9, 14_976),
    (
        "pqclean/clean",
        "clang-14",
        "-O3 -march=native",
        1.05,
        15_120,
    ),
    ("pqclean/avx2", "gcc-12", "-O2", 0.2, 18_440),
    ("pqclean/avx2", "gcc-12", "-O3 -march=native", 0.16, 17_792),
    ("pqclean/avx2", "clang-14", "-O2", 0.19, 18_136),
    (
        "pqclean/avx2",
        "clang-14",
        "-O3 -march=native",
        0.14,
        17_520,
    ),
];

/// The build id of a flag set, as `kembench builds` writes it
/// (`pqclean/clean@gcc-12:O3+march=native`).
pub fn build_id(source: &str, compiler: &str, flags: &str) -> String {
    let slug: Vec<&str> = flags
        .split_whitespace()
        .map(|w| w.trim_start_matches('-'))
        .collect();
    format!("{source}@{compiler}:{}", slug.join("+"))
}

/// [`run`] with ML-KEM-768 measured in the 2 sources × 2 compilers × 2 flag sets of
/// [`BUILDS`], each with its [`BuildFacts`](crate::kem::BuildFacts) in the environment. Every
/// operation's figures are those of the portable gcc `-O2` build times the build's factor, so
/// ratios and the fastest build are known in advance.
pub fn run_with_builds() -> LatencyRecord {
    let mut rec = run();
    let template = rec.results[0].clone();
    let none = Counters::Unavailable("no PMU".into());
    for (source, compiler, flags, factor, stack) in BUILDS {
        let implementation = build_id(source, compiler, flags);
        let avx2 = source.ends_with("avx2");
        let mut operations: Vec<OperationResult> = [
            (Op::Keygen, 48_000.0),
            (Op::Encaps, 58_000.0),
            (Op::Decaps, 68_000.0),
            (Op::Exchange, 174_000.0),
        ]
        .into_iter()
        .map(|(o, base)| op(o, (base * factor).round(), none.clone()))
        .collect();
        for o in &mut operations {
            o.max_stack_bytes = Some(stack);
        }
        let mut r = BenchResult {
            algorithm: "ML-KEM-768".into(),
            family: "module-lattice".into(),
            nist_level: Some(3),
            implementation: implementation.clone(),
            version: "PQClean via pqcrypto-mlkem 0.1.1".into(),
            pk_bytes: 1184,
            sk_bytes: 2400,
            ct_bytes: 1088,
            ss_bytes: 32,
            wire_bytes: 2272,
            operations,
            ..template.clone()
        };
        r.fill_shares();
        rec.results.push(r);
        rec.config
            .planned
            .push(format!("ML-KEM-768@{implementation}"));
        rec.environment.builds.push(crate::kem::BuildFacts {
            implementation,
            source: source.into(),
            source_version: "PQClean via pqcrypto-mlkem 0.1.1".into(),
            source_sha256: if avx2 { "34282e35" } else { "9a1c0f7e" }.repeat(8),
            compiler: compiler.into(),
            compiler_version: if compiler.starts_with("gcc") {
                "gcc (Debian 12.2.0-14) 12.2.0"
            } else {
                "Debian clang version 14.0.6"
            }
            .into(),
            flags: flags.into(),
            required_flags: if avx2 {
                vec!["-mavx2".into(), "-mbmi2".into()]
            } else {
                Vec::new()
            },
            targets: if avx2 {
                vec!["avx2".into(), "bmi2".into()]
            } else if flags.contains("-march=native") {
                vec!["avx2".into()]
            } else {
                Vec::new()
            },
            gate: crate::kem::Gate::Passed("8 checks passed (known answers)".into()),
            arch: None,
        });
    }
    rec.config.implementations.push("pqclean/*@*".into());
    rec
}

/// [`run_with_builds`] with the portable gcc `-O2` build also measured from a source tree
/// (`pqclean-2026.01+g1a2b3c4`, listed before the carried copy) whose every sample is `factor`
/// times the carried copy's: two versions of one build, side by side in one run.
pub fn run_with_versions(factor: f64) -> LatencyRecord {
    let mut rec = run_with_builds();
    let carried = build_id("pqclean/clean", "gcc-12", "-O2");
    let mut tree = rec
        .results
        .iter()
        .find(|r| r.implementation == carried)
        .expect("the fixture has the portable gcc -O2 build")
        .clone();
    tree.implementation = carried.replace("pqclean/", "pqclean-2026.01+g1a2b3c4/");
    for o in &mut tree.operations {
        for s in o.raw_samples_ns.iter_mut().chain(&mut o.round_medians_ns) {
            *s *= factor;
        }
        for v in [
            &mut o.median_ns,
            &mut o.mean_ns,
            &mut o.stddev_ns,
            &mut o.min_ns,
            &mut o.max_ns,
            &mut o.mad_ns,
        ] {
            *v *= factor;
        }
        o.ops_per_sec /= factor;
        if let Some(b) = &mut o.best_round_median_ns {
            *b *= factor;
        }
    }
    let mut facts = rec
        .environment
        .builds
        .iter()
        .find(|b| b.implementation == carried)
        .expect("the carried build's facts")
        .clone();
    facts.implementation = tree.implementation.clone();
    facts.source = "pqclean-2026.01+g1a2b3c4/clean".into();
    facts.source_version = "PQClean 2026.01 tree /src/pqclean (git commit g1a2b3c4)".into();
    rec.environment.builds.push(facts);
    rec.results.insert(1, tree);
    rec
}

/// One implementation at one and two threads, with capacity figures.
pub fn throughput() -> ThroughputRecord {
    let one = crate::record::scaling::calc::point(1, &[(10_000, 1.0)], None, 2);
    let two =
        crate::record::scaling::calc::point(2, &[(9_000, 1.0), (11_500, 1.0)], Some(10_000.0), 2);
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
        sweep: None,
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
            capacity: Some(crate::record::scaling::calc::capacity(
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
            inlined_instructions: 0,
        },
        native: Counters::Unavailable("no PMU".into()),
        emulated: None,
        estimates: Vec::new(),
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
        sweep: None,
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
            cpus: Vec::new(),
            llvm: String::new(),
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

/// The flights of a fixture handshake: a ClientHello of `hello` bytes, a server flight of
/// `server` bytes in `records` records, the client's Finished.
fn flights(hello: usize, server: usize, records: usize) -> Vec<Flight> {
    vec![
        Flight::new(CLIENT_HELLO, "client", hello, 1),
        Flight::new(SERVER_FLIGHT, "server", server, records),
        Flight::new(CLIENT_FINISHED, "client", 80, 2),
    ]
}

/// A fixture spread around `median` (quartiles 5% either side, extremes 20% and 60% off).
fn spread(median: f64, n: usize) -> TlsSpread {
    TlsSpread {
        min: median * 0.8,
        p25: median * 0.95,
        median,
        p75: median * 1.05,
        p95: median * 1.3,
        max: median * 1.6,
        n,
    }
}

/// One fixture mode: `server` and `client` medians in ns, one thread doing both sides.
fn mode_cost(mode: Mode, server: f64, client: f64, flights: Vec<Flight>) -> ModeCost {
    ModeCost {
        mode,
        handshakes: 2000,
        handshakes_per_sec: 1e9 / (server + client),
        server_ns: spread(server, 2000),
        client_ns: spread(client, 2000),
        server_best_round_median_ns: server * 0.98,
        client_best_round_median_ns: client * 0.98,
        flights,
    }
}

/// One network point of the fixture: `rtt` ms and `loss` percent, times about two round trips.
fn net_point(rtt: f64, loss: f64, failures: u64) -> NetPoint {
    NetPoint {
        profile: format!("rtt{rtt}-loss{loss}"),
        rtt_ms: rtt,
        loss_pct: loss,
        rate_mbit: 0.0,
        measured_rtt_ms: rtt + 0.1,
        mechanisms: Mechanisms {
            delay: "relay".into(),
            loss: if loss > 0.0 {
                "nft numgen random".into()
            } else {
                "none".into()
            },
            rate: "none".into(),
        },
        handshakes: 50 - failures,
        concurrency: 1,
        failures,
        time_ms: Some(TlsSpread {
            min: 2.0 * rtt + 0.5,
            p25: 2.0 * rtt + 0.8,
            median: 2.0 * rtt + 1.0,
            p75: 2.0 * rtt + 1.5,
            p95: 2.0 * rtt + 1.0 + 200.0 * loss,
            max: 2.0 * rtt + 1.0 + 400.0 * loss,
            n: (50 - failures) as usize,
        }),
    }
}

/// A tls run of three benchmarks: a hybrid group on rustls with every mode, scaling, the
/// bare-KEM model and three network conditions (two RTTs without loss, loss at the longer); a classical group on openssl whose (fixture)
/// server flight overflows the initial congestion window and whose network conditions were
/// skipped; and a group the stack does not have.
pub fn tls() -> TlsRecord {
    let cap = |server: f64, client: f64, penalty: f64| TlsCapacity {
        target_rate: 10_000.0,
        basis_threads: 2,
        scaling_penalty: penalty,
        server_handshakes_per_sec_per_core: 1e9 / server * penalty,
        client_handshakes_per_sec_per_core: 1e9 / client * penalty,
        server_cores_for_target: 10_000.0 / (1e9 / server * penalty),
        client_cores_for_target: 10_000.0 / (1e9 / client * penalty),
    };
    let hybrid = TlsResult {
        algorithm: "X25519MLKEM768".into(),
        implementation: "rustls/ecdsa-p256".into(),
        stack: "rustls".into(),
        version: "0.23.0".into(),
        group: "X25519MLKEM768".into(),
        codepoint: 0x11ec,
        cert: "ecdsa-p256".into(),
        hello: "minimal".into(),
        client_shares: None,
        modes_unavailable: Vec::new(),
        unavailable: None,
        checks: Some(Checks {
            handshakes: 6100,
            completion_only: 0,
            check_ns: None,
            negotiated_group: "X25519MLKEM768".into(),
            client_share_bytes: 1216,
            server_share_bytes: 1120,
            certificate: "ecdsa-p256, chain of 2".into(),
        }),
        modes: vec![
            mode_cost(Mode::Full, 100_000.0, 80_000.0, flights(1500, 2500, 3)),
            mode_cost(Mode::Resumed, 60_000.0, 50_000.0, flights(1700, 1300, 2)),
            mode_cost(
                Mode::Hrr,
                120_000.0,
                110_000.0,
                vec![
                    Flight::new(CLIENT_HELLO, "client", 300, 1),
                    Flight::new("HelloRetryRequest", "server", 100, 1),
                    Flight::new(SECOND_CLIENT_HELLO, "client", 1500, 1),
                    Flight::new(SERVER_FLIGHT, "server", 2500, 3),
                    Flight::new(CLIENT_FINISHED, "client", 80, 2),
                ],
            ),
        ],
        scaling: vec![
            crate::record::scaling::calc::point(1, &[(5_500, 1.0)], None, 2),
            crate::record::scaling::calc::point(2, &[(5_000, 1.0), (5_000, 1.0)], Some(5_500.0), 2),
        ],
        capacity: Some(cap(100_000.0, 80_000.0, 0.9)),
        kem: Some(KemShare {
            implementation: "X25519MLKEM768@rustls/aws-lc-rs".into(),
            keygen_ns: 20_000.0,
            encaps_ns: 25_000.0,
            decaps_ns: 20_000.0,
            server_share: 0.25,
            client_share: 0.5,
            model: crate::record::scaling::calc::capacity(
                2, 50_000.0, 40_000.0, 50_000.0, 10_000.0,
            ),
        }),
        network: vec![
            net_point(10.0, 0.0, 0),
            net_point(30.0, 0.0, 0),
            net_point(30.0, 3.0, 2),
        ],
        kem_unavailable: None,
        signature: None,
        signature_unavailable: None,
        network_skipped: None,
        error: None,
        interrupted: false,
    };
    let classical = TlsResult {
        algorithm: "P-256".into(),
        implementation: "openssl/rsa2048".into(),
        stack: "openssl".into(),
        version: "OpenSSL 3.0.0".into(),
        group: "secp256r1".into(),
        codepoint: 0x0017,
        cert: "rsa2048".into(),
        checks: Some(Checks {
            handshakes: 2000,
            completion_only: 0,
            check_ns: None,
            negotiated_group: "secp256r1".into(),
            client_share_bytes: 65,
            server_share_bytes: 65,
            certificate: "rsa2048, chain of 3".into(),
        }),
        // A fixture chain longer than any rsa2048 one: the flight takes 11 segments.
        modes: vec![mode_cost(
            Mode::Full,
            700_000.0,
            90_000.0,
            flights(300, 15_000, 4),
        )],
        scaling: Vec::new(),
        capacity: Some(cap(700_000.0, 90_000.0, 1.0)),
        kem: None,
        network: Vec::new(),
        network_skipped: Some("network namespaces need CAP_NET_ADMIN <not held>".into()),
        ..hybrid.clone()
    };
    let missing = TlsResult {
        algorithm: "MLKEM1024".into(),
        implementation: "openssl/ecdsa-p256".into(),
        stack: "openssl".into(),
        version: "OpenSSL 3.0.0".into(),
        group: "MLKEM1024".into(),
        codepoint: 0x0202,
        cert: "ecdsa-p256".into(),
        hello: "minimal".into(),
        client_shares: None,
        modes_unavailable: Vec::new(),
        unavailable: Some("OpenSSL 3.0.0 has no <MLKEM1024> group".into()),
        checks: None,
        modes: Vec::new(),
        scaling: Vec::new(),
        capacity: None,
        kem: None,
        network: Vec::new(),
        kem_unavailable: None,
        signature: None,
        signature_unavailable: None,
        network_skipped: None,
        error: None,
        interrupted: false,
    };
    let net = |name: &str, rtt: f64, loss: f64| NetProfile {
        name: name.into(),
        rtt_ms: rtt,
        loss_pct: loss,
        rate_mbit: 0.0,
    };
    TlsRecord {
        schema_version: crate::record::tls::SCHEMA_VERSION,
        run_id: None,
        sweep: None,
        state: Default::default(),
        kind: "kembench-tls".into(),
        started_at: "2026-11-22T12:00:00Z".into(),
        finished_at: Some("2026-11-22T12:05:00Z".into()),
        command_line: vec!["kembench".into(), "tls".into()],
        config: TlsConfig {
            stacks: vec!["rustls".into(), "openssl".into()],
            groups: vec![
                "X25519MLKEM768".into(),
                "secp256r1".into(),
                "MLKEM1024".into(),
            ],
            certs: vec!["ecdsa-p256".into(), "rsa2048".into()],
            hellos: vec!["minimal".into()],
            modes: Mode::ALL.to_vec(),
            duration_s: 1.0,
            threads: vec![1, 2],
            scaling_duration_s: 0.5,
            target_rate: 10_000.0,
            network: vec![
                net("rtt10-loss0", 10.0, 0.0),
                net("rtt30-loss0", 30.0, 0.0),
                net("rtt30-loss3", 30.0, 3.0),
            ],
            network_handshakes: 50,
            network_concurrency: 1,
            network_parallel: 1,
            planned: vec![
                "X25519MLKEM768@rustls/ecdsa-p256".into(),
                "P-256@openssl/rsa2048".into(),
                "MLKEM1024@openssl/ecdsa-p256".into(),
            ],
        },
        environment: environment(),
        measured: crate::record::Nothing {},
        results: vec![hybrid, classical, missing],
    }
}

/// One screen on one operation that ran, with `findings` (and dudect's figures for the
/// timing screen).
fn screened(
    screen: crate::record::ct::Screen,
    operation: Op,
    findings: Vec<crate::record::ct::Finding>,
    timing: Option<crate::record::ct::TimingTest>,
) -> crate::record::ct::ScreenResult {
    use crate::record::ct::{Ran, Screen};
    crate::record::ct::ScreenResult {
        screen,
        operation,
        ran: Ran::Screened,
        how: match screen {
            Screen::SecretFlow => "every random byte and the secret key undefined under memcheck; public key and ciphertext declassified",
            Screen::Latency => "instructions executed in the call joined with the disassembly",
            Screen::Timing => "a fixed valid ciphertext against random valid ones, in random order",
        }
        .into(),
        findings,
        timing,
    }
}

/// dudect's figures with `max_t` as the first-order |t|.
fn dudect(measurements: u64, max_t: f64) -> crate::record::ct::TimingTest {
    crate::record::ct::TimingTest {
        classes: "a fixed valid ciphertext against random valid ones".into(),
        measurements,
        max_t,
        max_t_test: "cropped at the 12th percentile".into(),
        second_order_t: 1.5,
        noise_floor_t: 1.1,
        stopped_by_budget: true,
        timer: "TSC".into(),
        pinned_cpu: Some(1),
    }
}

/// A finding of `kind` in `function` at `line`.
fn finding(
    kind: crate::record::ct::FindingKind,
    function: &str,
    line: &str,
    explained: Option<crate::record::ct::Explained>,
) -> crate::record::ct::Finding {
    crate::record::ct::Finding {
        kind,
        function: function.into(),
        stack: vec![function.into(), "kembench_ct_decaps".into()],
        object: Some("kembench".into()),
        line: Some(line.into()),
        count_per_call: 1,
        secret_operands: None,
        detail: "Conditional jump or move depends on uninitialised value(s)".into(),
        explained,
    }
}

/// Every screen on keygen, encaps and decaps, clean (no leak detected at 41 000 measurements),
/// with the entries of `decaps` in place of theirs.
fn ct_screens(
    decaps: Vec<crate::record::ct::ScreenResult>,
) -> Vec<crate::record::ct::ScreenResult> {
    use crate::record::ct::Screen;
    let mut out = Vec::new();
    for op in [Op::Keygen, Op::Encaps, Op::Decaps] {
        for screen in Screen::ALL {
            if let Some(s) = decaps
                .iter()
                .find(|s| s.operation == op && s.screen == screen)
            {
                out.push(s.clone());
            } else if screen == Screen::Timing {
                out.push(screened(screen, op, Vec::new(), Some(dudect(41_000, 2.0))));
            } else {
                out.push(screened(screen, op, Vec::new(), None));
            }
        }
    }
    out
}

/// A ct run of four implementations: ML-KEM-768 on liboqs with one benign branch in keygen
/// (rejection sampling) and no leak detected in decaps; the mock with a secret branch in
/// decaps that no list explains and a timing leak; the mock with a secret division listed as
/// a known issue; and an implementation whose randomness could not be marked (secret flow and
/// latency not screened).
pub fn ct() -> crate::record::ct::CtRecord {
    use crate::record::ct::{
        CtConfig, CtMeasured, CtRecord, CtResult, ExceptionList, Explained, FindingKind, Screen,
        ScreenResult, SecretOperands,
    };
    let mut liboqs_screens = ct_screens(vec![screened(
        Screen::Timing,
        Op::Decaps,
        Vec::new(),
        Some(dudect(41_000, 2.3)),
    )]);
    liboqs_screens[0].findings.push(finding(
        FindingKind::Branch,
        "PQCLEAN_MLKEM768_CLEAN_rej_uniform",
        "mlkem/indcpa.c:146",
        Some(Explained {
            list: ExceptionList::Benign,
            id: "mlkem-rej-uniform".into(),
            reason: "rejection sampling of the public matrix from the public seed".into(),
            accepted: None,
        }),
    ));
    let liboqs = CtResult {
        algorithm: "ML-KEM-768".into(),
        family: "ml-kem".into(),
        implementation: "liboqs".into(),
        version: "0.12.0".into(),
        build: None,
        screens: liboqs_screens,
        error: None,
        interrupted: false,
    };
    let mut timing_leak = finding(FindingKind::Timing, "", "", None);
    timing_leak.line = None;
    timing_leak.stack = Vec::new();
    timing_leak.object = None;
    timing_leak.detail =
        "a fixed valid ciphertext against random valid ones: |t| = 37.2 (cropped at the 12th \
         percentile) after 20000 measurements"
            .into();
    let branch = CtResult {
        algorithm: "MockKEM".into(),
        family: "mock".into(),
        implementation: "mock/ct-branch".into(),
        version: "1".into(),
        build: None,
        screens: ct_screens(vec![
            screened(
                Screen::SecretFlow,
                Op::Decaps,
                vec![finding(
                    FindingKind::Branch,
                    "mock_ct_branch_decaps",
                    "src/providers/mock.rs:412",
                    None,
                )],
                None,
            ),
            screened(
                Screen::Timing,
                Op::Decaps,
                vec![timing_leak],
                Some(dudect(20_000, 37.2)),
            ),
        ]),
        error: None,
        interrupted: false,
    };
    let mut div = finding(
        FindingKind::VariableLatency {
            mnemonic: "div".into(),
        },
        "mock_ct_division_decaps",
        "src/providers/mock.rs:431",
        Some(Explained {
            list: ExceptionList::Issue,
            id: "mock-division".into(),
            reason: "the mock divides by a secret on purpose".into(),
            accepted: None,
        }),
    );
    div.secret_operands = Some(SecretOperands::Yes);
    div.detail = "div %rcx".into();
    let division = CtResult {
        implementation: "mock/ct-division".into(),
        screens: ct_screens(vec![
            screened(Screen::Latency, Op::Decaps, vec![div], None),
            screened(
                Screen::Timing,
                Op::Decaps,
                Vec::new(),
                Some(dudect(41_000, 3.0)),
            ),
        ]),
        ..branch.clone()
    };
    let unmarked = CtResult {
        algorithm: "ML-KEM-768".into(),
        family: "ml-kem".into(),
        implementation: "rustcrypto".into(),
        version: "0.2.1".into(),
        build: None,
        screens: [Op::Keygen, Op::Encaps, Op::Decaps]
            .into_iter()
            .flat_map(|op| {
                [Screen::SecretFlow, Screen::Latency].map(|s| {
                    ScreenResult::not_screened(
                        s,
                        op,
                        "its random draws cannot be fixed, and it has no derandomized entry point to mark",
                    )
                })
            })
            .chain([screened(
                Screen::Timing,
                Op::Decaps,
                Vec::new(),
                Some(dudect(8_000, 1.0)),
            )])
            .collect(),
        error: None,
        interrupted: false,
    };
    CtRecord {
        schema_version: crate::record::ct::SCHEMA_VERSION,
        run_id: None,
        sweep: None,
        state: Default::default(),
        kind: "kembench-ct".into(),
        started_at: "2026-11-22T12:00:00Z".into(),
        finished_at: Some("2026-11-22T12:20:00Z".into()),
        command_line: vec!["kembench".into(), "ct".into()],
        config: CtConfig {
            planned: [&liboqs, &branch, &division, &unmarked]
                .iter()
                .map(|r| format!("{}@{}", r.algorithm, r.implementation))
                .collect(),
            operations: vec![Op::Keygen, Op::Encaps, Op::Decaps],
            screens: Screen::ALL.to_vec(),
            timing_budget_s: 30.0,
            seed: 1,
            exceptions: vec![
                "exceptions/ct.toml (SHA-256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08)"
                    .into(),
            ],
            accepted: Vec::new(),
            worker_timeout_s: 600.0,
            include_mock: true,
        },
        environment: environment(),
        measured: CtMeasured {
            valgrind: Some("valgrind-3.19.0".into()),
        },
        results: vec![liboqs, branch, division, unmarked],
    }
}
