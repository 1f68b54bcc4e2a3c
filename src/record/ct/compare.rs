//! Comparison of two ct runs. A finding is keyed by (implementation, operation, screen, kind,
//! function): one in the new run and not in the old that no exception lists as benign is a
//! regression (`compare --fail-on-regression` fails on it, whatever its percentage), and so is
//! one the old run had explained that the new one does not; a finding gone from a screen that
//! ran in both runs is an improvement; a screen that ran in the old run and not in the new is
//! said, since what it found there is no longer known. The verdicts of each implementation
//! are set side by side.

use super::{CtRecord, CtResult, Finding, Ran, Screen, Verdict};
use crate::kem::Op;
use crate::record::compare::{self as shared, environment_differences, Asked, EnvDifference};
use crate::record::Benchmark;
use crate::table::{Cell, Column, Mark, Table, Tables, CONSOLE};
use serde::Serialize;

/// What names one finding across two runs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct FindingKey {
    /// `algorithm@implementation`.
    pub label: String,
    /// The operation.
    pub operation: Op,
    /// The screen.
    pub screen: Screen,
    /// The kind's short name (`branch`, `div`).
    pub kind: String,
    /// The function it is in.
    pub function: String,
}

impl FindingKey {
    fn of(r: &CtResult, operation: Op, screen: Screen, f: &Finding) -> FindingKey {
        FindingKey {
            label: r.label(),
            operation,
            screen,
            kind: f.kind.short().to_string(),
            function: f.function.clone(),
        }
    }

    /// `ML-KEM-768@x decaps secret-flow branch in f`.
    pub fn words(&self) -> String {
        format!(
            "{} {} {} {}{}",
            self.label,
            self.operation.as_str(),
            self.screen.as_str(),
            self.kind,
            if self.function.is_empty() {
                String::new()
            } else {
                format!(" in {}", self.function)
            }
        )
    }
}

/// How a finding changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// In the new run only, not listed as benign: a regression.
    New,
    /// In both, explained in the old run and not in the new: a regression.
    NoLongerExplained,
    /// In the new run only, listed as benign.
    NewBenign,
    /// In the old run only, its screen ran in both: an improvement.
    Gone,
    /// In both, unexplained in the old run, explained in the new.
    NowExplained,
}

impl Change {
    /// Whether `--fail-on-regression` fails on it.
    pub fn regression(self) -> bool {
        matches!(self, Change::New | Change::NoLongerExplained)
    }

    fn words(self) -> &'static str {
        match self {
            Change::New => "new",
            Change::NoLongerExplained => "no longer explained",
            Change::NewBenign => "new, listed benign",
            Change::Gone => "gone",
            Change::NowExplained => "now explained",
        }
    }
}

/// One finding that changed.
#[derive(Debug, Clone, Serialize)]
pub struct FindingChange {
    /// The finding.
    pub key: FindingKey,
    /// How.
    pub change: Change,
    /// `file:line` in the run that has it (the new one, or the old one for a finding gone).
    pub line: Option<String>,
}

