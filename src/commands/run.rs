//! `kembench run`: measure in worker processes, store and write each benchmark as it
//! finishes, print the table; `run --resume` completes an interrupted run.

use crate::ending::{Ending, OnInterrupt};
use crate::env::Environment;
use crate::export::Format;
use crate::measure::counters::Pmu;
use crate::measure::heap;
use crate::measure::timer::Timers;
use crate::options::RunOptions;
use crate::output;
use crate::providers::Registry;
use crate::record::run::{Run, RunConfig, RunMeasured, SecretKeys};
use crate::record::{
    now_rfc3339, AnyRecord, Benchmark, RecordKind, ResultStatus, RunRecord, RunStatus,
};
use crate::run::{self, suite, Event};
use crate::store::records;
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
    let record = RunRecord::new(
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
    execute(record, &plan, recorder, o)
}

/// `run --instructions`: counts one call of each measured operation under callgrind (after
/// the timed rounds, so valgrind never competes with them for the CPU) and stores the
/// results again with the counts.
fn add_instructions(end: &mut Ending<Run>, plan: &run::Plan) -> anyhow::Result<()> {
    let impls: Vec<_> = plan
        .impls
        .iter()
        .filter(|k| {
            end.record()
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
        end.amend(&p.label(), |r| {
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
        });
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
    let (impls, missing) = record.unfinished(|label| registry.get(label));
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
    execute(*record, &plan, Recorder::with(st, &id), o)
}

/// Measures `plan` into `record`, storing each benchmark and appending it to the result
/// files as it finishes, then prints the table.
fn execute(
    record: RunRecord,
    plan: &run::Plan,
    recorder: Recorder,
    o: &RunOptions,
) -> anyhow::Result<ExitCode> {
    let outputs = &o.outputs;
    let mut end = Ending::start(record, recorder, outputs, "the step in progress")?
        .naming_files()
        .on_interrupt(OnInterrupt::CountAndResume("run"));
    let rounds = plan.cfg.rounds.max(1) as u64;
    let total = plan.impls.len() as u64 * (2 + rounds * plan.ops.len() as u64);
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
            .context("progress bar template")?,
    );
    let interrupted = run::measure_all(plan, &crate::interrupt::INTERRUPTS, &mut |ev| match ev {
        Event::Step(label, what) => {
            bar.inc(1);
            bar.set_message(format!("{label} {what}"));
        }
        Event::Finished(r) => {
            if let Some(f) = &r.failure {
                bar.suspend(|| eprintln!("{}: {}", r.label(), f.detail));
            }
            end.put(*r);
        }
    });
    bar.finish_and_clear();
    if o.instructions && !interrupted {
        add_instructions(&mut end, plan)?;
    }
    end.finish(interrupted, |record, stored_as| {
        let json = outputs
            .iter()
            .find(|(f, _)| *f == Format::JSON)
            .map(|(_, p)| p.as_path());
        print!("{}", output::run::table(&record.results, o.layout));
        print!("{}", output::matrix::render(record, o.layout));
        print!(
            "{}",
            output::run::notes(record, o.layout, &output::run::elsewhere(stored_as, json))
        );
        Ok(())
    })
}
