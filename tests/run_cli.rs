//! CLI tests of `kembench run` on the mock provider: output files, the table, failures shown.

mod common;

use common::{kembench, FAST};
use predicates::prelude::*;
use serde_json::Value;

#[test]
fn run_writes_json_csv_and_markdown_with_raw_samples_and_environment() {
    let dir = tempdir("run_writes_json_csv_and_markdown_with_raw_samples_and_environment");
    let json = dir.join("r.json");
    let csv = dir.join("r.csv");
    let md = dir.join("r.md");
    kembench()
        .args(["run", "--include-mock", "--impl", "mock/correct"])
        .args(FAST)
        .arg("--json")
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .arg("--markdown")
        .arg(&md)
        .assert()
        .success()
        .stdout(predicate::str::contains("MockKEM"))
        .stdout(predicate::str::contains("exchange"))
        .stdout(predicate::str::contains("Timers: clock resolution"));
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert!(v["environment"]["cpu"]["logical_cpus"].as_u64().unwrap() >= 1);
    assert!(v["finished_at"].is_string());
    let ops = v["results"][0]["operations"].as_array().unwrap();
    assert_eq!(
        ops.len(),
        6,
        "keygen, encaps, decaps, exchange, sk-import, pk-import"
    );
    for o in ops {
        let raw = o["raw_samples_ns"].as_array().unwrap();
        assert_eq!(raw.len() as u64, o["samples"].as_u64().unwrap());
        assert!(o["median_ns"].as_f64().unwrap() > 0.0);
        assert!(o["median_ci95_low_ns"].as_f64().unwrap() <= o["median_ns"].as_f64().unwrap());
        assert!(o["max_stack_bytes"].as_u64().is_some());
        assert!(o["peak_heap_bytes"].as_u64().is_some());
    }
    let shares: f64 = ops
        .iter()
        .filter_map(|o| o["share_of_exchange"].as_f64())
        .sum();
    assert!((shares - 1.0).abs() < 1e-9, "{shares}");
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv_text.lines().count(), 7);
    assert!(csv_text.starts_with("algorithm,family,nist_level,implementation"));
    assert!(std::fs::read_to_string(&md)
        .unwrap()
        .contains("| MockKEM | mock/correct | keygen |"));
}

/// Whether this machine counts is asked of an oracle of the tests' own (`perf_event_open`
/// called directly): where it counts, every operation's counters are measured and no line says
/// otherwise; where it does not, each operation records the typed "unavailable" value and one
/// line gives the reason the record keeps.
#[test]
fn counters_are_measured_where_the_machine_counts_and_say_why_elsewhere() {
    let dir = tempdir("counters_are_measured_where_the_machine_counts");
    let json = dir.join("r.json");
    let out = kembench()
        .args(["run", "--include-mock", "--impl", "mock/correct"])
        .args(["--ops", "keygen,decaps", "--wide", "--no-store"])
        .args(FAST)
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let ops = v["results"][0]["operations"].as_array().unwrap();
    assert_eq!(ops.len(), 2, "{v}");
    let line = "Hardware counters (cycles, instructions, branch and cache misses) unavailable:";
    match common::pmu::instructions_over(100_000) {
        Ok(n) => {
            for o in ops {
                let c = &o["counters"];
                assert_eq!(c["status"], "measured", "the machine counts ({n}): {o}");
                assert!(c["value"]["instructions"].as_f64().unwrap() > 0.0, "{o}");
                assert!(c["value"]["cycles"].as_f64().unwrap() > 0.0, "{o}");
            }
            assert!(!stdout.contains(line), "{stdout}");
            assert!(v["counters_unavailable"].is_null(), "{v}");
        }
        Err(reason) => {
            let why = v["counters_unavailable"]
                .as_str()
                .unwrap_or_else(|| panic!("no reason recorded (oracle: {reason}): {v}"));
            for o in ops {
                assert_eq!(o["counters"]["status"], "unavailable", "{o}");
                assert_eq!(o["counters"]["value"], why, "{o}");
            }
            assert!(
                stdout.replace('\n', " ").contains(&format!("{line} {why}")),
                "{stdout}"
            );
        }
    }
}

#[test]
fn a_broken_implementation_is_shown_not_timed_and_fails_the_run() {
    kembench()
        .args(["run", "--include-mock", "--impl", "mock/*"])
        .args(FAST)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "NOT TIMED: correctness check failed",
        ))
        .stdout(predicate::str::contains("mock/correct"));
}

#[test]
fn bad_run_options_are_refused() {
    let bad: [(&[&str], &str); 5] = [
        (&["--time-budget", "0"], "--time-budget"),
        (&["--precision", "200"], "--precision"),
        (
            &["--min-samples", "50", "--max-samples", "10"],
            "--max-samples",
        ),
        (&["--ops", "sign"], "invalid value 'sign'"),
        (&["--json", "/nonexistent-dir/x.json"], "does not exist"),
    ];
    for (args, msg) in bad {
        kembench()
            .args(["run", "--include-mock", "--impl", "mock/correct"])
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(msg));
    }
}

