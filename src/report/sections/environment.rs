//! Environments: for every run, throughput file, tls run and profile, when it ran, how it was
//! called, and the machine, build and providers it ran on.

use super::common::{h3, say};
use super::{Context, Section, KINDS};
use crate::record::{Kind, Record};
use crate::report::doc::Block;
use crate::units;

/// The environment section.
pub const SECTION: Section = Section::new("environment", "Environment", build);

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let data = ctx.data;
    for kind in KINDS {
        (kind.environment)(data, blocks);
    }
    if data.is_empty() {
        say(blocks, "No files.");
    }
    Ok(())
}

/// One record's sub-heading and facts: when and how it ran, what its kind adds (`own`), the
/// machine.
pub(super) fn record_facts<K: Kind>(
    blocks: &mut Vec<Block>,
    id: &str,
    heading: &str,
    r: &Record<K>,
    own: Vec<(String, String)>,
) {
    h3(blocks, id, heading);
    let end = match (r.finished_at.as_deref(), r.interrupted()) {
        (Some(at), _) => at,
        (None, true) => "interrupted",
        // Neither finished nor stopped: the run is still running (in the store's words).
        (None, false) => "in progress",
    };
    let mut facts = when_and_how(&r.started_at, end, &r.command_line);
    facts.extend(own);
    facts.extend(machine(&r.environment));
    blocks.push(Block::Facts(facts));
}

/// When a record's run started and how it ended (its end time, `interrupted` or
/// `in progress`), and its command line.
fn when_and_how(started: &str, end: &str, command: &[String]) -> Vec<(String, String)> {
    vec![
        (
            "started / finished".to_string(),
            format!("{started} / {end}"),
        ),
        ("command".into(), command.join(" ")),
    ]
}

/// The machine, build and providers of an environment.
fn machine(e: &crate::env::Environment) -> Vec<(String, String)> {
    let opt = |v: Option<String>| v.unwrap_or_else(|| "n/a".into());
    let mut f = vec![
        ("host".to_string(), e.hostname.clone()),
        ("CPU".into(), format!("{} ({})", e.cpu.model, e.cpu.vendor)),
        (
            "cores".into(),
            format!(
                "{} logical, {} physical, SMT {}",
                e.cpu.logical_cpus,
                e.cpu.physical_cores,
                if e.cpu.smt { "on" } else { "off" }
            ),
        ),
        ("CPU flags".into(), e.cpu.flags.join(" ")),
        (
            "frequency".into(),
            format!(
                "{} MHz (snapshot); governor {}; turbo {}",
                e.cpu
                    .nominal_mhz
                    .map_or("n/a".into(), |m| format!("{m:.0}")),
                opt(e.cpu.governor.clone()),
                e.cpu
                    .turbo
                    .map_or("n/a".into(), |t| if t { "on" } else { "off" }.to_string())
            ),
        ),
        (
            "perf_event_paranoid".into(),
            opt(e.cpu.perf_event_paranoid.map(|p| p.to_string())),
        ),
        ("memory".into(), units::bytes(e.memory_bytes)),
        (
            "hypervisor".into(),
            e.hypervisor
                .clone()
                .unwrap_or_else(|| "none detected".into()),
        ),
        (
            "OS".into(),
            format!("{} (kernel {}, {})", e.os, e.kernel, e.arch),
        ),
        (
            "kembench".into(),
            format!(
                "{} ({}), {} profile, opt-level {}, {}",
                e.build.kembench_version,
                e.build.git_commit,
                e.build.profile,
                e.build.opt_level,
                e.build.target
            ),
        ),
        ("target features".into(), e.build.target_features.join(" ")),
        ("rustc".into(), e.build.rustc.clone()),
        ("C compiler".into(), e.build.cc.clone()),
    ];
    for p in &e.providers {
        f.push((format!("provider {}", p.implementation), p.version.clone()));
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the report says of a run's end: its time, `interrupted`, or `in progress` for a
    /// run still running (never `interrupted`, which would say Ctrl-C stopped it).
    #[test]
    fn a_run_still_running_is_in_progress_not_interrupted() {
        let finished = |r: &crate::record::latency::LatencyRecord| {
            let mut blocks = Vec::new();
            record_facts(&mut blocks, "r", "run", r, Vec::new());
            let Some(Block::Facts(facts)) = blocks.last() else {
                panic!("facts")
            };
            facts
                .iter()
                .find(|(k, _)| k == "started / finished")
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        let mut r = crate::export::fixture::run();
        assert!(finished(&r).ends_with(r.finished_at.as_deref().unwrap()));
        r.finished_at = None;
        assert!(finished(&r).ends_with(" / in progress"), "{}", finished(&r));
        r.end(true);
        assert!(finished(&r).ends_with(" / interrupted"), "{}", finished(&r));
    }
}
