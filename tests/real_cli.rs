//! `kembench run` and `kembench compare` on real implementations through the command line (the
//! other CLI tests use the mock): ML-KEM-768 on liboqs, OpenSSL and libcrux, with its sizes
//! checked against FIPS 203, and a latency regression between two real runs that `compare`
//! must report and gate on. Short budgets: seconds per test.

mod common;

use common::{kembench, FAST};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A fresh folder of this test process's own.
fn tempdir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-real-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// ML-KEM-768's sizes, bytes (FIPS 203, Table 3): encapsulation key, decapsulation key,
/// ciphertext, shared secret.
const ML_KEM_768: [u64; 4] = [1184, 2400, 1088, 32];

/// `kembench run --alg ML-KEM-768 --impl IMPL` with short budgets into `json`, checked to
/// succeed; the file read back, after kembench's own reader has accepted it as a run record
/// of the current schema.
fn run(imp: &str, ops: &str, json: &Path) -> Value {
    let out = kembench()
        .args(["run", "--alg", "ML-KEM-768", "--impl", imp, "--ops", ops])
        .args(["--no-store", "--rounds", "4"])
        .args(FAST)
        .arg("--json")
        .arg(json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{imp}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(json).unwrap();
    let record = kembench::record::parse(&json.display().to_string(), &bytes)
        .unwrap_or_else(|e| panic!("{imp}: not a valid run record: {e}"));
    assert_eq!(record.kind(), kembench::record::RecordKind::Latency);
    serde_json::from_slice(&bytes).unwrap()
}

#[test]
fn ml_kem_768_runs_on_liboqs_openssl_and_libcrux_checked_sized_and_timed() {
    let dir = tempdir("ml_kem_768_runs");
    let v = run(
        "liboqs,openssl,libcrux",
        "keygen,encaps,decaps,exchange",
        &dir.join("r.json"),
    );
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["interrupted"], false, "{}", v["interrupted"]);
    let results = v["results"].as_array().unwrap();
    for provider in ["liboqs", "openssl", "libcrux"] {
        assert!(
            results
                .iter()
                .any(|r| r["implementation"].as_str().unwrap().split('/').next() == Some(provider)),
            "no {provider} result: {v}"
        );
    }
    for r in results {
        let imp = r["implementation"].as_str().unwrap();
        assert_eq!(r["algorithm"], "ML-KEM-768", "{imp}");
        assert_eq!(r["nist_level"], 3, "{imp}");
        let sizes: Vec<u64> = ["pk_bytes", "sk_bytes", "ct_bytes", "ss_bytes"]
            .iter()
            .map(|k| r[k].as_u64().unwrap())
            .collect();
        assert_eq!(sizes, ML_KEM_768, "{imp}");
        assert_eq!(r["wire_bytes"], 1184 + 1088, "{imp}");
        assert_eq!(
            r["correctness"]["status"], "pass",
            "{imp}: {}",
            r["correctness"]
        );
        assert!(r["error"].is_null() && r["failure"].is_null(), "{imp}: {r}");
        let ops: Vec<&str> = r["operations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["operation"].as_str().unwrap())
            .collect();
        assert_eq!(ops, ["keygen", "encaps", "decaps", "exchange"], "{imp}");
        for o in r["operations"].as_array().unwrap() {
            let what = format!("{imp} {}", o["operation"]);
            let samples = o["samples"].as_u64().unwrap();
            assert!(samples >= 5, "{what}: {samples} samples");
            assert_eq!(
                o["raw_samples_ns"].as_array().unwrap().len() as u64,
                samples,
                "{what}"
            );
            let q: Vec<f64> = ["min_ns", "p25_ns", "median_ns", "p75_ns", "max_ns"]
                .iter()
                .map(|k| o[k].as_f64().unwrap())
                .collect();
            assert!(q[0] > 0.0, "{what}: {q:?}");
            assert!(q.windows(2).all(|w| w[0] <= w[1]), "{what}: {q:?}");
        }
    }
}

/// The same implementation's real samples under another's label: `pqclean/clean`'s portable C
/// ML-KEM-768 (no vector instructions) recorded as if it were liboqs's AVX2 build. The gap is a
/// matter of instructions executed (several times as many), not of the machine's state, so the
/// verdict does not depend on timing noise: `compare --fail-on-regression` must fail from liboqs
/// to the relabelled run, name the operations, and pass the other way round, where every
/// operation is faster.
#[test]
fn compare_reports_and_gates_a_real_latency_regression() {
    let dir = tempdir("compare_reports_and_gates");
    let fast = dir.join("liboqs.json");
    let slow = dir.join("clean-as-liboqs.json");
    let ops = "keygen,encaps,decaps";
    let a = run("liboqs", ops, &fast);
    let mut b = run("pqclean/clean", ops, &dir.join("clean.json"));
    let label = a["results"][0]["implementation"].clone();
    b["results"][0]["implementation"] = label.clone();
    std::fs::write(&slow, serde_json::to_vec(&b).unwrap()).unwrap();

    let out = kembench()
        .arg("compare")
        .arg(&fast)
        .arg(&slow)
        .args(["--fail-on-regression", "20", "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("regress") || stderr.contains("slower"),
        "{stderr}"
    );
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{c:#}");
    for r in rows {
        assert_eq!(r["implementation"], label, "{r}");
        assert_eq!(r["verdict"], "slower", "{r}");
        assert!(r["ratio"].as_f64().unwrap() > 1.2, "{r}");
    }

    let out = kembench()
        .arg("compare")
        .arg(&slow)
        .arg(&fast)
        .args(["--fail-on-regression", "20", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    for r in c["rows"].as_array().unwrap() {
        assert_eq!(r["verdict"], "faster", "{r}");
    }
}
