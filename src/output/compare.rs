//! The console table of `compare`.

use super::{num, table};
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
