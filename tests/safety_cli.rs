//! No result ever lost, no secret ever printed: what kembench does with a careless or hostile
//! store setting, output path or input file.

mod common;
use assert_cmd::Command;
use common::{kembench_at, FAST, MOCK_THROUGHPUT};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-safety-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The binary run inside `cwd` with the store setting `store`.
fn in_dir(cwd: &Path, store: &str) -> Command {
    let mut c = kembench_at(store);
    c.current_dir(cwd);
    c
}

fn mock_run() -> [&'static str; 4] {
    ["run", "--include-mock", "--impl", "mock/correct"]
}

/// Every file under `d`, recursively.
fn files(d: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.push(p.clone());
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn an_empty_store_setting_is_an_error_not_a_temporary_database() {
    let d = dir("empty");
    for cmd in [&mock_run()[..], &["runs"]] {
        in_dir(&d, "")
            .args(cmd)
            .args(if cmd.len() > 1 { &FAST[..] } else { &[] })
            .assert()
            .code(2)
            .stdout(predicate::str::contains("recorded in").not())
            .stderr(predicate::str::contains("store setting is empty"));
    }
    let mut c = Command::cargo_bin("kembench").unwrap();
    c.current_dir(&d)
        .args(["runs", "--store", ""])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("store setting is empty"));
    assert!(files(&d).is_empty(), "{:?}", files(&d));
}

#[test]
fn a_misspelled_url_scheme_is_refused_without_printing_the_password() {
    let d = dir("scheme");
    for url in [
        "postgre://kb:s3cret-pw@localhost:5432/db",
        "mysql://kb:s3cret-pw@localhost/db",
        "Postgre://kb:s3cret-pw@localhost/db",
    ] {
        in_dir(&d, url)
            .args(mock_run())
            .args(FAST)
            .assert()
            .code(2)
            .stdout(predicate::str::contains("s3cret-pw").not())
            .stderr(predicate::str::contains("s3cret-pw").not())
            .stderr(predicate::str::contains("postgres://"))
            .stderr(predicate::str::contains("postgresql://"));
    }
    assert!(
        files(&d).is_empty(),
        "directories named after the URL: {:?}",
        files(&d)
    );
}

#[test]
fn postgres_schemes_are_accepted_in_any_case() {
    // Nothing listens on port 1: the error must come from connecting, which shows that the
    // URL was taken as PostgreSQL, and it must not show the password.
    let d = dir("pgcase");
    for url in [
        "Postgres://kb:s3cret-pw@127.0.0.1:1/db",
        "POSTGRESQL://kb:s3cret-pw@127.0.0.1:1/db",
    ] {
        in_dir(&d, url)
            .arg("runs")
            .assert()
            .code(3)
            .stderr(predicate::str::contains("PostgreSQL"))
            .stderr(predicate::str::contains("s3cret-pw").not());
    }
    assert!(files(&d).is_empty());
}

#[test]
fn read_commands_create_no_store() {
    let d = dir("read");
    let store = d.join("sub/dir/s.sqlite");
    let s = store.to_str().unwrap();
    for args in [
        &["runs"][..],
        &["show", "latest"],
        &["export", "latest"],
        &["compare", "latest~1", "latest"],
        &["report", "latest", "-o", "r.html"],
    ] {
        in_dir(&d, s)
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("no store at"));
    }
    assert!(files(&d).is_empty(), "{:?}", files(&d));
    // A run creates it (and its directories), and says so once.
    in_dir(&d, s)
        .args(mock_run())
        .args(FAST)
        .assert()
        .success()
        .stderr(predicate::str::contains("Creating a new results store"));
    in_dir(&d, s)
        .args(mock_run())
        .args(FAST)
        .assert()
        .success()
        .stderr(predicate::str::contains("Creating a new results store").not());
    assert!(store.is_file());
    in_dir(&d, s).arg("runs").assert().success();
}

/// The sha256 of a file, to show it did not change.
fn digest(p: &Path) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(std::fs::read(p).unwrap()))
}

