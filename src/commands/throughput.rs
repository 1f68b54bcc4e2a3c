//! `kembench throughput`: measure, record, write the result files, print the tables.

use crate::env::Environment;
use crate::export::file::ResultFile;
use crate::export::Format;
use crate::measure::timer::Timers;
use crate::options::ThroughputOptions;
use crate::providers::Registry;
use crate::record::throughput::ThroughputConfig;
use crate::record::{
    now_rfc3339, AnyRecord, Benchmark, Nothing, RecordKind, RunStatus, ThroughputRecord,
};
use crate::store::records::{self, Storable};
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
    execute(record, impls, o, cpus, &mut recorder)
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
    let (todo, missing) = record.unfinished(&Registry::new(planned_mock(&record)));
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
    let mut recorder = Recorder::with(st, &id);
    execute(*record, todo, o, cpus, &mut recorder)
}

/// Whether `record` planned mock implementations (its workers and registry must offer them).
fn planned_mock(record: &ThroughputRecord) -> bool {
    record.config.planned.iter().any(|l| l.contains("@mock/"))
}

/// Measures `impls` into `record`, storing and appending each as it finishes, then prints
/// the tables. Ctrl-C or SIGTERM stops after the thread count in progress: what was measured
/// is kept and the run is `interrupted`, resumable.
fn execute(
    mut record: ThroughputRecord,
    impls: Vec<std::sync::Arc<dyn crate::kem::Kem>>,
    o: &ThroughputOptions,
    cpus: usize,
    recorder: &mut Recorder,
) -> anyhow::Result<ExitCode> {
    crate::interrupt::install("the thread count in progress");
    let timers = Timers::calibrate();
    let mut files = Vec::with_capacity(o.outputs.len());
    for (format, path) in &o.outputs {
        files.push(ResultFile::create(*format, path, &record)?);
    }
    let include_mock = o.include_mock || planned_mock(&record);
    let mut failed = false;
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
            &record.config,
            include_mock,
            &timers,
            cpus,
            &crate::interrupt::requested,
        );
        failed |= r.error.is_some();
        recorder.put(r.stored());
        record.put(r);
        let newest = record.results.last().expect("just put");
        for file in &mut files {
            file.append(&record, newest)?;
        }
    }
    let interrupted = crate::interrupt::requested();
    // Lost: the store failed and no fallback file could be written; the exit code says so
    // after the tables, which show the results.
    let lost = recorder.close(&mut record, interrupted, |r| Format::JSON.serialize(r))?;
    for file in files {
        file.finish(&record)?;
    }
    print!("{}", crate::output::throughput::tables(&record, o.layout));
    let id = record.run_id.as_deref().unwrap_or("?");
    Ok(if lost {
        ExitCode::from(crate::exit::IO)
    } else if interrupted {
        if recorder.location().is_some() {
            println!("Interrupted: `kembench throughput --resume {id}` completes the run.");
        }
        ExitCode::from(crate::exit::INTERRUPTED)
    } else if failed {
        ExitCode::from(crate::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}
