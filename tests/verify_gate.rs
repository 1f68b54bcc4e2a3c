//! The correctness gate proves it can fail: for each of its checks, a mock that breaks exactly
//! that check's property (`KEMBENCH_MOCK_GATE=1`), verified alone, makes `verify` exit 1 and
//! name that check, while every other check of the same mock passes or says why it did not
//! apply.
//!
//! The bad-lengths check has no mock, because no implementation can fail it: every wrong
//! length is refused by kembench's guard in front of every implementation (the methods of
//! `dyn Kem`) before the implementation is called. The check is that guard's, on each path of
//! each implementation; `kem`'s unit test `a_wrong_length_never_reaches_the_library` shows the
//! guard refusing without calling the library.

mod common;

use common::kembench;
use serde_json::Value;

/// `verify --json` of `impls` with the gate's mocks: (exit code, JSON, table).
fn verify(impls: &str) -> (i32, Value, String) {
    let run = |json: bool| {
        let mut cmd = kembench();
        cmd.env("KEMBENCH_MOCK_GATE", "1")
            .args(["verify", "--include-mock", "--impl", impls]);
        if json {
            cmd.arg("--json");
        }
        cmd.output().unwrap()
    };
    let out = run(true);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let table = run(false);
    assert_eq!(table.status.code(), out.status.code());
    (
        out.status.code().unwrap_or(-1),
        v,
        String::from_utf8_lossy(&table.stdout).into_owned(),
    )
}

