//! The ct record kind against its fixture: JSON, verdicts, tables, CSV, metrics, checks and
//! `compare`.

use super::*;
use crate::export::fixture;
use crate::record::compare::Comparison;
use compare::Compared;
use crate::record::Benchmark;
use crate::table::Target;

fn asked() -> Asked<'static> {
    Asked {
        old: "a.json",
        new: "b.json",
        noise: 0.02,
    }
}

#[test]
fn the_fixture_round_trips_through_json() {
    let r = fixture::ct();
    let text = serde_json::to_string_pretty(&r).unwrap();
    assert!(text.contains("\"kind\": \"kembench-ct\""), "{text}");
    assert!(text.contains("\"valgrind\": \"valgrind-3.19.0\""), "{text}");
    let back: CtRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(back.results, r.results);
    assert_eq!(back.config, r.config);
    assert_eq!(back.measured, r.measured);
    // Through the generic loader, as a record of any kind.
    let any = crate::record::parse("ct.json", text.as_bytes()).unwrap();
    assert_eq!(any.kind(), crate::record::RecordKind::Ct);
    assert_eq!(crate::record::RecordKind::Ct.store_kind(), "ct");
}

#[test]
fn each_result_has_its_verdict() {
    let r = fixture::ct();
    let v: Vec<Verdict> = r.results.iter().map(CtResult::verdict).collect();
    assert_eq!(
        v,
        [
            Verdict::Benign,
            Verdict::Unexplained,
            Verdict::KnownIssue,
            Verdict::Incomplete
        ]
    );
    assert_eq!(r.results[1].verdict_of(Op::Keygen), Verdict::Clean);
    assert_eq!(r.results[1].verdict_of(Op::Decaps), Verdict::Unexplained);
    assert_eq!(r.results[1].unexplained().count(), 2, "the branch and the timing leak");
}

#[test]
fn a_result_cut_short_is_never_clean() {
    let mut r = fixture::ct().results[0].clone();
    r.screens[0].findings.clear();
    assert_eq!(r.verdict(), Verdict::Clean);
    r.error = Some("the worker died".into());
    assert_eq!(r.verdict(), Verdict::Incomplete);
    r.error = None;
    r.screens.clear();
    assert_eq!(r.verdict(), Verdict::Incomplete, "nothing screened");
    assert_eq!(r.status(), ResultStatus::Ok);
    r.interrupted = true;
    assert_eq!(r.status(), ResultStatus::Interrupted);
    assert!(!r.is_final());
}

fn drawn(target: Target) -> String {
    drawn_of(&fixture::ct(), target)
}

/// Every table of `r` as `target` draws it, a line per row, cells joined by ` | `.
fn drawn_of(r: &CtRecord, target: Target) -> String {
    let t = Ct::tables(r, &r.results);
    let mut s = String::new();
    for table in &t.tables {
        if let Some(d) = table.draw(target) {
            s.push_str(&format!("# {}\n", d.id));
            s.push_str(
                &d.columns
                    .iter()
                    .map(|c| c.text.clone())
                    .collect::<Vec<_>>()
                    .join(" | "),
            );
            s.push('\n');
            for l in d.rows {
                s.push_str(
                    &l.cells
                        .iter()
                        .map(|c| c.text.clone())
                        .collect::<Vec<_>>()
                        .join(" | "),
                );
                s.push('\n');
            }
        }
    }
    s
}

#[test]
fn the_verdicts_table_has_a_short_cell_per_screen_and_operation() {
    let fit = drawn(Target::Fit);
    assert!(
        fit.contains("ML-KEM-768 | liboqs | keygen 1 branch (benign) | clean | no leak at 41k | benign findings only"),
        "{fit}"
    );
    assert!(
        fit.contains("MockKEM | mock/ct-branch | decaps 1 branch | clean | decaps |t|=37 | unexplained findings"),
        "{fit}"
    );
    assert!(fit.contains("decaps 1 div (issue)"), "{fit}");
    assert!(fit.contains("| not screened | not screened |"), "{fit}");
    let wide = drawn(Target::Wide);
    assert!(
        wide.contains("keygen secret-flow | keygen latency | keygen timing | encaps secret-flow"),
        "{wide}"
    );
    for t in [Target::Fit, Target::Wide, Target::Markdown, Target::Report] {
        let s = drawn(t);
        assert!(!s.to_lowercase().contains("constant time"), "{t:?}: {s}");
    }
}

#[test]
fn every_finding_says_where_and_what_explains_it() {
    let s = drawn(Target::Wide);
    assert!(
        s.contains("ML-KEM-768@liboqs | keygen | secret-flow | branch | PQCLEAN_MLKEM768_CLEAN_rej_uniform | mlkem/indcpa.c:146 | 1 |  | benign mlkem-rej-uniform: rejection sampling"),
        "{s}"
    );
    assert!(
        s.contains("MockKEM@mock/ct-branch | decaps | secret-flow | branch | mock_ct_branch_decaps | src/providers/mock.rs:412 | 1 |  | unexplained"),
        "{s}"
    );
    assert!(s.contains("| div | mock_ct_division_decaps | src/providers/mock.rs:431 | 1 | yes | issue mock-division"), "{s}");
}

