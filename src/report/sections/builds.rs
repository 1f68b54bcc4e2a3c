//! Builds: compilers × flags, from the primary run's builds (`kembench builds`). For each
//! algorithm measured in builds: the heat map of its matrix ([`chart`];
//! [`crate::record::latency::matrix`]), the fastest build and the reference → fastest speed-up named,
//! the table of every build's figures per operation, and each build's facts (compiler, flags,
//! targets, source, gate).

pub mod chart;

use super::common::{h3, para, primary, say, tags};
use super::{Context, Section};
use crate::kem::Op;
use crate::kem::{flags_unoptimised, BuildFacts, Gate};
use crate::record::ct::{Ct, Verdicts};
use crate::record::latency::matrix::{matrices_with, Matrix};
use crate::record::latency::LatencyRecord;
use crate::report::doc::{code, slug, text, Block, Cell, Mark, Table};
use crate::units;

/// The builds section.
pub const SECTION: Section = Section::new("builds", "Builds: compilers × flags", build);

/// The operations tabled, the heat map's first: the exchange is what a build is chosen by.
const OPS: [Op; 4] = [Op::Exchange, Op::Keygen, Op::Encaps, Op::Decaps];

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let Some(input) = primary(ctx, blocks) else {
        return Ok(());
    };
    let run = &input.record;
    let verdicts = Verdicts::of(ctx.data.of::<Ct>().iter().map(|i| &i.record));
    let all: Vec<Matrix> = OPS
        .iter()
        .flat_map(|op| matrices_with(run, *op, &verdicts))
        .collect();
    let mut algorithms: Vec<&str> = Vec::new();
    for m in &all {
        if !algorithms.contains(&m.algorithm.as_str()) {
            algorithms.push(&m.algorithm);
        }
    }
    if algorithms.is_empty() {
        say(
            blocks,
            "The run measured no builds (`kembench builds`, then `kembench run --impl \
             'pqclean/*@*'`).",
        );
        return Ok(());
    }
    say(
        blocks,
        "Each C source compiled by each compiler with each flag set into a shared object of \
         its own, every one through the correctness gate before it was timed. Builds are \
         compared on their fastest round's median, and every ratio is to one baseline build: \
         the portable source built by gcc at -O2. Unoptimised flag sets (-O0, or no -O) are \
         labelled as such and are never the baseline unless nothing else was built.",
    );
    for alg in algorithms {
        let ms: Vec<&Matrix> = all.iter().filter(|m| m.algorithm == alg).collect();
        let shown = ms[0];
        h3(blocks, &format!("builds-{}", slug(alg)), alg);
        let family = run
            .results
            .iter()
            .find(|r| r.algorithm == alg)
            .map(|r| r.family.as_str());
        blocks.push(Block::Charts {
            id: String::new(),
            charts: vec![chart::heat_map(shown, family)?],
        });
        verdict(blocks, shown);
        let ids = builds_of(&ms);
        blocks.push(Block::Table(figures_table(run, alg, &ms, &ids)));
        blocks.push(Block::Table(facts_table(run, alg, &ids)));
    }
    Ok(())
}

/// The median of the build `id` in `m`, written with its unit.
fn median_of(m: &Matrix, id: &str) -> String {
    m.rows
        .iter()
        .flat_map(|r| r.cells.iter().flatten())
        .find(|c| c.implementation == id)
        .map_or("-".into(), |c| units::ns(c.median_ns))
}

