//! `kembench builds`: real compilers over the PQClean sources kembench carries, a build cache
//! of each test's own, the gate in a child process, and `run` over the builds.

mod common;

use common::kembench;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn cache(name: &str) -> PathBuf {
    common::build_cache(name)
}

fn builds(dir: &Path, args: &[&str]) -> (i32, Value, String) {
    common::builds_json(dir, args)
}

#[test]
fn a_second_invocation_reuses_the_build_runs_no_compiler_and_run_measures_it() {
    let dir = cache("reuse");
    // A compiler that logs every compile (-shared) and target query (-dM), then is gcc.
    let log = dir.join("compiles.log");
    let cc = dir.join("logging-cc");
    std::fs::write(
        &cc,
        format!(
            "#!/bin/sh\ncase \" $* \" in *\" -shared \"*|*\" -dM \"*) echo \"$*\" >> {} ;; esac\nexec gcc \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&cc, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let args = [
        "--alg",
        "ML-KEM-512",
        "--impl",
        "pqclean/clean",
        "--cc",
        cc.to_str().unwrap(),
        "--flags",
        "-O1;-O2",
    ];
    let (code, first, err) = builds(&dir, &args);
    assert_eq!(code, 0, "{err}\n{first:#}");
    assert_eq!(first["builds"].as_array().unwrap().len(), 2, "{first:#}");
    let b = &first["builds"][0];
    let id = b["facts"]["implementation"].as_str().unwrap().to_string();
    assert!(
        id.starts_with("pqclean/clean@gcc-") && id.ends_with(":O1"),
        "{id}"
    );
    assert_eq!(b["compiled"]["status"], "built");
    assert_eq!(b["facts"]["gate"]["gate"], "passed", "{b:#}");
    assert_eq!(b["cached"], false);
    let compiles = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        compiles.lines().filter(|l| l.contains("-shared")).count(),
        2
    );

    let (code, second, err) = builds(&dir, &args);
    assert_eq!(code, 0, "{err}");
    assert!(second["builds"]
        .as_array()
        .unwrap()
        .iter()
        .all(|b| b["cached"] == true));
    assert_eq!(second["compiler_runs"], 0);
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        compiles,
        "the second invocation ran the compiler"
    );

    // The build is an implementation: listed, and measured by run with its facts recorded.
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &dir)
        .args(["list", "--builds", "--json"])
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed[0]["facts"]["implementation"], id.as_str());
    let (stdout, rec) =
        common::run_exchange(&dir, &["--alg", "ML-KEM-512", "--impl", "pqclean/clean@*"]);
    assert!(stdout.contains("Builds of ML-KEM-512"), "{stdout}");
    assert_eq!(rec["results"][0]["implementation"], id.as_str());
    assert_eq!(rec["results"][0]["correctness"]["status"], "pass");
    let facts = &rec["environment"]["builds"][0];
    assert_eq!(facts["implementation"], id.as_str());
    assert_eq!(facts["flags"], "-O1");
    assert!(facts["compiler_version"].as_str().unwrap().contains("gcc"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_compiler_and_a_rejected_flag_are_failed_builds_and_the_others_carry_on() {
    let dir = cache("failures");
    let (code, v, err) = builds(
        &dir,
        &[
            "--alg",
            "ML-KEM-512",
            "--impl",
            "pqclean/clean",
            "--cc",
            "kembench-no-such-cc,gcc",
            "--flags",
            "-O2;-O2 -mno-such-flag",
        ],
    );
    assert_eq!(code, 1, "{err}\n{v:#}");
    let all = v["builds"].as_array().unwrap();
    assert_eq!(all.len(), 4, "{v:#}");
    let find = |cc: &str, flags: &str| {
        all.iter()
            .find(|b| {
                b["facts"]["compiler"].as_str().unwrap().starts_with(cc)
                    && b["facts"]["flags"] == flags
            })
            .unwrap_or_else(|| panic!("{cc} {flags}: {v:#}"))
    };
    for flags in ["-O2", "-O2 -mno-such-flag"] {
        let b = find("kembench-no-such-cc", flags);
        assert_eq!(b["compiled"]["status"], "refused");
        assert!(b["compiled"]["detail"]
            .as_str()
            .unwrap()
            .contains("not found on PATH"));
    }
    let bad = find("gcc", "-O2 -mno-such-flag");
    assert_eq!(bad["compiled"]["status"], "failed");
    assert!(
        bad["compiled"]["detail"]
            .as_str()
            .unwrap()
            .contains("mno-such-flag"),
        "{bad:#}"
    );
    let good = find("gcc", "-O2");
    assert_eq!(good["compiled"]["status"], "built");
    assert_eq!(good["facts"]["gate"]["gate"], "passed");

    // Unknown names suggest the nearest, and nothing is built.
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &dir)
        .args(["builds", "--alg", "ML-KEM-76"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean ML-KEM-768"));
    // No filter at all: hundreds of builds are not started by accident.
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &dir)
        .arg("builds")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("say what to build"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every CPU lacks one of these (AMX is Intel's, SSE4a and XOP AMD's, XOP Bulldozer's alone):
/// the test refuses the first this CPU lacks, on any machine, instead of returning on one
/// that has AMX.
#[test]
fn a_build_for_a_feature_this_cpu_lacks_is_refused_not_run() {
    let flags = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let has = |f: &str| flags.split_whitespace().any(|w| w == f);
    let (flag, feature) = [
        ("-mamx-tile", "amx_tile"),
        ("-msse4a", "sse4a"),
        ("-mxop", "xop"),
    ]
    .into_iter()
    .find(|(_, f)| !has(f))
    .expect("this CPU has AMX, SSE4a and XOP: add a feature it lacks to this list");
    let dir = cache("refused");
    let (code, v, err) = builds(
        &dir,
        &[
            "--alg",
            "ML-KEM-512",
            "--impl",
            "pqclean/clean",
            "--cc",
            "gcc",
            "--flags",
            &format!("-O2 {flag}"),
        ],
    );
    assert_eq!(code, 1, "{err}");
    let b = &v["builds"][0];
    assert_eq!(b["compiled"]["status"], "refused", "{b:#}");
    let why = b["compiled"]["detail"].as_str().unwrap();
    assert!(
        why.contains(&format!("{feature}, which this CPU lacks")),
        "{why}"
    );
    assert!(!dir.join(b["key"].as_str().unwrap()).join("lib.so").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// clang, liboqs's own CMake build (portable and CPU-dispatched) and PQClean, each gated with
/// its known answers; a second invocation gates nothing; `--reverify` gates again and catches
/// a build whose shared object was changed behind the cache's back.
#[test]
fn clang_and_liboqs_cmake_builds_pass_their_known_answers_and_reverify_gates_again() {
    let dir = cache("clang-liboqs");
    let args = [
        "--alg",
        "ML-KEM-768",
        "--impl",
        "liboqs/generic,liboqs/auto,pqclean/clean",
        "--cc",
        "clang",
        "--flags",
        "-O2",
    ];
    let (code, first, err) = builds(&dir, &args);
    assert_eq!(code, 0, "{err}\n{first:#}");
    let all = first["builds"].as_array().unwrap();
    let ids: Vec<&str> = all
        .iter()
        .map(|b| b["facts"]["implementation"].as_str().unwrap())
        .collect();
    for source in ["liboqs/generic", "liboqs/auto", "pqclean/clean"] {
        assert!(
            ids.iter()
                .any(|id| id.starts_with(&format!("{source}@clang-")) && id.ends_with(":O2")),
            "{source}: {ids:?}"
        );
    }
    for b in all {
        assert_eq!(b["compiled"]["status"], "built", "{b:#}");
        assert!(b["facts"]["compiler_version"]
            .as_str()
            .unwrap()
            .contains("clang"));
        let gate = &b["facts"]["gate"];
        assert_eq!(gate["gate"], "passed", "{b:#}");
        // The known answers ran: ACVP's for every build, liboqs's own KAT digest or PQClean's.
        let detail = gate["detail"].as_str().unwrap();
        assert!(detail.contains("ACVP keyGen 4"), "{detail}");
        assert!(
            detail.contains("liboqs KAT") || detail.contains("NIST KAT"),
            "{detail}"
        );
    }
    assert_eq!(first["compiler_runs"], 3);

    let (code, second, err) = builds(&dir, &args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(second["compiler_runs"], 0);
    // Cached and verified by this kembench: no build is gated again (a count, not a time).
    for (b, first) in second["builds"].as_array().unwrap().iter().zip(all) {
        assert_eq!(b["cached"], true, "{b:#}");
        assert_eq!(b["gated_now"], false, "{b:#}");
        assert_eq!(first["gated_now"], true, "{first:#}");
    }

    // liboqs's generic build replaced on disk by PQClean's: only a gate run again can tell.
    let key = |source: &str| {
        all.iter()
            .find(|b| {
                b["facts"]["implementation"]
                    .as_str()
                    .unwrap()
                    .starts_with(source)
            })
            .map(|b| b["key"].as_str().unwrap().to_string())
            .unwrap()
    };
    std::fs::copy(
        dir.join(key("pqclean/clean")).join("lib.so"),
        dir.join(key("liboqs/generic")).join("lib.so"),
    )
    .unwrap();
    let mut reverify = args.to_vec();
    reverify.push("--reverify");
    let (code, third, err) = builds(&dir, &reverify);
    assert_eq!(code, 1, "{err}\n{third:#}");
    assert_eq!(third["compiler_runs"], 0);
    for b in third["builds"].as_array().unwrap() {
        let id = b["facts"]["implementation"].as_str().unwrap();
        let expected = if id.starts_with("liboqs/generic") {
            "failed"
        } else {
            "passed"
        };
        assert_eq!(b["facts"]["gate"]["gate"], expected, "{id}: {b:#}");
        assert_eq!(b["gated_now"], true, "--reverify gates every build: {b:#}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--flags` are split into words as a shell splits them: `-DKEMBENCH_MSG='a b'` is one flag
/// (the compiler gets `-DKEMBENCH_MSG=a b`; split at the space, `b'` went to the linker as a
/// file), and a `;` inside quotes does not end the flag set. An unbalanced quote is a usage
/// error.
#[test]
fn flags_are_split_as_a_shell_splits_them() {
    let dir = cache("shell-flags");
    let (code, v, err) = builds(
        &dir,
        &[
            "--alg",
            "ML-KEM-512",
            "--impl",
            "pqclean/clean",
            "--cc",
            "gcc",
            "--flags",
            "-O2 -DKEMBENCH_MSG='a b' -DKEMBENCH_SEP='c;d'",
        ],
    );
    assert_eq!(code, 0, "{err}\n{v:#}");
    let all = v["builds"].as_array().unwrap();
    assert_eq!(all.len(), 1, "one flag set: {v:#}");
    let b = &all[0];
    assert_eq!(b["compiled"]["status"], "built", "{b:#}");
    assert_eq!(b["facts"]["gate"]["gate"], "passed", "{b:#}");
    assert_eq!(
        b["facts"]["flags"],
        "-O2 '-DKEMBENCH_MSG=a b' '-DKEMBENCH_SEP=c;d'"
    );

    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &dir)
        .args(["builds", "--alg", "ML-KEM-512", "--impl", "pqclean/clean"])
        .args(["--cc", "gcc", "--flags", "-O2 -DKEMBENCH_MSG='a b"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("unbalanced quote"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A build id is matched literally by its own gate and by `--impl`: flags with glob
/// characters (`-DKEMBENCH_A=[1]`, a character class as a glob, which matched no id) and with
/// commas (`-Wl,-O1`, which cut the gate's `--impl` in two) make builds that pass their gate,
/// and naming the `[1]` build selects it alone, not its `=1` sibling too.
#[test]
fn a_build_id_with_glob_characters_or_commas_passes_its_own_gate() {
    let dir = cache("literal-ids");
    let (code, v, err) = builds(
        &dir,
        &[
            "--alg",
            "ML-KEM-512",
            "--impl",
            "pqclean/clean",
            "--cc",
            "gcc",
            "--flags",
            "-O2 -DKEMBENCH_A=[1];-O2 -DKEMBENCH_A=1;-O2 -Wl,-O1",
        ],
    );
    assert_eq!(code, 0, "{err}\n{v:#}");
    let all = v["builds"].as_array().unwrap();
    assert_eq!(all.len(), 3, "{v:#}");
    for b in all {
        assert_eq!(b["facts"]["gate"]["gate"], "passed", "{b:#}");
    }
    let id = all
        .iter()
        .map(|b| b["facts"]["implementation"].as_str().unwrap())
        .find(|id| id.ends_with(":O2+DKEMBENCH_A=[1]"))
        .unwrap()
        .to_string();
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &dir)
        .args(["verify", "--json", "--alg", "ML-KEM-512", "--impl", &id])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = report["implementations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["implementation"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [id.as_str()]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A long flag set makes a long build id; the table keeps the result column readable within
/// 120 columns (the id wraps) instead of squeezing it to one character (the error printed one
/// letter per line).
#[test]
fn a_long_flag_set_leaves_the_result_column_readable() {
    let dir = cache("long-flags");
    let defines: String = (0..12)
        .map(|i| format!(" -DKEMBENCH_LONG_FLAG_{i}=1"))
        .collect();
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &dir)
        .args(["builds", "--alg", "ML-KEM-512", "--impl", "pqclean/clean"])
        .args(["--cc", "gcc", "--flags"])
        .arg(format!("-O2{defines} -mno-such-flag"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    // The id alone is wider than 120 columns: it is drawn whole (a user copies it), so the
    // lines that hold it are as wide as it needs; every other line fits.
    let id: String = std::iter::once("ML-KEM-512@pqclean/clean@gcc-12:O2".to_string())
        .chain((0..12).map(|i| format!("+DKEMBENCH_LONG_FLAG_{i}=1")))
        .chain(std::iter::once("+mno-such-flag".to_string()))
        .collect();
    assert!(id.chars().count() > 120);
    assert!(stdout.lines().any(|l| l.contains(&id)), "{id}\n{stdout}");
    // The result column's words are whole: at least "compile failed" on one line.
    assert!(stdout.contains("compile failed"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A registry whose sources cannot be read is said as such, with the operating system's
/// reason, and nothing is built (exit 3), instead of "no source matches". Root reads any
/// file whatever its mode, so the unreadable source here is a file where the crate's folder
/// should be (`KEMBENCH_SRC_*` at run time names the crate's copy), and a folder that is gone.
#[test]
fn sources_that_cannot_be_read_are_said_with_the_reason() {
    let dir = cache("unreadable");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("not-a-folder");
    std::fs::write(&file, "").unwrap();
    let run = |var: &str, path: &Path, args: &[&str]| {
        kembench()
            .env("KEMBENCH_BUILD_DIR", dir.join("cache"))
            .env(var, path)
            .arg("builds")
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(
        "KEMBENCH_SRC_PQCRYPTO_MLKEM",
        &file,
        &["--alg", "ML-KEM-768", "--impl", "pqclean/clean"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("ML-KEM-768@pqclean:"), "{err}");
    assert!(err.contains("cannot be read: Not a directory"), "{err}");
    assert!(!err.contains("no source"), "{err}");
    let out = run(
        "KEMBENCH_SRC_OQS_SYS",
        &dir.join("gone"),
        &["--alg", "ML-KEM-512", "--impl", "liboqs/generic"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("ML-KEM-512@liboqs:"), "{err}");
    assert!(err.contains("No such file or directory"), "{err}");
    assert!(!dir.join("cache").exists(), "nothing was built");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shards_of_a_build_matrix_build_each_combination_once() {
    let dir = cache("shards");
    // Compilers that do not exist: every combination is settled at once (refused, never
    // cached), so the split is seen without compiling.
    let args = [
        "--alg",
        "ML-KEM-512,ML-KEM-768,ML-KEM-1024",
        "--impl",
        "pqclean/clean",
        "--cc",
        "no-such-cc-a,no-such-cc-b",
        "--flags",
        "-O1;-O2;-O3",
    ];
    let ids = |json: &Value| -> Vec<String> {
        json["builds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                format!(
                    "{}@{}",
                    b["algorithm"].as_str().unwrap(),
                    b["facts"]["implementation"].as_str().unwrap()
                )
            })
            .collect()
    };
    let (_, whole, err) = builds(&dir, &args);
    let mut all = ids(&whole);
    assert_eq!(all.len(), 18, "{err}\n{whole:#}");
    all.sort();
    let mut union = Vec::new();
    for k in 1..=4 {
        let shard = format!("{k}/4");
        let mut a = args.to_vec();
        a.extend(["--shard", &shard]);
        let (_, part, err) = builds(&dir, &a);
        assert!(
            err.contains(&format!("builds: shard {k}/4: "))
                && err.contains("of the 18 planned builds"),
            "{err}"
        );
        let part = ids(&part);
        assert!((3..=6).contains(&part.len()), "shard {k}: {part:?}");
        union.extend(part);
    }
    union.sort();
    assert_eq!(
        union, all,
        "the shards together are not the matrix, once each"
    );
    let (code, _, err) = builds(&dir, &["--alg", "ML-KEM-512", "--shard", "3/2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("there is no shard 3 of 2"), "{err}");
}