/// The checks of `id` in `v`: (check, status, detail).
fn checks(v: &Value, id: &str) -> Vec<(String, String, String)> {
    let i = v["implementations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["implementation"] == id)
        .unwrap_or_else(|| panic!("{id} not verified: {v}"));
    i["checks"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(c, o)| {
            (
                c.clone(),
                o["status"].as_str().unwrap().to_string(),
                o["detail"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// `mock/<name>` verified alone fails exactly `check` (its JSON key, its table title), with a
/// detail containing `says`, and nothing else.
fn fails_only(name: &str, check: &str, title: &str, says: &str) {
    let id = format!("mock/{name}");
    let (code, v, table) = verify(&id);
    assert_eq!(code, 1, "{id}: {v}");
    let failed: Vec<_> = checks(&v, &id)
        .into_iter()
        .filter(|(_, status, _)| status == "fail")
        .collect();
    assert_eq!(failed.len(), 1, "{id}: {failed:?}");
    let (c, _, detail) = &failed[0];
    assert_eq!(c, check, "{id}: {detail}");
    assert!(detail.contains(says), "{id}: {detail}");
    assert!(
        table.contains(&format!("FAIL MockKEM@{id} {title}")),
        "{id}: {table}"
    );
}

#[test]
fn a_library_that_declares_other_sizes_fails_sizes() {
    fails_only("wrong-sizes", "sizes", "sizes", "library declares");
}

/// A ciphertext one byte shorter than the catalog's, written in place (its last byte never
/// written, its canaries intact): only sizes sees it.
#[test]
fn an_output_shorter_than_declared_fails_sizes() {
    fails_only(
        "short-ct",
        "sizes",
        "sizes",
        "the ciphertext is shorter than the catalog's 32 bytes",
    );
}

#[test]
fn a_write_past_the_output_buffer_fails_canaries() {
    fails_only(
        "overflow",
        "canaries",
        "canaries",
        "canary overwritten around the ciphertext",
    );
}

#[test]
fn a_tampered_ciphertext_that_gives_the_secret_fails_tamper() {
    fails_only(
        "accepts-tamper",
        "tamper",
        "tamper",
        "still gave the original secret",
    );
}

#[test]
fn exported_key_bytes_that_are_not_the_key_fail_kept_keys() {
    fails_only(
        "export-differs",
        "kept-keys",
        "kept keys",
        "decaps of the exported bytes",
    );
}

#[test]
fn a_panic_inside_the_implementation_fails_the_check_it_hit_and_is_contained() {
    fails_only("panics", "kept-keys", "kept keys", "panicked: mock/panics");
}

#[test]
fn a_wrong_known_answer_fails_known_answers_and_the_right_one_passes() {
    fails_only(
        "wrong-kat",
        "known-answers",
        "known answers",
        "NIST KAT digest",
    );
    let (code, v, _) = verify("mock/kat");
    assert_eq!(code, 0, "{v}");
    let kat = checks(&v, "mock/kat")
        .into_iter()
        .find(|(c, _, _)| c == "known-answers")
        .unwrap();
    assert_eq!(
        (kat.1.as_str(), kat.2.as_str()),
        ("pass", "NIST KAT (the mock's published figure)")
    );
}

/// A pair that cannot talk counts against the one that fails its own known answers, never
/// against its correct peer (as a build with a byte-order bug and a correct build of the same
/// batch in `builds`): before known answers ran ahead of interoperability, both were failed.
#[test]
fn a_pair_broken_by_a_wrong_known_answer_fails_only_the_wrong_one() {
    let (code, v, table) = verify("mock/kat,mock/wrong-kat");
    assert_eq!(code, 1, "{v}");
    for (c, status, detail) in checks(&v, "mock/kat") {
        assert_ne!(status, "fail", "mock/kat {c}: {detail}");
    }
    let wrong = checks(&v, "mock/wrong-kat");
    for check in ["known-answers", "interop"] {
        let (_, status, detail) = wrong.iter().find(|(c, _, _)| c == check).unwrap();
        assert_eq!(status, "fail", "mock/wrong-kat {check}: {detail}");
    }
    assert!(!table.contains("FAIL MockKEM@mock/kat "), "{table}");
}

#[test]
fn a_wrong_secret_fails_the_round_trip() {
    let (code, v, table) = verify("mock/broken");
    assert_eq!(code, 1);
    let c = checks(&v, "mock/broken");
    let round_trip = c.iter().find(|(c, _, _)| c == "round-trip").unwrap();
    assert_eq!(round_trip.1, "fail", "{round_trip:?}");
    assert!(round_trip.2.contains("decapsulated secret differs"));
    assert!(
        table.contains("FAIL MockKEM@mock/broken round trip"),
        "{table}"
    );
}

#[test]
fn two_implementations_that_cannot_talk_fail_interop_and_nothing_else() {
    let (code, v, table) = verify("mock/correct,mock/incompatible");
    assert_eq!(code, 1, "{v}");
    for id in ["mock/correct", "mock/incompatible"] {
        for (c, status, detail) in checks(&v, id) {
            if c == "interop" {
                assert_eq!(status, "fail", "{id}: {detail}");
                let other = if id == "mock/correct" {
                    "mock/incompatible"
                } else {
                    "mock/correct"
                };
                assert!(detail.contains(other), "{id}: {detail}");
            } else {
                assert_ne!(status, "fail", "{id} {c}: {detail}");
            }
        }
    }
    assert!(
        table.contains("FAIL MockKEM@mock/incompatible interop"),
        "{table}"
    );
    // Alone, each passes: interop needs a peer.
    assert_eq!(verify("mock/incompatible").0, 0);
}

/// Every ML-KEM implementation has known answers, and the check ran and passed: NIST's ACVP
/// decapsulation vectors on every one that takes secret-key bytes, key generation and
/// encapsulation vectors on every one with seeded operations, liboqs's own KAT digest on
/// liboqs. What did not run is said (a pass that left vectors out is "pass, part" with its
/// reason below the table), and only rustls, which has no secret-key bytes, has none.
#[test]
fn every_ml_kem_implementation_ran_its_known_answers_and_says_what_it_left_out() {
    let out = kembench()
        .args(["verify", "--alg", "ML-KEM-*", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let impls = v["implementations"].as_array().unwrap();
    assert!(impls.len() >= 20, "{}", impls.len());
    for i in impls {
        let id = format!("{}@{}", i["algorithm"], i["implementation"]);
        let kat = &i["checks"]["known-answers"];
        let (status, detail) = (
            kat["status"].as_str().unwrap(),
            kat["detail"].as_str().unwrap(),
        );
        if i["implementation"].as_str().unwrap().starts_with("rustls") {
            assert_eq!(status, "skip", "{id}: {detail}");
            assert!(detail.contains("secret keys as bytes"), "{id}: {detail}");
            continue;
        }
        assert_eq!(status, "pass", "{id}: {detail}");
        assert!(detail.starts_with("ACVP"), "{id}: {detail}");
        assert!(detail.contains("ACVP decap 4"), "{id}: {detail}");
        if i["implementation"] == "liboqs" {
            assert!(detail.contains("liboqs KAT"), "{id}: {detail}");
        }
        if !detail.contains("ACVP keyGen 4") {
            assert!(
                detail
                    .contains("ACVP keyGen vectors not run: the library offers no key generation"),
                "{id}: {detail}"
            );
        }
    }
    let table = kembench()
        .args(["verify", "--alg", "ML-KEM-768", "--impl", "aws-lc"])
        .output()
        .unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains("pass, part"), "{table}");
    assert!(
        table.contains("part known answers: ACVP keyGen vectors not run"),
        "{table}"
    );
}

/// The table fits 120 columns, however long the details; `--wide` puts them in the cells.
#[test]
fn the_table_fits_120_columns_and_wide_shows_every_detail() {
    let run = |wide: bool| {
        let mut cmd = kembench();
        cmd.env("KEMBENCH_MOCK_GATE", "1").args([
            "verify",
            "--include-mock",
            "--impl",
            "mock/*,aws-lc",
        ]);
        if wide {
            cmd.arg("--wide");
        }
        String::from_utf8(cmd.output().unwrap().stdout).unwrap()
    };
    let fit = run(false);
    for line in fit.lines() {
        assert!(
            line.chars().count() <= 120,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    assert!(
        fit.contains("FAIL MockKEM@mock/incompatible interop: with mock/correct, keys by"),
        "{fit}"
    );
    let wide = run(true);
    assert!(wide.contains("pass: ACVP decap 4"), "{wide}");
    assert!(wide.lines().any(|l| l.chars().count() > 120), "{wide}");
}

/// `--all-counts` checks liboqs's transcripts over every count of its KAT files against its
/// `all` digests; the default checks the first count.
#[test]
fn all_counts_checks_every_count_of_liboqs_files() {
    let kat = |extra: &[&str]| {
        let out = kembench()
            .args([
                "verify",
                "--alg",
                "ML-KEM-512,sntrup761",
                "--impl",
                "liboqs",
                "--json",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["implementations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                i["checks"]["known-answers"]["detail"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect::<Vec<_>>()
    };
    for d in kat(&["--all-counts"]) {
        assert!(d.contains("liboqs KAT, 100 counts"), "{d}");
    }
    for d in kat(&[]) {
        assert!(d.contains("liboqs KAT") && !d.contains("counts"), "{d}");
    }
}
