//! The summary: implementations that failed their check, then the ranking by the full
//! exchange's median: the fastest algorithm at each NIST level with the classical baselines,
//! and the fastest implementation of each algorithm.

use super::common::{h3, int_cell, level_cell, ns_cell, para, primary, say};
use super::{Context, Section};
use crate::record::ct::{Ct, Verdicts};
use crate::record::latency::{BenchResult, LatencyRecord};
use crate::report::doc::{code, strong, text, Block, Cell, Table, Tags};
use crate::report::summary::{baselines, fastest_implementations, fastest_per_level, Fastest};
use crate::units;

/// The summary section.
pub const SECTION: Section = Section::new("summary", "Summary", build);

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let Some(input) = primary(ctx, blocks) else {
        return Ok(());
    };
    let run = &input.record;
    failures(run, blocks);
    let fastest = fastest_implementations(run);
    if fastest.is_empty() {
        say(
            blocks,
            "No implementation has a full-exchange measurement, so there is no ranking.",
        );
        return Ok(());
    }
    para(
        blocks,
        vec![
            text(
                "Ranked by the median of the full exchange (keygen + encaps + decaps of a \
                 fresh key), from ",
            ),
            code(&input.label),
            text("."),
        ],
    );
    levels(run, &fastest, blocks);
    let verdicts = Verdicts::of(ctx.data.of::<Ct>().iter().map(|i| &i.record));
    implementations(&fastest, &verdicts, blocks);
    Ok(())
}

/// The implementations that failed the correctness check, if any.
fn failures(run: &LatencyRecord, blocks: &mut Vec<Block>) {
    let failed: Vec<&BenchResult> = run
        .results
        .iter()
        .filter(|r| r.correctness.failed())
        .collect();
    if failed.is_empty() {
        return;
    }
    let mut p = vec![strong(format!(
        "{} implementation{} failed the correctness check and {} not timed: ",
        failed.len(),
        if failed.len() == 1 { "" } else { "s" },
        if failed.len() == 1 { "was" } else { "were" }
    ))];
    for (i, r) in failed.iter().enumerate() {
        if i > 0 {
            p.push(text(", "));
        }
        p.push(code(format!("{}@{}", r.algorithm, r.implementation)));
    }
    p.push(text(" (see Correctness)."));
    para(blocks, p);
}

/// The fastest algorithm at each NIST level, then the classical baselines.
fn levels(run: &LatencyRecord, fastest: &[Fastest], blocks: &mut Vec<Block>) {
    let x25519 = fastest
        .iter()
        .find(|f| f.algorithm.eq_ignore_ascii_case("X25519"))
        .map(|f| f.exchange_ns);
    h3(
        blocks,
        "summary-levels",
        "Fastest algorithm at each NIST level, and the classical baselines",
    );
    let mut t = Table::new(
        "table-levels",
        &[
            "NIST level",
            "algorithm",
            "implementation",
            "exchange median#",
            "× X25519#",
            "bytes on the wire#",
            "algorithms at this level#",
        ],
    );
    let row = |level: Option<u8>, b: &Fastest, last: Cell| {
        let ratio = match x25519 {
            Some(x) if x > 0.0 => {
                Cell::num(format!("{:.2}×", b.exchange_ns / x), b.exchange_ns / x)
            }
            _ => Cell::text("-"),
        };
        vec![
            level_cell(level),
            Cell::text(&b.algorithm),
            Cell::text(&b.implementation),
            ns_cell(b.exchange_ns),
            ratio,
            Cell::num(units::bytes(b.wire_bytes as u64), b.wire_bytes as f64),
            last,
        ]
    };
    for l in fastest_per_level(run) {
        let b = &l.best;
        let count = int_cell(l.algorithms as u64);
        t.push(row(Some(l.level), b, count), fastest_tags(b));
    }
    for b in baselines(run) {
        t.push(row(None, &b, Cell::text("baseline")), fastest_tags(&b));
    }
    blocks.push(Block::Table(t));
}

/// `name (verdict)` when screening verdicts were given, else `name`.
fn screened(verdicts: &Verdicts, algorithm: &str, implementation: &str) -> String {
    match verdicts.mark(algorithm, implementation) {
        Some(m) => format!("{implementation} ({m})"),
        None => implementation.to_string(),
    }
}

