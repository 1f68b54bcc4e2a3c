//! CLI tests of `kembench compare` on mock runs and on doctored copies of them.

mod common;

use common::{kembench, write_tls_fixture};
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-compare-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn mock_run(path: &Path) {
    kembench()
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--time-budget",
            "0.1",
            "--warmup",
            "0.01",
        ])
        .args([
            "--min-samples",
            "10",
            "--rounds",
            "5",
            "--ops",
            "keygen,encaps",
            "--json",
        ])
        .arg(path)
        .assert()
        .success();
}

/// A copy of a run with every sample and round median multiplied by `factor`.
fn scaled(src: &Path, dst: &Path, factor: f64) {
    let mut v: Value = serde_json::from_slice(&std::fs::read(src).unwrap()).unwrap();
    for r in v["results"].as_array_mut().unwrap() {
        for o in r["operations"].as_array_mut().unwrap() {
            for key in ["raw_samples_ns", "round_medians_ns"] {
                for x in o[key].as_array_mut().unwrap() {
                    *x = Value::from(x.as_f64().unwrap() * factor);
                }
            }
            let m = o["median_ns"].as_f64().unwrap();
            o["median_ns"] = Value::from(m * factor);
        }
    }
    std::fs::write(dst, serde_json::to_vec(&v).unwrap()).unwrap();
}

#[test]
fn a_run_against_itself_is_within_noise_and_a_slowed_copy_is_a_regression() {
    let d = dir();
    let a = d.join("a.json");
    mock_run(&a);
    kembench()
        .arg("compare")
        .arg(&a)
        .arg(&a)
        .args(["--fail-on-regression", "5"])
        .assert()
        .success()
        .stdout(predicate::str::contains("within noise"))
        .stdout(predicate::str::contains("Same environment"));
    let slow = d.join("slow.json");
    // This project's VMs change speed by up to 1.5-2x between rounds (README, "How run
    // measures"), so a 1.25x slowdown of a short run is sometimes rightly within noise for the
    // rounds test; 2.5x is beyond what the machine's drift can hide.
    scaled(&a, &slow, 2.5);
    kembench()
        .arg("compare")
        .arg(&a)
        .arg(&slow)
        .args(["--fail-on-regression", "5"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("SLOWER"))
        .stderr(predicate::str::contains("regressed by more than 5%"));
    let out = kembench()
        .arg("compare")
        .arg(&slow)
        .arg(&a)
        .arg("--json")
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    for row in v["rows"].as_array().unwrap() {
        assert_eq!(row["verdict"], "faster", "{row}");
        assert!(row["rounds_p_value"].as_f64().is_some());
    }
}

#[test]
fn bad_files_give_clear_errors() {
    let d = dir();
    let broken = d.join("broken.json");
    std::fs::write(&broken, b"{ not json").unwrap();
    kembench()
        .arg("compare")
        .arg(&broken)
        .arg(&broken)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not JSON"));
    let other = d.join("other.json");
    std::fs::write(
        &other,
        br#"{"kind": "kembench-throughput", "schema_version": 1}"#,
    )
    .unwrap();
    kembench()
        .arg("compare")
        .arg(&other)
        .arg(&other)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a run"));
    let newer = d.join("newer.json");
    std::fs::write(&newer, br#"{"kind": "kembench-run", "schema_version": 99}"#).unwrap();
    kembench()
        .arg("compare")
        .arg(&newer)
        .arg(&newer)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("newer kembench"));
    kembench()
        .arg("compare")
        .arg(d.join("missing.json"))
        .arg(d.join("missing.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read"));
}

#[test]
fn two_tls_runs_are_compared_by_best_round_medians_with_the_warning() {
    let d = dir();
    let a = d.join("tls-a.json");
    write_tls_fixture(&a);
    let mut v: Value = serde_json::from_slice(&std::fs::read(&a).unwrap()).unwrap();
    let full = &mut v["results"][0]["modes"][0];
    let old = full["server_best_round_median_ns"].as_f64().unwrap();
    full["server_best_round_median_ns"] = Value::from(old * 1.5);
    let b = d.join("tls-b.json");
    std::fs::write(&b, serde_json::to_vec(&v).unwrap()).unwrap();
    kembench()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .assert()
        .success()
        .stdout(predicate::str::contains("1.500"))
        .stdout(predicate::str::contains("No flight changed size."))
        .stdout(predicate::str::is_match(r"indicative\s+only").unwrap());
    let out = kembench()
        .args(["compare", "--json"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["modes"].as_array().unwrap().len(), 4);
    assert_eq!(report["modes"][0]["new_server_ns"], Value::from(old * 1.5));
    kembench()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .args(["--fail-on-regression", "5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no significance test"));
    // A latency run against a tls run is refused, whichever side it is on.
    let run = d.join("latency-for-tls.json");
    mock_run(&run);
    kembench()
        .arg("compare")
        .arg(&run)
        .arg(&a)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is a run (`kembench run --json`) and",
        ))
        .stderr(predicate::str::contains(
            "compare reads two records of the same kind",
        ));
    kembench()
        .arg("compare")
        .arg(&a)
        .arg(&run)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is a tls run (`kembench tls --json`) and",
        ))
        .stderr(predicate::str::contains(
            "compare reads two records of the same kind",
        ));
}
