//! The console table of `verify`.

use super::table;
use crate::verify::{Check, Outcome, Report};
use comfy_table::{Cell, Color};

fn cell(o: Option<&Outcome>, check: Check) -> Cell {
    match o {
        Some(Outcome::Pass(d)) if matches!(check, Check::KnownAnswers | Check::RoundTrip) => {
            Cell::new(format!("pass: {d}")).fg(Color::Green)
        }
        Some(Outcome::Pass(_)) => Cell::new("pass").fg(Color::Green),
        Some(Outcome::Fail(_)) => Cell::new("FAIL").fg(Color::Red),
        Some(Outcome::Skip(_)) => Cell::new("n/a"),
        None => Cell::new("-"),
    }
}

/// The console table of the correctness gate, then every failure and the totals.
pub fn print_table(report: &Report) {
    let mut header = vec!["algorithm", "implementation"];
    header.extend(Check::ALL.iter().map(|c| c.title()));
    header.push("verdict");
    let mut t = table(&header);
    for r in &report.implementations {
        let mut row = vec![Cell::new(&r.algorithm), Cell::new(&r.implementation)];
        row.extend(Check::ALL.iter().map(|c| cell(r.checks.get(c), *c)));
        row.push(if r.passed() {
            Cell::new("PASS").fg(Color::Green)
        } else {
            Cell::new("FAIL").fg(Color::Red)
        });
        t.add_row(row);
    }
    println!("{t}");
    let failed: Vec<_> = report
        .implementations
        .iter()
        .filter(|r| !r.passed())
        .collect();
    for r in &failed {
        for (c, o) in &r.checks {
            if let Outcome::Fail(why) = o {
                println!(
                    "FAIL {}@{} {}: {why}",
                    r.algorithm,
                    r.implementation,
                    c.title()
                );
            }
        }
    }
    let pairs = report.interop_pairs.len();
    let pairs_ok = report
        .interop_pairs
        .iter()
        .filter(|p| !p.outcome.failed())
        .count();
    println!(
        "{} of {} implementations pass; {pairs_ok} of {pairs} interoperability pairs pass; {:.1} s",
        report.implementations.len() - failed.len(),
        report.implementations.len(),
        report.seconds
    );
    for line in not_applicable(report) {
        println!("{line}");
    }
}

/// Why checks did not apply ("n/a" in the table): one line per check and reason, naming the
/// first few implementations it concerns.
fn not_applicable(report: &Report) -> Vec<String> {
    const NAMED: usize = 3;
    let mut groups: Vec<((Check, &str), Vec<String>)> = Vec::new();
    for r in &report.implementations {
        for (c, o) in &r.checks {
            let Outcome::Skip(why) = o else { continue };
            let label = format!("{}@{}", r.algorithm, r.implementation);
            match groups.iter_mut().find(|(k, _)| *k == (*c, why.as_str())) {
                Some((_, labels)) => labels.push(label),
                None => groups.push(((*c, why), vec![label])),
            }
        }
    }
    groups.sort_by_key(|((c, _), _)| *c);
    groups
        .into_iter()
        .map(|((c, why), labels)| {
            let more = labels.len().saturating_sub(NAMED);
            let mut named = labels
                .into_iter()
                .take(NAMED)
                .collect::<Vec<_>>()
                .join(", ");
            if more > 0 {
                named.push_str(&format!(" and {more} more"));
            }
            format!("n/a {}: {why} ({named})", c.title())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::ImplReport;
    use std::collections::BTreeMap;

    fn skipped(alg: &str, imp: &str, why: &str) -> ImplReport {
        ImplReport {
            algorithm: alg.into(),
            implementation: imp.into(),
            version: String::new(),
            checks: BTreeMap::from([
                (Check::RoundTrip, Outcome::Pass("3 trips".into())),
                (Check::KeptKeys, Outcome::Skip(why.into())),
            ]),
        }
    }

    #[test]
    fn reasons_for_na_are_grouped_and_named() {
        let report = Report {
            implementations: (0..5)
                .map(|i| skipped("X", &format!("lib{i}"), "no bytes"))
                .chain([skipped("Y", "other", "another reason")])
                .collect(),
            interop_pairs: Vec::new(),
            seconds: 0.0,
        };
        assert_eq!(
            not_applicable(&report),
            [
                "n/a kept keys: no bytes (X@lib0, X@lib1, X@lib2 and 2 more)",
                "n/a kept keys: another reason (Y@other)",
            ]
        );
    }
}
