//! CLI tests of the results store (SQLite), crash-safe runs, Ctrl-C and resume, on the mock
//! provider (`KEMBENCH_MOCK_FAULTS=1` adds mock/crash, mock/hang and mock/slow).

mod common;

use assert_cmd::Command;
use common::{
    export_json, kembench_at, runs, signal, spawn, wait_for_run, write_tls_fixture, FAST,
    TLS_FIXTURE,
};
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-store-cli-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn kembench(store: &Path) -> Command {
    let mut c = kembench_at(store);
    c.env("KEMBENCH_MOCK_FAULTS", "1");
    c
}

fn status_of<'a>(run: &'a Value, implementation: &str) -> &'a Value {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["implementation"] == implementation)
        .unwrap_or_else(|| panic!("{implementation} missing from {run}"))
}

#[test]
fn runs_are_recorded_listed_shown_exported_and_imported() {
    let d = dir("basic");
    let store = d.join("s.sqlite");
    let file = d.join("r.json");
    kembench(&store)
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct,mock/broken",
        ])
        .args(FAST)
        .arg("--json")
        .arg(&file)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("recorded in"));
    let listed = runs(&store);
    assert_eq!(listed.len(), 1);
    let r = &listed[0];
    assert_eq!(r["status"], "complete");
    assert_eq!(r["kind"], "run");
    assert_eq!(r["results"], 2);
    assert_eq!(r["not_ok"], 1);
    assert_eq!(r["selection"], "--impl mock/correct,mock/broken");
    let id = r["id"].as_str().unwrap();

    // The table fits 120 columns and says where the rest is; --wide has the CPU.
    let table = |wide: bool| {
        let mut cmd = kembench(&store);
        cmd.arg("runs");
        if wide {
            cmd.arg("--wide");
        }
        String::from_utf8(cmd.output().unwrap().stdout).unwrap()
    };
    let fit = table(false);
    assert!(fit.lines().all(|l| l.chars().count() <= 120), "{fit}");
    assert!(fit.contains(id) && fit.contains("2, 1 not ok"), "{fit}");
    assert!(fit.contains("`kembench runs --wide`"), "{fit}");
    assert!(table(true).contains(" cpu "), "{}", table(true));

    // The stored run is the file, raw samples included.
    let stored = export_json(&store, "latest");
    let written: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(stored, written);
    assert_eq!(stored["run_id"], id);

    kembench(&store)
        .args(["show", &id[id.len() - 8..]])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "Run {id} (run, complete)"
        )))
        .stdout(predicate::str::contains(
            "NOT TIMED: correctness check failed",
        ));
    kembench(&store)
        .args(["export", "latest", "--format", "csv"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("algorithm,family,nist_level"));
    let page = d.join("report.html");
    kembench(&store)
        .args(["report", "latest", "-o"])
        .arg(&page)
        .assert()
        .success()
        .stdout(predicate::str::contains("Report from 1 latency run:"));
    assert!(std::fs::read_to_string(&page)
        .unwrap()
        .contains("mock/correct"));
    kembench(&store)
        .args(["export", "nope"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("kembench runs"));

    // Import into another store, once.
    let other = d.join("other.sqlite");
    kembench(&other)
        .arg("import")
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("as run {id}")));
    assert_eq!(export_json(&other, id), written);
    kembench(&other)
        .arg("import")
        .arg(&file)
        .assert()
        .failure()
        .stderr(predicate::str::contains("already in"));
}

