//! The ct record kind through the command line, from its fixture file (`tests/data/ct.json`,
//! the unit tests' `fixture::ct`): imported into the store and read back the same, shown,
//! exported as CSV and Markdown, and compared (a new unexplained finding fails
//! `--fail-on-regression`).

mod common;

use common::{export_json, kembench, kembench_at, write_ct_fixture, CT_FIXTURE};
use predicates::prelude::*;
use serde_json::Value;
use std::path::PathBuf;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-ct-cli-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_ct_run_is_imported_shown_and_exported() {
    let d = dir("store");
    let store = d.join("s.sqlite");
    let file = d.join("ct.json");
    write_ct_fixture(&file);
    kembench_at(&store)
        .arg("import")
        .arg(&file)
        .assert()
        .success();
    let mut want: Value = serde_json::from_str(CT_FIXTURE).unwrap();
    let back = export_json(&store, "latest");
    want["run_id"] = back["run_id"].clone();
    assert_eq!(back, want, "the store gives back every field");
    kembench_at(&store)
        .args(["show", "latest"])
        .assert()
        .success()
        .stdout(predicate::str::contains("(ct, complete)"))
        .stdout(predicate::str::contains("decaps 1 branch"))
        .stdout(predicate::str::contains("keygen 1 branch (benign)"))
        .stdout(predicate::str::contains("constant time").not());
    kembench_at(&store)
        .args(["show", "latest", "--wide"])
        .assert()
        .success()
        .stdout(predicate::str::contains("decaps secret-flow"))
        .stdout(predicate::str::contains("src/providers/mock.rs:412"));
    kembench_at(&store)
        .args(["export", "latest", "--format", "csv"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "algorithm,implementation,version,build,operation,screen,state",
        ))
        .stdout(predicate::str::contains(
            "branch mock_ct_branch_decaps src/providers/mock.rs:412 ×1 [unexplained]",
        ));
    kembench_at(&store)
        .args(["export", "latest", "--format", "markdown"])
        .assert()
        .success()
        .stdout(predicate::str::contains("# kembench ct"))
        .stdout(predicate::str::contains("| unexplained |"));
    kembench_at(&store)
        .args(["runs"])
        .assert()
        .success()
        .stdout(predicate::str::contains("ct"));
}

#[test]
fn a_new_unexplained_finding_fails_compare_on_regression() {
    let d = dir("compare");
    let a = d.join("ct-a.json");
    write_ct_fixture(&a);
    let mut v: Value = serde_json::from_str(CT_FIXTURE).unwrap();
    // liboqs's decaps gets the mock's secret branch (results[0].screens[6] is decaps'
    // secret-flow screen).
    let branch = v["results"][1]["screens"][6]["findings"][0].clone();
    v["results"][0]["screens"][6]["findings"]
        .as_array_mut()
        .unwrap()
        .push(branch);
    let b = d.join("ct-b.json");
    std::fs::write(&b, serde_json::to_vec(&v).unwrap()).unwrap();
    kembench()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .assert()
        .success()
        .stdout(predicate::str::contains("benign findings only"))
        .stdout(predicate::str::contains("mock_ct_branch_decaps"));
    kembench()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .args(["--fail-on-regression", "5"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "1 constant-time finding regressed: ML-KEM-768@liboqs decaps secret-flow branch in mock_ct_branch_decaps (new)",
        ));
    // The other way round the finding is gone: an improvement, not a regression.
    kembench()
        .arg("compare")
        .arg(&b)
        .arg(&a)
        .args(["--fail-on-regression", "5"])
        .assert()
        .success()
        .stdout(predicate::str::contains("gone"));
    let out = kembench()
        .args(["compare", "--json"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["findings"][0]["change"], "new");
    assert_eq!(report["verdicts"][0]["new"], "unexplained");
}

/// `run`'s console looks the builds' ct verdicts up in the store: Kyber768 (PQClean) by gcc at
/// `-Os` keeps KyberSlash's divisions (a known issue) and is never the ★ of the screening
/// table, whatever its speed; before any ct run the table is not printed.
#[test]
fn run_names_each_builds_ct_verdict_from_the_store() {
    let d = dir("run-verdicts");
    let store = d.join("s.sqlite");
    let builds = common::build_cache("ct-run-verdicts");
    let with_builds = |args: &[&str]| {
        let out = kembench_at(&store)
            .env("KEMBENCH_BUILD_DIR", &builds)
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        (out.status.code(), text, err)
    };
    let (code, _, err) = with_builds(&[
        "builds",
        "--alg",
        "Kyber768",
        "--impl",
        "pqclean/clean",
        "--cc",
        "gcc",
        "--flags",
        "-Os;-O2",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let run = [
        "run",
        "--alg",
        "Kyber768",
        "--impl",
        "pqclean/clean@*",
        "--time-budget",
        "0.05",
    ];
    let (code, before, err) = with_builds(&run);
    assert_eq!(code, Some(0), "{err}");
    assert!(!before.contains("constant-time verdict"), "{before}");
    let (code, _, err) = with_builds(&[
        "ct",
        "--alg",
        "Kyber768",
        "--impl",
        "pqclean/clean@*",
        "--screens",
        "latency",
    ]);
    assert_eq!(code, Some(0), "KyberSlash is a listed known issue: {err}");
    let (code, after, err) = with_builds(&run);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        after.contains("with their constant-time verdicts"),
        "{after}"
    );
    let line = |flags: &str| {
        after
            .lines()
            .find(|l| {
                l.contains(&format!(":{flags} "))
                    && ["known issue", "benign", "no finding"]
                        .iter()
                        .any(|v| l.contains(v))
            })
            .unwrap_or_else(|| panic!("no verdict row for -{flags}: {after}"))
            .to_string()
    };
    let os = line("Os");
    assert!(os.contains("known issue") && !os.contains('★'), "{os}");
    let o2 = line("O2");
    assert!(!o2.contains("known issue") && o2.contains('★'), "{o2}");
}
