//! The instruction counts of a profile, described once for the console, the Markdown export
//! and the report: per (algorithm, implementation, operation) the median count, how it varied
//! across seeds, the primitive shares and the estimated cycles; on the console a row per
//! implementation that has none, saying why.
//!
//! `--wide` adds the simulated cache misses and the native counters; the Markdown export has
//! the hottest function instead. The console shows more ([`super::console`]).

use super::{console, ProfileRecord, ProfileResult};
use crate::callgrind::Primitive;
use crate::kem::catalog;
use crate::measure::counters::Counters;
use crate::kem::Op;
use crate::record::{Benchmark, ResultStatus};
use crate::table::{
    Cell, Column, Mark, Table, Tables, Tags, Target, CONSOLE, FIT, MARKDOWN, REPORT, WIDE,
};
use crate::units::{self, thousands};

/// Every table of `record` over `items` (its results, or while the Markdown export streams,
/// one result or the first few), with what is said around them.
pub fn tables(record: &ProfileRecord, items: &[ProfileResult]) -> Tables {
    let (e, m, c) = (&record.environment, &record.measured, &record.config);
    let mut said = vec![
        "Instructions are exact counts of one call under valgrind's callgrind; shares are of those instructions; estimated cycles come from a simulated cache, not this machine's.".to_string(),
    ];
    let lost = m.features_lost_under_valgrind();
    if !lost.is_empty() {
        said.push(format!(
            "Under valgrind the CPU lacks {}: libraries may take other code paths there.",
            lost.join(", ")
        ));
    }
    let unfixed: Vec<String> = items
        .iter()
        .filter(|x| !x.randomness.fixed && !x.operations.is_empty())
        .map(|x| x.label())
        .collect();
    if !unfixed.is_empty() {
        said.push(format!(
            "Randomness not fixed by the seed (counts may vary from run to run): {}.",
            unfixed.join(", ")
        ));
    }
    Tables {
        title: format!("kembench profile, {}", record.started_at),
        intro: vec![(
            MARKDOWN,
            format!(
                "Host {}: {}; {} under callgrind, {} seed(s) per implementation; cache {}.",
                crate::table::code(&e.hostname), e.cpu.model, m.valgrind, c.seeds, c.cache_geometry,
            ),
        )],
        tables: [
            vec![counts(items)],
            arches(record, items),
            sha3_alternative(record, items),
            console::trees(items),
            vec![console::notes(record), console::sha3_check(record, items)],
        ]
        .concat(),
        outro: vec![(MARKDOWN, said.join("\n"))],
        rest_elsewhere: true,
    }
}

/// The table across architectures, when the items ran on more than one.
fn arches(record: &ProfileRecord, items: &[ProfileResult]) -> Vec<Table> {
    let host = record.environment.arch.as_str();
    let placed = super::arches::placed(host, items.iter().map(|r| (host, r)));
    if placed.is_empty() || !super::arches::spans(&placed) {
        return Vec::new();
    }
    vec![super::arches::table(&placed)]
}

/// liboqs's own SHA-3 beside OpenSSL's, when the items hold both for an algorithm.
fn sha3_alternative(record: &ProfileRecord, items: &[ProfileResult]) -> Vec<Table> {
    let host = record.environment.arch.as_str();
    let placed = super::arches::placed(host, items.iter().map(|r| (host, r)));
    super::arches::sha3_table(&placed).into_iter().collect()
}

