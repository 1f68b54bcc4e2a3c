//! CLI tests of `kembench profile`, under the real valgrind: exact counts that repeat, the
//! SHA-3 cross-check of the primitive classifier (liboqs's own SHA-3 and OpenSSL's), comparing profiles, flame graphs, a crash
//! under valgrind, and valgrind missing.

mod common;

use common::{kembench, kembench_at};
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("kembench-profile-{}-{name}", std::process::id()))
}

/// `profile ARGS --json FILE` into `store`; the record.
fn profile(store: &Path, name: &str, args: &[&str]) -> Value {
    common::profile_record(kembench_at(store), &temp(&format!("{name}.json")), args)
}

/// (label, operation) → instructions per seed.
fn counts(v: &Value) -> Vec<(String, String, Vec<u64>)> {
    let mut out = Vec::new();
    for r in v["results"].as_array().unwrap() {
        let label = format!(
            "{}@{}",
            r["algorithm"].as_str().unwrap(),
            r["implementation"].as_str().unwrap()
        );
        for o in r["operations"].as_array().unwrap() {
            let per: Vec<u64> = o["instructions"]["per_seed"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            out.push((
                label.clone(),
                o["operation"].as_str().unwrap().to_string(),
                per,
            ));
        }
    }
    out
}

/// `kembench profile ARGS --no-store --json FILE`, which must succeed: its stdout and the
/// record.
fn profile_unstored(name: &str, args: &[&str]) -> (String, Value) {
    let args = [args, &["--no-store"]].concat();
    common::command_output_record(kembench(), "profile", &temp(&format!("{name}.json")), &args)
}

/// A result's operations.
fn ob_ops(r: &Value) -> &Vec<Value> {
    r["operations"].as_array().unwrap()
}

/// The instructions of `primitive`'s share in one operation's analysis.
fn share_instructions(analysis: &Value, primitive: &str) -> u64 {
    analysis["shares"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["primitive"] == primitive)
        .unwrap()["instructions"]
        .as_u64()
        .unwrap()
}

#[test]
fn two_profiles_of_the_same_build_count_identically_and_compare_as_one() {
    let store = temp("same.sqlite");
    let args = [
        "--include-mock",
        "--impl",
        "mock/correct,liboqs",
        "--alg",
        "MockKEM,ML-KEM-768",
        "--seeds",
        "2",
        "--cpus",
        "znver4,sapphirerapids",
    ];
    let a = profile(&store, "a", &args);
    let b = profile(&store, "b", &args);
    let (ca, cb) = (counts(&a), counts(&b));
    // Estimated cycles from callgrind's per-instruction counts, priced by LLVM 19's models of
    // two CPUs this machine is not: the same in both profiles, almost every instruction priced.
    assert_eq!(
        a["config"]["cpus"][0]["model"], "znver4",
        "{:#}",
        a["config"]
    );
    for (ra, rb) in a["results"]
        .as_array()
        .unwrap()
        .iter()
        .zip(b["results"].as_array().unwrap())
    {
        for (oa, ob) in ra["operations"].as_array().unwrap().iter().zip(ob_ops(rb)) {
            let e = oa["estimates"].as_array().unwrap();
            let cpus: Vec<&str> = e.iter().map(|x| x["cpu"].as_str().unwrap()).collect();
            assert_eq!(cpus, ["znver4", "sapphirerapids"], "{oa:#}");
            assert_eq!(
                oa["estimates"], ob["estimates"],
                "identical across profiles"
            );
            let n = oa["analysis"]["instructions"].as_u64().unwrap();
            for x in e {
                let priced = x["priced_instructions"].as_u64().unwrap();
                let unpriced = x["unpriced_instructions"].as_u64().unwrap();
                assert_eq!(priced + unpriced, n, "every counted instruction: {x:#}");
                assert!(unpriced * 50 < n, "at least 98% priced: {x:#}");
                let cycles = x["cycles"].as_u64().unwrap();
                assert!(
                    cycles > n / 8 && cycles < n * 4,
                    "{cycles} cycles, {n} instructions"
                );
            }
        }
    }
    assert_eq!(ca.len(), 6, "{ca:?}");
    assert_eq!(
        ca, cb,
        "the same seeds and binary must give the same counts"
    );
    for (label, op, per) in &ca {
        assert!(per.iter().all(|&n| n > 0), "{label} {op}: {per:?}");
    }
    for r in a["results"].as_array().unwrap() {
        assert_eq!(r["randomness"]["fixed"], true, "{r}");
        for o in r["operations"].as_array().unwrap() {
            let an = &o["analysis"];
            let total = an["instructions"].as_u64().unwrap();
            let shares: u64 = an["shares"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["instructions"].as_u64().unwrap())
                .sum();
            assert_eq!(shares, total);
            assert!(!an["tree"]["children"].as_array().unwrap().is_empty());
        }
    }
    let ids: Vec<String> = common::runs(&store)
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2);
    let out = kembench_at(&store)
        .args(["compare", &ids[1], &ids[0], "--fail-on-regression", "0"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("1.000"), "{text}");
    assert!(text.contains("No function's self count changed."), "{text}");
    assert!(
        text.contains("Estimated cycles per CPU (model estimate"),
        "{text}"
    );
    assert!(
        text.contains("on sapphirerapids: ") && text.contains("(×1.000)"),
        "{text}"
    );
    let dir = temp("diff-flames");
    let _ = std::fs::remove_dir_all(&dir);
    kembench_at(&store)
        .args(["compare", &ids[1], &ids[0], "--flamegraphs"])
        .arg(&dir)
        .assert()
        .success();
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 6);
}