#[test]
fn a_tls_run_is_imported_shown_and_exported_in_every_format() {
    let d = dir("tls");
    let store = d.join("s.sqlite");
    let file = d.join("tls.json");
    write_tls_fixture(&file);
    kembench(&store).arg("import").arg(&file).assert().success();
    let mut want: Value = serde_json::from_str(TLS_FIXTURE).unwrap();
    let back = export_json(&store, "latest");
    want["run_id"] = back["run_id"].clone();
    assert_eq!(back, want);
    kembench(&store)
        .args(["show", "latest"])
        .assert()
        .success()
        .stdout(predicate::str::contains("(tls, complete)"))
        .stdout(predicate::str::contains("> initcwnd"))
        .stdout(predicate::str::contains(
            "Unavailable: MLKEM1024@openssl/ecdsa-p256",
        ));
    kembench(&store)
        .args(["show", "latest", "--wide"])
        .assert()
        .success()
        .stdout(predicate::str::contains("server best round"));
    kembench(&store)
        .args(["export", "latest", "--format", "csv"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("section,group,stack,cert"))
        .stdout(predicate::str::contains("unavailable,MLKEM1024"));
    kembench(&store)
        .args(["export", "latest", "--format", "markdown"])
        .assert()
        .success()
        .stdout(predicate::str::contains("# kembench tls"));
}

#[test]
fn a_malformed_import_file_is_refused_and_the_store_keeps_what_it_had() {
    let d = dir("import");
    let store = d.join("s.sqlite");
    kembench(&store)
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--ops",
            "keygen",
        ])
        .args(FAST)
        .assert()
        .success();
    let cases = [
        ("not-json.json", "{ this is not json", "is not JSON"),
        (
            "no-kind.json",
            r#"{"schema_version": 1}"#,
            "no 'kind' field",
        ),
        (
            "bad-fields.json",
            r#"{"kind": "kembench-run", "schema_version": 1, "results": "many"}"#,
            "malformed kembench-run record",
        ),
        (
            "newer.json",
            r#"{"kind": "kembench-run", "schema_version": 99}"#,
            "newer kembench",
        ),
    ];
    for (name, body, says) in cases {
        let p = d.join(name);
        std::fs::write(&p, body).unwrap();
        kembench(&store)
            .arg("import")
            .arg(&p)
            .assert()
            .failure()
            .stderr(predicate::str::contains(says));
    }
    assert_eq!(runs(&store).len(), 1);
}

#[test]
fn an_import_that_is_refused_creates_no_store() {
    let d = dir("import-refused");
    let store = d.join("new").join("s.sqlite");
    let fixture: Value = serde_json::from_str(TLS_FIXTURE).unwrap();
    let mut bad_id = fixture.clone();
    bad_id["run_id"] = "not-a-run-id".into();
    let mut twice = fixture.clone();
    let first = twice["results"][0].clone();
    twice["results"].as_array_mut().unwrap().push(first);
    let cases = [
        (
            "not-json.json",
            "{ this is not json".to_string(),
            "is not JSON",
        ),
        ("run-id.json", bad_id.to_string(), "not of the form"),
        ("twice.json", twice.to_string(), "appears twice"),
    ];
    for (name, body, says) in cases {
        let p = d.join(name);
        std::fs::write(&p, body).unwrap();
        kembench(&store)
            .arg("import")
            .arg(&p)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says))
            .stderr(predicate::str::contains("Creating a new results store").not());
        assert!(
            !d.join("new").exists(),
            "{name}: refused, yet the store's folder or file was created"
        );
    }
    // The fixture itself imports, and only then is the store created.
    let good = d.join("good.json");
    write_tls_fixture(&good);
    kembench(&store).arg("import").arg(&good).assert().success();
    assert!(store.is_file());
}

#[test]
fn a_corrupt_store_is_a_clear_error_and_stays_as_it_was() {
    let d = dir("corrupt");
    let store = d.join("s.sqlite");
    let garbage = b"SQLite format 3\0 but then nothing sensible at all".repeat(200);
    std::fs::write(&store, &garbage).unwrap();
    kembench(&store)
        .args(["run", "--include-mock", "--impl", "mock/correct"])
        .args(FAST)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("left untouched"));
    kembench(&store)
        .arg("runs")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("not a readable SQLite database"));
    assert!(
        std::fs::read(&store).unwrap() == garbage,
        "the store changed"
    );
    // --no-store measures without it.
    kembench(&store)
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--no-store",
            "--ops",
            "keygen",
        ])
        .args(FAST)
        .assert()
        .success();
}

