//! A results store of the oldest schema (1): its tables as schema 1 creates them, and `runs`
//! and `results` rows holding the oldest JSON kembench stored, that of the commit that brought
//! the store (f62e4e4: `run::result::LatencyRecord` and `BenchResult`, the throughput record,
//! `env::Environment`; every field of theirs, none of a later one). No committed kembench left
//! a store at schema 1 (the store arrived at schema 2), so this is the oldest store there can
//! be. Two latency runs (one complete with a crashed and a failed benchmark, one interrupted)
//! and a throughput run. The SQLite test (`store_cli.rs`) and the PostgreSQL one
//! (`store_pg.rs`) write it with their own clients and check what today's kembench finds.
#![allow(dead_code)]

use serde_json::{json, Value};

/// Schema 1 exactly as kembench created it (the same SQL on SQLite and PostgreSQL), marked as
/// version 1.
pub const DDL: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS kembench_schema (id BIGINT PRIMARY KEY, version BIGINT NOT NULL)",
    "CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        host TEXT NOT NULL,
        cpu TEXT NOT NULL,
        selection TEXT NOT NULL,
        kembench_version TEXT NOT NULL,
        git_commit TEXT NOT NULL,
        command_line TEXT NOT NULL,
        header_json TEXT NOT NULL
    )",
    "CREATE TABLE results (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        algorithm TEXT NOT NULL,
        implementation TEXT NOT NULL,
        seq BIGINT NOT NULL,
        status TEXT NOT NULL,
        written_at TEXT NOT NULL,
        result_json TEXT NOT NULL,
        PRIMARY KEY (run_id, algorithm, implementation)
    )",
    "INSERT INTO kembench_schema (id, version) VALUES (1, 1)",
];

/// Inserts one `runs` row: [`Run::row`] in order (`finished_at` may be NULL).
pub const INSERT_RUN: &str = "INSERT INTO runs (id, kind, status, started_at, finished_at, host,
     cpu, selection, kembench_version, git_commit, command_line, header_json)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";

/// Inserts one `results` row: run id, algorithm, implementation, seq, status, written_at, JSON.
pub const INSERT_RESULT: &str = "INSERT INTO results (run_id, algorithm, implementation, seq,
     status, written_at, result_json) VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// One run as schema 1 stored it.
pub struct Run {
    /// `runs.id`.
    pub id: &'static str,
    /// `run` or `throughput`.
    pub kind: &'static str,
    /// `complete` or `interrupted`.
    pub status: &'static str,
    /// `runs.selection`.
    pub selection: &'static str,
    /// The record without its results, as JSON.
    pub header: Value,
    /// Its benchmarks in the order written.
    pub results: Vec<Stored>,
}

/// One `results` row.
pub struct Stored {
    /// `ok`, `check-failed`, `error`, `crashed`, `timed-out` or `interrupted`.
    pub status: &'static str,
    /// The result's JSON.
    pub json: Value,
}

impl Stored {
    /// Its algorithm.
    pub fn algorithm(&self) -> &str {
        self.json["algorithm"].as_str().unwrap()
    }

    /// Its implementation.
    pub fn implementation(&self) -> &str {
        self.json["implementation"].as_str().unwrap()
    }
}

/// An `operations` row: run, algorithm, implementation, operation, median, interval low and
/// high, p25, p75, samples, stop reason.
pub type OpRow = (
    String,
    String,
    String,
    String,
    f64,
    f64,
    f64,
    f64,
    f64,
    i64,
    String,
);

