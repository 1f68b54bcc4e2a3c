//! `runs`, `show`, `export`, `import`: the results store from the command line.

use crate::export::Format;
use crate::files;
use crate::output::Width;
use crate::record::RunStatus;
use crate::store::{self, records, Store};
use anyhow::Context;
use std::path::Path;
use std::process::ExitCode;

/// `kembench runs`'s command line.
#[derive(Debug, clap::Args)]
pub struct RunsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Show at most this many runs (1 or more).
    #[arg(long, default_value_t = 50, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    limit: usize,
    /// Every column (the CPU, the start to the second) and no wrapping (default: a table
    /// within 120 columns).
    #[arg(long)]
    wide: bool,
}

impl RunsArgs {
    /// Runs `runs` on the store `spec`.
    pub fn run(self, spec: &str) -> anyhow::Result<ExitCode> {
        runs(spec, self.json, self.limit, Width::wide_if(self.wide))
    }
}

/// `kembench show`'s command line.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Run id (or a unique part), `latest`, `latest~N`, `host:NAME`, `cpu:TEXT`.
    run: String,
    /// Every column (TSC ticks, cycles, quartiles, allocations, share, samples) and every
    /// note in full, instead of a table that fits 120 columns.
    #[arg(long)]
    wide: bool,
}

impl ShowArgs {
    /// Runs `show` on the store `spec`.
    pub fn run(self, spec: &str) -> anyhow::Result<ExitCode> {
        show(spec, &self.run, Width::wide_if(self.wide))
    }
}

/// `kembench export`'s command line.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// Run id (or a unique part), `latest`, `latest~N`, `host:NAME`, `cpu:TEXT`.
    run: String,
    /// Output format.
    #[arg(long, default_value = "json", value_parser = crate::cli::export_format())]
    format: Format,
    /// Write here instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<std::path::PathBuf>,
}

impl ExportArgs {
    /// Runs `export` on the store `spec`.
    pub fn run(self, spec: &str) -> anyhow::Result<ExitCode> {
        export(spec, &self.run, self.format, self.output.as_deref())
    }
}

/// `kembench import`'s command line.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The JSON file.
    file: std::path::PathBuf,
}

impl ImportArgs {
    /// Runs `import` into the store `spec`.
    pub fn run(self, spec: &str) -> anyhow::Result<ExitCode> {
        import(spec, &self.file)
    }
}

/// Runs `runs`.
fn runs(spec: &str, json: bool, limit: usize, layout: Width) -> anyhow::Result<ExitCode> {
    let mut s = Store::open_existing(spec)?;
    let mut all = s.runs()?;
    let total = all.len();
    all.truncate(limit);
    if json {
        println!("{}", serde_json::to_string_pretty(&all)?);
        return Ok(ExitCode::SUCCESS);
    }
    crate::output::runs::print(&all, total, &s.location(), layout);
    Ok(ExitCode::SUCCESS)
}

