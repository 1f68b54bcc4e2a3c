//! Comparison of two profiles: per (algorithm, implementation, operation) the ratio of
//! instruction counts, and the functions whose self counts changed most. Counts under
//! callgrind are exact: where both sides' counts did not vary across seeds, any difference is
//! real and no significance test is needed; where they varied (rejection sampling, retries,
//! randomness the seed could not fix), the ranges over seeds are compared instead.
//!
//! Across architectures: a build profiled for one architecture is compared with the same
//! source, compiler and flags built for another (`pqclean/clean@gcc-12:O3` against
//! `pqclean/clean@gcc-12:O3@s390x`) when neither profile has an exact partner for it.

use crate::kem::Op;
use crate::record::compare::{self as shared, diff, environment_differences, Asked, EnvDifference};
use crate::record::profile::{OpProfile, ProfileRecord, ProfileResult};
use crate::table::{Cell, Column, Mark, Table, Tables, CONSOLE};
use crate::units::thousands;
use serde::Serialize;
use std::collections::BTreeMap;

/// How sure a profile comparison is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Certainty {
    /// Both counts were the same on every seed: the ratio is exact.
    Exact,
    /// Counts varied across seeds and the ranges do not overlap: a real change.
    RangesApart,
    /// Counts varied across seeds and the ranges overlap: the medians differ by chance as
    /// much as by change.
    RangesOverlap,
    /// The seed did not fix one side's random draws (the same seed may have meant other
    /// keys) and the ranges over seeds overlap: the difference is within the draws' spread.
    /// (Unfixed draws whose ranges are apart are [`Certainty::RangesApart`]: a real change.)
    NotFixed,
    /// The seed did not fix one side's random draws and a side was profiled with one seed:
    /// there is no spread to hold the difference against, so it cannot be gated.
    NotFixedOneSeed,
}

/// One compared operation.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileRow {
    /// Algorithm.
    pub algorithm: String,
    /// Implementation id.
    pub implementation: String,
    /// The new profile's implementation, when it is the same build for another architecture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_implementation: Option<String>,
    /// Operation.
    pub operation: Op,
    /// Median instructions in the old profile.
    pub old_instructions: u64,
    /// Median instructions in the new profile.
    pub new_instructions: u64,
    /// new / old.
    pub ratio: f64,
    /// Whether the ratio is exact.
    pub certainty: Certainty,
    /// Whether the seed fixed both sides' random draws (when not, the ranges over seeds are
    /// what the operation is gated by).
    pub randomness_fixed: bool,
}

impl ProfileRow {
    /// The implementation, or `old → new` when the new one is built for another architecture.
    pub fn shown_implementation(&self) -> String {
        shared::shown_pair(&self.implementation, self.new_implementation.as_deref())
    }
}

/// A function whose self count changed between the profiles.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionChange {
    /// `algorithm@implementation`.
    pub label: String,
    /// Operation.
    pub operation: Op,
    /// The function.
    pub function: String,
    /// Self instructions in the old profile (seed 0).
    pub old_self: u64,
    /// Self instructions in the new profile (seed 0).
    pub new_self: u64,
}

