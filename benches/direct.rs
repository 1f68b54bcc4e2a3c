//! Direct loops: kembench's figures held against minimal loops that call the same library
//! functions with nothing in between. Run with `cargo bench --bench direct` (optionally
//! `-- FILTER`, a substring of `impl`, `alg` or `impl/alg`).
//!
//! - liboqs and OpenSSL: the C programs in `benches/direct/` are compiled here with `cc` (or
//!   `$CC`) against the very `liboqs.a` and `libcrypto.a` (and their headers) that kembench
//!   links, found in the build directories of `oqs-sys` and `openssl-sys` beside the kembench
//!   binary, and run as subprocesses.
//! - aws-lc: loops in this file through `aws-lc-rs`, keeping `DecapsulationKey` and
//!   `agreement::PrivateKey` objects as kembench does; libcrux: loops through its AVX2 module,
//!   keeping `MlKemPrivateKey`s.
//!
//! kembench's side is the real measuring path: the `kembench` binary that cargo builds for
//! this bench, `kembench run --alg A --impl I --ops ... --no-store --json FILE` with short
//! budgets (a supervisor and a worker process, as for users), read back as each operation's
//! best-round median.
//!
//! A shared virtual machine drifts between speed states, so everything runs pinned to one
//! CPU (this process, the C loops it starts and kembench's measuring worker), the direct loop
//! and kembench alternate in many rounds, each side reports its fastest block (direct) or round
//! (kembench) median, and the figure is the median of the per-round ratios kembench/direct
//! with its quartiles; `fast` is the ratio of the fastest figures over all rounds.
//!
//! Knobs (environment): `KEMBENCH_DIRECT_ROUNDS` (default 11), and `KEMBENCH_DIRECT_EXE`, a
//! `:`-separated list of kembench binaries measured in turn in every round (to compare two
//! builds of kembench against the same direct loops in one interleaved run).

use aws_lc_rs::agreement::{self, PrivateKey, UnparsedPublicKey};
use aws_lc_rs::encoding::{AsBigEndian, Curve25519SeedBin, EcPrivateKeyBin};
use aws_lc_rs::kem::{DecapsulationKey, EncapsulationKey, ML_KEM_768};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Milliseconds per timed block of a direct loop, and blocks per operation per round.
const BLOCK_MS: u32 = 40;
const BLOCKS: u32 = 3;
/// Inputs used in turn, as kembench's pool.
const POOL: usize = 16;