/// The sentences under the heat map: the fastest build, the reference → fastest speed-up, and
/// a warning when the baseline itself is unoptimised.
fn verdict(blocks: &mut Vec<Block>, m: &Matrix) {
    let op = m.operation.as_str();
    if let Some(f) = &m.fastest {
        para(
            blocks,
            vec![
                text("Fastest build (SUPERCOP's choice; every timed build passed the gate): "),
                code(f),
                text(format!(", {} per {op}.", median_of(m, f))),
            ],
        );
    }
    for (id, v) in &m.passed_over {
        para(
            blocks,
            vec![
                text("Passed over as the fastest: "),
                code(id),
                text(format!(
                    " ({} per {op}), for its constant-time screening: {}.",
                    median_of(m, id),
                    v.as_str()
                )),
            ],
        );
    }
    match (&m.speedup, &m.baseline) {
        (Some((from, to, x)), _) => para(
            blocks,
            vec![
                text("Reference → fastest: "),
                code(from),
                text(format!(" ({}) → ", median_of(m, from))),
                code(to),
                text(format!(" ({}), {x:.2}× faster.", median_of(m, to))),
            ],
        ),
        (None, Some(b)) => para(
            blocks,
            vec![
                text("The baseline "),
                code(b),
                text(" is itself the fastest build."),
            ],
        ),
        (None, None) => {}
    }
    if let Some(b) = m.baseline.as_deref().filter(|b| {
        m.rows
            .iter()
            .flat_map(|r| r.cells.iter().flatten())
            .any(|c| c.implementation == *b && c.unoptimised)
    }) {
        para(
            blocks,
            vec![
                text("Nothing optimised was built, so the baseline "),
                code(b),
                text(" is an unoptimised build."),
            ],
        );
    }
}

/// The builds of an algorithm's matrices, each once, in the heat map's order (row by row)
/// and then any that only another operation's matrix holds.
fn builds_of(ms: &[&Matrix]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for c in ms
        .iter()
        .flat_map(|m| &m.rows)
        .flat_map(|r| r.cells.iter().flatten())
    {
        if !ids.contains(&c.implementation) {
            ids.push(c.implementation.clone());
        }
    }
    ids
}

/// The facts of the build `id`.
fn facts<'a>(run: &'a LatencyRecord, id: &str) -> Option<&'a BuildFacts> {
    run.environment
        .builds
        .iter()
        .find(|b| b.implementation == id)
}

/// The filter tags of the build `id` (its result's).
fn build_tags(run: &LatencyRecord, alg: &str, id: &str) -> Option<crate::report::doc::Tags> {
    run.result(alg, id).and_then(tags)
}

/// A flag set as a cell: `(no flags)` for none, unoptimised ones labelled and flagged.
fn flags_cell(flags: &str) -> Cell {
    let label = chart::flags_label(flags);
    if flags_unoptimised(flags) {
        Cell::text(format!("{label} (unoptimised)")).marked(Mark::Warn)
    } else {
        Cell::text(label)
    }
}

/// Every build's figures, a column per operation: `median ×ratio, stack`, ★ the fastest.
fn figures_table(run: &LatencyRecord, alg: &str, ms: &[&Matrix], ids: &[String]) -> Table {
    let mut columns = vec!["source", "compiler", "flags"];
    let ops: Vec<String> = ms
        .iter()
        .map(|m| format!("{}#", m.operation.as_str()))
        .collect();
    columns.extend(ops.iter().map(String::as_str));
    let baseline = ms[0].baseline.as_deref().unwrap_or("none");
    let mut t = Table::new(&format!("table-builds-{}", slug(alg)), &columns)
        .folded()
        .titled(format!(
            "{alg}: every build per operation (fastest round's median, ×ratio to {baseline}, \
             deepest stack; ★ fastest{})",
            if ms[0]
                .rows
                .iter()
                .flat_map(|r| r.cells.iter().flatten())
                .any(|c| c.screening.is_some())
            {
                " with no unexplained constant-time finding; each build's screening in parentheses"
            } else {
                ""
            }
        ));
    for id in ids {
        let Some(f) = facts(run, id) else { continue };
        let mut row = vec![
            Cell::text(&f.source),
            Cell::text(&f.compiler),
            flags_cell(&f.flags),
        ];
        for m in ms {
            let c = m
                .rows
                .iter()
                .flat_map(|r| r.cells.iter().flatten())
                .find(|c| &c.implementation == id);
            row.push(match c {
                None => Cell::text("–"),
                Some(c) => {
                    let cell = Cell::num(
                        format!(
                            "{}{}, {}{}{}",
                            units::ns(c.median_ns),
                            c.ratio
                                .map(|r| format!(" {}", chart::ratio_text(r)))
                                .unwrap_or_default(),
                            c.max_stack_bytes.map_or("n/a".into(), units::bytes),
                            if c.fastest { " ★" } else { "" },
                            c.screening.map(|s| format!(" ({s})")).unwrap_or_default(),
                        ),
                        c.median_ns,
                    );
                    if c.not_advisable {
                        cell.marked(Mark::Bad)
                    } else if c.fastest {
                        cell.marked(Mark::Good)
                    } else {
                        cell
                    }
                }
            });
        }
        t.push(row, build_tags(run, alg, id));
    }
    t
}

