//! Nothing lost when the disk fills or a path is not what it seems: `run --json FILE` on a
//! disk that fills (the injected one of `KEMBENCH_MOCK_DISK_FULL_AFTER`, which fails result
//! file writes with `ENOSPC` past a byte count) keeps the old FILE byte for byte, what was
//! measured in the store, and no run `running` with nothing in it; no output replaces another
//! results store; `add` says the system's reason for a path it cannot read or a cache it
//! cannot write; `--arch ''` is refused.

mod common;

use common::{kembench_at, FAST};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-lost-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `run` of the correct mock in `d` (store `d/s.sqlite`) with `--json FILE`, on a disk that
/// is full after `after` bytes of result files (`None`: never).
fn run(d: &Path, file: &str, after: Option<usize>) -> Output {
    let mut c = kembench_at(d.join("s.sqlite"));
    c.current_dir(d)
        .args(["run", "--include-mock", "--impl", "mock/correct"])
        .args(FAST)
        // A fixed number of samples: the file's size (which the injected full disk is
        // measured against) no longer varies with how many samples fit the time budget.
        .args(["--max-samples", "5"])
        .args(["--json", file]);
    if let Some(n) = after {
        c.env("KEMBENCH_MOCK_FAULTS", "1")
            .env("KEMBENCH_MOCK_DISK_FULL_AFTER", n.to_string());
    }
    c.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The files of `d` whose names end with `suffix`.
fn ending_with(d: &Path, suffix: &str) -> Vec<PathBuf> {
    std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect()
}

#[test]
fn a_disk_full_before_the_first_result_keeps_the_old_file_and_records_no_empty_run() {
    let d = dir("full-at-start");
    let first = run(&d, "r.json", None);
    assert!(first.status.success(), "{}", stderr(&first));
    let old = std::fs::read(d.join("r.json")).unwrap();
    let runs = common::runs(d.join("s.sqlite"));
    assert_eq!(runs.len(), 1);
    let real = runs[0]["id"].as_str().unwrap().to_string();

    let o = run(&d, "r.json", Some(0));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("cannot write r.json")
            && err.contains("No space left on device")
            && err.contains("r.json is left as it was")
            && err.contains("nothing was measured"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(d.join("r.json")).unwrap(),
        old,
        "byte for byte"
    );

    // A new file: none left behind, empty or not.
    let o = run(&d, "new.json", Some(0));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("new.json was not created"), "{err}");
    assert!(!d.join("new.json").exists());
    assert!(ending_with(&d, ".partial").is_empty());
    assert!(ending_with(&d, ".tmp").is_empty());

    // No run left `running` with nothing in it; `show latest` is the real one.
    let runs = common::runs(d.join("s.sqlite"));
    assert_eq!(runs.len(), 1, "{runs:#?}");
    assert_eq!(runs[0]["status"], "complete");
    let show = kembench_at(d.join("s.sqlite"))
        .args(["show", "latest"])
        .output()
        .unwrap();
    assert!(show.status.success(), "{}", stderr(&show));
    assert!(
        String::from_utf8_lossy(&show.stdout).contains(&real),
        "{}",
        String::from_utf8_lossy(&show.stdout)
    );
}

#[test]
fn a_disk_that_fills_during_the_run_keeps_the_old_file_and_what_was_measured() {
    let d = dir("full-part-way");
    let first = run(&d, "r.json", None);
    assert!(first.status.success(), "{}", stderr(&first));
    let old = std::fs::read(d.join("r.json")).unwrap();
    // Room for the in-progress file (about one record) but not for the final one besides it.
    let o = run(&d, "r.json", Some(old.len() * 3 / 2));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("r.json")
            && err.contains("No space left on device")
            && err.contains("r.json is left as it was"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(d.join("r.json")).unwrap(),
        old,
        "byte for byte"
    );
    assert!(ending_with(&d, ".tmp").is_empty());

    // What was measured is in the store, complete, and `export` writes it.
    let runs = common::runs(d.join("s.sqlite"));
    assert_eq!(runs.len(), 2);
    let id = runs[0]["id"].as_str().unwrap();
    assert_eq!(runs[0]["status"], "complete");
    assert_eq!(runs[0]["results"], 1);
    assert!(
        err.contains(&format!("kembench export {id} --format json -o r.json")),
        "{err}"
    );
    let stored = common::export_json(d.join("s.sqlite"), id);
    assert_eq!(stored["results"].as_array().unwrap().len(), 1);
    // The in-progress file, named in the message, is whole JSON with what it holds.
    for p in ending_with(&d, ".partial") {
        assert!(err.contains(&p.display().to_string()), "{err}");
        let kept: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        assert_eq!(kept["run_id"].as_str(), Some(id));
    }
}

#[test]
fn no_output_replaces_another_results_store() {
    let d = dir("other-store");
    let other = d.join("other.sqlite");
    let o = kembench_at(&other)
        .args(["run", "--include-mock", "--impl", "mock/correct"])
        .args(FAST)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read(&other).unwrap();
    let store = d.join("s.sqlite");
    let attempts: [&[&str]; 3] = [
        &[
            "ct",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--screens",
            "timing",
            "--json",
        ],
        &["run", "--include-mock", "--impl", "mock/correct", "--json"],
        &["export", "latest", "-o"],
    ];
    for args in attempts {
        let o = kembench_at(&store).args(args).arg(&other).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("over an SQLite database"), "{args:?}: {err}");
        assert_eq!(std::fs::read(&other).unwrap(), before, "{args:?}");
    }
}

/// `kembench add PATH` with the build cache `cache`.
fn add(cache: &Path, path: &Path) -> Output {
    common::kembench()
        .env("KEMBENCH_BUILD_DIR", cache)
        .arg("add")
        .arg(path)
        .output()
        .unwrap()
}

#[test]
fn add_says_the_systems_reason_for_a_path_it_cannot_read() {
    let d = dir("add-paths");
    let cache = d.join("cache");
    let looped = d.join("loop");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    let o = add(&cache, &looped);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("Too many levels of symbolic links") && !err.contains("does not exist"),
        "{err}"
    );
    // A package whose api.h cannot be read (a loop here: root reads any mode) is not one
    // without api.h.
    let pkg = d.join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    std::os::unix::fs::symlink(pkg.join("api.h"), pkg.join("api.h")).unwrap();
    let o = add(&cache, &pkg);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("api.h") && err.contains("Too many levels of symbolic links"),
        "{err}"
    );
    assert!(!err.contains("has no api.h"), "{err}");
    // Missing is still missing (a usage error).
    let o = add(&cache, &d.join("absent"));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("does not exist"));
}

#[test]
fn add_into_a_cache_it_cannot_write_is_an_io_error() {
    let pkg = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/nist-package/mlkem512/Reference_Implementation/crypto_kem/mlkem512");
    // /proc takes no file, not even from root.
    let o = add(Path::new("/proc"), &pkg);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("cannot write into the build cache /proc")
            && err.contains("KEMBENCH_BUILD_DIR"),
        "{err}"
    );
}

#[test]
fn an_empty_arch_is_refused_with_the_list() {
    let d = dir("arch");
    for cmd in [&["builds"][..], &["add", "."]] {
        let o = common::kembench()
            .env("KEMBENCH_BUILD_DIR", d.join("cache"))
            .current_dir(&d)
            .args(cmd)
            .args(["--arch", ""])
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{cmd:?}: {err}");
        assert!(
            err.contains("unknown architecture ''") && err.contains("s390x"),
            "{cmd:?}: {err}"
        );
    }
}
