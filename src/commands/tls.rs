//! `kembench tls`: make the certificates, measure each (group, stack, certificate), record,
//! write the result files, print the tables.

use crate::ending::Ending;
use crate::env::Environment;
use crate::measure::timer::Timers;
use crate::options::TlsOptions;
use crate::providers::Registry;
use crate::record::tls::TlsConfig;
use crate::record::{Nothing, TlsRecord};
use crate::store::records;
use crate::store::{self, Recorder};
use crate::tls::certs::Chain;
use crate::tls::measure::{self, Plan};
use anyhow::Context;
use std::process::ExitCode;

/// Runs `tls`.
pub fn run(o: &TlsOptions, cpus: usize, store_spec: &str) -> anyhow::Result<ExitCode> {
    store::refuse_over_store(o.outputs.iter().map(|(_, p)| p.as_path()), store_spec)?;
    let chains = o
        .certs
        .iter()
        .map(|&c| Chain::generate(c).with_context(|| format!("making a {} chain", c.as_str())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut plans = Vec::new();
    for chain in &chains {
        for &group in &o.groups {
            for &stack in &o.stacks {
                plans.push(Plan {
                    stack,
                    group,
                    chain,
                });
            }
        }
    }
    let registry = Registry::new(false);
    let kems: Vec<_> = plans
        .iter()
        .filter_map(|p| registry.get(&p.stack.kem_label(p.group)))
        .collect();
    let run_id = store::new_run_id();
    let mut recorder = Recorder::open(store_spec, o.store, &run_id)?;
    let record = TlsRecord::new(
        Some(run_id.clone()),
        store::recorded_command_line(),
        TlsConfig {
            stacks: o.stacks.iter().map(|s| s.as_str().to_string()).collect(),
            groups: o.groups.iter().map(|g| g.tls_name.to_string()).collect(),
            certs: o.certs.iter().map(|c| c.as_str().to_string()).collect(),
            modes: o.modes.clone(),
            duration_s: o.duration_s,
            threads: o.threads.clone(),
            scaling_duration_s: o.scaling_duration_s,
            target_rate: o.target_rate,
            network: o.network.clone(),
            network_handshakes: o.network_handshakes,
            network_concurrency: o.network_concurrency,
            network_parallel: o.network_parallel,
            planned: plans.iter().map(Plan::label).collect(),
        },
        Environment::for_implementations(&kems),
        Nothing {},
    );
    recorder.begin(records::run_row(&record));
    recorder.announce(&run_id);

    let timers = Timers::calibrate();
    // A group a stack does not offer is reported, not a failure of the run.
    let mut end = Ending::start(record, recorder, &o.outputs, "the benchmark in progress")?
        .failed_when(|r| r.error.is_some());
    let config = end.record().config.clone();
    // Every benchmark is checked first; then their handshakes are timed in rounds that take
    // turns, so the machine's changing speed affects every group and stack alike.
    let mut benches: Vec<_> = plans
        .iter()
        .map(|p| {
            let kem = registry.get(&p.stack.kem_label(p.group));
            measure::start(p, &config, kem)
        })
        .collect();
    for round in 1..=measure::ROUNDS {
        if crate::interrupt::requested() {
            break;
        }
        eprintln!(
            "tls: round {round} of {} over {} benchmarks ...",
            measure::ROUNDS,
            benches.iter().filter(|b| b.live()).count()
        );
        for b in benches.iter_mut() {
            if crate::interrupt::requested() {
                break;
            }
            measure::round(b, &config, &timers);
        }
    }
    // In-memory figures first: each result is stored as it is made (the store keeps it even if
    // the network part never ends); files get each result once, whole.
    let mut pending = Vec::new();
    for (i, (plan, b)) in plans.iter().zip(benches).enumerate() {
        eprintln!("tls: {} ({} of {}) ...", plan.label(), i + 1, plans.len());
        let r = measure::finish(b, &config, cpus, &crate::interrupt::requested);
        let networked = !config.network.is_empty()
            && r.error.is_none()
            && r.unavailable.is_none()
            && !r.interrupted;
        if networked {
            end.store(&r);
            pending.push((plan, r));
        } else {
            end.put(r);
        }
    }
    // Network conditions: several benchmarks at once, each in testbeds of its own, so one
    // condition's slowest handshakes (the retransmission tails) overlap another's.
    let (tx, rx) = std::sync::mpsc::channel();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let config = &config;
    std::thread::scope(|s| {
        let pending = &pending;
        for _ in 0..config.network_parallel.min(pending.len()) {
            let tx = tx.clone();
            let next = &next;
            s.spawn(move || loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((plan, r)) = pending.get(i) else {
                    return;
                };
                let mut r = r.clone();
                eprintln!("tls: {} under network conditions ...", plan.label());
                crate::tls::network::measure(plan, config, &mut r, &crate::interrupt::requested);
                if tx.send(r).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        for r in rx {
            end.put(r);
        }
    });
    end.finish(crate::interrupt::requested(), |record, _| {
        print!("{}", crate::output::tls::tables(record, o.layout));
        Ok(())
    })
}
