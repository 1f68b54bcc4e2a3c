//! A ct run as CSV: one row per (algorithm, implementation, operation, screen), its findings
//! in one column (`kind function file:line ×count [list id]`, separated by `; `).

use super::{CtRecord, CtResult, Ran};

/// The header of ct CSV files.
pub const HEADER: &[&str] = &[
    "algorithm",
    "implementation",
    "version",
    "build",
    "operation",
    "screen",
    "state",
    "why",
    "findings",
    "unexplained_findings",
    "finding_list",
    "timing_measurements",
    "timing_max_t",
    "timing_second_order_t",
    "timing_noise_floor_t",
    "timing_verdict",
    "verdict",
];

/// The CSV rows of one result.
pub fn rows(_record: &CtRecord, r: &CtResult) -> Vec<Vec<String>> {
    let verdict = r.verdict().as_str().to_string();
    r.screens
        .iter()
        .map(|s| {
            let (state, why) = match &s.ran {
                Ran::Screened => ("screened", String::new()),
                Ran::NotScreened(w) => ("not-screened", w.clone()),
                Ran::Failed(w) => ("failed", w.clone()),
            };
            let list: Vec<String> = s
                .findings
                .iter()
                .map(|f| {
                    format!(
                        "{} {} {} ×{} [{}]",
                        f.kind.short(),
                        if f.function.is_empty() { "-" } else { &f.function },
                        f.line.as_deref().unwrap_or("-"),
                        f.count_per_call,
                        f.explained
                            .as_ref()
                            .map_or("unexplained".to_string(), |e| format!(
                                "{} {}{}",
                                e.list.as_str(),
                                e.id,
                                e.accepted
                                    .as_ref()
                                    .map(|by| format!(" accepted by {by}"))
                                    .unwrap_or_default()
                            ))
                    )
                })
                .collect();
            let t = s.timing.as_ref();
            vec![
                r.algorithm.clone(),
                r.implementation.clone(),
                r.version.clone(),
                r.build.clone().unwrap_or_default(),
                s.operation.as_str().to_string(),
                s.screen.as_str().to_string(),
                state.to_string(),
                why,
                s.findings.len().to_string(),
                s.unexplained().count().to_string(),
                list.join("; "),
                t.map_or(String::new(), |t| t.measurements.to_string()),
                t.map_or(String::new(), |t| t.max_t.to_string()),
                t.map_or(String::new(), |t| t.second_order_t.to_string()),
                t.map_or(String::new(), |t| t.noise_floor_t.to_string()),
                t.map_or(String::new(), |t| t.verdict()),
                verdict.clone(),
            ]
        })
        .collect()
}
