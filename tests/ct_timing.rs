//! The timing screen (dudect) through its worker process, against the mocks that leak in time
//! (`mock/ct-timing`: subnormal operands; `mock/ct-branch`: an extra SHA-256 on half the
//! ciphertexts) and the clean one.
//!
//! Robust on a noisy, shared VM: the leaks are large (thousands of cycles against a call of
//! a few microseconds), so |t| passes 10 with a wide margin within the budget; the clean mock
//! is held to the noise floor's own robust property (the A/A test stays under the threshold)
//! and to the absence of a "definitely leaks" figure, not to a small |t| that cache effects
//! between a fixed and random inputs could push over 10 on a loaded machine.

use kembench::ct::{timing, Context};
use kembench::kem::Op;
use kembench::providers::Registry;
use kembench::record::ct::{FindingKind, Ran, Screen, MIN_MEASUREMENTS, T_DEFINITELY};
use std::path::PathBuf;
use std::time::Duration;

fn context(budget: Duration) -> Context {
    Context {
        exe: PathBuf::from(env!("CARGO_BIN_EXE_kembench")),
        include_mock: true,
        seed: 1,
        valgrind: Err("not needed by the timing screen".into()),
        work_dir: std::env::temp_dir(),
        timing_budget: budget,
        worker_timeout: Duration::from_secs(60),
    }
}

fn screen(name: &str, ops: &[Op], budget: Duration) -> Vec<kembench::record::ct::ScreenResult> {
    // Every test sets the same value: the ct mocks exist only with it, here and in the worker.
    std::env::set_var("KEMBENCH_MOCK_CT", "1");
    let k = Registry::new(true)
        .get(&format!("MockKEM@mock/{name}"))
        .expect("the mock");
    timing::screen(&context(budget), k.as_ref(), ops)
}

fn assert_caught(name: &str) {
    let r = screen(name, &[Op::Decaps], Duration::from_secs(4));
    assert_eq!(r.len(), 1);
    let r = &r[0];
    assert_eq!(r.screen, Screen::Timing);
    assert_eq!(r.operation, Op::Decaps);
    assert_eq!(r.ran, Ran::Screened, "{r:?}");
    let t = r.timing.as_ref().expect("dudect's figures");
    assert!(t.measurements >= MIN_MEASUREMENTS, "{t:?}");
    assert!(t.leaks(), "{name} not caught: {t:?}\n{}", r.how);
    assert!(t.worst_t() > 10.0, "{t:?}");
    assert!(
        r.findings.iter().any(|f| f.kind == FindingKind::Timing),
        "{r:?}"
    );
    assert!(r.how.contains("noise floor"), "{}", r.how);
}

#[test]
fn the_subnormal_mock_is_caught_in_decaps() {
    assert_caught("ct-timing");
}

#[test]
fn the_branching_mock_is_caught_in_decaps() {
    assert_caught("ct-branch");
}

#[test]
fn the_clean_mock_shows_no_definite_leak_and_a_quiet_noise_floor() {
    let r = screen(
        "correct",
        &[Op::Keygen, Op::Encaps, Op::Decaps],
        Duration::from_secs(3),
    );
    assert_eq!(
        r.iter().map(|r| r.operation).collect::<Vec<_>>(),
        [Op::Keygen, Op::Encaps, Op::Decaps]
    );
    for r in &r {
        assert_eq!(r.ran, Ran::Screened, "{r:?}");
        let t = r.timing.as_ref().expect("dudect's figures");
        assert!(t.measurements >= MIN_MEASUREMENTS, "{t:?}");
        assert!(t.worst_t() < T_DEFINITELY, "{:?}: {t:?}", r.operation);
        assert!(t.noise_floor_t < 10.0, "{:?}: {t:?}", r.operation);
        assert!(t.timer.contains("TSC") || t.timer.contains("CLOCK_MONOTONIC"));
    }
}

#[test]
fn an_implementation_the_worker_cannot_load_fails_every_op() {
    let mut ctx = context(Duration::from_millis(10));
    ctx.include_mock = false;
    std::env::set_var("KEMBENCH_MOCK_CT", "1");
    let k = Registry::new(true)
        .get("MockKEM@mock/ct-branch")
        .expect("the mock");
    let r = timing::screen(&ctx, k.as_ref(), &[Op::Keygen, Op::Decaps]);
    assert_eq!(r.len(), 2);
    for r in &r {
        assert!(
            matches!(&r.ran, Ran::Failed(e) if e.contains("mock/ct-branch")),
            "{r:?}"
        );
    }
}

/// Through the worker process, as `ct` runs it: NTRU (no derandomized entry point, its draws
/// fixed through kembench's interposed `getrandom`) gets a fixed class of keygen and encaps
/// from replayed draws; aws-lc's ML-KEM (a per-thread DRBG the seed only starts) says in one
/// sentence why it cannot.
#[test]
fn keygen_and_encaps_are_timed_by_replayed_draws_or_say_why_not() {
    let ops = [Op::Keygen, Op::Encaps];
    let budget = Duration::from_millis(300);
    let registry = Registry::new(false);
    let ntru = registry
        .get("ntruhps2048509@pqclean/clean")
        .expect("NTRU is in the default build");
    for r in timing::screen(&context(budget), ntru.as_ref(), &ops) {
        assert_eq!(r.ran, Ran::Screened, "{r:?}");
        assert!(r.how.contains("replayed"), "{}", r.how);
    }
    let awslc = registry
        .get("ML-KEM-768@aws-lc")
        .expect("aws-lc is in the default build");
    for r in timing::screen(&context(budget), awslc.as_ref(), &ops) {
        let Ran::NotScreened(why) = &r.ran else {
            panic!("{r:?}")
        };
        assert!(why.contains("do not replay"), "{why}");
        assert!(why.contains("DRBG"), "{why}");
    }
}
