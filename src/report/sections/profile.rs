//! Where the time goes: the last profile given (`kembench profile`), as the primitive shares of
//! each (algorithm, implementation, operation) ([`chart`]), the table of instruction counts,
//! liboqs's own SHA-3 beside OpenSSL's and the bound (when both were profiled), each
//! implementation's hot paths (folded in HTML) and flame graphs.

pub mod chart;

use super::common::{catalog_tags, h3, op_cell, para, say};
use super::environment::record_facts;
use super::intro::line;
use super::{Context, KindParts, Section};
use crate::record::Kind;
use crate::report::data::Dataset;
use crate::report::doc::Para;

use crate::callgrind::{HotNode, Primitive};
use crate::record::profile::arches;
use crate::record::profile::Profile;
use crate::record::profile::{OpProfile, ProfileRecord, ProfileResult};
use crate::record::Benchmark;
use crate::report::charts::pair_label;
use crate::report::doc::{code, slug, text, Block, Cell, Chart, Embed, Table, Tags};
use crate::table::Described;
use crate::units::thousands;

/// The profile section.
pub const SECTION: Section = Section::new("profile", "Where the time goes", build);

/// What the report's intro, environment and method say of this kind's records.
pub const PARTS: KindParts = KindParts {
    intro,
    environment,
    method: KindParts::nothing,
};

/// The intro's line for each record of this kind.
fn intro(data: &Dataset) -> Vec<Para> {
    let mut out = Vec::new();
    for (i, p) in data.of::<Profile>().iter().enumerate() {
        let (n, seeds) = (p.record.results.len(), p.record.config.seeds);
        out.push(line(
            format!("profile ({})", p.label),
            "",
            &p.record,
            vec![
                text(format!(
                    ", {n} implementation{}, {seeds} seed{}",
                    if n == 1 { "" } else { "s" },
                    if seeds == 1 { "" } else { "s" },
                )),
                text(
                    if i + 1 == data.of::<Profile>().len() && data.of::<Profile>().len() > 1 {
                        " (the profile shown)."
                    } else {
                        "."
                    },
                ),
            ],
        ));
    }
    out
}

/// Each record's heading and facts under "Environment".
fn environment(data: &Dataset, blocks: &mut Vec<Block>) {
    for (i, input) in data.of::<Profile>().iter().enumerate() {
        let r = &input.record;
        let facts = vec![
            (
                "selection".into(),
                format!(
                    "{} ({} implementations)",
                    Profile::selection(&r.config),
                    r.results.len()
                ),
            ),
            (
                "callgrind".into(),
                format!(
                    "{}, {} seed(s), simulated caches: {}",
                    r.measured.valgrind, r.config.seeds, r.config.cache_geometry
                ),
            ),
            (
                "CPU features under valgrind".into(),
                r.measured.cpu_features_under_valgrind.join(" "),
            ),
        ];
        let id = format!("environment-profile-{}", i + 1);
        let heading = format!("profile ({})", input.label);
        record_facts(blocks, &id, &heading, r, facts);
    }
}

