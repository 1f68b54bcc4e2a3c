//! `kembench throughput`: measure, record, write the result files, print the tables.

use crate::ending::{Ending, OnInterrupt};
use crate::env::Environment;
use crate::measure::timer::Timers;
use crate::options::ThroughputOptions;
use crate::providers::Registry;
use crate::record::throughput::ThroughputConfig;
use crate::record::{
    now_rfc3339, AnyRecord, Benchmark, Nothing, RecordKind, RunStatus, ThroughputRecord,
};
use crate::store::records;
use crate::store::{self, Recorder, Store};
use crate::throughput::measure;
use std::process::ExitCode;

/// Runs `throughput`, or with `--resume` completes an interrupted one.
pub fn run(o: &ThroughputOptions, cpus: usize, store_spec: &str) -> anyhow::Result<ExitCode> {
    store::refuse_over_store(o.outputs.iter().map(|(_, p)| p.as_path()), store_spec)?;
    if let Some(sel) = &o.resume {
        return resume(sel, o, cpus, store_spec);
    }
    let registry = Registry::new(o.include_mock);
    let impls = measure::select(&registry, &o.filter)?;
    let run_id = store::new_run_id();
    let mut recorder = Recorder::open(store_spec, o.store, &run_id)?;
    let environment = Environment::for_implementations(&impls);
    let record = ThroughputRecord::new(
        Some(run_id.clone()),
        store::recorded_command_line(),
        ThroughputConfig {
            threads: o.threads.clone(),
            duration_s: o.duration_s,
            repeats: o.repeats,
            pinned: o.pin,
            processes: o.processes,
            target_rate: o.target_rate,
            operations: o.ops.clone(),
            planned: impls.iter().map(|k| k.meta().label()).collect(),
        },
        environment,
        Nothing {},
    );
    recorder.begin(records::run_row(&record));
    recorder.announce(&run_id);
    execute(record, impls, o, cpus, recorder)
}

/// `throughput --resume RUN`: measures, with the run's own configuration, the planned
/// implementations it has no final result for.
fn resume(
    selector: &str,
    o: &ThroughputOptions,
    cpus: usize,
    store_spec: &str,
) -> anyhow::Result<ExitCode> {
    let mut st = Store::open_existing(store_spec)?;
    let id = st.resolve(selector, Some(RecordKind::Throughput))?;
    let stored = st.load(&id)?;
    if RunStatus::parse(&stored.summary.status) == Some(RunStatus::Complete) {
        crate::bail_usage!("run {id} is complete; there is nothing to resume");
    }
    let AnyRecord::Throughput(mut record) = records::record(&stored)? else {
        crate::bail_usage!("run {id} is not a `kembench throughput` run");
    };
    let registry = Registry::new(planned_mock(&record));
    let (todo, missing) = record.unfinished(|label| registry.get(label));
    if !missing.is_empty() {
        let hint = crate::providers::registry::why_missing(&missing);
        crate::bail_usage!(
            "run {id} cannot be resumed here: not available: {}.{hint} The run stays resumable.",
            missing.join(", ")
        );
    }
    println!(
        "Resuming throughput run {id}: {} of {} implementations to measure",
        todo.len(),
        record.config.planned.len()
    );
    // The unfinished results are measured again from the start.
    record.results.retain(|r| r.is_final());
    record.state.interrupted = false;
    record.state.resumed_at.push(now_rfc3339());
    execute(*record, todo, o, cpus, Recorder::with(st, &id))
}

/// Whether `record` planned mock implementations (its workers and registry must offer them).
fn planned_mock(record: &ThroughputRecord) -> bool {
    record.config.planned.iter().any(|l| l.contains("@mock/"))
}

/// Measures `impls` into `record`, storing and appending each as it finishes, then prints
/// the tables. Ctrl-C or SIGTERM stops after the thread count in progress: what was measured
/// is kept and the run is `interrupted`, resumable.
fn execute(
    record: ThroughputRecord,
    impls: Vec<std::sync::Arc<dyn crate::kem::Kem>>,
    o: &ThroughputOptions,
    cpus: usize,
    recorder: Recorder,
) -> anyhow::Result<ExitCode> {
    let timers = Timers::calibrate();
    let include_mock = o.include_mock || planned_mock(&record);
    let mut end = Ending::start(record, recorder, &o.outputs, "the thread count in progress")?
        .on_interrupt(OnInterrupt::Resume("throughput"));
    for (i, k) in impls.iter().enumerate() {
        if crate::interrupt::requested() {
            break;
        }
        eprintln!(
            "throughput: {} ({} of {}) ...",
            k.meta().label(),
            i + 1,
            impls.len()
        );
        let r = measure::measure_one(
            k,
            &end.record().config,
            include_mock,
            &timers,
            cpus,
            &crate::interrupt::requested,
        );
        end.put(r);
    }
    end.finish(crate::interrupt::requested(), |record, _| {
        print!("{}", crate::output::throughput::tables(record, o.layout));
        Ok(())
    })
}
