//! The tables of a ct run, described once for the console, the Markdown export and the
//! report: the verdicts (a cell per operation and screen), every finding with where it is and
//! what explains it, dudect's figures, and what was not screened and why.
//!
//! The console's default view stays within 120 columns: the verdicts table gives one cell per
//! screen, the operations with something to say named inside it; `--wide`, the Markdown
//! export and the report give a cell per operation and screen.

use super::{CtRecord, CtResult, Finding, Ran, Screen, ScreenResult, Verdict};
use crate::kem::catalog;
use crate::kem::Op;
use crate::record::Benchmark;
use crate::table::{Cell, Column, Mark, Table, Tables, Tags, CONSOLE, FIT, MARKDOWN, REPORT, WIDE};

/// Text from a record (a function name from a library's symbols, an implementation id, an
/// exception's reason: an imported file may hold anything) with every control character shown
/// as an escape, so that none acts on the terminal.
fn escaped(s: &str) -> String {
    crate::units::visible(s)
}

/// The filter tags of a result.
fn tags(r: &CtResult) -> Option<Tags> {
    Some(Tags::catalogued(
        &r.family,
        catalog::level_of(&r.algorithm),
        &r.implementation,
    ))
}

/// The operations of a record: those its configuration asked for, else those its results
/// have, in the order of [`Op::ALL`].
fn operations(record: &CtRecord, items: &[CtResult]) -> Vec<Op> {
    let mut ops: Vec<Op> = record.config.operations.clone();
    for r in items {
        for o in r.operations() {
            if !ops.contains(&o) {
                ops.push(o);
            }
        }
    }
    Op::ALL.iter().copied().filter(|o| ops.contains(o)).collect()
}

/// The screens of a record, in report order.
fn screens(record: &CtRecord) -> Vec<Screen> {
    if record.config.screens.is_empty() {
        Screen::ALL.to_vec()
    } else {
        Screen::ALL
            .into_iter()
            .filter(|s| record.config.screens.contains(s))
            .collect()
    }
}

