//! Exit codes mean something: 0 success, 1 a check or benchmark failed, 2 bad usage or
//! arguments, 3 an I/O or store error, 141 standard output's reader gone (130, interrupted, is
//! covered in store_cli.rs).

mod common;
use common::{kembench, kembench_at, FAST};
use std::path::PathBuf;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-exit-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A `run --json` file of the correct mock.
fn run_file(d: &std::path::Path) -> PathBuf {
    let f = d.join("r.json");
    kembench()
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--no-store",
            "--json",
        ])
        .arg(&f)
        .args(FAST)
        .assert()
        .success();
    f
}

#[test]
fn success_is_0_and_a_failed_check_is_1() {
    kembench()
        .args(["verify", "--include-mock", "--impl", "mock/correct"])
        .assert()
        .code(0);
    kembench()
        .args(["verify", "--include-mock", "--impl", "mock/broken"])
        .assert()
        .code(1);
    kembench()
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/broken",
            "--no-store",
        ])
        .args(FAST)
        .assert()
        .code(1);
}

#[test]
fn bad_arguments_and_names_are_2() {
    kembench()
        .args(["list", "--alg", "ML-KEM-786"])
        .assert()
        .code(2);
    kembench()
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--time-budget",
            "-1",
        ])
        .assert()
        .code(2);
    let d = dir("usage");
    let store = d.join("s.sqlite");
    // A noise threshold out of range, between two files that exist and compare: refused for
    // the threshold, not for the files.
    let a = d.join("a.json");
    kembench()
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--no-store",
        ])
        .args(FAST)
        .arg("--json")
        .arg(&a)
        .assert()
        .success();
    kembench().arg("compare").arg(&a).arg(&a).assert().success();
    kembench()
        .arg("compare")
        .arg(&a)
        .arg(&a)
        .args(["--noise", "400"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--noise is a percentage between 0 and 100, got 400",
        ));
    kembench_at(&store)
        .args(["run", "--include-mock", "--impl", "mock/correct"])
        .args(FAST)
        .assert()
        .success();
    kembench_at(&store)
        .args(["show", "no-such-run"])
        .assert()
        .code(2);
    kembench_at(&store)
        .args(["show", "latest~7"])
        .assert()
        .code(2);
    let not_a_record = d.join("x.json");
    std::fs::write(&not_a_record, "{\"kind\": \"something-else\"}").unwrap();
    kembench_at(&store)
        .arg("import")
        .arg(&not_a_record)
        .assert()
        .code(2);
}

#[test]
fn a_store_that_cannot_be_used_is_3() {
    let d = dir("store");
    let store = d.join("s.sqlite");
    std::fs::write(
        &store,
        b"not a database at all, just some bytes".repeat(100),
    )
    .unwrap();
    kembench_at(&store).arg("runs").assert().code(3);
    kembench_at(&store)
        .args(["run", "--include-mock", "--impl", "mock/correct"])
        .args(FAST)
        .assert()
        .code(3);
}

#[test]
fn a_report_that_cannot_be_written_is_3() {
    let d = dir("write");
    let f = run_file(&d);
    // /proc exists and is a directory, but no file can be created in it, even by root.
    kembench()
        .arg("report")
        .arg(&f)
        .args(["-o", "/proc/kembench-report.html"])
        .assert()
        .code(3);
    let store = d.join("s.sqlite");
    kembench_at(&store).arg("import").arg(&f).assert().success();
    kembench_at(&store)
        .args(["export", "latest", "-o", "/proc/kembench-export.json"])
        .assert()
        .code(3);
}

/// kembench with `store`, as a plain command whose pipes the test handles.
fn plain(store: &std::path::Path) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("kembench"));
    c.env("KEMBENCH_STORE", store);
    c
}

