//! Fidelity: kembench's median against a minimal loop that times the same library function
//! directly. Run with `cargo bench --bench fidelity`; the ratio should be within 3% of 1.
//!
//! Shared virtual machines drift between speed states over seconds, so the two are
//! interleaved in many short rounds on one pinned CPU, and the figure is the median of the
//! per-round ratios (each round compares measurements taken a fraction of a second apart),
//! with the quartiles of those ratios beside it.
//!
//! The direct loops call the libraries' own functions (liboqs through `oqs-sys`, libcrux
//! through its AVX2 or portable module, aws-lc through `aws-lc-rs`) with no kembench code in
//! between; each call is timed on its own with `Instant` and the median is taken.

use kembench::measure::sampler::{self, Op, SamplerConfig};
use kembench::measure::timer::Timers;
use kembench::providers::registry::{Filter, Registry};
use std::hint::black_box;
use std::time::Instant;

const CALLS: usize = 500;
const ROUNDS: usize = 15;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn direct_times(mut call: impl FnMut()) -> f64 {
    for _ in 0..50 {
        call();
    }
    let mut t = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let s = Instant::now();
        call();
        t.push(s.elapsed().as_nanos() as f64);
    }
    median(t)
}

/// Direct loops: (label, op, loop).
fn direct(label: &str, op: Op) -> Box<dyn FnMut() -> f64> {
    match (label, op) {
        ("ML-KEM-768@liboqs", _) => {
            let name = std::ffi::CString::new("ML-KEM-768").unwrap();
            // SAFETY: valid name; the KEM object lives for the whole program (leaked).
            let kem = unsafe { oqs_sys::kem::OQS_KEM_new(name.as_ptr()) };
            assert!(!kem.is_null());
            let (mut pk, mut sk, mut ct, mut ss) = (
                vec![0u8; 1184],
                vec![0u8; 2400],
                vec![0u8; 1088],
                vec![0u8; 32],
            );
            // SAFETY: buffers of liboqs's declared lengths.
            unsafe { oqs_sys::kem::OQS_KEM_keypair(kem, pk.as_mut_ptr(), sk.as_mut_ptr()) };
            // SAFETY: as above.
            unsafe {
                oqs_sys::kem::OQS_KEM_encaps(kem, ct.as_mut_ptr(), ss.as_mut_ptr(), pk.as_ptr())
            };
            Box::new(move || {
                direct_times(|| unsafe {
                    // SAFETY: as above.
                    match op {
                        Op::Keygen => {
                            oqs_sys::kem::OQS_KEM_keypair(kem, pk.as_mut_ptr(), sk.as_mut_ptr())
                        }
                        Op::Encaps => oqs_sys::kem::OQS_KEM_encaps(
                            kem,
                            ct.as_mut_ptr(),
                            ss.as_mut_ptr(),
                            pk.as_ptr(),
                        ),
                        _ => oqs_sys::kem::OQS_KEM_decaps(
                            kem,
                            ss.as_mut_ptr(),
                            ct.as_ptr(),
                            sk.as_ptr(),
                        ),
                    };
                    black_box(&ss);
                })
            })
        }
        ("ML-KEM-768@libcrux/avx2", _) => {
            use libcrux_ml_kem::mlkem768::avx2 as m;
            let mut seed = [0u8; 64];
            getrandom::fill(&mut seed).unwrap();
            let kp = m::generate_key_pair(seed);
            let (ct, _) = m::encapsulate(kp.public_key(), [7u8; 32]);
            Box::new(move || {
                direct_times(|| {
                    match op {
                        Op::Keygen => {
                            let mut r = [0u8; 64];
                            getrandom::fill(&mut r).unwrap();
                            black_box(m::generate_key_pair(r));
                        }
                        Op::Encaps => {
                            let mut r = [0u8; 32];
                            getrandom::fill(&mut r).unwrap();
                            black_box(m::encapsulate(kp.public_key(), r));
                        }
                        _ => {
                            black_box(m::decapsulate(kp.private_key(), &ct));
                        }
                    };
                })
            })
        }
        ("X25519@aws-lc", _) => {
            use aws_lc_rs::agreement::{self, PrivateKey, UnparsedPublicKey};
            let peer = PrivateKey::generate(&agreement::X25519).unwrap();
            let peer_pub = peer.compute_public_key().unwrap().as_ref().to_vec();
            Box::new(move || {
                direct_times(|| {
                    match op {
                        Op::Keygen => {
                            let k = PrivateKey::generate(&agreement::X25519).unwrap();
                            black_box(k.compute_public_key().unwrap());
                        }
                        _ => {
                            let k = PrivateKey::generate(&agreement::X25519).unwrap();
                            black_box(k.compute_public_key().unwrap());
                            agreement::agree(
                                &k,
                                UnparsedPublicKey::new(&agreement::X25519, &peer_pub),
                                (),
                                |s| {
                                    black_box(s);
                                    Ok(())
                                },
                            )
                            .unwrap();
                        }
                    };
                })
            })
        }
        _ => unreachable!(),
    }
}

