//! The console table of `runs`.

use super::table;
use crate::store::RunSummary;

/// The newest `all` of `total` runs in the store at `location`.
pub fn print(all: &[RunSummary], total: usize, location: &str) {
    println!("Store: {} ({total} runs)", location);
    if all.is_empty() {
        println!("No runs yet: `kembench run` records one.");
        return;
    }
    let mut t = table(&[
        "id",
        "kind",
        "status",
        "started (UTC)",
        "host",
        "cpu",
        "selection",
        "benchmarks",
        "not ok",
    ]);
    for r in all {
        t.add_row(vec![
            super::clean(&r.id),
            super::clean(&r.kind),
            super::clean(&r.status),
            r.started_at
                .replace('T', " ")
                .trim_end_matches('Z')
                .to_string(),
            super::clean(&r.host),
            super::clean(&r.cpu),
            super::clean(&r.selection),
            r.results.to_string(),
            r.not_ok.to_string(),
        ]);
    }
    println!("{t}");
    if total > all.len() {
        println!(
            "({} older runs not shown; --limit raises the count)",
            total - all.len()
        );
    }
}
