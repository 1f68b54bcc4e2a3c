//! The console tables of a throughput run: rates per thread count, then TLS capacity.
//!
//! [`Layout::Fit`] keeps them within [`super::WIDTH`] columns: the per-thread range becomes
//! the spread between the fastest and slowest thread, names repeated from the row above are
//! blanked, and flags and errors become numbered notes under the table. [`Layout::Wide`]
//! shows every figure and message in its row.

use super::{fit_table, num, prose, table, Footnotes, Grouped, Layout};
use crate::record::throughput::ThroughputRecord;
use crate::record::Benchmark;
use crate::units;
use comfy_table::{Cell, Color, Table};

/// Cores with enough digits to tell 0.02 from 0.
fn cores(c: f64) -> String {
    if c < 10.0 {
        format!("{c:.2}")
    } else {
        format!("{c:.1}")
    }
}

/// The console tables of a throughput run and the lines that explain them, each line ending
/// in a newline.
pub fn tables(record: &ThroughputRecord, layout: Layout) -> String {
    let mut out = match layout {
        Layout::Fit => fit(record),
        Layout::Wide => format!("{}\n", wide(record)),
    };
    if let Some(c) = capacity(record, layout) {
        out.push_str(&prose(
            layout,
            &format!(
                "TLS 1.3 capacity: the server encapsulates, the client makes a key pair and decapsulates; cores needed for {} connections/s:",
                units::count(record.config.target_rate)
            ),
        ));
        out.push_str(&format!("{c}\n"));
    }
    let mode = if record.config.processes {
        "Mode: independent processes."
    } else {
        "Mode: threads in one process."
    };
    let cpus = record.environment.cpu.logical_cpus;
    out.push_str(&prose(
        layout,
        &match layout {
            Layout::Wide => format!("Efficiency = speedup / min(threads, {cpus} logical CPUs). {mode}"),
            Layout::Fit => format!(
                "Efficiency = speedup / min(threads, {cpus} logical CPUs); spread = the fastest thread's rate over the slowest's, minus one. {mode}"
            ),
        },
    ));
    out
}

/// Every figure, flags and errors in their rows.
fn wide(record: &ThroughputRecord) -> Table {
    let mut t = table(&[
        "algorithm",
        "implementation",
        "op",
        "threads",
        "ops/s",
        "per-thread min – max",
        "speedup",
        "efficiency",
        "flags",
    ]);
    for r in &record.results {
        if let Some(e) = &r.error {
            t.add_row(vec![
                Cell::new(&r.algorithm),
                Cell::new(&r.implementation),
                Cell::new(e).fg(Color::Red),
            ]);
        }
        for o in &r.operations {
            for p in &o.points {
                let (min, max) = (p.min_thread_rate(), p.max_thread_rate());
                let mut flags: Vec<String> = p.flags.clone();
                if p.threads == 1 {
                    flags.extend(o.flags.iter().cloned());
                }
                t.add_row(vec![
                    Cell::new(&r.algorithm),
                    Cell::new(&r.implementation),
                    Cell::new(o.operation.as_str()),
                    num(p.threads),
                    num(units::count(p.total_ops_per_sec)),
                    num(format!("{} – {}", units::count(min), units::count(max))),
                    num(format!("{:.2}x", p.speedup)),
                    num(format!("{:.0}%", p.efficiency * 100.0)),
                    if flags.is_empty() {
                        Cell::new("")
                    } else {
                        Cell::new(flags.join("; ")).fg(Color::Red)
                    },
                ]);
            }
        }
    }
    t
}

/// Within [`super::WIDTH`]: the thread spread instead of the range, markers for flags and
/// errors, whose text follows the table.
fn fit(record: &ThroughputRecord) -> String {
    let mut t = fit_table(
        &[
            "algorithm",
            "implementation",
            "op",
            "threads",
            "ops/s",
            "spread",
            "speedup",
            "efficiency",
            "flags",
        ],
        8,
    );
    let mut notes = Footnotes::default();
    let mut names = Grouped::default();
    for r in &record.results {
        if let Some(e) = &r.error {
            let mark = notes.add(format!("{}: {e}", r.label()));
            let mut row = names.cells(&[&r.algorithm, &r.implementation, ""]);
            row.push(Cell::new(""));
            row.push(Cell::new("FAILED").fg(Color::Red));
            row.extend(["", "", ""].map(Cell::new));
            row.push(Cell::new(mark).fg(Color::Red));
            t.add_row(row);
        }
        for o in &r.operations {
            for p in &o.points {
                let flags = p
                    .flags
                    .iter()
                    .chain(o.flags.iter().filter(|_| p.threads == 1));
                let marks: Vec<String> = flags
                    .map(|f| {
                        notes.add(format!(
                            "{} {} at {} thread{}: {f}",
                            r.label(),
                            o.operation.as_str(),
                            p.threads,
                            if p.threads == 1 { "" } else { "s" }
                        ))
                    })
                    .collect();
                let mut row = names.cells(&[&r.algorithm, &r.implementation, o.operation.as_str()]);
                row.extend([
                    num(p.threads),
                    num(units::count(p.total_ops_per_sec)),
                    num(format!("{:.0}%", p.thread_spread * 100.0)),
                    num(format!("{:.2}x", p.speedup)),
                    num(format!("{:.0}%", p.efficiency * 100.0)),
                    Cell::new(marks.join(" ")).fg(Color::Red),
                ]);
                t.add_row(row);
            }
        }
    }
    format!("{t}\n{}", notes.render())
}

/// The TLS capacity table, if any implementation has capacity figures; two-line headers in
/// [`Layout::Fit`].
fn capacity(record: &ThroughputRecord, layout: Layout) -> Option<Table> {
    let caps: Vec<_> = record
        .results
        .iter()
        .filter_map(|r| r.capacity.as_ref().map(|c| (r, c)))
        .collect();
    if caps.is_empty() {
        return None;
    }
    let mut c = match layout {
        Layout::Wide => table(&[
            "algorithm",
            "implementation",
            "server hs/s/core",
            "client hs/s/core",
            "server cores",
            "client cores",
            "basis",
        ]),
        Layout::Fit => fit_table(
            &[
                "algorithm",
                "implementation",
                "server\nhs/s/core",
                "client\nhs/s/core",
                "server\ncores",
                "client\ncores",
                "basis",
            ],
            6,
        ),
    };
    for (r, cap) in caps {
        c.add_row(vec![
            Cell::new(&r.algorithm),
            Cell::new(&r.implementation),
            num(units::count(cap.server_handshakes_per_sec_per_core)),
            num(units::count(cap.client_handshakes_per_sec_per_core)),
            num(cores(cap.server_cores_for_target)),
            num(cores(cap.client_cores_for_target)),
            num(format!("{} threads", cap.basis_threads)),
        ]);
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::output::WIDTH;

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
        let text = tables(&record(), Layout::Fit);
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
        let text = tables(&record(), Layout::Wide);
        assert!(text.contains("per-thread min – max"));
        assert!(text.contains("server hs/s/core"));
        assert!(text
            .lines()
            .any(|l| l.contains("keygen") && l.contains("one-thread rate 20043/s")));
    }
}
