//! CLI tests of sweeps (`--shard K/N --sweep ID`) on an SQLite store and the mock provider:
//! bad input refused before anything is measured, a sweep read back as one run, and what is
//! said when a shard is missing, run twice, or planned another list. The PostgreSQL test with
//! N concurrent jobs is in `store_pg.rs`.

mod common;

use common::{export_json, kembench_at, result_labels, runs, FAST};
use predicates::prelude::*;
use serde_json::Value;
use std::path::PathBuf;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-sweep-cli-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `run` of the two mocks, with `extra` arguments.
fn mock_run(store: &std::path::Path, extra: &[&str]) -> std::process::Output {
    kembench_at(store)
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct,mock/broken",
            "--no-pin",
            "--rounds",
            "1",
        ])
        .args(FAST)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn bad_shard_and_sweep_arguments_are_refused_before_anything_is_measured() {
    let d = dir("bad");
    let store = d.join("s.sqlite");
    for (args, said) in [
        (&["--shard", "2/4"][..], "needs --sweep ID"),
        (&["--sweep", "x"][..], "give --shard K/N with it"),
        (&["--shard", "0/4", "--sweep", "x"][..], "count from 1"),
        (
            &["--shard", "5/4", "--sweep", "x"][..],
            "there is no shard 5 of 4",
        ),
        (&["--shard", "2", "--sweep", "x"][..], "--shard takes K/N"),
        (
            &["--shard", "1/2", "--sweep", "a b"][..],
            "a sweep id is 1 to 64",
        ),
        (
            &["--shard", "1/2", "--sweep", "x", "--resume", "latest"][..],
            // Refused either for the shard or for the settings given beside --resume.
            "cannot be used with --",
        ),
    ] {
        let out = mock_run(&store, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
    assert!(!store.exists(), "a refused command created the store");
    // profile takes the same flags, checked the same way.
    kembench_at(&store)
        .args([
            "profile",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--shard",
            "1/2",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("needs --sweep ID"));
}

#[test]
fn two_shards_read_back_as_one_run_and_what_is_missing_is_said() {
    let d = dir("two");
    let store = d.join("s.sqlite");
    // Equal expected costs go by label: shard 1 holds mock/broken, which fails its check
    // (exit 1, recorded all the same), shard 2 mock/correct.
    let out = mock_run(&store, &["--shard", "1/2", "--sweep", "nightly-1"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("shard 1/2 of sweep nightly-1: 1 of the 2 planned benchmarks"),
        "{err}"
    );
    // One shard of two: read back with the missing shard said, and not complete.
    let half = kembench_at(&store)
        .args(["export", "sweep:nightly-1"])
        .output()
        .unwrap();
    assert!(half.status.success());
    let warned = String::from_utf8_lossy(&half.stderr);
    assert!(
        warned.contains("warning: sweep nightly-1: shard(s) 2 of 2 not in the store: 1 of the sweep's 2 benchmarks are missing"),
        "{warned}"
    );
    let v: Value = serde_json::from_slice(&half.stdout).unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 1);
    assert_eq!(v["sweep"]["missing_shards"], serde_json::json!([2]));
    assert!(v["finished_at"].is_null());

    let out = mock_run(&store, &["--shard", "2/2", "--sweep", "nightly-1"]);
    assert_eq!(out.status.code(), Some(0));
    let whole = export_json(&store, "sweep:nightly-1");
    assert_eq!(
        result_labels(&whole),
        ["MockKEM@mock/broken", "MockKEM@mock/correct"]
    );
    assert!(whole["finished_at"].is_string());
    assert_eq!(whole["config"]["planned"].as_array().unwrap().len(), 2);
    // `runs` says which runs are shards; `show` of a shard points at the sweep.
    let listed = runs(&store);
    assert!(
        listed.iter().all(|r| r["sweep"] == "nightly-1"),
        "{listed:?}"
    );
    kembench_at(&store)
        .args(["runs"])
        .assert()
        .success()
        .stdout(predicate::str::contains("(sweep nightly-1)"));
    kembench_at(&store)
        .args(["show", listed[0]["id"].as_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("one shard of sweep nightly-1"));
    kembench_at(&store)
        .args(["show", "sweep:nightly-1"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Sweep nightly-1: 2 of 2 shards, 2 planned benchmarks",
        ))
        .stdout(predicate::str::contains(
            "`kembench report sweep:nightly-1`",
        ));

    // A shard run again (a retried CI job): counted once, the retry said.
    let out = mock_run(&store, &["--shard", "1/2", "--sweep", "nightly-1"]);
    assert_eq!(out.status.code(), Some(1));
    let again = kembench_at(&store)
        .args(["export", "sweep:nightly-1"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&again.stderr).contains("shard 1 was run 2 times"));
    let v: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(
        result_labels(&v),
        ["MockKEM@mock/broken", "MockKEM@mock/correct"]
    );

    // A report of the latest run, a shard, says which sweep it belongs to.
    kembench_at(&store)
        .current_dir(&d)
        .args(["report"])
        .assert()
        .success()
        .stdout(predicate::str::contains("one shard of sweep nightly-1"))
        .stdout(predicate::str::contains(
            "`kembench report sweep:nightly-1`",
        ));
    // Unknown sweeps are named with the nearest.
    kembench_at(&store)
        .args(["export", "sweep:nightly-2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no sweep 'nightly-2'"))
        .stderr(predicate::str::contains("did you mean nightly-1?"));
}

#[test]
fn shards_that_planned_different_lists_are_refused_when_read_together() {
    let d = dir("mismatch");
    let store = d.join("s.sqlite");
    assert!(
        mock_run(&store, &["--shard", "1/2", "--sweep", "s"])
            .status
            .code()
            == Some(1)
    );
    // Another filter: another plan under the same sweep id.
    kembench_at(&store)
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--no-pin",
            "--rounds",
            "1",
        ])
        .args(FAST)
        .args(["--shard", "2/2", "--sweep", "s"])
        .assert()
        .success()
        .stderr(predicate::str::contains("records an empty run"));
    for cmd in [
        &["export", "sweep:s"][..],
        &["show", "sweep:s"][..],
        &["report", "sweep:s"][..],
    ] {
        kembench_at(&store)
            .current_dir(&d)
            .args(cmd)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("did not plan the same sweep"))
            .stderr(predicate::str::contains("planned 2 benchmarks in 2 shards"))
            .stderr(predicate::str::contains("planned 1 benchmarks in 2 shards"));
    }
    assert!(!d.join("report.html").exists());
}

#[test]
fn shards_written_to_files_on_separate_machines_import_into_one_sweep() {
    let d = dir("files");
    let mut files = Vec::new();
    for k in 1..=2 {
        // Each job with a store of its own (as on machines that share nothing), keeping a file.
        let f = d.join(format!("shard{k}.json"));
        let out = mock_run(
            &d.join(format!("job{k}.sqlite")),
            &[
                "--shard",
                &format!("{k}/2"),
                "--sweep",
                "slurm:81234",
                "--json",
                f.to_str().unwrap(),
            ],
        );
        assert!(out.status.code() == Some(0) || out.status.code() == Some(1));
        files.push(f);
    }
    let store = d.join("all.sqlite");
    // A shard file whose sweep section was edited is refused before the store is opened.
    let mut v: Value = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    v["sweep"]["shard"] = serde_json::json!(5);
    let edited = d.join("edited.json");
    std::fs::write(&edited, serde_json::to_vec(&v).unwrap()).unwrap();
    kembench_at(&store)
        .arg("import")
        .arg(&edited)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("names shard 5 of 2"));
    assert!(!store.exists());
    for f in &files {
        kembench_at(&store).arg("import").arg(f).assert().success();
    }
    let whole = export_json(&store, "sweep:slurm:81234");
    assert_eq!(
        result_labels(&whole),
        ["MockKEM@mock/broken", "MockKEM@mock/correct"]
    );
    assert_eq!(whole["sweep"]["runs"].as_array().unwrap().len(), 2);
}

