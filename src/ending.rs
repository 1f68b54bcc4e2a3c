//! The end of a measuring command (`run`, `throughput`, `profile`, `tls`), written once.
//!
//! An [`Ending`] takes each benchmark as it finishes into the record, the results store and
//! the result files; at the end it lists the results as planned, closes the run in the store
//! (saving a JSON file when the store failed on the way), writes the files' final form, prints
//! the record's tables, and turns the outcome into the exit code: results lost with the store,
//! then interrupted (with how to resume), then a failed benchmark, then success.

use crate::export::file::ResultFile;
use crate::export::Format;
use crate::output::{self, Width};
use crate::record::Kind;
use crate::record::{Benchmark, Record, ResultStatus};
use crate::store::records::Storable;
use crate::store::{Closed, Holds, Recorder};
use std::path::PathBuf;
use std::process::ExitCode;

/// What an interrupted run says after its tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnInterrupt {
    /// Nothing: the command has no `--resume`.
    Silent,
    /// When the run is stored, that `kembench COMMAND --resume ID` completes it
    /// (`throughput`, `profile`).
    Resume(&'static str),
    /// How many benchmarks finished and, when the run is stored, that
    /// `kembench COMMAND --resume ID` completes it (`run`).
    CountAndResume(&'static str),
}

/// What a measuring command does with its results, from the first finished benchmark to its
/// exit code.
pub struct Ending<K: Kind> {
    /// The run: every result, in the order they came until [`Ending::finish`] sorts them.
    record: Record<K>,
    /// The record as the result files have it so far: its final results when it started,
    /// then each one put. On `run --resume` it lacks the record's earlier unfinished results,
    /// which stay in the record until measured again.
    written: Record<K>,
    recorder: Recorder,
    files: Vec<ResultFile>,
    /// The first error appending to a result file; the run goes on, and the final write
    /// says whether the file is whole.
    write_error: Option<anyhow::Error>,
    /// Whether the end says `wrote PATH` for each result file (`run`).
    name_files: bool,
    on_interrupt: OnInterrupt,
    /// Whether a result makes the run exit [`crate::exit::FAILED`].
    failed: fn(&K::Result) -> bool,
}

/// The default meaning of a failed benchmark: any end but [`ResultStatus::Ok`].
fn not_ok<R: Benchmark>(r: &R) -> bool {
    r.status() != ResultStatus::Ok
}

impl<K: Kind> Ending<K>
where
    K::Result: Storable,
{
    /// Starts the end of a run: catches Ctrl-C and SIGTERM from now on (`step` names what
    /// the first one waits for, see [`crate::interrupt::install`]) and creates the result
    /// files `outputs` with `record`'s final results. `recorder` must have begun the run.
    pub fn start(
        record: Record<K>,
        recorder: Recorder,
        outputs: &[(Format, PathBuf)],
        step: &'static str,
    ) -> anyhow::Result<Ending<K>> {
        crate::interrupt::install(step);
        Ending::new(record, recorder, outputs)
    }

    /// [`Ending::start`] without the signal handler.
    fn new(
        record: Record<K>,
        recorder: Recorder,
        outputs: &[(Format, PathBuf)],
    ) -> anyhow::Result<Ending<K>> {
        // On resume the files start with the results that are final; the others are
        // measured again and appended when they finish.
        let mut written = record.without_results();
        written.results = record
            .results
            .iter()
            .filter(|r| r.is_final())
            .cloned()
            .collect();
        let mut files: Vec<ResultFile> = Vec::with_capacity(outputs.len());
        for (format, path) in outputs {
            match ResultFile::create(*format, path, &written) {
                Ok(f) => files.push(f),
                Err(e) => {
                    // Nothing measured yet: take the run back rather than leave it running
                    // in the store with nothing in it.
                    files.into_iter().for_each(ResultFile::abandon);
                    let mut recorder = recorder;
                    let what = recorder.abandon();
                    if crate::exit::code_for(&e) == crate::exit::USAGE {
                        return Err(e);
                    }
                    anyhow::bail!("{e:#}; {what}");
                }
            }
        }
        Ok(Ending {
            record,
            written,
            recorder,
            files,
            write_error: None,
            name_files: false,
            on_interrupt: OnInterrupt::Silent,
            failed: not_ok::<K::Result>,
        })
    }

    /// Says `wrote PATH` for each result file at the end.
    pub fn naming_files(mut self) -> Self {
        self.name_files = true;
        self
    }

    /// What an interrupted run says after its tables (nothing unless set).
    pub fn on_interrupt(mut self, what: OnInterrupt) -> Self {
        self.on_interrupt = what;
        self
    }

    /// Which results fail the run (exit 1); by default any whose status is not `ok`.
    pub fn failed_when(mut self, failed: fn(&K::Result) -> bool) -> Self {
        self.failed = failed;
        self
    }

    /// The record so far.
    pub fn record(&self) -> &Record<K> {
        &self.record
    }

    /// Stores `r` without putting it in the record or the files yet (a result that goes on
    /// being measured; [`Ending::put`] it when it is done).
    pub fn store(&mut self, r: &K::Result) {
        self.recorder.put(r.stored());
    }

    /// Takes a finished benchmark: stores it, appends it to every result file and puts it in
    /// the record (in place of an earlier result with its label).
    pub fn put(&mut self, r: K::Result) {
        self.store(&r);
        self.written.results.push(r.clone());
        let newest = self.written.results.last().expect("just pushed");
        for file in &mut self.files {
            if let Err(e) = file.append(&self.written, newest) {
                self.write_error.get_or_insert(e);
            }
        }
        self.record.put(r);
    }

    /// Changes the result labelled `label` after it was put (`run --instructions` adds its
    /// counts) and stores it again; the files get it in their final form. Nothing when the
    /// record has no such result.
    pub fn amend(&mut self, label: &str, change: impl FnOnce(&mut K::Result)) {
        if let Some(r) = self.record.results.iter_mut().find(|r| r.label() == label) {
            change(r);
            self.recorder.put(r.stored());
        }
    }

    /// Ends the run: lists the results as planned, closes the run in the store (or saves it
    /// for `kembench import`), writes the result files whole, calls `before` with the record
    /// and its run id when the store holds all of it, prints the record's tables in `layout`
    /// (the default view saying where the rest is: the stored run, the JSON file), then says
    /// how the run ended and returns its exit code. `interrupted`: whether Ctrl-C or SIGTERM
    /// stopped it before every benchmark was done.
    pub fn finish(
        mut self,
        interrupted: bool,
        layout: Width,
        before: impl FnOnce(&Record<K>, Option<&str>) -> anyhow::Result<()>,
    ) -> anyhow::Result<ExitCode> {
        // Benchmarks finish in any order (failures first, parallel ones as they come).
        self.record.sort_as_planned();
        // The store failed: the run is in a fallback file, or lost when none could be
        // written; the exit code says so after the tables, which show the results.
        let closed = self
            .recorder
            .close(&mut self.record, interrupted, |r| Format::JSON.serialize(r))?;
        let mut json = None;
        // A file that cannot be written is said after the tables, which show the results
        // (kept in the store and in the file's in-progress copy).
        let mut unwritten = Vec::new();
        for file in std::mem::take(&mut self.files) {
            let format = file.format();
            let asked = file.path().to_path_buf();
            let path = match file.finish(&self.record) {
                Ok(path) => path,
                Err(e) => {
                    unwritten.push((format, asked, e));
                    continue;
                }
            };
            if self.name_files {
                println!("wrote {}", path.display());
            }
            if format == Format::JSON {
                json = Some(path);
            }
        }
        if let Some(e) = &self.write_error {
            eprintln!("warning: {e:#}");
        }
        let stored = self.recorder.location().is_some() && self.recorder.ok();
        let id = stored.then(|| self.id());
        before(&self.record, id)?;
        print!(
            "{}",
            output::tables(
                &self.record,
                layout,
                &output::elsewhere(id, json.as_deref())
            )
        );
        let (mut code, said) = self.verdict(&closed, interrupted);
        match said {
            // Standard output's reader is gone: how to resume must still reach the user.
            Some(line) if crate::interrupt::is_reader_gone() => eprintln!("{line}"),
            Some(line) => println!("{line}"),
            None => {}
        }
        for (format, path, e) in &unwritten {
            let again = id
                .map(|id| {
                    format!(
                        "; `kembench export {id} --format {} -o {}` writes it from the store",
                        format.name(),
                        path.display()
                    )
                })
                .unwrap_or_default();
            eprintln!("error: {e:#}{again}");
            code = crate::exit::IO;
        }
        Ok(ExitCode::from(code))
    }

    /// The run's id, for messages.
    fn id(&self) -> &str {
        self.record.run_id.as_deref().unwrap_or("?")
    }

    /// The exit code of the run, and the line that says why when there is one: results lost
    /// with the store, or a store that holds none or part of the run (it is whole in `file`
    /// alone; `kembench import` records or completes it), exit [`crate::exit::IO`] whatever
    /// else happened.
    fn verdict(&self, closed: &Closed, interrupted: bool) -> (u8, Option<String>) {
        match closed {
            Closed::Lost => return (crate::exit::IO, None),
            Closed::Saved { file, holds } => {
                let (store, id, file) = (
                    self.recorder.location().unwrap_or_default(),
                    self.id(),
                    file.display(),
                );
                let said = match holds {
                    Holds::Nothing => format!(
                        "Not recorded: the store {store} holds none of run {id}; it is saved in \
                         {file}."
                    ),
                    Holds::Part => format!(
                        "Partly recorded: the store {store} holds part of run {id}; all of it is \
                         saved in {file}, and `kembench import {file}` completes the run there."
                    ),
                };
                return (crate::exit::IO, Some(said));
            }
            Closed::Stored => {}
        }
        if interrupted {
            let resume = |command: &str| {
                self.recorder.location().map(|_| {
                    format!(
                        "`kembench {command} --resume {}` completes the run.",
                        self.id()
                    )
                })
            };
            let said = match self.on_interrupt {
                OnInterrupt::Silent => None,
                OnInterrupt::Resume(command) => {
                    resume(command).map(|r| format!("Interrupted: {r}"))
                }
                OnInterrupt::CountAndResume(command) => {
                    let results = &self.record.results;
                    Some(format!(
                        "Interrupted: {} of {} benchmarks finished.{}",
                        results.iter().filter(|r| r.is_final()).count(),
                        K::planned(&self.record.config).len().max(results.len()),
                        resume(command).map(|r| format!(" {r}")).unwrap_or_default()
                    ))
                }
            };
            return (crate::exit::INTERRUPTED, said);
        }
        let results = &self.record.results;
        if !results.is_empty() && !results.iter().any(Benchmark::measured) {
            return (
                crate::exit::FAILED,
                Some("Nothing was measured: every benchmark says why above.".into()),
            );
        }
        if results.iter().any(self.failed) {
            (crate::exit::FAILED, None)
        } else {
            (crate::exit::SUCCESS, None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::record::profile::{Profile, ProfileRecord};
    use crate::record::{AnyRecord, RunStatus};
    use crate::store::{records, Store};

    const ID: &str = "20261122-120000-0123abcd";

    /// A fresh directory under the system's temporary directory.
    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "kembench-ending-{name}-{}-{:08x}",
            std::process::id(),
            rand::random::<u32>()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The fixture profile's results (one ok, one that failed its check) and the profile
    /// without them, begun in a store in `dir` (or in none).
    fn profile_run(dir: &std::path::Path, stored: bool) -> (ProfileRecord, Recorder, String) {
        let mut r = fixture::profile();
        r.run_id = Some(ID.into());
        let spec = dir.join("s.sqlite").display().to_string();
        let mut recorder = Recorder::open(&spec, stored, ID).unwrap();
        let mut empty = r.without_results();
        empty.finished_at = None;
        recorder.begin(records::run_row(&empty));
        (r, recorder, spec)
    }

    fn labels(r: &ProfileRecord) -> Vec<String> {
        r.results.iter().map(Benchmark::label).collect()
    }

    fn stored(spec: &str) -> (String, ProfileRecord) {
        let mut s = Store::open(spec).unwrap();
        let run = s.load(ID).unwrap();
        let AnyRecord::Profile(back) = records::record(&run).unwrap() else {
            panic!("a profile comes back as a profile")
        };
        (run.summary.status, *back)
    }

    #[test]
    fn a_failed_benchmark_ends_the_run_with_exit_1_and_everything_as_planned() {
        let dir = temp_dir("failed");
        let (full, recorder, spec) = profile_run(&dir, true);
        let json = dir.join("p.json");
        let mut end = Ending::<Profile>::new(
            full.without_results(),
            recorder,
            &[(Format::JSON, json.clone())],
        )
        .unwrap();
        // The failed check finishes first.
        for r in full.results.iter().rev() {
            end.put(r.clone());
        }
        let planned = full.config.planned.clone();
        assert_eq!(
            labels(end.record()),
            [planned[1].clone(), planned[0].clone()]
        );
        let mut printed = None;
        let code = end
            .finish(false, Width::Fit, |r, id| {
                printed = Some((labels(r), id.map(str::to_string)));
                Ok(())
            })
            .unwrap();
        assert_eq!(code, ExitCode::from(crate::exit::FAILED));
        assert_eq!(printed, Some((planned.clone(), Some(ID.to_string()))));
        let (status, back) = stored(&spec);
        assert_eq!(status, RunStatus::Complete.as_str());
        assert_eq!(labels(&back), planned);
        assert!(back.finished_at.is_some());
        let file: ProfileRecord = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert_eq!(labels(&file), planned);
        assert_eq!(
            std::fs::read(&json).unwrap(),
            Format::JSON.serialize(&back).unwrap(),
            "the file is the stored run"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The files of `dir` whose names end with `.partial`.
    fn partials(dir: &std::path::Path) -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".partial"))
            .collect()
    }

    #[test]
    fn a_result_file_that_cannot_be_started_takes_the_run_back() {
        let dir = temp_dir("no-room");
        let (full, recorder, spec) = profile_run(&dir, true);
        let json = dir.join("p.json");
        std::fs::write(&json, b"the old profile").unwrap();
        crate::export::file::disk_left(Some(0));
        let e = Ending::<Profile>::new(
            full.without_results(),
            recorder,
            &[(Format::JSON, json.clone())],
        )
        .err()
        .unwrap();
        crate::export::file::disk_left(None);
        let e = format!("{e:#}");
        assert!(
            e.contains("p.json")
                && e.contains("No space left on device")
                && e.contains(&format!("run {ID} is not recorded")),
            "{e}"
        );
        assert_eq!(std::fs::read(&json).unwrap(), b"the old profile");
        assert!(partials(&dir).is_empty());
        assert!(
            Store::open(&spec).unwrap().runs().unwrap().is_empty(),
            "no run left running with nothing in it"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_result_file_that_cannot_be_finished_exits_3_and_loses_nothing() {
        let dir = temp_dir("full-at-end");
        let (full, recorder, spec) = profile_run(&dir, true);
        let json = dir.join("p.json");
        std::fs::write(&json, b"the old profile").unwrap();
        let mut end = Ending::<Profile>::new(
            full.without_results(),
            recorder,
            &[(Format::JSON, json.clone())],
        )
        .unwrap();
        for r in &full.results {
            end.put(r.clone());
        }
        crate::export::file::disk_left(Some(0));
        let code = end.finish(false, Width::Fit, |_, _| Ok(())).unwrap();
        crate::export::file::disk_left(None);
        assert_eq!(code, ExitCode::from(crate::exit::IO));
        assert_eq!(std::fs::read(&json).unwrap(), b"the old profile");
        let (status, back) = stored(&spec);
        assert_eq!(status, RunStatus::Complete.as_str());
        assert_eq!(back.results.len(), full.results.len());
        let [partial] = &partials(&dir)[..] else {
            panic!("one in-progress file")
        };
        let kept: ProfileRecord = serde_json::from_slice(&std::fs::read(partial).unwrap()).unwrap();
        assert_eq!(kept.results.len(), full.results.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_run_whose_benchmarks_all_pass_succeeds() {
        let dir = temp_dir("ok");
        let (full, recorder, spec) = profile_run(&dir, true);
        let mut end = Ending::<Profile>::new(full.without_results(), recorder, &[]).unwrap();
        end.put(full.results[0].clone());
        assert_eq!(
            end.verdict(&Closed::Stored, false),
            (crate::exit::SUCCESS, None)
        );
        let code = end.finish(false, Width::Fit, |_, _| Ok(())).unwrap();
        assert_eq!(code, ExitCode::SUCCESS);
        assert_eq!(stored(&spec).0, RunStatus::Complete.as_str());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_run_that_measured_nothing_at_all_fails_and_says_so() {
        let dir = temp_dir("nothing");
        let (full, recorder, _) = profile_run(&dir, false);
        let mut end = Ending::<Profile>::new(full.without_results(), recorder, &[])
            .unwrap()
            .failed_when(|r| r.error.is_some());
        end.put(full.results[1].clone());
        let (code, said) = end.verdict(&Closed::Stored, false);
        assert_eq!(code, crate::exit::FAILED);
        assert!(said.unwrap().starts_with("Nothing was measured"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn what_fails_a_run_is_the_commands_choice() {
        let dir = temp_dir("failed-when");
        let (full, recorder, _) = profile_run(&dir, false);
        let mut end = Ending::<Profile>::new(full.without_results(), recorder, &[])
            .unwrap()
            .failed_when(|r| r.error.is_some());
        // The broken implementation failed its check (no error): with this command's choice,
        // not a failed run, since the other was measured.
        end.put(full.results[1].clone());
        end.put(full.results[0].clone());
        assert_eq!(end.verdict(&Closed::Stored, false).0, crate::exit::SUCCESS);
        let code = end
            .finish(false, Width::Fit, |_, id| {
                assert_eq!(id, None, "no store, so no id to show the run by");
                Ok(())
            })
            .unwrap();
        assert_eq!(code, ExitCode::SUCCESS);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_interrupted_run_says_how_to_resume_it_and_exits_130() {
        let dir = temp_dir("interrupted");
        let (full, recorder, spec) = profile_run(&dir, true);
        drop(recorder);
        let end = |on| {
            let store = Store::open(&spec).unwrap();
            let mut e =
                Ending::<Profile>::new(full.without_results(), Recorder::with(store, ID), &[])
                    .unwrap()
                    .on_interrupt(on);
            e.put(full.results[1].clone());
            e
        };
        let hint = format!("`kembench run --resume {ID}` completes the run.");
        let cases = [
            (OnInterrupt::Silent, None),
            (
                OnInterrupt::Resume("run"),
                Some(format!("Interrupted: {hint}")),
            ),
            (
                OnInterrupt::CountAndResume("run"),
                Some(format!("Interrupted: 1 of 2 benchmarks finished. {hint}")),
            ),
        ];
        for (on, said) in cases {
            // Interrupted wins over the failed check.
            assert_eq!(
                end(on).verdict(&Closed::Stored, true),
                (crate::exit::INTERRUPTED, said),
                "{on:?}"
            );
        }
        let code = end(OnInterrupt::CountAndResume("run"))
            .finish(true, Width::Fit, |_, _| Ok(()))
            .unwrap();
        assert_eq!(code, ExitCode::from(crate::exit::INTERRUPTED));
        let (status, back) = stored(&spec);
        assert_eq!(status, RunStatus::Interrupted.as_str());
        assert!(back.interrupted() && back.finished_at.is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_interrupted_run_without_a_store_has_nothing_to_resume() {
        let dir = temp_dir("interrupted-no-store");
        let (full, _, _) = profile_run(&dir, false);
        let end = |on| {
            let recorder = Recorder::open("unused", false, ID).unwrap();
            let mut e = Ending::<Profile>::new(full.without_results(), recorder, &[])
                .unwrap()
                .on_interrupt(on);
            e.put(full.results[0].clone());
            e
        };
        let code = |on| end(on).verdict(&Closed::Stored, true);
        assert_eq!(code(OnInterrupt::Resume("throughput")), (130, None));
        assert_eq!(
            code(OnInterrupt::CountAndResume("run")),
            (130, Some("Interrupted: 1 of 2 benchmarks finished.".into()))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lost_results_exit_3_whatever_else_happened() {
        let dir = temp_dir("lost");
        let (full, recorder, _) = profile_run(&dir, true);
        let mut end = Ending::<Profile>::new(full.without_results(), recorder, &[])
            .unwrap()
            .on_interrupt(OnInterrupt::CountAndResume("run"));
        end.put(full.results[1].clone());
        assert_eq!(end.verdict(&Closed::Lost, true), (crate::exit::IO, None));
        assert_eq!(end.verdict(&Closed::Lost, false), (crate::exit::IO, None));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_store_that_holds_none_or_part_of_the_run_exits_3_and_says_where_it_is() {
        let dir = temp_dir("holds-nothing");
        let (full, recorder, _) = profile_run(&dir, true);
        let mut end = Ending::<Profile>::new(full.without_results(), recorder, &[])
            .unwrap()
            .on_interrupt(OnInterrupt::CountAndResume("run"));
        end.put(full.results[0].clone());
        let file = PathBuf::from("./kembench-x.json");
        let nothing = Closed::Saved {
            file: file.clone(),
            holds: Holds::Nothing,
        };
        // Not even an interrupted run says it resumes: the store has nothing to resume.
        for interrupted in [false, true] {
            let (code, said) = end.verdict(&nothing, interrupted);
            assert_eq!(code, crate::exit::IO);
            let said = said.unwrap();
            assert!(
                said.contains(&format!("holds none of run {ID}"))
                    && said.contains("saved in ./kembench-x.json"),
                "{said}"
            );
        }
        // A store that holds part of the run: exit 3 too (it used to end as if all were
        // stored), saying where the whole run is and how to complete the stored one.
        let part = Closed::Saved {
            file,
            holds: Holds::Part,
        };
        for interrupted in [false, true] {
            let (code, said) = end.verdict(&part, interrupted);
            assert_eq!(code, crate::exit::IO);
            let said = said.unwrap();
            assert!(
                said.contains(&format!("holds part of run {ID}"))
                    && said.contains("saved in ./kembench-x.json")
                    && said.contains("`kembench import ./kembench-x.json` completes"),
                "{said}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unplanned_results_go_last_in_the_order_they_came() {
        let dir = temp_dir("unplanned");
        let (full, recorder, _) = profile_run(&dir, false);
        let mut end = Ending::<Profile>::new(full.without_results(), recorder, &[]).unwrap();
        let extra = |name: &str| {
            let mut r = full.results[0].clone();
            r.implementation = name.into();
            r
        };
        end.put(extra("mock/z"));
        end.put(full.results[1].clone());
        end.put(extra("mock/a"));
        end.put(full.results[0].clone());
        let mut order = Vec::new();
        end.finish(false, Width::Fit, |r, _| {
            order = labels(r);
            Ok(())
        })
        .unwrap();
        let planned = &full.config.planned;
        assert_eq!(
            order,
            [
                planned[0].as_str(),
                &planned[1],
                "MockKEM@mock/z",
                "MockKEM@mock/a"
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn on_resume_the_files_start_with_the_final_results_only() {
        let dir = temp_dir("resume");
        let mut run = fixture::run();
        // The broken mock's check failed (final); the other was stopped part-way.
        run.results[0].failure = Some(crate::record::Failure::interrupted("round 1/3", "stopped"));
        let csv = Format::by_name("csv").unwrap();
        let path = dir.join("r.csv");
        let recorder = Recorder::open("unused", false, ID).unwrap();
        let end = Ending::new(run.clone(), recorder, &[(csv, path.clone())]).unwrap();
        let mut finals = run.without_results();
        finals.results = vec![run.results[1].clone()];
        let in_progress = end.files[0].in_progress().unwrap();
        assert_eq!(
            std::fs::read(in_progress).unwrap(),
            csv.serialize(&finals).unwrap()
        );
        assert!(!path.exists(), "r.csv is written when the run ends");
        assert_eq!(end.record().results.len(), 2, "the record keeps both");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
