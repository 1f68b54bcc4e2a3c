//! The secret-flow screen (memcheck) on the constant-time mocks (`KEMBENCH_MOCK_CT=1`) and on
//! one real library, with the exception lists kembench carries. These tests need valgrind:
//! without it they say so, and fail under `KEMBENCH_REQUIRE_COMPONENTS=1` (as in CI).

use kembench::ct::exceptions::Exceptions;
use kembench::ct::secret_flow::screen;
use kembench::ct::Context;
use kembench::kem::Kem;
use kembench::kem::Op;
use kembench::providers::registry::Registry;
use kembench::record::ct::{FindingKind, Ran, Screen, ScreenResult};
use std::path::PathBuf;
use std::time::Duration;

const OPS: [Op; 3] = [Op::Keygen, Op::Encaps, Op::Decaps];

fn valgrind(test: &str) -> Option<PathBuf> {
    match kembench::profile::valgrind::locate() {
        Ok(v) => Some(v),
        Err(_) => {
            kembench::missing::skip(test, "valgrind", "sudo apt-get install valgrind");
            None
        }
    }
}

fn context(valgrind: Result<PathBuf, String>, name: &str) -> Context {
    Context {
        exe: PathBuf::from(env!("CARGO_BIN_EXE_kembench")),
        include_mock: true,
        seed: 1,
        valgrind,
        work_dir: std::env::temp_dir()
            .join(format!("kembench-ct-flow-{}-{name}", std::process::id())),
        timing_budget: Duration::from_secs(1),
        worker_timeout: Duration::from_secs(120),
    }
}

/// Screens `label` (the mocks need `KEMBENCH_MOCK_CT=1`, set for this process and so for the
/// worker it starts).
fn screened(ctx: &Context, label: &str) -> Vec<ScreenResult> {
    std::env::set_var("KEMBENCH_MOCK_CT", "1");
    let registry = Registry::new(true);
    let k = registry
        .get(label)
        .unwrap_or_else(|| panic!("{label} is not offered"));
    let k: &dyn Kem = k.as_ref();
    let r = screen(ctx, k, &OPS);
    let _ = std::fs::remove_dir_all(&ctx.work_dir);
    assert_eq!(r.len(), 3, "one result per operation");
    for (res, op) in r.iter().zip(OPS) {
        assert_eq!(res.screen, Screen::SecretFlow);
        assert_eq!(res.operation, op);
    }
    r
}

fn all_screened(r: &[ScreenResult]) {
    for s in r {
        assert_eq!(s.ran, Ran::Screened, "{:?}: {:?}", s.operation, s.ran);
        assert!(!s.how.is_empty(), "the worker's `how` is kept");
    }
}

#[test]
fn the_secret_branch_of_the_branch_mock_is_found_in_decaps_only() {
    let Some(v) = valgrind("the_secret_branch_of_the_branch_mock_is_found_in_decaps_only") else {
        return;
    };
    let r = screened(&context(Ok(v), "branch"), "MockKEM@mock/ct-branch");
    all_screened(&r);
    assert!(r[0].findings.is_empty(), "keygen: {:#?}", r[0].findings);
    assert!(r[1].findings.is_empty(), "encaps: {:#?}", r[1].findings);
    let f = &r[2].findings;
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].kind, FindingKind::Branch);
    assert_eq!(f[0].function, "kembench::providers::mock::leak");
    let line = f[0].line.as_deref().expect("a line");
    assert!(line.starts_with("mock.rs:"), "{line}");
    assert!(f[0].count_per_call >= 1);
    assert!(
        !f[0].stack.iter().any(|s| s.starts_with("kembench_ct_")),
        "the stack is cut at the marker: {:?}",
        f[0].stack
    );
    // Not in any list: unexplained.
    let mut d = r[2].clone();
    Exceptions::builtin()
        .unwrap()
        .explain("MockKEM", "mock/ct-branch", &mut d);
    assert!(d.findings[0].explained.is_none());
    // Listed in a user's file: explained, with its reason.
    let mine = Exceptions::parse(
        r#"[[exception]]
id = "mock-branch"
list = "issue"
algorithm = "MockKEM"
implementation = "mock/ct-*"
screen = "secret-flow"
operation = "decaps"
kind = "branch"
function = "kembench::providers::mock::leak"
reason = "the mock branches on a secret byte on purpose"
"#,
        "mine.toml",
    )
    .unwrap();
    mine.explain("MockKEM", "mock/ct-branch", &mut d);
    let e = d.findings[0].explained.as_ref().expect("explained");
    assert_eq!(e.id, "mock-branch");
    assert!(mine
        .stale([("MockKEM", "mock/ct-branch", Screen::SecretFlow)])
        .is_empty());
}