impl Run {
    /// The `runs` row's text columns in [`INSERT_RUN`]'s order (`finished_at` may be `None`).
    pub fn row(&self) -> Vec<Option<String>> {
        let h = &self.header;
        let text = |v: &Value| v.as_str().map(str::to_string);
        let command_line: Vec<&str> = h["command_line"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        vec![
            Some(self.id.into()),
            Some(self.kind.into()),
            Some(self.status.into()),
            text(&h["started_at"]),
            text(&h["finished_at"]),
            text(&h["environment"]["hostname"]),
            text(&h["environment"]["cpu"]["model"]),
            Some(self.selection.into()),
            text(&h["environment"]["build"]["kembench_version"]),
            text(&h["environment"]["build"]["git_commit"]),
            Some(command_line.join(" ")),
            Some(h.to_string()),
        ]
    }

    /// The `results` rows: algorithm, implementation, seq (from 1), status, written_at, JSON.
    pub fn result_rows(&self) -> Vec<(String, String, i64, String, String, String)> {
        self.results
            .iter()
            .enumerate()
            .map(|(i, r)| {
                (
                    r.algorithm().to_string(),
                    r.implementation().to_string(),
                    i as i64 + 1,
                    r.status.to_string(),
                    format!("{}:{:02}Z", &self.id_time(), i + 1),
                    r.json.to_string(),
                )
            })
            .collect()
    }

    /// The start as RFC 3339 up to the minutes, for the results' write times.
    fn id_time(&self) -> String {
        let s = self.header["started_at"].as_str().unwrap();
        s[..s.len() - 4].to_string()
    }
}

/// The machine the runs were made on, as `env::Environment` wrote it at schema 1.
fn environment() -> Value {
    json!({
        "hostname": "bench-7",
        "os": "Debian GNU/Linux 12 (bookworm)",
        "kernel": "6.1.0-27-amd64",
        "arch": "x86_64",
        "cpu": {
            "model": "AMD EPYC 7763 64-Core Processor",
            "vendor": "AuthenticAMD",
            "logical_cpus": 2,
            "physical_cores": 1,
            "smt": true,
            "flags": ["avx2", "aes", "bmi2", "constant_tsc"],
            "nominal_mhz": 2445.406,
            "governor": null,
            "turbo": null,
            "perf_event_paranoid": 2
        },
        "memory_bytes": 8331689984u64,
        "hypervisor": "KVM",
        "build": {
            "kembench_version": "0.1.0",
            "git_commit": "f62e4e4e9098",
            "rustc": "rustc 1.91.0 (f8297e351 2025-10-28)",
            "cc": "cc (Debian 12.2.0-14) 12.2.0",
            "profile": "release",
            "opt_level": "3",
            "target": "x86_64-unknown-linux-gnu",
            "target_features": ["fxsr", "sse", "sse2"]
        },
        "providers": [
            {"implementation": "liboqs", "version": "liboqs 0.14.0 (oqs-sys 0.11.0)"},
            {"implementation": "openssl", "version": "OpenSSL 3.5.4 (openssl-sys 0.9.111)"}
        ]
    })
}

/// A latency run's header (`LatencyRecord` without its results).
#[allow(clippy::too_many_arguments)]
fn run_header(
    id: &str,
    started: &str,
    finished: Option<&str>,
    command_line: &[&str],
    selection: &str,
    algorithms: &[&str],
    operations: &[&str],
    planned: &[&str],
) -> Value {
    json!({
        "schema_version": 1,
        "run_id": id,
        "interrupted": finished.is_none(),
        "kind": "kembench-run",
        "started_at": started,
        "finished_at": finished,
        "command_line": command_line,
        "config": {
            "selection": selection,
            "algorithms": algorithms,
            "implementations": [],
            "family": null,
            "level": null,
            "operations": operations,
            "sampler": {
                "time_budget_s": 1.0,
                "min_samples": 20,
                "max_samples": 10000,
                "warmup_s": 0.1,
                "target_precision": 0.01,
                "pool": 16,
                "rounds": 5
            },
            "pinned_cpu": 1,
            "include_mock": false,
            "planned": planned,
            "step_timeout_s": 120.0
        },
        "environment": environment(),
        "timers": {
            "clock": {"resolution": 20.0, "overhead": 24.5},
            "tsc": {"resolution": 10.0, "overhead": 18.0},
            "tsc_ticks_per_ns": 2.445
        },
        "counters_unavailable": "perf_event_open: Permission denied (perf_event_paranoid is 2)",
        "heap_includes_c_allocations": true,
        "results": []
    })
}

/// One measured operation (`OperationResult`), its statistics spread around `median`.
fn op(operation: &str, median: f64, samples: usize, stop: &str, share: Option<f64>) -> Value {
    let raw: Vec<f64> = (0..samples)
        .map(|i| median * (1.0 + ((i * 7 % 11) as f64 - 5.0) / 1000.0))
        .collect();
    let tsc: Vec<f64> = raw.iter().map(|ns| (ns * 2.445).round()).collect();
    json!({
        "operation": operation,
        "samples": samples,
        "batch": if median < 2000.0 { 16 } else { 1 },
        "warmup_calls": 120,
        "stop_reason": stop,
        "achieved_precision": 0.0042,
        "median_ns": median,
        "mean_ns": median * 1.0007,
        "stddev_ns": median * 0.003,
        "min_ns": median * 0.995,
        "max_ns": median * 1.005,
        "p5_ns": median * 0.996,
        "p25_ns": median * 0.998,
        "p75_ns": median * 1.002,
        "p95_ns": median * 1.004,
        "p99_ns": median * 1.005,
        "mad_ns": median * 0.002,
        "median_ci95_low_ns": median * 0.999,
        "median_ci95_high_ns": median * 1.0015,
        "outliers": {"low_severe": 0, "low_mild": 1, "high_mild": 2, "high_severe": 0},
        "ops_per_sec": 1e9 / median,
        "tsc_median_ticks": (median * 2.445).round(),
        "counters": {"status": "unavailable", "value": "perf_event_open: Permission denied"},
        "peak_heap_bytes": 0,
        "allocations": 0,
        "max_stack_bytes": 14336,
        "share_of_exchange": share,
        "round_medians_ns": [median * 0.999, median, median * 1.001, median, median * 1.002],
        "round_spread": 0.003003003003003,
        "raw_samples_ns": raw,
        "raw_samples_tsc_ticks": tsc
    })
}

/// A latency benchmark (`BenchResult`) with its sizes, check and operations.
fn bench(
    alg: &str,
    imp: &str,
    family: &str,
    level: Option<u8>,
    sizes: [usize; 4],
    check: (&str, &str),
    operations: Vec<Value>,
) -> Value {
    let [pk, sk, ct, ss] = sizes;
    json!({
        "algorithm": alg,
        "family": family,
        "nist_level": level,
        "implementation": imp,
        "version": if imp == "openssl" { "OpenSSL 3.5.4" } else { "liboqs 0.14.0" },
        "pk_bytes": pk,
        "sk_bytes": sk,
        "ct_bytes": ct,
        "ss_bytes": ss,
        "wire_bytes": pk + ct,
        "correctness": {"status": check.0, "detail": check.1},
        "operations": operations,
        "error": null
    })
}

const ML_KEM_768: [usize; 4] = [1184, 2400, 1088, 32];
const ML_KEM_512: [usize; 4] = [800, 1632, 768, 32];
const PASSED: (&str, &str) = ("pass", "3 round trips, sizes, canaries, implicit rejection");

/// The four operations of a full run, shares of the exchange filled as schema 1 did.
fn full(keygen: f64, encaps: f64, decaps: f64, exchange: f64) -> Vec<Value> {
    let total = keygen + encaps + decaps;
    vec![
        op("keygen", keygen, 40, "precision", Some(keygen / total)),
        op("encaps", encaps, 40, "precision", Some(encaps / total)),
        op("decaps", decaps, 25, "budget", Some(decaps / total)),
        op("exchange", exchange, 40, "precision", None),
    ]
}

/// The runs of the store.
pub fn runs() -> Vec<Run> {
    let complete_id = "20261122-183012-5e0c2a41";
    let planned = [
        "ML-KEM-768@liboqs",
        "ML-KEM-768@openssl",
        "X25519@openssl",
        "Classic-McEliece-348864@liboqs",
        "HQC-128@liboqs",
    ];
    let mut crashed = bench(
        "Classic-McEliece-348864",
        "liboqs",
        "code-based",
        Some(1),
        [261120, 6492, 96, 32],
        PASSED,
        vec![op("keygen", 41_250_000.0, 20, "below-minimum", None)],
    );
    crashed["failure"] = json!({
        "kind": "crashed",
        "signal": 11,
        "signal_name": "SIGSEGV",
        "exit_code": null,
        "during": "encaps round 2/5",
        "detail": "the worker was killed by SIGSEGV during encaps round 2/5"
    });
    let complete = Run {
        id: complete_id,
        kind: "run",
        status: "complete",
        selection: "default",
        header: run_header(
            complete_id,
            "2026-11-22T18:30:12Z",
            Some("2026-11-22T18:33:40Z"),
            &["kembench", "run"],
            "default",
            &[],
            &["keygen", "encaps", "decaps", "exchange"],
            &planned,
        ),
        // In the order they finished, not as planned.
        results: vec![
            Stored {
                status: "ok",
                json: bench(
                    "ML-KEM-768",
                    "openssl",
                    "module-lattice",
                    Some(3),
                    ML_KEM_768,
                    PASSED,
                    full(38_950.0, 41_020.5, 44_875.25, 125_330.0),
                ),
            },
            Stored {
                status: "ok",
                json: bench(
                    "ML-KEM-768",
                    "liboqs",
                    "module-lattice",
                    Some(3),
                    ML_KEM_768,
                    PASSED,
                    full(21_804.0, 24_130.5, 27_722.75, 74_001.0),
                ),
            },
            Stored {
                status: "ok",
                json: bench(
                    "X25519",
                    "openssl",
                    "elliptic-curve",
                    None,
                    [32, 32, 32, 32],
                    ("pass", "3 round trips, sizes, canaries"),
                    full(41_870.0, 84_102.0, 42_311.5, 168_770.0),
                ),
            },
            Stored {
                status: "crashed",
                json: crashed,
            },
            Stored {
                status: "check-failed",
                json: bench(
                    "HQC-128",
                    "liboqs",
                    "code-based",
                    Some(1),
                    [2249, 2305, 4433, 64],
                    (
                        "fail",
                        "implicit rejection: decapsulation of a modified ciphertext failed",
                    ),
                    vec![],
                ),
            },
        ],
    };

    let interrupted_id = "20261123-091500-c0ffee01";
    let mut stopped = bench(
        "ML-KEM-512",
        "openssl",
        "module-lattice",
        Some(1),
        ML_KEM_512,
        PASSED,
        vec![op("keygen", 27_110.0, 10_000, "max-samples", None)],
    );
    stopped["failure"] = json!({
        "kind": "interrupted",
        "signal": null,
        "signal_name": null,
        "exit_code": null,
        "during": "encaps round 1/5",
        "detail": "Ctrl-C stopped the run before this benchmark completed"
    });
    let interrupted = Run {
        id: interrupted_id,
        kind: "run",
        status: "interrupted",
        selection: "--alg ML-KEM-512",
        header: run_header(
            interrupted_id,
            "2026-11-23T09:15:00Z",
            None,
            &[
                "kembench",
                "run",
                "--alg",
                "ML-KEM-512",
                "--ops",
                "keygen,encaps",
            ],
            "filtered",
            &["ML-KEM-512"],
            &["keygen", "encaps"],
            &["ML-KEM-512@liboqs", "ML-KEM-512@openssl"],
        ),
        results: vec![
            Stored {
                status: "ok",
                json: bench(
                    "ML-KEM-512",
                    "liboqs",
                    "module-lattice",
                    Some(1),
                    ML_KEM_512,
                    PASSED,
                    vec![
                        op("keygen", 14_020.0, 40, "rounds-disagree", None),
                        op("encaps", 15_990.5, 40, "precision", None),
                    ],
                ),
            },
            Stored {
                status: "interrupted",
                json: stopped,
            },
        ],
    };

    let throughput_id = "20261123-102000-7a7a0b0b";
    let point = |threads: usize, total: f64, speedup: f64| {
        json!({
            "threads": threads,
            "total_ops_per_sec": total,
            "per_thread_ops_per_sec": vec![total / threads as f64; threads],
            "thread_spread": if threads == 1 { 0.0 } else { 0.012 },
            "speedup": speedup,
            "efficiency": speedup / threads as f64,
            "flags": [],
            "repeat_totals_ops_per_sec": [total * 0.99, total, total * 1.01]
        })
    };
    let scaling = |operation: &str, latency: f64| {
        let one = 1e9 / latency * 0.98;
        json!({
            "operation": operation,
            "latency_median_ns": latency,
            "one_thread_vs_latency": 0.98,
            "points": [point(1, one, 1.0), point(2, one * 1.9, 1.9), point(4, one * 1.95, 1.95)],
            "flags": []
        })
    };
    let throughput = Run {
        id: throughput_id,
        kind: "throughput",
        status: "complete",
        selection: "ML-KEM-768@liboqs",
        header: json!({
            "schema_version": 1,
            "run_id": throughput_id,
            "kind": "kembench-throughput",
            "started_at": "2026-11-23T10:20:00Z",
            "finished_at": "2026-11-23T10:20:31Z",
            "command_line": ["kembench", "throughput", "--alg", "ML-KEM-768", "--impl", "liboqs"],
            "config": {
                "threads": [1, 2, 4],
                "duration_s": 1.0,
                "repeats": 3,
                "pinned": false,
                "processes": false,
                "target_rate": 10000.0,
                "operations": ["keygen", "encaps", "decaps"],
                "planned": ["ML-KEM-768@liboqs"]
            },
            "environment": environment(),
            "results": []
        }),
        results: vec![Stored {
            status: "ok",
            json: json!({
                "algorithm": "ML-KEM-768",
                "family": "module-lattice",
                "implementation": "liboqs",
                "version": "liboqs 0.14.0",
                "operations": [
                    scaling("keygen", 21_804.0),
                    scaling("encaps", 24_130.5),
                    scaling("decaps", 27_722.75)
                ],
                "capacity": {
                    "basis_threads": 2,
                    "server_handshakes_per_sec_per_core": 38_590.0,
                    "client_handshakes_per_sec_per_core": 17_000.0,
                    "target_rate": 10000.0,
                    "server_cores_for_target": 0.2591344907,
                    "client_cores_for_target": 0.5882352941
                },
                "error": null
            }),
        }],
    };
    vec![complete, interrupted, throughput]
}

/// [`runs`] with one more benchmark in the complete run whose keygen median is `null` (how
/// JSON writes a NaN): a row schema 1 could hold from which no `operations` row can be made.
/// The runs, and that run's id and benchmark.
pub fn with_unreadable_row() -> (Vec<Run>, &'static str, &'static str) {
    let mut runs = runs();
    let mut ops = full(55_000.0, 58_000.0, 61_000.0, 170_000.0);
    ops[0]["median_ns"] = Value::Null;
    runs[0].results.push(Stored {
        status: "ok",
        json: bench(
            "ML-KEM-1024",
            "liboqs",
            "module-lattice",
            Some(5),
            [1568, 3168, 1568, 32],
            PASSED,
            ops,
        ),
    });
    (runs, "20261122-183012-5e0c2a41", "ML-KEM-1024@liboqs")
}

/// Every `operations` row schema 2 must hold for `runs`, sorted: one per operation of every
/// latency result, crashed and interrupted benchmarks' measured operations included.
pub fn expected_operations(runs: &[Run]) -> Vec<OpRow> {
    let mut rows = Vec::new();
    for run in runs.iter().filter(|r| r.kind == "run") {
        for r in &run.results {
            for o in r.json["operations"].as_array().unwrap() {
                let f = |k: &str| o[k].as_f64().unwrap();
                rows.push((
                    run.id.to_string(),
                    r.algorithm().to_string(),
                    r.implementation().to_string(),
                    o["operation"].as_str().unwrap().to_string(),
                    f("median_ns"),
                    f("median_ci95_low_ns"),
                    f("median_ci95_high_ns"),
                    f("p25_ns"),
                    f("p75_ns"),
                    o["samples"].as_i64().unwrap(),
                    o["stop_reason"].as_str().unwrap().to_string(),
                ));
            }
        }
    }
    rows.sort_by(|a, b| a.partial_cmp(b).unwrap());
    rows
}

/// Whether every field of `old` is in `new` with the same value (objects may have gained
/// fields; arrays must match element by element).
pub fn keeps(old: &Value, new: &Value) -> bool {
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => o
            .iter()
            .all(|(k, v)| n.get(k).is_some_and(|nv| keeps(v, nv))),
        (Value::Array(o), Value::Array(n)) => {
            o.len() == n.len() && o.iter().zip(n).all(|(a, b)| keeps(a, b))
        }
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => old == new,
    }
}

