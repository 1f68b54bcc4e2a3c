//! `kembench profile`: profile under callgrind, record, write the result files and flame
//! graphs, print the tables.

use crate::env::Environment;
use crate::export::file::ResultFile;
use crate::export::Format;
use crate::options::ProfileOptions;
use crate::profile::{self, valgrind, Plan};
use crate::providers::Registry;
use crate::record::profile::{ProfileConfig, ProfileMeasured, ProfileRecord, ProfileResult};
use crate::record::Benchmark;
use crate::store::records::{self, Storable};
use crate::store::{self, Recorder};
use std::process::ExitCode;
use std::time::Duration;

/// Runs `profile`.
pub fn run(o: &ProfileOptions, store_spec: &str) -> anyhow::Result<ExitCode> {
    store::refuse_over_store(o.outputs.iter().map(|(_, p)| p.as_path()), store_spec)?;
    let valgrind = valgrind::locate()?;
    let version = valgrind::version(&valgrind)?;
    let exe = std::env::current_exe()?;
    let registry = Registry::new(o.include_mock);
    let (impls, selection) = crate::run::suite::select(&registry, &o.filter, o.all)?;
    let under_valgrind = profile::features_under_valgrind(&valgrind, &exe)?;
    let measured = ProfileMeasured {
        valgrind: version,
        cpu_features_native: valgrind::cpu_features(),
        cpu_features_under_valgrind: under_valgrind,
        pmu_unavailable: crate::measure::counters::Pmu::open().err(),
    };
    let config = ProfileConfig {
        selection: if selection == "filtered" {
            let f = &o.filter;
            crate::record::describe_filter(
                &f.algorithms,
                &f.implementations,
                f.family.map(|x| x.to_string()).as_deref(),
                f.level,
            )
        } else {
            selection.to_string()
        },
        seeds: o.seeds,
        operations: o.ops.clone(),
        planned: impls.iter().map(|k| k.meta().label()).collect(),
        cache_geometry: valgrind::CACHE_GEOMETRY.to_string(),
        separate_callers: valgrind::SEPARATE_CALLERS,
        tree_depth: o.tree_depth,
        tree_threshold: o.tree_threshold,
        sha3_probe: o.sha3_probe,
    };
    let run_id = store::new_run_id();
    let mut recorder = Recorder::open(store_spec, o.store, &run_id)?;
    let mut record = ProfileRecord::new(
        Some(run_id.clone()),
        store::recorded_command_line(),
        config.clone(),
        Environment::for_implementations(&impls),
        measured,
    );
    recorder.begin(records::run_row(&record));
    recorder.announce(&run_id);
    let mut files = Vec::with_capacity(o.outputs.len());
    for (format, path) in &o.outputs {
        files.push(ResultFile::create(*format, path, &record)?);
    }
    crate::interrupt::install("killing the profiles in progress");
    let plan = Plan {
        impls,
        config,
        include_mock: o.include_mock,
        jobs: o.jobs,
        timeout: Duration::from_secs_f64(o.timeout_s),
        valgrind,
        names: profile::symbols::unsized_text_symbols(&exe),
        exe,
        keep: o.callgrind_out.clone(),
    };
    let total = plan.impls.len();
    eprintln!(
        "profile: {total} implementation(s), {} seed(s) each, {} at a time, under callgrind ...",
        o.seeds, plan.jobs
    );
    let mut done = 0;
    let mut failed = false;
    let mut io_error = None;
    profile::profile_all(
        &plan,
        &crate::interrupt::requested,
        &mut |r: ProfileResult| {
            done += 1;
            eprintln!(
                "profile: {} ({done} of {total}): {}",
                r.label(),
                r.status().as_str()
            );
            failed |= r.status() != crate::record::ResultStatus::Ok;
            recorder.put(r.stored());
            record.put(r);
            let newest = record.results.last().expect("just put");
            for file in &mut files {
                if let Err(e) = file.append(&record, newest) {
                    io_error.get_or_insert(e);
                }
            }
        },
    );
    if let Some(e) = io_error {
        return Err(e);
    }
    sort_as_planned(&mut record);
    let interrupted = crate::interrupt::requested();
    let lost = recorder.close(&mut record, interrupted, |r| Format::JSON.serialize(r))?;
    for file in files {
        file.finish(&record)?;
    }
    if let Some(dir) = &o.flamegraphs {
        let n = profile::flames::write_all(dir, &record, &store::protected(store_spec))?;
        eprintln!("profile: {n} flame graph(s) in {}", dir.display());
    }
    print!("{}", crate::output::profile::tables(&record, o.layout));
    if o.sha3_probe {
        print!("{}", crate::output::profile::sha3_check(&record));
    }
    Ok(if lost {
        ExitCode::from(crate::exit::IO)
    } else if interrupted {
        ExitCode::from(crate::exit::INTERRUPTED)
    } else if failed {
        ExitCode::from(crate::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Results in the order planned (they arrive in the order they finish).
fn sort_as_planned(record: &mut ProfileRecord) {
    let planned = record.config.planned.clone();
    record.results.sort_by_key(|r| {
        planned
            .iter()
            .position(|p| *p == r.label())
            .unwrap_or(usize::MAX)
    });
}
