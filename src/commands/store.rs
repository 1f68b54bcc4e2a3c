//! `runs`, `show`, `export`, `import`, and what `run`, `throughput` and `compare` share to
//! reach the results store.

use crate::cli::ExportFormat;
use crate::export::{self, write_atomic};
use crate::output::table;
use crate::record::Record;
use crate::store::{self, records, RunStatus, Store, StoredResult};
use anyhow::{bail, Context};
use std::path::Path;
use std::process::ExitCode;

/// Writes a run's results into the store as they come. A store that fails part-way does not
/// stop the run: the failure is reported and the caller saves a JSON file instead.
pub struct Recorder {
    store: Option<Store>,
    run_id: String,
    failed: Option<String>,
}

impl Recorder {
    /// Opens the store (unless `enabled` is false) before anything is measured, so that a
    /// bad store is an error at once rather than after the run.
    pub fn open(spec: &str, enabled: bool, run_id: &str) -> anyhow::Result<Recorder> {
        let store = if enabled {
            Some(Store::open(spec)?)
        } else {
            None
        };
        Ok(Recorder {
            store,
            run_id: run_id.to_string(),
            failed: None,
        })
    }

    /// A recorder around a store already open (resume).
    pub fn with(store: Store, run_id: &str) -> Recorder {
        Recorder {
            store: Some(store),
            run_id: run_id.to_string(),
            failed: None,
        }
    }

    /// Where runs are recorded, for the console; `None` with `--no-store`.
    pub fn location(&self) -> Option<String> {
        self.store.as_ref().map(Store::location)
    }

    fn attempt(&mut self, f: impl FnOnce(&mut Store, &str) -> anyhow::Result<()>) {
        if self.failed.is_some() {
            return;
        }
        if let Some(s) = self.store.as_mut() {
            if let Err(e) = f(s, &self.run_id) {
                eprintln!("warning: the results store failed: {e:#}");
                self.failed = Some(format!("{e:#}"));
            }
        }
    }

    /// Records the run's row.
    pub fn begin(&mut self, row: anyhow::Result<store::NewRun>) {
        self.attempt(|s, _| s.begin(&row?));
    }

    /// Records one finished benchmark.
    pub fn put(&mut self, r: anyhow::Result<StoredResult>) {
        self.attempt(|s, id| s.put_result(id, &r?));
    }

    /// Records the run's end.
    pub fn finish(
        &mut self,
        status: RunStatus,
        finished_at: Option<&str>,
        header: anyhow::Result<String>,
    ) {
        self.attempt(|s, id| s.finish(id, status, finished_at, Some(&header?)));
    }

    /// Whether every write reached the store (true with `--no-store`).
    pub fn ok(&self) -> bool {
        self.failed.is_none()
    }

    /// After a store failure: saves `json` where `kembench import` can load it later.
    pub fn rescue(&self, json: &[u8]) {
        if self.failed.is_none() || self.store.is_none() {
            return;
        }
        let path = format!("kembench-{}.json", self.run_id);
        match write_atomic(Path::new(&path), json) {
            Ok(()) => eprintln!(
                "The store missed part of this run; everything measured is in {path}. `kembench import {path}` loads it once the store works."
            ),
            Err(e) => eprintln!("error: the store failed and {path} could not be written either: {e:#}"),
        }
    }
}

/// The record a selector names: a results file when the path exists, else a run in the store.
pub fn load(spec: &str, selector: &str, kind: Option<&str>) -> anyhow::Result<(String, Record)> {
    let path = Path::new(selector);
    if path.is_file() {
        let wanted = kind.map(|k| match k {
            "run" => crate::record::RUN_KIND,
            _ => crate::record::THROUGHPUT_KIND,
        });
        return Ok((selector.to_string(), crate::record::load_as(path, wanted)?));
    }
    if selector.ends_with(".json") || selector.contains('/') {
        bail!("cannot read {selector}: no such file");
    }
    let mut s = Store::open(spec)?;
    let id = s.resolve(selector, kind)?;
    let r = records::record(&s.load(&id)?)?;
    Ok((format!("run {id}"), r))
}