impl FunctionChange {
    /// new − old.
    pub fn delta(&self) -> i64 {
        self.new_self as i64 - self.old_self as i64
    }
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileReport {
    /// Environment and version differences, shown above the table.
    pub differences: Vec<EnvDifference>,
    /// One row per operation present in both.
    pub rows: Vec<ProfileRow>,
    /// The functions whose self counts changed most, largest change first.
    pub functions: Vec<FunctionChange>,
    /// Operations present in only one of the profiles: (label, "old" or "new").
    pub unmatched: Vec<(String, &'static str)>,
    /// Estimated cycles of the compared operations on each CPU both profiles estimated them
    /// for (`profile --cpus`; empty where none was).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cycles: Vec<CycleRow>,
}

/// One compared operation's estimated cycles on one CPU.
#[derive(Debug, Clone, Serialize)]
pub struct CycleRow {
    /// `algorithm@implementation` (the old profile's).
    pub label: String,
    /// Operation.
    pub operation: Op,
    /// The CPU.
    pub cpu: String,
    /// The model that priced it in the old profile, and in the new where it was another.
    pub model: String,
    /// Estimated cycles in the old profile.
    pub old_cycles: u64,
    /// Estimated cycles in the new profile.
    pub new_cycles: u64,
    /// new / old.
    pub ratio: f64,
}

impl ProfileReport {
    /// Rows with more instructions by more than `pct` percent, and not within the spread
    /// across seeds: exact counts, or ranges over seeds apart (whether or not the seed fixed
    /// the implementation's draws).
    pub fn regressions(&self, pct: f64) -> Vec<&ProfileRow> {
        self.over(pct, |c| matches!(c, Certainty::Exact | Certainty::RangesApart))
    }

    /// Rows with more instructions by more than `pct` percent that cannot be judged: the seed
    /// did not fix the draws and a side has one seed, so chance and change look alike.
    pub fn ungated(&self, pct: f64) -> Vec<&ProfileRow> {
        self.over(pct, |c| c == Certainty::NotFixedOneSeed)
    }

    fn over(&self, pct: f64, class: impl Fn(Certainty) -> bool) -> Vec<&ProfileRow> {
        self.rows
            .iter()
            .filter(|r| class(r.certainty) && r.ratio > 1.0 + pct / 100.0)
            .collect()
    }
}

/// An operation's estimated cycles per CPU (none without `--cpus`).
fn estimates(o: &OpProfile) -> &[crate::record::profile::CycleEstimate] {
    &o.estimates
}

/// Most function changes listed.
const TOP_FUNCTIONS: usize = 15;

fn certainty(fixed: bool, a: &OpProfile, b: &OpProfile) -> Certainty {
    let (x, y) = (&a.instructions, &b.instructions);
    let apart = x.max < y.min || y.max < x.min;
    if !fixed && x.median != y.median {
        // Unfixed draws make each seed a sample of the counts the draws give: ranges over
        // two or more seeds each that do not meet are a change beyond that spread.
        if x.per_seed.len() < 2 || y.per_seed.len() < 2 {
            Certainty::NotFixedOneSeed
        } else if apart {
            Certainty::RangesApart
        } else {
            Certainty::NotFixed
        }
    } else if !x.varies() && !y.varies() {
        Certainty::Exact
    } else if apart {
        Certainty::RangesApart
    } else {
        Certainty::RangesOverlap
    }
}

/// Self instructions per function (seed 0): the innermost frames of the folded stacks, which
/// hold every instruction (frames the compiler inlined included, so a function inlined into
/// its caller is still named); the stored top functions where a profile has no stacks. The
/// stored list alone is the top functions by inclusive count, and a small function that grew
/// (a pull request's slower helper) may not be among them.
fn self_counts(o: &OpProfile) -> BTreeMap<&str, u64> {
    if o.analysis.folded.is_empty() {
        return o
            .analysis
            .functions
            .iter()
            .map(|f| (f.name.as_str(), f.self_instructions))
            .collect();
    }
    let mut m: BTreeMap<&str, u64> = BTreeMap::new();
    for s in &o.analysis.folded {
        let leaf = s.stack.rsplit(';').next().unwrap_or(&s.stack);
        *m.entry(leaf).or_default() += s.instructions;
    }
    m
}

fn label(r: &ProfileResult) -> String {
    format!("{}@{}", r.algorithm, r.implementation)
}

/// The result of `other` that `r` (of `own`) is compared with ([`shared::partner`]).
fn partner<'b>(
    r: &ProfileResult,
    own: &ProfileRecord,
    other: &'b ProfileRecord,
) -> Option<&'b ProfileResult> {
    crate::record::compare::partner(r, &own.results, &other.results)
}

