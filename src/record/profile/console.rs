//! What only the console shows of a profile, beside its described tables: each operation's
//! hot-path tree, hottest functions and hottest source lines (for a few implementations, or
//! with `--wide`), the notes that say what the figures are, and the SHA-3 cross-check of
//! `profile --sha3-probe`.

use super::{OpProfile, ProfileRecord, ProfileResult, SHA3_PROBE_PREFIX};
use crate::callgrind::{HotNode, Primitive};
use crate::record::Benchmark;
use crate::table::{Table, CONSOLE, FIT, WIDE};
use crate::units::thousands;
use std::fmt::Write as _;

/// At most this many implementations get their trees on the console's default view.
const TREES_UP_TO: usize = 3;

/// The hot-path trees, hottest functions and lines of every profiled operation of `items`: on the
/// default view for up to [`TREES_UP_TO`] implementations (beyond, a line says how to see
/// them), always with `--wide`.
pub fn trees(items: &[ProfileResult]) -> Vec<Table> {
    let profiled: Vec<&ProfileResult> = items
        .iter()
        .filter(|r| !r.operations.is_empty())
        .collect();
    let all: String = profiled
        .iter()
        .flat_map(|r| r.operations.iter().map(move |o| details(r, o)))
        .collect();
    if profiled.len() <= TREES_UP_TO {
        return vec![
            Table::block("trees", FIT, fitted(&all)),
            Table::block("trees", WIDE, all),
        ];
    }
    // Where the wide view is (`show ID --wide` for a stored profile, `--wide` for one that is
    // not) is said once, at the end of the default view (`Tables::rest_elsewhere`).
    let mut fit = Table::block("trees", FIT, "");
    fit.note(
        FIT,
        format!(
            "Hot-path trees, hottest functions and lines of every operation are in the wide view (more than {TREES_UP_TO} implementations here), or profile fewer implementations."
        ),
    );
    vec![fit, Table::block("trees", WIDE, all)]
}

/// `block` with every line within [`crate::table::WIDTH`] characters: a longer one (a long
/// function name, a deep tree) is cut, its end shown as `…` (the wide view has it whole).
fn fitted(block: &str) -> String {
    block
        .lines()
        .map(|l| {
            if l.chars().count() <= crate::table::WIDTH {
                format!("{l}\n")
            } else {
                let kept: String = l.chars().take(crate::table::WIDTH - 1).collect();
                format!("{kept}…\n")
            }
        })
        .collect()
}

