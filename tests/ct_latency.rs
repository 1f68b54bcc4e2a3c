//! The variable-latency screen (`ct::latency`) on the constant-time mocks and on KyberSlash's
//! real sources: PQClean's Kyber768 `poly_tomsg` divides by `KYBER_Q`, and gcc keeps that
//! division as a `div`/`idiv` instruction at `-Os` only (at `-O2` it becomes a multiplication).
//! Needs valgrind (and gcc for the builds): missing, the tests fail under
//! `KEMBENCH_REQUIRE_COMPONENTS=1` and say so elsewhere.

use kembench::ct::latency;
use kembench::ct::Context;
use kembench::kem::Op;
use kembench::providers::registry::Registry;
use kembench::record::ct::{Finding, Ran, ScreenResult, SecretOperands};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const OPS: [Op; 3] = [Op::Keygen, Op::Encaps, Op::Decaps];

fn valgrind() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("valgrind"))
        .find(|p| p.is_file())
}

fn context(work: &Path, valgrind: Result<PathBuf, String>) -> Context {
    Context {
        exe: PathBuf::from(env!("CARGO_BIN_EXE_kembench")),
        include_mock: true,
        seed: 0,
        valgrind,
        work_dir: work.to_path_buf(),
        timing_budget: Duration::from_secs(1),
        worker_timeout: Duration::from_secs(600),
    }
}

/// The build cache of this test process (set once for the whole process, before any test
/// reads the environment, and inherited by the workers), with the ct mocks switched on.
fn builds_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let d = fresh("builds");
        std::env::set_var("KEMBENCH_MOCK_CT", "1");
        std::env::set_var("KEMBENCH_BUILD_DIR", &d);
        d
    })
    .clone()
}

/// The screen of `label` in this process's registry (the ct mocks switched on, builds from
/// the cache `KEMBENCH_BUILD_DIR` names).
fn screen(label: &str, ctx: &Context) -> Vec<ScreenResult> {
    let registry = Registry::new(true);
    let k = registry
        .get(label)
        .unwrap_or_else(|| panic!("{label} is not in the registry"));
    latency::screen(ctx, k.as_ref(), &OPS)
}

fn divisions(r: &ScreenResult) -> Vec<&Finding> {
    r.findings
        .iter()
        .filter(|f| matches!(f.kind.short(), "div" | "idiv"))
        .collect()
}

/// A fresh folder of this test process's own under the system's temporary folder.
fn fresh(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-ct-latency-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn need_valgrind(test: &str) -> Option<PathBuf> {
    let v = valgrind();
    if v.is_none() {
        kembench::missing::skip(
            test,
            "valgrind",
            "apt-get install valgrind, or scripts/setup",
        );
    }
    v
}

/// Whether gdb is on the `PATH` (the operand check needs it); missing, fails under
/// `KEMBENCH_REQUIRE_COMPONENTS=1`, says so elsewhere.
fn need_gdb(test: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).any(|d| d.join("gdb").is_file());
    if !found {
        kembench::missing::skip(test, "gdb", "sudo apt-get install -y gdb, or scripts/setup");
    }
    found
}

#[test]
fn the_division_mock_is_flagged_in_decaps_and_the_others_are_not() {
    let Some(v) = need_valgrind("the_division_mock_is_flagged_in_decaps_and_the_others_are_not")
    else {
        return;
    };
    builds_dir();
    let work = fresh(concat!(module_path!(), "-work", line!()));
    let ctx = context(work.as_path(), Ok(v));
    let r = screen("MockKEM@mock/ct-division", &ctx);
    assert_eq!(r.len(), 3);
    for s in &r {
        assert_eq!(s.ran, Ran::Screened, "{s:?}");
    }
    assert!(
        divisions(&r[0]).is_empty() && divisions(&r[1]).is_empty(),
        "{r:?}"
    );
    let d = divisions(&r[2]);
    assert_eq!(d.len(), r[2].findings.len(), "{:?}", r[2].findings);
    let (secret, public): (Vec<&Finding>, Vec<&Finding>) = d
        .iter()
        .partition(|f| f.function == "kembench::providers::mock::leak");
    // Eight bytes of the secret message, one division each (the loop may be unrolled into
    // several instructions), and one of the public ciphertext's first byte.
    assert_eq!(
        secret.iter().map(|f| f.count_per_call).sum::<u64>(),
        8,
        "{d:?}"
    );
    assert_eq!(public.len(), 1, "{d:?}");
    assert_eq!(
        public[0].function, "kembench::providers::mock::public_division",
        "{d:?}"
    );
    for f in &d {
        assert_eq!(f.kind.short(), "div");
        assert!(f.detail.starts_with("div "), "{}", f.detail);
        assert!(
            f.line
                .as_deref()
                .is_some_and(|l| l.contains("providers/mock.rs:")),
            "{f:?}"
        );
        assert!(
            f.object.as_deref().is_some_and(|o| o.ends_with("kembench")),
            "{f:?}"
        );
    }
    // The operand check (gdb on memcheck): the secret message's divisions have a secret
    // dividend, the ciphertext's has public operands. Without gdb: unknown, with the command
    // that installs it.
    if need_gdb("the_division_mock_is_flagged_in_decaps_and_the_others_are_not") {
        for f in &secret {
            assert_eq!(f.secret_operands, Some(SecretOperands::Yes), "{f:?}");
            assert!(
                f.detail.contains("dividend (edx:eax) at 1 of 1 hits"),
                "{f:?}"
            );
            assert!(!f.detail.contains("divisor"), "{f:?}");
        }
        assert_eq!(public[0].secret_operands, Some(SecretOperands::No), "{d:?}");
        assert!(
            public[0].detail.contains("operands public under memcheck"),
            "{d:?}"
        );
        assert!(r[2].how.contains("operand check"), "{}", r[2].how);
    } else {
        for f in &d {
            assert_eq!(f.secret_operands, Some(SecretOperands::Unknown), "{f:?}");
            assert!(f.detail.contains("apt-get install -y gdb"), "{f:?}");
        }
    }
    assert!(
        r[2].how.contains("instructions executed in one call"),
        "{}",
        r[2].how
    );

    // The clean mock and the three that leak through other channels: nothing. ct-timing's
    // leak is a floating-point multiply on subnormals, which this screen does not list (its
    // time depends on the values through a microcode assist: the timing screen's job).
    for label in ["correct", "ct-branch", "ct-index", "ct-timing"] {
        let r = screen(&format!("MockKEM@mock/{label}"), &ctx);
        for s in &r {
            assert_eq!(s.ran, Ran::Screened, "{label}: {s:?}");
            assert!(s.findings.is_empty(), "{label}: {:?}", s.findings);
        }
    }
}