/// One implementation's verdict in both runs.
#[derive(Debug, Clone, Serialize)]
pub struct VerdictRow {
    /// `algorithm@implementation`.
    pub label: String,
    /// In the old run.
    pub old: Verdict,
    /// In the new run.
    pub new: Verdict,
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct CtComparison {
    /// Environment, build and provider differences.
    pub differences: Vec<EnvDifference>,
    /// Each implementation screened in both runs.
    pub verdicts: Vec<VerdictRow>,
    /// Every finding that changed.
    pub findings: Vec<FindingChange>,
    /// Screens that ran in the old run and not in the new: (label, operation, screen, why).
    pub no_longer_screened: Vec<(String, Op, Screen, String)>,
    /// Implementations screened in only one run: (label, "old" or "new").
    pub unmatched: Vec<(String, &'static str)>,
}

impl CtComparison {
    /// The findings that are regressions.
    pub fn regressions(&self) -> impl Iterator<Item = &FindingChange> {
        self.findings.iter().filter(|f| f.change.regression())
    }
}

/// Every finding of a result, keyed.
fn keyed(r: &CtResult) -> Vec<(FindingKey, &Finding)> {
    r.screens
        .iter()
        .flat_map(|s| {
            s.findings
                .iter()
                .map(move |f| (FindingKey::of(r, s.operation, s.screen, f), f))
        })
        .collect()
}

fn ran(r: &CtResult, op: Op, screen: Screen) -> bool {
    r.screen(screen, op).is_some_and(|s| s.ran == Ran::Screened)
}

/// Compares two ct runs, `old` then `new`.
pub fn compare(old: &CtRecord, new: &CtRecord) -> CtComparison {
    let mut out = CtComparison {
        differences: environment_differences(&old.environment, &new.environment),
        verdicts: Vec::new(),
        findings: Vec::new(),
        no_longer_screened: Vec::new(),
        unmatched: Vec::new(),
    };
    if old.measured.valgrind != new.measured.valgrind {
        shared::diff(
            &mut out.differences,
            "valgrind",
            old.measured.valgrind.as_deref().unwrap_or("none"),
            new.measured.valgrind.as_deref().unwrap_or("none"),
        );
    }
    for a in &old.results {
        let Some(b) = new.result(&a.algorithm, &a.implementation) else {
            out.unmatched.push((a.label(), "old"));
            continue;
        };
        shared::diff(
            &mut out.differences,
            &format!("version ({})", a.label()),
            &a.version,
            &b.version,
        );
        out.verdicts.push(VerdictRow {
            label: a.label(),
            old: a.verdict(),
            new: b.verdict(),
        });
        let (ka, kb) = (keyed(a), keyed(b));
        for (k, f) in &kb {
            let change = match ka.iter().find(|(x, _)| x == k) {
                None if f
                    .explained
                    .as_ref()
                    .is_some_and(|e| e.list == super::ExceptionList::Benign) =>
                {
                    Change::NewBenign
                }
                None => Change::New,
                Some((_, g)) if g.explained.is_some() && f.explained.is_none() => {
                    Change::NoLongerExplained
                }
                Some((_, g)) if g.explained.is_none() && f.explained.is_some() => {
                    Change::NowExplained
                }
                Some(_) => continue,
            };
            out.findings.push(FindingChange {
                key: k.clone(),
                change,
                line: f.line.clone(),
            });
        }
        for (k, f) in &ka {
            if ran(b, k.operation, k.screen) && !kb.iter().any(|(x, _)| x == k) {
                out.findings.push(FindingChange {
                    key: k.clone(),
                    change: Change::Gone,
                    line: f.line.clone(),
                });
            }
        }
        for s in a.screens.iter().filter(|s| s.ran == Ran::Screened) {
            if !ran(b, s.operation, s.screen) {
                let why = match b.screen(s.screen, s.operation).map(|x| &x.ran) {
                    Some(Ran::NotScreened(w)) => format!("not screened: {w}"),
                    Some(Ran::Failed(w)) => format!("failed: {w}"),
                    _ => "not asked for".to_string(),
                };
                out.no_longer_screened
                    .push((a.label(), s.operation, s.screen, why));
            }
        }
    }
    for b in &new.results {
        if old.result(&b.algorithm, &b.implementation).is_none() {
            out.unmatched.push((b.label(), "new"));
        }
    }
    out
}

/// The comparison of two ct runs as `compare` shows it.
pub struct Compared<'a> {
    report: CtComparison,
    asked: Asked<'a>,
}

impl<'a> Compared<'a> {
    /// Compares `old` and `new`, named as `asked`.
    pub fn new(old: &CtRecord, new: &CtRecord, asked: Asked<'a>) -> Compared<'a> {
        Compared {
            report: compare(old, new),
            asked,
        }
    }

    /// The comparison itself.
    pub fn report(&self) -> &CtComparison {
        &self.report
    }
}

impl shared::Comparison for Compared<'_> {
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&self.report)
    }

    fn nothing_shared(&self) -> Option<String> {
        self.report.verdicts.is_empty().then(|| {
            format!(
                "{} and {} screened no implementation in common",
                self.asked.old, self.asked.new
            )
        })
    }

    /// The verdicts side by side, every finding that changed, the screens no longer run.
    fn tables(&self) -> Tables {
        let r = &self.report;
        let verdicts = shared::table(
            "verdicts",
            vec![
                Column::text("implementation"),
                Column::text("old verdict"),
                Column::text("new verdict"),
            ],
            r.verdicts
                .iter()
                .map(|v| {
                    vec![
                        Cell::text(&v.label),
                        super::tables::verdict_cell(v.old),
                        super::tables::verdict_cell(v.new)
                            .marked_if(v.new < v.old, Mark::Bad),
                    ]
                })
                .collect(),
        );
        let findings = shared::table(
            "findings",
            vec![
                Column::text("change"),
                Column::text("implementation"),
                Column::text("op"),
                Column::text("screen"),
                Column::text("kind"),
                Column::text("function"),
                Column::text("file:line"),
            ],
            r.findings
                .iter()
                .map(|f| {
                    let c = Cell::text(f.change.words());
                    let c = match f.change {
                        Change::New | Change::NoLongerExplained => c.marked(Mark::Bad),
                        Change::Gone | Change::NowExplained => c.marked(Mark::Good),
                        Change::NewBenign => c.marked(Mark::Warn),
                    };
                    vec![
                        c,
                        Cell::text(&f.key.label),
                        Cell::text(f.key.operation.as_str()),
                        Cell::text(f.key.screen.as_str()),
                        Cell::text(&f.key.kind),
                        Cell::text(&f.key.function),
                        Cell::text(f.line.clone().unwrap_or_else(|| "–".into())),
                    ]
                })
                .collect(),
        );
        let lost: String = r
            .no_longer_screened
            .iter()
            .map(|(l, o, s, why)| {
                format!(
                    "screened in the old run only: {l} {} {} ({why})\n",
                    o.as_str(),
                    s.as_str()
                )
            })
            .collect();
        let unchanged = if r.findings.is_empty() {
            "No finding changed.\n"
        } else {
            ""
        };
        shared::console(
            vec![
                shared::heading(
                    &self.asked,
                    &r.differences,
                    "Same environment and versions.",
                    "runs",
                ),
                verdicts,
                findings,
                Table::block("unchanged", CONSOLE, unchanged),
                Table::block("no-longer-screened", CONSOLE, lost),
                shared::unmatched(&r.unmatched, "run"),
            ],
            "A finding is named by implementation, operation, screen, kind and function; a new one that no exception lists as benign, or one no longer explained, is a regression.",
        )
    }

    /// Any new finding not listed as benign, or no longer explained: the percentage does not
    /// apply to findings.
    fn regressions(&self, _pct: f64) -> Option<String> {
        let list: Vec<String> = self
            .report
            .regressions()
            .map(|f| format!("{} ({})", f.key.words(), f.change.words()))
            .collect();
        (!list.is_empty()).then(|| {
            format!(
                "{} constant-time finding{} regressed: {}",
                list.len(),
                if list.len() == 1 { "" } else { "s" },
                list.join("; ")
            )
        })
    }
}
