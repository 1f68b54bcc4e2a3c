//! CLI tests of `kembench ct` on the constant-time mocks (`KEMBENCH_MOCK_CT=1`): each mock
//! leaks its secret through one channel, and each screen catches what it can see and nothing
//! else. valgrind is needed (never skipped: the screens must run).

mod common;

use common::kembench_at;
use serde_json::Value;
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("kembench-ct-{}-{name}", std::process::id()))
}

/// `kembench ct` over `impls` (mock implementation ids), decapsulation only, into a JSON file
/// and a store of its own; the exit code and the record.
fn ct(name: &str, impls: &str, extra: &[&str]) -> (i32, Value, String) {
    let json = tmp(&format!("{name}.json"));
    let out = kembench_at(tmp(&format!("{name}.sqlite")))
        .env("KEMBENCH_MOCK_CT", "1")
        .args(["ct", "--include-mock", "--impl", impls, "--ops", "decaps"])
        .args(extra)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let record =
        serde_json::from_slice(&std::fs::read(&json).unwrap_or_default()).unwrap_or_else(|e| {
            panic!(
                "no record ({e}); stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    (out.status.code().unwrap_or(-1), record, stdout)
}

/// The kinds of the findings of `screen` for `implementation`'s decapsulation.
fn kinds(record: &Value, implementation: &str, screen: &str) -> Vec<String> {
    let r = record["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["implementation"] == implementation)
        .unwrap_or_else(|| panic!("no result for {implementation}"));
    let s = r["screens"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["screen"] == screen && s["operation"] == "decaps")
        .unwrap_or_else(|| panic!("{implementation}: no {screen} screen of decaps"));
    assert_eq!(
        s["ran"]["state"], "screened",
        "{implementation}: {screen} must have run: {s}"
    );
    s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn each_screen_catches_the_leaks_it_can_see_and_no_other() {
    let (code, v, stdout) = ct(
        "mocks",
        "mock/correct,mock/ct-branch,mock/ct-index,mock/ct-division,mock/ct-timing",
        &["--timing-budget", "4"],
    );
    assert_eq!(code, 1, "unexplained findings fail the run:\n{stdout}");
    assert_eq!(v["kind"], "kembench-ct");
    // Secret flow (memcheck): branches and indexes, never divisions or time.
    assert_eq!(kinds(&v, "mock/ct-branch", "secret-flow"), ["branch"]);
    assert_eq!(kinds(&v, "mock/ct-index", "secret-flow"), ["index"]);
    for blind in ["mock/correct", "mock/ct-division", "mock/ct-timing"] {
        assert!(
            kinds(&v, blind, "secret-flow").is_empty(),
            "{blind}: memcheck sees neither a division nor a subnormal operand"
        );
    }
    // Latency: the division, and nothing in the others (the subnormal multiplications of
    // mock/ct-timing are not an instruction this screen lists).
    let div = kinds(&v, "mock/ct-division", "latency");
    assert!(div.iter().any(|k| k == "variable-latency"), "{div:?}");
    for other in [
        "mock/correct",
        "mock/ct-branch",
        "mock/ct-index",
        "mock/ct-timing",
    ] {
        assert!(kinds(&v, other, "latency").is_empty(), "{other}");
    }
    // Timing: the leak that only time shows, and the branch (a hash on half the ciphertexts).
    // (one finding per test that leaks: fixed against random ciphertexts, valid against invalid)
    for leaky in ["mock/ct-timing", "mock/ct-branch"] {
        let k = kinds(&v, leaky, "timing");
        assert!(
            !k.is_empty() && k.iter().all(|k| k == "timing"),
            "{leaky}: {k:?}"
        );
    }
    assert!(stdout.contains("mock/ct-division"), "{stdout}");
}

#[test]
fn an_exception_list_explains_a_finding_with_its_reason() {
    let list = tmp("exceptions.toml");
    std::fs::write(
        &list,
        r#"
[[exception]]
id = "mock-branch-test"
list = "benign"
algorithm = "MockKEM"
implementation = "mock/ct-branch"
screen = "secret-flow"
operation = "decaps"
kind = "branch"
function = "*mock::leak*"
reason = "the test's own exception: this mock branches on purpose"
"#,
    )
    .unwrap();
    let args = ["--screens", "secret-flow"];
    let (code, v, _) = ct("unlisted", "mock/ct-branch", &args);
    assert_eq!(code, 1, "an unexplained branch fails the run");
    let f = &v["results"][0]["screens"][0]["findings"][0];
    assert!(f.get("explained").is_none(), "{f}");

    let list_arg = list.to_str().unwrap();
    let (code, v, stdout) = ct(
        "listed",
        "mock/ct-branch",
        &["--screens", "secret-flow", "--exceptions", list_arg],
    );
    assert_eq!(code, 0, "every finding explained:\n{stdout}");
    let f = &v["results"][0]["screens"][0]["findings"][0];
    assert_eq!(f["explained"]["id"], "mock-branch-test");
    assert_eq!(f["explained"]["list"], "benign");
    assert!(stdout.contains("mock-branch-test") || stdout.contains("this mock branches"));
}

#[test]
fn bad_input_is_refused_with_a_suggestion() {
    let out = kembench_at(tmp("bad.sqlite"))
        .args(["ct", "--screens", "secret-flwo", "--no-store"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean secret-flow"), "{err}");

    let out = kembench_at(tmp("bad.sqlite"))
        .args(["ct", "--ops", "exchange", "--no-store"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));

    let list = tmp("broken.toml");
    std::fs::write(&list, "[[exception]]\nid = \"x\"\n").unwrap();
    let out = kembench_at(tmp("bad.sqlite"))
        .args(["ct", "--no-store", "--exceptions"])
        .arg(&list)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken.toml"));

    // No valgrind: said before anything runs, with the command that installs it.
    let out = kembench_at(tmp("bad.sqlite"))
        .env("KEMBENCH_VALGRIND", "/nonexistent/valgrind")
        .args(["ct", "--no-store"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("apt-get install valgrind"), "{err}");
}
