//! `kembench builds --arch`: PQClean's sources cross-compiled with Debian's real cross
//! compilers, run under QEMU's user-mode emulator, and gated there (known answers, and
//! interoperability with this machine's implementations). These tests need `qemu-user` and
//! `gcc-s390x-linux-gnu` (scripts/setup installs both) and fail without them.

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

/// ML-KEM-768 from PQClean's portable C, for s390x, by gcc at -O2.
const S390X_O2: [&str; 10] = [
    "--alg",
    "ML-KEM-768",
    "--impl",
    "pqclean/clean",
    "--arch",
    "s390x",
    "--cc",
    "gcc",
    "--flags",
    "-O2",
];

#[test]
fn an_s390x_build_passes_its_known_answers_and_interoperates_with_this_machine() {
    let dir = cache("s390x");
    let (code, v, err) = builds(&dir, &S390X_O2);
    assert_eq!(code, 0, "{err}\n{v:#}");
    let b = &v["builds"][0];
    let id = b["facts"]["implementation"].as_str().unwrap();
    assert!(
        id.starts_with("pqclean/clean@gcc-") && id.ends_with(":O2@s390x"),
        "{id}"
    );
    assert_eq!(b["facts"]["arch"], "s390x");
    // The gate ran under qemu-s390x: NIST's known answers through kembench's DRBG.
    let gate = b["facts"]["gate"]["detail"].as_str().unwrap();
    assert_eq!(b["facts"]["gate"]["gate"], "passed", "{v:#}");
    assert!(gate.contains("NIST KAT") && gate.contains("ACVP"), "{gate}");
    // A static big-endian program, really: the cross compiler made an s390x ELF.
    let program = dir.join(b["key"].as_str().unwrap()).join("driver");
    let elf = std::fs::read(&program).unwrap();
    assert_eq!(&elf[..4], b"\x7fELF");
    assert_eq!(elf[5], 2, "ELFDATA2MSB: big-endian");
    assert_eq!(u16::from_be_bytes([elf[18], elf[19]]), 22, "EM_S390");

    // Interoperability across architectures: keys, ciphertexts and secrets made on s390x are
    // accepted by liboqs and libcrux on x86-64, and the reverse.
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &dir)
        .args(["verify", "--json", "--alg", "ML-KEM-768", "--impl"])
        .arg(format!("{id},liboqs,libcrux/portable"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mine = r["implementations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["implementation"] == id)
        .unwrap();
    assert_eq!(mine["checks"]["interop"]["status"], "pass", "{mine:#}");
    assert_eq!(mine["checks"]["interop"]["detail"], "2 peers", "{mine:#}");

    // A second call reuses it; `list --builds` names the architecture.
    let (code, again, err) = builds(&dir, &S390X_O2);
    assert_eq!(code, 0, "{err}");
    assert_eq!(again["builds"][0]["cached"], true, "{again:#}");
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &dir)
        .args(["list", "--builds"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains("s390x"), "{listed}");

    // Counted: `profile` runs it under qemu-s390x with kembench's plugin (built on first use
    // into the build cache); two runs give the same counts, instruction for instruction, and
    // the same cycle estimates for z16 and z15 (llvm-mca 19's models of them).
    let profile = |name: &str| {
        let json = dir.join(name);
        let out = kembench()
            .env("KEMBENCH_BUILD_DIR", &dir)
            .args([
                "profile",
                "--no-store",
                "--seeds",
                "2",
                "--cpus",
                "default",
                "--alg",
                "ML-KEM-768",
                "--impl",
            ])
            .arg(id)
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{said}");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (v, String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (first, stdout) = profile("p1.json");
    let (second, _) = profile("p2.json");
    let r = &first["results"][0];
    assert_eq!(r["correctness"]["status"], "pass", "{r:#}");
    let ops = r["operations"].as_array().unwrap();
    assert!(ops.len() >= 3, "{r:#}");
    for (a, b) in ops
        .iter()
        .zip(second["results"][0]["operations"].as_array().unwrap())
    {
        assert_eq!(
            a["instructions"], b["instructions"],
            "identical across runs"
        );
        let e = &a["emulated"];
        assert_eq!(e["arch"], "s390x");
        assert!(e["emulator"]
            .as_str()
            .unwrap()
            .starts_with("qemu-s390x version"));
        assert!(e["loads"].as_u64().unwrap() > 0 && e["stores"].as_u64().unwrap() > 0);
        let n = a["instructions"]["median"].as_u64().unwrap();
        assert!((100_000..10_000_000).contains(&n), "{n}");
        // Keccak, by PQClean's function names, and the mix: PQClean's ML-KEM divides nothing.
        let keccak = keccak_instructions(&a["analysis"]);
        assert!(keccak > n / 5, "{a:#}");
        let divide = e["mix"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["class"] == "divide");
        assert_eq!(divide.unwrap()["instructions"], 0, "{e:#}");
        // Estimated cycles per CPU of `--cpus default` (s390x: z15, z16), the same in both
        // runs, with almost every executed instruction priced and the blocks that carry most.
        let estimates = a["estimates"].as_array().unwrap();
        let cpus: Vec<&str> = estimates
            .iter()
            .map(|x| x["cpu"].as_str().unwrap())
            .collect();
        assert_eq!(cpus, ["z15", "z16"], "{e:#}");
        assert_eq!(
            estimates,
            b["estimates"].as_array().unwrap(),
            "identical across runs"
        );
        for x in estimates {
            assert_eq!(
                x["model"], x["cpu"],
                "z15 and z16 have models of their own: {x:#}"
            );
            let cycles = x["cycles"].as_u64().unwrap();
            let priced = x["priced_instructions"].as_u64().unwrap();
            let unpriced = x["unpriced_instructions"].as_u64().unwrap();
            // Seed 0's call, which the estimate prices.
            let n = a["analysis"]["instructions"].as_u64().unwrap();
            // Every executed instruction, priced or not: the blocks' sum, which can differ from
            // the count by the markers' call set-up the empty region subtracts.
            let calibration = e["calibration"].as_u64().unwrap();
            assert!(
                (priced + unpriced).abs_diff(n) <= calibration,
                "{priced} + {unpriced} against {n}: {x:#}"
            );
            assert!(unpriced * 100 < n, "over 99% priced: {x:#}");
            // An ideal pipeline of a core that issues up to six instructions a cycle.
            assert!(
                cycles > n / 8 && cycles < n * 4,
                "{cycles} cycles for {n} instructions"
            );
            // The blocks that carry most, most first, each named by its function in the
            // scheme's code (PQClean's ML-KEM or its Keccak).
            let blocks = x["blocks"].as_array().unwrap();
            assert_eq!(blocks.len(), 5, "{x:#}");
            let carried: Vec<u64> = blocks
                .iter()
                .map(|b| b["cycles"].as_u64().unwrap())
                .collect();
            assert!(
                carried.windows(2).all(|w| w[0] >= w[1]) && carried[0] <= cycles,
                "{x:#}"
            );
            for b in blocks {
                let f = b["function"].as_str().unwrap();
                assert!(
                    f.starts_with("PQCLEAN_MLKEM768_CLEAN_") || f.starts_with("Keccak"),
                    "{f}"
                );
                let each = b["cycles_per_execution"].as_f64().unwrap();
                let execs = b["executions"].as_u64().unwrap() as f64;
                assert!(
                    (each * execs - b["cycles"].as_u64().unwrap() as f64).abs() <= 1.0,
                    "{b:#}"
                );
            }
        }
    }
    assert!(
        stdout.contains("Estimated cycles per call (model estimate)"),
        "{stdout}"
    );
    assert!(stdout.contains("CPACF"), "the s390x note: {stdout}");
    assert!(stdout.contains("KeccakF1600_StatePermute"), "{stdout}");
    assert!(stdout.contains("Under qemu-s390x: loads"), "{stdout}");
    // Call stacks, from the plugin's shadow stack: the folded stacks sum to the count, the
    // permutation runs below its callers with their inclusive cost above their own, and the
    // Keccak share is what callgrind's classifier gives on those chains (the outermost frame
    // it knows decides).
    for a in ops {
        let an = &a["analysis"];
        let n = an["instructions"].as_u64().unwrap();
        let folded = an["folded"].as_array().unwrap();
        let sum: u64 = folded
            .iter()
            .map(|f| f["instructions"].as_u64().unwrap())
            .sum();
        assert_eq!(sum, n, "folded stacks sum to the count");
        assert!(
            folded.iter().any(|f| {
                let s = f["stack"].as_str().unwrap();
                s.contains(";PQCLEAN_MLKEM768_CLEAN_crypto_kem_")
                    && s.ends_with(";KeccakF1600_StatePermute")
            }),
            "the permutation below the scheme's entry: {folded:#?}"
        );
        let f = |name: &str| {
            an["functions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["name"] == name)
                .unwrap_or_else(|| panic!("{name}: {an:#}"))
        };
        let cost = |f: &Value, k: &str| f[k].as_u64().unwrap();
        let keccak = f("KeccakF1600_StatePermute");
        assert!(cost(keccak, "calls") > 0, "{keccak:#}");
        let caller = f("keccak_absorb");
        assert!(
            cost(caller, "inclusive_instructions") > cost(caller, "self_instructions"),
            "{caller:#}"
        );
        let entry = an["tree"]["children"][0]["children"][0]["children"][0]["name"].as_str();
        assert!(
            entry
                .unwrap()
                .starts_with("PQCLEAN_MLKEM768_CLEAN_crypto_kem_"),
            "decaps -> main -> call -> the scheme: {:#}",
            an["tree"]
        );
        let on_chains: u64 = folded
            .iter()
            .filter(|s| {
                s["stack"]
                    .as_str()
                    .unwrap()
                    .split(';')
                    .skip(1)
                    .find_map(|frame| kembench::callgrind::primitive_of("pqclean", frame))
                    == Some(kembench::callgrind::Primitive::Keccak)
            })
            .map(|s| s["instructions"].as_u64().unwrap())
            .sum();
        let share = keccak_instructions(an);
        assert_eq!(share, on_chains, "{:#}", a["operation"]);
    }

    // `--cpus` refused, before anything is counted: a CPU of another architecture, with it
    // named; an unknown name, with the nearest; native implementations only.
    let refused = |cpus: &str, impls: &str| {
        let out = kembench()
            .env("KEMBENCH_BUILD_DIR", &dir)
            .args([
                "profile",
                "--no-store",
                "--alg",
                "ML-KEM-768",
                "--cpus",
                cpus,
                "--impl",
                impls,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{err}");
        err
    };
    let err = refused("cortex-a76", id);
    assert!(
        err.contains("a CPU of aarch64") && err.contains("s390x"),
        "{err}"
    );
    let err = refused("z16x", id);
    assert!(
        err.contains("knows no CPU") && err.contains("did you mean"),
        "{err}"
    );
    let err = refused("z16", "liboqs");
    assert!(
        err.contains("a CPU of s390x") && err.contains("x86_64"),
        "{err}"
    );

    // Never timed: `run` says why instead of timing the emulator.
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &dir)
        .args(["run", "--no-store", "--alg", "ML-KEM-768", "--impl"])
        .arg(id)
        .args(common::FAST)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // `run` leaves foreign builds out: with nothing else selected it refuses, saying why.
    assert!(
        said.contains("nothing to time") && said.contains("QEMU"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_byte_order_bug_passes_its_own_round_trips_and_fails_known_answers_and_interop() {
    let dir = cache("byte-order");
    // The driver's test switch swaps each 16-bit word of its ciphertexts on big-endian
    // machines, consistently (what it writes, it reads back): only known answers and other
    // machines' implementations can tell.
    let build = |arch: &str| {
        builds(
            &dir,
            &[
                "--alg",
                "ML-KEM-768",
                "--impl",
                "pqclean/clean",
                "--arch",
                arch,
                "--cc",
                "gcc",
                "--flags",
                "-O2 -DKEMBENCH_TEST_BYTE_ORDER_BUG",
            ],
        )
    };
    // Little-endian aarch64 has no bug.
    let (code, v, err) = build("aarch64");
    assert_eq!(code, 0, "{err}\n{v:#}");
    assert_eq!(v["builds"][0]["facts"]["gate"]["gate"], "passed", "{v:#}");
    let (code, v, err) = build("s390x");
    assert_eq!(code, 1, "{err}\n{v:#}");
    let s390x = &v["builds"][0]["facts"]["gate"];
    assert_eq!(s390x["gate"], "failed", "{v:#}");
    let why = s390x["detail"].as_str().unwrap();
    assert!(
        why.contains("interop") && why.contains("secrets differ"),
        "{why}"
    );
    assert!(why.contains("known-answers"), "{why}");
    assert!(
        !why.contains("round-trip"),
        "its own round trips pass: {why}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_architectures_and_native_cpu_flags_are_refused_with_the_fix() {
    let dir = cache("refusals");
    let (code, _, err) = builds(&dir, &["--alg", "ML-KEM-768", "--arch", "s390"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("did you mean s390x?"), "{err}");
    let (code, v, err) = builds(
        &dir,
        &[
            "--alg",
            "ML-KEM-768",
            "--impl",
            "pqclean/clean",
            "--arch",
            "riscv64",
            "--cc",
            "gcc",
            "--flags",
            "-O3 -march=native",
        ],
    );
    assert_eq!(
        code, 1,
        "refused, as a build this CPU cannot run is: {err}\n{v:#}"
    );
    let b = &v["builds"][0];
    assert_eq!(b["compiled"]["status"], "refused", "{v:#}");
    assert!(
        b["compiled"]["detail"]
            .as_str()
            .unwrap()
            .contains("names this machine's CPU"),
        "{v:#}"
    );
    // liboqs has no s390x code of its own: its `auto` build is not offered there, and says so.
    let (code, v, err) = builds(
        &dir,
        &[
            "--alg",
            "ML-KEM-768",
            "--impl",
            "liboqs/auto",
            "--arch",
            "s390x",
        ],
    );
    assert_eq!(code, 2, "{err}{v}");
    assert!(
        err.contains("liboqs has no code of its own for s390x"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn liboqs_cross_built_for_aarch64_runs_its_neon_backend_and_counts_fewer_instructions() {
    let dir = cache("liboqs-aarch64");
    // liboqs's own CMake build with the cross toolchain: portable C, and a dist build that
    // compiles mlkem-native's AArch64 backend in.
    let (code, v, err) = builds(
        &dir,
        &[
            "--alg",
            "ML-KEM-768",
            "--impl",
            "liboqs/generic,liboqs/auto",
            "--arch",
            "aarch64",
            "--cc",
            "gcc",
            "--flags",
            "-O3",
        ],
    );
    assert_eq!(code, 0, "{err}\n{v:#}");
    let all = v["builds"].as_array().unwrap();
    assert_eq!(all.len(), 2, "{v:#}");
    for b in all {
        let gate = b["facts"]["gate"]["detail"].as_str().unwrap();
        assert!(gate.contains("liboqs KAT"), "{gate}");
    }
    // Profiled twice: the second time with a long environment and from another directory,
    // which move the stack of a program that inherits them, and with keygen and encaps asked
    // for before decaps, which would move the heap decaps meets if they ran in its process.
    // The counts must not move.
    let profile = |name: &str, padding: usize, ops: &str| -> Value {
        let json = dir.join(name);
        let out = kembench()
            .env("KEMBENCH_BUILD_DIR", &dir)
            .env("KEMBENCH_TEST_PADDING", "x".repeat(padding))
            .current_dir(&dir)
            .args(["profile", "--no-store", "--seeds", "1", "--ops", ops])
            .args([
                "--alg",
                "ML-KEM-768",
                "--impl",
                "liboqs/*@aarch64",
                "--json",
            ])
            .arg(&json)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
    };
    let v = profile("p.json", 0, "decaps");
    let count = |v: &Value, id: &str| {
        let r = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["implementation"].as_str().unwrap().starts_with(id))
            .unwrap_or_else(|| panic!("{id}: {v:#}"));
        let o = r["operations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["operation"] == "decaps")
            .unwrap_or_else(|| panic!("{id}: no decaps"));
        let functions: Vec<String> = o["analysis"]["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap().to_string())
            .collect();
        (o["instructions"]["median"].as_u64().unwrap(), functions)
    };
    let padded = profile("padded.json", 3000, "keygen,encaps,decaps");
    for id in ["liboqs/auto", "liboqs/generic"] {
        assert_eq!(count(&v, id).0, count(&padded, id).0, "{id}");
    }
    let (neon, neon_fns) = count(&v, "liboqs/auto");
    let (portable, portable_fns) = count(&v, "liboqs/generic");
    // The NEON backend ran (its functions are counted) and the portable build never did.
    // mlkem-native's backend names its functions `..._MLKEM768_AARCH64_...`; libgcc's
    // outline atomics (`__aarch64_swp8_acq`, reached through pthread_once) run in both.
    let aarch64 = |f: &String| f.contains("MLKEM768_AARCH64");
    assert!(neon_fns.iter().any(aarch64), "{neon_fns:?}");
    assert!(!portable_fns.iter().any(aarch64), "{portable_fns:?}");
    assert!(neon < portable, "NEON {neon} vs portable {portable}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gcc_vectorises_for_z13_and_the_mix_sees_the_vector_instructions() {
    let dir = cache("z13");
    let (code, v, err) = builds(
        &dir,
        &[
            "--alg",
            "ML-KEM-768",
            "--impl",
            "pqclean/clean",
            "--arch",
            "s390x",
            "--cc",
            "gcc",
            "--flags",
            // `-march=vector` is each architecture's vector unit: z13's on s390x.
            "-O3;-O3 -march=vector",
        ],
    );
    assert_eq!(code, 0, "{err}\n{v:#}");
    let ids: Vec<&str> = v["builds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["facts"]["implementation"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"pqclean/clean@gcc-12:O3+march=z13@s390x"),
        "{ids:?}"
    );
    let json = dir.join("p.json");
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &dir)
        .args([
            "profile",
            "--no-store",
            "--seeds",
            "1",
            "--ops",
            "decaps",
            "--alg",
        ])
        .args(["ML-KEM-768", "--impl", "pqclean/clean@*@s390x", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let vector = |flags: &str| {
        let r = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["implementation"].as_str().unwrap().contains(flags))
            .unwrap_or_else(|| panic!("{flags}: {v:#}"));
        let mix = r["operations"][0]["emulated"]["mix"].as_array().unwrap();
        mix.iter().find(|m| m["class"] == "vector").unwrap()["instructions"]
            .as_u64()
            .unwrap()
    };
    // QEMU's disassembler cannot decode them; binutils' can, and the mix reads it.
    assert_eq!(vector(":O3@"), 0);
    assert!(vector(":O3+march=z13@") > 1000, "{v:#}");
    // The record says which CPU QEMU presented: one with the vector facility, which is why
    // the z13 build runs at all.
    let cpu = v["results"][0]["operations"][0]["emulated"]["cpu"]
        .as_str()
        .unwrap_or_default();
    assert!(cpu.contains("vxrs"), "{cpu}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The instructions an operation's analysis gives to Keccak (its `keccak` share).
fn keccak_instructions(analysis: &Value) -> u64 {
    analysis["shares"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["primitive"] == "keccak")
        .unwrap()["instructions"]
        .as_u64()
        .unwrap()
}

/// `ct`'s latency screen on foreign builds, through `profile`'s QEMU plugin: gcc 12 keeps
/// KyberSlash's divisions by q for aarch64 at -Os (`udiv` in poly_tomsg, poly_compress,
/// polyvec_compress) and not at -O2; the screen finds the -Os build by itself, names the
/// functions with their executions per call, and the exception list calls them a known issue.
#[test]
fn ct_finds_kyberslash_in_the_aarch64_build_that_keeps_the_division_and_not_in_the_other() {
    let dir = cache("ct-aarch64");
    let (code, v, err) = builds(
        &dir,
        &[
            "--alg",
            "Kyber768",
            "--impl",
            "pqclean/clean",
            "--arch",
            "aarch64",
            "--cc",
            "gcc",
            "--flags",
            "-Os;-O2",
        ],
    );
    assert_eq!(code, 0, "{err}\n{v:#}");
    let json = dir.join("ct.json");
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &dir)
        .args([
            "ct",
            "--no-store",
            "--screens",
            "latency",
            "--alg",
            "Kyber768",
        ])
        .args(["--impl", "pqclean/clean@*@aarch64", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Every finding is listed, KyberSlash as a known issue nobody accepted: exit 1.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{v:#}");
    let findings = |flags: &str| -> Vec<(String, String, u64, String)> {
        let r = results
            .iter()
            .find(|r| {
                r["implementation"]
                    .as_str()
                    .is_some_and(|i| i.contains(&format!(":{flags}@")))
            })
            .unwrap_or_else(|| panic!("no {flags} build in {v:#}"));
        r["screens"]
            .as_array()
            .unwrap()
            .iter()
            .inspect(|s| assert_eq!(s["ran"]["state"], "screened", "{s:#}"))
            .flat_map(|s| s["findings"].as_array().unwrap().clone())
            .map(|f| {
                (
                    f["function"].as_str().unwrap().to_string(),
                    f["mnemonic"].as_str().unwrap_or_default().to_string(),
                    f["count_per_call"].as_u64().unwrap(),
                    f["explained"]["list"]
                        .as_str()
                        .unwrap_or("none")
                        .to_string(),
                )
            })
            .collect()
    };
    let os = findings("Os");
    let tomsg: Vec<_> = os.iter().filter(|f| f.0.ends_with("_poly_tomsg")).collect();
    assert_eq!(tomsg.len(), 1, "{os:?}");
    assert_eq!((tomsg[0].1.as_str(), tomsg[0].2), ("udiv", 256), "{os:?}");
    assert_eq!(tomsg[0].3, "issue", "{os:?}");
    assert!(
        os.iter()
            .any(|f| f.0.ends_with("_polyvec_compress") && f.2 == 768),
        "{os:?}"
    );
    let o2 = findings("O2");
    assert!(
        o2.iter().all(|f| !f.0.contains("KYBER")),
        "gcc -O2 multiplies instead of dividing: {o2:?}"
    );

    // memcheck and dudect cannot screen code under QEMU: not screened, each with its reason,
    // never clean (a build no screen ran on fails the run: exit 1).
    let out = kembench()
        .env("KEMBENCH_BUILD_DIR", &dir)
        .args([
            "ct",
            "--no-store",
            "--screens",
            "secret-flow,timing",
            "--alg",
        ])
        .args(["Kyber768", "--impl", "pqclean/clean@*:O2@aarch64", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let screens = v["results"][0]["screens"].as_array().unwrap();
    assert_eq!(screens.len(), 6, "{v:#}");
    for s in screens {
        assert_eq!(s["ran"]["state"], "not-screened", "{s:#}");
        let why = s["ran"]["why"].as_str().unwrap_or_default();
        assert!(why.contains("QEMU"), "{s:#}");
    }
}
