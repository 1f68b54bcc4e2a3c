//! The tables of a throughput run, described once for the console, the Markdown export and
//! the report: the rate of every operation at each thread count, then the TLS capacity.
//!
//! The console's default view stays within 120 columns: the per-thread range becomes the
//! spread between the fastest and slowest thread, names repeated from the row above are
//! blanked, and flags and errors become numbered notes under the table; `--wide` shows every
//! figure and message in its row.

use super::{ThroughputRecord, ThroughputResult};
use crate::record::scaling::{speedup_cell, thread_range};
use crate::kem::catalog;
use crate::kem::Op;
use crate::record::Benchmark;
use crate::table::{
    Cell, Column, Mark, Table, Tables, Tags, Target, CONSOLE, FIT, MARKDOWN, REPORT, WIDE,
};
use crate::units;

/// The filter tags of a result (throughput files do not record the level).
fn tags(r: &ThroughputResult) -> Option<Tags> {
    Some(Tags::catalogued(
        &r.family,
        catalog::level_of(&r.algorithm),
        &r.implementation,
    ))
}

/// An operation, sorted in the order operations are measured.
fn op(o: Op) -> Cell {
    let index = Op::ALL.iter().position(|x| *x == o).unwrap_or(0);
    Cell::text(o.as_str()).sorted(index as f64)
}

/// Every table of `record` over `items` (its results, or while the Markdown export streams,
/// one result or the first few), with what is said around them.
pub fn tables(record: &ThroughputRecord, items: &[ThroughputResult]) -> Tables {
    let e = &record.environment;
    let c = &record.config;
    let mode = if c.processes {
        "Mode: independent processes."
    } else {
        "Mode: threads in one process."
    };
    let cpus = e.cpu.logical_cpus;
    Tables {
        title: format!("kembench throughput, {}", record.started_at),
        intro: vec![(
            MARKDOWN,
            format!(
                "Host {}: {} ({} logical CPUs); {} per point, {}{}.",
                crate::table::code(&e.hostname),
                e.cpu.model,
                cpus,
                units::ns(c.duration_s * 1e9),
                if c.processes {
                    "independent processes"
                } else {
                    "threads"
                },
                if c.pinned { ", pinned" } else { "" }
            ),
        )],
        tables: vec![points(record, items), capacity(record, items)],
        outro: vec![
            (
                FIT,
                format!(
                    "Efficiency = speedup / min(threads, {cpus} logical CPUs); spread = the fastest thread's rate over the slowest's, minus one. {mode}"
                ),
            ),
            (
                WIDE,
                format!("Efficiency = speedup / min(threads, {cpus} logical CPUs). {mode}"),
            ),
        ],
        rest_elsewhere: false,
    }
}

/// What the report's file column adds to the file's label.
fn file_note(record: &ThroughputRecord) -> &'static str {
    if record.config.processes {
        " (processes)"
    } else {
        ""
    }
}