#[test]
fn report_without_a_run_reports_the_latest_and_show_wide_has_every_column() {
    let d = dir("latest");
    let store = d.join("s.sqlite");
    let page = d.join("report.html");
    kembench(&store)
        .args(["report", "-o"])
        .arg(&page)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no RUN given"))
        // A read command creates no store: a missing one is said to be missing.
        .stderr(predicate::str::contains("no store at"));
    assert!(!store.exists());
    for (imp, code) in [("mock/broken", 1), ("mock/correct", 0)] {
        kembench(&store)
            .args(["run", "--include-mock", "--impl", imp, "--ops", "keygen"])
            .args(FAST)
            .assert()
            .code(code);
    }
    // Runs started within the same second are ordered by id: either may be the latest.
    let latest = &runs(&store)[0];
    let id = latest["id"].as_str().unwrap().to_string();
    let (shown_impl, other) = if latest["selection"] == "--impl mock/correct" {
        ("mock/correct", "mock/broken")
    } else {
        ("mock/broken", "mock/correct")
    };
    let out = kembench(&store)
        .args(["report", "-o"])
        .arg(&page)
        .assert()
        .success();
    let said = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let flat = said.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!(
            "No RUN given: reporting the latest run in {}: {id} (run, complete",
            store.display()
        )),
        "{said}"
    );
    assert!(flat.contains("Report from 1 latency run:"), "{said}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(shown_impl));
    assert!(
        !html.contains(other),
        "the report is of the latest run only"
    );
    kembench(&store)
        .args(["show", &id, "--wide"])
        .assert()
        .success()
        .stdout(predicate::str::contains("TSC ticks"))
        .stdout(predicate::str::contains("cycles"));
    let out = kembench(&store).args(["show", &id]).assert().success();
    let shown = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(!shown.contains("TSC ticks"), "{shown}");
    assert!(shown.lines().all(|l| l.chars().count() <= 120), "{shown}");
}

#[test]
fn a_crashing_and_a_hanging_implementation_do_not_take_the_run_down() {
    let d = dir("faults");
    let store = d.join("s.sqlite");
    let file = d.join("r.json");
    let start = Instant::now();
    kembench(&store)
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/crash,mock/correct,mock/hang",
            "--step-timeout",
            "2",
        ])
        .args(FAST)
        .arg("--json")
        .arg(&file)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("CRASHED"))
        .stdout(predicate::str::contains("SIGSEGV"))
        .stdout(predicate::str::contains("TIMED OUT"));
    assert!(start.elapsed() < Duration::from_secs(60));
    let run: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let crash = status_of(&run, "mock/crash");
    assert_eq!(crash["failure"]["kind"], "crashed");
    assert_eq!(crash["failure"]["signal"], 11);
    assert_eq!(crash["failure"]["signal_name"], "SIGSEGV");
    let hang = status_of(&run, "mock/hang");
    assert_eq!(hang["failure"]["kind"], "timed-out");
    let ok = status_of(&run, "mock/correct");
    assert!(ok.get("failure").is_none());
    assert_eq!(
        ok["operations"].as_array().unwrap().len(),
        6,
        "every operation, imports included"
    );
    // In the store too, with each benchmark's status.
    let listed = runs(&store);
    assert_eq!(listed[0]["results"], 3);
    assert_eq!(listed[0]["not_ok"], 2);
    assert_eq!(export_json(&store, "latest"), run);
}

#[test]
fn a_crash_while_timing_keeps_the_others_and_says_when_it_happened() {
    let d = dir("faults-late");
    let store = d.join("s.sqlite");
    let out = kembench(&store)
        .env("KEMBENCH_MOCK_FAULT_AFTER", "40000")
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/crash,mock/correct",
            "--ops",
            "encaps",
            "--time-budget",
            "0.1",
            // More samples than any round takes within its limit, so no round stops on its
            // precision (the mock's quantised samples can reach any target in a few calls) and
            // the 40,000th encapsulation falls inside the timing whatever the machine's speed.
            "--min-samples",
            "1000000",
            "--max-samples",
            "1000000",
            "--warmup",
            "0.001",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let run = export_json(&store, "latest");
    let crash = status_of(&run, "mock/crash");
    assert_eq!(crash["failure"]["kind"], "crashed");
    assert!(
        crash["failure"]["during"]
            .as_str()
            .unwrap()
            .starts_with("encaps round"),
        "{crash}"
    );
    assert_eq!(
        status_of(&run, "mock/correct")["operations"][0]["operation"],
        "encaps"
    );
}