/// liboqs with its own SHA-3 and with OpenSSL's (`liboqs/openssl-sha3`): under the probe, the
/// share inside the SHA-3 callbacks agrees with the classifier's Keccak share for both (the
/// probe forwards to the thread's backend, and OpenSSL's SHA-3 is classified as hashing), and
/// the two are set beside the bound.
#[test]
fn the_keccak_share_of_liboqs_ml_kem_768_agrees_with_its_sha3_callbacks() {
    let (text, v) = profile_unstored(
        "probe",
        &[
            "--alg",
            "ML-KEM-768",
            "--impl",
            "liboqs,liboqs/openssl-sha3",
            "--seeds",
            "1",
            "--sha3-probe",
        ],
    );
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{text}");
    let mut keccak_of = Vec::new();
    for r in results {
        let mut keccak = 0;
        for o in r["operations"].as_array().unwrap() {
            let an = &o["analysis"];
            let total = an["instructions"].as_u64().unwrap() as f64;
            let probe: u64 = an["folded"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["stack"].as_str().unwrap().contains("kembench_sha3_probe"))
                .map(|f| f["instructions"].as_u64().unwrap())
                .sum();
            keccak += share_instructions(an, "keccak");
            let (p, k) = (
                probe as f64 / total,
                share_instructions(an, "keccak") as f64 / total,
            );
            let what = format!("{} {}", r["implementation"], o["operation"]);
            assert!(p > 0.2, "{what}: the callbacks saw {p}");
            assert!(
                (p - k).abs() <= 0.02,
                "{what}: callbacks {:.1}% vs classifier {:.1}%",
                100.0 * p,
                100.0 * k
            );
        }
        keccak_of.push((r["implementation"].as_str().unwrap().to_string(), keccak));
    }
    assert!(text.contains("SHA-3 cross-check"), "{text}");
    assert!(
        text.contains("@liboqs/openssl-sha3 keygen   callbacks"),
        "{text}"
    );
    // The two SHA-3s differ (OpenSSL's is not liboqs's own), and are set beside the bound.
    assert_ne!(keccak_of[0].1, keccak_of[1].1, "{keccak_of:?}");
    // The console wraps sentences: compare with single spaces.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "A real SHA-3 alternative beside the bound",
        "with OpenSSL's SHA-3 through liboqs's callbacks (liboqs/openssl-sha3)",
        "If SHA-3 cost nothing, liboqs's exchange would take",
    ] {
        assert!(words.contains(said), "{said}: {text}");
    }
}

