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
        // Within 120 columns the cell wraps at its space: "(benign)" on the cell's next line.
        .stdout(predicate::str::contains("keygen 1 branch"))
        .stdout(predicate::str::contains("(benign)"))
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
    let ct = [
        "ct",
        "--alg",
        "Kyber768",
        "--impl",
        "pqclean/clean@*",
        "--screens",
        "latency",
    ];
    // KyberSlash is a listed known issue, and a known leak is still a leak: exit 1 until the
    // user accepts the issues by their ids, which the console names.
    let (code, said, err) = with_builds(&ct);
    assert_eq!(
        code,
        Some(1),
        "a known issue nobody accepted fails ct: {said}{err}"
    );
    let open = said
        .split_once("Known issues not accepted, which fail the run:")
        .and_then(|(_, rest)| rest.split_once("A known leak"))
        .unwrap_or_else(|| panic!("the open issues are named: {said}"))
        .0;
    let mut ids: Vec<&str> = open
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("kyberslash-"))
        .collect();
    ids.sort();
    ids.dedup();
    assert!(!ids.is_empty(), "the open issues are named: {said}");
    let ids = ids.join(",");
    let (code, said, err) = with_builds(&[&ct[..], &["--accept", &ids]].concat());
    assert_eq!(code, Some(0), "accepted by id: {said}{err}");
    assert!(
        said.contains("Known issues accepted: kyberslash-"),
        "{said}"
    );
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

/// `ct --resume`: an interrupted ct run (here one made by a real run, cut to one of its two
/// results and imported) is completed with its own configuration, screening only what it
/// lacks; a run whose exception lists are not kembench's current ones is refused, as is
/// `--resume` without the store.
#[test]
fn an_interrupted_ct_run_is_resumed_with_its_own_configuration() {
    let d = dir("resume");
    let store = d.join("s.sqlite");
    let file = d.join("ct.json");
    let ct = |args: &[&str]| {
        kembench_at(&store)
            .env("KEMBENCH_MOCK_CT", "1")
            .args(["ct", "--include-mock"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = ct(&[
        "--impl",
        "mock/ct-division,mock/ct-branch",
        "--screens",
        "latency",
        "--ops",
        "decaps",
        "--no-store",
        "--json",
        file.to_str().unwrap(),
    ]);
    assert!(file.exists(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let results = v["results"].as_array_mut().unwrap();
    assert_eq!(results.len(), 2);
    results.retain(|r| r["implementation"] != "mock/ct-division");
    v["interrupted"] = Value::Bool(true);
    v["finished_at"] = Value::Null;
    let cut = d.join("cut.json");
    std::fs::write(&cut, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    kembench_at(&store)
        .arg("import")
        .arg(&cut)
        .assert()
        .success();

    // Settings beside --resume would not apply: refused, saying that the run's own are used,
    // and the run stays resumable.
    for extra in [
        &["--screens", "timing"][..],
        &["--timing-budget", "1"],
        &["--alg", "MockKEM"],
        &["--accept", "x"],
    ] {
        let out = ct(&[&["--resume", "latest"][..], extra].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(
            err.contains(&format!("{} cannot be used with --resume", extra[0]))
                && err.contains("its own settings"),
            "{err}"
        );
    }
    let out = ct(&["--resume", "latest"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("1 of 2 implementations to screen"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let back = export_json(&store, "latest");
    assert!(back.get("interrupted").is_none(), "{back:#}");
    assert!(back["finished_at"].is_string(), "{back:#}");
    let results = back["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{back:#}");
    let division = results
        .iter()
        .find(|r| r["implementation"] == "mock/ct-division")
        .expect("the missing implementation was screened");
    let screens = division["screens"].as_array().unwrap();
    assert_eq!(
        screens.len(),
        1,
        "its own screens and ops only: {division:#}"
    );
    assert_eq!(screens[0]["screen"], "latency");
    assert_eq!(screens[0]["findings"][0]["mnemonic"], "div", "{division:#}");
    // Complete now: nothing left to resume.
    let again = ct(&["--resume", "latest"]);
    assert_eq!(again.status.code(), Some(2));

    // The fixture's run names exception lists that are not kembench's current ones.
    let mut f: Value = serde_json::from_str(CT_FIXTURE).unwrap();
    f["interrupted"] = Value::Bool(true);
    f["finished_at"] = Value::Null;
    f["run_id"] = Value::String("20261128-000000-feedf00d".into());
    let other = d.join("fixture.json");
    std::fs::write(&other, serde_json::to_vec_pretty(&f).unwrap()).unwrap();
    kembench_at(&store)
        .arg("import")
        .arg(&other)
        .assert()
        .success();
    let refused = ct(&["--resume", "20261128-000000-feedf00d"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("exception lists"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let no_store = ct(&["--resume", "latest", "--no-store"]);
    assert_eq!(no_store.status.code(), Some(2));
}

/// Every command that resumes a run refuses the settings given beside `--resume` (the run's
/// own are used), before it opens the store; presentation and output files are allowed.
#[test]
fn every_resumable_command_refuses_settings_beside_resume() {
    let store = dir("beside").join("none.sqlite");
    for (command, extra) in [
        ("run", &["--time-budget", "0.5"][..]),
        ("run", &["--alg", "ML-KEM-768", "--ops", "keygen"]),
        ("ct", &["--screens", "timing", "--seed", "3"]),
        ("ct", &["--worker-timeout", "9"]),
        ("throughput", &["--threads", "2"]),
        ("tls", &["--duration", "1"]),
        ("profile", &["--seeds", "3"]),
    ] {
        let out = kembench_at(&store)
            .args([command, "--resume", "latest"])
            .args(extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command} {extra:?}: {err}");
        let flags: Vec<&str> = extra
            .iter()
            .copied()
            .filter(|a| a.starts_with("--"))
            .collect();
        assert!(
            err.contains(&format!(
                "{} cannot be used with --resume",
                flags.join(", ")
            )),
            "{command}: {err}"
        );
    }
    // What is not a setting passes the check (and reaches the store: none here).
    let out = kembench_at(&store)
        .args([
            "ct",
            "--resume",
            "latest",
            "--wide",
            "--include-mock",
            "--json",
            "x.json",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("cannot be used with --resume"), "{err}");
}
