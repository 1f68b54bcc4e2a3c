//! The console tables of `compare`: two latency runs, two profiles, two tls runs.

use super::{num, table};
use crate::compare::profile::{Certainty, ProfileReport};
use crate::compare::tls::TlsReport;
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

/// A ratio new / old, red when it is worse by more than `band` and green when better: for a
/// time (`higher_is_worse`) above 1 is worse, for a rate below.
fn coloured_ratio(ratio: f64, band: f64, higher_is_worse: bool) -> Cell {
    let c = Cell::new(format!("{ratio:.3}")).set_alignment(comfy_table::CellAlignment::Right);
    let (worse, better) = (ratio > 1.0 + band, ratio < 1.0 - band);
    let (worse, better) = if higher_is_worse {
        (worse, better)
    } else {
        (better, worse)
    };
    if worse {
        c.fg(Color::Red)
    } else if better {
        c.fg(Color::Green)
    } else {
        c
    }
}

/// Ratios within this band of 1 are left uncoloured in the tls comparison.
const TLS_BAND: f64 = 0.02;

/// The console output of a comparison of two tls runs: per benchmark and kind of handshake
/// the best-round medians of each side and handshakes per second, new over old; the flights
/// whose size changed; the median handshake time under each network condition. Each line ends
/// in a newline.
pub fn tls(r: &TlsReport, old: &str, new: &str) -> String {
    let mut out = format!("old: {old}\nnew: {new}\n");
    if r.differences.is_empty() {
        out.push_str("Same environment and stack versions.\n");
    } else {
        out.push_str("Differences between the runs (read the ratios with these in mind):\n");
        for d in &r.differences {
            out.push_str(&format!("  {}: {} -> {}\n", d.what, d.old, d.new));
        }
    }
    if !r.modes.is_empty() {
        let mut t = table(&[
            "group",
            "implementation",
            "mode",
            "server old → new",
            "new/old",
            "client old → new",
            "new/old",
            "hs/s new/old",
        ]);
        for m in &r.modes {
            t.add_row(vec![
                Cell::new(&m.group),
                Cell::new(&m.implementation),
                Cell::new(m.mode.as_str()),
                num(format!(
                    "{} → {}",
                    units::ns(m.old_server_ns),
                    units::ns(m.new_server_ns)
                )),
                coloured_ratio(m.server_ratio(), TLS_BAND, true),
                num(format!(
                    "{} → {}",
                    units::ns(m.old_client_ns),
                    units::ns(m.new_client_ns)
                )),
                coloured_ratio(m.client_ratio(), TLS_BAND, true),
                coloured_ratio(m.rate_ratio(), TLS_BAND, false),
            ]);
        }
        out.push_str(&format!("{t}\n"));
    }
    if r.flights.is_empty() {
        out.push_str("No flight changed size.\n");
    } else {
        out.push_str("Flights whose size changed:\n");
        for f in &r.flights {
            out.push_str(&format!(
                "  {:>+7} B  {} → {} B ({} → {} segments)  {} {}: {}\n",
                f.delta(),
                f.old_bytes,
                f.new_bytes,
                f.old_segments,
                f.new_segments,
                f.label,
                f.mode.as_str(),
                f.flight
            ));
        }
    }
    if !r.network.is_empty() {
        let ms = |v: Option<f64>| v.map_or("–".into(), |v| units::ns(v * 1e6));
        let mut t = table(&[
            "benchmark",
            "network",
            "old median",
            "new median",
            "new − old",
            "failures old → new",
        ]);
        for n in &r.network {
            t.add_row(vec![
                Cell::new(&n.label),
                Cell::new(&n.profile),
                num(ms(n.old_median_ms)),
                num(ms(n.new_median_ms)),
                num(n.delta_ms().map_or("–".into(), |d| {
                    format!(
                        "{}{}",
                        if d < 0.0 { "−" } else { "+" },
                        units::ns(d.abs() * 1e6)
                    )
                })),
                num(format!("{} → {}", n.old_failures, n.new_failures)),
            ]);
        }
        out.push_str(&format!("{t}\n"));
    }
    for (label, side) in &r.unmatched {
        out.push_str(&format!("only in the {side} run: {label}\n"));
    }
    out.push_str(&super::wrap(
        "Times are each side's best-round median (the fastest state the run reached). A tls run keeps no samples, so no significance test stands behind these ratios: between two runs on a machine whose speed drifts they are indicative only, and a change of a few percent may be noise. Flight sizes are exact.",
        0,
    ));
    out
}

#[cfg(test)]
mod tests {
    use crate::export::fixture;

    #[test]
    fn a_tls_comparison_shows_ratios_changes_and_the_warning() {
        let old = fixture::tls();
        let mut new = fixture::tls();
        new.results[0].modes[0].server_best_round_median_ns *= 2.0;
        new.results[0].modes[0].flights[0].bytes += 32;
        new.results.pop();
        let text = super::tls(
            &crate::compare::tls::compare(&old, &new),
            "a.json",
            "b.json",
        );
        assert!(
            text.starts_with("old: a.json\nnew: b.json\nSame environment"),
            "{text}"
        );
        assert!(text.contains("2.000"), "{text}");
        assert!(text.contains("+32 B  1500 → 1532 B"), "{text}");
        assert!(text.contains("rtt30-loss3"), "{text}");
        assert!(text.contains("indicative only"), "{text}");
        assert!(
            !text.contains("only in the"),
            "the unavailable group measured nothing: {text}"
        );
    }
}