#[test]
fn without_valgrind_nothing_is_screened() {
    builds_dir();
    let work = fresh(concat!(module_path!(), "-work", line!()));
    let ctx = context(work.as_path(), Err("valgrind is not installed".into()));
    let r = screen("MockKEM@mock/ct-division", &ctx);
    assert_eq!(r.len(), 3);
    for s in r {
        assert_eq!(s.ran, Ran::NotScreened("valgrind is not installed".into()));
    }
}

/// Builds Kyber768's PQClean clean source with gcc at `-Os` and `-O2` into a build cache of
/// its own, and demands the divisions of KyberSlash at `-Os` only: `poly_tomsg` in decaps
/// (KyberSlash1), `poly_compress` and `polyvec_compress` in encaps (KyberSlash2).
#[test]
fn kyberslash_divisions_at_os_only() {
    let test = "kyberslash_divisions_at_os_only";
    let Some(v) = need_valgrind(test) else {
        return;
    };
    // gcc is never skipped (README): without it the test fails.
    assert!(
        Command::new("gcc").arg("--version").output().is_ok(),
        "{test}: gcc is required (apt-get install gcc, or scripts/setup)"
    );
    let builds = builds_dir();
    let work = fresh(concat!(module_path!(), "-work", line!()));
    let out = Command::new(env!("CARGO_BIN_EXE_kembench"))
        .args(["builds", "--alg", "Kyber768", "--impl", "pqclean/clean"])
        .args(["--cc", "gcc", "--flags", "-Os;-O2"])
        .env("KEMBENCH_BUILD_DIR", builds.as_path())
        .env("KEMBENCH_STORE", work.as_path().join("store.sqlite"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let gcc = Registry::new(false)
        .builds()
        .iter()
        .filter_map(|k| k.build().map(|b| b.compiler.clone()))
        .next()
        .expect("a gcc build in the registry");
    let ctx = context(work.as_path(), Ok(v));
    let at = |flags: &str| screen(&format!("Kyber768@pqclean/clean@{gcc}:{flags}"), &ctx);
    let functions = |r: &ScreenResult| {
        let mut f: Vec<String> = divisions(r)
            .iter()
            .map(|f| f.function.replace("PQCLEAN_KYBER768_CLEAN_", ""))
            .collect();
        f.sort();
        f.dedup();
        f
    };
    let os = at("Os");
    for s in &os {
        assert_eq!(s.ran, Ran::Screened, "{s:?}");
    }
    assert!(
        functions(&os[2]).contains(&"poly_tomsg".to_string()),
        "{:?}",
        os[2].findings
    );
    let e = functions(&os[1]);
    assert!(e.contains(&"poly_compress".to_string()), "{e:?}");
    assert!(e.contains(&"polyvec_compress".to_string()), "{e:?}");
    let tomsg: u64 = divisions(&os[2])
        .into_iter()
        .filter(|f| f.function.ends_with("poly_tomsg"))
        .map(|f| f.count_per_call)
        .sum();
    // One division per coefficient: 256.
    assert_eq!(tomsg, 256, "{:?}", os[2].findings);
    // KyberSlash: the dividend of every division in poly_tomsg, poly_compress and
    // polyvec_compress is secret (the operand check, gdb on memcheck).
    if need_gdb(test) {
        for s in &os[1..] {
            for f in divisions(s) {
                if f.function.ends_with("tomsg") || f.function.ends_with("compress") {
                    assert_eq!(f.secret_operands, Some(SecretOperands::Yes), "{f:?}");
                    assert!(f.detail.contains("dividend"), "{f:?}");
                }
            }
        }
    }
    let o2 = at("O2");
    for s in &o2 {
        assert_eq!(s.ran, Ran::Screened, "{s:?}");
        let f = functions(s);
        assert!(
            !f.iter()
                .any(|f| f.contains("compress") || f.contains("tomsg")),
            "{:?}: {f:?}",
            s.operation
        );
    }
}