/// Runs `show`.
fn show(spec: &str, selector: &str, layout: Width) -> anyhow::Result<ExitCode> {
    let mut s = Store::open_existing(spec)?;
    let id = match s.named(selector, None)? {
        store::Named::Run(id) => id,
        store::Named::Sweep(id) => return show_sweep(&mut s, &id, layout),
    };
    let stored = s.load(&id)?;
    let sum = &stored.summary;
    let head = format!(
        "Run {} ({}, {}): started {}, finished {}; {} benchmarks, {} not ok",
        sum.id,
        sum.kind,
        sum.status,
        sum.started_at,
        sum.finished_at.as_deref().unwrap_or("-"),
        sum.results,
        sum.not_ok
    );
    print!(
        "{}",
        crate::output::prose(layout, &crate::output::clean(&head))
    );
    let record = records::record(&stored)?;
    if let Some(sweep) = s.sweep_of(&id)? {
        print!(
            "{}",
            crate::output::prose(
                layout,
                &format!(
                    "This run is one shard of sweep {sweep}: `kembench show sweep:{sweep}` shows \
                     the whole sweep."
                )
            )
        );
    }
    print!(
        "{}",
        crate::output::record(&record, layout, &crate::output::elsewhere(Some(&id), None))
    );
    let facts = record.kind().facts();
    if facts.resumable && RunStatus::parse(&sum.status) == Some(RunStatus::Interrupted) {
        println!(
            "`kembench {} --resume {id}` completes this run.",
            facts.command
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `show sweep:ID`: the sweep's runs, then its shards read back as one record.
fn show_sweep(s: &mut Store, id: &str, layout: Width) -> anyhow::Result<ExitCode> {
    let (name, record) = store::load_sweep(s, id)?;
    let head = match record.sweep() {
        None => format!("Sweep {id}: {name}"),
        Some(sw) => {
            let runs: Vec<String> = sw
                .runs
                .iter()
                .map(|r| {
                    format!(
                        "shard {}/{} run {} ({}, {} benchmarks, host {})",
                        r.shard, sw.shards, r.run_id, r.status, r.benchmarks, r.host
                    )
                })
                .collect();
            let missing = match sw.missing_shards.as_slice() {
                [] => String::new(),
                m => format!("; missing shard(s) {}", crate::record::sweep::shard_list(m)),
            };
            format!(
                "Sweep {id}: {} of {} shards, {} planned benchmarks: {}{missing}",
                sw.runs.len(),
                sw.shards,
                sw.plan.len(),
                runs.join("; ")
            )
        }
    };
    print!(
        "{}",
        crate::output::prose(layout, &crate::output::clean(&head))
    );
    print!(
        "{}",
        crate::output::record(
            &record,
            layout,
            &crate::output::elsewhere(Some(&format!("sweep:{id}")), None)
        )
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `export`.
fn export(
    spec: &str,
    selector: &str,
    format: Format,
    output: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let out = output.unwrap_or(Path::new("-"));
    // Checked before the store is read: a bad output is the first thing said.
    files::target(out)?;
    files::refuse_overwrite(out, &store::protected(spec))?;
    let (name, record) = store::load(spec, selector, None)?;
    let bytes = format.serialize_any(&record)?;
    files::write_output(out, &bytes)?;
    if out.as_os_str() != "-" {
        eprintln!("wrote {name} to {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `import`.
fn import(spec: &str, file: &Path) -> anyhow::Result<ExitCode> {
    // Check the whole file, and build every row, before the store is opened (or created).
    let record = crate::record::load(file)?;
    if let Err(e) = record.visit(ShardPart) {
        crate::bail_usage!("not imported: {}: {e}", file.display());
    }
    let import =
        records::prepare(record).with_context(|| format!("importing {}", file.display()))?;
    let mut s = Store::open(spec)?;
    let (id, done) = import
        .insert(&mut s)
        .with_context(|| format!("importing {}", file.display()))?;
    match done {
        records::Imported::New(benchmarks) => println!(
            "imported {} as run {id} ({benchmarks} benchmarks) into {}",
            file.display(),
            s.location()
        ),
        records::Imported::Completed { held, added } => println!(
            "completed run {id} in {} from {}: the store held {held} of its {} benchmarks; \
             {added} added, and the held ones given the file's final figures",
            s.location(),
            file.display(),
            held + added
        ),
    }
    Ok(ExitCode::SUCCESS)
}

/// Checks that a shard's record planned its shard's part of the sweep's plan
/// ([`crate::shard::check_part`]): a record whose shard number was edited would stand in for
/// the real shard in `show sweep:ID`.
struct ShardPart;

impl crate::record::Visit<'_> for ShardPart {
    type Out = Result<(), String>;
    fn visit<K: crate::record::Kind>(self, r: &crate::record::Record<K>) -> Self::Out {
        let Some(sweep) = &r.sweep else {
            return Ok(());
        };
        let Some(index) = sweep.shard else {
            return Ok(());
        };
        // A shard number outside the sweep is said by the record's own check.
        if index == 0 || index > sweep.shards {
            return Ok(());
        }
        let shard = crate::shard::Shard {
            index,
            count: sweep.shards,
        };
        crate::shard::check_part(&sweep.plan, K::planned(&r.config), shard, |l| {
            crate::shard::label_cost(K::FACTS.command, l)
        })
    }
}
