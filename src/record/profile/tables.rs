//! The instruction counts of a profile, described once for the console, the Markdown export
//! and the report: per (algorithm, implementation, operation) the median count, how it varied
//! across seeds, the primitive shares and the estimated cycles; on the console a row per
//! implementation that has none, saying why.
//!
//! `--wide` adds the simulated cache misses and the native counters; the Markdown export has
//! the hottest function instead. The console shows more ([`super::console`]).

use super::{console, ProfileRecord, ProfileResult};
use crate::callgrind::Primitive;
use crate::measure::counters::Counters;
use crate::kem::Op;
use crate::record::{Benchmark, ResultStatus};
use crate::table::{
    Cell, Column, Mark, Table, Tables, Target, CONSOLE, FIT, MARKDOWN, REPORT, WIDE,
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
            cycles(record, items),
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

/// Estimated cycles per CPU of `--cpus`, when any foreign build has them: per
/// implementation and CPU (with the model that priced it) the estimate of each operation, the
/// share of executed instructions the model priced, and where decapsulation's estimate is
/// most (the block's function and its share).
fn cycles(record: &ProfileRecord, items: &[ProfileResult]) -> Vec<Table> {
    let rows: Vec<(&ProfileResult, &str)> = items
        .iter()
        .flat_map(|r| {
            let mut cpus: Vec<&str> = Vec::new();
            for o in &r.operations {
                for e in &o.estimates {
                    if !cpus.contains(&e.cpu.as_str()) {
                        cpus.push(&e.cpu);
                    }
                }
            }
            cpus.into_iter().map(move |c| (r, c))
        })
        .collect();
    if rows.is_empty() {
        return Vec::new();
    }
    let mut t = Table::new("table-profile-cycles");
    let algorithm = t.add(Column::text("algorithm"));
    let implementation = t.add(Column::text("implementation"));
    let cpu = t.add(Column::text("CPU (model)"));
    let ops = [Op::Keygen, Op::Encaps, Op::Decaps].map(|op| (op, t.add(Column::num(op.as_str()))));
    let priced = t.add(Column::num("priced"));
    let hottest = t.add(Column::text("most of decaps in"));
    let cols = [
        &[algorithm, implementation, cpu][..],
        &ops.map(|(_, c)| c),
        &[priced, hottest],
    ]
    .concat();
    let llvm = if record.config.llvm.is_empty() {
        "LLVM".to_string()
    } else {
        record.config.llvm.clone()
    };
    t.view(CONSOLE | MARKDOWN | REPORT, 2, &cols).caption(
        CONSOLE | MARKDOWN | REPORT,
        format!(
            "Estimated cycles per call (model estimate): every block counted in seed 0's call \
             (by QEMU's plugin for a foreign build, from callgrind's count of every instruction \
             for a native one), priced by {llvm}'s llvm-mca scheduling model of the CPU as a loop of itself \
             (steady-state cycles per execution), times its executions. No caches, branch \
             mispredictions, memory latency or clock: cycles of an ideal pipeline, not time. \
             'priced' is the share of executed instructions the model could price; the rest are \
             left out. Not checked against measured cycles in this run (benches/cycles-host.sh \
             holds this machine's model against them)."
        ),
    );
    if rows.iter().any(|(r, _)| {
        r.operations
            .iter()
            .any(|o| o.emulated.as_ref().is_some_and(|e| e.arch == "s390x"))
    }) {
        t.note(
            CONSOLE | MARKDOWN | REPORT,
            "s390x: these builds hash with their own software Keccak. Code that hashes through \
             OpenSSL would use CPACF's SHA-3 (KIMD/KLMD, z14 and later) on real IBM Z, which \
             QEMU does not emulate; the drop-in bound of the table across architectures is what \
             such an accelerator could save at most.",
        );
    }
    for (r, name) in rows {
        let estimate = |op: Op| {
            r.op(op)
                .and_then(|o| o.estimates.iter().find(|x| x.cpu == name))
        };
        let model = [Op::Keygen, Op::Encaps, Op::Decaps, Op::Exchange]
            .into_iter()
            .find_map(|op| estimate(op).map(|e| e.model.clone()))
            .unwrap_or_default();
        let described = if model.is_empty() || model == name {
            name.to_string()
        } else {
            format!("{name} ({model}'s)")
        };
        let tags = r.tags();
        let row = t
            .row(tags)
            .set(algorithm, &r.algorithm)
            .set(implementation, &r.implementation)
            .set(cpu, described);
        let (mut all, mut done) = (0u64, 0u64);
        for (op, c) in ops {
            row.set(
                c,
                estimate(op).map_or(Cell::right("–"), |e| {
                    all += e.priced_instructions + e.unpriced_instructions;
                    done += e.priced_instructions;
                    Cell::num(thousands(e.cycles), e.cycles as f64)
                        .on(MARKDOWN, e.cycles.to_string())
                }),
            );
        }
        let share = if all == 0 { 0.0 } else { done as f64 / all as f64 };
        row.set(priced, Cell::num(format!("{:.1}%", 100.0 * share), share));
        row.set(
            hottest,
            estimate(Op::Decaps)
                .and_then(|e| e.blocks.first().map(|b| (b, e.cycles)))
                .map_or(Cell::text("–"), |(b, total)| {
                    let part = if total == 0 { 0.0 } else { b.cycles as f64 / total as f64 };
                    Cell::text(format!("{} {:.0}%", b.function, 100.0 * part))
                }),
        );
    }
    vec![t]
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
        let tags = r.tags();
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

