//! `kembench run`: measure in worker processes, store and write each benchmark as it
//! finishes, print the table; `run --resume` completes an interrupted run.

use crate::env::Environment;
use crate::export::file::ResultFile;
use crate::export::Format;
use crate::measure::counters::Pmu;
use crate::measure::heap;
use crate::measure::timer::Timers;
use crate::options::RunOptions;
use crate::output;
use crate::providers::Registry;
use crate::record::run::{RunConfig, RunMeasured, SecretKeys};
use crate::record::{
    now_rfc3339, AnyRecord, Benchmark, RecordKind, ResultStatus, RunRecord, RunStatus,
};
use crate::run::{self, suite, Event};
use crate::store::records::{self, Storable};
use crate::store::{self, Recorder, Store};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::process::ExitCode;
use std::time::Duration;

/// Runs `run`.
pub fn run(o: &RunOptions, store_spec: &str) -> anyhow::Result<ExitCode> {
    store::refuse_over_store(o.outputs.iter().map(|(_, p)| p.as_path()), store_spec)?;
    if let Some(sel) = &o.resume {
        return resume(sel, o, store_spec);
    }
    if o.instructions {
        // Missing valgrind is an error before anything is measured, not after.
        crate::profile::valgrind::locate()?;
    }
    let registry = Registry::new(o.include_mock);
    let (impls, selection) = suite::select(&registry, &o.filter, o.all)?;
    let run_id = store::new_run_id();
    // Open the store before measuring: a bad store is an error now, not after the run.
    let mut recorder = Recorder::open(store_spec, o.store, &run_id)?;

    let environment = Environment::for_implementations(&impls);
    print!("{}", output::environment(&environment, o.layout));
    let pinned_cpu = if o.pin {
        crate::engine::cpu::last_allowed_cpu()
    } else {
        None
    };
    let timers = Timers::calibrate();
    let counters_unavailable = Pmu::open().err();
    let mut record = RunRecord::new(
        Some(run_id.clone()),
        store::recorded_command_line(),
        RunConfig {
            selection: selection.to_string(),
            algorithms: o.filter.algorithms.clone(),
            implementations: o.filter.implementations.clone(),
            family: o.filter.family.map(|f| f.to_string()),
            level: o.filter.level,
            operations: o.ops.clone(),
            sampler: o.sampler.clone(),
            pinned_cpu,
            include_mock: o.include_mock,
            planned: impls.iter().map(|k| k.meta().label()).collect(),
            step_timeout_s: Some(o.step_timeout_s),
        },
        environment,
        RunMeasured {
            timers,
            counters_unavailable,
            heap_includes_c_allocations: heap::interposer_active(),
            decaps_secret_key: SecretKeys::Kept,
        },
    );
    recorder.begin(records::run_row(&record));
    recorder.announce(&run_id);
    let plan = run::Plan {
        impls,
        ops: o.ops.clone(),
        cfg: o.sampler.clone(),
        timers,
        pin: pinned_cpu,
        include_mock: o.include_mock,
        step_timeout: Duration::from_secs_f64(o.step_timeout_s),
        exe: std::env::current_exe().context("locating the kembench binary for its workers")?,
    };
    execute(&mut record, &plan, &mut recorder, o)
}

/// `run --instructions`: counts one call of each measured operation under callgrind (after
/// the timed rounds, so valgrind never competes with them for the CPU) and stores the
/// results again with the counts.
fn add_instructions(
    record: &mut RunRecord,
    plan: &run::Plan,
    recorder: &mut Recorder,
) -> anyhow::Result<()> {
    let impls: Vec<_> = plan
        .impls
        .iter()
        .filter(|k| {
            record
                .results
                .iter()
                .any(|r| r.label() == k.meta().label() && !r.operations.is_empty())
        })
        .cloned()
        .collect();
    if impls.is_empty() {
        return Ok(());
    }
    eprintln!(
        "run: counting instructions under callgrind ({} implementation(s)) ...",
        impls.len()
    );
    let counted = crate::profile::instruction_counts(
        impls,
        plan.ops.clone(),
        plan.include_mock,
        plan.exe.clone(),
        &crate::interrupt::requested,
    )?;
    for p in counted {
        let Some(r) = record.results.iter_mut().find(|r| r.label() == p.label()) else {
            continue;
        };
        if p.status() != ResultStatus::Ok {
            let why = p
                .failure
                .as_ref()
                .map(|f| f.detail.clone())
                .or(p.error.clone())
                .unwrap_or_else(|| p.status().as_str().to_string());
            eprintln!("warning: {}: instructions not counted: {why}", p.label());
        }
        for o in &mut r.operations {
            o.callgrind_instructions = p.op(o.operation).map(|x| x.instructions.median);
        }
        recorder.put(r.stored());
    }
    Ok(())
}

/// Whether `here` is the machine and build a run was made on; the first difference if not.
fn same_machine(run: &crate::env::Environment, here: &crate::env::Environment) -> Option<String> {
    let pairs = [
        ("host", &run.hostname, &here.hostname),
        ("CPU", &run.cpu.model, &here.cpu.model),
        (
            "kembench version",
            &run.build.kembench_version,
            &here.build.kembench_version,
        ),
        (
            "kembench commit",
            &run.build.git_commit,
            &here.build.git_commit,
        ),
    ];
    pairs
        .iter()
        .find(|(_, a, b)| a != b)
        .map(|(what, a, b)| format!("{what} was {a}, is {b}"))
}

