//! Source trees as builds (`builds --source liboqs=PATH`), end to end, on copies of the liboqs
//! 0.13 tree the kembench build compiled (no registry serves a newer liboqs): a copy with its
//! declared version changed and one ML-KEM-768 function made slower, an unchanged copy, and a
//! copy whose known answers are wrong. Each is built through liboqs's CMake, named with its
//! version and content digest, and gated with its own `kats.json`; the slower one fails the
//! exact-count gate against kembench's carried liboqs of the same flags, naming the function
//! and only the operation it touches, and the unchanged one compares exactly equal.

mod common;

use common::kembench_at;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// How far (percent) an operation of unchanged liboqs code may move between two builds'
/// profiles: glibc's allocator, which liboqs's SHA-3 contexts call, takes a path that depends on
/// what the process allocated before, a few hundred instructions of about 500,000 (CI saw
/// keygen 518,819 → 518,558, −0.050%, with liboqs's own functions identical; another run
/// +0.009%). The slower tree's decaps moves +1.97%, ten times this; that liboqs's own functions
/// did not move is checked by name beside it.
const ALLOCATOR_PCT: f64 = 0.2;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-trees-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A copy of the liboqs tree the kembench build compiled, at `to`.
fn copy_liboqs(to: &Path) {
    let from = Path::new(env!("KEMBENCH_SRC_OQS_SYS")).join("liboqs");
    let o = Command::new("cp")
        .arg("-a")
        .arg(&from)
        .arg(to)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Replaces `old` (which must be there) with `new` in `file`.
fn edit(file: &Path, old: &str, new: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(old), "{}: {old}", file.display());
    std::fs::write(file, text.replacen(old, new, 1)).unwrap();
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Whether a row of the gate's functions table names a function of liboqs's own code (its
/// ML-KEM, SHA-3 and common code), rather than the C library's allocator.
fn of_liboqs(row: &str) -> bool {
    let f = row.split('`').nth(1).unwrap_or_default();
    ["PQCP_", "OQS_", "Keccak", "SHA3_", "keccak"]
        .iter()
        .any(|p| f.starts_with(p))
}

/// The builds of one `builds --json` by implementation id.
/// The change column of a row of the profile gate's summary (`| id | op | before | after |
/// +0.012% | ... |`), in percent.
fn change_pct(row: &str) -> f64 {
    row.split(" | ")
        .nth(4)
        .and_then(|c| c.trim_end_matches('%').parse().ok())
        .unwrap_or_else(|| panic!("no change column: {row}"))
}

fn builds(o: &Output) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)));
    v["builds"].as_array().unwrap().clone()
}

