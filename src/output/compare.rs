//! The console table of `compare`.

use super::{num, table};
use crate::compare::profile::{Certainty, ProfileReport};
use crate::compare::Report;
use crate::stats::Verdict;
use crate::units;
use comfy_table::{Cell, Color};

/// The console table of a comparison: per operation, the ratio, its interval, p and the
/// verdict.
pub fn print(r: &Report, old: &str, new: &str) {
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

/// The console output of a comparison of two profiles: per operation the exact instruction
/// ratio, then the functions whose self counts changed most; each line ends in a newline.
pub fn profile(r: &ProfileReport, old: &str, new: &str) -> String {
    use crate::units::thousands;
    let mut out = format!("old: {old}\nnew: {new}\n");
    if r.differences.is_empty() {
        out.push_str("Same environment, provider versions and valgrind.\n");
    } else {
        out.push_str("Differences between the profiles (read the ratios with these in mind):\n");
        for d in &r.differences {
            out.push_str(&format!("  {}: {} -> {}\n", d.what, d.old, d.new));
        }
    }
    let mut t = table(&[
        "algorithm",
        "implementation",
        "op",
        "old instructions",
        "new instructions",
        "new/old",
        "certainty",
    ]);
    for row in &r.rows {
        let ratio = Cell::new(format!("{:.3}", row.ratio));
        let ratio = if row.old_instructions == row.new_instructions {
            ratio
        } else if row.ratio > 1.0 {
            ratio.fg(Color::Red)
        } else {
            ratio.fg(Color::Green)
        };
        t.add_row(vec![
            Cell::new(&row.algorithm),
            Cell::new(&row.implementation),
            Cell::new(row.operation.as_str()),
            num(thousands(row.old_instructions)),
            num(thousands(row.new_instructions)),
            ratio.set_alignment(comfy_table::CellAlignment::Right),
            Cell::new(match row.certainty {
                Certainty::Exact => "exact",
                Certainty::RangesApart => "varies; ranges apart",
                Certainty::RangesOverlap => "varies; ranges overlap",
                Certainty::NotFixed => "randomness not fixed",
            }),
        ]);
    }
    out.push_str(&format!("{t}\n"));
    for (label, side) in &r.unmatched {
        out.push_str(&format!("only in the {side} profile: {label}\n"));
    }
    if r.functions.is_empty() {
        out.push_str("No function's self count changed.\n");
    } else {
        out.push_str("Functions whose self counts changed most (seed 0):\n");
        for f in &r.functions {
            out.push_str(&format!(
                "  {:>+14}  {} → {}  {} {}: {}\n",
                f.delta(),
                thousands(f.old_self),
                thousands(f.new_self),
                f.label,
                f.operation.as_str(),
                f.function
            ));
        }
    }
    out.push_str("Instruction counts under callgrind are exact: where they did not vary across seeds, any ratio other than 1.000 is a real change. Where they varied, the medians are compared and the ranges over seeds say whether the change is beyond that spread.\n");
    out
}
