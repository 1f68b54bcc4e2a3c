//! `kembench tls` end to end: real handshakes on both stacks, checked and recorded; unknown
//! names; a group a stack lacks; network conditions in namespaces (or their clean skip), and
//! Ctrl-C in the middle of one leaving no namespace behind.

mod common;

use common::{kembench, signal};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

fn tls_record(dir: &Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--no-store");
    common::command_record(kembench(), "tls", &dir.join("tls.json"), &all)
}

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-tls-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn result<'a>(r: &'a Value, label: &str) -> &'a Value {
    common::labelled(r, label)
}

#[test]
fn handshakes_are_checked_and_flights_recorded_on_both_stacks() {
    let dir = temp("both");
    let r = tls_record(
        &dir,
        &[
            "--groups",
            "X25519MLKEM768,X25519,ffdhe2048",
            "--duration",
            "0.3",
            "--threads",
            "0",
        ],
    );
    assert_eq!(r["kind"], "kembench-tls");
    for stack in ["rustls", "openssl"] {
        for (alg, group, client, server) in [
            ("X25519MLKEM768", "X25519MLKEM768", 1216, 1120),
            ("X25519", "X25519", 32, 32),
        ] {
            let x = result(&r, &format!("{alg}@{stack}/ecdsa-p256"));
            assert!(x["error"].is_null(), "{x}");
            let c = &x["checks"];
            assert_eq!(c["negotiated_group"], group);
            assert_eq!(c["client_share_bytes"], client);
            assert_eq!(c["server_share_bytes"], server);
            assert!(c["handshakes"].as_u64().unwrap() > 10);
            let modes: Vec<&str> = x["modes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["mode"].as_str().unwrap())
                .collect();
            assert_eq!(modes, ["full", "resumed", "hrr"]);
            let full = &x["modes"][0];
            let hello = &full["flights"][0];
            assert_eq!(hello["name"], "ClientHello");
            assert!(hello["bytes"].as_u64().unwrap() > client as u64, "{hello}");
            assert!(full["server_ns"]["median"].as_f64().unwrap() > 0.0);
            assert!(full["client_ns"]["median"].as_f64().unwrap() > 0.0);
            let kem = &x["kem"];
            assert!(kem["encaps_ns"].as_f64().unwrap() > 0.0, "{x}");
            assert!(x["capacity"]["server_cores_for_target"].as_f64().unwrap() > 0.0);
        }
    }
    // OpenSSL offers ffdhe2048; rustls's provider does not, and says so.
    assert!(result(&r, "ffdhe2048@openssl/ecdsa-p256")["error"].is_null());
    let missing = result(&r, "ffdhe2048@rustls/ecdsa-p256");
    assert!(
        missing["unavailable"]
            .as_str()
            .unwrap()
            .contains("no ffdhe2048 group"),
        "{missing}"
    );
}

#[test]
fn unknown_names_suggest_the_nearest() {
    let out = kembench()
        .args(["tls", "--groups", "X25519MLKEM76", "--no-store"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean X25519MLKEM768"), "{err}");
    let out = kembench()
        .args(["tls", "--stack", "wolfssl", "--no-store"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = kembench()
        .args(["tls", "--network", "rtt31-jitter3", "--no-store"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("rtt<MS>-loss<PCT>"));
}

fn namespaces_of(pid: u32) -> Vec<String> {
    let out = std::process::Command::new("ip")
        .args(["netns", "list"])
        .output();
    match out {
        Ok(o) => String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| l.starts_with(&format!("kb-{pid}-")))
            .map(str::to_string)
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn network_conditions_are_measured_or_skipped_with_the_reason() {
    let dir = temp("net");
    let r = tls_record(
        &dir,
        &[
            "--groups",
            "X25519MLKEM768",
            "--stack",
            "rustls",
            "--duration",
            "0.2",
            "--threads",
            "0",
            "--modes",
            "full",
            "--network",
            "rtt5.6-loss0",
            "--network-handshakes",
            "100",
        ],
    );
    let x = result(&r, "X25519MLKEM768@rustls/ecdsa-p256");
    if let Some(why) = x["network_skipped"].as_str() {
        assert!(why.contains("skipped"), "{why}");
        kembench::missing::skip(
            "network_conditions_are_measured_or_skipped_with_the_reason",
            "root with network namespaces",
            why,
        );
        return;
    }
    assert!(x["error"].is_null(), "{x}");
    let p = &x["network"][0];
    assert_eq!(p["profile"], "rtt5.6-loss0");
    assert_eq!(p["handshakes"], 100);
    assert_eq!(p["failures"], 0);
    let rtt = p["measured_rtt_ms"].as_f64().unwrap();
    assert!((5.5..9.0).contains(&rtt), "{rtt}");
    // TCP's handshake plus TLS 1.3's: two round trips at least.
    assert!(p["time_ms"]["min"].as_f64().unwrap() >= 2.0 * 5.6, "{p}");
    assert!(p["mechanisms"]["delay"].as_str().unwrap().contains("relay"));
}

#[test]
fn ctrl_c_during_a_network_condition_leaves_no_namespace() {
    let store = temp("ctrlc").join("store.sqlite");
    let mut child = common::spawn(
        &store,
        &[
            "tls",
            "--groups",
            "X25519",
            "--stack",
            "rustls",
            "--duration",
            "0.2",
            "--threads",
            "0",
            "--modes",
            "full",
            "--network",
            "rtt195.7-loss10",
            "--network-handshakes",
            "2000",
        ],
    );
    // Wait until the condition is being measured: its namespaces exist.
    let pid = child.id();
    let started = Instant::now();
    while namespaces_of(pid).is_empty() {
        if started.elapsed() > Duration::from_secs(30) || child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            let said = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            // Only a machine without namespaces may get here, and kembench says so.
            assert!(out.status.success(), "{said}");
            let why = said
                .lines()
                .find(|l| l.contains("network conditions skipped"))
                .unwrap_or_else(|| panic!("no namespaces, and no reason given: {said}"));
            kembench::missing::skip(
                "ctrl_c_during_a_network_condition_leaves_no_namespace",
                "root with network namespaces",
                why,
            );
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(2));
    signal(&child, libc::SIGINT);
    let t = Instant::now();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    // Handshakes in flight finish or time out (10 s) before the namespaces go.
    assert!(t.elapsed() < Duration::from_secs(20));
    assert_eq!(namespaces_of(pid), Vec::<String>::new());
}

fn labels_and_states(r: &Value) -> Vec<(String, bool)> {
    r["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                format!(
                    "{}@{}",
                    x["algorithm"].as_str().unwrap(),
                    x["implementation"].as_str().unwrap()
                ),
                x["interrupted"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

#[test]
fn a_tls_run_stopped_by_sigterm_resumes_into_the_same_run_and_ends_complete() {
    let store = temp("resume").join("store.sqlite");
    let mut child = common::spawn(
        &store,
        &[
            "tls",
            "--groups",
            "X25519,X25519MLKEM768",
            "--stack",
            "rustls",
            "--modes",
            "full",
            "--duration",
            "6",
            "--threads",
            "0",
        ],
    );
    let id = common::wait_for_run(&store, &mut child);
    // In the timed rounds (6 s per benchmark over 5 rounds): every benchmark is unfinished.
    std::thread::sleep(Duration::from_millis(2500));
    signal(&child, libc::SIGTERM);
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(130), "{said}");
    assert!(
        said.contains(&format!("kembench tls --resume {id}")),
        "{said}"
    );
    assert_eq!(common::runs(&store)[0]["status"], "interrupted");
    let partial = common::export_json(&store, &id);
    assert!(
        labels_and_states(&partial).iter().all(|(_, i)| *i),
        "{partial}"
    );

    let out = common::kembench_at(&store)
        .args(["tls", "--resume", &id])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains(&format!("Resuming tls run {id}: 2 of 2")),
        "{said}"
    );
    let runs = common::runs(&store);
    assert_eq!(runs.len(), 1, "the resume measured into the same run");
    assert_eq!(runs[0]["status"], "complete");
    let whole = common::export_json(&store, &id);
    assert_eq!(
        labels_and_states(&whole),
        [
            ("X25519@rustls/ecdsa-p256".to_string(), false),
            ("X25519MLKEM768@rustls/ecdsa-p256".to_string(), false)
        ]
    );
    assert_eq!(whole["resumed_at"].as_array().unwrap().len(), 1, "{whole}");
    for x in whole["results"].as_array().unwrap() {
        assert!(x["error"].is_null(), "{x}");
        assert!(x["modes"][0]["server_ns"]["n"].as_u64().unwrap() > 0, "{x}");
    }
}

/// The fixture, stopped with its second benchmark unfinished and measured quickly on resume.
fn interrupted_fixture(dir: &Path) -> std::path::PathBuf {
    let mut r: Value = serde_json::from_str(common::TLS_FIXTURE).unwrap();
    r["interrupted"] = Value::Bool(true);
    r["finished_at"] = Value::Null;
    let c = &mut r["config"];
    c["network"] = Value::Array(Vec::new());
    c["duration_s"] = 0.2.into();
    c["threads"] = serde_json::json!([1]);
    c["scaling_duration_s"] = 0.1.into();
    let second = &mut r["results"][1];
    assert_eq!(second["algorithm"], "P-256");
    second["interrupted"] = Value::Bool(true);
    let file = dir.join("interrupted.json");
    std::fs::write(&file, serde_json::to_vec(&r).unwrap()).unwrap();
    file
}

#[test]
fn resume_measures_only_the_unfinished_benchmarks() {
    let dir = temp("resume-some");
    let store = dir.join("store.sqlite");
    let file = interrupted_fixture(&dir);
    common::kembench_at(&store)
        .arg("import")
        .arg(&file)
        .assert()
        .success();
    let id = common::runs(&store)[0]["id"].as_str().unwrap().to_string();
    assert_eq!(common::runs(&store)[0]["status"], "interrupted");
    let before = common::export_json(&store, &id);
    let out = common::kembench_at(&store)
        .args(["tls", "--resume", &id])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("1 of 3 benchmarks to measure"), "{said}");
    assert_eq!(common::runs(&store)[0]["status"], "complete");
    let after = common::export_json(&store, &id);
    let find = |r: &Value, label: &str| result(r, label).clone();
    // The finished benchmarks are kept as they were, the unfinished one measured anew.
    for kept in [
        "X25519MLKEM768@rustls/ecdsa-p256",
        "MLKEM1024@openssl/ecdsa-p256",
    ] {
        assert_eq!(find(&before, kept), find(&after, kept), "{kept}");
    }
    let old = find(&before, "P-256@openssl/rsa2048");
    let new = find(&after, "P-256@openssl/rsa2048");
    assert_ne!(old["version"], new["version"], "measured by this build");
    assert!(
        new["interrupted"].is_null() && new["error"].is_null(),
        "{new}"
    );
    assert_eq!(new["checks"]["negotiated_group"], "secp256r1");
    assert_eq!(
        labels_and_states(&after)
            .into_iter()
            .map(|x| x.0)
            .collect::<Vec<_>>(),
        before["config"]["planned"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect::<Vec<_>>(),
        "listed as planned"
    );
}

#[test]
fn a_bad_resume_target_is_a_clear_error() {
    let dir = temp("resume-bad");
    let store = dir.join("store.sqlite");
    // No such store, then no such run.
    common::kembench_at(&store)
        .args(["tls", "--resume", "latest"])
        .assert()
        .code(2);
    let file = dir.join("fixture.json");
    common::write_tls_fixture(&file);
    common::kembench_at(&store)
        .arg("import")
        .arg(&file)
        .assert()
        .success();
    let out = common::kembench_at(&store)
        .args(["tls", "--resume", "no-such-run"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A complete run has nothing to resume.
    let id = common::runs(&store)[0]["id"].as_str().unwrap().to_string();
    let out = common::kembench_at(&store)
        .args(["tls", "--resume", &id])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is complete; there is nothing to resume"),
        "{err}"
    );
    // An interrupted run whose plan names a group this build does not know stays resumable.
    let mut r: Value = serde_json::from_str(common::TLS_FIXTURE).unwrap();
    r["interrupted"] = Value::Bool(true);
    r["finished_at"] = Value::Null;
    r["config"]["groups"][2] = "NoSuchGroup".into();
    let strange = dir.join("strange.json");
    std::fs::write(&strange, serde_json::to_vec(&r).unwrap()).unwrap();
    let other = dir.join("other.sqlite");
    common::kembench_at(&other)
        .arg("import")
        .arg(&strange)
        .assert()
        .success();
    let id = common::runs(&other)[0]["id"].as_str().unwrap().to_string();
    let out = common::kembench_at(&other)
        .args(["tls", "--resume", &id])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("group NoSuchGroup is unknown"), "{err}");
    assert!(err.contains("stays resumable"), "{err}");
    assert_eq!(common::runs(&other)[0]["status"], "interrupted");
    // And --resume needs the store.
    common::kembench_at(&store)
        .args(["tls", "--resume", &id, "--no-store"])
        .assert()
        .code(2);
}

#[test]
fn mldsa_chains_are_verified_and_their_server_flight_is_weighed_against_the_initial_window() {
    let dir = temp("mldsa");
    let r = tls_record(
        &dir,
        &[
            "--groups",
            "X25519MLKEM768",
            "--cert",
            "ecdsa-p256,mldsa65,mldsa65-under-p256,p256-under-mldsa65",
            "--modes",
            "full",
            "--duration",
            "0.2",
            "--threads",
            "0",
        ],
    );
    let window = 10 * 1460;
    for stack in ["rustls", "openssl"] {
        let flight = |cert: &str| {
            let x = result(&r, &format!("X25519MLKEM768@{stack}/{cert}"));
            assert!(x["error"].is_null() && x["unavailable"].is_null(), "{x}");
            // Checked whole (1 timed handshake in 16 and the first of each round), the others
            // for completion.
            assert!(x["checks"]["handshakes"].as_u64().unwrap() >= 5, "{x}");
            // The handshake's signatures timed bare on the stack's library: three verified.
            let sig = &x["signature"];
            assert!(sig["sign_ns"].as_f64().unwrap() > 0.0, "{x}");
            assert!(sig["client_share"].as_f64().unwrap() > 0.0, "{x}");
            assert_eq!(sig["verifications"], 3, "{x}");
            let f = x["modes"][0]["flights"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["name"] == "ServerHello..Finished")
                .unwrap_or_else(|| panic!("no server flight in {x}"))
                .clone();
            (x["checks"]["certificate"].as_str().unwrap().to_string(), f)
        };
        let (desc, p256) = flight("ecdsa-p256");
        assert!(desc.contains("ECDSA P-256 leaf"), "{desc}");
        assert!(p256["bytes"].as_u64().unwrap() < window, "{p256}");
        let (desc, ml) = flight("mldsa65");
        assert!(
            desc.contains("ML-DSA-65 leaf") && desc.contains("ML-DSA-65 root"),
            "{desc}"
        );
        // Three ML-DSA-65 signatures (3,309 B each) and two public keys (1,952 B each) sent.
        assert!(ml["bytes"].as_u64().unwrap() > window, "{ml}");
        assert!(ml["segments"].as_u64().unwrap() > 10, "{ml}");
        let (desc, mixed) = flight("mldsa65-under-p256");
        assert!(
            desc.contains("ML-DSA-65 leaf") && desc.contains("ECDSA P-256 root"),
            "{desc}"
        );
        let (desc, rev) = flight("p256-under-mldsa65");
        assert!(
            desc.contains("ECDSA P-256 leaf") && desc.contains("ML-DSA-65 root"),
            "{desc}"
        );
        for f in [&mixed, &rev] {
            let b = f["bytes"].as_u64().unwrap();
            assert!(b > p256["bytes"].as_u64().unwrap() && b < ml["bytes"].as_u64().unwrap());
        }
    }
    let out = kembench()
        .args(["tls", "--cert", "mldsa66", "--no-store"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean mldsa65"), "{err}");
}