#[test]
fn the_timing_table_uses_dudects_words() {
    let s = drawn(Target::Markdown);
    assert!(s.contains("probably leaks (|t| = 37.2 > 10)"), "{s}");
    assert!(s.contains("no leak detected at 41000 measurements (stopped by the time budget)"), "{s}");
    assert!(s.contains("no verdict: stopped at 8000 measurements"), "{s}");
    // A timing finding names its test where a function would be.
    assert!(
        s.contains("| timing | (test: a fixed valid ciphertext against random valid ones) |"),
        "{s}"
    );
}

#[test]
fn what_was_not_screened_says_why() {
    let s = drawn(Target::Fit);
    assert!(
        s.contains(
            "ML-KEM-768@rustcrypto | keygen, encaps, decaps | secret-flow, latency | not screened \
             | its random draws cannot be fixed"
        ),
        "{s}"
    );
}

#[test]
fn csv_has_a_row_per_operation_and_screen() {
    let r = fixture::ct();
    let rows = Ct::csv_rows(&r, &r.results[1]);
    assert_eq!(rows.len(), 9);
    assert!(rows.iter().all(|x| x.len() == Ct::CSV_HEADER.len()));
    let decaps_flow = rows
        .iter()
        .find(|x| x[4] == "decaps" && x[5] == "secret-flow")
        .unwrap();
    assert_eq!(decaps_flow[9], "1");
    assert_eq!(
        decaps_flow[10],
        "branch mock_ct_branch_decaps src/providers/mock.rs:412 ×1 [unexplained]"
    );
    assert_eq!(decaps_flow[16], "unexplained findings");
}

#[test]
fn metrics_count_unexplained_findings_per_operation() {
    let r = fixture::ct();
    let m = Ct::metrics(&r.results[1]);
    let names: Vec<(String, f64)> = m.iter().map(|m| (m.benchmark(), m.value)).collect();
    assert_eq!(
        names,
        [
            ("MockKEM@mock/ct-branch/keygen".to_string(), 0.0),
            ("MockKEM@mock/ct-branch/encaps".to_string(), 0.0),
            ("MockKEM@mock/ct-branch/decaps".to_string(), 2.0),
        ]
    );
    assert!(m.iter().all(|m| m.measure == Measure::Findings));
}

#[test]
fn check_refuses_unsound_results() {
    let r = fixture::ct();
    assert!(r.check().is_ok());
    let mut twice = r.results[0].clone();
    twice.screens.push(twice.screens[0].clone());
    assert!(Ct::check_result(&twice).unwrap_err().contains("appears twice"));
    let mut nan = r.results[0].clone();
    nan.screens[2].timing.as_mut().unwrap().max_t = f64::NAN;
    assert!(Ct::check_result(&nan).unwrap_err().contains("max |t| is NaN"));
    let mut ghost = r.results[3].clone();
    ghost.screens[0]
        .findings
        .push(r.results[1].screens[6].findings[0].clone());
    assert!(Ct::check_result(&ghost).unwrap_err().contains("did not run but has findings"));
    let mut zero = r.results[1].clone();
    zero.screens[6].findings[0].count_per_call = 0;
    assert!(Ct::check_result(&zero).unwrap_err().contains("0 times per call"));
    let mut bare = r.results[0].clone();
    bare.screens[2].timing = None;
    assert!(Ct::check_result(&bare).unwrap_err().contains("has no figures"));
}

#[test]
fn compare_against_itself_finds_no_change() {
    let r = fixture::ct();
    let c = Compared::new(&r, &r, asked());
    assert!(c.report().findings.is_empty());
    assert!(c.regressions(5.0).is_none());
    assert!(c.nothing_shared().is_none());
}

#[test]
fn a_new_finding_is_a_regression_and_one_gone_an_improvement() {
    let old = fixture::ct();
    let mut new = fixture::ct();
    // liboqs gets a secret branch in decaps; the mock's branch is gone.
    let branch = old.results[1].screens[6].findings[0].clone();
    new.results[0].screens[6].findings.push(branch);
    new.results[1].screens[6].findings.clear();
    // The division's screen did not run in the new run.
    new.results[2].screens[7] = ScreenResult::not_screened(
        Screen::Latency,
        Op::Decaps,
        "valgrind not found",
    );
    let c = Compared::new(&old, &new, asked());
    let changes: Vec<(String, compare::Change)> = c
        .report()
        .findings
        .iter()
        .map(|f| (f.key.words(), f.change))
        .collect();
    assert_eq!(
        changes,
        [
            (
                "ML-KEM-768@liboqs decaps secret-flow branch in mock_ct_branch_decaps".to_string(),
                compare::Change::New
            ),
            (
                "MockKEM@mock/ct-branch decaps secret-flow branch in mock_ct_branch_decaps"
                    .to_string(),
                compare::Change::Gone
            ),
        ],
        "the division is not gone: its screen did not run"
    );
    let line = c.regressions(5.0).unwrap();
    assert!(line.starts_with("1 constant-time finding regressed: ML-KEM-768@liboqs decaps"), "{line}");
    assert_eq!(
        c.report().no_longer_screened,
        [(
            "MockKEM@mock/ct-division".to_string(),
            Op::Decaps,
            Screen::Latency,
            "not screened: valgrind not found".to_string()
        )]
    );
    let text = crate::output::described(&c.tables(), crate::output::Width::Fit);
    assert!(text.contains("screened in the old run only: MockKEM@mock/ct-division decaps latency"), "{text}");
    assert!(text.contains("new"), "{text}");
    assert!(text.contains("gone"), "{text}");
}