/// Checks a store holding [`runs`], opened by today's kembench (`store` names it: a file or
/// a URL): `runs` lists every run as stored, each loads back through
/// `store::records::record`, `show` shows it and `export` gives every benchmark with every
/// value it was stored with; the store is at today's schema.
pub fn check_every_run(store: &str, runs: &[Run]) {
    let listed = crate::common::runs(store);
    assert_eq!(listed.len(), runs.len(), "{listed:#?}");
    for run in runs {
        let l = listed
            .iter()
            .find(|l| l["id"] == run.id)
            .unwrap_or_else(|| panic!("run {} not listed: {listed:#?}", run.id));
        let row = run.row();
        let not_ok = run.results.iter().filter(|r| r.status != "ok").count();
        assert_eq!(l["kind"], run.kind, "{l}");
        assert_eq!(l["status"], run.status, "{l}");
        assert_eq!(l["started_at"].as_str(), row[3].as_deref(), "{l}");
        assert_eq!(l["finished_at"].as_str(), row[4].as_deref(), "{l}");
        assert_eq!(l["host"], "bench-7", "{l}");
        assert_eq!(l["selection"], run.selection, "{l}");
        assert_eq!(l["kembench"], "0.1.0 (f62e4e4e9098)", "{l}");
        assert_eq!(l["results"], run.results.len(), "{l}");
        assert_eq!(l["not_ok"], not_ok, "{l}");

        // The library path every reading command takes.
        let mut s = kembench::store::Store::open(store).unwrap();
        let stored = s.load(run.id).unwrap();
        let jsons: Vec<Value> = stored
            .results
            .iter()
            .map(|(_, j)| serde_json::from_str(j).unwrap())
            .collect();
        let written: Vec<Value> = run.results.iter().map(|r| r.json.clone()).collect();
        assert_eq!(jsons, written, "run {}: the stored results", run.id);
        let statuses: Vec<&str> = stored.results.iter().map(|(s, _)| s.as_str()).collect();
        let want: Vec<&str> = run.results.iter().map(|r| r.status).collect();
        assert_eq!(statuses, want, "run {}", run.id);
        let record = kembench::store::records::record(&stored)
            .unwrap_or_else(|e| panic!("run {} does not load: {e:#}", run.id));
        assert_eq!(record.kind().store_kind(), run.kind);

        // What `show` and `export` print from it.
        let out = crate::common::kembench_at(store)
            .args(["show", run.id])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "show {}: {}",
            run.id,
            String::from_utf8_lossy(&out.stderr)
        );
        let shown = String::from_utf8_lossy(&out.stdout);
        for r in &run.results {
            assert!(
                shown.contains(r.algorithm()),
                "show {}: {} missing\n{shown}",
                run.id,
                r.algorithm()
            );
        }
        let exported = crate::common::export_json(store, run.id);
        let mut header = run.header.clone();
        header["results"] = Value::Array(written.clone());
        let results = exported["results"].as_array().unwrap();
        assert_eq!(results.len(), written.len(), "run {}", run.id);
        // Every benchmark with every value it was stored with (listed as planned).
        for w in &written {
            let e = results
                .iter()
                .find(|e| {
                    e["algorithm"] == w["algorithm"] && e["implementation"] == w["implementation"]
                })
                .unwrap_or_else(|| {
                    panic!("run {}: {} missing from export", run.id, w["algorithm"])
                });
            assert!(
                keeps(w, e),
                "run {}: exported\n{e:#}\nstored\n{w:#}",
                run.id
            );
        }
        header["results"] = Value::Array(results.clone());
        assert!(
            keeps(&header, &exported),
            "run {}: exported\n{exported:#}\nstored header\n{header:#}",
            run.id
        );
    }
}