/// Levels of a hot-path table below the operation.
const HOT_DEPTH: usize = 4;
/// Functions under this share of the operation are left out of the hot-path tables.
const HOT_MIN: f64 = 0.05;
/// A function that hands at least this share of its instructions to its one callee above
/// [`HOT_MIN`] is a wrapper: it is merged into that callee, so that wrappers (kembench's
/// harness, a library's API layers) do not use up the levels.
const PASS_THROUGH: f64 = 0.95;
/// With at most this many profiled operations, each gets a flame graph; with more, the first
/// operation (keygen) of each implementation does, up to this many.
const FLAMES: usize = 12;

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let Some(input) = ctx.data.of::<Profile>().last() else {
        para(
            blocks,
            vec![
                text("No profile given: make one with "),
                code("kembench profile"),
                text(" (exact instruction counts under callgrind), then "),
                code("kembench report PROFILE ..."),
                text(", PROFILE being its id in the store or its "),
                code("--json"),
                text(" file."),
            ],
        );
        return Ok(());
    };
    let rec = &input.record;
    let profiled: Vec<&ProfileResult> = rec
        .results
        .iter()
        .filter(|r| !r.operations.is_empty())
        .collect();
    para(
        blocks,
        vec![
            text(format!(
                "From {}: {} of {} implementation{} profiled by ",
                input.label,
                profiled.len(),
                rec.results.len(),
                if rec.results.len() == 1 { "" } else { "s" }
            )),
            code("kembench profile"),
            text(" under "),
            code(&rec.measured.valgrind),
            text(format!(
                " (callgrind), started {} on {}. Instructions are exact counts of one call, \
                 the median over {} seed{}; the shares, hot paths and flame graphs are of seed \
                 0's call. Estimated cycles: L1 hits + 5 × LL hits + 35 × memory accesses in \
                 callgrind's simulated caches ({}), not this machine's.",
                rec.started_at,
                rec.environment.hostname,
                rec.config.seeds,
                if rec.config.seeds == 1 { "" } else { "s" },
                rec.config.cache_geometry
            )),
        ],
    );
    let others = &ctx.data.of::<Profile>()[..ctx.data.of::<Profile>().len() - 1];
    if !others.is_empty() {
        let labels: Vec<&str> = others.iter().map(|i| i.label.as_str()).collect();
        say(
            blocks,
            format!(
                "Only the last profile given is shown; not shown: {}.",
                labels.join(", ")
            ),
        );
    }
    if let Some(c) = chart::chart(rec)? {
        blocks.push(Block::Charts {
            id: String::new(),
            charts: vec![c],
        });
    } else {
        say(blocks, "No operation was profiled.");
    }
    let tables = rec.tables(&rec.results);
    blocks.push(Block::Table(Table::described(
        "table-profile",
        [(input.label.as_str(), &tables)],
    )));
    if tables.get("table-profile-cycles").is_some() {
        blocks.push(Block::Table(Table::described(
            "table-profile-cycles",
            [(input.label.as_str(), &tables)],
        )));
    }
    let notes = notes(rec);
    if !notes.is_empty() {
        blocks.push(Block::List(
            notes.into_iter().map(|n| vec![text(n)]).collect(),
        ));
    }
    sha3_alternative(input.label.as_str(), rec, &tables, blocks);
    if profiled.is_empty() {
        return Ok(());
    }
    let wide = match &rec.run_id {
        Some(id) => format!("`kembench show {id} --wide`"),
        None => "`kembench profile --wide`".to_string(),
    };
    hot_paths(&profiled, &wide, blocks);
    flame_graphs(&profiled, &wide, blocks);
    Ok(())
}

/// liboqs's own SHA-3 beside OpenSSL's and the bound (`liboqs` and `liboqs/openssl-sha3` in
/// the same profile): the table and the sentences computed from the counts.
fn sha3_alternative(
    label: &str,
    rec: &ProfileRecord,
    tables: &crate::table::Tables,
    blocks: &mut Vec<Block>,
) {
    let host = rec.environment.arch.as_str();
    let placed = arches::placed(host, rec.results.iter().map(|r| (host, r)));
    let found = arches::sha3_alternatives(&placed);
    if found.is_empty() {
        return;
    }
    h3(
        blocks,
        "profile-sha3-alternative",
        "A real SHA-3 alternative beside the bound",
    );
    blocks.push(Block::Table(Table::described(
        "table-profile-sha3-alternative",
        [(label, tables)],
    )));
    for a in found {
        if let Some(s) = a.sentence() {
            say(blocks, s);
        }
    }
}

/// A share of an operation's instructions; a dash for none at all.
fn share_cell(v: f64) -> Cell {
    if v == 0.0 {
        Cell::num("–", 0.0)
    } else {
        Cell::num(format!("{:.1}%", v * 100.0), v)
    }
}

/// An instruction count with thousands separators.
fn count_cell(n: u64) -> Cell {
    Cell::num(thousands(n), n as f64)
}

fn tags(r: &ProfileResult) -> Option<Tags> {
    Some(catalog_tags(&r.family, &r.algorithm, &r.implementation))
}

/// What qualifies the figures: CPU features valgrind hides, randomness the seed did not fix,
/// implementations that were not profiled.
fn notes(rec: &ProfileRecord) -> Vec<String> {
    let mut out = Vec::new();
    let lost = rec.measured.features_lost_under_valgrind();
    if !lost.is_empty() {
        out.push(format!(
            "Under valgrind the CPU lacks {} (valgrind does not run AVX-512): libraries that \
             dispatch on these took other code paths than they do natively.",
            lost.join(", ")
        ));
    }
    for (how, labels) in rec.unfixed_randomness() {
        out.push(format!(
            "Randomness not fixed by the seed for {}: {how}",
            labels.join(", ")
        ));
    }
    for r in &rec.results {
        for problem in r.problems() {
            out.push(format!("{}: {problem}", r.label()));
        }
    }
    out
}