#[test]
fn ctrl_c_keeps_what_was_measured_and_resume_completes_the_run() {
    let d = dir("resume");
    let store = d.join("s.sqlite");
    // mock/slow sleeps 1 ms per call: 3000 samples take several seconds.
    let mut child = spawn(
        &store,
        &[
            "run",
            "--include-mock",
            "--impl",
            "mock/slow,mock/correct",
            "--ops",
            "keygen",
            "--min-samples",
            "3000",
            "--warmup",
            "0.01",
        ],
    );
    let id = wait_for_run(&store, &mut child);
    std::thread::sleep(Duration::from_millis(800));
    signal(&child, libc::SIGINT);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{stdout}");
    assert!(
        stdout.contains(&format!("kembench run --resume {id}")),
        "{stdout}"
    );
    let listed = runs(&store);
    assert_eq!(listed[0]["status"], "interrupted");
    let partial = export_json(&store, &id);
    assert_eq!(partial["interrupted"], true);
    let slow = status_of(&partial, "mock/slow");
    assert_eq!(slow["failure"]["kind"], "interrupted");
    // What was sampled before Ctrl-C is kept, and says it is short.
    let n = slow["operations"][0]["samples"].as_u64().unwrap();
    assert!(n > 0 && n < 3000, "{n}");

    kembench(&store)
        .args(["run", "--resume", "latest"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("Resuming run {id}")));
    let done = export_json(&store, &id);
    assert_eq!(done["interrupted"], false);
    assert_eq!(done["resumed_at"].as_array().unwrap().len(), 1);
    for imp in ["mock/slow", "mock/correct"] {
        let r = status_of(&done, imp);
        assert!(r.get("failure").is_none(), "{r}");
        assert!(r["operations"][0]["samples"].as_u64().unwrap() >= 3000);
    }
    assert_eq!(runs(&store)[0]["status"], "complete");
    kembench(&store)
        .args(["run", "--resume", &id])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nothing to resume"));
}

#[test]
fn a_second_ctrl_c_stops_at_once() {
    let d = dir("abort");
    let store = d.join("s.sqlite");
    // mock/hang never returns; only a second Ctrl-C (or the 10-minute timeout) ends the step.
    let mut child = spawn(
        &store,
        &[
            "run",
            "--include-mock",
            "--impl",
            "mock/hang,mock/correct",
            "--step-timeout",
            "600",
            "--warmup",
            "0.01",
        ],
    );
    wait_for_run(&store, &mut child);
    std::thread::sleep(Duration::from_millis(500));
    signal(&child, libc::SIGINT);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "one Ctrl-C waits for the step"
    );
    let start = Instant::now();
    signal(&child, libc::SIGINT);
    let out = child.wait_with_output().unwrap();
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(out.status.code(), Some(130));
    let run = export_json(&store, "latest");
    assert_eq!(runs(&store)[0]["status"], "interrupted");
    assert_eq!(
        status_of(&run, "mock/hang")["failure"]["kind"],
        "interrupted"
    );
}

