//! `kembench add`: a NIST-API package (PQClean's clean ML-KEM-512 laid out as a submission
//! directory, with a KAT file made by liboqs) compiled, checked against its own known answers
//! and by interoperability, timed beside the built-in implementations; and what a new user
//! gets wrong.

mod common;

use common::{kembench, FAST};
use serde_json::Value;
use std::path::{Path, PathBuf};

const PACKAGE: &str = "tests/data/nist-package/mlkem512";
const SCHEME: &str = "Reference_Implementation/crypto_kem/mlkem512";

/// A copy of the test package in a fresh directory, and a build cache of the test's own.
fn copy(name: &str) -> (PathBuf, PathBuf) {
    let root = std::env::temp_dir().join(format!("kembench-add-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let pkg = root.join("mlkem512");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(PACKAGE);
    for sub in [SCHEME, "KAT/mlkem512"] {
        std::fs::create_dir_all(pkg.join(sub)).unwrap();
        for f in std::fs::read_dir(src.join(sub)).unwrap().flatten() {
            std::fs::copy(f.path(), pkg.join(sub).join(f.file_name())).unwrap();
        }
    }
    (pkg.join(SCHEME), root.join("cache"))
}

fn edit(file: &Path, from: &str, to: &str) {
    let t = std::fs::read_to_string(file).unwrap();
    assert!(t.contains(from), "{from}");
    std::fs::write(file, t.replacen(from, to, 1)).unwrap();
}

fn add(cache: &Path, args: &[&str]) -> (i32, Value, String) {
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", cache)
        .arg("add")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn only(v: &Value) -> &Value {
    let b = v["builds"].as_array().unwrap();
    assert_eq!(b.len(), 1, "{v:#}");
    &b[0]
}

#[test]
fn a_package_is_checked_against_its_kat_file_and_liboqs_then_timed_beside_it() {
    let (dir, cache) = copy("good");
    let (code, v, err) = add(&cache, &[dir.to_str().unwrap(), "--name", "mykem"]);
    assert_eq!(code, 0, "{err}\n{v:#}");
    let b = only(&v);
    assert_eq!(
        b["algorithm"], "ML-KEM-512",
        "CRYPTO_ALGNAME names a catalog algorithm"
    );
    let id = b["facts"]["implementation"].as_str().unwrap().to_string();
    assert!(id.starts_with("local/mykem@gcc-"), "{id}");
    let gate = b["facts"]["gate"]["detail"].as_str().unwrap();
    assert!(gate.contains("PQCkemKAT_1632.rsp, 10 entries"), "{gate}");

    // Interoperability with liboqs, through verify.
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &cache)
        .args([
            "verify",
            "--alg",
            "ML-KEM-512",
            "--impl",
            "local/*",
            "--impl",
            "liboqs",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pairs = report["interop_pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2, "{pairs:#?}");
    assert!(pairs.iter().all(|p| p["outcome"]["status"] == "pass"));

    // Timed beside liboqs in one run.
    let (_, rec) = common::run_exchange(
        &cache,
        &[
            "--alg",
            "ML-KEM-512",
            "--impl",
            "local/*",
            "--impl",
            "liboqs",
        ],
    );
    let ids: Vec<&str> = rec["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["implementation"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"liboqs") && ids.contains(&id.as_str()),
        "{ids:?}"
    );
    let _ = std::fs::remove_dir_all(cache.parent().unwrap());
}

#[test]
fn a_wrong_output_fails_verify_at_the_first_kat_count_it_changes() {
    let (dir, cache) = copy("wrong");
    // Flip the last secret-key byte (FIPS 203's z, used only for implicit rejection) when the
    // public key's first byte is 3 modulo 7 (in the file, count = 6 is the first such):
    // round trips and interop still pass.
    edit(
        &dir.join("kem.c"),
        "    crypto_kem_keypair_derand(pk, sk, coins);\n    return 0;",
        "    crypto_kem_keypair_derand(pk, sk, coins);\n    if ((pk[0] % 7) == 3) {\n        sk[CRYPTO_SECRETKEYBYTES - 1] ^= 1;\n    }\n    return 0;",
    );
    let rsp =
        std::fs::read_to_string(dir.join("../../../KAT/mlkem512/PQCkemKAT_1632.rsp")).unwrap();
    let first = rsp
        .split("count = ")
        .skip(1)
        .find(|e| {
            let pk = e.lines().find_map(|l| l.strip_prefix("pk = ")).unwrap();
            u8::from_str_radix(&pk[..2], 16).unwrap() % 7 == 3
        })
        .map(|e| e.lines().next().unwrap().trim().to_string())
        .expect("an entry whose public key starts with 3 modulo 7");
    assert_ne!(
        first, "0",
        "a later count shows the count is found, not assumed"
    );
    let (code, v, err) = add(
        &cache,
        &[dir.to_str().unwrap(), "--implements", "ML-KEM-512"],
    );
    assert_eq!(code, 1, "{err}\n{v:#}");
    let gate = &only(&v)["facts"]["gate"];
    assert_eq!(gate["gate"], "failed");
    let why = gate["detail"].as_str().unwrap();
    assert!(
        why.contains(&format!("PQCkemKAT_1632.rsp: count = {first}: sk differs")),
        "{why}"
    );
    // A failed build is never timed.
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &cache)
        .args([
            "run",
            "--alg",
            "ML-KEM-512",
            "--impl",
            "local/*",
            "--no-store",
        ])
        .args(FAST)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("failed the correctness gate"));
    let _ = std::fs::remove_dir_all(cache.parent().unwrap());
}

#[test]
fn mistakes_get_clear_messages_and_a_non_zero_exit() {
    let (dir, cache) = copy("mistakes");
    // A path that does not exist, and a directory without api.h.
    let (code, _, err) = add(&cache, &["/nonexistent/kem"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("does not exist"), "{err}");
    let (code, _, err) = add(&cache, &[dir.parent().unwrap().to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("has no api.h"), "{err}");
    // An unknown --implements suggests the nearest.
    let (code, _, err) = add(
        &cache,
        &[dir.to_str().unwrap(), "--implements", "ML-KEM-51"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("did you mean ML-KEM-512"), "{err}");

    // A missing function: crypto_kem_dec renamed away.
    edit(
        &dir.join("kem.c"),
        "int crypto_kem_dec(",
        "int crypto_kem_dec_renamed(",
    );
    let (code, v, err) = add(&cache, &[dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    let why = only(&v)["compiled"]["detail"].as_str().unwrap().to_string();
    assert!(why.contains("missing symbol crypto_kem_dec"), "{why}");
    edit(
        &dir.join("kem.c"),
        "int crypto_kem_dec_renamed(",
        "int crypto_kem_dec(",
    );

    // A compile error: the compiler's own line.
    edit(&dir.join("poly.c"), "#include", "this is not C;\n#include");
    let (code, v, _) = add(&cache, &[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let why = only(&v)["compiled"]["detail"].as_str().unwrap().to_string();
    assert!(why.contains("poly.c") && why.contains("error"), "{why}");

    // A header neither the package nor kembench provides.
    edit(
        &dir.join("poly.c"),
        "this is not C;\n",
        "#include <openssl/kembench-none.h>\n",
    );
    let (code, v, _) = add(&cache, &[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let why = only(&v)["compiled"]["detail"].as_str().unwrap().to_string();
    assert!(
        why.contains("missing header openssl/kembench-none.h: install Debian's libssl-dev"),
        "{why}"
    );
    let _ = std::fs::remove_dir_all(cache.parent().unwrap());
}

#[test]
fn a_crashing_package_is_contained_and_reported_with_its_step() {
    let (dir, cache) = copy("crash");
    // Decapsulation dereferences a null pointer.
    edit(
        &dir.join("kem.c"),
        "int crypto_kem_dec(uint8_t *ss,",
        "int crypto_kem_dec_real(uint8_t *ss, const uint8_t *ct, const uint8_t *sk);\n\
         int crypto_kem_dec(uint8_t *ss, const uint8_t *ct, const uint8_t *sk) {\n\
         (void)ss; (void)ct; (void)sk; *(volatile int *)0 = 1; return 0;\n}\n\
         int crypto_kem_dec_real(uint8_t *ss,",
    );
    let (code, v, err) = add(&cache, &[dir.to_str().unwrap(), "--name", "crashy"]);
    assert_eq!(code, 1, "{err}\n{v:#}");
    let b = only(&v);
    assert_eq!(b["compiled"]["status"], "built");
    let why = b["facts"]["gate"]["detail"].as_str().unwrap();
    assert!(why.contains("killed by SIGSEGV during round trip"), "{why}");
    let _ = std::fs::remove_dir_all(cache.parent().unwrap());
}

#[test]
fn a_prebuilt_library_is_gated_and_one_with_other_names_is_refused() {
    let (dir, cache) = copy("prebuilt");
    let (code, v, err) = add(&cache, &[dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // The shared object kembench made exports the package's own crypto_kem_* too.
    let key = only(&v)["key"].as_str().unwrap().to_string();
    let lib = cache.parent().unwrap().join("libmykem.so");
    std::fs::copy(cache.join(&key).join("lib.so"), &lib).unwrap();
    let (code, v, err) = add(
        &cache,
        &[lib.to_str().unwrap(), "--implements", "ML-KEM-512"],
    );
    assert_eq!(code, 0, "{err}\n{v:#}");
    let b = only(&v);
    assert_eq!(b["facts"]["implementation"], "local/mykem@prebuilt");
    assert_eq!(b["facts"]["gate"]["gate"], "passed", "{b:#}");

    // Sizes are needed when --implements does not give them.
    let (code, _, err) = add(&cache, &[lib.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("--sizes PK,SK,CT,SS"), "{err}");

    // A library with other names: refused, naming what it does export.
    let c = cache.parent().unwrap().join("other.c");
    std::fs::write(
        &c,
        "int my_kem_keypair(unsigned char *pk, unsigned char *sk) { return 0; }\n",
    )
    .unwrap();
    let bad = cache.parent().unwrap().join("libother.so");
    let ok = std::process::Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&bad)
        .arg(&c)
        .status()
        .unwrap();
    assert!(ok.success());
    let (code, _, err) = add(&cache, &[bad.to_str().unwrap(), "--sizes", "1,2,3,4"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("does not export crypto_kem_keypair") && err.contains("my_kem_keypair"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(cache.parent().unwrap());
}

#[test]
fn a_scheme_of_its_own_is_described_by_its_api_h_and_timed() {
    let (dir, cache) = copy("own");
    edit(
        &dir.join("api.h"),
        "#define CRYPTO_ALGNAME \"ML-KEM-512\"",
        "#define CRYPTO_ALGNAME \"MyKEM\"",
    );
    let (code, v, err) = add(
        &cache,
        &[
            dir.to_str().unwrap(),
            "--level",
            "1",
            "--implicit-rejection",
        ],
    );
    assert_eq!(code, 0, "{err}\n{v:#}");
    let b = only(&v);
    assert_eq!(b["algorithm"], "MyKEM");
    assert_eq!(b["custom"]["pk_len"], 800);
    assert_eq!(b["custom"]["sk_len"], 1632);
    assert_eq!(b["custom"]["nist_level"], 1);
    assert!(b["facts"]["gate"]["detail"]
        .as_str()
        .unwrap()
        .contains("PQCkemKAT_1632.rsp"));
    let (_, rec) = common::run_exchange(&cache, &["--alg", "MyKEM", "--impl", "local/*"]);
    assert_eq!(rec["results"][0]["family"], "other");
    assert_eq!(rec["results"][0]["pk_bytes"], 800);
    let _ = std::fs::remove_dir_all(cache.parent().unwrap());
}

#[test]
fn a_hanging_package_is_killed_after_the_gate_timeout_and_reported_with_its_step() {
    let (dir, cache) = copy("hang");
    // Encapsulation never returns.
    edit(
        &dir.join("kem.c"),
        "int crypto_kem_enc(uint8_t *ct,",
        "int crypto_kem_enc_real(uint8_t *ct, uint8_t *ss, const uint8_t *pk);\n\
         int crypto_kem_enc(uint8_t *ct, uint8_t *ss, const uint8_t *pk) {\n\
         for (volatile int spin = 1; spin;) {}\n\
         return crypto_kem_enc_real(ct, ss, pk);\n}\n\
         int crypto_kem_enc_real(uint8_t *ct,",
    );
    let started = std::time::Instant::now();
    let (code, v, err) = add(
        &cache,
        &[
            dir.to_str().unwrap(),
            "--name",
            "stuck",
            "--gate-timeout",
            "2",
        ],
    );
    assert_eq!(code, 1, "{err}\n{v:#}");
    let why = only(&v)["facts"]["gate"]["detail"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        why.contains("still running after 2 s and killed during round trip"),
        "{why}"
    );
    // One batch and one retry alone, each cut at 2 s.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let _ = std::fs::remove_dir_all(cache.parent().unwrap());
}

/// The PQClean KEM packages kembench carries whose scheme `wanted` accepts: the
/// `pqclean/crypto_kem/<scheme>/clean` and `opt` directories of the pqcrypto-mlkem and
/// pqcrypto-ntru crates in the cargo registry (the ones `builds` compiles from; the two crates
/// carry different versions of the schemes they share).
fn pqclean_packages(wanted: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let crates = [
        env!("KEMBENCH_SRC_PQCRYPTO_MLKEM"),
        env!("KEMBENCH_SRC_PQCRYPTO_NTRU"),
    ];
    let mut packages = Vec::new();
    for krate in crates {
        assert_ne!(krate, "absent", "the kembench build found no PQClean crate");
        let kems = Path::new(krate).join("pqclean/crypto_kem");
        let mut schemes: Vec<PathBuf> = std::fs::read_dir(&kems)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        schemes.sort();
        for scheme in schemes {
            if !wanted(&scheme.file_name().unwrap().to_string_lossy()) {
                continue;
            }
            for variant in ["clean", "opt"] {
                // pqcrypto-mlkem keeps object files of Kyber without sources: not a package.
                if scheme.join(variant).join("api.h").is_file() {
                    packages.push(scheme.join(variant));
                }
            }
        }
    }
    packages
}

/// Adds each package as shipped (`add DIR --name ...`): each must build and pass the gate.
fn add_each_as_shipped(tag: &str, packages: &[PathBuf]) {
    let cache = std::env::temp_dir().join(format!("kembench-add-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let mut failures = Vec::new();
    for (i, dir) in packages.iter().enumerate() {
        let started = std::time::Instant::now();
        let name = format!("{tag}-{i}");
        let (code, v, err) = add(&cache, &[dir.to_str().unwrap(), "--name", &name]);
        let b = v["builds"].get(0).cloned().unwrap_or(Value::Null);
        let gate = &b["facts"]["gate"];
        let ok = b["compiled"]["status"] == "built" && code == 0 && gate["gate"] == "passed";
        eprintln!(
            "{}: exit {code} in {:.1} s",
            dir.display(),
            started.elapsed().as_secs_f64()
        );
        if !ok {
            failures.push(format!("{}: exit {code}: {err}\n{b:#}", dir.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let _ = std::fs::remove_dir_all(&cache);
}

/// The larger Classic McEliece parameter sets, apart because they take long (11 to 55 s each
/// here, key generation in the gate dominating): run beside the other packages' test.
const LARGER_MCELIECE: [&str; 4] = [
    "mceliece460896",
    "mceliece6688128",
    "mceliece6960119",
    "mceliece8192128",
];

fn larger_mceliece(scheme: &str) -> bool {
    LARGER_MCELIECE.iter().any(|m| scheme.starts_with(m))
}

/// Every PQClean KEM package kembench carries, each added exactly as PQClean ships it (see
/// [`pqclean_packages`]), with its `api.h` as written (Classic McEliece declares
/// `crypto_kem_keypair` with its parenthesis on the next line) and PQClean's common headers
/// (`compat.h`, `crypto_declassify.h`, ...) supplied by kembench. The AVX2 variants need
/// `-mavx2`-style flags and are not added here. The larger Classic McEliece sets are the next
/// test's.
///
/// HQC (hqc-128/192/256) is checked against liboqs's KAT digest, whose files liboqs makes with
/// SHAKE256 instead of NIST's DRBG: the gate draws a package's randomness from the generator
/// of its algorithm's files (it used NIST's DRBG for every package, and failed PQClean's HQC).
#[test]
fn every_pqclean_kem_package_kembench_carries_is_added_as_shipped() {
    let packages = pqclean_packages(|scheme| !larger_mceliece(scheme));
    assert!(packages.len() >= 40, "{packages:?}");
    assert!(packages.iter().any(|p| p.ends_with("mceliece348864/clean")));
    add_each_as_shipped("pqclean", &packages);
}

/// The larger Classic McEliece packages of both crates (460896, 6688128, 6960119, 8192128 and
/// their `f` variants), added as shipped like every other package.
#[test]
fn the_larger_classic_mceliece_packages_are_added_as_shipped() {
    let packages = pqclean_packages(larger_mceliece);
    assert_eq!(packages.len(), 16, "{packages:?}");
    add_each_as_shipped("mceliece", &packages);
}

/// Two packages with the same `CRYPTO_ALGNAME` get the same id: the second is refused while
/// the first's build is verified (it silently replaced it, a failing build included), named
/// with `--name` it is a build of its own, and `--replace` replaces the first, saying so.
#[test]
fn a_verified_build_is_never_replaced_by_another_package_of_the_same_name() {
    let (first, cache) = copy("same-name");
    let (code, v, err) = add(&cache, &[first.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}\n{v:#}");
    let id = only(&v)["facts"]["implementation"]
        .as_str()
        .unwrap()
        .to_string();
    // Another package, the same CRYPTO_ALGNAME, whose keys differ from the KAT file's.
    let (second, _) = copy("same-name-2");
    edit(
        &second.join("kem.c"),
        "    crypto_kem_keypair_derand(pk, sk, coins);\n    return 0;",
        "    crypto_kem_keypair_derand(pk, sk, coins);\n    sk[CRYPTO_SECRETKEYBYTES - 1] ^= 1;\n    return 0;",
    );
    let listed = || -> Vec<Value> {
        let out = kembench()
            .env("KEMBENCH_BUILD_DIR", &cache)
            .args(["list", "--builds", "--json"])
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    };
    let (code, _, err) = add(&cache, &[second.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("already the name of another package")
            && err.contains(first.to_str().unwrap())
            && err.contains("--name"),
        "{err}"
    );
    let builds = listed();
    assert_eq!(builds.len(), 1, "{builds:#?}");
    assert_eq!(builds[0]["facts"]["implementation"], id.as_str());
    assert_eq!(builds[0]["facts"]["gate"]["gate"], "passed");

    // Named, it is a build of its own beside the first.
    let (code, v, err) = add(&cache, &[second.to_str().unwrap(), "--name", "second"]);
    assert_eq!(code, 1, "{err}\n{v:#}");
    let builds = listed();
    assert_eq!(builds.len(), 2, "{builds:#?}");
    let first_build = builds
        .iter()
        .find(|b| b["facts"]["implementation"] == id.as_str())
        .unwrap();
    assert_eq!(first_build["facts"]["gate"]["gate"], "passed");

    // --replace replaces it, and says so.
    let (code, _, err) = add(&cache, &[second.to_str().unwrap(), "--replace"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("replacing")
            && err.contains("(verified)")
            && err.contains(first.to_str().unwrap()),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(cache.parent().unwrap());
    let _ = std::fs::remove_dir_all(second.ancestors().nth(3).unwrap());
}

/// `--name` that is a catalog algorithm claims it as `--implements` does: its sizes are
/// checked (`--name ML-KEM-768` on an ML-KEM-512 package was a build called ML-KEM-768 of
/// ML-KEM-512); a name with a control character is refused; a prebuilt library's `--sizes`
/// must be four sizes a KEM could have (`0,0,0,0` was accepted and crashed in the gate).
#[test]
fn names_and_sizes_are_checked_before_anything_is_built() {
    let (dir, cache) = copy("claims");
    let (code, v, err) = add(&cache, &[dir.to_str().unwrap(), "--name", "ML-KEM-768"]);
    assert_eq!(code, 1, "{err}\n{v:#}");
    let b = only(&v);
    assert_eq!(b["compiled"]["status"], "failed", "{b:#}");
    let why = b["compiled"]["detail"].as_str().unwrap();
    assert!(why.contains("but ML-KEM-768 has"), "{why}");
    let (code, _, err) = add(
        &cache,
        &[
            dir.to_str().unwrap(),
            "--name",
            "ML-KEM-768",
            "--implements",
            "ML-KEM-512",
        ],
    );
    assert_eq!(code, 2, "{err}");

    let (code, _, err) = add(&cache, &[dir.to_str().unwrap(), "--name", "my\nkem"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("control character"), "{err}");

    // A library exporting the NIST API that does nothing.
    let c = cache.parent().unwrap().join("nothing.c");
    std::fs::write(
        &c,
        "int crypto_kem_keypair(unsigned char *pk, unsigned char *sk) { return 0; }\n\
         int crypto_kem_enc(unsigned char *c, unsigned char *k, const unsigned char *pk) { return 0; }\n\
         int crypto_kem_dec(unsigned char *k, const unsigned char *c, const unsigned char *sk) { return 0; }\n",
    )
    .unwrap();
    let lib = cache.parent().unwrap().join("libnothing.so");
    let ok = std::process::Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&c)
        .status()
        .unwrap();
    assert!(ok.success());
    for sizes in ["0,0,0,0", "1,2,3", "800,1632,768,99999999999"] {
        let (code, _, err) = add(&cache, &[lib.to_str().unwrap(), "--sizes", sizes]);
        assert_eq!(code, 2, "--sizes {sizes}: {err}");
        assert!(err.contains("--sizes"), "{err}");
    }
    let _ = std::fs::remove_dir_all(cache.parent().unwrap());
}

/// The exact-count regression gate on a real change: a package profiled, then its source
/// changed as a maintainer's commit might (key generation does extra work in a function of its
/// own, its outputs unchanged), re-added under the same id and profiled again. `compare
/// --fail-on-regression 5` of the two profiles exits 1, says what regressed by how much, and
/// names the function whose self count grew; the other way round it passes.
#[test]
fn a_slower_build_of_the_same_package_fails_the_regression_gate_naming_the_function() {
    let (dir, cache) = copy("regression");
    let store = cache.parent().unwrap().join("store.sqlite");
    let profile = || {
        let out = kembench()
            .env("KEMBENCH_BUILD_DIR", &cache)
            .env("KEMBENCH_STORE", &store)
            .args(["profile", "--alg", "ML-KEM-512", "--impl", "local/*"])
            .args(["--ops", "keygen", "--seeds", "1"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let (code, v, err) = add(&cache, &[dir.to_str().unwrap(), "--name", "gated"]);
    assert_eq!(code, 0, "{err}\n{v:#}");
    profile();
    edit(
        &dir.join("kem.c"),
        "int crypto_kem_keypair(",
        "__attribute__((noinline)) static void kembench_extra_work(void) {\n    \
         for (volatile int i = 0; i < 200000; i++) {\n    }\n}\n\n\
         int crypto_kem_keypair(",
    );
    edit(
        &dir.join("kem.c"),
        "    crypto_kem_keypair_derand(pk, sk, coins);\n    return 0;",
        "    crypto_kem_keypair_derand(pk, sk, coins);\n    kembench_extra_work();\n    return 0;",
    );
    let (code, v, err) = add(&cache, &[dir.to_str().unwrap(), "--name", "gated"]);
    assert_eq!(code, 0, "{err}\n{v:#}");
    profile();
    let compare = |old: &str, new: &str| {
        kembench()
            .env("KEMBENCH_STORE", &store)
            .args(["compare", old, new, "--fail-on-regression", "5"])
            .output()
            .unwrap()
    };
    let out = compare("latest~1", "latest");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains(
            "1 operation executes more than 5% more instructions: ML-KEM-512@local/gated"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("keygen ×"), "{stderr}");
    assert!(stdout.contains("kembench_extra_work"), "{stdout}");
    let back = compare("latest", "latest~1");
    assert_eq!(
        back.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    let _ = std::fs::remove_dir_all(cache.parent().unwrap());
}

#[test]
fn a_package_is_built_for_s390x_and_checked_against_its_own_kat_file_there() {
    let (dir, cache) = copy("s390x");
    let (code, v, err) = add(
        &cache,
        &[dir.to_str().unwrap(), "--name", "mykem", "--arch", "s390x"],
    );
    assert_eq!(code, 0, "{err}\n{v:#}");
    let b = only(&v);
    let id = b["facts"]["implementation"].as_str().unwrap();
    assert!(
        id.starts_with("local/mykem@gcc-") && id.ends_with("@s390x"),
        "{id}"
    );
    // The package's own known answers, regenerated by its s390x program under QEMU through
    // kembench's DRBG.
    let gate = b["facts"]["gate"]["detail"].as_str().unwrap();
    assert!(gate.contains("PQCkemKAT_1632.rsp, 10 entries"), "{gate}");

    // The same package with an output that differs from its KAT file fails there too.
    edit(
        &dir.join("kem.c"),
        "    crypto_kem_keypair_derand(pk, sk, coins);\n    return 0;",
        "    crypto_kem_keypair_derand(pk, sk, coins);\n    sk[CRYPTO_SECRETKEYBYTES - 1] ^= 1;\n    return 0;",
    );
    let (code, v, err) = add(
        &cache,
        &[dir.to_str().unwrap(), "--name", "mykem2", "--arch", "s390x"],
    );
    assert_eq!(code, 1, "{err}\n{v:#}");
    let gate = only(&v)["facts"]["gate"]["detail"].as_str().unwrap();
    assert!(
        gate.contains("PQCkemKAT_1632.rsp: count = 0: sk differs"),
        "{gate}"
    );

    // A scheme of its own (no catalog sizes for the driver) and a prebuilt library are
    // refused for another architecture, before anything is built.
    edit(
        &dir.join("api.h"),
        "#define CRYPTO_ALGNAME \"ML-KEM-512\"",
        "#define CRYPTO_ALGNAME \"MyKEM\"",
    );
    let (code, _, err) = add(&cache, &[dir.to_str().unwrap(), "--arch", "s390x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--implements"), "{err}");
    let lib = cache.join("lib.so");
    std::fs::write(&lib, b"not a library").unwrap();
    let (code, _, err) = add(&cache, &[lib.to_str().unwrap(), "--arch", "s390x"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("a prebuilt library is built for this machine"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(cache.parent().unwrap());
}