/// Who runs the direct loop.
#[derive(Clone, Copy, PartialEq)]
enum Direct {
    /// A C program in `benches/direct/`.
    C(&'static str),
    /// The same C program on a used heap (`KEMBENCH_DIRECT_USED_HEAP=1`, see `loop.h`).
    CUsedHeap(&'static str),
    /// The aws-lc-rs loops below.
    AwsLc,
    /// The libcrux AVX2 loops below (kept `MlKemPrivateKey`s, randomness from the OS per
    /// call, as kembench's adapter and libcrux's own `rand` wrappers draw it).
    Libcrux,
    /// The same liboqs functions as `liboqs_loop.c`, called through `oqs-sys` from this Rust
    /// binary: tells a cost of kembench's measuring path from one of liboqs being linked into
    /// a large Rust binary.
    OqsRust,
}

struct Case {
    /// The direct loop's name in the table.
    label: &'static str,
    /// kembench's implementation id.
    imp: &'static str,
    alg: &'static str,
    ops: &'static [&'static str],
    direct: Direct,
}

const KEM_OPS: &[&str] = &["keygen", "encaps", "decaps", "sk-import", "pk-import"];
const ECDH_OPS: &[&str] = &["keygen", "encaps", "decaps", "sk-import"];

const CASES: &[Case] = &[
    Case {
        label: "liboqs",
        imp: "liboqs",
        alg: "ML-KEM-768",
        ops: &["keygen", "encaps", "decaps"],
        direct: Direct::C("liboqs_loop"),
    },
    Case {
        label: "liboqs-uh",
        imp: "liboqs",
        alg: "ML-KEM-768",
        ops: &["keygen", "encaps", "decaps"],
        direct: Direct::CUsedHeap("liboqs_loop"),
    },
    Case {
        label: "liboqs-rs",
        imp: "liboqs",
        alg: "ML-KEM-768",
        ops: &["keygen", "encaps", "decaps"],
        direct: Direct::OqsRust,
    },
    Case {
        label: "openssl",
        imp: "openssl",
        alg: "ML-KEM-768",
        ops: KEM_OPS,
        direct: Direct::C("openssl_loop"),
    },
    Case {
        label: "openssl",
        imp: "openssl",
        alg: "X25519MLKEM768",
        ops: KEM_OPS,
        direct: Direct::C("openssl_loop"),
    },
    Case {
        label: "openssl",
        imp: "openssl",
        alg: "X25519",
        ops: KEM_OPS,
        direct: Direct::C("openssl_loop"),
    },
    Case {
        label: "openssl",
        imp: "openssl",
        alg: "P-256",
        ops: KEM_OPS,
        direct: Direct::C("openssl_loop"),
    },
    Case {
        label: "aws-lc",
        imp: "aws-lc",
        alg: "ML-KEM-768",
        ops: KEM_OPS,
        direct: Direct::AwsLc,
    },
    Case {
        label: "aws-lc",
        imp: "aws-lc",
        alg: "X25519",
        ops: ECDH_OPS,
        direct: Direct::AwsLc,
    },
    Case {
        label: "aws-lc",
        imp: "aws-lc",
        alg: "P-256",
        ops: ECDH_OPS,
        direct: Direct::AwsLc,
    },
    Case {
        label: "libcrux",
        imp: "libcrux/avx2",
        alg: "ML-KEM-768",
        ops: &["keygen", "encaps", "decaps"],
        direct: Direct::Libcrux,
    },
];

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// The last CPU this process may run on; pins this thread (and so every child) to it alone.
fn pin() -> Option<usize> {
    // SAFETY: zeroed cpu_set_t values are valid; CPU_ISSET/CPU_SET stay inside them; pid 0 is
    // this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        let cpu = (0..libc::CPU_SETSIZE as usize)
            .rev()
            .find(|&c| libc::CPU_ISSET(c, &set))?;
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        (libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one) == 0)
            .then_some(cpu)
    }
}

/// The one build directory of `crate` beside the kembench binary that holds `inside`; the
/// most recent one when cargo kept several.
fn build_out(release: &Path, krate: &str, inside: &str) -> PathBuf {
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(release.join("build"))
        .expect("the kembench binary's build directory")
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.strip_prefix(krate).is_some_and(|r| r.starts_with('-')))
        })
        .map(|e| e.path().join("out"))
        .filter(|p| p.join(inside).exists())
        .filter_map(|p| Some((p.join(inside).metadata().ok()?.modified().ok()?, p)))
        .collect();
    found.sort();
    found
        .pop()
        .unwrap_or_else(|| panic!("no {krate} build with {inside} under {}", release.display()))
        .1
}

/// Compiles the C loops against the libraries kembench links; returns program name → path.
fn compile(release: &Path) -> BTreeMap<&'static str, PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/direct");
    let oqs = build_out(release, "oqs-sys", "lib/liboqs.a");
    let ssl = build_out(
        release,
        "openssl-sys",
        "openssl-build/install/lib/libcrypto.a",
    )
    .join("openssl-build/install");
    let dir = release.join("direct");
    std::fs::create_dir_all(&dir).expect("target/release/direct");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut out = BTreeMap::new();
    for (prog, root, lib) in [
        ("liboqs_loop", &oqs, "lib/liboqs.a"),
        ("openssl_loop", &ssl, "lib/libcrypto.a"),
    ] {
        let bin = dir.join(prog);
        println!("{prog}: {}", root.join(lib).display());
        let status = Command::new(&cc)
            .args(["-O2", "-I"])
            .arg(&src)
            .arg("-I")
            .arg(root.join("include"))
            .arg("-o")
            .arg(&bin)
            .arg(src.join(format!("{prog}.c")))
            .arg(root.join(lib))
            .args(["-lpthread", "-ldl"])
            .status()
            .unwrap_or_else(|e| panic!("running {cc}: {e}"));
        assert!(status.success(), "compiling {prog} failed");
        out.insert(prog, bin);
    }
    out
}