#[test]
fn compare_takes_stored_runs_by_id_latest_and_host() {
    let d = dir("compare");
    let store = d.join("s.sqlite");
    for _ in 0..2 {
        kembench(&store)
            .args([
                "run",
                "--include-mock",
                "--impl",
                "mock/correct",
                "--rounds",
                "4",
            ])
            .args(FAST)
            .assert()
            .success();
    }
    let listed = runs(&store);
    let (old, host) = (
        listed[1]["id"].as_str().unwrap(),
        listed[0]["host"].as_str().unwrap(),
    );
    kembench(&store)
        .args(["compare", old, "latest"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("old: run {old}")))
        .stdout(predicate::str::contains("MockKEM"));
    kembench(&store)
        .args(["compare", "latest~1", &format!("host:{host}"), "--json"])
        .assert()
        .success();
    kembench(&store)
        .args(["compare", "latest~5", "latest"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("only 2 latency runs"));
}

#[test]
fn a_run_killed_outright_stays_in_the_store_and_can_be_resumed() {
    let d = dir("killed");
    let store = d.join("s.sqlite");
    let mut child = spawn(
        &store,
        &[
            "run",
            "--include-mock",
            "--impl",
            "mock/broken,mock/slow",
            "--ops",
            "keygen",
            "--min-samples",
            "2000",
            "--warmup",
            "0.01",
        ],
    );
    let id = wait_for_run(&store, &mut child);
    // Wait until the broken mock's failed check is stored, then kill without warning.
    let deadline = Instant::now() + Duration::from_secs(30);
    while runs(&store)[0]["results"] != 1 {
        assert!(Instant::now() < deadline, "the first result never landed");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let listed = runs(&store);
    assert_eq!(listed[0]["status"], "running", "nobody could say otherwise");
    assert_eq!(listed[0]["results"], 1, "what was stored stays");
    kembench(&store)
        .args(["run", "--resume", &id])
        .assert()
        .code(1) // the broken mock keeps its failed check
        .stderr(predicate::str::contains("still marked running"))
        .stdout(predicate::str::contains("1 of 2 benchmarks to measure"));
    let done = export_json(&store, &id);
    assert_eq!(done["results"].as_array().unwrap().len(), 2);
    assert!(
        status_of(&done, "mock/slow")["operations"][0]["samples"]
            .as_u64()
            .unwrap()
            >= 2000
    );
    assert_eq!(runs(&store)[0]["status"], "complete");
}

#[path = "common/v1_store.rs"]
mod v1_store;

/// Writes a schema-1 store holding `runs` into the SQLite file `path`, as kembench did.
fn write_v1_store(path: &Path, runs: &[v1_store::Run]) {
    let c = rusqlite::Connection::open(path).unwrap();
    for sql in v1_store::DDL {
        c.execute(sql, []).unwrap();
    }
    // SQLite takes `?N` where PostgreSQL takes `$N`.
    let (insert_run, insert_result) = (
        v1_store::INSERT_RUN.replace('$', "?"),
        v1_store::INSERT_RESULT.replace('$', "?"),
    );
    for run in runs {
        c.execute(&insert_run, rusqlite::params_from_iter(run.row()))
            .unwrap();
        for (alg, imp, seq, status, at, json) in run.result_rows() {
            c.execute(
                &insert_result,
                rusqlite::params![run.id, alg, imp, seq, status, at, json],
            )
            .unwrap();
        }
    }
}

/// The schema version of the SQLite store `path`.
fn schema_version(path: &Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row("SELECT version FROM kembench_schema", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_store_of_the_oldest_schema_opens_with_every_run_result_and_operation() {
    let d = dir("schema1");
    let store = d.join("schema1.sqlite");
    let runs = v1_store::runs();
    write_v1_store(&store, &runs);
    v1_store::check_every_run(store.to_str().unwrap(), &runs);
    assert_eq!(schema_version(&store), kembench::store::schema::LATEST);
    let c = rusqlite::Connection::open(&store).unwrap();
    let mut q = c
        .prepare(
            "SELECT run_id, algorithm, implementation, operation, median_ns, ci95_low_ns,
                 ci95_high_ns, p25_ns, p75_ns, samples, stop_reason FROM operations",
        )
        .unwrap();
    let mut ops: Vec<v1_store::OpRow> = q
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
                r.get(8)?,
                r.get(9)?,
                r.get(10)?,
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    ops.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let want = v1_store::expected_operations(&runs);
    assert_eq!(
        want.len(),
        16,
        "four operations of three benchmarks, four of partial ones"
    );
    assert_eq!(ops, want);
}

#[test]
fn a_schema_1_row_the_migration_cannot_read_stops_it_and_changes_nothing() {
    let d = dir("schema1-unreadable");
    let store = d.join("schema1.sqlite");
    let (runs, run, bench) = v1_store::with_unreadable_row();
    write_v1_store(&store, &runs);
    let out = kembench(&store).args(["runs"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!("run {run}, benchmark {bench}")),
        "{err}"
    );
    assert!(
        err.contains("operation keygen") && err.contains("field median_ns"),
        "the operation and field are named: {err}"
    );
    assert!(err.contains("left as it was"), "{err}");
    // Still schema 1: no operations table, every row where it was.
    assert_eq!(schema_version(&store), 1);
    let c = rusqlite::Connection::open(&store).unwrap();
    assert!(c.prepare("SELECT COUNT(*) FROM operations").is_err());
    let results: i64 = c
        .query_row("SELECT COUNT(*) FROM results", [], |r| r.get(0))
        .unwrap();
    assert_eq!(results, 9);
}