/// One row of a hot-path table: a function shown at `level` below the operation, and the
/// instructions of the row shown above it.
struct HotRow<'a> {
    level: usize,
    node: &'a HotNode,
    parent: u64,
}

/// The children of `n` at or above [`HOT_MIN`] of the operation's `total`.
fn shown(n: &HotNode, total: u64) -> impl Iterator<Item = &HotNode> {
    n.children
        .iter()
        .filter(move |c| c.instructions as f64 >= HOT_MIN * total as f64)
}

/// `n`, or the end of the chain of wrappers that starts at it (see [`PASS_THROUGH`]).
fn through(mut n: &HotNode, total: u64) -> &HotNode {
    loop {
        let mut callees = shown(n, total);
        match (callees.next(), callees.next()) {
            (Some(c), None) if c.instructions as f64 >= PASS_THROUGH * n.instructions as f64 => {
                n = c;
            }
            _ => return n,
        }
    }
}

/// The hot-path tree of an operation flattened, depth first: the operation, then each
/// function above [`HOT_MIN`] down to [`HOT_DEPTH`] levels, wrappers merged into their callee.
fn hot_rows(root: &HotNode) -> Vec<HotRow<'_>> {
    fn walk<'a>(n: &'a HotNode, level: usize, total: u64, out: &mut Vec<HotRow<'a>>) {
        for c in shown(n, total) {
            let end = through(c, total);
            out.push(HotRow {
                level,
                node: end,
                parent: n.instructions,
            });
            if level < HOT_DEPTH {
                walk(end, level + 1, total, out);
            }
        }
    }
    let total = root.instructions;
    let mut out = vec![HotRow {
        level: 0,
        node: root,
        parent: total,
    }];
    walk(root, 1, total, &mut out);
    out
}

/// One folded table per implementation: each operation's hot paths.
/// `wide` is the command that prints the deeper trees (`kembench show ID --wide`).
fn hot_paths(profiled: &[&ProfileResult], wide: &str, blocks: &mut Vec<Block>) {
    h3(blocks, "profile-hot-paths", "Hot paths");
    say(
        blocks,
        format!(
            "For each implementation, each operation's call tree from seed 0: the functions \
             with at least {:.0}% of the operation's instructions (inclusive), {HOT_DEPTH} \
             levels deep. A function that hands {:.0}% or more of its instructions to a single \
             callee is shown as that callee, so that wrappers (kembench's harness, a library's \
             API layers) take no level. {wide} prints the deeper trees, the hottest \
             functions and source lines.",
            HOT_MIN * 100.0,
            PASS_THROUGH * 100.0
        ),
    );
    for r in profiled {
        let ops: Vec<&str> = r.operations.iter().map(|o| o.operation.as_str()).collect();
        let mut t = Table::new(
            &format!("table-hot-{}", slug(&r.label())),
            &["op", "function", "of parent#", "of op#", "instructions#"],
        )
        .folded()
        .titled(format!(
            "{}: hot paths of {}",
            pair_label(&r.algorithm, &r.implementation),
            ops.join(", ")
        ));
        for o in &r.operations {
            let total = o.analysis.tree.instructions.max(1);
            for row in hot_rows(&o.analysis.tree) {
                let n = row.node;
                t.push(
                    vec![
                        op_cell(o.operation),
                        Cell::text(format!("{}{}", "\u{a0}".repeat(4 * row.level), n.name)),
                        share_cell(n.instructions as f64 / row.parent.max(1) as f64),
                        share_cell(n.instructions as f64 / total as f64),
                        count_cell(n.instructions),
                    ],
                    tags(r),
                );
            }
        }
        blocks.push(Block::Table(t));
    }
}

/// The (implementation, operation) pairs that get a flame graph, and whether that is all of
/// them.
fn flame_pairs<'a>(
    profiled: &[&'a ProfileResult],
) -> (Vec<(&'a ProfileResult, &'a OpProfile)>, bool) {
    let all: Vec<(&ProfileResult, &OpProfile)> = profiled
        .iter()
        .flat_map(|r| r.operations.iter().map(move |o| (*r, o)))
        .filter(|(_, o)| o.analysis.folded.iter().any(|f| f.instructions > 0))
        .collect();
    if all.len() <= FLAMES {
        return (all, true);
    }
    let mut firsts: Vec<(&ProfileResult, &OpProfile)> = Vec::new();
    for (r, o) in all {
        if !firsts.iter().any(|(f, _)| std::ptr::eq(*f, r)) {
            firsts.push((r, o));
        }
    }
    firsts.truncate(FLAMES);
    (firsts, false)
}

