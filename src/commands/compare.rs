//! `kembench compare A B`: what changed between two runs (stored or in files), and is it real.

use crate::compare::{self, Report};
use crate::output::{num, table, units};
use crate::record::Record;
use crate::run::result::RunRecord;
use crate::stats::Verdict;
use anyhow::bail;
use comfy_table::{Cell, Color};
use std::process::ExitCode;

/// The run a selector names: a `run --json` file, or a run in the store.
fn load_run(spec: &str, selector: &str) -> anyhow::Result<(String, RunRecord)> {
    match super::store::load(spec, selector, Some("run"))? {
        (name, Record::Run(r)) => Ok((name, *r)),
        (name, Record::Throughput(_)) => {
            bail!("{name} is a throughput run; compare reads latency runs (`kembench run`)")
        }
    }
}

fn print(r: &Report, old: &str, new: &str) {
    println!("old: {old}\nnew: {new}");
    if r.differences.is_empty() {
        println!("Same environment and provider versions.");
    } else {
        println!("Differences between the runs (read the ratios with these in mind):");
        for d in &r.differences {
            println!("  {}: {} -> {}", d.what, d.old, d.new);
        }
    }
    let mut t = table(&[
        "algorithm",
        "implementation",
        "op",
        "old median",
        "new median",
        "new/old",
        "95% CI",
        "p",
        "verdict",
    ]);
    for row in &r.rows {
        let c = &row.comparison;
        let verdict = match c.verdict {
            Verdict::Faster => Cell::new("faster").fg(Color::Green),
            Verdict::Slower => Cell::new("SLOWER").fg(Color::Red),
            Verdict::WithinNoise => Cell::new("within noise"),
        };
        t.add_row(vec![
            Cell::new(&row.algorithm),
            Cell::new(&row.implementation),
            Cell::new(row.operation.as_str()),
            num(units::ns(row.old_median_ns)),
            num(units::ns(row.new_median_ns)),
            num(format!("{:.3}", c.ratio)),
            num(format!("{:.3} – {:.3}", c.ratio_ci_low, c.ratio_ci_high)),
            num(format!("{:.3}", c.p_value)),
            verdict,
        ]);
    }
    println!("{t}");
    for (label, side) in &r.unmatched {
        println!("only in the {side} run: {label}");
    }
    println!(
        "Verdict: faster/slower only when significant (p < 0.05: bootstrap over the samples and, with 4+ rounds, Mann-Whitney over the round medians) and beyond ±{:.1}%; otherwise within noise.",
        r.noise_threshold * 100.0
    );
}

/// Runs `compare`.
pub fn run(
    spec: &str,
    old: &str,
    new: &str,
    noise_pct: f64,
    fail_on: Option<f64>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    if !(0.0..100.0).contains(&noise_pct) {
        bail!("--noise is a percentage between 0 and 100, got {noise_pct}");
    }
    let ((old, a), (new, b)) = (load_run(spec, old)?, load_run(spec, new)?);
    let report = compare::compare(&a, &b, noise_pct / 100.0);
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print(&report, &old, &new);
    }
    if let Some(pct) = fail_on {
        let reg = report.regressions(pct);
        if !reg.is_empty() {
            eprintln!(
                "{} operations regressed by more than {pct}% with significance",
                reg.len()
            );
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}