#[test]
fn no_output_is_ever_written_over_the_store_or_an_input() {
    let d = dir("overwrite");
    let store = d.join("s.sqlite");
    let s = store.to_str().unwrap();
    let input = d.join("r.json");
    in_dir(&d, s)
        .args(mock_run())
        .args(FAST)
        .arg("--json")
        .arg(&input)
        .assert()
        .success();
    std::fs::create_dir_all(d.join("sub")).unwrap();
    let before = (digest(&store), digest(&input));
    let refuse = |args: &[&str]| {
        in_dir(&d, s)
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("refusing to write"));
    };
    refuse(&["export", "latest", "-o", s]);
    refuse(&["export", "latest", "-o", "./sub/../s.sqlite"]);
    refuse(&["report", "latest", "-o", s]);
    refuse(&["report", "r.json", "-o", "r.json"]);
    let mut run = mock_run().to_vec();
    run.extend(FAST);
    run.extend(["--json", s]);
    refuse(&run);
    let mut tp = vec!["throughput", "--include-mock", "--impl", "mock/correct"];
    tp.extend([
        "--threads",
        "1",
        "--duration",
        "0.05",
        "--repeats",
        "1",
        "--csv",
        s,
    ]);
    refuse(&tp);
    std::os::unix::fs::symlink(&store, d.join("link")).unwrap();
    refuse(&["export", "latest", "-o", "link"]);
    assert_eq!((digest(&store), digest(&input)), before);
    // The store still reads.
    in_dir(&d, s).arg("runs").assert().success();
}