/// The primitive shares of an operation in words: `Keccak 77.6%, RNG 0.1%, other 22.3% of
/// 116,111 instructions.`
fn shares_line(o: &OpProfile) -> String {
    let a = &o.analysis;
    let parts: Vec<String> = Primitive::ALL
        .iter()
        .map(|p| (p.label(), a.share(*p)))
        .filter(|(_, v)| *v > 0.0)
        .map(|(l, v)| format!("{l} {:.1}%", v * 100.0))
        .collect();
    format!(
        "{} of {} instructions.",
        parts.join(", "),
        thousands(a.instructions)
    )
}

/// The flame graphs, each an image of inferno's SVG.
fn flame_graphs(profiled: &[&ProfileResult], wide: &str, blocks: &mut Vec<Block>) {
    h3(blocks, "profile-flame-graphs", "Flame graphs");
    let (pairs, every) = flame_pairs(profiled);
    if pairs.is_empty() {
        say(blocks, "No operation has call stacks to draw.");
        return;
    }
    let total: usize = profiled.iter().map(|r| r.operations.len()).sum();
    let which = if every {
        "one per profiled operation".to_string()
    } else {
        let implementations: usize = pairs
            .iter()
            .map(|(r, _)| r.label())
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        format!(
            "{} of the {total} profiled operations: the first operation profiled (keygen) of {}",
            pairs.len(),
            if implementations == profiled.len() {
                "each implementation".to_string()
            } else {
                format!("the first {implementations} implementations")
            }
        )
    };
    say(
        blocks,
        format!(
            "Seed 0's call stacks, {which}: each frame is as wide as the instructions \
             executed in it and below it, callers under their callees, colours by function \
             name. Here they are pictures; the SVG files (the Markdown report's, or \
             `kembench profile --flamegraphs DIR` for every operation) zoom and search in a \
             browser, and {wide} lists the hottest functions."
        ),
    );
    let mut charts = Vec::with_capacity(pairs.len());
    let mut failed = Vec::new();
    for (i, (r, o)) in pairs.into_iter().enumerate() {
        let op = o.operation.as_str();
        // One graph inferno cannot draw is said, not the end of the report.
        let svg = match r.flamegraph(o) {
            Ok(svg) => svg,
            Err(e) => {
                failed.push(format!("No flame graph of {} {op}: {e:#}.", r.label()));
                continue;
            }
        };
        charts.push(Chart {
            id: format!(
                "chart-flame-{}-{}",
                i + 1,
                slug(&format!("{}-{op}", r.label()))
            ),
            title: format!("{} · {op}", pair_label(&r.algorithm, &r.implementation)),
            caption: shares_line(o),
            svg,
            family: Some(r.family.clone()),
            embed: Embed::Image,
        });
    }
    blocks.push(Block::Charts {
        id: "chart-profile-flames".into(),
        charts,
    });
    for f in failed {
        say(blocks, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::report::data::{AnyRecord, Dataset};
    use crate::report::doc::Mark;

    fn data(profiles: Vec<ProfileRecord>) -> Dataset {
        Dataset::from_records(
            profiles
                .into_iter()
                .enumerate()
                .map(|(i, p)| (format!("p{i}.json").into(), AnyRecord::from(p)))
                .collect(),
        )
    }

    /// The section's blocks in the report of `data`.
    fn section(data: &Dataset) -> Vec<Block> {
        let doc = crate::report::sections::build(data, 0.02).unwrap();
        let start = doc
            .blocks
            .iter()
            .position(|b| matches!(b, Block::Heading { level: 2, id, .. } if id == "profile"))
            .unwrap();
        doc.blocks[start + 1..]
            .iter()
            .take_while(|b| !matches!(b, Block::Heading { level: 2, .. }))
            .cloned()
            .collect()
    }

    use super::super::common::tables;

    fn charts(blocks: &[Block]) -> Vec<&Chart> {
        blocks
            .iter()
            .flat_map(|b| match b {
                Block::Charts { charts, .. } => charts.iter().collect(),
                _ => Vec::new(),
            })
            .collect()
    }

    #[test]
    fn the_fixture_is_a_valid_profile() {
        for r in &fixture::profile().results {
            crate::record::profile::Profile::check_result(r).unwrap();
        }
    }

    #[test]
    fn without_a_profile_it_says_how_to_make_one() {
        let blocks = section(&Dataset::default());
        assert_eq!(blocks.len(), 1);
        let Block::Para(p) = &blocks[0] else {
            panic!("{blocks:?}")
        };
        assert!(p.contains(&code("kembench profile")), "{p:?}");
        assert!(p.contains(&code("kembench report PROFILE ...")), "{p:?}");
    }

    #[test]
    fn counts_shares_and_what_was_not_profiled() {
        let blocks = section(&data(vec![fixture::profile()]));
        let t = tables(&blocks)[0];
        assert_eq!(t.id, "table-profile");
        let texts: Vec<Vec<&str>> = t
            .rows
            .iter()
            .map(|r| r.cells.iter().map(|c| c.text.as_str()).collect())
            .collect();
        assert_eq!(
            texts[0],
            [
                "MockKEM",
                "mock/correct",
                "keygen",
                "10,000",
                "same ×3",
                "54.0%",
                "–",
                "–",
                "4.0%",
                "–",
                "42.0%",
                "13,000"
            ]
        );
        assert_eq!(texts[1][3..5], ["20,000", "19,800 – 20,600 (4.0%)"]);
        assert_eq!(
            texts[2][..4],
            ["MockKEM", "mock/<broken>", "–", "check-failed"]
        );
        assert_eq!(t.rows[2].cells[3].mark, Some(Mark::Bad));
        let tags = t.rows[0].tags.as_ref().unwrap();
        assert_eq!((tags.family.as_str(), tags.level.as_str()), ("test", "1"));
        // The notes: features valgrind hides, the failed check.
        let Some(Block::List(notes)) = blocks.iter().find(|b| matches!(b, Block::List(_))) else {
            panic!("no notes: {blocks:?}")
        };
        let notes: Vec<String> = notes.iter().map(|p| format!("{p:?}")).collect();
        assert!(
            notes.iter().any(|n| n.contains("lacks avx512f")),
            "{notes:?}"
        );
        assert!(
            notes
                .iter()
                .any(|n| n.contains("MockKEM@mock/<broken>: failed the correctness check")),
            "{notes:?}"
        );
        let ids: Vec<&str> = charts(&blocks).iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "chart-profile-shares",
                "chart-flame-1-mockkem-mock-correct-keygen",
                "chart-flame-2-mockkem-mock-correct-encaps"
            ]
        );
    }

    #[test]
    fn hot_paths_merge_wrappers_and_leave_out_small_callees() {
        let blocks = section(&data(vec![fixture::profile()]));
        let hot = tables(&blocks)[1];
        assert!(hot.folded);
        assert_eq!(
            hot.title.as_deref(),
            Some("MockKEM · mock/correct: hot paths of keygen, encaps")
        );
        let keygen: Vec<(&str, &str, &str)> = hot
            .rows
            .iter()
            .filter(|r| r.cells[0].text == "keygen")
            .map(|r| {
                (
                    r.cells[1].text.as_str(),
                    r.cells[2].text.as_str(),
                    r.cells[3].text.as_str(),
                )
            })
            .collect();
        let indent = |level: usize| "\u{a0}".repeat(4 * level);
        assert_eq!(
            keygen,
            [
                ("keygen".to_string(), "100.0%", "100.0%"),
                (format!("{}kem_keygen", indent(1)), "99.0%", "99.0%"),
                (format!("{}gen_matrix", indent(2)), "60.6%", "60.0%"),
                (
                    format!("{}KeccakF1600_StatePermute", indent(3)),
                    "90.0%",
                    "54.0%"
                ),
                (format!("{}poly_ntt", indent(2)), "20.2%", "20.0%"),
                (
                    format!("{}<script>alert(4)</script>", indent(2)),
                    "10.1%",
                    "10.0%"
                ),
            ]
            .iter()
            .map(|(a, b, c)| (a.as_str(), *b, *c))
            .collect::<Vec<_>>(),
            "harness and wrapper merged into kem_keygen, randombytes (4%) left out"
        );
    }

    #[test]
    fn hot_paths_stop_at_the_depth_limit() {
        // A chain of branching nodes ten levels deep: every level splits 50/50.
        fn deep(level: usize, instructions: u64) -> HotNode {
            let child = |i| HotNode {
                name: format!("f{level}.{i}"),
                ..deep(level + 1, instructions / 2)
            };
            HotNode {
                name: format!("f{level}"),
                instructions,
                share_of_parent: 0.5,
                children: if level < 10 {
                    vec![child(0), child(1)]
                } else {
                    Vec::new()
                },
            }
        }
        let root = deep(0, 1 << 20);
        let rows = hot_rows(&root);
        assert_eq!(rows.iter().map(|r| r.level).max(), Some(HOT_DEPTH));
        // Only the nodes at 5% or more: halves, quarters, eighths, sixteenths (6.25%).
        assert_eq!(rows.len(), 1 + 2 + 4 + 8 + 16);
    }

    #[test]
    fn flame_graphs_are_limited_to_keygen_of_each_implementation_beyond_twelve() {
        let mut p = fixture::profile();
        let good = p.results[0].clone();
        p.results = (0..7)
            .map(|i| ProfileResult {
                implementation: format!("mock/{i}"),
                ..good.clone()
            })
            .collect();
        let profiled: Vec<&ProfileResult> = p.results.iter().collect();
        let (pairs, every) = flame_pairs(&profiled[..6]);
        assert!(every, "12 operations: all of them");
        assert_eq!(pairs.len(), 12);
        let (pairs, every) = flame_pairs(&profiled);
        assert!(!every);
        assert_eq!(pairs.len(), 7);
        assert!(pairs.iter().all(|(_, o)| o.operation.as_str() == "keygen"));
        p.results = (0..20)
            .map(|i| ProfileResult {
                implementation: format!("mock/{i}"),
                ..good.clone()
            })
            .collect();
        let blocks = section(&data(vec![p]));
        let flames: Vec<&Chart> = charts(&blocks)
            .into_iter()
            .filter(|c| c.embed == Embed::Image)
            .collect();
        assert_eq!(flames.len(), FLAMES);
        let said = format!("{blocks:?}");
        assert!(
            said.contains("12 of the 40 profiled operations") && said.contains("first 12"),
            "{said}"
        );
    }

    #[test]
    fn operations_without_stacks_get_no_flame_graph() {
        let mut p = fixture::profile();
        p.results[0].operations[1].analysis.folded.clear();
        let blocks = section(&data(vec![p.clone()]));
        let ids: Vec<&str> = charts(&blocks).iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "chart-profile-shares",
                "chart-flame-1-mockkem-mock-correct-keygen"
            ]
        );
        p.results[0].operations[0].analysis.folded.clear();
        let blocks = section(&data(vec![p]));
        assert_eq!(charts(&blocks).len(), 1);
        assert!(format!("{blocks:?}").contains("No operation has call stacks to draw."));
    }

    #[test]
    fn the_last_profile_is_shown_and_the_others_named() {
        let mut first = fixture::profile();
        first.results[0].implementation = "mock/first".into();
        let blocks = section(&data(vec![first, fixture::profile()]));
        let said = format!("{blocks:?}");
        assert!(said.contains("not shown: p0.json"), "{said}");
        assert!(!said.contains("mock/first"), "{said}");
    }

    #[test]
    fn html_shows_flame_graphs_as_images_and_escapes_names() {
        let doc = crate::report::sections::build(&data(vec![fixture::profile()]), 0.02).unwrap();
        let html = crate::report::html::render(&doc);
        assert_eq!(html.matches("<img alt=").count(), 2, "two flame graphs");
        assert!(html.contains("src=\"data:image/svg+xml;base64,"));
        assert_eq!(
            html.matches("<script").count(),
            1,
            "only the report's own script: inferno's stays inside its image"
        );
        assert!(html.contains("&lt;script&gt;alert(4)&lt;/script&gt;"));
        assert!(html.contains(
            "<summary>MockKEM · mock/correct: hot paths of keygen, encaps (12 rows; click a header to sort)</summary>"
        ));
        let md = crate::report::markdown::render(&doc);
        let files: Vec<&str> = md.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            files,
            [
                "profile-shares.svg",
                "flame-1-mockkem-mock-correct-keygen.svg",
                "flame-2-mockkem-mock-correct-encaps.svg"
            ]
        );
        assert!(
            md.files[1].1.contains("<script"),
            "the file keeps inferno's search and zoom"
        );
        assert!(md
            .text
            .contains("**MockKEM · mock/correct: hot paths of keygen, encaps**\n\n| op |"));
    }
}