/// One operation's hot-path tree, hottest functions and hottest lines, after a blank line.
fn details(r: &ProfileResult, o: &OpProfile) -> String {
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
    if let Some(e) = &o.emulated {
        let mix: Vec<String> = e
            .mix
            .iter()
            .map(|m| format!("{} {}", m.class, thousands(m.instructions)))
            .collect();
        let _ = writeln!(
            s,
            "Under {}: loads {}, stores {}; {}",
            e.emulator.split(" version").next().unwrap_or(&e.emulator),
            thousands(e.loads),
            thousands(e.stores),
            mix.join(", ")
        );
        if !e.divisions.is_empty() {
            let d: Vec<String> = e
                .divisions
                .iter()
                .take(4)
                .map(|f| format!("{} {}", f.function, thousands(f.instructions)))
                .collect();
            let _ = writeln!(s, "  divisions in: {}", d.join(", "));
        }
    }
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
            "  lines of {} ({}):\n    {}",
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

/// What the figures are: the method, the CPU features valgrind lacks, the native counters,
/// randomness the seed did not fix, and each implementation's problems (before the SHA-3
/// cross-check).
pub fn notes(record: &ProfileRecord) -> Table {
    let m = &record.measured;
    let native = record
        .results
        .iter()
        .any(|r| r.operations.iter().any(|o| o.emulated.is_none()))
        || record.results.iter().all(|r| r.operations.is_empty());
    let mut out = Vec::new();
    out.extend(native.then(|| format!(
        "Instructions: exact counts of one call under {} (callgrind), median over {} seed(s); shares are of those instructions, by the outermost primitive on each stack, frames inlined by the compiler included (from the binary's debug information). Estimated cycles: L1 hits + 5 × LL hits + 35 × memory accesses in callgrind's simulated caches ({}), not this machine's.",
        m.valgrind, record.config.seeds, record.config.cache_geometry
    )));
    let emulated: Vec<&super::Emulated> = record
        .results
        .iter()
        .flat_map(|r| r.operations.iter().filter_map(|o| o.emulated.as_ref()))
        .collect();
    // One entry per architecture: the emulator, the CPU it presented, the empty region's
    // counts (they differ between programs by an instruction or two).
    let mut arches: Vec<&str> = Vec::new();
    for e in &emulated {
        if !arches.contains(&e.arch.as_str()) {
            arches.push(&e.arch);
        }
    }
    let mut seen: Vec<String> = Vec::new();
    for a in arches {
        let of: Vec<&&super::Emulated> = emulated.iter().filter(|e| e.arch == a).collect();
        let version = of[0].emulator.split(" (").next().unwrap_or(&of[0].emulator);
        let (lo, hi) = of.iter().fold((u64::MAX, 0), |(lo, hi), e| {
            (lo.min(e.calibration), hi.max(e.calibration))
        });
        let empty = if lo == hi {
            format!("{lo}")
        } else {
            format!("{lo} to {hi}")
        };
        let cpu = of
            .iter()
            .find(|e| !e.cpu.is_empty())
            .map_or(String::new(), |e| format!("; CPU as emulated: {}", e.cpu));
        seen.push(format!(
            "{a} under {version}{cpu}; empty region: {empty} instruction(s)"
        ));
    }
    if !seen.is_empty() {
        out.push(format!(
            "Foreign builds ({}) are counted under emulation by kembench's QEMU plugin: exact instructions between markers around one call, the empty region's count subtracted; calls and returns inferred by the plugin from where each block starts against the program's functions (inclusive costs, trees and flame graphs at their real depth; approximate where code jumps into another function's middle or returns past its caller, and direct recursion is one frame); no cache simulation; loads and stores are the memory accesses QEMU reports; the mix (divide, multiply, branch, vector; classes overlap) is read by mnemonic from binutils' disassembly of the program (`<triple>-objdump`; QEMU 7.2's own leaves s390x's vector instructions undecoded). Never timed.",
            seen.join("; ")
        ));
    }
    let lost = m.features_lost_under_valgrind();
    if native && !lost.is_empty() {
        out.push(format!(
            "Under valgrind the CPU lacks {} (valgrind does not run AVX-512): libraries that dispatch on these took other code paths than they do natively.",
            lost.join(", ")
        ));
    }
    out.push(match &m.pmu_unavailable {
        Some(why) => format!("No real hardware counters beside the simulation: {why}."),
        None => "Native instructions and cycles per call, from the hardware counters, are in `--wide`."
            .to_string(),
    });
    for (how, labels) in record.unfixed_randomness() {
        out.push(format!(
            "Randomness not fixed by the seed for {}: {how}",
            labels.join(", ")
        ));
    }
    for r in &record.results {
        for problem in r.problems() {
            out.push(format!("{}: {problem}", r.label()));
        }
    }
    let mut t = Table::block("notes", CONSOLE, "");
    for n in out {
        t.note(CONSOLE, n);
    }
    t
}

/// The SHA-3 cross-check of `profile --sha3-probe`: for each operation of `liboqs` and
/// `liboqs/openssl-sha3`, the share of instructions inside the counting wrappers around
/// liboqs's SHA-3 callbacks (whichever backend they went to) beside the Keccak share the
/// symbol classifier found. A block with nothing in it when the probe did not run.
pub fn sha3_check(record: &ProfileRecord, items: &[ProfileResult]) -> Table {
    if !record.config.sha3_probe {
        return Table::block("sha3-check", CONSOLE, "");
    }
    let mut out = String::from(
        "\nSHA-3 cross-check (liboqs): instructions inside liboqs's SHA-3 callbacks vs the classifier's Keccak share\n",
    );
    let mut any = false;
    let probed = |r: &&ProfileResult| {
        r.implementation == "liboqs" || r.implementation == super::arches::OPENSSL_SHA3
    };
    for r in items.iter().filter(probed) {
        for o in &r.operations {
            let a = &o.analysis;
            let probe = a.inclusive_of(|f| f.starts_with(SHA3_PROBE_PREFIX)) as f64
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
    Table::block("sha3-check", CONSOLE, out)
}

#[cfg(test)]
mod tests {
    use crate::export::fixture;
    use crate::output::{tables, Width};

    #[test]
    fn beyond_three_implementations_trees_are_in_the_wide_view_only() {
        let mut r = fixture::profile();
        let one = r.results[0].clone();
        for name in ["a", "b", "c", "d"] {
            let mut x = one.clone();
            x.implementation = format!("mock/{name}");
            r.results.push(x);
        }
        r.run_id = Some("20261127-000000-0123abcd".into());
        // Not stored (`profile --no-store`): no `show` of a run the store does not have.
        let fit = tables(&r, Width::Fit, &[]);
        assert!(!fit.contains("Hot path, share of the parent"), "{fit}");
        assert!(fit.contains("are in the wide view"), "{fit}");
        assert!(!fit.contains("kembench show"), "{fit}");
        assert!(fit.contains("This run is not stored: `--wide` shows"), "{fit}");
        // Stored: where its wide view is.
        let stored = crate::output::elsewhere(r.run_id.as_deref(), None);
        let fit = tables(&r, Width::Fit, &stored);
        assert!(
            fit.contains("`kembench show 20261127-000000-0123abcd --wide`"),
            "{fit}"
        );
        let wide = tables(&r, Width::Wide, &[]);
        let trees = wide.matches("Hot path, share of the parent").count();
        assert!(trees >= 5, "every operation of every implementation: {wide}");
        assert!(!wide.contains("profile fewer implementations"), "{wide}");
        // The notes follow the trees on both views.
        for text in [&fit, &wide] {
            assert!(text.trim_end().lines().any(|l| l.starts_with("Instructions: exact counts")));
        }
    }

    #[test]
    fn the_sha3_cross_check_is_shown_when_the_probe_ran() {
        let mut r = fixture::profile();
        let text = tables(&r, Width::Fit, &[]);
        assert!(!text.contains("SHA-3 cross-check"), "{text}");
        r.config.sha3_probe = true;
        let text = tables(&r, Width::Fit, &[]);
        let at = text.find("SHA-3 cross-check").expect("the check") ;
        assert!(
            text[at..].contains("(no liboqs implementation was profiled)")
                || text[at..].contains("@liboqs"),
            "{text}"
        );
        assert!(at > text.find("Instructions: exact counts").unwrap(), "after the notes");
    }
}
