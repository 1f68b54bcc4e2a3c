//! `kembench compare A B`: what changed between two runs (stored or in files), and is it real.

use crate::compare;
use crate::record::{AnyRecord, ProfileRecord, RecordKind, RunRecord};

use std::process::ExitCode;

/// The run a selector names: a `run --json` file, or a run in the store.
fn load_run(spec: &str, selector: &str) -> anyhow::Result<(String, RunRecord)> {
    match crate::store::load(spec, selector, Some(RecordKind::Run))? {
        (name, AnyRecord::Run(r)) => Ok((name, *r)),
        (name, AnyRecord::Throughput(_)) => {
            crate::bail_usage!(
                "{name} is a throughput run; compare reads latency runs (`kembench run`) and profiles (`kembench profile`)"
            )
        }
        (name, AnyRecord::Profile(_)) => {
            crate::bail_usage!("{name} is a profile; compare it with another profile")
        }
        (name, AnyRecord::Tls(_)) => {
            crate::bail_usage!("{name} is a tls run; compare reads latency runs and profiles")
        }
    }
}

/// The profile a selector names: a `profile --json` file, or a profile in the store.
fn load_profile(spec: &str, selector: &str) -> anyhow::Result<(String, ProfileRecord)> {
    match crate::store::load(spec, selector, Some(RecordKind::Profile))? {
        (name, AnyRecord::Profile(p)) => Ok((name, *p)),
        (name, _) => crate::bail_usage!(
            "{name} is not a profile; compare reads two latency runs or two profiles"
        ),
    }
}

/// Whether `new` names a profile (a file, an id, or `latest` when the newest run in the
/// store is a profile): then both sides are read as profiles.
fn names_a_profile(spec: &str, new: &str) -> bool {
    matches!(
        crate::store::load(spec, new, None),
        Ok((_, AnyRecord::Profile(_)))
    )
}

/// `compare` of two profiles: exact instruction ratios.
fn run_profiles(
    spec: &str,
    old: &str,
    new: &str,
    fail_on: Option<f64>,
    json: bool,
    flamegraphs: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    let ((old, a), (new, b)) = (load_profile(spec, old)?, load_profile(spec, new)?);
    let report = compare::profile::compare(&a, &b);
    if let Some(dir) = flamegraphs {
        let n =
            crate::profile::flames::write_differences(dir, &a, &b, &crate::store::protected(spec))?;
        eprintln!(
            "compare: {n} differential flame graph(s) in {}",
            dir.display()
        );
    }
    if report.rows.is_empty() {
        crate::bail_usage!(
            "{old} and {new} share no (algorithm, implementation, operation) to compare"
        );
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", crate::output::compare::profile(&report, &old, &new));
    }
    if let Some(pct) = fail_on {
        let reg = report.regressions(pct);
        if !reg.is_empty() {
            eprintln!(
                "{} operations execute more than {pct}% more instructions",
                reg.len()
            );
            return Ok(ExitCode::from(crate::exit::FAILED));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What a run measured, for messages: `ML-KEM-768@liboqs, X25519@aws-lc` (or `nothing`).
fn measured(r: &RunRecord) -> String {
    let labels: Vec<String> = r
        .results
        .iter()
        .filter(|b| !b.operations.is_empty())
        .map(|b| format!("{}@{}", b.algorithm, b.implementation))
        .collect();
    if labels.is_empty() {
        "nothing measured".into()
    } else {
        labels.join(", ")
    }
}

/// Runs `compare`.
pub fn run(
    spec: &str,
    old: &str,
    new: &str,
    noise: f64,
    fail_on: Option<f64>,
    json: bool,
    flamegraphs: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    if names_a_profile(spec, new) {
        return run_profiles(spec, old, new, fail_on, json, flamegraphs);
    }
    if flamegraphs.is_some() {
        crate::bail_usage!("--flamegraphs applies to the comparison of two profiles");
    }
    let ((old, a), (new, b)) = (load_run(spec, old)?, load_run(spec, new)?);
    if old == new || (a.run_id.is_some() && a.run_id == b.run_id) {
        eprintln!("warning: {old} is compared with itself: every ratio is 1 by construction");
    }
    let report = compare::compare(&a, &b, noise);
    if report.rows.is_empty() {
        crate::bail_usage!(
            "{old} and {new} share no (algorithm, implementation, operation) to compare: {old} has {}; {new} has {}",
            measured(&a),
            measured(&b)
        );
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        crate::output::compare::print(&report, &old, &new);
    }
    if let Some(pct) = fail_on {
        let reg = report.regressions(pct);
        if !reg.is_empty() {
            eprintln!(
                "{} operations regressed by more than {pct}% with significance",
                reg.len()
            );
            return Ok(ExitCode::from(crate::exit::FAILED));
        }
    }
    Ok(ExitCode::SUCCESS)
}