/// One round of a C loop: op → its fastest block median (ns). `used_heap`: the loop uses its
/// heap first (see `loop.h`).
fn run_c(bin: &Path, case: &Case, used_heap: bool) -> BTreeMap<String, f64> {
    let out = Command::new(bin)
        .env(
            "KEMBENCH_DIRECT_USED_HEAP",
            if used_heap { "1" } else { "0" },
        )
        .args([
            case.alg,
            &case.ops.join(","),
            &BLOCK_MS.to_string(),
            &BLOCKS.to_string(),
        ])
        .output()
        .expect("running a direct loop");
    assert!(
        out.status.success(),
        "{} failed: {}",
        bin.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut r = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let field = |k: &str| {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(k)?.strip_prefix('='))
        };
        if let (Some(op), Some(m)) = (field("op"), field("block_medians_ns")) {
            let m: Vec<f64> = m.split(',').map(|x| x.parse().unwrap()).collect();
            r.insert(op.to_string(), min(&m));
        }
    }
    r
}

/// Times `call(i)` (i cycling through the pool) as the C loops do: warm-up of 20 calls and
/// 20 ms, then blocks of `BLOCK_MS` timed call by call; the fastest block median.
fn time_rust(mut call: impl FnMut(usize)) -> f64 {
    let mut i = 0;
    let start = Instant::now();
    while i < 20 || start.elapsed().as_millis() < 20 {
        call(i % POOL);
        i += 1;
    }
    let mut best = f64::INFINITY;
    let mut t = Vec::new();
    for _ in 0..BLOCKS {
        t.clear();
        let start = Instant::now();
        while t.len() < 11 || start.elapsed().as_millis() < u128::from(BLOCK_MS) {
            let s = Instant::now();
            call(i % POOL);
            t.push(s.elapsed().as_nanos() as f64);
            i += 1;
        }
        best = best.min(median(&mut t));
    }
    best
}

/// One round of the aws-lc loops: op → its fastest block median (ns).
fn run_awslc(case: &Case) -> BTreeMap<String, f64> {
    let mut r = BTreeMap::new();
    for &op in case.ops {
        let ns = if case.alg == "ML-KEM-768" {
            awslc_mlkem(op)
        } else {
            let alg = match case.alg {
                "X25519" => &agreement::X25519,
                _ => &agreement::ECDH_P256,
            };
            awslc_ecdh(alg, case.alg == "X25519", op)
        };
        r.insert(op.to_string(), ns);
    }
    r
}

fn awslc_mlkem(op: &str) -> f64 {
    let keys: Vec<DecapsulationKey<_>> = (0..POOL)
        .map(|_| DecapsulationKey::generate(&ML_KEM_768).unwrap())
        .collect();
    let pks: Vec<Vec<u8>> = keys
        .iter()
        .map(|k| {
            let ek = k.encapsulation_key().unwrap();
            ek.key_bytes().unwrap().as_ref().to_vec()
        })
        .collect();
    let cts: Vec<Vec<u8>> = pks
        .iter()
        .map(|pk| {
            let ek = EncapsulationKey::new(&ML_KEM_768, pk).unwrap();
            ek.encapsulate().unwrap().0.as_ref().to_vec()
        })
        .collect();
    let sks: Vec<Vec<u8>> = keys
        .iter()
        .map(|k| k.key_bytes().unwrap().as_ref().to_vec())
        .collect();
    let (mut pk_out, mut ct_out, mut ss) = (vec![0u8; 1184], vec![0u8; 1088], [0u8; 32]);
    match op {
        "keygen" => time_rust(|_| {
            let dk = DecapsulationKey::generate(&ML_KEM_768).unwrap();
            let ek = dk.encapsulation_key().unwrap();
            pk_out.copy_from_slice(ek.key_bytes().unwrap().as_ref());
            black_box(dk);
        }),
        "encaps" => time_rust(|i| {
            let ek = EncapsulationKey::new(&ML_KEM_768, &pks[i]).unwrap();
            let (c, k) = ek.encapsulate().unwrap();
            ct_out.copy_from_slice(c.as_ref());
            ss.copy_from_slice(k.as_ref());
        }),
        "decaps" => time_rust(|i| {
            let k = keys[i].decapsulate(cts[i].as_slice().into()).unwrap();
            ss.copy_from_slice(k.as_ref());
        }),
        "sk-import" => time_rust(|i| {
            black_box(DecapsulationKey::new(&ML_KEM_768, &sks[i]).unwrap());
        }),
        _ => time_rust(|i| {
            black_box(EncapsulationKey::new(&ML_KEM_768, &pks[i]).unwrap());
        }),
    }
}

