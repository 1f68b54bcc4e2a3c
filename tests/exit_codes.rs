//! Exit codes mean something: 0 success, 1 a check or benchmark failed, 2 bad usage or
//! arguments, 3 an I/O or store error (130, interrupted, is covered in store_cli.rs).

mod common;
use common::{kembench, kembench_at, FAST};
use std::path::PathBuf;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-exit-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A `run --json` file of the correct mock.
fn run_file(d: &std::path::Path) -> PathBuf {
    let f = d.join("r.json");
    kembench()
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--no-store",
            "--json",
        ])
        .arg(&f)
        .args(FAST)
        .assert()
        .success();
    f
}

#[test]
fn success_is_0_and_a_failed_check_is_1() {
    kembench()
        .args(["verify", "--include-mock", "--impl", "mock/correct"])
        .assert()
        .code(0);
    kembench()
        .args(["verify", "--include-mock", "--impl", "mock/broken"])
        .assert()
        .code(1);
    kembench()
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/broken",
            "--no-store",
        ])
        .args(FAST)
        .assert()
        .code(1);
}

#[test]
fn bad_arguments_and_names_are_2() {
    kembench()
        .args(["list", "--alg", "ML-KEM-786"])
        .assert()
        .code(2);
    kembench()
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--time-budget",
            "-1",
        ])
        .assert()
        .code(2);
    kembench()
        .args(["compare", "a.json", "b.json", "--noise", "400"])
        .assert()
        .code(2);
    let d = dir("usage");
    let store = d.join("s.sqlite");
    kembench_at(&store)
        .args(["run", "--include-mock", "--impl", "mock/correct"])
        .args(FAST)
        .assert()
        .success();
    kembench_at(&store)
        .args(["show", "no-such-run"])
        .assert()
        .code(2);
    kembench_at(&store)
        .args(["show", "latest~7"])
        .assert()
        .code(2);
    let not_a_record = d.join("x.json");
    std::fs::write(&not_a_record, "{\"kind\": \"something-else\"}").unwrap();
    kembench_at(&store)
        .arg("import")
        .arg(&not_a_record)
        .assert()
        .code(2);
}

#[test]
fn a_store_that_cannot_be_used_is_3() {
    let d = dir("store");
    let store = d.join("s.sqlite");
    std::fs::write(
        &store,
        b"not a database at all, just some bytes".repeat(100),
    )
    .unwrap();
    kembench_at(&store).arg("runs").assert().code(3);
    kembench_at(&store)
        .args(["run", "--include-mock", "--impl", "mock/correct"])
        .args(FAST)
        .assert()
        .code(3);
}

#[test]
fn a_report_that_cannot_be_written_is_3() {
    let d = dir("write");
    let f = run_file(&d);
    // /proc exists and is a directory, but no file can be created in it, even by root.
    kembench()
        .arg("report")
        .arg(&f)
        .args(["-o", "/proc/kembench-report.html"])
        .assert()
        .code(3);
    let store = d.join("s.sqlite");
    kembench_at(&store).arg("import").arg(&f).assert().success();
    kembench_at(&store)
        .args(["export", "latest", "-o", "/proc/kembench-export.json"])
        .assert()
        .code(3);
}
