//! `kembench compare OLD.json NEW.json`: what changed between two runs, and is it real.

use crate::compare::{self, Report};
use crate::output::{num, table, units};
use crate::run::result::{RunRecord, SCHEMA_VERSION};
use crate::stats::Verdict;
use anyhow::{bail, Context};
use comfy_table::{Cell, Color};
use std::path::Path;
use std::process::ExitCode;

/// Reads and validates a `run --json` file.
pub fn load_run(path: &Path) -> anyhow::Result<RunRecord> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{} is not JSON (expected a file written by `kembench run --json`)",
            path.display()
        )
    })?;
    match v.get("kind").and_then(|k| k.as_str()) {
        Some("kembench-run") => {}
        Some(other) => bail!(
            "{} holds a '{other}' record, not a run (`kembench run --json`)",
            path.display()
        ),
        None => bail!(
            "{} is not a kembench results file (no 'kind' field)",
            path.display()
        ),
    }
    let version = v
        .get("schema_version")
        .and_then(|s| s.as_u64())
        .unwrap_or(0);
    if version > SCHEMA_VERSION as u64 {
        bail!(
            "{} was written by a newer kembench (schema {version}, this one reads up to {SCHEMA_VERSION}); upgrade kembench",
            path.display()
        );
    }
    serde_json::from_value(v)
        .with_context(|| format!("{} is a malformed run record", path.display()))
}

fn print(r: &Report, old: &Path, new: &Path) {
    println!("old: {}\nnew: {}", old.display(), new.display());
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
    old: &Path,
    new: &Path,
    noise_pct: f64,
    fail_on: Option<f64>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    if !(0.0..100.0).contains(&noise_pct) {
        bail!("--noise is a percentage between 0 and 100, got {noise_pct}");
    }
    let (a, b) = (load_run(old)?, load_run(new)?);
    let report = compare::compare(&a, &b, noise_pct / 100.0);
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print(&report, old, new);
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
