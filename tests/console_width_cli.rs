//! The console's default tables within 120 columns, and never a name cut: `list`, `verify`,
//! `run`, `runs`, `show` (of a run, a tls run and a ct run) on real implementations with long
//! names (the NTRU sets, PQClean's builds), every line at most 120 characters, and every
//! algorithm, implementation and run id printed whole on one line.

mod common;

use common::{kembench_at, FAST};
use serde_json::Value;
use std::path::{Path, PathBuf};

const WIDTH: usize = 120;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-width-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// What `args` printed on stdout, with `COLUMNS=120` (kembench lays its tables out for 120
/// columns whatever the terminal: the variable must change nothing).
fn console(store: &Path, args: &[&str]) -> String {
    let out = kembench_at(store)
        .env("COLUMNS", "120")
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// Every line of `text` within [`WIDTH`], and each of `names` whole on some line.
fn fits(what: &str, text: &str, names: &[String]) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= WIDTH,
            "{what}: a line of {} characters:\n{line}\n{text}",
            line.chars().count()
        );
    }
    for n in names {
        assert!(
            text.lines().any(|l| l.contains(n.as_str())),
            "{what}: {n} is not whole on any line:\n{text}"
        );
    }
}

/// The algorithm and implementation of every result of a record.
fn names_of(record: &Value) -> Vec<String> {
    let mut v = Vec::new();
    for r in record["results"].as_array().unwrap() {
        for k in ["algorithm", "implementation"] {
            if let Some(s) = r[k].as_str() {
                v.push(s.to_string());
            }
        }
    }
    v.sort();
    v.dedup();
    v
}

#[test]
fn list_and_verify_fit_and_keep_every_name_whole() {
    let d = dir("list");
    let store = d.join("s.sqlite");
    let listed: Value = serde_json::from_str(&console(&store, &["list", "--json"])).unwrap();
    let mut names = Vec::new();
    for a in listed.as_array().unwrap() {
        names.push(a["name"].as_str().unwrap().to_string());
        for i in a["implementations"].as_array().unwrap() {
            names.push(i["id"].as_str().unwrap().to_string());
        }
    }
    assert!(names.iter().any(|n| n.starts_with("ntruhps")), "{names:?}");
    fits("list", &console(&store, &["list"]), &names);
    let verified: Value =
        serde_json::from_str(&console(&store, &["verify", "--alg", "ntru*", "--json"])).unwrap();
    let mut names = Vec::new();
    for r in verified["implementations"].as_array().unwrap() {
        names.push(r["algorithm"].as_str().unwrap().to_string());
        names.push(r["implementation"].as_str().unwrap().to_string());
    }
    assert!(!names.is_empty());
    fits(
        "verify --alg 'ntru*'",
        &console(&store, &["verify", "--alg", "ntru*"]),
        &names,
    );
}

#[test]
fn run_runs_and_show_fit_and_keep_names_and_run_ids_whole() {
    let d = dir("run");
    let store = d.join("s.sqlite");
    let json = d.join("run.json");
    let mut args = vec![
        "run",
        "--alg",
        "ntru*,sntrup761",
        "--ops",
        "keygen,encaps",
        "--rounds",
        "1",
        "--no-pin",
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend(FAST);
    let printed = console(&store, &args);
    let record: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let names = names_of(&record);
    assert!(
        names.iter().any(|n| n.starts_with("ntruhps2048509")),
        "{names:?}"
    );
    fits("run", &printed, &names);
    // A tls and a ct record beside it, from the fixtures.
    for (file, write) in [
        ("tls.json", common::write_tls_fixture as fn(&Path)),
        ("ct.json", common::write_ct_fixture),
    ] {
        let p = d.join(file);
        write(&p);
        kembench_at(&store).arg("import").arg(&p).assert().success();
    }
    let all = common::runs(&store);
    let ids: Vec<String> = all
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 3);
    fits("runs", &console(&store, &["runs"]), &ids);
    for id in &ids {
        let record = common::export_json(&store, id);
        // A tls record's tables name each group by its TLS name (secp256r1, not the catalog's
        // P-256) and put stack and certificate in columns of their own: its groups are checked
        // by the TLS names its fixture uses.
        let mut names = if record["kind"] == "kembench-tls" {
            vec!["X25519MLKEM768".to_string(), "secp256r1".to_string()]
        } else {
            names_of(&record)
        };
        names.push(id.clone());
        fits(
            &format!("show {id}"),
            &console(&store, &["show", id]),
            &names,
        );
    }
}

/// No byte of a terminal escape reaches the console from what a user or a file gave.
fn no_escape(what: &str, out: &std::process::Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(
            !bytes.contains(&0x1b),
            "{what}: an ESC byte on {stream}:\n{}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn build_flags_with_an_escape_are_shown_escaped_in_every_table() {
    let cache = common::build_cache("escape-flags");
    let store = cache.join("s.sqlite");
    let k = |args: &[&str]| {
        kembench_at(&store)
            .env("KEMBENCH_BUILD_DIR", &cache)
            .env("COLUMNS", "120")
            .args(args)
            .output()
            .unwrap()
    };
    // A macro nobody reads, its value an escape sequence (a terminal would turn red).
    let flags = "-O2 -DKEMBENCH_TAG=\u{1b}[31m";
    let out = k(&[
        "builds",
        "--alg",
        "ML-KEM-512",
        "--impl",
        "pqclean/clean",
        "--cc",
        "gcc",
        "--flags",
        flags,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    no_escape("builds", &out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("\\u{1b}"));
    no_escape("list --builds", &k(&["list", "--builds"]));
    no_escape("list", &k(&["list", "--alg", "ML-KEM-512"]));
    no_escape(
        "verify",
        &k(&["verify", "--alg", "ML-KEM-512", "--impl", "pqclean/clean@*"]),
    );
    let mut args = vec![
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
    ];
    args.extend(FAST);
    let out = k(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    no_escape("run", &out);
    no_escape("runs", &k(&["runs"]));
    no_escape("show", &k(&["show", "latest"]));
    no_escape("show --wide", &k(&["show", "latest", "--wide"]));
}