/// `cmd` with the read end of its standard output closed before it starts (as
/// `kembench ... | head -1` leaves it once `head` has its line): its exit code and stderr.
fn reader_gone(mut cmd: std::process::Command) -> (Option<i32>, String) {
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::process::Stdio;
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two new descriptors into `fds`, close-on-exec so that no other
    // test's child inherits them.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: both descriptors were just made and belong to nothing else.
    let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(reader);
    let out = cmd
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A closed standard output ends every command quietly with 141 (as a shell expects of a
/// writer whose pipe closed): no panic, no "error: Broken pipe"; a measuring command stops as
/// on Ctrl-C, its run kept in the store, interrupted and resumable.
#[test]
fn a_reader_that_goes_away_ends_every_command_quietly_and_keeps_the_run() {
    let d = dir("reader-gone");
    let store = d.join("s.sqlite");
    let file = run_file(&d);
    let mock = ["--include-mock", "--impl", "mock/correct"];
    // A measuring command first: its run is kept, interrupted, and `--resume` completes it.
    let mut run = plain(&store);
    run.arg("run").args(mock).args(FAST);
    let (code, stderr) = reader_gone(run);
    assert_eq!(code, Some(141), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("Standard output was closed"), "{stderr}");
    assert!(
        stderr.contains("--resume"),
        "how to resume reaches stderr: {stderr}"
    );
    let listed = common::runs(&store);
    assert_eq!(listed[0]["status"], "interrupted", "{listed:?}");
    kembench_at(&store)
        .args(["run", "--resume", "latest"])
        .assert()
        .success();
    assert_eq!(common::runs(&store)[0]["status"], "complete");
    let f = file.to_str().unwrap();
    let report = d.join("report.md");
    let commands: Vec<Vec<&str>> = vec![
        vec![
            "report",
            f,
            "--format",
            "markdown",
            "-o",
            report.to_str().unwrap(),
        ],
        vec![
            "profile",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--seeds",
            "1",
            "--ops",
            "encaps",
        ],
        vec![
            "tls",
            "--groups",
            "X25519",
            "--stack",
            "rustls",
            "--duration",
            "0.05",
            "--threads",
            "0",
            "--modes",
            "full",
        ],
        vec!["list"],
        vec!["list", "--json"],
        vec!["runs"],
        vec!["show", "latest"],
        vec!["export", "latest"],
        vec!["export", "latest", "--format", "markdown"],
        vec!["compare", f, f],
        vec!["verify", "--include-mock", "--impl", "mock/correct"],
        vec![
            "throughput",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--threads",
            "1",
            "--duration",
            "0.05",
            "--repeats",
            "1",
        ],
    ];
    for args in commands {
        let mut cmd = plain(&store);
        cmd.args(&args);
        let (code, stderr) = reader_gone(cmd);
        assert_eq!(code, Some(141), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}

/// A measuring command that measured nothing at all says why and exits 1 (before: `run` said
/// "NOT MEASURED: unknown", `profile` "nothing profiled" beside "ok", and `tls` of a group the
/// stack lacks recorded a complete run; all exited 0).
#[test]
fn nothing_measured_at_all_says_why_and_exits_1() {
    let sk_import = ["--alg", "X25519", "--impl", "rustls", "--ops", "sk-import"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            [&["run"], &sk_import[..], &["--time-budget", "0.05"]].concat(),
            "sk-import: no secret-key import of its own",
        ),
        (
            [&["profile"], &sk_import[..], &["--seeds", "1"]].concat(),
            "sk-import: no secret-key import of its own",
        ),
        (
            [
                &["throughput"],
                &sk_import[..],
                &["--threads", "1", "--duration", "0.05", "--repeats", "1"],
            ]
            .concat(),
            "sk-import: no secret-key import of its own",
        ),
        (
            vec![
                "tls",
                "--groups",
                "secp521r1",
                "--stack",
                "rustls",
                "--duration",
                "0.05",
                "--threads",
                "0",
            ],
            "has no secp521r1 group",
        ),
    ];
    for (args, why) in cases {
        let out = kembench().args(&args).arg("--no-store").output().unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let flat = said.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(out.status.code(), Some(1), "{args:?}: {said}");
        assert!(flat.contains(why), "{args:?}: {said}");
        assert!(
            flat.contains("Nothing was measured: every benchmark says why above."),
            "{args:?}: {said}"
        );
        assert!(!flat.contains("unknown"), "{args:?}: {said}");
    }
}