#[test]
fn outputs_follow_symlinks_write_fifos_in_place_and_dash_is_stdout() {
    let d = dir("targets");
    let store = d.join("s.sqlite");
    let s = store.to_str().unwrap();
    in_dir(&d, s).args(mock_run()).args(FAST).assert().success();
    // A symlink stays a symlink; the file it names gets the export.
    std::fs::write(d.join("real.json"), "old").unwrap();
    std::os::unix::fs::symlink(d.join("real.json"), d.join("link.json")).unwrap();
    in_dir(&d, s)
        .args(["export", "latest", "-o", "link.json"])
        .assert()
        .success();
    assert!(d
        .join("link.json")
        .symlink_metadata()
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(d.join("real.json"))
        .unwrap()
        .contains("kembench-run"));
    // `-o -` is standard output.
    in_dir(&d, s)
        .args(["export", "latest", "--format", "csv", "-o", "-"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("algorithm,"));
    // A FIFO is written in place, not replaced by a regular file.
    let fifo = d.join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    in_dir(&d, s)
        .args(["export", "latest", "-o", "fifo"])
        .assert()
        .success();
    assert!(reader.join().unwrap().contains("kembench-run"));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    // A directory is refused before anything is measured; no stray temporary file anywhere.
    std::fs::create_dir_all(d.join("adir")).unwrap();
    in_dir(&d, s)
        .args(mock_run())
        .args(FAST)
        .args(["--json", "adir"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a directory"));
    in_dir(&d, s)
        .args(["export", "latest", "-o", "adir"])
        .assert()
        .code(2);
    assert!(
        !files(&d)
            .iter()
            .any(|p| p.to_string_lossy().ends_with(".tmp")),
        "{:?}",
        files(&d)
    );
}

#[test]
fn compare_says_when_there_is_nothing_to_compare() {
    let d = dir("compare");
    let store = d.join("s.sqlite");
    let s = store.to_str().unwrap();
    in_dir(&d, s)
        .args(mock_run())
        .args(FAST)
        .args(["--json", "a.json"])
        .assert()
        .success();
    in_dir(&d, s)
        .args(["run", "--include-mock", "--impl", "mock/broken"])
        .args(FAST)
        .args(["--json", "b.json"])
        .assert()
        .code(1);
    for extra in [&[][..], &["--fail-on-regression", "5"]] {
        in_dir(&d, s)
            .args(["compare", "a.json", "b.json"])
            .args(extra)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("share no"))
            .stderr(predicate::str::contains("MockKEM@mock/correct"));
    }
    in_dir(&d, s)
        .args(["compare", "a.json", "a.json"])
        .assert()
        .success()
        .stderr(predicate::str::contains("compared with itself"));
    in_dir(&d, s)
        .args(["compare", "a.json", "a.json", "--fail-on-regression=-5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("zero or more"));
}

#[test]
fn runs_limit_0_is_refused() {
    let d = dir("limit");
    let store = d.join("s.sqlite");
    let s = store.to_str().unwrap();
    in_dir(&d, s).args(mock_run()).args(FAST).assert().success();
    in_dir(&d, s)
        .args(["runs", "--limit", "0"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("No runs yet").not());
    in_dir(&d, s)
        .args(["runs", "--limit", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("complete"));
}

/// `run` of the correct mock with a store that fails after `writes` writes.
fn failing_store_run(cwd: &Path, store: &str, writes: &str) -> Command {
    let mut c = in_dir(cwd, store);
    c.args(mock_run())
        .args(FAST)
        .env("KEMBENCH_MOCK_FAULTS", "1")
        .env("KEMBENCH_MOCK_STORE_FAILS_AFTER", writes);
    c
}

#[test]
fn a_failed_store_never_loses_the_results_silently() {
    let d = dir("storefail");
    let store = d.join("s.sqlite");
    let s = store.to_str().unwrap();
    // The store takes the run's row, then fails: the results go to a file in the current
    // directory, exit 3, and importing the file completes the run in the store.
    failing_store_run(&d, s, "1")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("holds only part of run"))
        .stderr(predicate::str::contains(
            "Everything measured is in ./kembench-",
        ))
        .stdout(predicate::str::contains("Partly recorded: the store"));
    let saved: Vec<PathBuf> = files(&d)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("kembench-")
        })
        .collect();
    assert_eq!(saved.len(), 1, "{:?}", files(&d));
    let runs = common::runs(s);
    assert_eq!(runs[0]["status"], "running", "{runs:?}");
    in_dir(&d, s)
        .arg("import")
        .arg(&saved[0])
        .assert()
        .success()
        .stdout(predicate::str::contains("completed run"));
    let runs = common::runs(s);
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["status"], "complete", "{runs:?}");
    std::fs::remove_file(&saved[0]).unwrap();
    // A store that fails at once is never said to record the run, nor to hold part of it:
    // exit 3, and where the run is instead.
    failing_store_run(&d, s, "0")
        .assert()
        .code(3)
        .stdout(predicate::str::contains("recorded in").not())
        .stdout(predicate::str::contains("is not recorded there"))
        .stdout(predicate::str::contains("Not recorded: the store"))
        .stderr(predicate::str::contains("holds none of run"))
        .stderr(predicate::str::contains("part").not())
        .stderr(predicate::str::contains(
            "Everything measured is in ./kembench-",
        ));
    in_dir(&d, s)
        .args(MOCK_THROUGHPUT)
        .args(["--threads", "1", "--duration", "0.05", "--repeats", "1"])
        .env("KEMBENCH_MOCK_FAULTS", "1")
        .env("KEMBENCH_MOCK_STORE_FAILS_AFTER", "0")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("holds none of run"));
    // Neither the current directory nor the temporary directory takes the file: exit 3.
    failing_store_run(Path::new("/proc"), s, "1")
        .env("TMPDIR", "/proc/kembench-no-such-dir")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("lost"));
    // Otherwise the temporary directory does.
    let tmp = d.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    failing_store_run(Path::new("/proc"), s, "1")
        .env("TMPDIR", &tmp)
        .assert()
        .code(3);
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 1);
}

/// Starts kembench with `args` (fault mocks offered) on `store`, waits until the run is in
/// the store, `ms` more, sends SIGTERM, and returns how it ended.
fn sigterm_after(store: &Path, args: &[&str], ms: u64) -> std::process::Output {
    let mut child = common::spawn(store, args);
    common::wait_for_run(store, &mut child);
    std::thread::sleep(std::time::Duration::from_millis(ms));
    common::signal(&child, libc::SIGTERM);
    child.wait_with_output().unwrap()
}