fn awslc_ecdh(alg: &'static agreement::Algorithm, x25519: bool, op: &str) -> f64 {
    let keys: Vec<PrivateKey> = (0..POOL)
        .map(|_| PrivateKey::generate(alg).unwrap())
        .collect();
    let public = |k: &PrivateKey| k.compute_public_key().unwrap().as_ref().to_vec();
    let pks: Vec<Vec<u8>> = keys.iter().map(public).collect();
    let cts: Vec<Vec<u8>> = (0..POOL)
        .map(|_| public(&PrivateKey::generate(alg).unwrap()))
        .collect();
    let sks: Vec<Vec<u8>> = keys
        .iter()
        .map(|k| {
            if x25519 {
                let b: Curve25519SeedBin = k.as_be_bytes().unwrap();
                b.as_ref().to_vec()
            } else {
                let b: EcPrivateKeyBin = k.as_be_bytes().unwrap();
                b.as_ref().to_vec()
            }
        })
        .collect();
    let mut pk_out = vec![0u8; pks[0].len()];
    let mut ss = vec![0u8; 32];
    let agree = |k: &PrivateKey, peer: &[u8], ss: &mut [u8]| {
        agreement::agree(k, UnparsedPublicKey::new(alg, peer), (), |s| {
            ss.copy_from_slice(s);
            Ok(())
        })
        .unwrap();
    };
    match op {
        "keygen" => time_rust(|_| {
            let k = PrivateKey::generate(alg).unwrap();
            pk_out.copy_from_slice(k.compute_public_key().unwrap().as_ref());
            black_box(k);
        }),
        "encaps" => time_rust(|i| {
            let eph = PrivateKey::generate(alg).unwrap();
            pk_out.copy_from_slice(eph.compute_public_key().unwrap().as_ref());
            agree(&eph, &pks[i], &mut ss);
        }),
        "decaps" => time_rust(|i| agree(&keys[i], &cts[i], &mut ss)),
        _ => time_rust(|i| {
            black_box(PrivateKey::from_private_key(alg, &sks[i]).unwrap());
        }),
    }
}

/// One round of the liboqs loops through `oqs-sys`: op → its fastest block median (ns).
fn run_oqs_rust(case: &Case) -> BTreeMap<String, f64> {
    use oqs_sys::kem::{OQS_KEM_decaps, OQS_KEM_encaps, OQS_KEM_keypair, OQS_KEM_new};
    let name = std::ffi::CString::new(case.alg).unwrap();
    // SAFETY: OQS_init has no preconditions; `name` is a C string; a null KEM is refused.
    let kem = unsafe {
        oqs_sys::common::OQS_init();
        OQS_KEM_new(name.as_ptr())
    };
    assert!(!kem.is_null(), "liboqs has no {}", case.alg);
    // SAFETY: non-null, freed at the end of this function.
    let k = unsafe { &*kem };
    let buf = |n: usize| -> Vec<Vec<u8>> { (0..POOL).map(|_| vec![0u8; n]).collect() };
    let (mut pks, mut sks, mut cts) = (
        buf(k.length_public_key),
        buf(k.length_secret_key),
        buf(k.length_ciphertext),
    );
    let (mut pk, mut sk, mut ct, mut ss) = (
        vec![0u8; k.length_public_key],
        vec![0u8; k.length_secret_key],
        vec![0u8; k.length_ciphertext],
        vec![0u8; k.length_shared_secret],
    );
    for i in 0..POOL {
        // SAFETY: buffers of the lengths liboqs declares (as in every call below).
        unsafe {
            OQS_KEM_keypair(kem, pks[i].as_mut_ptr(), sks[i].as_mut_ptr());
            OQS_KEM_encaps(kem, cts[i].as_mut_ptr(), ss.as_mut_ptr(), pks[i].as_ptr());
        }
    }
    let mut r = BTreeMap::new();
    for &op in case.ops {
        let ns = match op {
            // SAFETY: as above.
            "keygen" => time_rust(|_| unsafe {
                OQS_KEM_keypair(kem, pk.as_mut_ptr(), sk.as_mut_ptr());
            }),
            // SAFETY: as above.
            "encaps" => time_rust(|i| unsafe {
                OQS_KEM_encaps(kem, ct.as_mut_ptr(), ss.as_mut_ptr(), pks[i].as_ptr());
            }),
            // SAFETY: as above.
            _ => time_rust(|i| unsafe {
                OQS_KEM_decaps(kem, ss.as_mut_ptr(), cts[i].as_ptr(), sks[i].as_ptr());
            }),
        };
        r.insert(op.to_string(), ns);
    }
    // SAFETY: made above, no longer used.
    unsafe { oqs_sys::kem::OQS_KEM_free(kem) };
    r
}

