//! `tls --stack boringssl` on first use, with a fake cargo in place of the real build of
//! BoringSSL (12 minutes): the build's progress is shown, a build that fails says why (never
//! an empty reason), and one that is interrupted says so.

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
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("kembench"));
    c.env("KEMBENCH_BUILD_DIR", dir.join("builds"))
        .env("KEMBENCH_STORE", dir.join("s.sqlite"))
        .env("CARGO", cargo)
        .env_remove(kembench::tls::worker::BORING_VAR)
        .args([
            "tls",
            "--stack",
            "boringssl",
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
    assert!(
        err.contains("first use of BoringSSL") && err.contains("about 12 minutes"),
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
        err.contains("tls: building BoringSSL's worker, 0 s so far: compiling boring-sys v4.13.0"),
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