#[test]
fn sigterm_on_run_keeps_what_was_measured_and_the_run_resumes() {
    let d = dir("sigterm");
    let store = d.join("s.sqlite");
    let out = sigterm_after(
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
        800,
    );
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = common::runs(&store);
    assert_eq!(listed[0]["status"], "interrupted");
    let id = listed[0]["id"].as_str().unwrap().to_string();
    let partial = common::export_json(&store, &id);
    let slow = partial["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["implementation"] == "mock/slow")
        .unwrap()
        .clone();
    let n = slow["operations"][0]["samples"].as_u64().unwrap();
    assert!(n > 0 && n < 3000, "{n}");
    // mock/slow exists only with KEMBENCH_MOCK_FAULTS=1: without it the resume says so and
    // the run stays resumable, never "complete" with a benchmark missing.
    kembench_at(&store)
        .args(["run", "--resume", &id])
        .env_remove("KEMBENCH_MOCK_FAULTS")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("KEMBENCH_MOCK_FAULTS=1"))
        .stderr(predicate::str::contains("mock/slow"));
    assert_eq!(common::runs(&store)[0]["status"], "interrupted");
    kembench_at(&store)
        .args(["run", "--resume", &id])
        .env("KEMBENCH_MOCK_FAULTS", "1")
        .assert()
        .success();
    assert_eq!(common::runs(&store)[0]["status"], "complete");
}

#[test]
fn throughput_refuses_absurd_thread_counts_at_once() {
    let d = dir("threads");
    let s = d.join("s.sqlite");
    kembench_at(&s)
        .args([
            "throughput",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--threads",
            "1,4096",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("threads per logical CPU"));
    assert!(!s.exists(), "nothing was recorded");
}

#[test]
fn import_checks_what_it_stores_and_nothing_printed_can_drive_the_terminal() {
    let d = dir("import");
    let store = d.join("s.sqlite");
    let s = store.to_str().unwrap();
    let good = d.join("good.json");
    kembench_at(d.join("other.sqlite").to_str().unwrap())
        .args(mock_run())
        .args(FAST)
        .arg("--json")
        .arg(&good)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&good).unwrap()).unwrap();
    in_dir(&d, s).args(mock_run()).args(FAST).assert().success();
    let before = digest(&store);
    let bad = |tag: &str, edit: &dyn Fn(&mut serde_json::Value), says: &str| {
        let mut b = v.clone();
        edit(&mut b);
        let p = d.join(format!("{tag}.json"));
        std::fs::write(&p, serde_json::to_vec(&b).unwrap()).unwrap();
        in_dir(&d, s)
            .arg("import")
            .arg(&p)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
        assert_eq!(digest(&store), before, "{tag} changed the store");
    };
    bad(
        "path-id",
        &|b| b["run_id"] = "../../etc/passwd".into(),
        "run id",
    );
    bad(
        "no-samples",
        &|b| {
            b["results"][0]["operations"][0]["raw_samples_ns"] = serde_json::json!([]);
        },
        "no sample",
    );
    bad(
        "negative",
        &|b| b["results"][0]["operations"][0]["median_ns"] = (-5.0).into(),
        "not negative",
    );
    bad(
        "twice",
        &|b| {
            let r = b["results"][0].clone();
            b["results"].as_array_mut().unwrap().push(r);
        },
        "appears twice",
    );
    // A host name with an escape sequence is stored, but shown defused.
    let mut evil = v.clone();
    evil["environment"]["hostname"] = "evil\u{1b}[2J\u{1b}]0;pwned\u{7}".into();
    evil.as_object_mut().unwrap().remove("run_id");
    let p = d.join("evil.json");
    std::fs::write(&p, serde_json::to_vec(&evil).unwrap()).unwrap();
    let out = in_dir(&d, s).arg("import").arg(&p).output().unwrap();
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    let id = said
        .split("as run ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    // `runs` shows the host column with `--wide` (left out within 120 columns).
    for args in [&["runs", "--wide"][..], &["show", id]] {
        let out = in_dir(&d, s).args(args).output().unwrap();
        assert!(out.status.success());
        assert!(
            !out.stdout.contains(&0x1b),
            "{args:?} printed an escape byte"
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("evil"));
    }
}