/// `none` for an empty list, else its items separated by spaces.
fn words(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(" ")
    }
}

/// What each build is: compiler, flags, what the source needs and what the build targets,
/// the source's version, and the gate's verdict.
fn facts_table(run: &LatencyRecord, alg: &str, ids: &[String]) -> Table {
    let mut t = Table::new(
        &format!("table-builds-facts-{}", slug(alg)),
        &[
            "build",
            "compiler version",
            "flags",
            "required flags",
            "targets",
            "source version",
            "gate",
        ],
    )
    .folded()
    .titled(format!("{alg}: what each build is"));
    for id in ids {
        let Some(f) = facts(run, id) else { continue };
        // The hash tells two copies of a source with the same version apart; its first 12
        // digits are enough for that.
        let sha: String = f.source_sha256.chars().take(12).collect();
        let gate = match &f.gate {
            Gate::Passed(d) => Cell::text(format!("passed: {d}")).marked(Mark::Good),
            Gate::Failed(d) => Cell::text(format!("failed: {d}")).marked(Mark::Bad),
            Gate::NotRun => Cell::text("not run").marked(Mark::Warn),
        };
        t.push(
            vec![
                Cell::text(id),
                Cell::text(&f.compiler_version),
                flags_cell(&f.flags),
                Cell::text(words(&f.required_flags)),
                Cell::text(words(&f.targets)),
                Cell::text(format!("{} (SHA-256 {sha}…)", f.source_version)),
                gate,
            ],
            build_tags(run, alg, id),
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture::{self, build_id};
    use crate::report::data::{AnyRecord, Dataset};
    use crate::report::doc::Span;

    fn section(run: Option<LatencyRecord>) -> Vec<Block> {
        let data = Dataset::from_records(
            run.into_iter()
                .map(|r| ("b.json".into(), AnyRecord::from(r)))
                .collect(),
        );
        let ctx = Context {
            data: &data,
            primary: data.primary(),
            noise: 0.02,
        };
        let mut b = Vec::new();
        build(&ctx, &mut b).unwrap();
        b
    }

    fn said(blocks: &[Block]) -> Vec<String> {
        blocks
            .iter()
            .filter_map(|b| match b {
                Block::Para(p) => Some(
                    p.iter()
                        .map(|s| match s {
                            Span::Text(t) | Span::Code(t) | Span::Strong(t) => t.as_str(),
                        })
                        .collect(),
                ),
                _ => None,
            })
            .collect()
    }

    use super::super::common::tables;

    #[test]
    fn without_builds_it_says_so_in_one_sentence() {
        let b = section(Some(fixture::run()));
        assert!(matches!(&b[..], [Block::Para(_)]), "{b:?}");
        assert!(said(&b)[0].contains("measured no builds"), "{b:?}");
        let b = section(None);
        assert!(matches!(&b[..], [Block::Para(_)]), "{b:?}");
        assert!(said(&b)[0].contains("No latency run given"), "{b:?}");
    }

    #[test]
    fn the_fixture_gets_its_heat_map_sentences_and_tables() {
        let b = section(Some(fixture::run_with_builds()));
        let headings: Vec<&str> = b
            .iter()
            .filter_map(|x| match x {
                Block::Heading { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(headings, ["builds-ml-kem-768"], "MockKEM has no builds");
        let charts: Vec<&str> = b
            .iter()
            .flat_map(|x| match x {
                Block::Charts { charts, .. } => charts.iter().map(|c| c.id.as_str()).collect(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(charts, ["chart-builds-ml-kem-768"]);
        let baseline = build_id("pqclean/clean", "gcc-12", "-O2");
        let fastest = build_id("pqclean/avx2", "clang-14", "-O3 -march=native");
        let s = said(&b);
        assert!(s[0].contains("never the baseline unless nothing else was built"));
        assert!(
            s[1].starts_with("Fastest build (SUPERCOP's choice")
                && s[1].contains(&fastest)
                && s[1].contains("24.4 µs per exchange"),
            "{s:?}"
        );
        assert_eq!(
            s[2],
            format!(
                "Reference → fastest: {baseline} (174 µs) → {fastest} (24.4 µs), 7.14× faster."
            ),
        );
        assert_eq!(s.len(), 3, "the baseline is optimised: {s:?}");

        let t = tables(&b);
        let ids: Vec<&str> = t.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(
            ids,
            ["table-builds-ml-kem-768", "table-builds-facts-ml-kem-768"]
        );
        let figures = t[0];
        let columns: Vec<&str> = figures.columns.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(
            columns,
            ["source", "compiler", "flags", "exchange", "keygen", "encaps", "decaps"]
        );
        assert_eq!(figures.rows.len(), 8);
        let texts = |r: usize| -> Vec<&str> {
            figures.rows[r]
                .cells
                .iter()
                .map(|c| c.text.as_str())
                .collect()
        };
        // Row by row as in the heat map: the first row is the AVX2 source built by clang.
        assert_eq!(
            texts(1),
            [
                "pqclean/avx2",
                "clang-14",
                "-O3 -march=native",
                "24.4 µs ×0.14, 17.1 KiB ★",
                "6.72 µs ×0.14, 17.1 KiB ★",
                "8.12 µs ×0.14, 17.1 KiB ★",
                "9.52 µs ×0.14, 17.1 KiB ★",
            ]
        );
        assert_eq!(figures.rows[1].cells[3].mark, Some(Mark::Good));
        let base = figures
            .rows
            .iter()
            .find(|r| r.tags.as_ref().unwrap().implementation == baseline)
            .unwrap();
        assert_eq!(base.cells[3].text, "174 µs ×1.00, 14.7 KiB");
        assert_eq!(base.cells[3].sort, Some(174_004.0));

        let facts = t[1];
        assert_eq!(facts.rows.len(), 8);
        let row: Vec<&str> = facts.rows[0]
            .cells
            .iter()
            .map(|c| c.text.as_str())
            .collect();
        assert_eq!(
            row,
            [
                build_id("pqclean/avx2", "clang-14", "-O2").as_str(),
                "Debian clang version 14.0.6",
                "-O2",
                "-mavx2 -mbmi2",
                "avx2 bmi2",
                "PQClean via pqcrypto-mlkem 0.1.1 (SHA-256 34282e353428…)",
                "passed: 8 checks passed (known answers)",
            ]
        );
        let clean = facts
            .rows
            .iter()
            .find(|r| r.cells[0].text == baseline)
            .unwrap();
        assert_eq!(clean.cells[3].text, "none");
        assert_eq!(clean.cells[4].text, "none");
    }

    #[test]
    fn unoptimised_builds_are_labelled_and_a_missing_one_is_a_dash() {
        let mut run = fixture::run_with_builds();
        let gone = build_id("pqclean/avx2", "gcc-12", "-O2");
        run.results.retain(|r| r.implementation != gone);
        for b in &mut run.environment.builds {
            if b.flags != "-O2" {
                b.flags = "-O0".into();
            }
        }
        // Only the -O2 builds of the clean source are optimised now: one of them is the
        // baseline, and the note says nothing about an unoptimised baseline.
        let b = section(Some(run.clone()));
        assert_eq!(said(&b).len(), 3, "{:?}", said(&b));
        let t = tables(&b);
        assert_eq!(t[0].rows.len(), 7, "the build not measured is left out");
        let o0 = t[0]
            .rows
            .iter()
            .find(|r| r.cells[2].text.starts_with("-O0"))
            .unwrap();
        assert_eq!(o0.cells[2].text, "-O0 (unoptimised)");
        assert_eq!(o0.cells[2].mark, Some(Mark::Warn));

        // Nothing optimised at all: only the builds first made at -O2, now all -O0.
        let first_o2: Vec<String> = fixture::BUILDS
            .iter()
            .filter(|b| b.2 == "-O2")
            .map(|b| build_id(b.0, b.1, b.2))
            .collect();
        run.results
            .retain(|r| !r.implementation.contains('@') || first_o2.contains(&r.implementation));
        for b in &mut run.environment.builds {
            b.flags = "-O0".into();
        }
        let b = section(Some(run));
        let s = said(&b);
        assert!(
            s.iter()
                .any(|x| x.starts_with("Nothing optimised was built")),
            "{s:?}"
        );
    }

    #[test]
    fn a_ct_record_marks_each_build_and_moves_the_star_off_an_unexplained_finding() {
        use crate::record::ct::{CtResult, Verdict};
        let run = fixture::run_with_builds();
        let fastest = build_id("pqclean/avx2", "clang-14", "-O3 -march=native");
        let next = build_id("pqclean/avx2", "gcc-12", "-O3 -march=native");
        // The fixture's ct run, its results replaced by the two fastest builds: the fastest
        // with the mock's unexplained branch, the next clean of it.
        let mut ct = fixture::ct();
        let leaky = CtResult {
            algorithm: "ML-KEM-768".into(),
            implementation: fastest.clone(),
            build: Some("pqclean/avx2, clang-14, -O3 -march=native".into()),
            ..ct.results[1].clone()
        };
        let mut clean = CtResult {
            implementation: next.clone(),
            build: Some("pqclean/avx2, gcc-12, -O3 -march=native".into()),
            ..leaky.clone()
        };
        for sc in &mut clean.screens {
            sc.findings.clear();
        }
        assert_eq!(clean.verdict(), Verdict::Clean);
        ct.results = vec![leaky, clean];
        let data = Dataset::from_records(vec![
            ("b.json".into(), AnyRecord::from(run.clone())),
            ("ct.json".into(), AnyRecord::from(ct)),
        ]);
        let ctx = Context {
            data: &data,
            primary: data.primary(),
            noise: 0.02,
        };
        let mut b = Vec::new();
        build(&ctx, &mut b).unwrap();
        let s = said(&b);
        assert!(
            s.iter()
                .any(|x| x.starts_with("Fastest build") && x.contains(&next)),
            "{s:?}"
        );
        assert!(
            s.iter().any(|x| x
                == &format!("Passed over as the fastest: {fastest} (24.4 µs per exchange), for its constant-time screening: unexplained findings.")),
            "{s:?}"
        );
        let t = tables(&b);
        let row = |id: &str| {
            t[0].rows
                .iter()
                .find(|r| r.tags.as_ref().unwrap().implementation == id)
                .unwrap()
        };
        assert_eq!(
            row(&fastest).cells[3].text,
            "24.4 µs ×0.14, 17.1 KiB (unexplained findings)"
        );
        assert_eq!(row(&fastest).cells[3].mark, Some(Mark::Bad));
        assert!(
            row(&next).cells[3].text.ends_with(" ★ (no finding)"),
            "{:?}",
            row(&next).cells[3]
        );
        let baseline = build_id("pqclean/clean", "gcc-12", "-O2");
        assert!(row(&baseline).cells[3].text.ends_with("(not screened)"));
        // Without the ct record nothing changes.
        let plain = section(Some(run));
        assert!(!format!("{plain:?}").contains("screen"), "{plain:?}");
    }
}
