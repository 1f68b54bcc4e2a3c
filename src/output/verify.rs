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
    println!("n/a: the check does not apply (e.g. no other implementation to interoperate with, no vectors for that algorithm or API).");
}
