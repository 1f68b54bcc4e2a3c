//! `kembench throughput`: measure, record, write the result files, print the tables.

use crate::env::Environment;
use crate::export::file::ResultFile;
use crate::export::Format;
use crate::measure::timer::Timers;
use crate::options::ThroughputOptions;
use crate::providers::Registry;
use crate::record::throughput::ThroughputConfig;
use crate::record::{now_rfc3339, Nothing, ThroughputRecord};
use crate::store::records::{self, Storable};
use crate::store::{self, Recorder};
use crate::throughput::measure;
use std::process::ExitCode;

/// Runs `throughput`.
pub fn run(o: &ThroughputOptions, cpus: usize, store_spec: &str) -> anyhow::Result<ExitCode> {
    store::refuse_over_store(o.outputs.iter().map(|(_, p)| p.as_path()), store_spec)?;
    let registry = Registry::new(o.include_mock);
    let impls = measure::select(&registry, &o.filter)?;
    let run_id = store::new_run_id();
    let mut recorder = Recorder::open(store_spec, o.store, &run_id)?;
    let environment = Environment::for_implementations(&impls);
    let timers = Timers::calibrate();
    let mut record = ThroughputRecord::new(
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
    let mut files = Vec::with_capacity(o.outputs.len());
    for (format, path) in &o.outputs {
        files.push(ResultFile::create(*format, path, &record)?);
    }
    let mut failed = false;
    for k in &impls {
        eprintln!("throughput: {} ...", k.meta().label());
        let r = measure::measure_one(k, &record.config, o.include_mock, &timers, cpus);
        failed |= r.error.is_some();
        recorder.put(r.stored());
        record.results.push(r);
        let newest = record.results.last().expect("just pushed");
        for file in &mut files {
            file.append(&record, newest)?;
        }
    }
    record.finished_at = Some(now_rfc3339());
    recorder.finish(
        record.status(),
        record.finished_at.as_deref(),
        record.header_json().map_err(Into::into),
    );
    // A store that failed and a fallback file that could not be written either: the
    // results are lost, and the exit code says so (after the table, which shows them).
    let lost = recorder
        .rescue(&Format::JSON.serialize(&record)?)
        .map_err(|e| eprintln!("error: {e:#}"))
        .is_err();
    for file in files {
        file.finish(&record)?;
    }
    print!("{}", crate::output::throughput::tables(&record, o.layout));
    Ok(if lost {
        ExitCode::from(crate::exit::IO)
    } else if failed {
        ExitCode::from(crate::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}
