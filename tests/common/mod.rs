//! Helpers shared by the CLI tests (each test file uses its own subset).
#![allow(dead_code)]

pub mod pmu;

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

/// A tls run (`kembench tls --json`), frozen (first written from the unit tests' fixture,
/// `fixture::tls`; checked against the specifications in `tests/fixtures.rs`): three
/// benchmarks: a hybrid group with every mode and three network conditions, a classical one
/// whose server flight overflows the initial window, and a group the stack lacks.
pub const TLS_FIXTURE: &str = include_str!("../data/tls.json");

/// Writes [`TLS_FIXTURE`] to `path`.
pub fn write_tls_fixture(path: &std::path::Path) {
    std::fs::write(path, TLS_FIXTURE).unwrap();
}

/// A ct run (`kembench ct --json`), frozen (first written from `fixture::ct`; checked in
/// `tests/fixtures.rs`): four implementations: benign findings only, an unexplained branch
/// and timing leak, a known issue, and one not screened.
pub const CT_FIXTURE: &str = include_str!("../data/ct.json");

/// Writes [`CT_FIXTURE`] to `path`.
pub fn write_ct_fixture(path: &std::path::Path) {
    std::fs::write(path, CT_FIXTURE).unwrap();
}

/// The binary writing into the results store `store`, with a build cache of this test
/// process's own (never the user's builds).
pub fn kembench_at(store: impl AsRef<OsStr>) -> Command {
    let mut c = Command::cargo_bin("kembench").unwrap();
    c.env("KEMBENCH_STORE", store).env(
        "KEMBENCH_BUILD_DIR",
        std::env::temp_dir().join(format!("kembench-tests-builds-{}", std::process::id())),
    );
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

/// `cmd profile ARGS --json FILE` (the binary with its store), which must succeed; the record
/// it wrote.
pub fn profile_record(cmd: Command, file: &std::path::Path, args: &[&str]) -> Value {
    command_record(cmd, "profile", file, args)
}

/// `cmd SUBCOMMAND ARGS --json FILE`, which must succeed; the record it wrote.
pub fn command_record(
    cmd: Command,
    subcommand: &str,
    file: &std::path::Path,
    args: &[&str],
) -> Value {
    command_output_record(cmd, subcommand, file, args).1
}

/// [`command_record`], with what the command printed on stdout.
pub fn command_output_record(
    mut cmd: Command,
    subcommand: &str,
    file: &std::path::Path,
    args: &[&str],
) -> (String, Value) {
    let out = cmd
        .arg(subcommand)
        .args(args)
        .arg("--json")
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let record = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), record)
}

/// kembench started in the background with `args` on `store`, the fault-injecting mocks
/// offered (`KEMBENCH_MOCK_FAULTS=1`), its output captured.
pub fn spawn(store: &std::path::Path, args: &[&str]) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("kembench"))
        .env("KEMBENCH_STORE", store)
        .env("KEMBENCH_MOCK_FAULTS", "1")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits (a minute at most) until `child`'s run is in `store`; its id.
pub fn wait_for_run(store: &std::path::Path, child: &mut std::process::Child) -> String {
    use std::time::{Duration, Instant};
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        if store.exists() {
            if let Some(r) = runs(store).first() {
                return r["id"].as_str().unwrap().to_string();
            }
        }
        assert!(Instant::now() < deadline, "the run never started");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Sends `sig` (SIGINT, SIGTERM) to `child`.
pub fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: kill(2) with a live child's pid and a valid signal number.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

/// `run --no-store` of the exchange with short budgets over `filters`, with the build cache
/// `builds`: its stdout and its `--json` record. Panics unless it succeeds.
pub fn run_exchange(builds: &std::path::Path, filters: &[&str]) -> (String, Value) {
    let json = builds.join(format!("run-{}.json", std::process::id()));
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", builds)
        .args(["run", "--no-store"])
        .args(filters)
        .args(FAST)
        .args(["--ops", "exchange", "--json", json.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let record = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), record)
}

/// The labels of a record's results, sorted.
pub fn result_labels(record: &serde_json::Value) -> Vec<String> {
    let mut v: Vec<String> = record["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{}@{}",
                r["algorithm"].as_str().unwrap(),
                r["implementation"].as_str().unwrap()
            )
        })
        .collect();
    v.sort();
    v
}

/// A fresh, empty build cache for one test (`KEMBENCH_BUILD_DIR`).
pub fn build_cache(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-builds-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `kembench builds ARGS --json` with the build cache `dir`: exit code, JSON, stderr.
pub fn builds_json(dir: &std::path::Path, args: &[&str]) -> (i32, Value, String) {
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", dir)
        .arg("builds")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json, stderr)
}

/// The result of a record labelled `algorithm@implementation`.
pub fn labelled<'a>(r: &'a Value, label: &str) -> &'a Value {
    r["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| {
            format!(
                "{}@{}",
                x["algorithm"].as_str().unwrap(),
                x["implementation"].as_str().unwrap()
            ) == label
        })
        .unwrap_or_else(|| panic!("no {label} in {r}"))
}

/// `kembench tls ARGS` in a short form (full handshakes unless `--modes` is given, 0.2 s, no
/// scaling, no store), its record written to `dir/tls.json`.
pub fn short_tls(dir: &std::path::Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    if !args.contains(&"--modes") {
        all.extend(["--modes", "full"]);
    }
    all.extend(["--no-store", "--duration", "0.2", "--threads", "0"]);
    command_record(kembench(), "tls", &dir.join("tls.json"), &all)
}