/// The longest line of `text`, in characters (display columns for what kembench prints: µ,
/// ± and the box-drawing characters are one column but several bytes).
fn widest_line(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[test]
fn the_default_table_fits_120_columns_with_failures_under_it() {
    let dir = tempdir("the_default_table_fits_120_columns_with_failures_under_it");
    let json = dir.join("fit.json");
    let out = kembench()
        .env("KEMBENCH_MOCK_FAULTS", "1")
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct,mock/broken,mock/crash",
        ])
        .args(FAST)
        .arg("--json")
        .arg(&json)
        .assert()
        .code(1);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(widest_line(&stdout) <= 120, "{stdout}");
    assert!(!stdout.contains("TSC ticks"), "{stdout}");
    assert!(stdout.contains("median ±CI95"), "{stdout}");
    // The failures' rows point to their messages, which follow the table in full.
    assert!(stdout.contains("NOT TIMED"), "{stdout}");
    assert!(
        stdout.contains("] MockKEM@mock/broken NOT TIMED: correctness check failed"),
        "{stdout}"
    );
    assert!(stdout.contains("] MockKEM@mock/crash CRASHED:"), "{stdout}");
    assert!(stdout.contains("SIGSEGV"), "{stdout}");
    // MockKEM is named once, on its first row.
    assert_eq!(stdout.matches("│ MockKEM ").count(), 1, "{stdout}");
    // Where the rest is: the stored run and the JSON file.
    let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    let id = serde_json::from_slice::<Value>(&std::fs::read(&json).unwrap()).unwrap()["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        flat.contains(&format!(
            "Every column and the full lists: `kembench show {id} --wide`, `kembench report {id}`, {}.",
            json.display()
        )),
        "{stdout}"
    );
}

#[test]
fn notes_summarise_by_default_and_list_everything_with_wide() {
    // Three samples never give a 95% interval: every operation stops on the sample cap.
    let capped = [
        "--time-budget",
        "0.05",
        "--warmup",
        "0.01",
        "--max-samples",
        "3",
        "--min-samples",
        "3",
        "--no-store",
    ];
    let run = |wide: bool| {
        let mut c = kembench();
        c.args(["run", "--include-mock", "--impl", "mock/correct"])
            .args(capped);
        if wide {
            c.arg("--wide");
        }
        let out = c.assert().success();
        String::from_utf8_lossy(&out.get_output().stdout).to_string()
    };
    let fit = run(false);
    let flat = fit.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Imprecise: 6 of 6 operations stopped before the median's 95% interval reached ±1.0%; the least precise:"),
        "{fit}"
    );
    assert_eq!(flat.matches("(sample cap, 3 samples)").count(), 3, "{fit}");
    assert!(
        flat.contains("This run is not stored: `--wide` shows every column"),
        "{fit}"
    );
    assert!(widest_line(&fit) <= 120, "{fit}");

    let wide = run(true);
    for column in ["TSC ticks", "cycles", "p25 – p75", "allocs", "share"] {
        assert!(wide.contains(column), "{column}: {wide}");
    }
    assert!(
        wide.contains(
            "Stopped before the median's 95% interval reached ±1.0% (6 of the operations):"
        ),
        "{wide}"
    );
    assert_eq!(wide.matches(": 3 samples, ±").count(), 6, "{wide}");
    assert!(!wide.contains("Every column and the full lists"), "{wide}");
}

/// A fresh directory of the test's own: tests run in parallel, and two that wrote the same
/// `r.json` would read each other's files.
fn tempdir(test: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-run-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// mock/slow-import takes `SLOW_IMPORT_STEPS` opaque steps in every import; its decapsulation
/// with a kept key hashes 32 bytes. Decapsulating from bytes would pay the import every time.
/// Shown by exact instruction counts (`--instructions`, callgrind), not by times.
#[test]
fn a_slow_secret_key_import_is_charged_to_sk_import_and_not_to_decaps() {
    let dir = tempdir("a_slow_secret_key_import_is_charged_to_sk_import_and_not_to_decaps");
    let json = dir.join("r.json");
    kembench()
        .env("KEMBENCH_MOCK_FAULTS", "1")
        .args(["run", "--include-mock", "--impl", "mock/slow-import"])
        .args(["--ops", "decaps,sk-import", "--no-store", "--rounds", "1"])
        .arg("--instructions")
        .args(FAST)
        .arg("--json")
        .arg(&json)
        .assert()
        .success()
        .stdout(predicate::str::contains("sk-import"));
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let counted = |op: &str| {
        v["results"][0]["operations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["operation"] == op)
            .unwrap_or_else(|| panic!("{op} missing: {v}"))["callgrind_instructions"]
            .as_u64()
            .unwrap_or_else(|| panic!("{op} not counted: {v}"))
    };
    let steps = kembench::providers::mock::SLOW_IMPORT_STEPS;
    let (import, decaps) = (counted("sk-import"), counted("decaps"));
    assert!(import >= steps, "sk-import {import} instructions");
    assert!(
        decaps < steps / 10,
        "decaps {decaps} instructions carries the import"
    );
}

#[test]
fn import_operations_are_measured_only_where_a_library_has_the_step() {
    // The mock has both import steps; asking for them on it measures them, and asking for an
    // unknown operation name is refused with the list of names.
    kembench()
        .args(["run", "--include-mock", "--impl", "mock/correct"])
        .args(["--ops", "pk-import", "--no-store"])
        .args(FAST)
        .assert()
        .success()
        .stdout(predicate::str::contains("pk-import"));
    kembench()
        .args(["run", "--include-mock", "--ops", "import", "--no-store"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("sk-import"));
}
