//! CLI tests: argument errors, suggestions, and the gate's verdicts on the mock provider.

mod common;

use common::kembench;
use predicates::prelude::*;
use serde_json::Value;

#[test]
fn unknown_algorithm_suggests_the_nearest_names() {
    kembench()
        .args(["list", "--alg", "ML-KEM-786"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no algorithm matches 'ML-KEM-786'",
        ))
        .stderr(predicate::str::contains("did you mean ML-KEM-768"));
}

#[test]
fn a_mistyped_subcommand_suggests_what_a_user_can_run() {
    let said = |typed: &str| {
        let out = kembench().arg(typed).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{typed}");
        String::from_utf8(out.stderr).unwrap()
    };
    let profle = said("profle");
    assert!(
        profle.contains("unrecognized subcommand 'profle'"),
        "{profle}"
    );
    assert!(profle.contains("'profile'"), "{profle}");
    assert!(!profle.contains("worker"), "internal subcommands: {profle}");
    let rn = said("rn");
    assert!(rn.contains("'run'"), "{rn}");
    assert!(!rn.contains("worker"), "{rn}");
    assert!(rn.contains("Usage: kembench"), "{rn}");
    // The workers still run (the parent starts them by name); they are only never suggested.
    let help = kembench().arg("--help").output().unwrap();
    assert!(!String::from_utf8_lossy(&help.stdout).contains("worker"));
}

#[test]
fn unknown_implementation_suggests_the_nearest_ids() {
    kembench()
        .args(["verify", "--impl", "libcrx"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no implementation matches 'libcrx'",
        ))
        .stderr(predicate::str::contains("libcrux"));
}

