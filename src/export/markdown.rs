//! Markdown: a latency table per algorithm and a line on the method, for papers and READMEs.

use super::Exporter;
use crate::measure::counters::Counters;
use crate::output::units;
use crate::run::result::RunRecord;
use std::fmt::Write as _;

/// GitHub-flavoured Markdown.
pub struct Markdown;

/// Escapes what Markdown tables and HTML would interpret.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
}

impl Exporter for Markdown {
    fn serialize(&self, run: &RunRecord) -> anyhow::Result<Vec<u8>> {
        let mut s = String::new();
        writeln!(s, "# kembench run, {}", escape(&run.started_at))?;
        writeln!(s)?;
        let e = &run.environment;
        writeln!(
            s,
            "Host `{}`: {} ({} logical CPUs), {}; kembench {} ({}), {}.",
            escape(&e.hostname),
            escape(&e.cpu.model),
            e.cpu.logical_cpus,
            escape(&e.kernel),
            escape(&e.build.kembench_version),
            escape(&e.build.git_commit),
            escape(&e.build.rustc),
        )?;
        writeln!(s)?;
        writeln!(
            s,
            "| algorithm | implementation | operation | median | 95% CI of median | p25 – p75 | ops/s | TSC ticks | cycles | peak heap | allocs | stack | share | samples |"
        )?;
        writeln!(
            s,
            "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
        )?;
        for r in &run.results {
            if r.operations.is_empty() {
                let why = match &r.correctness {
                    crate::verify::Outcome::Fail(w) => {
                        format!("not timed: correctness check failed: {w}")
                    }
                    _ => r.error.clone().unwrap_or_else(|| "not measured".into()),
                };
                writeln!(
                    s,
                    "| {} | {} | - | {} |||||||||||",
                    escape(&r.algorithm),
                    escape(&r.implementation),
                    escape(&why)
                )?;
                continue;
            }
            for o in &r.operations {
                let cycles = match &o.counters {
                    Counters::Measured(c) => units::count(c.cycles),
                    Counters::Unavailable(_) => "n/a".into(),
                };
                writeln!(
                    s,
                    "| {} | {} | {} | {} | {} – {} | {} – {} | {} | {} | {} | {} | {} | {} | {} | {}{} |",
                    escape(&r.algorithm),
                    escape(&r.implementation),
                    o.operation.as_str(),
                    units::ns(o.median_ns),
                    units::ns(o.median_ci95_low_ns),
                    units::ns(o.median_ci95_high_ns),
                    units::ns(o.p25_ns),
                    units::ns(o.p75_ns),
                    units::count(o.ops_per_sec),
                    o.tsc_median_ticks.map_or("-".into(), units::count),
                    cycles,
                    o.peak_heap_bytes.map_or("n/a".into(), units::bytes),
                    o.allocations.map_or("n/a".into(), |a| a.to_string()),
                    o.max_stack_bytes.map_or("n/a".into(), units::bytes),
                    o.share_of_exchange.map_or("-".into(), |x| format!("{:.0}%", x * 100.0)),
                    o.samples,
                    if o.batch > 1 { format!(" ×{}", o.batch) } else { String::new() },
                )?;
            }
        }
        writeln!(s)?;
        writeln!(
            s,
            "Method: per-call latency from the monotonic clock after warm-up; median with a 95% bootstrap interval; TSC ticks are time-stamp-counter ticks, not core cycles; cycles come from hardware counters{}.",
            run.counters_unavailable
                .as_ref()
                .map_or(String::new(), |w| format!(" (unavailable here: {})", escape(w)))
        )?;
        Ok(s.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot() {
        let run = super::super::fixture::run();
        let text = String::from_utf8(Markdown.serialize(&run).unwrap()).unwrap();
        insta::assert_snapshot!(text);
    }

    #[test]
    fn names_are_escaped() {
        assert_eq!(
            escape("<script>a|b</script>"),
            "&lt;script&gt;a\\|b&lt;/script&gt;"
        );
    }
}
