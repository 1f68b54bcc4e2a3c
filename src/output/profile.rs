//! The console tables of a profile: instruction counts and primitive shares per operation
//! (described once, with the record: [`crate::record::profile::tables`]), then (for a few implementations, or with `--wide`) each operation's hot-path tree, hottest
//! functions and hottest source lines, then the notes that say what the figures are.

use super::{prose, Width};
use crate::callgrind::{HotNode, Primitive};
use crate::record::profile::{OpProfile, ProfileRecord, ProfileResult};
use crate::record::Benchmark;
use crate::table::Described;
use crate::units::thousands;
use std::fmt::Write as _;

/// At most this many implementations get their trees printed without `--wide`.
const TREES_UP_TO: usize = 3;

/// The console output of a profile, each line ending in a newline.
pub fn tables(record: &ProfileRecord, layout: Width) -> String {
    let described = record.tables(&record.results);
    let mut out: String = described
        .tables
        .iter()
        .map(|t| super::shown(t, layout))
        .collect();
    let profiled: Vec<&ProfileResult> = record
        .results
        .iter()
        .filter(|r| !r.operations.is_empty())
        .collect();
    if layout == Width::Wide || profiled.len() <= TREES_UP_TO {
        for r in &profiled {
            for o in &r.operations {
                out.push_str(&details(r, o));
            }
        }
    } else if !profiled.is_empty() {
        let id = record.run_id.as_deref().unwrap_or("ID");
        out.push_str(&prose(
            layout,
            &format!(
                "Hot-path trees, hottest functions and lines of every operation: `kembench show {id} --wide`, or profile fewer implementations."
            ),
        ));
    }
    out.push_str(&notes(record, layout));
    out
}

/// One operation's hot-path tree, hottest functions and hottest lines.
pub fn details(r: &ProfileResult, o: &OpProfile) -> String {
    let a = &o.analysis;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\n{}@{} {}: {} instructions (seed 0). Hot path, share of the parent:",
        r.algorithm,
        r.implementation,
        o.operation.as_str(),
        thousands(a.instructions)
    );
    tree(&mut s, &a.tree, "", true, true);
    let _ = writeln!(s, "Hottest functions (self, inclusive, calls):");
    let mut by_self: Vec<_> = a.functions.iter().collect();
    by_self.sort_by_key(|f| std::cmp::Reverse(f.self_instructions));
    for f in by_self.iter().take(8) {
        let _ = writeln!(
            s,
            "  {:>5.1}% {:>5.1}% {:>7}  {}",
            100.0 * f.self_instructions as f64 / a.instructions.max(1) as f64,
            100.0 * f.inclusive_instructions as f64 / a.instructions.max(1) as f64,
            f.calls,
            f.name
        );
    }
    for fl in a.lines.iter().take(3) {
        let lines: Vec<String> = fl
            .lines
            .iter()
            .take(5)
            .map(|l| {
                format!(
                    "{} {:.1}%",
                    l.line,
                    100.0 * l.instructions as f64 / a.instructions.max(1) as f64
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "  lines of {} ({}): {}",
            fl.function,
            fl.file,
            lines.join(", ")
        );
    }
    s
}

fn tree(s: &mut String, n: &HotNode, prefix: &str, last: bool, root: bool) {
    let (branch, next) = if root {
        ("", String::new())
    } else if last {
        ("└─ ", format!("{prefix}   "))
    } else {
        ("├─ ", format!("{prefix}│  "))
    };
    let _ = writeln!(
        s,
        "  {:>5.1}%  {prefix}{branch}{}",
        100.0 * n.share_of_parent,
        n.name
    );
    for (i, c) in n.children.iter().enumerate() {
        tree(s, c, &next, i + 1 == n.children.len(), false);
    }
}

fn notes(record: &ProfileRecord, layout: Width) -> String {
    let mut out = String::new();
    let m = &record.measured;
    out.push_str(&prose(
        layout,
        &format!(
            "Instructions: exact counts of one call under {} (callgrind), median over {} seed(s); shares are of those instructions, by the outermost primitive on each stack. Estimated cycles: L1 hits + 5 × LL hits + 35 × memory accesses in callgrind's simulated caches ({}), not this machine's.",
            m.valgrind, record.config.seeds, record.config.cache_geometry
        ),
    ));
    let lost = m.features_lost_under_valgrind();
    if !lost.is_empty() {
        out.push_str(&prose(
            layout,
            &format!(
                "Under valgrind the CPU lacks {} (valgrind does not run AVX-512): libraries that dispatch on these took other code paths than they do natively.",
                lost.join(", ")
            ),
        ));
    }
    match &m.pmu_unavailable {
        Some(why) => out.push_str(&prose(
            layout,
            &format!("No real hardware counters beside the simulation: {why}."),
        )),
        None => out.push_str(&prose(
            layout,
            "Native instructions and cycles per call, from the hardware counters, are in `--wide`.",
        )),
    }
    for (how, labels) in record.unfixed_randomness() {
        out.push_str(&prose(
            layout,
            &format!(
                "Randomness not fixed by the seed for {}: {how}",
                labels.join(", ")
            ),
        ));
    }
    for r in &record.results {
        for problem in r.problems() {
            out.push_str(&prose(layout, &format!("{}: {problem}", r.label())));
        }
    }
    out
}

/// The SHA-3 cross-check of `profile --sha3-probe`: for each liboqs operation, the share of
/// instructions inside the counting wrappers around liboqs's SHA-3 calls beside the Keccak
/// share the symbol classifier found, each line ending in a newline.
pub fn sha3_check(record: &ProfileRecord) -> String {
    let mut out = String::from(
        "\nSHA-3 cross-check (liboqs): instructions inside liboqs's SHA-3 callbacks vs the classifier's Keccak share\n",
    );
    let mut any = false;
    for r in record
        .results
        .iter()
        .filter(|r| r.implementation == "liboqs")
    {
        for o in &r.operations {
            let a = &o.analysis;
            let probe = a.inclusive_of(|f| f.starts_with(crate::profile::SHA3_PROBE_PREFIX)) as f64
                / a.instructions.max(1) as f64;
            let classified = a.share(Primitive::Keccak);
            any = true;
            let _ = writeln!(
                out,
                "  {}@{} {:<8} callbacks {:>5.1}%  classifier {:>5.1}%  difference {:>+5.1} pp",
                r.algorithm,
                r.implementation,
                o.operation.as_str(),
                100.0 * probe,
                100.0 * classified,
                100.0 * (classified - probe)
            );
        }
    }
    if !any {
        out.push_str("  (no liboqs implementation was profiled)\n");
    }
    out
}