#[test]
fn a_glob_that_matches_nothing_is_an_error() {
    kembench()
        .args(["list", "--alg", "NTRU-*"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no algorithm matches 'NTRU-*'"))
        .stderr(predicate::str::contains("ntru"));
}

#[test]
fn filters_that_exclude_each_other_say_so() {
    kembench()
        .args(["list", "--alg", "X25519", "--impl", "liboqs"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("select no implementation"));
}

#[test]
fn bad_arguments_are_refused_with_the_valid_values() {
    kembench()
        .args(["list", "--family", "latice"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown family 'latice'"))
        .stderr(predicate::str::contains("module-lattice"));
    kembench()
        .args(["list", "--level", "7"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--level"));
    kembench()
        .args(["list", "--alg", "ML-KEM-[768"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad pattern"));
    kembench()
        .args(["verify", "--threads", "0"])
        .assert()
        .code(2);
    kembench()
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Usage"));
}

#[test]
fn list_json_joins_catalog_and_registry() {
    let out = kembench()
        .args(["list", "--alg", "ML-KEM-*", "--json"])
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let rows = v.as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"]);
    let r768 = &rows[1];
    assert_eq!(r768["pk_len"], 1184);
    assert_eq!(r768["wire_bytes"], 1184 + 1088);
    assert!(r768["implementations"].as_array().unwrap().len() >= 7);
}

/// `list` fits 120 columns (the headline columns, implementations wrapped) and says where the
/// rest is; `--wide` has every column.
#[test]
fn list_fits_120_columns_and_wide_has_every_column() {
    let out = |args: &[&str]| {
        let o = kembench().arg("list").args(args).output().unwrap();
        assert!(o.status.success());
        String::from_utf8(o.stdout).unwrap()
    };
    let fit = out(&[]);
    for line in fit.lines() {
        assert!(line.chars().count() <= 120, "{line}");
    }
    assert!(fit.contains("`kembench list --wide`"), "{fit}");
    assert!(!fit.contains("IND-CCA ┆"), "{fit}");
    let wide = out(&["--wide"]);
    assert!(
        wide.contains("IND-CCA") && wide.contains("classical bits"),
        "{wide}"
    );
    assert!(wide.lines().any(|l| l.chars().count() > 120));
}

/// Every algorithm's specification is named, in the 120-column table as in `--json`: the two
/// HQC specifications and X-Wing's draft apart, each row beside its own.
#[test]
fn list_names_each_algorithms_specification() {
    let o = kembench()
        .args(["list", "--alg", "HQC-*,X-Wing,X25519MLKEM768"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let fit = String::from_utf8(o.stdout).unwrap();
    for line in fit.lines() {
        assert!(line.chars().count() <= 120, "{line}");
    }
    let row = |name: &str| {
        fit.lines()
            .find(|l| l.starts_with(&format!("│ {name} ")))
            .unwrap_or_else(|| panic!("no {name} row: {fit}"))
            .to_string()
    };
    assert!(row("HQC-128").contains("HQC round 4 (2023),"), "{fit}");
    assert!(row("HQC-1").contains("HQC 2025-08-22 spec"), "{fit}");
    assert!(
        row("X-Wing").contains("draft-connolly-cfrg-xwing-kem-06"),
        "{fit}"
    );
    assert!(
        row("X25519MLKEM768").contains("draft-ietf-tls-ecdhe-mlkem"),
        "{fit}"
    );
    // The standard wraps at its spaces: the row's next line goes on with it.
    assert!(fit.contains("superseded by"), "{fit}");
    assert!(fit.contains("(FIPS 207"), "{fit}");
    // The whole catalog is too wide for the column: each standard is named below the table,
    // with its algorithms.
    let o = kembench().arg("list").output().unwrap();
    assert!(o.status.success());
    let all = String::from_utf8(o.stdout).unwrap();
    for line in all.lines() {
        assert!(line.chars().count() <= 120, "{line}");
    }
    for named in [
        "HQC round 4 (2023), superseded by the 2025-08-22 spec: HQC-128, HQC-192, HQC-256",
        "HQC 2025-08-22 spec (FIPS 207 draft): HQC-1, HQC-3, HQC-5",
        "draft-connolly-cfrg-xwing-kem-06: X-Wing",
    ] {
        assert!(all.lines().any(|l| l == named), "{named}: {all}");
    }
    let out = kembench()
        .args(["list", "--alg", "HQC-128,HQC-1,X-Wing", "--json"])
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let standards: Vec<(&str, &str)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["standard"].as_str().unwrap()))
        .collect();
    assert_eq!(
        standards,
        [
            (
                "HQC-128",
                "HQC round 4 (2023), superseded by the 2025-08-22 spec"
            ),
            ("HQC-1", "HQC 2025-08-22 spec (FIPS 207 draft)"),
            ("X-Wing", "draft-connolly-cfrg-xwing-kem-06"),
        ]
    );
}

#[test]
fn list_table_counts_pairs_and_providers() {
    kembench()
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "{} providers",
            kembench::providers::LISTED.len()
        )))
        .stdout(predicate::str::contains("X25519MLKEM768"));
}

#[test]
fn verify_reports_the_broken_mock_and_exits_non_zero() {
    let out = kembench()
        .args(["verify", "--include-mock", "--impl", "mock/*", "--json"])
        .assert()
        .code(1);
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let impls = v["implementations"].as_array().unwrap();
    let by_id = |id: &str| {
        impls
            .iter()
            .find(|i| i["implementation"] == id)
            .unwrap()
            .clone()
    };
    let broken = by_id("mock/broken");
    assert_eq!(broken["checks"]["round-trip"]["status"], "fail");
    assert_eq!(broken["checks"]["interop"]["status"], "fail");
    let correct = by_id("mock/correct");
    for (check, outcome) in correct["checks"].as_object().unwrap() {
        // Not even interop: its only peer is the broken one, which fails its own checks,
        // so the failed pair is the broken mock's, not the correct one's.
        assert_ne!(outcome["status"], "fail", "{check}: {outcome}");
    }
    assert!(
        correct["checks"]["interop"]["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("mock/broken"),
        "{correct}"
    );
    // The table says it too.
    kembench()
        .args(["verify", "--include-mock", "--impl", "mock/broken"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "FAIL MockKEM@mock/broken round trip",
        ));
}

#[test]
fn verify_passes_the_correct_mock() {
    kembench()
        .args(["verify", "--include-mock", "--impl", "mock/correct"])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 of 1 implementations pass"));
}

#[test]
fn mock_is_hidden_unless_asked_for() {
    kembench()
        .args(["list", "--alg", "MockKEM"])
        .assert()
        .code(2);
}

#[test]
fn verify_real_x25519_with_known_answers_and_interop() {
    let out = kembench()
        .args(["verify", "--alg", "X25519", "--json"])
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    // aws-lc, OpenSSL and rustls: every ordered pair.
    assert_eq!(v["interop_pairs"].as_array().unwrap().len(), 6);
    for i in v["implementations"].as_array().unwrap() {
        let kat = &i["checks"]["known-answers"];
        if i["implementation"] == "rustls/aws-lc-rs" {
            // RFC 7748's vector gives the secret key as bytes, which rustls never takes.
            assert_eq!(kat["status"], "skip", "{i}");
            assert!(kat["detail"].as_str().unwrap().contains("RFC 7748"), "{i}");
        } else {
            assert_eq!(kat["status"], "pass", "{i}");
        }
    }
}

/// The pairs of `verify --alg ALG --json` as (keys by, encapsulation by, status).
fn interop_pairs(alg: &str) -> Vec<(String, String, String)> {
    let out = kembench()
        .args(["verify", "--alg", alg, "--json"])
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    v["interop_pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
            (
                s(&p["keys_by"]),
                s(&p["encaps_by"]),
                s(&p["outcome"]["status"]),
            )
        })
        .collect()
}

#[test]
fn hybrid_key_exchange_interoperates_across_libraries_both_ways() {
    // rustls holds its key shares as objects only; interop still runs both ways with OpenSSL.
    let pairs = interop_pairs("X25519MLKEM768");
    for (keys, encaps) in [
        ("rustls/aws-lc-rs", "openssl"),
        ("openssl", "rustls/aws-lc-rs"),
    ] {
        assert!(
            pairs
                .iter()
                .any(|p| p.0 == keys && p.1 == encaps && p.2 == "pass"),
            "{keys} keys, {encaps} encapsulating: {pairs:?}"
        );
    }
}

#[test]
fn verify_table_says_why_a_check_did_not_apply() {
    kembench()
        .args(["verify", "--alg", "ML-KEM-768", "--impl", "rustls"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "n/a kept keys: nothing to compare: the library keeps its secret keys inside",
        ))
        .stdout(predicate::str::contains(
            "n/a known answers: ACVP keyGen vectors not run",
        ));
    kembench()
        .args([
            "verify",
            "--alg",
            "ML-KEM-768",
            "--impl",
            "rustls",
            "--wide",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "ACVP decapsulation vectors not run: they give secret keys as bytes",
        ));
}

/// The known answers of HQC-1 and X-Wing are the files their crates ship: a copy named by
/// `KEMBENCH_SRC_HQC_KEM` / `KEMBENCH_SRC_X_WING` that lacks them fails the gate, naming the
/// file it looked for, and the real copies pass.
#[test]
fn hqc_1_and_x_wing_known_answers_come_from_their_crates_files() {
    let missing = std::env::temp_dir().join(format!("kembench-no-crate-{}", std::process::id()));
    let known_answers = |env: &[(&str, &std::path::Path)]| {
        let mut cmd = kembench();
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd
            .args(["verify", "--alg", "HQC-1,X-Wing", "--json"])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let by_alg: Vec<(String, String, String)> = v["implementations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                let k = &i["checks"]["known-answers"];
                (
                    i["algorithm"].as_str().unwrap().to_string(),
                    k["status"].as_str().unwrap().to_string(),
                    k["detail"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        (out.status.code(), by_alg)
    };
    let (code, got) = known_answers(&[]);
    assert_eq!(code, Some(0), "{got:?}");
    assert_eq!(
        got,
        [
            (
                "HQC-1".into(),
                "pass".into(),
                "hqc-1.rsp, 100 entries".into()
            ),
            (
                "X-Wing".into(),
                "pass".into(),
                "X-Wing draft vectors 3".into()
            ),
        ]
    );
    let (code, got) = known_answers(&[
        ("KEMBENCH_SRC_HQC_KEM", &missing),
        ("KEMBENCH_SRC_X_WING", &missing),
    ]);
    assert_eq!(code, Some(1), "{got:?}");
    for (alg, status, detail) in &got {
        assert_eq!(status, "fail", "{alg}: {detail}");
        assert!(
            detail.contains(&missing.display().to_string()),
            "{alg}: {detail}"
        );
    }
    assert!(got[0].2.contains("kat/hqc-1.rsp"), "{got:?}");
    assert!(got[1].2.contains("tests/test-vectors.json"), "{got:?}");
}