/// One row per operation profiled; the Markdown export streams it.
fn counts(items: &[ProfileResult]) -> Table {
    let mut t = Table::new("table-profile");
    let algorithm = t.add(Column::text("algorithm"));
    let implementation = t.add(Column::text("implementation"));
    let op = t.add(Column::text("op").named(MARKDOWN, "operation"));
    let instructions = t.add(Column::num("instructions").named(MARKDOWN, "instructions (median)"));
    let seeds = t.add(Column::num("across seeds"));
    let range = t.add(Column::num("min – max"));
    let shares = Primitive::ALL.map(|p| t.add(Column::num(p.label())));
    let cycles = t.add(Column::num("est. cycles"));
    let d1 = t.add(Column::num("D1 misses"));
    let ll = t.add(Column::num("LL misses"));
    let native_instructions = t.add(Column::num("native instr."));
    let native_cycles = t.add(Column::num("native cycles"));
    let hottest = t.add(Column::text("hottest function (self)"));
    let names = [algorithm, implementation, op, instructions];
    let counted = [&names[..], &[seeds], &shares, &[cycles]].concat();
    let native = [d1, ll, native_instructions, native_cycles];
    // The default console view leaves out the estimated cycles and says how far the seeds
    // spread without their range: within 120 columns (`--wide` has both).
    let fit = [&names[..], &[seeds], &shares].concat();
    t.view(FIT, 0, &fit)
        .view(REPORT, 0, &counted)
        .view(WIDE, 0, &[&counted[..], &native].concat())
        .view(
            MARKDOWN,
            0,
            &[&names[..], &[range], &shares, &[cycles, hottest]].concat(),
        )
        .always(CONSOLE | MARKDOWN)
        .streamed();
    for r in items {
        let tags = Some(Tags::catalogued(
            &r.family,
            catalog::level_of(&r.algorithm),
            &r.implementation,
        ));
        if r.operations.is_empty() {
            let why = match r.status() {
                ResultStatus::Ok => "nothing profiled".to_string(),
                s => s.as_str().to_string(),
            };
            let names = [&r.algorithm, &r.implementation].map(Cell::from);
            let mut console: Vec<Cell> = names.to_vec();
            console.extend(["–".into(), why.as_str().into()]);
            t.line(Target::Fit, None, console.clone());
            t.line(Target::Wide, None, console);
            let mut report: Vec<Cell> = names.to_vec();
            report.extend(["–".into(), Cell::text(why).marked(Mark::Bad)]);
            t.line(Target::Report, tags, report);
            continue;
        }
        for o in &r.operations {
            let (a, s) = (&o.analysis, &o.instructions);
            let index = Op::ALL.iter().position(|x| *x == o.operation).unwrap_or(0);
            let cache = a.cache.as_ref();
            let thousands_or = |v: Option<u64>| {
                v.map_or(Cell::right("–"), |n| Cell::num(thousands(n), n as f64))
            };
            let (native_i, native_c) = match &o.native {
                Counters::Measured(v) => (units::count(v.instructions), units::count(v.cycles)),
                Counters::Unavailable(_) => ("–".into(), "–".into()),
            };
            let row = t
                .row(tags.clone())
                .set(algorithm, &r.algorithm)
                .set(implementation, &r.implementation)
                .set(op, Cell::text(o.operation.as_str()).sorted(index as f64))
                .set(
                    instructions,
                    Cell::num(thousands(s.median), s.median as f64)
                        .on(MARKDOWN, s.median.to_string()),
                )
                .set(
                    seeds,
                    Cell::num(s.describe(), s.relative_range()).on(FIT, s.spread()),
                )
                .set(range, Cell::right(format!("{} – {}", s.min, s.max)))
                .set(
                    cycles,
                    thousands_or(cache.map(|c| c.estimated_cycles)).on(
                        MARKDOWN,
                        cache.map_or(String::new(), |c| c.estimated_cycles.to_string()),
                    ),
                )
                .set(d1, thousands_or(cache.map(|c| c.d1_misses)))
                .set(ll, thousands_or(cache.map(|c| c.ll_misses)))
                .set(native_instructions, Cell::right(native_i))
                .set(native_cycles, Cell::right(native_c))
                .set(hottest, super::hottest_cell(a));
            for (c, p) in shares.into_iter().zip(Primitive::ALL) {
                let v = a.share(p);
                let text = if v == 0.0 {
                    "–".to_string()
                } else {
                    format!("{:.1}%", v * 100.0)
                };
                row.set(
                    c,
                    Cell::num(text, v).on(MARKDOWN, format!("{:.1}%", 100.0 * v)),
                );
            }
        }
    }
    t
}