#[test]
fn an_exception_removed_is_a_regression_and_a_benign_new_one_is_not() {
    let old = fixture::ct();
    let mut new = fixture::ct();
    new.results[0].screens[0].findings[0].explained = None;
    let c = Compared::new(&old, &new, asked());
    assert!(c.regressions(0.0).unwrap().contains("no longer explained"));
    let mut benign = fixture::ct();
    let mut f = old.results[0].screens[0].findings[0].clone();
    f.function = "other".into();
    benign.results[0].screens[3].findings.push(f);
    let c = Compared::new(&old, &benign, asked());
    assert!(c.regressions(0.0).is_none());
    assert_eq!(c.report().findings[0].change, compare::Change::NewBenign);
}

#[test]
fn verdicts_for_the_speed_tables() {
    let r = fixture::ct();
    let v = Verdicts::of([&r]);
    assert_eq!(v.get("MockKEM", "mock/ct-branch"), Some(Verdict::Unexplained));
    assert!(!v.advisable("MockKEM", "mock/ct-branch"));
    // mock/ct-division's finding is listed as a known issue: explained, not advised.
    assert!(!v.advisable("MockKEM", "mock/ct-division"));
    assert!(v.advisable("X25519", "nothing"), "not screened is not a finding");
    assert_eq!(v.mark("X25519", "nothing"), Some("not screened"));
    assert_eq!(Verdicts::none().mark("MockKEM", "mock/ct-branch"), None);
    // A later record's verdict replaces an earlier one's.
    let mut later = r.clone();
    later.started_at = "2026-11-23T12:00:00Z".into();
    later.results[1].screens[6].findings.clear();
    later.results[1].screens[8].findings.clear();
    let v = Verdicts::of([&later, &r]);
    assert_eq!(v.get("MockKEM", "mock/ct-branch"), Some(Verdict::Clean));
}

/// A known issue fails `ct` until accepted; the console and Markdown say which were accepted
/// and by what, and which fail the run with how to accept them.
#[test]
fn a_known_issue_fails_until_accepted_and_the_tables_say_so() {
    let mut r = fixture::ct();
    let fails: Vec<bool> = r.results.iter().map(CtResult::fails).collect();
    assert_eq!(fails, [false, true, true, false], "the known issue fails, unaccepted");
    let said = |r: &CtRecord| {
        let t = Ct::tables(r, &r.results);
        let outro: Vec<String> = t.outro.iter().map(|(_, s)| s.clone()).collect();
        (outro.join("\n"), drawn_of(r, Target::Wide))
    };
    let (outro, wide) = said(&r);
    assert!(
        outro.contains("Known issues not accepted, which fail the run: mock-division")
            && outro.contains("--accept mock-division"),
        "{outro}"
    );
    assert!(wide.contains("issue mock-division (not accepted): the mock"), "{wide}");
    for s in &mut r.results[2].screens {
        for f in &mut s.findings {
            if let Some(e) = f.explained.as_mut() {
                e.accepted = Some("--accept".into());
            }
        }
    }
    assert!(!r.results[2].fails(), "accepted");
    assert_eq!(r.results[2].verdict(), Verdict::KnownIssue, "still a known issue");
    let (outro, wide) = said(&r);
    assert!(outro.contains("Known issues accepted: mock-division (by --accept)."), "{outro}");
    assert!(!outro.contains("not accepted"), "{outro}");
    assert!(wide.contains("issue mock-division (accepted by --accept): the mock"), "{wide}");
    assert!(wide.contains("known issue (accepted)"), "{wide}");
}

/// Control characters in a record's text (a function name from a library's symbols) are
/// shown escaped in every table of the kind.
#[test]
fn control_characters_in_a_record_are_shown_escaped() {
    let mut r = fixture::ct();
    for s in &mut r.results[1].screens {
        for f in &mut s.findings {
            f.function = "evil\u{1b}[2Jfn".into();
            f.detail = "d\u{7}".into();
        }
        if let Ran::NotScreened(w) | Ran::Failed(w) = &mut s.ran {
            *w = "why\u{1b}]0;t".into();
        }
    }
    r.results[1].implementation = "mock/\u{1b}[31mred".into();
    for target in [Target::Fit, Target::Wide, Target::Markdown] {
        let s = drawn_of(&r, target);
        assert!(!s.contains('\u{1b}') && !s.contains('\u{7}'), "{target:?}: {s}");
        assert!(s.contains("evil\\u{1b}[2Jfn"), "{target:?}: {s}");
    }
}