#[test]
fn sigterm_on_throughput_keeps_what_was_measured_and_the_run_resumes() {
    let d = dir("tp-sigterm");
    let store = d.join("s.sqlite");
    let args = [
        "throughput",
        "--include-mock",
        "--impl",
        "mock/correct,mock/slow",
        "--threads",
        "1,2",
        "--duration",
        "0.4",
        "--repeats",
        "3",
        "--ops",
        "encaps",
    ];
    // mock/correct takes about 3 s (latency, then 2 thread counts x 3 repeats x 0.4 s).
    let out = sigterm_after(&store, &args, 1500);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{stdout}");
    assert!(stdout.contains("throughput --resume"), "{stdout}");
    let listed = common::runs(&store);
    assert_eq!(listed[0]["status"], "interrupted");
    let id = listed[0]["id"].as_str().unwrap().to_string();
    kembench_at(&store)
        .args(["throughput", "--resume", &id])
        .env("KEMBENCH_MOCK_FAULTS", "1")
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "Resuming throughput run {id}"
        )));
    let listed = common::runs(&store);
    assert_eq!(listed[0]["status"], "complete");
    let done = common::export_json(&store, &id);
    let results = done["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{done}");
    for r in results {
        assert!(r.get("interrupted").is_none(), "{r}");
        assert!(!r["operations"][0]["points"].as_array().unwrap().is_empty());
    }
    assert_eq!(done["resumed_at"].as_array().unwrap().len(), 1);
}

/// Makes `p` immutable (write-protected even for root) until dropped.
struct Immutable(PathBuf);

impl Immutable {
    fn new(p: &Path) -> Immutable {
        let ok = std::process::Command::new("chattr")
            .arg("+i")
            .arg(p)
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            ok,
            "chattr +i {} failed: the read-only store test needs e2fsprogs' chattr on a file \
             system that supports it (ext4 here)",
            p.display()
        );
        Immutable(p.to_path_buf())
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&self.0)
            .status();
    }
}

#[test]
fn a_read_only_store_is_said_to_be_read_only_and_still_reads() {
    let d = dir("readonly");
    let store = d.join("s.sqlite");
    let s = store.to_str().unwrap();
    in_dir(&d, s).args(mock_run()).args(FAST).assert().success();
    // SQLite keeps a WAL store's journal beside it; a clean close folds it back in.
    let before = digest(&store);
    {
        let _ro = Immutable::new(&store);
        in_dir(&d, s)
            .arg("runs")
            .assert()
            .success()
            .stdout(predicate::str::contains("complete"));
        in_dir(&d, s).args(["show", "latest"]).assert().success();
        in_dir(&d, s)
            .args(mock_run())
            .args(FAST)
            .assert()
            .code(3)
            .stdout(predicate::str::contains("recorded in").not())
            .stderr(predicate::str::contains("read-only"));
    }
    assert_eq!(digest(&store), before);
    // A new store in a write-protected directory.
    let locked = d.join("locked");
    std::fs::create_dir_all(&locked).unwrap();
    let _ro = Immutable::new(&locked);
    in_dir(&d, locked.join("new.sqlite").to_str().unwrap())
        .args(mock_run())
        .args(FAST)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("read-only"));
}