/// One round of libcrux's ML-KEM-768 AVX2 functions, called directly: op → median (ns).
fn run_libcrux(case: &Case) -> BTreeMap<String, f64> {
    use libcrux_ml_kem::mlkem768::{avx2 as m, MlKem768Ciphertext, MlKem768PrivateKey};
    fn random<const N: usize>() -> [u8; N] {
        let mut r = [0u8; N];
        getrandom::fill(&mut r).expect("getrandom");
        r
    }
    let (mut pks, mut keys) = (Vec::new(), Vec::new());
    for _ in 0..POOL {
        let (sk, pk) = m::generate_key_pair(random()).into_parts();
        let (ct, _) = m::encapsulate(&pk, random());
        pks.push(pk);
        keys.push((sk, ct));
    }
    let keys: Vec<(MlKem768PrivateKey, MlKem768Ciphertext)> = keys;
    let mut r = BTreeMap::new();
    for &op in case.ops {
        let ns = match op {
            "keygen" => time_rust(|_| {
                black_box(m::generate_key_pair(random()));
            }),
            "encaps" => time_rust(|i| {
                black_box(m::encapsulate(&pks[i], random()));
            }),
            _ => time_rust(|i| {
                black_box(m::decapsulate(&keys[i].0, &keys[i].1));
            }),
        };
        r.insert(op.to_string(), ns);
    }
    r
}

