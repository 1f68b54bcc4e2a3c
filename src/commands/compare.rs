//! `kembench compare A B`: what changed between two runs (stored or in files), and is it real.
//! Both are read as the kind of `B`; the kind compares them ([`Kind::compare`]) and says what
//! `compare`'s options mean for it ([`Facts::compare`](crate::record::Facts)).

use crate::output::Width;
use crate::record::compare::{Asked, Compares};
use crate::record::{Kind, Record, RecordKind, VisitKind};
use crate::store::load_kind;

use std::path::Path;
use std::process::ExitCode;

/// The records `old` and `new` name, both of kind `K`. When `old` cannot be read as `K` but is
/// a record of another kind, the error says that the two are of different kinds.
#[allow(clippy::type_complexity)]
fn load_pair<K: Kind>(
    spec: &str,
    old: &str,
    new: &str,
) -> anyhow::Result<((String, Record<K>), (String, Record<K>))> {
    let b = load_kind::<K>(spec, new)?;
    // `latest~N` counts among the runs of `new`'s kind: no other kind is meant.
    let relative = old.starts_with("latest");
    let a = load_kind::<K>(spec, old).map_err(|e| match kind_named(spec, old) {
        Some(k) if k != RecordKind::of::<K>() && !relative => crate::usage::Usage(format!(
            "{old} is {} and {new} is {}: compare reads two records of the same kind",
            k.noun(),
            K::FACTS.noun
        ))
        .into(),
        _ => e,
    })?;
    Ok((a, b))
}

/// The kind of record `new` names (a file, an id, or `latest`: the newest run in the store),
/// when it can be read.
fn kind_named(spec: &str, new: &str) -> Option<RecordKind> {
    crate::store::load(spec, new, None)
        .ok()
        .map(|(_, r)| r.kind())
}

/// The kinds whose [`Compares`] `has`, for messages: `latency runs and profiles`.
fn kinds_that(has: impl Fn(&Compares) -> bool, and: &str) -> String {
    let names: Vec<&str> = RecordKind::ALL
        .iter()
        .filter(|k| has(&k.facts().compare))
        .map(|k| k.plural())
        .collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} {and} {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// What `compare` was asked.
struct Compare<'a> {
    spec: &'a str,
    old: &'a str,
    new: &'a str,
    noise: f64,
    fail_on: Option<f64>,
    json: bool,
    flamegraphs: Option<&'a Path>,
}

impl VisitKind for Compare<'_> {
    type Out = anyhow::Result<ExitCode>;

    /// Reads both records as kind `K`, compares them and prints the comparison.
    fn visit<K: Kind>(self) -> anyhow::Result<ExitCode> {
        let can = K::FACTS.compare;
        if self.flamegraphs.is_some() && !can.flame_graphs {
            crate::bail_usage!(
                "--flamegraphs applies to the comparison of two {}",
                kinds_that(|c| c.flame_graphs, "or")
            );
        }
        if let (Some(_), Some(why)) = (self.fail_on, can.no_gate) {
            crate::bail_usage!(
                "--fail-on-regression applies to {}: {why}",
                kinds_that(|c| c.compares && c.no_gate.is_none(), "and")
            );
        }
        let ((old, a), (new, b)) = load_pair::<K>(self.spec, self.old, self.new)?;
        if old == new || (a.run_id.is_some() && a.run_id == b.run_id) {
            eprintln!("warning: {old} is compared with itself: every ratio is 1 by construction");
        }
        let asked = Asked {
            old: &old,
            new: &new,
            noise: self.noise,
        };
        let Some(c) = K::compare(&a, &b, asked) else {
            crate::bail_usage!("compare does not compare {}", K::FACTS.plural);
        };
        if let Some(dir) = self.flamegraphs {
            let files = c.flame_graphs()?;
            let n = crate::files::write_into(dir, files, &crate::store::protected(self.spec))?;
            eprintln!(
                "compare: {n} differential flame graph(s) in {}",
                dir.display()
            );
        }
        if let Some(why) = c.nothing_shared() {
            crate::bail_usage!("{why}");
        }
        if self.json {
            println!("{}", c.json()?);
        } else {
            print!("{}", crate::output::described(&c.tables(), Width::Fit));
        }
        if let Some(line) = self.fail_on.and_then(|pct| c.regressions(pct)) {
            eprintln!("{line}");
            return Ok(ExitCode::from(crate::exit::FAILED));
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// `kembench compare`'s command line.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The older run.
    old: String,
    /// The newer run.
    new: String,
    /// Changes smaller than this percentage are called noise.
    #[arg(long, default_value_t = 2.0)]
    noise: f64,
    /// Exit 1 when any operation is slower by more than this percentage, significantly
    /// (zero or more).
    #[arg(long, value_name = "PCT", value_parser = crate::cli::non_negative_pct)]
    fail_on_regression: Option<f64>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// With two profiles: write a differential flame graph per (implementation,
    /// operation) into this directory (created if missing).
    #[arg(long, value_name = "DIR")]
    flamegraphs: Option<std::path::PathBuf>,
}

impl Args {
    /// Runs `compare` on the store `spec`.
    pub fn run(self, spec: &str) -> anyhow::Result<ExitCode> {
        compare(
            spec,
            &self.old,
            &self.new,
            crate::cli::noise_fraction(self.noise)?,
            self.fail_on_regression,
            self.json,
            self.flamegraphs.as_deref(),
        )
    }
}

/// Runs `compare`: both records are read as the kind of `new` (a kind `compare` does not
/// compare, or a record that cannot be read, as the first kind of the list, whose errors say
/// what is wrong).
fn compare(
    spec: &str,
    old: &str,
    new: &str,
    noise: f64,
    fail_on: Option<f64>,
    json: bool,
    flamegraphs: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let kind = kind_named(spec, new)
        .filter(|k| k.facts().compare.compares)
        .unwrap_or(RecordKind::ALL[0]);
    kind.visit(Compare {
        spec,
        old,
        new,
        noise,
        fail_on,
        json,
        flamegraphs,
    })
}