#[test]
fn a_store_in_a_read_only_directory_is_read_and_never_written() {
    let d = dir("readonly-dir");
    let ro = d.join("ro");
    std::fs::create_dir_all(&ro).unwrap();
    let store = ro.join("s.sqlite");
    let s = store.to_str().unwrap();
    in_dir(&d, s).args(mock_run()).args(FAST).assert().success();
    // A clean close folds SQLite's write-ahead log back in: the store is one file, in WAL mode.
    assert_eq!(files(&ro), std::slice::from_ref(&store));
    let before = digest(&store);
    let report = d.join("report.html");
    // The directory alone, then the file too, write-protected (for root as well).
    for also_the_file in [false, true] {
        let _dir = Immutable::new(&ro);
        let _file = also_the_file.then(|| Immutable::new(&store));
        let case = if also_the_file {
            "file and directory"
        } else {
            "directory"
        };
        in_dir(&d, s)
            .arg("runs")
            .assert()
            .success()
            .stdout(predicate::str::contains("complete"));
        for args in [
            &["show", "latest"][..],
            &["export", "latest", "--format", "csv"],
            &["compare", "latest", "latest"],
        ] {
            let out = in_dir(&d, s).args(args).output().unwrap();
            assert!(
                out.status.success(),
                "{case}: {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        in_dir(&d, s)
            .args(["report", "latest", "-o"])
            .arg(&report)
            .assert()
            .success();
        assert!(report.is_file());
        std::fs::remove_file(&report).unwrap();
        // Recording is refused before anything is measured, and says why.
        in_dir(&d, s)
            .args(mock_run())
            .args(FAST)
            .assert()
            .code(3)
            .stdout(predicate::str::contains("recorded in").not())
            .stderr(predicate::str::contains("is read-only"))
            .stderr(predicate::str::contains("Move it away").not());
        assert_eq!(files(&ro), std::slice::from_ref(&store), "{case}");
    }
    assert_eq!(digest(&store), before);
    assert!(
        files(&d).iter().all(|p| !p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("kembench-")),
        "nothing was measured, so nothing was saved: {:?}",
        files(&d)
    );
}

/// The script [`a_full_disk_is_said_and_nothing_is_lost`] runs in a mount namespace of its
/// own: a 1 MiB tmpfs holds the store, filled to `$FREE` free pages before the second run.
const FULL_DISK: &str = r#"
set -u
mount -t tmpfs -o size=1m kembench-full "$MNT" || exit 90
run() { "$KEMBENCH" run --include-mock --impl mock/correct --time-budget 0.05 --warmup 0.01 --min-samples 5 "$@"; }
run >/dev/null 2>&1 || exit 91
avail=$(df --output=avail -B4096 "$MNT" | tail -1)
dd if=/dev/zero of="$MNT/fill" bs=4096 count=$((avail - FREE)) 2>/dev/null
run >"$OUT/stdout" 2>"$OUT/stderr"
echo $? >"$OUT/code"
rm "$MNT/fill"
"$KEMBENCH" runs --json >"$OUT/runs.json" || exit 92
for f in kembench-*.json; do "$KEMBENCH" import "$f" >/dev/null || exit 93; done
"$KEMBENCH" runs --json >"$OUT/runs-after-import.json" || exit 94
dd if=/dev/zero of="$MNT/fill" bs=4096 2>/dev/null
"$KEMBENCH" runs >/dev/null 2>"$OUT/full-stderr"
echo $? >"$OUT/full-code"
exit 0
"#;

#[test]
fn a_full_disk_is_said_and_nothing_is_lost() {
    let test = "a_full_disk_is_said_and_nothing_is_lost";
    let can = std::process::Command::new("unshare")
        .args(["-m", "--propagation", "private", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !can {
        kembench::missing::skip(
            test,
            "root with mount namespaces (unshare -m)",
            "run the tests as root where util-linux's unshare may create a mount namespace",
        );
        return;
    }
    let d = dir("fulldisk");
    let (mnt, out, cwd) = (d.join("mnt"), d.join("out"), d.join("cwd"));
    for p in [&mnt, &out, &cwd] {
        std::fs::create_dir_all(p).unwrap();
    }
    let store = mnt.join("s.sqlite");
    // Nine free pages: SQLite's -shm file takes eight as the store opens, and no write can be
    // made in the one left, so the store fails at the run's first write.
    let status = std::process::Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c", FULL_DISK])
        .current_dir(&cwd)
        .env("KEMBENCH", assert_cmd::cargo::cargo_bin("kembench"))
        .env("KEMBENCH_STORE", &store)
        .env("MNT", &mnt)
        .env("OUT", &out)
        .env("FREE", "9")
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0), "the full-disk script failed");
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    let (stdout, stderr) = (read("stdout"), read("stderr"));
    assert_eq!(read("code").trim(), "3", "{stdout}\n{stderr}");
    assert!(stderr.contains("database or disk is full"), "{stderr}");
    let id = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Run ")?.split(':').next())
        .unwrap_or_else(|| panic!("the run's id is said: {stdout}"));
    let saved = format!("./kembench-{id}.json");
    assert!(
        stderr.contains(&format!("holds none of run {id}"))
            && stderr.contains(&format!("Everything measured is in {saved}"))
            && !stderr.contains("part"),
        "{stderr}"
    );
    assert!(
        stdout.contains(&format!("Not recorded: the store {}", store.display()))
            && stdout.contains(&format!("saved in {saved}")),
        "{stdout}"
    );
    let ids = |name: &str| -> Vec<String> {
        let runs: serde_json::Value = serde_json::from_str(&read(name)).unwrap();
        runs.as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(!ids("runs.json").contains(&id.to_string()));
    assert!(ids("runs-after-import.json").contains(&id.to_string()));
    // A store on a full file system cannot even be opened: said so, not called damaged.
    assert_ne!(read("full-code").trim(), "0");
    let full = read("full-stderr");
    assert!(
        full.contains("is its file system full?") && !full.contains("Move it away"),
        "{full}"
    );
}
