//! Environments: for every run, throughput file, tls run and profile, when it ran, how it was
//! called, and the machine, build and providers it ran on.

use super::common::{h3, run_heading, say};
use super::{Context, Section};
use crate::record::profile::Profile;
use crate::record::run::Run;
use crate::record::throughput::Throughput;
use crate::record::tls::Tls;
use crate::record::{Kind, Record};
use crate::report::doc::Block;
use crate::units;

/// The environment section.
pub const SECTION: Section = Section::new("environment", "Environment", build);

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let data = ctx.data;
    for (i, input) in data.of::<Run>().iter().enumerate() {
        let r = &input.record;
        let facts = vec![
            (
                "selection".into(),
                format!(
                    "{} ({} implementations)",
                    r.config.selection,
                    r.results.len()
                ),
            ),
            (
                "measuring thread".into(),
                r.config
                    .pinned_cpu
                    .map_or("not pinned".into(), |c| format!("pinned to CPU {c}")),
            ),
        ];
        let id = format!("environment-run-{}", i + 1);
        record_facts(blocks, &id, &run_heading(i, input), r, facts);
    }
    for (i, input) in data.of::<Throughput>().iter().enumerate() {
        let r = &input.record;
        let facts = vec![(
            "counts".into(),
            format!(
                "{} {:?}, {} per point, {} repeat(s){}",
                if r.config.processes {
                    "processes"
                } else {
                    "threads"
                },
                r.config.threads,
                units::ns(r.config.duration_s * 1e9),
                r.config.repeats,
                if r.config.pinned { ", pinned" } else { "" }
            ),
        )];
        let id = format!("environment-throughput-{}", i + 1);
        let heading = format!("throughput ({})", input.label);
        record_facts(blocks, &id, &heading, r, facts);
    }
    for (i, input) in data.of::<Tls>().iter().enumerate() {
        let r = &input.record;
        let c = &r.config;
        let stacks: Vec<String> = r
            .results
            .iter()
            .map(|x| format!("{} {}", x.stack, x.version))
            .fold(Vec::new(), |mut v, s| {
                if !v.contains(&s) {
                    v.push(s);
                }
                v
            });
        let facts = vec![
            (
                "selection".into(),
                format!(
                    "groups {}; stacks {}; certificates {} ({} benchmarks)",
                    c.groups.join(", "),
                    c.stacks.join(", "),
                    c.certs.join(", "),
                    r.results.len()
                ),
            ),
            ("stack versions".into(), stacks.join(", ")),
            (
                "handshakes".into(),
                format!(
                    "{} per kind ({}), scaling at threads {:?} for {} each, {} per network condition",
                    units::ns(c.duration_s * 1e9),
                    c.modes.iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", "),
                    c.threads,
                    units::ns(c.scaling_duration_s * 1e9),
                    c.network_handshakes
                ),
            ),
        ];
        let id = format!("environment-tls-{}", i + 1);
        let heading = format!("tls ({})", input.label);
        record_facts(blocks, &id, &heading, r, facts);
    }
    for (i, input) in data.of::<Profile>().iter().enumerate() {
        let r = &input.record;
        let facts = vec![
            (
                "selection".into(),
                format!(
                    "{} ({} implementations)",
                    Profile::selection(&r.config),
                    r.results.len()
                ),
            ),
            (
                "callgrind".into(),
                format!(
                    "{}, {} seed(s), simulated caches: {}",
                    r.measured.valgrind, r.config.seeds, r.config.cache_geometry
                ),
            ),
            (
                "CPU features under valgrind".into(),
                r.measured.cpu_features_under_valgrind.join(" "),
            ),
        ];
        let id = format!("environment-profile-{}", i + 1);
        let heading = format!("profile ({})", input.label);
        record_facts(blocks, &id, &heading, r, facts);
    }
    if data.of::<Run>().is_empty()
        && data.of::<Throughput>().is_empty()
        && data.of::<Profile>().is_empty()
        && data.of::<Tls>().is_empty()
    {
        say(blocks, "No files.");
    }
    Ok(())
}

/// One record's sub-heading and facts: when and how it ran, what its kind adds (`own`), the
/// machine.
fn record_facts<K: Kind>(
    blocks: &mut Vec<Block>,
    id: &str,
    heading: &str,
    r: &Record<K>,
    own: Vec<(String, String)>,
) {
    h3(blocks, id, heading);
    let mut facts = when_and_how(&r.started_at, r.finished_at.as_deref(), &r.command_line);
    facts.extend(own);
    facts.extend(machine(&r.environment));
    blocks.push(Block::Facts(facts));
}

/// When a record's run started and finished, and its command line.
fn when_and_how(
    started: &str,
    finished: Option<&str>,
    command: &[String],
) -> Vec<(String, String)> {
    vec![
        (
            "started / finished".to_string(),
            format!("{started} / {}", finished.unwrap_or("interrupted")),
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
