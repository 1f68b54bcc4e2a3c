//! The console tables of a throughput run: rates per thread count, then TLS capacity.

use super::{num, table};
use crate::record::throughput::ThroughputRecord;
use crate::units;
use comfy_table::{Cell, Color};

/// Cores with enough digits to tell 0.02 from 0.
fn cores(c: f64) -> String {
    if c < 10.0 {
        format!("{c:.2}")
    } else {
        format!("{c:.1}")
    }
}

/// The console tables of a throughput run.
pub fn print(record: &ThroughputRecord) {
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
    println!("{t}");
    let caps: Vec<_> = record
        .results
        .iter()
        .filter_map(|r| r.capacity.as_ref().map(|c| (r, c)))
        .collect();
    if !caps.is_empty() {
        let mut c = table(&[
            "algorithm",
            "implementation",
            "server hs/s/core",
            "client hs/s/core",
            "server cores",
            "client cores",
            "basis",
        ]);
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
        println!(
            "TLS 1.3 capacity: the server encapsulates, the client makes a key pair and decapsulates; cores needed for {} connections/s:",
            units::count(record.config.target_rate)
        );
        println!("{c}");
    }
    println!(
        "Efficiency = speedup / min(threads, {} logical CPUs). {}",
        record.environment.cpu.logical_cpus,
        if record.config.processes {
            "Mode: independent processes."
        } else {
            "Mode: threads in one process."
        }
    );
}
