//! `kembench verify`: the correctness gate as a table (or JSON) and an exit code.

use crate::cli::FilterArgs;
use crate::kem::registry::Registry;
use crate::output::table;
use crate::verify::{self, Check, Outcome, Report};
use comfy_table::{Cell, Color};
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

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

fn print_table(report: &Report) {
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

/// Runs `verify`.
pub fn run(
    filter: &FilterArgs,
    json: bool,
    threads: Option<u16>,
    min_round_trips: u32,
) -> anyhow::Result<ExitCode> {
    let registry = Registry::new(filter.include_mock);
    let impls = registry.select(&filter.to_filter())?;
    let mut opts = verify::Options {
        min_round_trips: min_round_trips as usize,
        ..verify::Options::default()
    };
    if let Some(t) = threads {
        opts.threads = t as usize;
    }
    let total = impls.len();
    let done = AtomicUsize::new(0);
    let tty = std::io::stderr().is_terminal();
    let progress = |what: &str| {
        if tty {
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            eprint!("\r\x1b[2Kverify: {what} ({}/{total})", n.min(total));
        }
    };
    let report = verify::run(&impls, &opts, &progress);
    if tty {
        eprint!("\r\x1b[2K");
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_table(&report);
    }
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
