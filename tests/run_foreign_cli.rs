//! `run` with builds for another architecture in the build cache: they run under QEMU, where
//! time says nothing about the machine, so a selection that matches them leaves them out with
//! one line saying why, and a selection of nothing else is refused (exit 2). The foreign
//! build is a record in the cache made from a real native build of ML-KEM-512 (PQClean's
//! portable C by gcc at -O2), marked as built for s390x: `run` must decide on the record alone,
//! before any emulator would start (`tests/foreign_cli.rs` makes real cross builds).

mod common;

use common::{kembench_at, FAST};
use serde_json::Value;
use std::path::Path;

/// A native ML-KEM-512 build in `cache`, and a copy of its record marked as an s390x build:
/// their implementation ids.
fn native_and_foreign(cache: &Path) -> (String, String) {
    let (code, v, err) = common::builds_json(
        cache,
        &[
            "--alg",
            "ML-KEM-512",
            "--impl",
            "pqclean/clean",
            "--cc",
            "gcc",
            "--flags",
            "-O2",
        ],
    );
    assert_eq!(code, 0, "{err}\n{v:#}");
    let key = v["builds"][0]["key"].as_str().unwrap().to_string();
    let native = v["builds"][0]["facts"]["implementation"]
        .as_str()
        .unwrap()
        .to_string();
    let mut record: Value =
        serde_json::from_slice(&std::fs::read(cache.join(&key).join("build.json")).unwrap())
            .unwrap();
    let foreign_key = format!("{}-s390x", &key[..key.len().min(40)]);
    let foreign = format!("{native}@s390x");
    record["key"] = foreign_key.clone().into();
    record["facts"]["arch"] = "s390x".into();
    record["facts"]["implementation"] = foreign.clone().into();
    std::fs::create_dir_all(cache.join(&foreign_key)).unwrap();
    std::fs::write(
        cache.join(&foreign_key).join("build.json"),
        serde_json::to_vec(&record).unwrap(),
    )
    .unwrap();
    (native, foreign)
}

#[test]
fn run_leaves_foreign_builds_out_with_a_line_and_refuses_them_alone() {
    let cache = common::build_cache("run-foreign");
    let (native, foreign) = native_and_foreign(&cache);
    let store = cache.join("s.sqlite");
    // The foreign build is in the cache: `list --builds` shows it.
    let listed = kembench_at(&store)
        .env("KEMBENCH_BUILD_DIR", &cache)
        .args(["list", "--builds"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains(&foreign),
        "{}",
        String::from_utf8_lossy(&listed.stdout)
    );
    let json = cache.join("run.json");
    let out = kembench_at(&store)
        .env("KEMBENCH_BUILD_DIR", &cache)
        .args([
            "run",
            "--alg",
            "ML-KEM-512",
            "--impl",
            "pqclean/clean@*",
            "--ops",
            "keygen",
            "--rounds",
            "1",
            "--no-pin",
            "--json",
        ])
        .arg(&json)
        .args(FAST)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{err}\n{said}");
    assert!(!said.contains("correctness check failed"), "{said}");
    let left_out: Vec<&str> = err.lines().filter(|l| l.contains("left out")).collect();
    assert_eq!(left_out.len(), 1, "{err}");
    assert!(
        err.contains(&foreign) && err.contains("for s390x") && err.contains("emulation"),
        "{err}"
    );
    let record: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let timed: Vec<&str> = record["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["implementation"].as_str().unwrap())
        .collect();
    assert_eq!(timed, [native.as_str()]);
    // Only the foreign build: nothing to time, said as a usage error naming the way to count it.
    let out = kembench_at(&store)
        .env("KEMBENCH_BUILD_DIR", &cache)
        .args([
            "run",
            "--alg",
            "ML-KEM-512",
            "--impl",
            "*@s390x",
            "--no-store",
        ])
        .args(FAST)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("nothing to time")
            && err.contains(&foreign)
            && err.contains("kembench profile"),
        "{err}"
    );
}