#[test]
fn the_secret_index_of_the_index_mock_is_found_in_decaps_only() {
    let Some(v) = valgrind("the_secret_index_of_the_index_mock_is_found_in_decaps_only") else {
        return;
    };
    let r = screened(&context(Ok(v), "index"), "MockKEM@mock/ct-index");
    all_screened(&r);
    assert!(
        r[0].findings.is_empty() && r[1].findings.is_empty(),
        "{r:#?}"
    );
    let f = &r[2].findings;
    assert!(!f.is_empty());
    assert!(
        f.iter().all(|f| f.kind == FindingKind::Index),
        "only the index: {f:#?}"
    );
    assert!(
        f.iter()
            .all(|f| f.function.starts_with("kembench::providers::mock::")),
        "{f:#?}"
    );
}

/// memcheck cannot see a division (it only propagates undefinedness through it) nor a leak in
/// time alone (subnormal operands): the screen finds nothing in these mocks, by design; the
/// latency and timing screens are the ones that catch them. A clean mock is clean.
#[test]
fn memcheck_sees_nothing_in_the_division_timing_and_correct_mocks() {
    let Some(v) = valgrind("memcheck_sees_nothing_in_the_division_timing_and_correct_mocks") else {
        return;
    };
    for id in ["mock/ct-division", "mock/ct-timing", "mock/correct"] {
        let name = id.replace('/', "-");
        let r = screened(&context(Ok(v.clone()), &name), &format!("MockKEM@{id}"));
        all_screened(&r);
        for s in &r {
            assert!(
                s.findings.is_empty(),
                "{id} {:?}: {:#?}",
                s.operation,
                s.findings
            );
        }
    }
}

/// One real library (PQClean's portable ML-KEM-768, the quickest under memcheck): it has
/// findings (the public matrix's rejection sampling), and the lists kembench carries explain
/// every one of them.
#[test]
fn a_real_library_s_findings_are_all_explained_by_the_builtin_lists() {
    let Some(v) = valgrind("a_real_library_s_findings_are_all_explained_by_the_builtin_lists")
    else {
        return;
    };
    let mut r = screened(&context(Ok(v), "pqclean"), "ML-KEM-768@pqclean/clean");
    all_screened(&r);
    assert!(
        r[0].findings.iter().any(|f| f.kind == FindingKind::Branch),
        "{r:#?}"
    );
    let x = Exceptions::builtin().unwrap();
    for s in &mut r {
        x.explain("ML-KEM-768", "pqclean/clean", s);
        for f in &s.findings {
            let e = f
                .explained
                .as_ref()
                .unwrap_or_else(|| panic!("unexplained: {f:#?}"));
            assert_eq!(e.id, "mlkem-pqclean-gen-matrix", "{f:#?}");
        }
    }
}

/// PQClean's NTRU draws from the operating system through `getrandom` in every call and has
/// no derandomized entry point: kembench's interposed `getrandom` serves its draws from the
/// seeded stream and the worker marks every one secret, so every operation is screened.
#[test]
fn ntru_s_draws_are_marked_secret_through_the_interposed_getrandom() {
    let Some(v) = valgrind("ntru_s_draws_are_marked_secret_through_the_interposed_getrandom")
    else {
        return;
    };
    let r = screened(&context(Ok(v), "ntru"), "ntruhps2048509@pqclean/clean");
    all_screened(&r);
    for s in &r {
        assert!(s.how.contains("every random byte secret"), "{}", s.how);
        assert!(s.how.contains("getrandom"), "{}", s.how);
    }
}

#[test]
fn without_valgrind_nothing_is_screened_and_the_reason_is_given() {
    let r = screened(
        &context(
            Err("valgrind is not installed: sudo apt-get install valgrind".into()),
            "none",
        ),
        "MockKEM@mock/ct-branch",
    );
    for s in &r {
        assert!(
            matches!(&s.ran, Ran::NotScreened(w) if w.contains("apt-get install valgrind")),
            "{:?}",
            s.ran
        );
        assert!(s.findings.is_empty());
    }
}

#[test]
fn a_worker_past_its_timeout_is_stopped_and_said_so() {
    let Some(v) = valgrind("a_worker_past_its_timeout_is_stopped_and_said_so") else {
        return;
    };
    let mut ctx = context(Ok(v), "timeout");
    ctx.worker_timeout = Duration::from_millis(300);
    let r = screened(&ctx, "MockKEM@mock/ct-branch");
    for s in &r {
        assert!(
            matches!(&s.ran, Ran::Failed(w) if w.contains("stopped after 0.3 s")),
            "{:?}",
            s.ran
        );
    }
}
