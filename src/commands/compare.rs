//! `kembench compare A B`: what changed between two runs (stored or in files), and is it real.

use crate::compare;
use crate::record::{profile::Profile, run::Run, tls::Tls, Kind, Record, RecordKind, RunRecord};
use crate::store::load_kind;

use std::process::ExitCode;

/// The records `old` and `new` name, both of kind `K`. When `old` cannot be read as `K` but is
/// a record of another kind, the error says that the two are of different kinds.
#[allow(clippy::type_complexity)]
fn load_pair<K: Kind>(
    spec: &str,
    old: &str,
    new: &str,
) -> anyhow::Result<((String, Record<K>), (String, Record<K>))> {
    let b = load_kind::<K>(spec, new)?;
    // `latest~N` counts among the runs of `new`'s kind: no other kind is meant.
    let relative = old.starts_with("latest");
    let a = load_kind::<K>(spec, old).map_err(|e| match kind_named(spec, old) {
        Some(k) if k != RecordKind::of::<K>() && !relative => crate::usage::Usage(format!(
            "{old} is {} and {new} is {}: compare reads two records of the same kind",
            k.noun(),
            K::FACTS.noun
        ))
        .into(),
        _ => e,
    })?;
    Ok((a, b))
}

/// The kind of record `new` names (a file, an id, or `latest`: the newest run in the store),
/// when it can be read: both sides are read as that kind (profiles and tls runs; anything else
/// as latency runs, whose errors say what is wrong).
fn kind_named(spec: &str, new: &str) -> Option<RecordKind> {
    crate::store::load(spec, new, None)
        .ok()
        .map(|(_, r)| r.kind())
}

/// `compare` of two tls runs: best-round medians and rates new / old, flight sizes, network
/// medians.
fn run_tls(spec: &str, old: &str, new: &str, json: bool) -> anyhow::Result<ExitCode> {
    let ((old, a), (new, b)) = load_pair::<Tls>(spec, old, new)?;
    let report = compare::tls::compare(&a, &b);
    if report.modes.is_empty() && report.network.is_empty() {
        crate::bail_usage!(
            "{old} and {new} share no (group, stack, certificate, kind of handshake) to compare"
        );
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", crate::output::compare::tls(&report, &old, &new));
    }
    Ok(ExitCode::SUCCESS)
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
    let ((old, a), (new, b)) = load_pair::<Profile>(spec, old, new)?;
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
    let kind = kind_named(spec, new);
    if kind == Some(RecordKind::Profile) {
        return run_profiles(spec, old, new, fail_on, json, flamegraphs);
    }
    if flamegraphs.is_some() {
        crate::bail_usage!("--flamegraphs applies to the comparison of two profiles");
    }
    if kind == Some(RecordKind::Tls) {
        if fail_on.is_some() {
            crate::bail_usage!(
                "--fail-on-regression applies to latency runs and profiles: the ratios of two tls runs have no significance test behind them"
            );
        }
        return run_tls(spec, old, new, json);
    }
    let ((old, a), (new, b)) = load_pair::<Run>(spec, old, new)?;
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