/// Compares two profiles, `old` then `new`.
pub fn compare(old: &ProfileRecord, new: &ProfileRecord) -> ProfileReport {
    let mut rows = Vec::new();
    let mut functions = Vec::new();
    let mut unmatched = Vec::new();
    let mut cycles = Vec::new();
    for ra in &old.results {
        let rb = partner(ra, old, new);
        for oa in &ra.operations {
            let name = format!("{} {}", label(ra), oa.operation.as_str());
            let Some(ob) = rb.and_then(|rb| rb.op(oa.operation)) else {
                unmatched.push((name, "old"));
                continue;
            };
            let fixed = ra.randomness.fixed && rb.is_some_and(|r| r.randomness.fixed);
            rows.push(ProfileRow {
                algorithm: ra.algorithm.clone(),
                implementation: ra.implementation.clone(),
                new_implementation: rb
                    .filter(|rb| rb.implementation != ra.implementation)
                    .map(|rb| rb.implementation.clone()),
                operation: oa.operation,
                old_instructions: oa.instructions.median,
                new_instructions: ob.instructions.median,
                ratio: ob.instructions.median as f64 / oa.instructions.median.max(1) as f64,
                certainty: certainty(fixed, oa, ob),
                randomness_fixed: fixed,
            });
            for ea in estimates(oa) {
                if let Some(eb) = estimates(ob).iter().find(|e| e.cpu == ea.cpu) {
                    cycles.push(CycleRow {
                        label: label(ra),
                        operation: oa.operation,
                        cpu: ea.cpu.clone(),
                        model: if ea.model == eb.model {
                            ea.model.clone()
                        } else {
                            format!("{} → {}", ea.model, eb.model)
                        },
                        old_cycles: ea.cycles,
                        new_cycles: eb.cycles,
                        ratio: eb.cycles as f64 / ea.cycles.max(1) as f64,
                    });
                }
            }
            let (fa, fb) = (self_counts(oa), self_counts(ob));
            let names: std::collections::BTreeSet<&str> =
                fa.keys().chain(fb.keys()).copied().collect();
            for f in names {
                let (x, y) = (
                    fa.get(f).copied().unwrap_or(0),
                    fb.get(f).copied().unwrap_or(0),
                );
                if x != y {
                    functions.push(FunctionChange {
                        label: label(ra),
                        operation: oa.operation,
                        function: f.to_string(),
                        old_self: x,
                        new_self: y,
                    });
                }
            }
        }
    }
    for rb in &new.results {
        for ob in &rb.operations {
            let found = partner(rb, new, old).and_then(|ra| ra.op(ob.operation));
            if found.is_none() {
                unmatched.push((format!("{} {}", label(rb), ob.operation.as_str()), "new"));
            }
        }
    }
    functions.sort_by_key(|f| std::cmp::Reverse(f.delta().unsigned_abs()));
    functions.truncate(TOP_FUNCTIONS);
    let mut differences = environment_differences(&old.environment, &new.environment);
    // The architectures the compared results ran on (a foreign build's, else the host's).
    let arches_of = |rec: &ProfileRecord, side: fn(&ProfileRow) -> &str| {
        let mut a: Vec<String> = rows
            .iter()
            .filter_map(|row| rec.result(&row.algorithm, side(row)))
            .map(|r| super::arches::place(&rec.environment.arch, r).arch)
            .collect();
        a.sort();
        a.dedup();
        a.join(", ")
    };
    diff(
        &mut differences,
        "architecture (counts compare code paths, not machines)",
        arches_of(old, |r| &r.implementation),
        arches_of(new, |r| {
            r.new_implementation
                .as_deref()
                .unwrap_or(&r.implementation)
        }),
    );
    diff(
        &mut differences,
        "valgrind",
        &old.measured.valgrind,
        &new.measured.valgrind,
    );
    diff(
        &mut differences,
        "simulated cache",
        &old.config.cache_geometry,
        &new.config.cache_geometry,
    );
    if !old.config.llvm.is_empty() && !new.config.llvm.is_empty() {
        diff(&mut differences, "LLVM (cycle estimates)", &old.config.llvm, &new.config.llvm);
    }
    ProfileReport {
        differences,
        rows,
        functions,
        unmatched,
        cycles,
    }
}
/// The comparison of two profiles as `compare` shows it.
pub struct Compared<'a> {
    report: ProfileReport,
    old: &'a ProfileRecord,
    new: &'a ProfileRecord,
    asked: Asked<'a>,
}

impl<'a> Compared<'a> {
    /// Compares `old` and `new`, named as `asked`.
    pub fn new(old: &'a ProfileRecord, new: &'a ProfileRecord, asked: Asked<'a>) -> Compared<'a> {
        Compared {
            report: compare(old, new),
            old,
            new,
            asked,
        }
    }
}

impl Certainty {
    /// How the console says it.
    fn as_str(self) -> &'static str {
        match self {
            Certainty::Exact => "exact",
            Certainty::RangesApart => "varies; ranges apart",
            Certainty::RangesOverlap => "varies; ranges overlap",
            Certainty::NotFixed => "randomness not fixed; ranges overlap",
            Certainty::NotFixedOneSeed => "randomness not fixed; one seed",
        }
    }
}