/// Runs `runs`.
pub fn runs(spec: &str, json: bool, limit: usize) -> anyhow::Result<ExitCode> {
    let mut s = Store::open(spec)?;
    let mut all = s.runs()?;
    let total = all.len();
    all.truncate(limit);
    if json {
        println!("{}", serde_json::to_string_pretty(&all)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("Store: {} ({total} runs)", s.location());
    if all.is_empty() {
        println!("No runs yet: `kembench run` records one.");
        return Ok(ExitCode::SUCCESS);
    }
    let mut t = table(&[
        "id",
        "kind",
        "status",
        "started (UTC)",
        "host",
        "cpu",
        "selection",
        "benchmarks",
        "not ok",
    ]);
    for r in &all {
        t.add_row(vec![
            r.id.clone(),
            r.kind.clone(),
            r.status.clone(),
            r.started_at
                .replace('T', " ")
                .trim_end_matches('Z')
                .to_string(),
            r.host.clone(),
            r.cpu.clone(),
            r.selection.clone(),
            r.results.to_string(),
            r.not_ok.to_string(),
        ]);
    }
    println!("{t}");
    if total > all.len() {
        println!(
            "({} older runs not shown; --limit raises the count)",
            total - all.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `show`.
pub fn show(spec: &str, selector: &str) -> anyhow::Result<ExitCode> {
    let mut s = Store::open(spec)?;
    let id = s.resolve(selector, None)?;
    let stored = s.load(&id)?;
    let sum = &stored.summary;
    println!(
        "Run {} ({}, {}): started {}, finished {}; {} benchmarks, {} not ok",
        sum.id,
        sum.kind,
        sum.status,
        sum.started_at,
        sum.finished_at.as_deref().unwrap_or("-"),
        sum.results,
        sum.not_ok
    );
    match records::record(&stored)? {
        Record::Run(r) => {
            println!("Command: {}", r.command_line.join(" "));
            for l in r.environment.summary_lines() {
                println!("{l}");
            }
            super::run::print_table(&r.results);
            super::run::print_footer(&r);
            if sum.status == "interrupted" {
                println!("`kembench run --resume {id}` completes this run.");
            }
        }
        Record::Throughput(t) => {
            println!("Command: {}", t.command_line.join(" "));
            for l in t.environment.summary_lines() {
                println!("{l}");
            }
            super::throughput::print(&t);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `export`.
pub fn export(
    spec: &str,
    selector: &str,
    format: ExportFormat,
    output: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let mut s = Store::open(spec)?;
    let id = s.resolve(selector, None)?;
    let bytes = match records::record(&s.load(&id)?)? {
        Record::Run(r) => export::Format::from(format).exporter().serialize(&r)?,
        Record::Throughput(t) => match format {
            ExportFormat::Json => t.to_json()?,
            ExportFormat::Csv => t.to_csv()?,
            ExportFormat::Markdown => t.to_markdown()?,
        },
    };
    match output {
        Some(p) => {
            write_atomic(p, &bytes)?;
            eprintln!("wrote run {id} to {}", p.display());
        }
        None => {
            use std::io::Write;
            std::io::stdout().write_all(&bytes)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `import`.
pub fn import(spec: &str, file: &Path) -> anyhow::Result<ExitCode> {
    // Validate the whole file before touching the store.
    let record = crate::record::load(file)?;
    let mut s = Store::open(spec)?;
    let (row, results, status, id) = match &record {
        Record::Run(r) => {
            let mut r = r.clone();
            let id = r.run_id.clone().unwrap_or_else(store::new_run_id);
            r.run_id = Some(id.clone());
            let results = r
                .results
                .iter()
                .map(records::bench_result)
                .collect::<anyhow::Result<Vec<_>>>()?;
            let status = if r.interrupted {
                RunStatus::Interrupted
            } else {
                RunStatus::Complete
            };
            (records::run_row(&r)?, results, status, id)
        }
        Record::Throughput(t) => {
            let mut t = t.clone();
            let id = t.run_id.clone().unwrap_or_else(store::new_run_id);
            t.run_id = Some(id.clone());
            let results = t
                .results
                .iter()
                .map(records::throughput_result)
                .collect::<anyhow::Result<Vec<_>>>()?;
            (
                records::throughput_row(&t)?,
                results,
                RunStatus::Complete,
                id,
            )
        }
    };
    if s.contains(&id)? {
        bail!("run {id} is already in {}; nothing imported", s.location());
    }
    let finished = match &record {
        Record::Run(r) => r.finished_at.clone(),
        Record::Throughput(t) => t.finished_at.clone(),
    };
    s.begin(&row)
        .with_context(|| format!("importing {}", file.display()))?;
    for r in &results {
        s.put_result(&id, r)?;
    }
    s.finish(&id, status, finished.as_deref(), None)?;
    println!(
        "imported {} as run {id} ({} benchmarks) into {}",
        file.display(),
        results.len(),
        s.location()
    );
    Ok(ExitCode::SUCCESS)
}
