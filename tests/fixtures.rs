//! The frozen fixtures `tests/data/tls.json` and `tests/data/ct.json`, which the CLI tests read,
//! checked against sources other than kembench's code: the sizes and code points of the TLS
//! key shares from their specifications, the TLS record layout, and the figures each record's
//! field documentation defines (shares, capacities, speed-ups, quantiles) computed here again
//! from the others. The files are edited by hand, never regenerated from the code they test; a
//! wrong figure in them fails here before it can make a test of the code pass.
//!
//! Read as plain JSON (`serde_json::Value`), never through kembench's record types.

mod common;

use serde_json::Value;

fn fixture(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

/// The record plans exactly the benchmarks it has results for.
fn planned_are_results(t: &Value) {
    let mut planned: Vec<String> = serde_json::from_value(t["config"]["planned"].clone()).unwrap();
    planned.sort();
    assert_eq!(planned, common::result_labels(t));
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// Equal within rounding of the decimal figures the fixture holds.
fn close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0),
        "{what}: {a} != {b}"
    );
}

/// Key shares of the groups the fixture uses, bytes: (name, code point, ClientHello share,
/// ServerHello share). secp256r1: RFC 8446 §4.2.8.2 (uncompressed point, 1 + 2 × 32), code
/// point 23 (RFC 8446 §4.2.7). X25519MLKEM768: draft-ietf-tls-ecdhe-mlkem, code point 0x11EC;
/// the client sends ML-KEM-768's encapsulation key (1,184, FIPS 203) then X25519's 32, the
/// server the ciphertext (1,088) then 32. MLKEM1024: draft-connolly-tls-mlkem-key-agreement,
/// code point 0x0202; encapsulation key and ciphertext of 1,568 (FIPS 203).
const GROUPS: [(&str, u64, u64, u64); 4] = [
    ("secp256r1", 23, 65, 65),
    ("x25519", 29, 32, 32),
    ("X25519MLKEM768", 0x11EC, 1184 + 32, 1088 + 32),
    ("MLKEM1024", 0x0202, 1568, 1568),
];

/// A TLS record: a 5-byte header, and at most 2^14 + 256 bytes of protected payload
/// (RFC 8446 §5.2).
const RECORD_HEADER: u64 = 5;
const RECORD_MAX: u64 = (1 << 14) + 256;
/// A handshake message's header (RFC 8446 §4): type and 24-bit length.
const HANDSHAKE_HEADER: u64 = 4;
/// Ethernet's 1,500-byte MTU less 20 bytes of IPv4 and 20 of TCP header.
const MSS: u64 = 1460;

/// min ≤ p25 ≤ median ≤ p75 ≤ p95 ≤ max, and `n` the count.
fn spread(s: &Value, n: u64, what: &str) {
    let q: Vec<f64> = ["min", "p25", "median", "p75", "p95", "max"]
        .iter()
        .map(|k| f(&s[k]))
        .collect();
    assert!(
        q.windows(2).all(|w| w[0] <= w[1]),
        "{what}: quantiles out of order: {s}"
    );
    assert_eq!(u(&s["n"]), n, "{what}: {s}");
}

