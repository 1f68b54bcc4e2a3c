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

/// An exception list that lists the branch mock's secret branch in decapsulation as a known
/// issue (id `mock-branch-issue`), and the index mock's as benign (`mock-index-benign`).
const ISSUE_LIST: &str = r#"
[[exception]]
id = "mock-branch-issue"
list = "issue"
algorithm = "MockKEM"
implementation = "mock/ct-branch"
screen = "secret-flow"
operation = "decaps"
kind = "branch"
function = "*mock::leak*"
reason = "the test's own known issue: this mock branches on a secret on purpose"

[[exception]]
id = "mock-index-benign"
list = "benign"
algorithm = "MockKEM"
implementation = "mock/ct-index"
screen = "secret-flow"
kind = "index"
function = "*mock::leak*"
reason = "the test's own benign entry"
"#;

/// A known leak is still a leak: a finding listed as a known issue fails `ct` (exit 1) until
/// the user accepts that issue by its id, on the command line or in a list of their own; the
/// record and the console say which were accepted and by what. An id that names no issue is
/// refused with the nearest ones.
#[test]
fn a_known_issue_fails_the_run_until_it_is_accepted_by_id() {
    let list = tmp("issue-list.toml");
    std::fs::write(&list, ISSUE_LIST).unwrap();
    let list_arg = list.to_str().unwrap();
    let flow = ["--screens", "secret-flow", "--exceptions", list_arg];

    let (code, v, stdout) = ct("issue", "mock/ct-branch", &flow);
    assert_eq!(
        code, 1,
        "a known issue nobody accepted fails the run:\n{stdout}"
    );
    let f = &v["results"][0]["screens"][0]["findings"][0];
    assert_eq!(f["explained"]["id"], "mock-branch-issue", "{f}");
    assert_eq!(f["explained"]["list"], "issue");
    assert!(f["explained"].get("accepted").is_none(), "{f}");
    assert_eq!(
        v["results"][0]["screens"][0]["findings"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert!(
        stdout.contains("issue mock-branch-issue"),
        "the id is printed beside the finding:\n{stdout}"
    );
    assert!(
        stdout.contains("Known issues not accepted, which fail the run: mock-branch-issue.")
            && stdout.contains("--accept mock-branch-issue"),
        "says which and how to accept them:\n{stdout}"
    );

    // Accepted on the command line.
    let accept = [&flow[..], &["--accept", "mock-branch-issue"]].concat();
    let (code, v, stdout) = ct("issue-accepted", "mock/ct-branch", &accept);
    assert_eq!(code, 0, "an accepted known issue passes:\n{stdout}");
    let f = &v["results"][0]["screens"][0]["findings"][0];
    assert_eq!(f["explained"]["accepted"], "--accept", "{f}");
    assert_eq!(v["config"]["accepted"][0], "mock-branch-issue");
    assert!(
        stdout.contains("Known issues accepted: mock-branch-issue (by --accept)"),
        "{stdout}"
    );
    assert!(stdout.contains("known issue (accepted)"), "{stdout}");

    // Accepted in a list of the user's, with its reason.
    let accepting = tmp("accepting.toml");
    std::fs::write(
        &accepting,
        "# ours\n[[accept]]\nid = \"mock-branch-issue\"\nreason = \"only the test ships it\"\n",
    )
    .unwrap();
    let by_list = [&flow[..], &["--exceptions", accepting.to_str().unwrap()]].concat();
    let (code, v, stdout) = ct("issue-listed", "mock/ct-branch", &by_list);
    assert_eq!(code, 0, "accepted in a list:\n{stdout}");
    let by = v["results"][0]["screens"][0]["findings"][0]["explained"]["accepted"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        by.ends_with("accepting.toml:2"),
        "the file and line that accepted it: {by}"
    );
    assert!(stdout.contains("mock-branch-issue (by "), "{stdout}");

    // Refused before anything runs (exit 2): what it says.
    let refused = |args: &[&str]| -> String {
        let out = kembench_at(tmp("issue-bad.sqlite"))
            .env("KEMBENCH_MOCK_CT", "1")
            .args([
                "ct",
                "--include-mock",
                "--impl",
                "mock/ct-branch",
                "--no-store",
            ])
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        err
    };
    // An id that names no issue, with the nearest issue's id.
    let err = refused(&[&flow[..], &["--accept", "mock-branch-isue"]].concat());
    assert!(
        err.contains("no known issue has the id `mock-branch-isue`"),
        "{err}"
    );
    assert!(err.contains("did you mean mock-branch-issue"), "{err}");
    // A benign entry's id is not an issue to accept.
    let err = refused(&[&flow[..], &["--accept", "mock-index-benign"]].concat());
    assert!(err.contains("is a benign entry"), "{err}");
    // So is an unknown id in a list, named by its file and line.
    std::fs::write(&accepting, "[[accept]]\nid = \"nope\"\nreason = \"r\"\n").unwrap();
    let err = refused(&by_list);
    assert!(
        err.contains("accepting.toml:1: no known issue has the id `nope`"),
        "{err}"
    );
}

/// A malformed exception list is bad input: exit 2 (the README's table), naming the file,
/// the line and the problem; a list that cannot be read is an I/O error (exit 3).
#[test]
fn a_malformed_exception_list_exits_2_naming_the_file_and_line() {
    let refused = |name: &str, text: &str| -> String {
        let list = tmp(name);
        std::fs::write(&list, text).unwrap();
        let out = kembench_at(tmp("malformed.sqlite"))
            .args(["ct", "--no-store", "--exceptions"])
            .arg(&list)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        err
    };
    // Not TOML at all.
    let err = refused("syntax.toml", "[[exception]]\nid = \"x\"\nlist = \n");
    assert!(
        err.contains("syntax.toml, line 3: not a list of exceptions"),
        "{err}"
    );
    // A required field missing.
    let err = refused("short.toml", "[[exception]]\nid = \"x\"\n");
    assert!(
        err.contains("short.toml, line 1: not a list of exceptions"),
        "{err}"
    );
    assert!(err.contains("missing field"), "{err}");
    // A bad value, at the line of its field.
    let bad = ISSUE_LIST.replacen("list = \"benign\"", "list = \"maybe\"", 1);
    let err = refused("value.toml", &bad);
    let line = bad.lines().position(|l| l.contains("\"maybe\"")).unwrap() + 1;
    assert!(
        err.contains(&format!(
            "value.toml, line {line}: exception #2 (id `mock-index-benign`): unknown list `maybe`"
        )),
        "{err}"
    );
    // Unreadable: an I/O error.
    let out = kembench_at(tmp("malformed.sqlite"))
        .args(["ct", "--no-store", "--exceptions"])
        .arg(tmp("no-such-list.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-list.toml"));
}

/// A control character in a finding's function name (a library's symbols can hold anything)
/// reaches the console escaped, never raw.
#[test]
fn control_characters_in_findings_are_shown_escaped() {
    let file = tmp("escapes.json");
    let mut v: Value = serde_json::from_str(&{
        common::write_ct_fixture(&file);
        std::fs::read_to_string(&file).unwrap()
    })
    .unwrap();
    let mut planted = 0;
    for r in v["results"].as_array_mut().unwrap() {
        for s in r["screens"].as_array_mut().unwrap() {
            for f in s["findings"].as_array_mut().unwrap() {
                f["function"] = Value::String("evil\u{1b}[2J\u{1b}]0;owned\u{7}fn".into());
                f["detail"] = Value::String("detail\u{1b}[31m".into());
                planted += 1;
            }
        }
    }
    assert!(planted > 0);
    std::fs::write(&file, serde_json::to_vec(&v).unwrap()).unwrap();
    let store = tmp("escapes.sqlite");
    let _ = std::fs::remove_file(&store);
    let out = kembench_at(&store)
        .arg("import")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for wide in [false, true] {
        let mut cmd = kembench_at(&store);
        cmd.args(["show", "latest"]);
        if wide {
            cmd.arg("--wide");
        }
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !stdout.contains('\u{1b}') && !stdout.contains('\u{7}'),
            "raw escapes:\n{stdout}"
        );
        assert!(
            stdout.contains("evil\\u{1b}[2J"),
            "shown escaped:\n{stdout}"
        );
    }
}

/// `from` copied into `to`, folders and all.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The cache state of the false alarm: a package of a scheme of its own in the build cache
/// (added with `kembench add`; kembench leaks its description once per process), then the
/// secret-flow screen on aws-lc's X25519. memcheck's leak record of kembench's own allocation
/// was charged to decaps as an unexplained "index" in some runs (whether memcheck calls it
/// definitely lost varies), and `ct` exited 1; it must find nothing, every time.
#[test]
fn kembenchs_own_leak_is_never_charged_to_a_library() {
    let root = tmp("own-leak");
    let _ = std::fs::remove_dir_all(&root);
    let pkg = root.join("mlkem512");
    copy_tree(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/nist-package/mlkem512"),
        &pkg,
    );
    let scheme = pkg.join("Reference_Implementation/crypto_kem/mlkem512");
    let api = std::fs::read_to_string(scheme.join("api.h")).unwrap();
    assert!(api.contains("\"ML-KEM-512\""));
    std::fs::write(
        scheme.join("api.h"),
        api.replace("\"ML-KEM-512\"", "\"MyKEM\""),
    )
    .unwrap();
    let cache = root.join("cache");
    let out = common::kembench()
        .env("KEMBENCH_BUILD_DIR", &cache)
        .arg("add")
        .arg(&scheme)
        .args(["--level", "1", "--implicit-rejection"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Several runs: the leak record came in 2 runs of 6.
    for i in 0..4 {
        let json = root.join(format!("ct-{i}.json"));
        let out = kembench_at(root.join("s.sqlite"))
            .env("KEMBENCH_BUILD_DIR", &cache)
            .args([
                "ct",
                "--alg",
                "X25519",
                "--impl",
                "aws-lc",
                "--screens",
                "secret-flow",
            ])
            .args(["--ops", "decaps", "--no-store", "--json"])
            .arg(&json)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let s = &v["results"][0]["screens"][0];
        assert_eq!(s["ran"]["state"], "screened", "{s}");
        // aws-lc's own findings are listed benign; nothing of kembench's is among them.
        for f in s["findings"].as_array().unwrap() {
            assert!(f.get("explained").is_some(), "run {i}: {f:#}");
            let text = f.to_string();
            assert!(
                !text.contains("Leak_") && !text.contains("CustomAlgorithm"),
                "run {i}: {f:#}"
            );
        }
        assert_eq!(out.status.code(), Some(0), "run {i}:\n{stdout}");
    }
    let _ = std::fs::remove_dir_all(&root);
}
