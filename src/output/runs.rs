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
            r.id.clone(),
            r.kind.clone(),
            r.status.clone(),
            r.started_at
                .replace('T', " ")
                .trim_end_matches('Z')
                .to_string(),
            r.host.clone(),
            r.cpu.clone(),
            r.selection.clone(),
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