#[test]
fn a_shard_record_whose_shard_number_was_edited_is_refused_on_import() {
    let d = dir("renumbered");
    let mut files = Vec::new();
    for k in 1..=2 {
        let f = d.join(format!("shard{k}.json"));
        let out = mock_run(
            &d.join(format!("job{k}.sqlite")),
            &[
                "--shard",
                &format!("{k}/2"),
                "--sweep",
                "renumbered",
                "--json",
                f.to_str().unwrap(),
            ],
        );
        assert!(out.status.code() == Some(0) || out.status.code() == Some(1));
        files.push(f);
    }
    let store = d.join("all.sqlite");
    for f in &files {
        kembench_at(&store).arg("import").arg(f).assert().success();
    }
    // Shard 2's record renamed shard 1 (a new run id, as a second copy would have): its plan
    // is shard 2's part, so it must not stand in for the real shard 1.
    let mut v: Value = serde_json::from_slice(&std::fs::read(&files[1]).unwrap()).unwrap();
    v["sweep"]["shard"] = serde_json::json!(1);
    v["run_id"] = serde_json::json!("20261127-235959-0000abcd");
    let edited = d.join("edited.json");
    std::fs::write(&edited, serde_json::to_vec(&v).unwrap()).unwrap();
    kembench_at(&store)
        .arg("import")
        .arg(&edited)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "says it is shard 1/2 but planned 1 benchmarks that are the part of shard 2/2",
        ));
    let whole = export_json(&store, "sweep:renumbered");
    assert_eq!(
        result_labels(&whole),
        ["MockKEM@mock/broken", "MockKEM@mock/correct"]
    );
    let runs: Vec<&str> = whole["sweep"]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap())
        .collect();
    assert!(!runs.contains(&"20261127-235959-0000abcd"), "{runs:?}");
}

