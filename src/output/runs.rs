//! The console table of `runs`: within [`super::WIDTH`] columns (the selection wrapped, the CPU
//! left out), or every column with `--wide`.

use super::{table, Width};
use crate::store::RunSummary;

/// The newest `all` of `total` runs in the store at `location`.
pub fn print(all: &[RunSummary], total: usize, location: &str, layout: Width) {
    println!("Store: {} ({total} runs)", super::clean(location));
    if all.is_empty() {
        println!("No runs yet: `kembench run` records one.");
        return;
    }
    let wide = layout == Width::Wide;
    let mut header = vec!["id", "kind", "status", "started (UTC)", "host"];
    if wide {
        header.push("cpu");
    }
    header.extend(["selection", "results"]);
    let selection = header.len() - 2;
    let mut t = table(&header);
    for r in all {
        let started = r.started_at.replace('T', " ");
        let started = started.trim_end_matches('Z');
        let mut row = vec![
            super::clean(&r.id),
            super::clean(&r.kind),
            super::clean(&r.status),
            if wide {
                started.to_string()
            } else {
                // To the minute: the id holds the second.
                started.get(..16).unwrap_or(started).to_string()
            },
            super::clean(&r.host),
        ];
        if wide {
            row.push(super::clean(&r.cpu));
        }
        let selection = match &r.sweep {
            Some(sweep) => format!("{} (sweep {sweep})", r.selection),
            None => r.selection.clone(),
        };
        row.push(super::clean(&if wide {
            selection
        } else {
            // A list of labels breaks between them: a space after each comma.
            selection.replace(',', ", ").replace(",  ", ", ")
        }));
        row.push(if r.not_ok == 0 {
            r.results.to_string()
        } else {
            format!("{}, {} not ok", r.results, r.not_ok)
        });
        t.add_row(row);
    }
    if !wide {
        // The id never breaks (it is what `show` takes); the selection wraps at spaces; a
        // long host name leaves its column to `--wide`.
        super::fit(&mut t, &[selection], &[4]);
    }
    println!("{t}");
    if total > all.len() {
        println!(
            "({} older runs not shown; --limit raises the count)",
            total - all.len()
        );
    }
    if !wide {
        println!(
            "The CPU of each run and every line unwrapped: `kembench runs --wide` (or --json)."
        );
    }
}
