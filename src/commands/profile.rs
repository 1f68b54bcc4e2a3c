//! `kembench profile`: profile under callgrind, record, write the result files and flame
//! graphs, print the tables.

use crate::ending::Ending;
use crate::env::Environment;
use crate::options::ProfileOptions;
use crate::profile::{self, valgrind, Plan};
use crate::providers::Registry;
use crate::record::profile::{ProfileConfig, ProfileMeasured, ProfileRecord, ProfileResult};
use crate::record::Benchmark;
use crate::store::records;
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
    let record = ProfileRecord::new(
        Some(run_id.clone()),
        store::recorded_command_line(),
        config.clone(),
        Environment::for_implementations(&impls),
        measured,
    );
    recorder.begin(records::run_row(&record));
    recorder.announce(&run_id);
    let mut end = Ending::start(
        record,
        recorder,
        &o.outputs,
        "killing the profiles in progress",
    )?;
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
            end.put(r);
        },
    );
    end.finish(crate::interrupt::requested(), |record, _| {
        if let Some(dir) = &o.flamegraphs {
            let n = profile::flames::write_all(dir, record, &store::protected(store_spec))?;
            eprintln!("profile: {n} flame graph(s) in {}", dir.display());
        }
        print!("{}", crate::output::profile::tables(record, o.layout));
        if o.sha3_probe {
            print!("{}", crate::output::profile::sha3_check(record));
        }
        Ok(())
    })
}