impl shared::Comparison for Compared<'_> {
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&self.report)
    }

    fn nothing_shared(&self) -> Option<String> {
        self.report.rows.is_empty().then(|| {
            format!(
                "{} and {} share no (algorithm, implementation, operation) to compare",
                self.asked.old, self.asked.new
            )
        })
    }

    /// Per operation the exact instruction ratio, then the functions whose self counts
    /// changed most.
    fn tables(&self) -> Tables {
        let r = &self.report;
        let columns = vec![
            Column::text("algorithm"),
            Column::text("implementation"),
            Column::text("op"),
            Column::num("old instructions"),
            Column::num("new instructions"),
            Column::num("new/old"),
            Column::text("certainty"),
        ];
        let mut rows = Vec::new();
        for row in &r.rows {
            let ratio = Cell::num(format!("{:.3}", row.ratio), row.ratio);
            let ratio = if row.old_instructions == row.new_instructions {
                ratio
            } else if row.ratio > 1.0 {
                ratio.marked(Mark::Bad)
            } else {
                ratio.marked(Mark::Good)
            };
            rows.push(vec![
                Cell::text(&row.algorithm),
                Cell::text(row.shown_implementation()),
                Cell::text(row.operation.as_str()),
                Cell::num(thousands(row.old_instructions), row.old_instructions as f64),
                Cell::num(thousands(row.new_instructions), row.new_instructions as f64),
                ratio,
                Cell::text(row.certainty.as_str()),
            ]);
        }
        let t = shared::table("compare", columns, rows);
        let functions = if r.functions.is_empty() {
            "No function's self count changed.\n".to_string()
        } else {
            let mut s = "Functions whose self counts changed most (seed 0):\n".to_string();
            for f in &r.functions {
                s.push_str(&format!(
                    "  {:>+14}  {} → {}  {} {}: {}\n",
                    f.delta(),
                    thousands(f.old_self),
                    thousands(f.new_self),
                    f.label,
                    f.operation.as_str(),
                    f.function
                ));
            }
            s
        };
        let mut blocks = vec![
            shared::heading(
                &self.asked,
                &r.differences,
                "Same environment, provider versions and valgrind.",
                "profiles",
            ),
            t,
            shared::unmatched(&r.unmatched, "profile"),
            Table::block("functions", CONSOLE, functions),
        ];
        if !r.cycles.is_empty() {
            let mut s = "Estimated cycles per CPU (model estimate: llvm-mca over the exact block \
                         counts, no caches or branch mispredictions):\n"
                .to_string();
            for c in &r.cycles {
                let model = if c.model == c.cpu {
                    String::new()
                } else {
                    format!(" ({}'s model)", c.model)
                };
                s.push_str(&format!(
                    "  {} {} on {}{model}: {} → {} (×{:.3})\n",
                    c.label,
                    c.operation.as_str(),
                    c.cpu,
                    thousands(c.old_cycles),
                    thousands(c.new_cycles),
                    c.ratio
                ));
            }
            blocks.push(Table::block("cycles", CONSOLE, s));
        }
        shared::console(
            blocks,
            "Instruction counts under callgrind are exact: where they did not vary across seeds, any ratio other than 1.000 is a real change. Where they varied, the medians are compared and the ranges over seeds say whether the change is beyond that spread.",
        )
    }

    fn regressions(&self, pct: f64) -> Option<String> {
        let rows = self.report.regressions(pct);
        if rows.is_empty() {
            return None;
        }
        let named: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "{}@{} {} ×{:.3}",
                    r.algorithm,
                    r.shown_implementation(),
                    r.operation.as_str(),
                    r.ratio
                )
            })
            .collect();
        let (n, executes) = match rows.len() {
            1 => ("1 operation".to_string(), "executes"),
            n => (format!("{n} operations"), "execute"),
        };
        Some(format!(
            "{n} {executes} more than {pct}% more instructions: {}",
            named.join(", ")
        ))
    }

    fn flame_graphs(&self) -> anyhow::Result<Vec<(String, String)>> {
        super::flames::differences(self.old, self.new)
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::record::profile::Spread;

    /// The fixture profile, its working result once per name of `implementations`.
    fn profile_of(implementations: &[&str]) -> ProfileRecord {
        let mut p = fixture::profile();
        let good = p.results[0].clone();
        p.results = implementations
            .iter()
            .map(|i| ProfileResult {
                implementation: i.to_string(),
                ..good.clone()
            })
            .collect();
        p
    }

    #[test]
    fn a_build_is_compared_with_the_same_build_for_another_architecture() {
        let old = profile_of(&["pqclean/clean@gcc-12:O2"]);
        let mut new = profile_of(&["pqclean/clean@gcc-12:O2@s390x"]);
        for o in &mut new.results[0].operations {
            o.instructions = Spread::of(vec![o.instructions.median * 2]);
        }
        let r = compare(&old, &new);
        assert_eq!(r.rows.len(), 2, "{:?}", r.unmatched);
        assert!(r.unmatched.is_empty(), "{:?}", r.unmatched);
        let row = &r.rows[0];
        assert_eq!(
            row.shown_implementation(),
            "pqclean/clean@gcc-12:O2 → pqclean/clean@gcc-12:O2@s390x"
        );
        assert!((row.ratio - 2.0).abs() < 1e-9);
        let arch = r
            .differences
            .iter()
            .find(|d| d.what.starts_with("architecture"))
            .expect("the architectures are said");
        assert_eq!((arch.old.as_str(), arch.new.as_str()), ("x86_64", "s390x"));
        assert_eq!(r.regressions(5.0).len(), 2);
    }

    #[test]
    fn estimated_cycles_are_compared_per_cpu_both_profiles_have() {
        use crate::record::profile::CycleEstimate;
        let with = |cycles: &[(&str, u64)]| {
            let mut p = profile_of(&["pqclean/clean@gcc-12:O2@s390x"]);
            for o in &mut p.results[0].operations {
                o.estimates = cycles
                    .iter()
                    .map(|(cpu, n)| CycleEstimate {
                        cpu: cpu.to_string(),
                        model: cpu.to_string(),
                        cycles: *n,
                        priced_instructions: 1,
                        unpriced_instructions: 0,
                        blocks: Vec::new(),
                    })
                    .collect();
            }
            p
        };
        let old = with(&[("z15", 1000), ("z16", 800)]);
        let new = with(&[("z16", 1000)]);
        let r = compare(&old, &new);
        assert_eq!(r.cycles.len(), r.rows.len(), "z16 only, once per operation: {:?}", r.cycles);
        assert!(r.cycles.iter().all(|c| c.cpu == "z16" && (c.ratio - 1.25).abs() < 1e-12));
        let shown = format!("{:?}", shared::Comparison::tables(&Compared::new(&old, &new, Asked {
            old: "a",
            new: "b",
            noise: 0.02,
        })));
        assert!(shown.contains("on z16: 800 → 1,000 (×1.250)"), "{shown}");
        assert!(compare(&old, &profile_of(&["pqclean/clean@gcc-12:O2@s390x"])).cycles.is_empty());
    }

    #[test]
    fn an_exact_partner_wins_and_libraries_are_never_paired_across_architectures() {
        // The old profile has the s390x build itself: its x86-64 build has no partner.
        let old = profile_of(&["pqclean/clean@gcc-12:O2", "pqclean/clean@gcc-12:O2@s390x"]);
        let new = profile_of(&["pqclean/clean@gcc-12:O2@s390x"]);
        let r = compare(&old, &new);
        assert!(r.rows.iter().all(|row| row.new_implementation.is_none()));
        assert!(r
            .unmatched
            .iter()
            .any(|(l, side)| l.contains("pqclean/clean@gcc-12:O2 ") && *side == "old"));
        assert!(!r.differences.iter().any(|d| d.what.starts_with("architecture")));
        // A library's name carries no architecture to strip.
        let old = profile_of(&["liboqs"]);
        let new = profile_of(&["liboqs@s390x"]);
        assert!(compare(&old, &new).rows.is_empty());
    }

    /// Two versions of one library built from source trees: the base branch's build and the
    /// pull request's (or the carried copy's) are compared, variant, compiler and flags alike;
    /// another variant or flag set is not, nor are two candidates at once.
    #[test]
    fn builds_of_two_versions_of_a_tree_are_compared() {
        let old = profile_of(&["liboqs-0.16.0+g1111111/generic@gcc-12:O3"]);
        let new = profile_of(&["liboqs-0.16.0+g2222222.5e6f7a8b/generic@gcc-12:O3"]);
        let r = compare(&old, &new);
        assert_eq!(r.rows.len(), 2, "{:?}", r.unmatched);
        assert_eq!(
            r.rows[0].shown_implementation(),
            "liboqs-0.16.0+g1111111/generic@gcc-12:O3 → liboqs-0.16.0+g2222222.5e6f7a8b/generic@gcc-12:O3"
        );
        let carried = profile_of(&["liboqs/generic@gcc-12:O3"]);
        assert_eq!(compare(&carried, &new).rows.len(), 2);
        for other in ["liboqs-0.16.0+g2222222/auto@gcc-12:O3", "liboqs-0.16.0+g2222222/generic@gcc-12:O2"] {
            assert!(compare(&old, &profile_of(&[other])).rows.is_empty(), "{other}");
        }
        let two = profile_of(&[
            "liboqs-0.16.0+g2222222/generic@gcc-12:O3",
            "liboqs-0.17.0+g3333333/generic@gcc-12:O3",
        ]);
        assert!(compare(&old, &two).rows.is_empty(), "two candidates: none chosen");
    }
}