/// `41k` for 41 000 measurements.
fn thousands(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 10_000 {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

/// The findings of a screen in a few words (`2 branch, 1 index`), with what explains them
/// when every one is explained by one list (`1 div (benign)`).
fn findings_words(findings: &[Finding]) -> String {
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for f in findings {
        match kinds.iter_mut().find(|(k, _)| *k == f.kind.short()) {
            Some((_, n)) => *n += 1,
            None => kinds.push((f.kind.short(), 1)),
        }
    }
    let words: Vec<String> = kinds
        .iter()
        .map(|(k, n)| format!("{n} {}", escaped(k)))
        .collect();
    let lists: Vec<Option<super::ExceptionList>> = findings
        .iter()
        .map(|f| f.explained.as_ref().map(|e| e.list))
        .collect();
    let why = match lists.first() {
        Some(Some(l)) if lists.iter().all(|x| *x == Some(*l)) => format!(" ({})", l.as_str()),
        _ if lists.iter().any(Option::is_none) && lists.iter().any(Option::is_some) => {
            format!(
                " ({} unexplained)",
                lists.iter().filter(|x| x.is_none()).count()
            )
        }
        _ => String::new(),
    };
    format!("{}{why}", words.join(", "))
}

/// The short cell of one screen on one operation: `clean`, `2 branch`, `1 div (benign)`,
/// `not screened`, `failed`, `no leak at 41k`, `|t|=37`; marked bad for an unexplained
/// finding, a warning for a known issue, a screen that did not run or a test too short.
pub fn short(s: Option<&ScreenResult>) -> Cell {
    let Some(s) = s else {
        return Cell::text("not screened").marked(Mark::Warn);
    };
    match &s.ran {
        Ran::NotScreened(_) => Cell::text("not screened").marked(Mark::Warn),
        Ran::Failed(_) => Cell::text("failed").marked(Mark::Bad),
        Ran::Screened => {
            let v = super::verdict([s]);
            let mark = match v {
                Verdict::Unexplained => Some(Mark::Bad),
                Verdict::KnownIssue => Some(Mark::Warn),
                Verdict::Clean | Verdict::Benign => Some(Mark::Good),
                Verdict::Incomplete => Some(Mark::Warn),
            };
            let text = match (&s.timing, s.findings.is_empty()) {
                (Some(t), true) if t.measurements < super::MIN_MEASUREMENTS => {
                    format!("no verdict at {}", thousands(t.measurements))
                }
                (Some(t), true) => format!("no leak at {}", thousands(t.measurements)),
                (Some(t), false) => {
                    let why = findings_words(&s.findings);
                    let why = why.split_once(' ').map_or("", |(_, w)| w);
                    let why = why.strip_prefix("timing").unwrap_or(why);
                    format!("|t|={:.0}{why}", t.worst_t())
                }
                (None, true) => "clean".to_string(),
                (None, false) => findings_words(&s.findings),
            };
            let warn_short = s
                .timing
                .as_ref()
                .is_some_and(|t| t.measurements < super::MIN_MEASUREMENTS);
            let c = Cell::text(text);
            match mark {
                _ if warn_short && s.findings.is_empty() => c.marked(Mark::Warn),
                Some(m) => c.marked(m),
                None => c,
            }
        }
    }
}

/// The console's cell of one screen over every operation: `clean` when each operation is,
/// else each operation with something to say (`decaps 1 branch`), the worst mark.
fn over_ops(r: &CtResult, screen: Screen, ops: &[Op]) -> Cell {
    let cells: Vec<(Op, Cell)> = ops
        .iter()
        .map(|o| (*o, short(r.screen(screen, *o))))
        .collect();
    let texts: Vec<&str> = cells.iter().map(|(_, c)| c.text.as_str()).collect();
    if let Some(first) = texts.first() {
        let same = texts.iter().all(|t| t == first);
        let timing_clean = texts.iter().all(|t| t.starts_with("no leak at"));
        if same || timing_clean {
            let c = cells[0].1.clone();
            if timing_clean && !same {
                let least = ops
                    .iter()
                    .filter_map(|o| r.screen(screen, *o)?.timing.as_ref())
                    .map(|t| t.measurements)
                    .min()
                    .unwrap_or(0);
                return Cell::text(format!("no leak at ≥{}", thousands(least)))
                    .marked(Mark::Good);
            }
            return c;
        }
    }
    let worst = cells
        .iter()
        .filter_map(|(_, c)| c.mark)
        .max_by_key(|m| match m {
            Mark::Bad => 2,
            Mark::Warn => 1,
            Mark::Good => 0,
        });
    let said: Vec<String> = cells
        .iter()
        .filter(|(_, c)| c.text != "clean" && !c.text.starts_with("no leak at"))
        .map(|(o, c)| format!("{} {}", o.as_str(), c.text))
        .collect();
    let c = Cell::text(said.join("; "));
    match worst {
        Some(m) => c.marked(m),
        None => c,
    }
}

/// A verdict as a cell, marked.
pub fn verdict_cell(v: Verdict) -> Cell {
    let c = Cell::text(v.as_str());
    match v {
        Verdict::Unexplained => c.marked(Mark::Bad),
        Verdict::KnownIssue | Verdict::Incomplete => c.marked(Mark::Warn),
        Verdict::Benign | Verdict::Clean => c.marked(Mark::Good),
    }
}

/// Every table of `record` over `items`, with what is said around them.
pub fn tables(record: &CtRecord, items: &[CtResult]) -> Tables {
    let c = &record.config;
    let valgrind = record
        .measured
        .valgrind
        .clone()
        .map_or_else(|| "valgrind not found".into(), |v| escaped(&v));
    let exceptions = if c.exceptions.is_empty() {
        "no exception list".to_string()
    } else {
        format!("exceptions from {}", escaped(&c.exceptions.join(", ")))
    };
    Tables {
        title: format!("kembench ct, {}", escaped(&record.started_at)),
        intro: vec![(
            MARKDOWN | REPORT,
            format!(
                "Screens: {}; operations {}; seed {}; timing budget {} s per operation; {}; {}.",
                screens(record)
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                operations(record, items)
                    .iter()
                    .map(|o| o.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                c.seed,
                c.timing_budget_s,
                valgrind,
                exceptions,
            ),
        )],
        tables: vec![
            verdicts(record, items),
            findings(items),
            timing(items),
            not_screened(items),
        ],
        outro: std::iter::once((
            CONSOLE | MARKDOWN,
            "A screen reports what it saw under its own marking and inputs: secret flow and \
             latency follow the secrets through one call per operation, and dudect's \
             \"no leak detected at N measurements\" says only that N measurements did not \
             tell the two classes apart. A finding no exception explains makes a build not \
             advisable."
                .to_string(),
        ))
        .chain(issues_words(items).into_iter().map(|w| (CONSOLE | MARKDOWN, w)))
        .collect(),
        rest_elsewhere: false,
    }
}

/// One row per implementation: a cell per screen (console) or per operation and screen
/// (`--wide`, Markdown, the report), and the verdict. The Markdown export streams it.
fn verdicts(record: &CtRecord, items: &[CtResult]) -> Table {
    let ops = operations(record, items);
    let screens = screens(record);
    let mut t = Table::new("table-ct-verdicts");
    let file = t.add(Column::file());
    let algorithm = t.add(Column::text("algorithm"));
    let implementation = t.add(Column::text("implementation"));
    let build = t.add(Column::text("build"));
    let per_screen: Vec<_> = screens
        .iter()
        .map(|s| t.add(Column::text(s.as_str()).wraps()))
        .collect();
    let mut per_cell = Vec::new();
    for o in &ops {
        for s in &screens {
            per_cell.push((
                *o,
                *s,
                t.add(Column::text(&format!("{} {}", o.as_str(), s.as_str()))),
            ));
        }
    }
    let verdict = t.add(Column::text("verdict"));
    let names = [algorithm, implementation];
    let cells: Vec<_> = per_cell.iter().map(|(_, _, c)| *c).collect();
    t.view(FIT, 1, &[&names[..], &per_screen, &[verdict]].concat())
        .view(WIDE, 1, &[&names[..], &[build], &cells, &[verdict]].concat())
        .view(MARKDOWN, 0, &[&names[..], &[build], &cells, &[verdict]].concat())
        .view(
            REPORT,
            0,
            &[&[file][..], &names, &[build], &cells, &[verdict]].concat(),
        )
        .always(CONSOLE | MARKDOWN)
        .caption(
            CONSOLE | MARKDOWN,
            "Verdicts: per screen and operation (clean, findings by kind, not screened; \
             timing: dudect's |t| or the measurements with no leak detected)",
        )
        .streamed();
    for r in items {
        let row = t.row(tags(r));
        row.set(algorithm, escaped(&r.algorithm))
            .set(implementation, escaped(&r.implementation))
            .set(build, escaped(r.build.as_deref().unwrap_or_default()));
        for (s, col) in screens.iter().zip(&per_screen) {
            row.set(*col, over_ops(r, *s, &ops));
        }
        for (o, s, col) in &per_cell {
            row.set(*col, short(r.screen(*s, *o)));
        }
        let v = r.verdict();
        let mut cell = verdict_cell(v);
        if v == Verdict::KnownIssue && !r.fails() {
            cell = Cell::text(format!("{} (accepted)", v.as_str())).marked(Mark::Warn);
        } else if v == Verdict::KnownIssue {
            cell = cell.marked(Mark::Bad);
        }
        if r.error.is_some() {
            cell = Cell::text(format!("{} (error)", v.as_str())).marked(Mark::Bad);
        } else if r.interrupted {
            cell = Cell::text(format!("{} (interrupted)", v.as_str())).marked(Mark::Warn);
        }
        row.set(verdict, cell);
    }
    t
}

/// Every finding: where it is, how often per call, and what explains it.
fn findings(items: &[CtResult]) -> Table {
    let mut t = Table::new("table-ct-findings");
    let file = t.add(Column::file());
    let label = t.add(Column::text("implementation"));
    let operation = t.add(Column::text("op").named(MARKDOWN | REPORT, "operation"));
    let screen = t.add(Column::text("screen"));
    let kind = t.add(Column::text("kind"));
    let function = t.add(Column::text("function"));
    // Left out of the console's default view when long function names would push it past
    // 120 columns (`--wide` has it).
    let line = t.add(Column::text("file:line").optional());
    let count = t.add(Column::num("per call"));
    let operands = t.add(Column::text("secret operands"));
    let explained = t.add(Column::text("explained by").wraps());
    let listed = t.add(Column::text("explained by").wraps());
    let detail = t.add(Column::text("detail"));
    let names = [label, operation, screen, kind, function, line, count];
    t.view(FIT, 2, &[label, operation, kind, function, line, listed])
        .view(WIDE, 3, &[&names[..], &[operands, explained, detail]].concat())
        .view(MARKDOWN, 0, &[&names[..], &[operands, explained, detail]].concat())
        .view(
            REPORT,
            0,
            &[&[file][..], &names, &[operands, explained, detail]].concat(),
        )
        .caption(CONSOLE | MARKDOWN, "Findings")
        .folded();
    for r in items {
        for s in &r.screens {
            for f in &s.findings {
                let short_why = match &f.explained {
                    None => Cell::text("unexplained").marked(Mark::Bad),
                    Some(e) => Cell::text(format!(
                        "{} {}{}",
                        e.list.as_str(),
                        escaped(&e.id),
                        accepted_words(e, false)
                    ))
                    .marked(explained_mark(e)),
                };
                let why = match &f.explained {
                    None => Cell::text("unexplained").marked(Mark::Bad),
                    Some(e) => Cell::text(format!(
                        "{} {}{}: {}",
                        e.list.as_str(),
                        escaped(&e.id),
                        accepted_words(e, true),
                        escaped(&e.reason)
                    ))
                    .marked(explained_mark(e)),
                };
                let ops = match f.secret_operands {
                    Some(super::SecretOperands::Yes) => "yes",
                    Some(super::SecretOperands::No) => "no",
                    Some(super::SecretOperands::Unknown) => "unknown",
                    None => "",
                };
                t.row(tags(r))
                    .set(label, escaped(&r.label()))
                    .set(operation, s.operation.as_str())
                    .set(screen, s.screen.as_str())
                    .set(kind, escaped(f.kind.short()))
                    .set(function, escaped(&function_of(f)))
                    .set(line, f.line.as_deref().map_or_else(|| "–".into(), escaped))
                    .set(count, Cell::int(f.count_per_call))
                    .set(operands, ops)
                    .set(explained, why)
                    .set(listed, short_why)
                    .set(detail, escaped(&f.detail));
            }
        }
    }
    t
}

/// After a known issue's id: ` (accepted)`, or with `by` what accepted it; with `by`,
/// ` (not accepted)` for an issue nobody accepted (it fails the run); nothing for a benign
/// entry.
fn accepted_words(e: &super::Explained, by: bool) -> String {
    match (e.list, &e.accepted) {
        (super::ExceptionList::Benign, _) => String::new(),
        (super::ExceptionList::Issue, Some(a)) if by => format!(" (accepted by {})", escaped(a)),
        (super::ExceptionList::Issue, Some(_)) => " (accepted)".into(),
        // The console's narrow cell keeps the id whole; the run's last lines name the issues
        // not accepted and how to accept them.
        (super::ExceptionList::Issue, None) if !by => String::new(),
        (super::ExceptionList::Issue, None) => " (not accepted)".into(),
    }
}

/// A benign finding is good; an accepted known issue a warning; one nobody accepted fails the
/// run: bad.
fn explained_mark(e: &super::Explained) -> Mark {
    match (e.list, &e.accepted) {
        (super::ExceptionList::Benign, _) => Mark::Good,
        (super::ExceptionList::Issue, Some(_)) => Mark::Warn,
        (super::ExceptionList::Issue, None) => Mark::Bad,
    }
}

/// The known issues of `items` by id, each with what accepted it (`None`: nobody), in the
/// order first found.
fn issues(items: &[CtResult]) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for f in items.iter().flat_map(|r| &r.screens).flat_map(|s| &s.findings) {
        if let Some(e) = f.explained.as_ref().filter(|e| e.list == super::ExceptionList::Issue) {
            if !out.iter().any(|(id, _)| *id == e.id) {
                out.push((escaped(&e.id), e.accepted.as_deref().map(escaped)));
            }
        }
    }
    out
}

/// What the console and Markdown say after the tables of known issues: those accepted and by
/// what, and those that fail the run with how to accept them.
fn issues_words(items: &[CtResult]) -> Vec<String> {
    let all = issues(items);
    let accepted: Vec<String> = all
        .iter()
        .filter_map(|(id, by)| Some(format!("{id} (by {})", by.as_ref()?)))
        .collect();
    let open: Vec<&str> = all
        .iter()
        .filter(|(_, by)| by.is_none())
        .map(|(id, _)| id.as_str())
        .collect();
    let mut out = Vec::new();
    if !accepted.is_empty() {
        out.push(format!("Known issues accepted: {}.", accepted.join(", ")));
    }
    if !open.is_empty() {
        out.push(format!(
            "Known issues not accepted, which fail the run: {}. A known leak is still a leak; \
             accept one by its id with `--accept {}` or an `[[accept]]` entry (id and reason) \
             in an exception list given with --exceptions.",
            open.join(", "),
            open.join(",")
        ));
    }
    out
}

/// What the function column shows: the function, or for a timing finding (which has none) the
/// test that found it, so that decaps's two tests are two rows that say which is which.
fn function_of(f: &super::Finding) -> String {
    match f.kind {
        super::FindingKind::Timing if f.function.is_empty() => {
            match f.detail.split_once(": ") {
                Some((test, _)) => format!("(test: {test})"),
                None => "(timing test)".into(),
            }
        }
        _ => f.function.clone(),
    }
}

/// dudect's figures per operation: the classes, the measurements, the |t| of each test and
/// the noise floor, and the verdict in dudect's words.
fn timing(items: &[CtResult]) -> Table {
    let mut t = Table::new("table-ct-timing");
    let file = t.add(Column::file());
    let label = t.add(Column::text("implementation"));
    let operation = t.add(Column::text("op").named(MARKDOWN | REPORT, "operation"));
    let classes = t.add(Column::text("classes").wraps());
    let n = t.add(Column::num("N"));
    let max_t = t.add(Column::num("max |t|"));
    let test = t.add(Column::text("test"));
    let second = t.add(Column::num("2nd-order |t|"));
    let floor = t.add(Column::num("noise floor |t|"));
    let timer = t.add(Column::text("timer"));
    let said = t.add(Column::text("verdict").wraps());
    let names = [label, operation];
    t.view(FIT, 1, &[&names[..], &[n, max_t, second, floor, said]].concat())
        .view(
            WIDE,
            1,
            &[&names[..], &[classes, n, max_t, test, second, floor, timer, said]].concat(),
        )
        .view(
            MARKDOWN,
            0,
            &[&names[..], &[classes, n, max_t, test, second, floor, timer, said]].concat(),
        )
        .view(
            REPORT,
            0,
            &[&[file][..], &names, &[classes, n, max_t, test, second, floor, timer, said]]
                .concat(),
        )
        .caption(CONSOLE | MARKDOWN, "Timing (dudect: fixed against random inputs)");
    for r in items {
        for s in r.screens.iter().filter(|s| s.screen == Screen::Timing) {
            let Some(x) = &s.timing else { continue };
            let words = x.verdict();
            let mark = if x.leaks() {
                Mark::Bad
            } else if x.measurements < super::MIN_MEASUREMENTS {
                Mark::Warn
            } else {
                Mark::Good
            };
            let budget = if x.stopped_by_budget {
                " (stopped by the time budget)"
            } else {
                ""
            };
            t.row(tags(r))
                .set(label, escaped(&r.label()))
                .set(operation, s.operation.as_str())
                .set(classes, escaped(&x.classes))
                .set(n, Cell::int(x.measurements))
                .set(max_t, Cell::num(format!("{:.1}", x.max_t.abs()), x.max_t.abs()))
                .set(test, escaped(&x.max_t_test))
                .set(
                    second,
                    Cell::num(format!("{:.1}", x.second_order_t.abs()), x.second_order_t.abs()),
                )
                .set(
                    floor,
                    Cell::num(format!("{:.1}", x.noise_floor_t.abs()), x.noise_floor_t.abs()),
                )
                .set(
                    timer,
                    match x.pinned_cpu {
                        Some(c) => format!("{}, CPU {c}", escaped(&x.timer)),
                        None => escaped(&x.timer),
                    },
                )
                .set(
                    said,
                    Cell::text(format!("{words}{budget}"))
                        .marked(mark)
                        .on(FIT, words.clone()),
                );
        }
    }
    t
}

/// What was not screened, or failed, and why; and the implementations an error stopped.
fn not_screened(items: &[CtResult]) -> Table {
    let mut t = Table::new("table-ct-not-screened");
    let file = t.add(Column::file());
    let label = t.add(Column::text("implementation"));
    let operation = t.add(Column::text("op").named(MARKDOWN | REPORT, "operation"));
    let screen = t.add(Column::text("screen"));
    let state = t.add(Column::text("state"));
    let why = t.add(Column::text("why").wraps());
    let shown = [label, operation, screen, state, why];
    t.view(FIT, 1, &shown)
        .view(WIDE, 1, &shown)
        .view(MARKDOWN, 0, &shown)
        .view(REPORT, 0, &[&[file][..], &shown].concat())
        .caption(CONSOLE | MARKDOWN, "Not screened");
    for r in items {
        if let Some(e) = &r.error {
            t.row(tags(r))
                .set(label, escaped(&r.label()))
                .set(state, Cell::text("error").marked(Mark::Bad))
                .set(why, escaped(e));
        }
        // One row per cause: the screens and operations it kept from running together.
        for g in r.gaps() {
            let mark = if g.state == "failed" { Mark::Bad } else { Mark::Warn };
            t.row(tags(r))
                .set(label, escaped(&r.label()))
                .set(
                    operation,
                    g.ops.iter().map(|o| o.as_str()).collect::<Vec<_>>().join(", "),
                )
                .set(
                    screen,
                    g.screens
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                )
                .set(state, Cell::text(g.state).marked(mark))
                .set(why, escaped(&g.why));
        }
    }
    t
}