#[test]
fn flame_graphs_are_written_per_operation_and_between_implementations() {
    let dir = temp("flames");
    let _ = std::fs::remove_dir_all(&dir);
    kembench()
        .args([
            "profile",
            "--alg",
            "ML-KEM-512",
            "--impl",
            "pqclean/clean,pqclean/avx2",
            "--seeds",
            "1",
            "--ops",
            "keygen",
            "--no-store",
            "--flamegraphs",
        ])
        .arg(&dir)
        .assert()
        .success()
        .stdout(predicate::str::contains("Hot path"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 3, "{names:?}");
    for n in &names {
        let svg = std::fs::read_to_string(dir.join(n)).unwrap();
        assert!(svg.contains("<svg"), "{n}");
        assert!(svg.contains("ML-KEM-512"), "{n}");
    }
    assert!(names.iter().any(|n| n.contains("-vs-")), "{names:?}");
}

#[test]
fn a_crash_or_a_hang_is_recorded_and_the_others_are_profiled() {
    let path = temp("crash.json");
    let out = kembench()
        .env("KEMBENCH_MOCK_FAULTS", "1")
        .env("KEMBENCH_MOCK_FAULT_AFTER", "1")
        .args([
            "profile",
            "--include-mock",
            "--impl",
            "mock/crash,mock/hang,mock/correct",
            "--alg",
            "MockKEM",
            "--seeds",
            "1",
            "--timeout",
            "15",
            "--no-store",
            "--json",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    let by = |i: &str| results.iter().find(|r| r["implementation"] == i).unwrap();
    assert_eq!(
        by("mock/crash")["failure"]["kind"],
        "crashed",
        "{}",
        by("mock/crash")
    );
    assert_eq!(
        by("mock/hang")["failure"]["kind"],
        "timed-out",
        "{}",
        by("mock/hang")
    );
    assert_eq!(
        by("mock/correct")["operations"].as_array().unwrap().len(),
        3
    );
}

#[test]
fn without_valgrind_profile_says_how_to_install_it() {
    kembench()
        .env("KEMBENCH_VALGRIND", "/nonexistent/valgrind")
        .args([
            "profile",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--no-store",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("apt-get install valgrind"));
}

#[test]
fn run_instructions_records_exact_counts_beside_the_times() {
    let path = temp("run-instructions.json");
    let out = kembench()
        .args([
            "run",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--no-store",
        ])
        .args(common::FAST)
        .args(["--rounds", "1", "--instructions", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Instructions of one call under callgrind")
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let ops = v["results"][0]["operations"].as_array().unwrap();
    assert!(!ops.is_empty());
    for o in ops {
        assert!(o["callgrind_instructions"].as_u64().unwrap() > 0, "{o}");
    }
}

/// The folders a profile writes into are made before anything is measured: one that cannot be
/// made stops the command at once (before, it profiled first and then failed with exit 3 and
/// its tables unprinted).
#[test]
fn an_output_folder_that_cannot_be_made_stops_profile_before_it_measures() {
    let store = temp("no-folder.sqlite");
    for flag in ["--flamegraphs", "--callgrind-out"] {
        let out = kembench_at(&store)
            .args([
                "profile",
                "--include-mock",
                "--impl",
                "mock/correct",
                "--seeds",
                "1",
                "--ops",
                "encaps",
                flag,
                "/proc/kembench-cannot-make-this",
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{flag}: {stderr}");
        assert!(
            stderr.contains(&format!("{flag}: cannot create")),
            "{stderr}"
        );
        assert!(
            !stderr.contains("under callgrind"),
            "nothing profiled: {stderr}"
        );
        assert!(!store.exists(), "no run recorded: {stderr}");
    }
}

/// `profile --resume`: a profile stopped by Ctrl-C is kept, interrupted, and says how to
/// resume; resuming profiles what it had not finished, with the run's own configuration (one
/// seed, keygen alone, whatever the resuming command line says), and completes it.
#[test]
fn an_interrupted_profile_is_resumed_and_completed_with_its_own_configuration() {
    let store = temp("resume.sqlite");
    let mut child = common::spawn(
        &store,
        &[
            "profile",
            "--include-mock",
            "--impl",
            "mock/correct,mock/slow",
            "--ops",
            "keygen",
            "--seeds",
            "1",
            "--jobs",
            "1",
        ],
    );
    let id = common::wait_for_run(&store, &mut child);
    common::signal(&child, libc::SIGINT);
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(130), "{said}");
    assert!(
        said.contains(&format!("kembench profile --resume {id}")),
        "{said}"
    );
    let listed = common::runs(&store);
    assert_eq!(listed[0]["status"], "interrupted", "{listed:?}");
    assert!(listed[0]["results"].as_u64().unwrap() < 2, "{listed:?}");

    let file = temp("resumed.json");
    let out = kembench_at(&store)
        .env("KEMBENCH_MOCK_FAULTS", "1")
        .args(["profile", "--resume", "latest", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("Resuming profile {id}")));
    let listed = common::runs(&store);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["status"], "complete", "{listed:?}");
    assert_eq!(listed[0]["results"], 2, "{listed:?}");
    let v: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(v["run_id"], id.as_str());
    assert_eq!(v["config"]["seeds"], 1, "the run's own seeds");
    assert_eq!(v["resumed_at"].as_array().unwrap().len(), 1, "{v}");
    for r in v["results"].as_array().unwrap() {
        let ops: Vec<&str> = r["operations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["operation"].as_str().unwrap())
            .collect();
        assert_eq!(ops, ["keygen"], "{r}");
    }
    // A complete profile has nothing to resume; a latency run is not a profile.
    kembench_at(&store)
        .args(["profile", "--resume", &id])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is complete; there is nothing to resume",
        ));
    kembench_at(&store)
        .args(["profile", "--resume", "latest", "--no-store"])
        .assert()
        .code(2);
    let _ = std::fs::remove_file(&store);
}

/// libcrux's AVX2 ML-KEM inlines its four-way Keccak into `generate_keypair_avx2`, where
/// callgrind's call chain alone sees none of it. The Keccak share looks through the inlined
/// frames, and agrees within 3 points with an independent reading of the same dump: GNU
/// `addr2line -i` (binutils' DWARF reader, not the `gimli` kembench uses) over every address of
/// the kembench binary in it, counting each instruction where any frame's code comes from
/// libcrux's SHA-3 crate or ML-KEM's hash module.
#[test]
fn libcrux_avx2_keccak_share_looks_through_inlined_frames() {
    let dir = temp("inline-dumps");
    let _ = std::fs::remove_dir_all(&dir);
    let (_, v) = profile_unstored(
        "inline",
        &[
            "--alg",
            "ML-KEM-768",
            "--impl",
            "libcrux/avx2",
            "--ops",
            "keygen",
            "--seeds",
            "1",
            "--callgrind-out",
            dir.to_str().unwrap(),
        ],
    );
    let an = &v["results"][0]["operations"][0]["analysis"];
    let total = an["instructions"].as_u64().unwrap();
    let keccak = share_instructions(an, "keccak");
    let inlined = an["inlined_instructions"].as_u64().unwrap();
    let share = keccak as f64 / total as f64;
    assert!(share > 0.6, "Keccak {:.1}% of keygen", 100.0 * share);
    assert!(
        inlined as f64 > 0.2 * total as f64,
        "only {inlined} of {total} decided by inlined frames"
    );

    // The independent reading.
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_kembench"));
    let dump = dir.join("ML-KEM-768@libcrux_avx2/seed0/keygen.callgrind");
    let text = std::fs::read_to_string(&dump).unwrap();
    let (mut object, mut fn_object) = (String::new(), String::new());
    let (mut in_call, mut skip) = (false, false);
    let mut ours: std::collections::BTreeMap<u64, u64> = Default::default();
    let mut sum = 0;
    for line in text.lines() {
        if let Some(o) = line.strip_prefix("ob=") {
            object = o.to_string();
        } else if line.starts_with("fn=") {
            fn_object = object.clone();
        } else if line.starts_with("calls=") {
            in_call = true;
        } else if line.starts_with("jump=") || line.starts_with("jcnd=") {
            skip = true;
        } else if line.starts_with("0x") {
            if std::mem::take(&mut skip) || std::mem::take(&mut in_call) {
                continue;
            }
            // `--dump-instr=yes --compress-pos=no`: address, line, then Ir.
            let f: Vec<&str> = line.split_whitespace().collect();
            let address = u64::from_str_radix(&f[0][2..], 16).unwrap();
            let ir: u64 = f.get(2).map_or(0, |x| x.parse().unwrap());
            sum += ir;
            if Path::new(&fn_object) == exe.as_path() {
                *ours.entry(address).or_default() += ir;
            }
        }
    }
    assert_eq!(sum, total, "the dump's instructions are the profile's");
    let input: String = ours.keys().map(|a| format!("{a:#x}\n")).collect();
    let mut child = std::process::Command::new("addr2line")
        .args(["-i", "-a", "-e"])
        .arg(&exe)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("binutils' addr2line (apt-get install binutils)");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(input.as_bytes()).unwrap();
    });
    let listing = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let listing = String::from_utf8(listing.stdout).unwrap();
    let hashing = |l: &str| {
        l.contains("/libcrux-sha3-")
            || (l.contains("/libcrux-ml-kem-") && l.contains("/src/hash_functions"))
    };
    let (mut at, mut independent) = (None, 0u64);
    let mut counted = false;
    for l in listing.lines() {
        if let Some(hex) = l.strip_prefix("0x") {
            at = Some(u64::from_str_radix(hex, 16).unwrap());
            counted = false;
        } else if hashing(l) && !counted {
            independent += ours[&at.unwrap()];
            counted = true;
        }
    }
    let other = independent as f64 / total as f64;
    assert!(
        (share - other).abs() <= 0.03,
        "kembench {:.1}% vs addr2line {:.1}%",
        100.0 * share,
        100.0 * other
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `profile --baseline`: the same profile passes at +0.000%; a baseline that executed fewer
/// instructions makes the gate fail, exit 1, naming the operation, with the Markdown summary
/// written; bad gates are refused before anything is profiled.
#[test]
fn the_gate_on_exact_counts_passes_the_same_and_fails_more() {
    let base = temp("gate-base.json");
    let mock = ["--include-mock", "--impl", "mock/correct", "--seeds", "1"];
    profile_unstored("gate-base", &mock);
    let gate = |baseline: &Path, extra: &[&str]| {
        kembench()
            .arg("profile")
            .args(mock)
            .args(["--no-store", "--baseline"])
            .arg(baseline)
            .args(extra)
            .output()
            .unwrap()
    };
    let summary = temp("gate-summary.md");
    let same = gate(&base, &["--summary", summary.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&same.stdout);
    assert!(same.status.success(), "{text}");
    assert!(
        text.contains("Gate: passed") && text.contains("+0.000%"),
        "{text}"
    );
    assert!(std::fs::read_to_string(&summary)
        .unwrap()
        .contains("| MockKEM@mock/correct | keygen |"));

    // A baseline whose keygen executed 10% fewer instructions: this profile is 11% more.
    let mut v: Value = serde_json::from_slice(&std::fs::read(&base).unwrap()).unwrap();
    let op = &mut v["results"][0]["operations"][0];
    let n = op["instructions"]["median"].as_u64().unwrap() * 9 / 10;
    op["instructions"] = serde_json::json!({"per_seed": [n], "min": n, "median": n, "max": n});
    let cheaper = temp("gate-cheaper.json");
    std::fs::write(&cheaper, serde_json::to_vec(&v).unwrap()).unwrap();
    let worse = gate(&cheaper, &[]);
    let text = String::from_utf8_lossy(&worse.stdout);
    assert_eq!(worse.status.code(), Some(1), "{text}");
    assert!(
        text.contains("Gate: FAILED: 1 operation(s)")
            && text.contains("MockKEM@mock/correct keygen +11.1"),
        "{text}"
    );
    // A 20% threshold lets it pass.
    assert!(gate(&cheaper, &["--threshold", "20"]).status.success());

    // Refused, exit 2, before profiling: a threshold out of range, a malformed or unknown
    // pair, a baseline of another kind, a baseline with nothing in common.
    for (extra, says) in [
        (vec!["--threshold", "101"], "from 0 to 100"),
        (vec!["--threshold=-1"], "from 0 to 100"),
        (vec!["--pair", "nothing"], "OLD=NEW"),
        (
            vec!["--pair", "mock/other=mock/correct"],
            "no implementation mock/other",
        ),
        (vec!["--json", base.to_str().unwrap()], "refusing to write"),
        (
            vec!["--summary", base.to_str().unwrap()],
            "refusing to write",
        ),
    ] {
        let out = gate(&base, &extra);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(says),
            "{extra:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A baseline from a newer kembench's schema is refused, naming the schemas.
    let mut newer: Value = serde_json::from_slice(&std::fs::read(&base).unwrap()).unwrap();
    newer["schema_version"] = serde_json::json!(999);
    let newer_path = temp("gate-newer.json");
    std::fs::write(&newer_path, serde_json::to_vec(&newer).unwrap()).unwrap();
    let out = gate(&newer_path, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("999") && err.contains("schema"), "{err}");
    let run = temp("gate-run.json");
    let run_args = [
        &["--include-mock", "--impl", "mock/correct", "--no-store"][..],
        &common::FAST[..],
    ]
    .concat();
    common::command_record(kembench(), "run", &run, &run_args);
    let out = gate(&run, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a profile"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = kembench()
        .args([
            "profile",
            "--include-mock",
            "--impl",
            "mock/broken",
            "--seeds",
            "1",
            "--no-store",
            "--baseline",
        ])
        .arg(&base)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("nothing in common"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `profile --baseline` on an implementation whose draws no seed fixes (`mock/unfixed`, as the
/// PQClean crates and prebuilt libraries): its counts are gated by their ranges over seeds (a
/// range entirely above the baseline's fails, exit 1, saying how it was judged; ranges that
/// overlap pass as within the draws' spread); what the gate cannot compare (one seed; another
/// valgrind) fails, exit 1, naming the fix, and passes only with `--allow-ungated`.
#[test]
fn the_gate_judges_unfixed_draws_by_their_ranges_and_fails_what_it_cannot_compare() {
    let unfixed = |seeds: &'static str| {
        [
            "--include-mock",
            "--impl",
            "mock/unfixed",
            "--ops",
            "keygen",
            "--seeds",
            seeds,
        ]
    };
    let mut cmd = kembench();
    cmd.env("KEMBENCH_MOCK_PROFILE", "1");
    let base_path = temp("unfixed-base.json");
    let (_, base) = common::command_output_record(
        cmd,
        "profile",
        &base_path,
        &[&unfixed("3")[..], &["--no-store"]].concat(),
    );
    let result = &base["results"][0];
    assert_eq!(result["randomness"]["fixed"], false, "{result}");
    let spread = &result["operations"][0]["instructions"];
    let (min, max) = (
        spread["min"].as_u64().unwrap(),
        spread["max"].as_u64().unwrap(),
    );
    // A baseline of the same build whose keygen counted `per_seed` (and, when given, under
    // another valgrind).
    let baseline = |name: &str, per_seed: &[u64], valgrind: Option<&str>| {
        let mut v = base.clone();
        let mut sorted = per_seed.to_vec();
        sorted.sort_unstable();
        v["results"][0]["operations"][0]["instructions"] = serde_json::json!({
            "per_seed": per_seed,
            "min": sorted[0],
            "median": sorted[(sorted.len() - 1) / 2],
            "max": sorted[sorted.len() - 1],
        });
        if let Some(vg) = valgrind {
            v["valgrind"] = serde_json::json!(vg);
        }
        let path = temp(&format!("unfixed-{name}.json"));
        std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
        path
    };
    let gate = |baseline: &Path, seeds: &'static str, extra: &[&str]| {
        let out = kembench()
            .env("KEMBENCH_MOCK_PROFILE", "1")
            .arg("profile")
            .args(unfixed(seeds))
            .args(["--no-store", "--baseline"])
            .arg(baseline)
            .args(extra)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.code(), text)
    };

    // A baseline whose every seed counted far fewer: a range entirely below.
    // (Counts far below any the mock can give: its draws change how much it hashes, so a
    // fraction of one run's fewest is not safely below another run's.)
    let below = baseline("below", &[100, 101, 102], None);
    let (code, text) = gate(&below, "3", &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("Gate: FAILED: 1 operation(s)")
            && text.contains("MockKEM@mock/unfixed keygen +")
            && text.contains(
                "(random draws not fixed: its range over seeds lies above the baseline's)"
            ),
        "{text}"
    );

    // A baseline whose median is half, but whose range spans this build's: within the spread.
    let wide = baseline("wide", &[min / 2, min / 2, max * 2], None);
    let (code, text) = gate(&wide, "3", &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("Gate: passed")
            && text.contains("1 whose random draws the seed did not fix gated by their ranges")
            && text.contains("random draws not fixed: within the seeds' spread"),
        "{text}"
    );

    // One seed on each side: nothing to judge a doubling by.
    let one = baseline("one", &[100], None);
    let (code, text) = gate(&one, "1", &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("Gate: FAILED: not gated: 1 operation(s)")
            && text.contains("MockKEM@mock/unfixed keygen")
            && text.contains("--seeds 3")
            && text.contains("--allow-ungated"),
        "{text}"
    );
    let (code, text) = gate(&one, "1", &["--allow-ungated"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("Gate: NOT GATED (accepted by --allow-ungated)"),
        "{text}"
    );

    // Another valgrind: counts of another provenance are not compared, and that fails.
    let other = baseline(
        "valgrind",
        &[min / 2, min / 2, max * 2],
        Some("valgrind-3.99.0"),
    );
    let (code, text) = gate(&other, "3", &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("Gate: FAILED: not gated: the counts are not comparable")
            && text.contains("valgrind-3.99.0")
            && text.contains("profile the baseline again under the same valgrind")
            && text.contains("--allow-ungated"),
        "{text}"
    );
    let (code, text) = gate(&other, "3", &["--allow-ungated"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("Gate: NOT GATED (accepted by --allow-ungated)"),
        "{text}"
    );
    // The flag is refused without a baseline.
    let out = kembench()
        .args([
            "profile",
            "--include-mock",
            "--impl",
            "mock/correct",
            "--allow-ungated",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
