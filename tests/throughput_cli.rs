//! CLI tests of `kembench throughput` on the mock provider.

mod common;

use common::{kembench, MOCK_THROUGHPUT};
use predicates::prelude::*;
use serde_json::Value;

fn json_of(extra: &[&str]) -> Value {
    let path = std::env::temp_dir().join(format!(
        "kembench-tp-{}-{}.json",
        std::process::id(),
        extra.len()
    ));
    kembench()
        .args(MOCK_THROUGHPUT)
        .args(["--threads", "1,2", "--duration", "0.05"])
        .args(extra)
        .arg("--json")
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("Efficiency = speedup"));
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

#[test]
fn threads_mode_reports_every_point_and_capacity() {
    let v = json_of(&[]);
    assert_eq!(v["kind"], "kembench-throughput");
    let r = &v["results"][0];
    let ops = r["operations"].as_array().unwrap();
    assert_eq!(ops.len(), 4);
    for o in ops {
        let pts = o["points"].as_array().unwrap();
        assert_eq!(pts.len(), 2);
        assert_eq!(pts[0]["threads"], 1);
        assert_eq!(pts[0]["speedup"], 1.0);
        assert_eq!(
            pts[1]["per_thread_ops_per_sec"].as_array().unwrap().len(),
            2
        );
        assert!(pts[1]["total_ops_per_sec"].as_f64().unwrap() > 0.0);
        assert!(o["latency_median_ns"].as_f64().unwrap() > 0.0);
    }
    assert!(String::from_utf8_lossy(&kembench_ok_stdout()).contains("TLS 1.3 capacity"));
    let cap = &r["capacity"];
    assert!(cap["server_handshakes_per_sec_per_core"].as_f64().unwrap() > 0.0);
    assert_eq!(cap["target_rate"], 70000.0);
}

fn kembench_ok_stdout() -> Vec<u8> {
    kembench()
        .args(MOCK_THROUGHPUT)
        .args(["--threads", "1", "--duration", "0.02"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone()
}

#[test]
fn processes_mode_runs_independent_workers() {
    let v = json_of(&["--processes", "--ops", "encaps"]);
    assert_eq!(v["config"]["processes"], true);
    let pts = v["results"][0]["operations"][0]["points"]
        .as_array()
        .unwrap();
    assert_eq!(
        pts[1]["per_thread_ops_per_sec"].as_array().unwrap().len(),
        2
    );
    assert!(pts[1]["per_thread_ops_per_sec"][1].as_f64().unwrap() > 0.0);
}

#[test]
fn bad_throughput_options_are_refused() {
    for (args, msg) in [
        (vec!["--threads", "2,4"], "must include 1"),
        (vec!["--duration", "0"], "--duration"),
        (vec!["--threads", "0"], "--threads"),
        (vec!["--target-rate=-5"], "--target-rate"),
    ] {
        kembench()
            .args(["throughput", "--include-mock", "--impl", "mock/correct"])
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(msg));
    }
}

#[test]
fn a_broken_implementation_is_not_measured() {
    kembench()
        .args([
            "throughput",
            "--include-mock",
            "--impl",
            "mock/broken",
            "--threads",
            "1",
            "--duration",
            "0.05",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("correctness check failed"));
}

#[test]
fn the_default_tables_fit_120_columns_and_wide_shows_the_per_thread_range() {
    let run = |wide: bool| {
        let mut c = kembench();
        c.args(["throughput", "--include-mock", "--impl", "mock/*"])
            .args(["--threads", "1,2", "--duration", "0.02", "--repeats", "1"]);
        if wide {
            c.arg("--wide");
        }
        let out = c.assert().code(1);
        String::from_utf8_lossy(&out.get_output().stdout).to_string()
    };
    let fit = run(false);
    assert!(fit.lines().all(|l| l.chars().count() <= 120), "{fit}");
    assert!(fit.contains("spread"), "{fit}");
    assert!(
        fit.contains("] MockKEM@mock/broken: not measured: correctness check failed"),
        "{fit}"
    );
    let wide = run(true);
    assert!(wide.contains("per-thread min – max"), "{wide}");
    assert!(wide.contains("correctness check failed"), "{wide}");
}