/// The fastest implementation of each algorithm with no unexplained constant-time finding
/// (`verdicts`), with the others' medians, each marked with its screening when verdicts were
/// given.
fn implementations(fastest: &[Fastest], verdicts: &Verdicts, blocks: &mut Vec<Block>) {
    h3(
        blocks,
        "summary-implementations",
        "Fastest implementation of each algorithm",
    );
    let mut t = Table::new(
        "table-fastest",
        &[
            "algorithm",
            "family",
            "NIST level#",
            "fastest implementation",
            "exchange median#",
            "others (exchange median, × fastest)",
        ],
    );
    for f in fastest {
        let mut all: Vec<(String, f64)> =
            std::iter::once((f.implementation.clone(), f.exchange_ns))
                .chain(f.others.iter().cloned())
                .collect();
        let pick = all
            .iter()
            .position(|(i, _)| verdicts.advisable(&f.algorithm, i))
            .unwrap_or(0);
        let (best, best_ns) = all.remove(pick);
        let others: Vec<String> = all
            .iter()
            .map(|(i, ns)| {
                format!(
                    "{}: {} ({:.2}×)",
                    screened(verdicts, &f.algorithm, i),
                    units::ns(*ns),
                    ns / best_ns
                )
            })
            .collect();
        let name = Cell::text(screened(verdicts, &f.algorithm, &best));
        let name = if verdicts.advisable(&f.algorithm, &best) {
            name
        } else {
            name.marked(crate::report::doc::Mark::Bad)
        };
        t.push(
            vec![
                Cell::text(&f.algorithm),
                Cell::text(&f.family),
                level_cell(f.nist_level),
                name,
                ns_cell(best_ns),
                Cell::text(if others.is_empty() {
                    "-".to_string()
                } else {
                    others.join("; ")
                }),
            ],
            Some(Tags::new(&f.family, f.nist_level, &best)),
        );
    }
    blocks.push(Block::Table(t));
}

/// The filter tags of a ranked implementation.
fn fastest_tags(f: &Fastest) -> Option<Tags> {
    Some(Tags::new(&f.family, f.nist_level, &f.implementation))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    #[test]
    fn the_fastest_implementation_skips_one_with_an_unexplained_finding() {
        use crate::report::data::{AnyRecord, Dataset};
        let run = fixture::run_with_builds();
        let first = fastest_implementations(&run)
            .into_iter()
            .find(|f| f.algorithm == "ML-KEM-768")
            .unwrap();
        let mut ct = fixture::ct();
        let mut leaky = ct.results[1].clone();
        leaky.algorithm = "ML-KEM-768".into();
        leaky.implementation = first.implementation.clone();
        ct.results = vec![leaky];
        let data = |with_ct: bool| {
            let mut v = vec![("b.json".into(), AnyRecord::from(run.clone()))];
            if with_ct {
                v.push(("ct.json".into(), AnyRecord::from(ct.clone())));
            }
            Dataset::from_records(v)
        };
        let row = |with_ct: bool| -> Vec<String> {
            let d = data(with_ct);
            let ctx = Context {
                data: &d,
                primary: d.primary(),
                noise: 0.02,
            };
            let mut b = Vec::new();
            build(&ctx, &mut b).unwrap();
            let t = super::super::common::tables(&b)
                .into_iter()
                .find(|t| t.id == "table-fastest")
                .unwrap()
                .clone();
            t.rows
                .iter()
                .find(|r| r.cells[0].text == "ML-KEM-768")
                .unwrap()
                .cells
                .iter()
                .map(|c| c.text.clone())
                .collect()
        };
        let plain = row(false);
        assert_eq!(
            plain[3], first.implementation,
            "without a ct run nothing changes"
        );
        let marked = row(true);
        let next = &first.others[0].0;
        assert_eq!(marked[3], format!("{next} (not screened)"), "{marked:?}");
        assert!(
            marked[5].contains(&format!("{} (unexplained findings)", first.implementation)),
            "{marked:?}"
        );
    }
}
