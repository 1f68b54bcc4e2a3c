//! OpenSSL 4.0.3 beside the OpenSSL 3.6 kembench links, through OpenSSL 4's worker
//! (`workers/tls-openssl4`, built on first use into this test process's build cache, once for
//! every test here): its KEMs and key exchanges as implementation `openssl4` (gated, timed in
//! the same interleaved rounds as 3.6 with the two versions side by side, profiled with fixed
//! randomness), its TLS handshakes beside 3.6's, and a missing library said as such.

mod common;

use common::kembench;
use serde_json::Value;

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-openssl4-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tls_record(name: &str, args: &[&str]) -> Value {
    common::short_tls(&temp(name), args)
}

fn result<'a>(r: &'a Value, label: &str) -> &'a Value {
    common::labelled(r, label)
}

/// `kembench ARGS` with OpenSSL 4's worker built (or reused) in this process's build cache;
/// its output, after asserting that it succeeded.
fn ok(args: &[&str]) -> String {
    let o = kembench()
        .env_remove(kembench::tls::worker::OPENSSL4_VAR)
        .args(args)
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    );
    assert!(
        o.status.success(),
        "{args:?}\nstdout:\n{out}\nstderr:\n{err}"
    );
    out
}

#[test]
fn openssl_4s_kems_pass_the_gate_with_3_6_and_are_timed_beside_it() {
    let d = temp("kems");
    let algs = "ML-KEM-768,X25519MLKEM768,X25519";
    // The gate: every check of 4.0.3, and interoperability with 3.6 and the other libraries.
    let v: Value = serde_json::from_str(&ok(&[
        "verify",
        "--alg",
        algs,
        "--impl",
        "openssl,openssl4,aws-lc",
        "--json",
    ]))
    .unwrap();
    let all = v["implementations"].as_array().unwrap();
    let four: Vec<&Value> = all
        .iter()
        .filter(|x| x["implementation"] == "openssl4")
        .collect();
    assert_eq!(four.len(), 3, "{v:#}");
    for x in &four {
        assert!(
            x["version"].as_str().unwrap().starts_with("OpenSSL 4.0.3"),
            "{x}"
        );
        for (check, c) in x["checks"].as_object().unwrap() {
            assert_ne!(c["status"], "fail", "{check}: {x}");
        }
        assert_eq!(x["checks"]["round-trip"]["status"], "pass", "{x}");
        // ML-KEM-768 and X25519 meet 3.6 and aws-lc; X25519MLKEM768 meets 3.6 (and aws-lc has
        // no such KEM): a peer each at least.
        assert_eq!(x["checks"]["interop"]["status"], "pass", "{x}");
    }
    let mlkem = four
        .iter()
        .find(|x| x["algorithm"] == "ML-KEM-768")
        .unwrap();
    assert_eq!(
        mlkem["checks"]["known-answers"]["status"], "pass",
        "{mlkem}"
    );

    // `openssl*` is 3.6 alone: 4.0.3 is picked only when named.
    let listed = ok(&["verify", "--alg", "X25519", "--impl", "openssl*", "--json"]);
    assert!(!listed.contains("openssl4"), "{listed}");

    // Timed in the same interleaved rounds as 3.6, each operation of 4.0.3 against 3.6's.
    let out = ok(&[
        "run",
        "--alg",
        "ML-KEM-768,X25519",
        "--impl",
        "openssl,openssl4",
        "--time-budget",
        "0.1",
        "--rounds",
        "2",
        "--no-store",
        "--json",
        d.join("run.json").to_str().unwrap(),
    ]);
    assert!(out.contains("Versions side by side"), "{out}");
    let pairs = out.lines().filter(|l| l.contains("openssl →")).count();
    // ML-KEM-768 and X25519: keygen, encaps, decaps, exchange, sk-import, pk-import each.
    assert_eq!(pairs, 12, "{out}");

    // Profiled with its draws fixed through kembench's seeded stream: twice the same counts.
    let counts = |name: &str| -> Vec<u64> {
        let f = d.join(name);
        ok(&[
            "profile",
            "--alg",
            "ML-KEM-768",
            "--impl",
            "openssl4",
            "--seeds",
            "1",
            "--no-store",
            "--json",
            f.to_str().unwrap(),
        ]);
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let x = &r["results"][0];
        assert_eq!(x["implementation"], "openssl4", "{x}");
        assert_eq!(x["randomness"]["fixed"], true, "{x}");
        assert!(
            x["randomness"]["how"]
                .as_str()
                .unwrap()
                .contains("callback"),
            "{x}"
        );
        x["operations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["instructions"]["median"].as_u64().unwrap())
            .collect()
    };
    let (a, b) = (counts("p1.json"), counts("p2.json"));
    assert_eq!(a.len(), 3);
    assert!(a.iter().all(|&n| n > 100_000), "{a:?}");
    assert_eq!(a, b);
    std::fs::remove_dir_all(&d).unwrap();
}

/// A worker named without the library beside it (one built before kembench had it): every
/// operation fails with the reason, and the gate says so instead of timing anything.
#[test]
fn a_worker_without_its_kem_library_is_said_and_nothing_is_timed() {
    let d = temp("missing");
    let exe = d.join("kembench-tls-openssl4");
    std::fs::write(&exe, "").unwrap();
    let o = kembench()
        .env(kembench::tls::worker::OPENSSL4_VAR, &exe)
        .args([
            "run",
            "--alg",
            "X25519",
            "--impl",
            "openssl4",
            "--time-budget",
            "0.1",
            "--no-store",
        ])
        .output()
        .unwrap();
    let err = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(1), "{err}");
    // The console wraps at word boundaries.
    let err = err.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(err.contains("NOT TIMED"), "{err}");
    assert!(
        err.contains("OpenSSL 4.0.3 is not available")
            && err.contains("libkembench_tls_openssl4.so is not there"),
        "{err}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn openssl_3_and_4_run_the_same_handshakes_side_by_side_in_one_run() {
    let r = tls_record(
        "openssl4",
        &[
            "--groups",
            "X25519MLKEM768",
            "--stack",
            "openssl,openssl4",
            "--hello",
            "minimal,browser",
            "--modes",
            "full,resumed,hrr",
        ],
    );
    let three = result(&r, "X25519MLKEM768@openssl/ecdsa-p256");
    let four = result(&r, "X25519MLKEM768@openssl4/ecdsa-p256");
    for (x, version) in [(three, "OpenSSL 3.6"), (four, "OpenSSL 4.0.3")] {
        assert!(x["error"].is_null() && x["unavailable"].is_null(), "{x}");
        assert!(x["version"].as_str().unwrap().starts_with(version), "{x}");
        assert_eq!(x["checks"]["negotiated_group"], "X25519MLKEM768", "{x}");
        assert_eq!(x["client_shares"], "X25519MLKEM768 1216 B", "{x}");
        let modes: Vec<&str> = x["modes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["mode"].as_str().unwrap())
            .collect();
        assert_eq!(modes, ["full", "resumed", "hrr"], "{x}");
    }
    // The same chain on both (the job carries kembench's own): the same sizes said.
    assert_eq!(
        three["checks"]["certificate"],
        four["checks"]["certificate"]
    );
    // OpenSSL 4 has no browser hello either: refused by the same code, with its version.
    let b = result(&r, "X25519MLKEM768@openssl4/ecdsa-p256/browser");
    let why = b["unavailable"].as_str().unwrap_or_default();
    assert!(
        why.contains("OpenSSL 4.0.3") && why.contains("GREASE"),
        "{b}"
    );
    // The key exchange's share on each library, timed bare by the same adapter on both (in
    // OpenSSL 4's worker for 4.0.3).
    for (x, label) in [
        (three, "X25519MLKEM768@openssl"),
        (four, "X25519MLKEM768@openssl4"),
    ] {
        assert!(x["kem_unavailable"].is_null(), "{x}");
        assert_eq!(x["kem"]["implementation"], label, "{x}");
        let share = x["kem"]["server_share"].as_f64().unwrap();
        assert!(share > 0.0 && share < 1.0, "{x}");
    }
}

/// An OpenSSL tree (a copy of the OpenSSL 3.6.3 release that the `openssl-src` crate of
/// kembench's own build ships) built through its own `Configure` and `make`, OpenSSL's KEM
/// library linked against it: named with the tree's version and content, gated, timed, and
/// reused the second time.
#[test]
fn an_openssl_tree_is_built_with_its_own_build_system_gated_and_named() {
    let d = temp("tree");
    let tree = d.join("openssl");
    let from = std::path::Path::new(env!("KEMBENCH_SRC_OPENSSL_SRC")).join("openssl");
    let o = std::process::Command::new("cp")
        .arg("-a")
        .arg(&from)
        .arg(&tree)
        .output()
        .unwrap();
    assert!(o.status.success(), "copying {}: {o:?}", from.display());
    let source = format!("openssl={}", tree.display());
    let builds = |extra: &[&str]| -> Value {
        let o = kembench()
            .env("KEMBENCH_BUILD_DIR", d.join("builds"))
            .args(["builds", "--source", &source, "--alg", "ML-KEM-768,X25519"])
            // -O0: the quickest build of the tree (this test checks names, the gate and
            // reuse, not speed), beside OpenSSL 4's worker building in the same test binary.
            .args(["--cc", "gcc", "--flags", "-O0", "--json"])
            .args(extra)
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.status.success(), "{text}");
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {text}"))
    };
    let first = builds(&[]);
    let all = first["builds"].as_array().unwrap();
    assert_eq!(all.len(), 2, "{first:#}");
    let mut ids = std::collections::BTreeSet::new();
    for b in all {
        let f = &b["facts"];
        let id = f["implementation"].as_str().unwrap();
        // The tree's declared version and its content digest (not a git checkout).
        assert!(
            id.starts_with("openssl-3.6.3+") && id.ends_with("/evp@gcc-12:O0"),
            "{b}"
        );
        assert_eq!(f["gate"]["gate"], "passed", "{b}");
        assert!(
            f["source_version"]
                .as_str()
                .unwrap()
                .contains("content sha256"),
            "{b}"
        );
        ids.insert(id.to_string());
    }
    assert_eq!(
        ids.len(),
        1,
        "both algorithms come from one build of the tree: {ids:?}"
    );
    // Reused: nothing compiled the second time.
    let again = builds(&[]);
    assert_eq!(again["compiler_runs"], 0, "{again:#}");
    // Timed like any build, and its figures named with the tree's version.
    let id = ids.into_iter().next().unwrap();
    let o = kembench()
        .env("KEMBENCH_BUILD_DIR", d.join("builds"))
        .args([
            "run",
            "--alg",
            "ML-KEM-768",
            "--impl",
            &id,
            "--time-budget",
            "0.1",
        ])
        .args(["--no-store", "--json"])
        .arg(d.join("run.json"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("run.json")).unwrap()).unwrap();
    let x = &r["results"][0];
    assert_eq!(x["implementation"], id.as_str(), "{x}");
    assert!(
        x["version"]
            .as_str()
            .unwrap()
            .starts_with("openssl 3.6.3 tree"),
        "{x}"
    );
    assert!(
        x["operations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["median_ns"].as_f64().unwrap() > 0.0),
        "{x}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}