#[test]
fn the_tls_fixture_agrees_with_the_specifications_and_with_itself() {
    let t = fixture("tls.json");
    assert_eq!(t["kind"], "kembench-tls");
    let results = t["results"].as_array().unwrap();
    planned_are_results(&t);
    let target = f(&t["config"]["target_rate"]);
    let per_network = u(&t["config"]["network_handshakes"]);
    for r in results {
        let name = r["implementation"].as_str().unwrap();
        let group = r["group"].as_str().unwrap();
        let &(_, codepoint, client, server) = GROUPS
            .iter()
            .find(|g| g.0 == group)
            .unwrap_or_else(|| panic!("{name}: group {group} is not in this test's table"));
        assert_eq!(u(&r["codepoint"]), codepoint, "{name}");
        if !r["unavailable"].is_null() {
            assert!(r["checks"].is_null(), "{name}: unavailable but checked");
            assert!(r["modes"].as_array().is_none_or(|m| m.is_empty()), "{name}");
            continue;
        }
        let checks = &r["checks"];
        assert_eq!(checks["negotiated_group"], group, "{name}");
        assert_eq!(u(&checks["client_share_bytes"]), client, "{name}");
        assert_eq!(u(&checks["server_share_bytes"]), server, "{name}");

        let modes = r["modes"].as_array().unwrap();
        let made: u64 = modes.iter().map(|m| u(&m["handshakes"])).sum();
        assert!(
            made <= u(&checks["handshakes"]),
            "{name}: more made than checked"
        );
        for m in modes {
            let mode = m["mode"].as_str().unwrap();
            let what = format!("{name} {mode}");
            let n = u(&m["handshakes"]);
            spread(&m["server_ns"], n, &format!("{what} server"));
            spread(&m["client_ns"], n, &format!("{what} client"));
            // One thread does both sides: no faster than the fastest handshake of each.
            let fastest = f(&m["server_ns"]["min"]) + f(&m["client_ns"]["min"]);
            assert!(f(&m["handshakes_per_sec"]) <= 1e9 / fastest, "{what}");
            for (side, best) in [
                ("server", "server_best_round_median_ns"),
                ("client", "client_best_round_median_ns"),
            ] {
                let s = &m[format!("{side}_ns")];
                assert!(
                    (f(&s["min"])..=f(&s["max"])).contains(&f(&m[best])),
                    "{what} {best}"
                );
            }
            flights(
                m["flights"].as_array().unwrap(),
                mode,
                client,
                server,
                &what,
            );
        }

        for s in r["scaling"].as_array().unwrap() {
            let threads = u(&s["threads"]);
            let per = s["per_thread_ops_per_sec"].as_array().unwrap();
            assert_eq!(per.len() as u64, threads, "{name}");
            close(
                per.iter().map(f).sum(),
                f(&s["total_ops_per_sec"]),
                &format!("{name} total"),
            );
            let one = r["scaling"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["threads"] == 1)
                .unwrap();
            let speedup = f(&s["total_ops_per_sec"]) / f(&one["total_ops_per_sec"]);
            close(f(&s["speedup"]), speedup, &format!("{name} speed-up"));
            close(
                f(&s["efficiency"]),
                speedup / threads as f64,
                &format!("{name} efficiency"),
            );
        }
        let cap = &r["capacity"];
        close(f(&cap["target_rate"]), target, name);
        for side in ["server", "client"] {
            let rate = f(&cap[format!("{side}_handshakes_per_sec_per_core")]);
            close(
                f(&cap[format!("{side}_cores_for_target")]) * rate,
                target,
                &format!("{name} {side} cores"),
            );
        }
        if !r["kem"].is_null() {
            kem_share(&r["kem"], modes, target, name);
        }
        for n in r["network"].as_array().unwrap() {
            let what = format!("{name} {}", n["profile"]);
            let done = u(&n["handshakes"]);
            assert_eq!(done + u(&n["failures"]), per_network, "{what}");
            spread(&n["time_ms"], done, &what);
            // A TCP connection (one round trip) then TLS 1.3's full handshake (one more).
            assert!(f(&n["time_ms"]["min"]) >= 2.0 * f(&n["rtt_ms"]), "{what}");
        }
    }
}

/// The flights of one mode: from the client first, sides alternating; each flight's bytes fit
/// its records (a header each, no record over the maximum) and its segments; the flight that
/// carries a key share holds it.
fn flights(fl: &[Value], mode: &str, client: u64, server: u64, what: &str) {
    for (i, x) in fl.iter().enumerate() {
        let from = if i % 2 == 0 { "client" } else { "server" };
        assert_eq!(x["from"], from, "{what} flight {i}");
        let (bytes, records) = (u(&x["bytes"]), u(&x["records"]));
        assert!(records >= 1, "{what} {x}");
        assert!(bytes >= records * (RECORD_HEADER + 1), "{what} {x}");
        assert!(
            bytes <= records * (RECORD_HEADER + RECORD_MAX),
            "{what} {x}"
        );
        assert_eq!(u(&x["segments"]), bytes.div_ceil(MSS), "{what} {x}");
    }
    let named = |n: &str| {
        fl.iter()
            .find(|x| x["name"] == n)
            .unwrap_or_else(|| panic!("{what}: no flight {n}"))
    };
    // After a HelloRetryRequest the second ClientHello carries the share the first lacked.
    let hello = if mode == "hrr" {
        named("HelloRetryRequest");
        named("second ClientHello")
    } else {
        named("ClientHello")
    };
    let shares = |x: &Value, share: u64| u(&x["bytes"]) >= RECORD_HEADER + HANDSHAKE_HEADER + share;
    assert!(
        shares(hello, client),
        "{what}: {hello} cannot hold a {client}-byte share"
    );
    let reply = named("ServerHello..Finished");
    assert!(
        shares(reply, server),
        "{what}: {reply} cannot hold a {server}-byte share"
    );
}

/// The KEM's share of a handshake as the record's fields define it: encapsulation over the
/// server's median full handshake, key generation and decapsulation over the client's, and the
/// model's handshakes per core the KEM alone would allow.
fn kem_share(kem: &Value, modes: &[Value], target: f64, name: &str) {
    let full = modes.iter().find(|m| m["mode"] == "full").unwrap();
    let (keygen, encaps, decaps) = (
        f(&kem["keygen_ns"]),
        f(&kem["encaps_ns"]),
        f(&kem["decaps_ns"]),
    );
    close(
        f(&kem["server_share"]),
        encaps / f(&full["server_ns"]["median"]),
        name,
    );
    close(
        f(&kem["client_share"]),
        (keygen + decaps) / f(&full["client_ns"]["median"]),
        name,
    );
    let model = &kem["model"];
    close(
        f(&model["server_handshakes_per_sec_per_core"]),
        1e9 / encaps,
        name,
    );
    close(
        f(&model["client_handshakes_per_sec_per_core"]),
        1e9 / (keygen + decaps),
        name,
    );
    for side in ["server", "client"] {
        let rate = f(&model[format!("{side}_handshakes_per_sec_per_core")]);
        close(
            f(&model[format!("{side}_cores_for_target")]) * rate,
            target,
            name,
        );
    }
}