#[test]
fn a_profile_sweep_gates_and_exports_as_one_profile() {
    let d = dir("profile");
    let store = d.join("s.sqlite");
    // Two implementations of equal expected cost in two shards, as two CI jobs would.
    let sel = [
        "profile",
        "--include-mock",
        "--impl",
        "mock/correct,mock/slow",
        "--seeds",
        "1",
    ];
    for k in 1..=2 {
        kembench_at(&store)
            .env("KEMBENCH_MOCK_FAULTS", "1")
            .args(sel)
            .args(["--shard", &format!("{k}/2"), "--sweep", "pr-7"])
            .assert()
            .success()
            .stderr(predicate::str::contains(format!(
                "profile: shard {k}/2 of sweep pr-7: 1 of the 2 planned benchmarks"
            )));
    }
    let merged = export_json(&store, "sweep:pr-7");
    assert_eq!(merged["kind"], "kembench-profile");
    assert_eq!(
        result_labels(&merged),
        ["MockKEM@mock/correct", "MockKEM@mock/slow"]
    );
    // The sweep is a baseline like any profile: the same code passes the gate at 0.000%.
    let gate = kembench_at(&store)
        .env("KEMBENCH_MOCK_FAULTS", "1")
        .args(sel)
        .args(["--no-store", "--baseline", "sweep:pr-7"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&gate.stdout);
    assert!(gate.status.success(), "{text}");
    assert!(
        text.contains("Gate: passed") && text.contains("(6 compared)"),
        "{text}"
    );
    // And exports to the dashboards' formats as one run.
    let out = kembench_at(&store)
        .args([
            "export",
            "sweep:pr-7",
            "--format",
            "github-action-benchmark",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let points: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = points
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for want in ["MockKEM@mock/correct/keygen", "MockKEM@mock/slow/decaps"] {
        assert!(
            names.iter().any(|n| n.starts_with(want)),
            "{want}: {names:?}"
        );
    }
}

#[test]
fn a_throughput_sweep_reads_back_as_one_throughput_run() {
    let d = dir("throughput");
    let store = d.join("s.sqlite");
    for k in 1..=2 {
        kembench_at(&store)
            .args([
                "throughput",
                "--include-mock",
                "--impl",
                "mock/correct,mock/broken",
            ])
            .args([
                "--threads",
                "1",
                "--duration",
                "0.05",
                "--repeats",
                "1",
                "--ops",
                "keygen",
            ])
            .args(["--shard", &format!("{k}/2"), "--sweep", "tp"])
            .assert()
            .stderr(predicate::str::contains(format!(
                "throughput: shard {k}/2 of sweep tp: 1 of the 2 planned benchmarks"
            )));
    }
    let merged = export_json(&store, "sweep:tp");
    assert_eq!(merged["kind"], "kembench-throughput");
    assert_eq!(
        result_labels(&merged),
        ["MockKEM@mock/broken", "MockKEM@mock/correct"]
    );
    kembench_at(&store)
        .args([
            "throughput",
            "--include-mock",
            "--resume",
            "latest",
            "--shard",
            "1/2",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be used with --shard"));
}

#[test]
fn a_tls_sweep_splits_groups_and_stacks_and_reads_back_as_one_tls_run() {
    let d = dir("tls");
    let store = d.join("s.sqlite");
    // Two groups on two stacks: four benchmarks, two per shard.
    for k in 1..=2 {
        kembench_at(&store)
            .args(["tls", "--groups", "X25519,secp256r1", "--duration", "0.05"])
            .args(["--threads", "0", "--modes", "full"])
            .args(["--shard", &format!("{k}/2"), "--sweep", "hello"])
            .assert()
            .success()
            .stderr(predicate::str::contains(format!(
                "tls: shard {k}/2 of sweep hello: 2 of the 4 planned benchmarks"
            )));
    }
    let merged = export_json(&store, "sweep:hello");
    assert_eq!(merged["kind"], "kembench-tls");
    assert_eq!(merged["results"].as_array().unwrap().len(), 4);
    assert_eq!(merged["config"]["planned"].as_array().unwrap().len(), 4);
}