/// Every point of every operation; the Markdown export streams it. The flags of a point: the
/// console's default view numbers them under the table, `--wide` gives a point's own and, at
/// one thread, its operation's; the Markdown export and the report give all of both.
fn points(record: &ThroughputRecord, items: &[ThroughputResult]) -> Table {
    let mut t = Table::new("table-throughput");
    let file = t.add(Column::file());
    let algorithm = t.add(Column::text("algorithm"));
    let implementation = t.add(Column::text("implementation"));
    let operation = t.add(Column::text("op").named(MARKDOWN, "operation"));
    let threads = t.add(Column::num("threads"));
    let rate = t.add(Column::num("ops/s"));
    let spread = t.add(Column::num("spread"));
    let range = t.add(Column::num("per-thread min – max").text_in(REPORT));
    let speedup = t.add(Column::num("speedup"));
    let efficiency = t.add(Column::num("efficiency"));
    let noted = t.add(Column::text("flags").wraps());
    let flagged = t.add(Column::text("flags"));
    let flags = t.add(Column::text("flags"));
    let names = [algorithm, implementation, operation, threads, rate];
    let figures = [range, speedup, efficiency];
    t.view(
        FIT,
        3,
        &[&names[..], &[spread, speedup, efficiency, noted]].concat(),
    )
    .view(WIDE, 0, &[&names[..], &figures, &[flagged]].concat())
    .view(MARKDOWN, 0, &[&names[..], &figures, &[flags]].concat())
    .view(
        REPORT,
        0,
        &[&[file][..], &names, &figures, &[flags]].concat(),
    )
    .always(CONSOLE | MARKDOWN)
    .folded()
    .streamed();
    for r in items {
        if let Some(e) = &r.error {
            let mark = t.footnote(format!("{}: {e}", r.label()));
            let (alg, imp) = (Cell::from(&r.algorithm), Cell::from(&r.implementation));
            let failed = |s: String| Cell::text(s).marked(Mark::Bad);
            let mut fit = vec![alg.clone(), imp.clone(), "".into(), "".into()];
            fit.push(failed("FAILED".into()));
            fit.extend(["", "", ""].map(Cell::from));
            fit.push(failed(mark));
            t.line(Target::Fit, None, fit);
            t.line(
                Target::Wide,
                None,
                vec![alg.clone(), imp.clone(), failed(e.clone())],
            );
            let mut report = vec!["".into(), alg, imp];
            report.extend((0..6).map(|_| Cell::text("-")));
            report.push(failed(format!("error: {e}")));
            t.line(Target::Report, tags(r), report);
        }
        for o in &r.operations {
            for p in &o.points {
                let own = p
                    .flags
                    .iter()
                    .chain(o.flags.iter().filter(|_| p.threads == 1));
                let s = if p.threads == 1 { "" } else { "s" };
                let marks: Vec<String> = own
                    .clone()
                    .map(|f| {
                        t.footnote(format!(
                            "{} {} at {} thread{s}: {f}",
                            r.label(),
                            o.operation.as_str(),
                            p.threads
                        ))
                    })
                    .collect();
                let own: Vec<&str> = own.map(String::as_str).collect();
                let all: Vec<&str> = o.flags.iter().chain(&p.flags).map(String::as_str).collect();
                t.row(tags(r))
                    .set(file, file_note(record))
                    .set(algorithm, &r.algorithm)
                    .set(implementation, &r.implementation)
                    .set(operation, op(o.operation))
                    .set(threads, Cell::int(p.threads as u64))
                    .set(rate, Cell::count(p.total_ops_per_sec))
                    .set(
                        spread,
                        Cell::right(format!("{:.0}%", p.thread_spread * 100.0)),
                    )
                    .set(range, thread_range(p))
                    .set(speedup, speedup_cell(p))
                    .set(
                        efficiency,
                        Cell::num(format!("{:.0}%", p.efficiency * 100.0), p.efficiency)
                            .on(REPORT, format!("{:.1}%", p.efficiency * 100.0)),
                    )
                    .set(noted, Cell::text(marks.join(" ")).marked(Mark::Bad))
                    .set(
                        flagged,
                        Cell::text(own.join("; ")).marked_if(!own.is_empty(), Mark::Bad),
                    )
                    .set(
                        flags,
                        Cell::text(all.join("; ")).marked_if(!all.is_empty(), Mark::Warn),
                    );
            }
        }
    }
    t
}

