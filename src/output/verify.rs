//! The console table of `verify`: within [`super::WIDTH`] columns, each check's verdict in its
//! cell and every detail below it; with `--wide`, the details in the cells.

use super::{prose, table, Width};
use crate::verify::{kat, Check, Outcome, Report};
use comfy_table::{Cell, Color};

/// A check's title as a fitted table's header: its words on lines of their own.
fn header(title: &str, layout: Width) -> String {
    match layout {
        Width::Fit => title.replace(' ', "\n"),
        Width::Wide => title.to_string(),
    }
}

fn cell(o: Option<&Outcome>, check: Check, layout: Width) -> Cell {
    match (o, layout) {
        (Some(Outcome::Pass(d)), Width::Wide)
            if matches!(check, Check::KnownAnswers | Check::RoundTrip) =>
        {
            Cell::new(format!("pass: {d}")).fg(Color::Green)
        }
        (Some(Outcome::Pass(d)), Width::Fit) if check == Check::KnownAnswers => {
            match kat::ran_and_left_out(d) {
                (_, Some(_)) => Cell::new("pass, part").fg(Color::Green),
                (_, None) => Cell::new("pass").fg(Color::Green),
            }
        }
        (Some(Outcome::Pass(_)), _) => Cell::new("pass").fg(Color::Green),
        (Some(Outcome::Fail(_)), _) => Cell::new("FAIL").fg(Color::Red),
        (Some(Outcome::Skip(_)), _) => Cell::new("n/a"),
        (None, _) => Cell::new("-"),
    }
}

/// The console table of the correctness gate, then every failure, the totals, why checks did
/// not apply and which known answers were left out.
pub fn print_table(report: &Report, layout: Width) {
    let titles: Vec<String> = Check::ALL
        .iter()
        .map(|c| header(c.title(), layout))
        .collect();
    let mut header: Vec<&str> = vec!["algorithm", "implementation"];
    header.extend(titles.iter().map(String::as_str));
    header.push("verdict");
    let mut t = table(&header);
    for r in &report.implementations {
        let mut row = vec![
            Cell::new(super::clean(&r.algorithm)),
            Cell::new(super::clean(&r.implementation)),
        ];
        row.extend(Check::ALL.iter().map(|c| cell(r.checks.get(c), *c, layout)));
        row.push(if r.passed() {
            Cell::new("PASS").fg(Color::Green)
        } else {
            Cell::new("FAIL").fg(Color::Red)
        });
        t.add_row(row);
    }
    if layout == Width::Fit {
        // Names never break (the checks' headers already stand one word a line); a table
        // whose ids are too long for every check leaves the last checks to `--wide` (a failed
        // one is said under the table all the same).
        let checks: Vec<usize> = (2..2 + Check::ALL.len()).collect();
        super::fit(&mut t, &[], &checks);
    }
    println!("{t}");
    let failed: Vec<_> = report
        .implementations
        .iter()
        .filter(|r| !r.passed())
        .collect();
    let mut below = String::new();
    for r in &failed {
        for (c, o) in &r.checks {
            if let Outcome::Fail(why) = o {
                below.push_str(&prose(
                    layout,
                    &super::clean(&format!(
                        "FAIL {}@{} {}: {why}",
                        r.algorithm,
                        r.implementation,
                        c.title()
                    )),
                ));
            }
        }
    }
    let pairs = report.interop_pairs.len();
    let pairs_ok = report
        .interop_pairs
        .iter()
        .filter(|p| !p.outcome.failed())
        .count();
    below.push_str(&format!(
        "{} of {} implementations pass; {pairs_ok} of {pairs} interoperability pairs pass; {:.1} s\n",
        report.implementations.len() - failed.len(),
        report.implementations.len(),
        report.seconds
    ));
    for line in not_applicable(report) {
        below.push_str(&prose(layout, &super::clean(&line)));
    }
    if layout == Width::Fit {
        for line in left_out(report) {
            below.push_str(&prose(layout, &super::clean(&line)));
        }
    }
    print!("{below}");
}

/// `(key, label)` pairs grouped by key in first-seen order: each key with its first few labels
/// named (`a, b, c and 2 more`).
fn grouped(items: impl Iterator<Item = (String, String)>) -> Vec<(String, String)> {
    const NAMED: usize = 3;
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (key, label) in items {
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, labels)) => labels.push(label),
            None => groups.push((key, vec![label])),
        }
    }
    groups
        .into_iter()
        .map(|(key, labels)| {
            let more = labels.len().saturating_sub(NAMED);
            let mut named = labels
                .into_iter()
                .take(NAMED)
                .collect::<Vec<_>>()
                .join(", ");
            if more > 0 {
                named.push_str(&format!(" and {more} more"));
            }
            (key, named)
        })
        .collect()
}

/// Known answers that passed with some vectors left out ("pass, part" in a fitted table):
/// one line per reason, naming the implementations.
fn left_out(report: &Report) -> Vec<String> {
    let items = report.implementations.iter().filter_map(|r| {
        let Some(Outcome::Pass(d)) = r.checks.get(&Check::KnownAnswers) else {
            return None;
        };
        let (_, why) = kat::ran_and_left_out(d);
        Some((
            why?.to_string(),
            format!("{}@{}", r.algorithm, r.implementation),
        ))
    });
    grouped(items)
        .into_iter()
        .map(|(why, named)| format!("part known answers: {why} ({named})"))
        .collect()
}

/// Why checks did not apply ("n/a" in the table): one line per check and reason, naming the
/// first few implementations it concerns.
fn not_applicable(report: &Report) -> Vec<String> {
    let mut items: Vec<(Check, String, String)> = Vec::new();
    for r in &report.implementations {
        for (c, o) in &r.checks {
            if let Outcome::Skip(why) = o {
                items.push((
                    *c,
                    why.clone(),
                    format!("{}@{}", r.algorithm, r.implementation),
                ));
            }
        }
    }
    // Stable: within a check, reasons keep the order they were first seen in.
    items.sort_by_key(|(c, _, _)| *c);
    grouped(
        items
            .into_iter()
            .map(|(c, why, label)| (format!("{}: {why}", c.title()), label)),
    )
    .into_iter()
    .map(|(key, named)| format!("n/a {key} ({named})"))
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