/// A finding's stack starts at its function and holds the marker of its screen's operation
/// `op`, and no other operation's.
fn charged(x: &Value, op: &str, what: &str) {
    let stack: Vec<&str> = x["stack"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no stack: {x}"))
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        stack.first().copied(),
        x["function"].as_str(),
        "{what}: {x}"
    );
    assert!(
        stack.contains(&marker(op).as_str()),
        "{what}: charged to {op} without its marker: {x}"
    );
    for other in ["keygen", "encaps", "decaps"].iter().filter(|o| **o != op) {
        assert!(
            !stack.contains(&marker(other).as_str()),
            "{what}: {other}'s marker: {x}"
        );
    }
}

/// The markers `ct`'s worker calls each operation inside (`kembench_ct_keygen`, ...): a
/// finding is charged to the operation whose marker is on its stack.
fn marker(op: &str) -> String {
    format!("kembench_ct_{op}")
}

#[test]
fn the_ct_fixture_agrees_with_itself() {
    let t = fixture("ct.json");
    assert_eq!(t["kind"], "kembench-ct");
    let config = &t["config"];
    let results = t["results"].as_array().unwrap();
    planned_are_results(&t);
    let listed = |k: &str, v: &Value| config[k].as_array().unwrap().contains(v);
    for e in config["exceptions"].as_array().unwrap() {
        let digest = e
            .as_str()
            .unwrap()
            .rsplit("SHA-256 ")
            .next()
            .unwrap()
            .trim_end_matches(')');
        assert!(
            digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit()),
            "{e}"
        );
    }
    for r in results {
        let name = r["implementation"].as_str().unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for s in r["screens"].as_array().unwrap() {
            let (screen, op) = (
                s["screen"].as_str().unwrap(),
                s["operation"].as_str().unwrap(),
            );
            let what = format!("{name} {screen} {op}");
            assert!(seen.insert((screen, op)), "{what} twice");
            assert!(
                listed("screens", &s["screen"]) && listed("operations", &s["operation"]),
                "{what}"
            );
            let findings = s["findings"].as_array().unwrap();
            if s["ran"]["state"] != "screened" {
                assert!(
                    !s["ran"]["why"].as_str().unwrap_or_default().is_empty(),
                    "{what}"
                );
                assert!(findings.is_empty() && s["timing"].is_null(), "{what}");
                continue;
            }
            assert_eq!(s["timing"].is_null(), screen != "timing", "{what}");
            if screen == "timing" {
                let d = &s["timing"];
                assert!(u(&d["measurements"]) > 0, "{what}");
                assert!(
                    f(&d["max_t"]) >= 0.0 && f(&d["noise_floor_t"]) >= 0.0,
                    "{what}"
                );
            }
            for x in findings {
                let kind = x["kind"].as_str().unwrap();
                if kind == "timing" {
                    // Time alone: no stack; its figures are the screen's.
                    let (d, detail) = (&s["timing"], x["detail"].as_str().unwrap());
                    assert!(
                        detail.contains(&format!("|t| = {}", d["max_t"])),
                        "{what}: {x}"
                    );
                    let n = format!("after {} measurements", d["measurements"]);
                    assert!(detail.contains(&n), "{what}: {x}");
                } else {
                    charged(x, op, &what);
                }
                assert!(u(&x["count_per_call"]) >= 1, "{what}: {x}");
                match kind {
                    "branch" | "index" | "syscall" => {
                        assert_eq!(screen, "secret-flow", "{what}: {x}")
                    }
                    "timing" => assert_eq!(screen, "timing", "{what}: {x}"),
                    "variable-latency" => {
                        assert_eq!(screen, "latency", "{what}: {x}");
                        let m = x["mnemonic"].as_str().unwrap();
                        assert!(x["detail"].as_str().unwrap().starts_with(m), "{what}: {x}");
                    }
                    other => panic!("{what}: a finding of kind {other}"),
                }
                if !x["explained"].is_null() {
                    let list = x["explained"]["list"].as_str().unwrap();
                    assert!(["benign", "issue"].contains(&list), "{what}: {x}");
                    assert!(
                        !x["explained"]["id"].as_str().unwrap().is_empty(),
                        "{what}: {x}"
                    );
                }
            }
        }
    }
}