/// One round of kembench: op → best-round median (ns).
fn run_kembench(exe: &Path, case: &Case, json: &Path) -> BTreeMap<String, f64> {
    let rounds = 3;
    let budget = f64::from(BLOCK_MS * rounds) / 1000.0;
    let out = Command::new(exe)
        .args(["run", "--alg", case.alg, "--impl", case.imp, "--ops"])
        .arg(case.ops.join(","))
        .args(["--no-store", "--json"])
        .arg(json)
        .args(["--time-budget", &budget.to_string()])
        .args(["--rounds", &rounds.to_string()])
        .args([
            "--warmup",
            "0.02",
            "--min-samples",
            "11",
            "--precision",
            "0.001",
        ])
        .output()
        .expect("running kembench");
    assert!(
        out.status.success(),
        "kembench run failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json).expect("kembench's JSON")).unwrap();
    let mut r = BTreeMap::new();
    for o in v["results"][0]["operations"]
        .as_array()
        .into_iter()
        .flatten()
    {
        if let (Some(op), Some(ns)) = (o["operation"].as_str(), o["best_round_median_ns"].as_f64())
        {
            r.insert(op.to_string(), ns);
        }
    }
    r
}

/// Per-round figures of one (case, op): direct, then one per kembench binary.
#[derive(Default)]
struct Series {
    direct: Vec<f64>,
    kembench: Vec<Vec<f64>>,
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let rounds: usize = std::env::var("KEMBENCH_DIRECT_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(11);
    let exes: Vec<PathBuf> = match std::env::var("KEMBENCH_DIRECT_EXE") {
        Ok(list) => list.split(':').map(PathBuf::from).collect(),
        Err(_) => vec![PathBuf::from(env!("CARGO_BIN_EXE_kembench"))],
    };
    let release = Path::new(env!("CARGO_BIN_EXE_kembench"))
        .parent()
        .expect("target/release")
        .to_path_buf();
    let progs = compile(&release);
    let pinned = pin();
    let json = release.join("direct/kembench.json");
    let cases: Vec<&Case> = CASES
        .iter()
        .filter(|c| {
            let name = format!("{}/{}", c.label, c.alg);
            filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()))
        })
        // libcrux's AVX2 functions would fault without AVX2 (kembench then offers no such
        // implementation either).
        .filter(|c| c.direct != Direct::Libcrux || std::is_x86_feature_detected!("avx2"))
        .collect();
    println!(
        "pinned to CPU {pinned:?}; {rounds} rounds; direct: fastest of {BLOCKS} blocks of {BLOCK_MS} ms; \
         kembench: best of 3 rounds of {BLOCK_MS} ms ({})",
        exes.iter()
            .map(|e| e.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut series: BTreeMap<(usize, &str), Series> = BTreeMap::new();
    for round in 0..rounds {
        eprint!("\rround {}/{rounds}", round + 1);
        for (ci, case) in cases.iter().enumerate() {
            let direct = match case.direct {
                Direct::C(prog) => run_c(&progs[prog], case, false),
                Direct::CUsedHeap(prog) => run_c(&progs[prog], case, true),
                Direct::AwsLc => run_awslc(case),
                Direct::Libcrux => run_libcrux(case),
                Direct::OqsRust => run_oqs_rust(case),
            };
            let kb: Vec<_> = exes.iter().map(|e| run_kembench(e, case, &json)).collect();
            for &op in case.ops {
                let (Some(d), true) = (direct.get(op), kb.iter().all(|k| k.contains_key(op)))
                else {
                    continue;
                };
                let s = series.entry((ci, op)).or_default();
                s.direct.push(*d);
                s.kembench.resize(exes.len(), Vec::new());
                for (i, k) in kb.iter().enumerate() {
                    s.kembench[i].push(k[op]);
                }
            }
        }
    }
    eprintln!();
    println!(
        "{:<9} {:<15} {:<10} {:>4} {:>11} {:>11} {:>7} {:>13} {:>7}",
        "impl", "alg", "op", "exe", "direct ns", "kembench ns", "ratio", "ratio p25-p75", "fast"
    );
    for ((ci, op), s) in &series {
        let case = cases[*ci];
        for (ei, kb) in s.kembench.iter().enumerate() {
            let mut ratios: Vec<f64> = kb.iter().zip(&s.direct).map(|(k, d)| k / d).collect();
            ratios.sort_by(f64::total_cmp);
            let n = ratios.len();
            println!(
                "{:<9} {:<15} {:<10} {:>4} {:>11.0} {:>11.0} {:>7.3} {:>6.3}-{:.3} {:>7.3}",
                case.label,
                case.alg,
                op,
                ei,
                median(&mut s.direct.clone()),
                median(&mut kb.clone()),
                median(&mut ratios),
                ratios[n / 4],
                ratios[(3 * n) / 4],
                min(kb) / min(&s.direct),
            );
        }
    }
    // What the old decapsulation from bytes cost: importing the key, then decapsulating.
    for (ci, case) in cases.iter().enumerate() {
        let (Some(d), Some(i)) = (series.get(&(ci, "decaps")), series.get(&(ci, "sk-import")))
        else {
            continue;
        };
        for ei in 0..d.kembench.len() {
            println!(
                "{} {}: decaps + sk-import (the old decapsulation from bytes) = {:.0} ns in kembench{}, {:.0} ns direct; decaps alone is {:.1}% of it",
                case.imp,
                case.alg,
                min(&d.kembench[ei]) + min(&i.kembench[ei]),
                if d.kembench.len() > 1 { format!(" (exe {ei})") } else { String::new() },
                min(&d.direct) + min(&i.direct),
                100.0 * min(&d.kembench[ei]) / (min(&d.kembench[ei]) + min(&i.kembench[ei])),
            );
        }
    }
    println!(
        "ratio: median of per-round kembench/direct (quartiles beside it); fast: fastest kembench \
         figure over fastest direct figure. Import rows only where kembench has the operation."
    );
    println!(
        "liboqs-uh: the same C loop on a used heap (KEMBENCH_DIRECT_USED_HEAP=1, benches/direct/loop.h), \
         as a long-running process's heap is; liboqs-rs: the same liboqs calls from this Rust binary."
    );
}