/// The TLS capacity of every result that has it.
fn capacity(record: &ThroughputRecord, items: &[ThroughputResult]) -> Table {
    let mut t = Table::new("table-capacity");
    let file = t.add(Column::file());
    let algorithm = t.add(Column::text("algorithm"));
    let implementation = t.add(Column::text("implementation"));
    let basis = t.add(Column::num("basis").named(REPORT, "basis threads").wraps());
    let server_rate = t
        .add(Column::num("server\nhs/s/core").named(MARKDOWN | REPORT, "server handshakes/s/core"));
    let client_rate = t
        .add(Column::num("client\nhs/s/core").named(MARKDOWN | REPORT, "client handshakes/s/core"));
    let target = t.add(Column::num("target connections/s"));
    let server = t.add(Column::num("server\ncores"));
    let client = t.add(Column::num("client\ncores"));
    let names = [algorithm, implementation];
    let rates = [server_rate, client_rate];
    let cores = [server, client];
    let rate = units::count(record.config.target_rate);
    t.view(CONSOLE, 0, &[&names[..], &rates, &cores, &[basis]].concat())
        .view(MARKDOWN, 0, &[&names[..], &rates, &cores].concat())
        .view(
            REPORT,
            0,
            &[&[file][..], &names, &[basis], &rates, &[target], &cores].concat(),
        )
        .caption(
            CONSOLE,
            format!(
                "TLS 1.3 capacity: the server encapsulates, the client makes a key pair and decapsulates; cores needed for {rate} connections/s:"
            ),
        )
        .caption(
            MARKDOWN,
            format!(
                "TLS 1.3 capacity (server: encaps; client: keygen + decaps), target {rate} connections/s:"
            ),
        );
    let cores = |v: f64| Cell::num(format!("{v:.1}"), v).on(CONSOLE, units::cores(v));
    for r in items {
        let Some(c) = &r.capacity else { continue };
        t.row(tags(r))
            .set(file, file_note(record))
            .set(algorithm, &r.algorithm)
            .set(implementation, &r.implementation)
            .set(
                basis,
                Cell::int(c.basis_threads as u64)
                    .on(CONSOLE, format!("{} threads", c.basis_threads)),
            )
            .set(
                server_rate,
                Cell::count(c.server_handshakes_per_sec_per_core),
            )
            .set(
                client_rate,
                Cell::count(c.client_handshakes_per_sec_per_core),
            )
            .set(target, Cell::count(c.target_rate))
            .set(server, cores(c.server_cores_for_target))
            .set(client, cores(c.client_cores_for_target));
    }
    t
}

#[cfg(test)]
mod tests {
    use crate::export::fixture;
    use crate::output::{tables, Width, WIDTH};
    use crate::record::throughput::ThroughputRecord;

    /// The fixture under the longest real names, with long flags on its points and a second
    /// implementation that failed.
    fn record() -> ThroughputRecord {
        let mut t = fixture::throughput();
        let mut r = t.results[0].clone();
        r.algorithm = "Classic-McEliece-6688128".into();
        r.implementation = "libcrux/portable".into();
        for o in &mut r.operations {
            o.flags = vec!["one-thread rate 20043/s is -52% from 1/median latency (41804/s): a measurement problem".into()];
            o.points[1].flags = vec!["super-linear: 20% above the ideal 2x, a measurement problem (shared state, turbo, or a noisy one-thread run)".into()];
        }
        let failed = crate::record::throughput::ThroughputResult {
            algorithm: "X25519MLKEM768".into(),
            implementation: "openssl".into(),
            operations: Vec::new(),
            capacity: None,
            error: Some("not measured: correctness check failed: trip 1: decapsulated secret differs, and more words to make it long".into()),
            ..r.clone()
        };
        t.results = vec![r, failed];
        t
    }

    #[test]
    fn the_default_tables_fit_with_flags_and_errors_under_them() {
        let text = tables(&record(), Width::Fit, &[]);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= WIDTH, "{text}");
        assert_eq!(
            text.matches("Classic-McEliece-6688128").count(),
            1 + 6 + 1,
            "{text}"
        );
        assert!(
            text.lines()
                .any(|l| l.contains("X25519MLKEM768") && l.contains("FAILED") && l.contains("[7]")),
            "{text}"
        );
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("[1] Classic-McEliece-6688128@libcrux/portable keygen at 1 thread: one-thread rate 20043/s"), "{flat}");
        assert!(
            flat.contains(
                "[2] Classic-McEliece-6688128@libcrux/portable keygen at 2 threads: super-linear"
            ),
            "{flat}"
        );
        assert!(
            flat.contains("[7] X25519MLKEM768@openssl: not measured: correctness check failed"),
            "{flat}"
        );
        assert!(text.contains("spread"), "{text}");
        assert!(!text.contains("per-thread min – max"));
    }

    #[test]
    fn the_wide_tables_keep_every_figure_in_its_row() {
        let text = tables(&record(), Width::Wide, &[]);
        assert!(text.contains("per-thread min – max"));
        assert!(text.contains("server hs/s/core"));
        assert!(text
            .lines()
            .any(|l| l.contains("keygen") && l.contains("one-thread rate 20043/s")));
    }
}
