//! Helpers shared by the CLI tests (each test file uses its own subset).
#![allow(dead_code)]

use assert_cmd::Command;
use serde_json::Value;
use std::ffi::OsStr;

/// Short measurement budgets: enough for every statistic, fast enough for tests.
pub const FAST: [&str; 6] = [
    "--time-budget",
    "0.05",
    "--warmup",
    "0.01",
    "--min-samples",
    "5",
];

/// `throughput` of the correct mock, before the thread counts and durations.
pub const MOCK_THROUGHPUT: [&str; 4] = ["throughput", "--include-mock", "--impl", "mock/correct"];

/// The binary writing into the results store `store`.
pub fn kembench_at(store: impl AsRef<OsStr>) -> Command {
    let mut c = Command::cargo_bin("kembench").unwrap();
    c.env("KEMBENCH_STORE", store);
    c
}

/// The binary, with a results store of this test process's own (never the user's).
pub fn kembench() -> Command {
    kembench_at(std::env::temp_dir().join(format!("kembench-tests-{}.sqlite", std::process::id())))
}

/// `kembench runs --json` of `store`.
pub fn runs(store: impl AsRef<OsStr>) -> Vec<Value> {
    let out = kembench_at(store)
        .args(["runs", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// `kembench export RUN` (JSON) of `store`.
pub fn export_json(store: impl AsRef<OsStr>, run: &str) -> Value {
    let out = kembench_at(store).args(["export", run]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
