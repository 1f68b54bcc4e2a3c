//! `tls --stack boringssl` and `--stack openssl4` on first use, with a fake cargo in place of
//! the real build of BoringSSL or OpenSSL 4 (minutes): the build's progress is shown, a build
//! that fails says why (never an empty reason), and one that is interrupted says so.

mod common;

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-tls-worker-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A fake `cargo` at `dir/cargo` running `body` (a shell script).
fn fake_cargo(dir: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join("cargo");
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

/// `kembench tls` of BoringSSL alone, building its worker with `cargo` into a build cache of
/// its own, the results written to `dir/tls.json`.
fn tls(dir: &Path, cargo: &Path) -> Command {
    tls_of(dir, cargo, "boringssl")
}

/// `kembench tls` of the stack `stack` alone, as [`tls`].
fn tls_of(dir: &Path, cargo: &Path, stack: &str) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("kembench"));
    c.env("KEMBENCH_BUILD_DIR", dir.join("builds"))
        .env("KEMBENCH_STORE", dir.join("s.sqlite"))
        .env("CARGO", cargo)
        .env_remove(kembench::tls::worker::BORING_VAR)
        .env_remove(kembench::tls::worker::OPENSSL4_VAR)
        .args([
            "tls",
            "--stack",
            stack,
            "--groups",
            "X25519",
            "--modes",
            "full",
            "--no-store",
            "--duration",
            "0.2",
            "--threads",
            "0",
            "--json",
        ])
        .arg(dir.join("tls.json"));
    c
}

/// Why the run's only result is unavailable.
fn unavailable(dir: &Path) -> String {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("tls.json")).unwrap()).unwrap();
    v["results"][0]["unavailable"]
        .as_str()
        .unwrap_or_else(|| panic!("{v:#}"))
        .to_string()
}

#[test]
fn a_first_build_that_fails_silently_says_how_cargo_ended() {
    let d = dir("silent");
    let cargo = fake_cargo(&d, "exit 1");
    let out = tls(&d, &cargo).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let boring =
        kembench::tls::worker::Worker::of(kembench::tls::groups::StackKind::Boringssl).unwrap();
    assert!(
        err.contains("first use of BoringSSL") && err.contains(boring.first_build),
        "{err}"
    );
    let why = unavailable(&d);
    assert!(
        why.contains("failed after")
            && why.contains("cargo exit status: 1, and it printed nothing"),
        "{why}"
    );
    // cargo's last lines are the reason when it said something.
    let cargo = fake_cargo(
        &d,
        "echo '   Compiling boring-sys v4.13.0' >&2; echo 'error: cmake not found' >&2; exit 101",
    );
    let out = tls(&d, &cargo).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "kembench: building BoringSSL's worker, 0 s so far: compiling boring-sys v4.13.0"
        ),
        "{err}"
    );
    let why = unavailable(&d);
    assert!(why.contains("cargo exit status: 101: "), "{why}");
    assert!(why.ends_with("error: cmake not found"), "{why}");
}

#[test]
fn an_interrupted_first_build_says_interrupted() {
    let d = dir("interrupted");
    let cargo = fake_cargo(&d, "echo '   Compiling boring-sys v4.13.0' >&2; sleep 300");
    let mut child = tls(&d, &cargo)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut said = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        said.push_str(&line);
        said.push('\n');
        if line.contains("compiling boring-sys") {
            break;
        }
    }
    // SIGTERM to kembench alone: cargo does not get it, kembench must stop it.
    let started = std::time::Instant::now();
    // SAFETY: kill(2) on the pid of a child this test spawned and has not yet waited for.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    for line in lines {
        said.push_str(&line.unwrap());
        said.push('\n');
    }
    let status = child.wait().unwrap();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(120),
        "kembench waited for cargo's sleep: {said}"
    );
    let why = unavailable(&d);
    assert!(
        why.contains("was interrupted after"),
        "{status}: {why}\n{said}"
    );
    assert!(!why.contains("failed"), "{why}");
}

#[test]
fn openssl4s_worker_is_built_the_same_way_and_says_why_when_it_cannot_be() {
    let d = dir("openssl4");
    let cargo = fake_cargo(
        &d,
        "echo '   Compiling openssl-src v400.0.2+4.0.3' >&2; echo 'error: make failed' >&2; exit 101",
    );
    let out = tls_of(&d, &cargo, "openssl4").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "first use of OpenSSL 4: building OpenSSL 4.0.3 from source (openssl-src 400.0.2), \
             its KEM library and its worker (workers/tls-openssl4)"
        ),
        "{err}"
    );
    assert!(
        err.contains("kembench: building OpenSSL 4's worker, 0 s so far: compiling openssl-src"),
        "{err}"
    );
    let why = unavailable(&d);
    assert!(
        why.starts_with("building OpenSSL 4's worker (workers/tls-openssl4) failed after"),
        "{why}"
    );
    assert!(why.ends_with("error: make failed"), "{why}");
    // A worker named by its variable that is not there: said, nothing built.
    let out = tls_of(&d, &fake_cargo(&d, "exit 99"), "openssl4")
        .env(kembench::tls::worker::OPENSSL4_VAR, d.join("none"))
        .output()
        .unwrap();
    assert!(out.status.code().is_some());
    let why = unavailable(&d);
    assert_eq!(
        why,
        format!(
            "KEMBENCH_TLS_OPENSSL4={} is not a file",
            d.join("none").display()
        )
    );
}