#[test]
fn a_liboqs_tree_is_built_named_gated_and_gated_against_the_carried_one() {
    let d = dir("liboqs");
    let (same, slow, wrong) = (d.join("same"), d.join("slow"), d.join("wrong-kat"));
    for t in [&same, &slow, &wrong] {
        copy_liboqs(t);
    }
    // The slower tree: another declared version, and ML-KEM-768's message decoding (used by
    // decapsulation alone) doing 2,000 more loop iterations in its portable code.
    edit(
        &slow.join("CMakeLists.txt"),
        "set(OQS_VERSION_PATCH 0)",
        "set(OQS_VERSION_PATCH 1)",
    );
    edit(
        &slow.join("CMakeLists.txt"),
        "set(OQS_VERSION_PRE_RELEASE \"\")",
        "set(OQS_VERSION_PRE_RELEASE \"-slower\")",
    );
    let tomsg = "void mlk_poly_tomsg(uint8_t msg[MLKEM_INDCPA_MSGBYTES], const mlk_poly *a)\n{\n";
    edit(
        &slow.join("src/kem/ml_kem/mlkem-native_ml-kem-768_ref/mlkem/compress.c"),
        tomsg,
        &format!(
            "{tomsg}  {{ volatile unsigned slow = 0; unsigned k; for (k = 0; k < 2000; k++) slow += k; }}\n"
        ),
    );
    // The tree whose own known answer for ML-KEM-768 is wrong: its gate must fail, naming
    // the tree's file.
    let kats = wrong.join("tests/KATs/kem/kats.json");
    let mut k: Value = serde_json::from_str(&std::fs::read_to_string(&kats).unwrap()).unwrap();
    k["ML-KEM-768"]["single"] = Value::String("00".repeat(32));
    std::fs::write(&kats, serde_json::to_string_pretty(&k).unwrap()).unwrap();

    let store = d.join("s.sqlite");
    let cache = d.join("cache");
    let kb = || {
        let mut c = kembench_at(&store);
        c.env("KEMBENCH_BUILD_DIR", &cache).current_dir(&d);
        c
    };
    let o = kb()
        .args(["builds", "--alg", "ML-KEM-768", "--impl", "*/generic"])
        .args(["--cc", "gcc", "--flags", "-O2", "--json"])
        .arg("--source")
        .arg(format!("liboqs={}", same.display()))
        .arg("--source")
        .arg(format!("liboqs={}", slow.display()))
        .arg("--source")
        .arg(format!("liboqs={}", wrong.display()))
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "the wrong tree fails: {}",
        text(&o)
    );
    let all = builds(&o);
    let id = |b: &Value| b["facts"]["implementation"].as_str().unwrap().to_string();
    let find = |prefix: &str| -> Value {
        all.iter()
            .find(|b| id(b).starts_with(prefix))
            .unwrap_or_else(|| panic!("{prefix}: {:?}", all.iter().map(id).collect::<Vec<_>>()))
            .clone()
    };
    assert_eq!(all.len(), 4, "{:?}", all.iter().map(id).collect::<Vec<_>>());
    let carried = find("liboqs/generic@");
    let slow_b = find("liboqs-0.13.1-slower+");
    // The unchanged and the wrong copies declare the same version: told apart by content.
    let same_and_wrong: Vec<Value> = all
        .iter()
        .filter(|b| id(b).starts_with("liboqs-0.13.0+"))
        .cloned()
        .collect();
    assert_eq!(same_and_wrong.len(), 2);
    assert_ne!(id(&same_and_wrong[0]), id(&same_and_wrong[1]));
    for b in [&carried, &slow_b] {
        assert_eq!(b["facts"]["gate"]["gate"], "passed", "{b:#}");
    }
    assert!(
        id(&slow_b).contains("/generic@gcc-") && id(&slow_b).ends_with(":O2"),
        "{}",
        id(&slow_b)
    );
    let version = slow_b["facts"]["source_version"].as_str().unwrap();
    assert!(
        version.contains("liboqs 0.13.1-slower tree")
            && version.contains(&slow.display().to_string())
            && version.contains("content sha256"),
        "{version}"
    );
    // Known answers from the tree's own file.
    let detail = slow_b["facts"]["gate"]["detail"].as_str().unwrap();
    assert!(detail.contains("tests/KATs/kem/kats.json"), "{detail}");
    let bad = same_and_wrong
        .iter()
        .find(|b| b["facts"]["gate"]["gate"] != "passed")
        .expect("the copy with a wrong known answer fails its gate");
    let why = bad["facts"]["gate"]["detail"].as_str().unwrap();
    assert!(
        why.contains("0000000000") && why.contains("kats.json"),
        "{why}"
    );
    let same_b = same_and_wrong
        .iter()
        .find(|b| b["facts"]["gate"]["gate"] == "passed")
        .unwrap();

    // liboqs's other KEMs from a tree: HQC-128 (HQC's round-4 code in liboqs 0.13), gated with
    // the tree's own known answers (SHAKE256-drawn, as liboqs's kat_kem draws them).
    let o = kb()
        .args(["builds", "--alg", "HQC-128", "--impl", "*/generic"])
        .args(["--cc", "gcc", "--flags", "-O2", "--json"])
        .arg("--source")
        .arg(format!("liboqs={}", same.display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let hqc = builds(&o);
    assert_eq!(hqc.len(), 1, "{hqc:?}");
    assert!(id(&hqc[0]).starts_with("liboqs-0.13.0+"), "{}", id(&hqc[0]));
    assert_eq!(hqc[0]["facts"]["gate"]["gate"], "passed", "{:#}", hqc[0]);
    let detail = hqc[0]["facts"]["gate"]["detail"].as_str().unwrap();
    assert!(detail.contains("tests/KATs/kem/kats.json"), "{detail}");

    // A KEM whose declared sizes are not those of kembench's algorithm of that name is another
    // specification under the name: named, with both sets of sizes, and not built.
    edit(
        &wrong.join("src/kem/hqc/kem_hqc.h"),
        "#define OQS_KEM_hqc_192_length_ciphertext 8978",
        "#define OQS_KEM_hqc_192_length_ciphertext 8979",
    );
    let o = kb()
        .args(["builds", "--alg", "HQC-192"])
        .arg("--source")
        .arg(format!("liboqs={}", wrong.display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let said = text(&o);
    assert!(
        said.contains("HQC-192@liboqs-0.13.0+")
            && said.contains("another specification")
            && said.contains("pk 4522, sk 4586, ct 8979, ss 64 bytes")
            && said.contains("ct 8978"),
        "{said}"
    );

    // `list --builds` names each tree: its version, path and digest.
    let o = kb().args(["list", "--builds"]).output().unwrap();
    let listed = text(&o);
    assert!(o.status.success(), "{listed}");
    assert!(listed.contains(&slow.display().to_string()), "{listed}");

    // The exact-count gate: the carried liboqs is the baseline.
    let (carried_id, slow_id, same_id) = (id(&carried), id(&slow_b), id(same_b));
    let o = kb()
        .args(["profile", "--alg", "ML-KEM-768", "--impl", &carried_id])
        .args(["--seeds", "1", "--json", "base.json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    // Paired with the carried build by variant, compiler and flags, without --pair.
    let o = kb()
        .args(["profile", "--alg", "ML-KEM-768", "--impl", &slow_id])
        .args([
            "--seeds",
            "1",
            "--baseline",
            "base.json",
            "--summary",
            "slow.md",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let md = std::fs::read_to_string(d.join("slow.md")).unwrap();
    let row = |op: &str| -> String {
        md.lines()
            .find(|l| l.starts_with("| ML-KEM-768@") && l.contains(&format!(" | {op} | ")))
            .unwrap_or_else(|| panic!("{op}: {md}"))
            .to_string()
    };
    assert!(row("decaps").contains("over the threshold"), "{md}");
    // The others: liboqs's own code unchanged (the functions table below), and the totals
    // within the few instructions glibc's allocator may take more or less, as it depends on
    // what the process allocated before (as for the unchanged copy below).
    for op in ["keygen", "encaps"] {
        let change = change_pct(&row(op));
        assert!(change.abs() < ALLOCATOR_PCT, "{op}: {md}");
    }
    assert!(
        md.contains("`PQCP_MLKEM_NATIVE_MLKEM768_C_poly_tomsg`"),
        "{md}"
    );
    let functions = md
        .split("### Functions whose self counts changed most")
        .nth(1)
        .expect("the functions table");
    for l in functions.lines().filter(|l| l.starts_with("| ML-KEM")) {
        assert!(
            l.contains(" | decaps | ") || !of_liboqs(l),
            "only decapsulation's liboqs code changed: {l}"
        );
    }

    // The unchanged copy: exactly equal.
    let o = kb()
        .args(["profile", "--alg", "ML-KEM-768", "--impl", &same_id])
        .args([
            "--seeds",
            "1",
            "--baseline",
            "base.json",
            "--summary",
            "same.md",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    // liboqs's own code executes exactly the same instructions; glibc's allocator (which
    // liboqs's SHA-3 contexts call) may take a path a few instructions longer or shorter, as
    // it depends on what kembench's process allocated before (the ids' lengths among it).
    let md = std::fs::read_to_string(d.join("same.md")).unwrap();
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| ML-KEM-768@liboqs/generic@") && l.contains(" → "))
        .collect();
    assert_eq!(rows.len(), 3, "{md}");
    for r in &rows {
        assert!(
            r.contains(&format!("→ {same_id} |")),
            "paired with the copy: {r}"
        );
        assert!(change_pct(r).abs() < ALLOCATOR_PCT, "{r}");
    }
    if let Some(functions) = md
        .split("### Functions whose self counts changed most")
        .nth(1)
    {
        for l in functions.lines().filter(|l| l.starts_with("| ML-KEM")) {
            assert!(!of_liboqs(l), "liboqs's own code is unchanged: {l}");
        }
    }

    // Versions side by side in one run: the carried build and the slower tree's, interleaved,
    // each operation of the tree's against the carried one's (the figures are timings, so
    // only the pairing is asserted here).
    let o = kb()
        .args(["run", "--alg", "ML-KEM-768", "--impl", &carried_id])
        .args(["--impl", &slow_id, "--time-budget", "0.1", "--rounds", "2"])
        .args(["--json", "versions.json"])
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(out.contains("Versions side by side"), "{out}");
    let pairs: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(&format!("{carried_id} →")) && !l.contains("fastest"))
        .collect();
    assert_eq!(pairs.len(), 4, "keygen, encaps, decaps, exchange: {out}");
    assert!(out.contains(&slow_id), "{out}");

    // And across two runs: `compare` pairs the carried build with the tree's build of the
    // same variant, compiler and flags.
    for (file, id) in [("carried.json", &carried_id), ("slow.json", &slow_id)] {
        let o = kb()
            .args(["run", "--alg", "ML-KEM-768", "--impl", id])
            .args(["--time-budget", "0.1", "--no-store", "--json", file])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    let o = kb()
        .args(["compare", "carried.json", "slow.json", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{report:#}");
    for r in rows {
        assert_eq!(r["implementation"], carried_id.as_str());
        assert_eq!(r["new_implementation"], slow_id.as_str());
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// A PQClean checkout: each scheme the catalog knows is built from it, named by the tree's
/// content, and gated with the scheme's `META.yml`; one the catalog does not know is listed
/// with the sizes its `api.h` declares; every algorithm's files key its own build.
#[test]
fn a_pqclean_tree_is_built_per_scheme_and_an_unknown_scheme_is_listed() {
    let d = dir("pqclean");
    let tree = d.join("tree");
    let from = Path::new(env!("KEMBENCH_SRC_PQCRYPTO_MLKEM")).join("pqclean");
    let o = Command::new("cp")
        .arg("-a")
        .arg(&from)
        .arg(&tree)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let new = tree.join("crypto_kem/newkem-1/clean");
    std::fs::create_dir_all(&new).unwrap();
    std::fs::write(
        new.join("api.h"),
        "#define NEWKEM_CRYPTO_PUBLICKEYBYTES 1000\n#define NEWKEM_CRYPTO_SECRETKEYBYTES 2000\n\
         #define NEWKEM_CRYPTO_CIPHERTEXTBYTES 900\n#define NEWKEM_CRYPTO_BYTES 32\n",
    )
    .unwrap();
    let kb = || {
        let mut c = kembench_at(d.join("s.sqlite"));
        c.env("KEMBENCH_BUILD_DIR", d.join("cache"))
            .arg("builds")
            .arg("--source")
            .arg(format!("pqclean={}", tree.display()));
        c
    };
    let o = kb()
        .args([
            "--alg",
            "ML-KEM-512,ML-KEM-768",
            "--impl",
            "pqclean+*/clean",
        ])
        .args(["--cc", "gcc", "--flags", "-O2", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let all = builds(&o);
    assert_eq!(all.len(), 2, "{all:#?}");
    for b in &all {
        let id = b["facts"]["implementation"].as_str().unwrap();
        assert!(
            id.starts_with("pqclean+") && id.contains("/clean@gcc-"),
            "{id}"
        );
        assert_eq!(b["facts"]["gate"]["gate"], "passed", "{b:#}");
        let detail = b["facts"]["gate"]["detail"].as_str().unwrap();
        assert!(detail.contains("META.yml"), "{detail}");
    }
    assert_ne!(
        all[0]["facts"]["source_sha256"], all[1]["facts"]["source_sha256"],
        "two schemes of one source id: each keyed by its own files"
    );
    // The scheme kembench's catalog does not know: listed, with its sizes.
    let o = kb()
        .args(["--alg", "ML-KEM-512", "--cc", "gcc", "--flags", "-O2"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let said = text(&o);
    assert!(said.contains("Sources: pqclean+"), "{said}");
    let o = kb()
        .args(["--alg", "newkem-1", "--cc", "gcc"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let said = text(&o);
    assert!(
        said.contains("newkem-1@pqclean+")
            && said.contains("not in kembench's catalog")
            && said.contains("pk 1000, sk 2000, ct 900, ss 32 bytes"),
        "{said}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// Bad trees: the CLI says what it expected and builds nothing.
#[test]
fn a_path_that_is_not_a_tree_of_its_kind_is_refused() {
    let d = dir("bad");
    let o = kembench_at(d.join("s.sqlite"))
        .env("KEMBENCH_BUILD_DIR", d.join("cache"))
        .args(["builds", "--source"])
        .arg(format!("liboqs={}", d.display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not a liboqs tree"), "{}", text(&o));
    let o = kembench_at(d.join("s.sqlite"))
        .args(["builds", "--source"])
        .arg(format!("liboqs={}", d.join("gone").display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    assert!(
        text(&o).contains("No such file or directory"),
        "{}",
        text(&o)
    );
    assert!(!d.join("cache").exists(), "nothing built");
    std::fs::remove_dir_all(&d).unwrap();
}