/// Pins this thread to the last CPU, so both loops run on the same core.
fn pin() -> Option<usize> {
    let cpu = std::thread::available_parallelism().ok()?.get() - 1;
    // SAFETY: a zeroed cpu_set_t is valid; CPU_SET writes inside it; pid 0 is this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        (libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0)
            .then_some(cpu)
    }
}

fn main() {
    let pinned = pin();
    let registry = Registry::new(false);
    let timers = Timers::calibrate();
    let cfg = SamplerConfig {
        time_budget_s: 0.1,
        warmup_s: 0.02,
        ..SamplerConfig::default()
    };
    let cases: [(&str, &str, &[Op]); 3] = [
        (
            "ML-KEM-768",
            "liboqs",
            &[Op::Keygen, Op::Encaps, Op::Decaps],
        ),
        (
            "ML-KEM-768",
            "libcrux/avx2",
            &[Op::Keygen, Op::Encaps, Op::Decaps],
        ),
        ("X25519", "aws-lc", &[Op::Keygen, Op::Encaps]),
    ];
    println!("pinned to CPU {pinned:?}; {ROUNDS} rounds of {CALLS} direct calls and one kembench sample set");
    println!(
        "{:<26} {:<7} {:>12} {:>12} {:>8} {:>15}",
        "implementation", "op", "direct", "kembench", "ratio", "ratio p25-p75"
    );
    for (alg, imp, ops) in cases {
        let f = Filter {
            algorithms: vec![alg.into()],
            implementations: vec![imp.into()],
            ..Filter::default()
        };
        let Ok(sel) = registry.select(&f) else {
            println!("{alg}@{imp}: not available here");
            continue;
        };
        let k = sel[0].clone();
        let label = k.meta().label();
        for &op in ops {
            let mut run_direct = direct(&label, op);
            let (mut d, mut kb, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..ROUNDS {
                let direct_ns = run_direct();
                let s = sampler::sample(k.as_ref(), op, &cfg, &timers, None, "not counted here")
                    .unwrap();
                let kb_ns = median(s.samples_ns);
                ratios.push(kb_ns / direct_ns);
                d.push(direct_ns);
                kb.push(kb_ns);
            }
            ratios.sort_by(f64::total_cmp);
            let (q1, q3) = (ratios[ROUNDS / 4], ratios[3 * ROUNDS / 4]);
            println!(
                "{label:<26} {:<7} {:>9.0} ns {:>9.0} ns {:>8.3} {:>7.3}-{:.3}",
                op.as_str(),
                median(d),
                median(kb),
                median(ratios),
                q1,
                q3
            );
        }
    }
    println!("X25519 'encaps' is ephemeral key generation plus derivation, as in the DHKEM model.");
}
