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
    r["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| {
            format!(
                "{}@{}",
                x["algorithm"].as_str().unwrap(),
                x["implementation"].as_str().unwrap()
            ) == label
        })
        .unwrap_or_else(|| panic!("no {label} in {r}"))
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
