//! No result ever lost, no secret ever printed: what kembench does with a careless or hostile
//! store setting, output path or input file.

mod common;
use assert_cmd::Command;
use common::{kembench_at, FAST};
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
    // A run creates it (and its directories).
    in_dir(&d, s).args(mock_run()).args(FAST).assert().success();
    assert!(store.is_file());
    in_dir(&d, s).arg("runs").assert().success();
}
