//! `kembench tls --hello`: each stack's default hello with its key shares counted on the wire,
//! a shape a stack cannot produce listed as unavailable with the reason, a bad shape refused
//! with a suggestion, and BoringSSL's worker (built on first use) sending a browser-shaped
//! hello: GREASE among the key shares, two TCP segments.

mod common;

use common::kembench;
use serde_json::Value;

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-hello-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tls_record(name: &str, args: &[&str]) -> Value {
    common::short_tls(&temp(name), args)
}

fn result<'a>(r: &'a Value, label: &str) -> &'a Value {
    common::labelled(r, label)
}

/// The ClientHello flight of the full handshake: (bytes, segments).
fn client_hello(x: &Value) -> (u64, u64) {
    let f = &x["modes"][0]["flights"][0];
    assert_eq!(f["name"], "ClientHello", "{x}");
    (
        f["bytes"].as_u64().unwrap(),
        f["segments"].as_u64().unwrap(),
    )
}

#[test]
fn default_hellos_carry_the_shares_the_wire_shows() {
    let r = tls_record(
        "defaults",
        &[
            "--groups",
            "X25519MLKEM768,X25519,MLKEM1024",
            "--stack",
            "rustls,openssl",
            "--hello",
            "minimal,defaults",
        ],
    );
    assert_eq!(
        r["config"]["hellos"],
        serde_json::json!(["minimal", "defaults"])
    );
    for stack in ["rustls", "openssl"] {
        let minimal = result(&r, &format!("X25519MLKEM768@{stack}/ecdsa-p256"));
        assert!(minimal["error"].is_null(), "{minimal}");
        assert!(
            minimal.get("hello").is_none(),
            "minimal is the default: {minimal}"
        );
        assert_eq!(minimal["client_shares"], "X25519MLKEM768 1216 B");
        // No default hello of either stack carries an ML-KEM-1024 share.
        let m = result(&r, &format!("ML-KEM-1024@{stack}/ecdsa-p256/defaults"));
        let why = m["unavailable"].as_str().unwrap_or_default();
        assert!(why.contains("carries no MLKEM1024 key share"), "{m}");
    }
    // OpenSSL 3.6 sends the hybrid share and X25519's beside it by default: a second segment.
    let minimal = result(&r, "X25519MLKEM768@openssl/ecdsa-p256");
    let x = result(&r, "X25519MLKEM768@openssl/ecdsa-p256/defaults");
    assert!(x["error"].is_null() && x["unavailable"].is_null(), "{x}");
    assert_eq!(x["hello"], "defaults");
    assert_eq!(x["checks"]["negotiated_group"], "X25519MLKEM768");
    assert_eq!(x["checks"]["client_share_bytes"], 1216);
    let shares = x["client_shares"].as_str().unwrap();
    assert!(shares.contains("X25519MLKEM768 1216 B"), "{shares}");
    assert!(shares.split(", ").count() >= 2, "{shares}");
    assert!(client_hello(x).0 > client_hello(minimal).0, "{x}");
    assert!(
        x.get("modes_unavailable").is_none(),
        "hrr was not asked for: {x}"
    );
    // rustls with its default features (`prefer-post-quantum`) sends the hybrid share and
    // X25519's beside it too, in fewer bytes than OpenSSL's.
    let x = result(&r, "X25519MLKEM768@rustls/ecdsa-p256/defaults");
    assert!(x["error"].is_null() && x["unavailable"].is_null(), "{x}");
    assert_eq!(x["checks"]["negotiated_group"], "X25519MLKEM768");
    assert_eq!(
        x["client_shares"], "X25519MLKEM768 1216 B, X25519 32 B",
        "{x}"
    );
    // The same hello negotiates X25519 with a server that offers only X25519.
    let x = result(&r, "X25519@rustls/ecdsa-p256/defaults");
    assert!(x["error"].is_null() && x["unavailable"].is_null(), "{x}");
    assert_eq!(x["checks"]["negotiated_group"], "X25519");
}

#[test]
fn a_browser_hello_is_unavailable_where_a_stack_cannot_send_one() {
    let r = tls_record(
        "browser",
        &[
            "--groups",
            "X25519MLKEM768",
            "--stack",
            "rustls,openssl",
            // A run where nothing is measured fails; the minimal hellos are measured.
            "--hello",
            "browser,minimal",
        ],
    );
    for stack in ["rustls", "openssl"] {
        let x = result(&r, &format!("X25519MLKEM768@{stack}/ecdsa-p256/browser"));
        let why = x["unavailable"].as_str().unwrap_or_default();
        assert!(why.contains("no GREASE"), "{x}");
        assert!(x["modes"].as_array().unwrap().is_empty(), "{x}");
    }
}

#[test]
fn an_unknown_hello_shape_suggests_the_nearest() {
    let out = kembench()
        .args(["tls", "--hello", "browsr", "--no-store"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean browser"), "{err}");
}

#[test]
fn boringssl_sends_a_browser_hello_with_grease_in_two_segments() {
    let test = "boringssl_sends_a_browser_hello_with_grease_in_two_segments";
    if std::process::Command::new("cmake")
        .arg("--version")
        .output()
        .is_err()
    {
        kembench::missing::skip(test, "cmake", "apt-get install cmake");
        return;
    }
    let r = tls_record(
        "boring",
        &[
            "--groups",
            "X25519MLKEM768",
            "--stack",
            "boringssl",
            "--hello",
            "browser,minimal",
            "--modes",
            "full,resumed,hrr",
        ],
    );
    let x = result(&r, "X25519MLKEM768@boringssl/ecdsa-p256/browser");
    assert!(x["error"].is_null() && x["unavailable"].is_null(), "{x}");
    assert!(x["version"].as_str().unwrap().contains("BoringSSL"), "{x}");
    assert_eq!(x["checks"]["negotiated_group"], "X25519MLKEM768");
    let shares = x["client_shares"].as_str().unwrap();
    assert!(shares.starts_with("GREASE 0x"), "{shares}");
    assert!(shares.contains("X25519MLKEM768 1216 B") && shares.contains("X25519 32 B"));
    assert_eq!(client_hello(x).1, 2, "{x}");
    assert!(
        x["kem_unavailable"]
            .as_str()
            .unwrap()
            .contains("no boringssl"),
        "{x}"
    );
    let m = result(&r, "X25519MLKEM768@boringssl/ecdsa-p256");
    assert!(m["error"].is_null(), "{m}");
    assert_eq!(m["client_shares"], "X25519MLKEM768 1216 B");
    assert_eq!(client_hello(m).1, 1, "{m}");
    // Every kind of handshake, checked: the resumed ones resumed (BoringSSL's tickets are
    // flushed), the HelloRetryRequest was sent (one wrong share alone).
    let modes = |x: &Value| -> Vec<String> {
        x["modes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["mode"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(modes(m), ["full", "resumed", "hrr"], "{m}");
    assert_eq!(
        modes(x),
        ["full", "resumed"],
        "hrr is the minimal hello's: {x}"
    );
}