/// `run --resume RUN`: measures the planned benchmarks the run has no final result for.
fn resume(selector: &str, o: &RunOptions, store_spec: &str) -> anyhow::Result<ExitCode> {
    let mut st = Store::open(store_spec)?;
    let id = st.resolve(selector, Some(RecordKind::Run))?;
    let stored = st.load(&id)?;
    if stored.summary.status == RunStatus::Complete.as_str() {
        crate::bail_usage!("run {id} is complete; there is nothing to resume");
    }
    if stored.summary.status == RunStatus::Running.as_str() {
        eprintln!(
            "warning: run {id} is still marked running: its process ended without saying so (killed, power loss), or it is still measuring somewhere; if it is, stop this resume"
        );
    }
    let AnyRecord::Run(mut record) = store::records::record(&stored)? else {
        crate::bail_usage!("run {id} is not a `kembench run`");
    };
    let here = crate::env::Environment::collect();
    if let Some(diff) = same_machine(&record.environment, &here) {
        crate::bail_usage!("run {id} was measured on another machine or build ({diff}); resuming it here would mix the two. Start a new run instead");
    }
    let registry = Registry::new(record.config.include_mock);
    let (impls, missing) = record.unfinished_in(&record.config.planned, &registry);
    let finished = record.results.iter().filter(|r| r.is_final()).count();
    if !missing.is_empty() {
        // Measuring the others and calling the run complete would lose these for good.
        let hint = crate::providers::registry::why_missing(&missing);
        crate::bail_usage!(
            "run {id} cannot be resumed here: {} planned benchmark(s) are not available: {}.{hint} \
             The run stays resumable.",
            missing.len(),
            missing.join(", ")
        );
    }
    println!(
        "Resuming run {id}: {} of {} benchmarks to measure ({} already finished)",
        impls.len(),
        record.config.planned.len(),
        finished
    );
    record.state.resumed_at.push(now_rfc3339());
    let c = &record.config;
    let plan = run::Plan {
        impls,
        ops: c.operations.clone(),
        cfg: c.sampler.clone(),
        timers: record.measured.timers,
        pin: c.pinned_cpu,
        include_mock: c.include_mock,
        step_timeout: Duration::from_secs_f64(c.step_timeout_s.unwrap_or(o.step_timeout_s)),
        exe: std::env::current_exe().context("locating the kembench binary for its workers")?,
    };
    let mut recorder = Recorder::with(st, &id);
    execute(&mut record, &plan, &mut recorder, o)
}

/// Measures `plan` into `record`, storing each benchmark and appending it to the result
/// files as it finishes, then prints the table.
fn execute(
    record: &mut RunRecord,
    plan: &run::Plan,
    recorder: &mut Recorder,
    o: &RunOptions,
) -> anyhow::Result<ExitCode> {
    let outputs = &o.outputs;
    crate::interrupt::install("the step in progress");
    let rounds = plan.cfg.rounds.max(1) as u64;
    let total = plan.impls.len() as u64 * (2 + rounds * plan.ops.len() as u64);
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
            .context("progress bar template")?,
    );
    // On resume, the files start with the results that are final; the others are measured
    // again and appended when they finish.
    let mut so_far = record.without_results();
    so_far.results = record
        .results
        .iter()
        .filter(|r| r.is_final())
        .cloned()
        .collect();
    let mut files = Vec::with_capacity(outputs.len());
    for (format, path) in outputs {
        files.push(ResultFile::create(*format, path, &so_far)?);
    }
    let mut write_error = None;
    let interrupted = run::measure_all(plan, &crate::interrupt::INTERRUPTS, &mut |ev| match ev {
        Event::Step(label, what) => {
            bar.inc(1);
            bar.set_message(format!("{label} {what}"));
        }
        Event::Finished(r) => {
            if let Some(f) = &r.failure {
                bar.suspend(|| eprintln!("{}: {}", r.label(), f.detail));
            }
            recorder.put(r.stored());
            so_far.results.push((*r).clone());
            for file in &mut files {
                if let Err(e) = file.append(&so_far, &r) {
                    write_error.get_or_insert(e);
                }
            }
            record.put(*r);
        }
    });
    bar.finish_and_clear();
    // Benchmarks finish in any order (failures first); list them as planned.
    record.sort_as_planned();
    if o.instructions && !interrupted {
        add_instructions(record, plan, recorder)?;
    }
    // Lost: the store failed and no fallback file could be written; the exit code says so
    // after the table, which shows the results.
    let lost = recorder.close(record, interrupted, |r| Format::JSON.serialize(r))?;
    for file in files {
        println!("wrote {}", file.finish(&*record)?.display());
    }
    if let Some(e) = write_error {
        eprintln!("warning: a result file could not be written part-way: {e:#}");
    }
    let id = record.run_id.as_deref().unwrap_or("?");
    let stored = recorder.location().is_some() && recorder.ok();
    let json = outputs
        .iter()
        .find(|(f, _)| *f == Format::JSON)
        .map(|(_, p)| p.as_path());
    print!("{}", output::run::table(&record.results, o.layout));
    print!("{}", output::matrix::render(record, o.layout));
    print!(
        "{}",
        output::run::notes(
            record,
            o.layout,
            &output::run::elsewhere(stored.then_some(id), json)
        )
    );
    if lost {
        return Ok(ExitCode::from(crate::exit::IO));
    }
    if interrupted {
        println!(
            "Interrupted: {} of {} benchmarks finished.{}",
            record.results.iter().filter(|r| r.is_final()).count(),
            record.config.planned.len().max(record.results.len()),
            if recorder.location().is_some() {
                format!(" `kembench run --resume {id}` completes the run.")
            } else {
                String::new()
            }
        );
        return Ok(ExitCode::from(crate::exit::INTERRUPTED));
    }
    let failed = record
        .results
        .iter()
        .any(|r| r.status() != ResultStatus::Ok);
    Ok(if failed {
        ExitCode::from(crate::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}
