//! `kembench builds` (compile, gate, register) and `kembench list --builds`.

use crate::builds::compile::FlagSet;
use crate::builds::{self, sources};
use crate::output::builds as out;
use crate::providers::built::manifest;
use crate::providers::Filter;
use crate::suggest::nearest;
use globset::Glob;
use std::io::IsTerminal;
use std::process::ExitCode;

/// The validated command line of `builds`.
#[derive(Debug, Clone)]
pub struct Args {
    /// Algorithm names or globs.
    pub algorithms: Vec<String>,
    /// Source ids or globs.
    pub sources: Vec<String>,
    /// Compilers.
    pub cc: Vec<String>,
    /// Flag sets.
    pub flags: Vec<String>,
    /// Compilers at once.
    pub jobs: Option<usize>,
    /// Gate again.
    pub reverify: bool,
    /// JSON output.
    pub json: bool,
}

fn matches(patterns: &[String], name: &str) -> anyhow::Result<bool> {
    if patterns.is_empty() {
        return Ok(true);
    }
    for p in patterns {
        let g = Glob::new(&p.to_ascii_lowercase())
            .map_err(|e| crate::exit::Usage(format!("bad pattern '{p}': {}", e.kind())))?;
        if g.compile_matcher().is_match(name.to_ascii_lowercase()) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Every pattern must match one of `names`, else a usage error naming the nearest.
fn each_matches(what: &str, patterns: &[String], names: &[String]) -> anyhow::Result<()> {
    for p in patterns {
        if !names
            .iter()
            .any(|n| matches(std::slice::from_ref(p), n).unwrap_or(false))
        {
            let near = nearest(p, names);
            let hint = if near.is_empty() {
                format!("; kembench can build: {}", names.join(", "))
            } else {
                format!("; did you mean {}?", near.join(", "))
            };
            crate::bail_usage!("no {what} to build matches '{p}'{hint}");
        }
    }
    Ok(())
}

/// Runs `builds`.
pub fn run(a: &Args) -> anyhow::Result<ExitCode> {
    let (all, missing) = sources::all();
    let mut alg_names: Vec<String> = all.iter().map(|s| s.algorithm.to_string()).collect();
    alg_names.dedup();
    let mut src_names: Vec<String> = all.iter().map(|s| s.id.clone()).collect();
    src_names.sort();
    src_names.dedup();
    each_matches("algorithm", &a.algorithms, &alg_names)?;
    each_matches("source", &a.sources, &src_names)?;
    let mut picked = Vec::new();
    for s in all {
        if matches(&a.algorithms, s.algorithm)? && matches(&a.sources, &s.id)? {
            picked.push(s);
        }
    }
    if picked.is_empty() {
        crate::bail_usage!(
            "the filters together select no source (try `kembench builds --alg ML-KEM-768`)"
        );
    }
    let mut flags: Vec<FlagSet> = Vec::new();
    for f in &a.flags {
        let f = FlagSet::parse(f);
        if !flags.contains(&f) {
            flags.push(f);
        }
    }
    let mut cc: Vec<String> = Vec::new();
    for c in &a.cc {
        let c = c.trim().to_string();
        if c.is_empty() {
            crate::bail_usage!("--cc has an empty compiler name");
        }
        if !cc.contains(&c) {
            cc.push(c);
        }
    }
    let req = builds::Request {
        sources: picked,
        compilers: cc,
        flags,
        jobs: a
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        reverify: a.reverify,
    };
    let tty = std::io::stderr().is_terminal() && !a.json;
    let progress = |what: &str| {
        if tty {
            eprint!("\r\x1b[2Kbuilds: {what}");
        }
    };
    let summary = builds::run(&req, &progress)
        .map_err(|e| anyhow::anyhow!("build cache {}: {e}", manifest::dir().display()))?;
    if tty {
        eprint!("\r\x1b[2K");
    }
    let unavailable: Vec<&sources::Missing> = missing
        .iter()
        .filter(|m| {
            let alg = m.label.split('@').next().unwrap_or_default();
            matches(&a.algorithms, alg).unwrap_or(false)
        })
        .collect();
    if a.json {
        println!("{}", serde_json::to_string_pretty(&out::json(&summary))?);
    } else {
        out::print_summary(&summary, &unavailable);
    }
    let failed = summary.outcomes.iter().any(|o| out::failed(&o.entry));
    Ok(if failed {
        ExitCode::from(crate::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Runs `list --builds`: every registered build (and failed one) the filter's algorithms select.
pub fn list(filter: &Filter, json: bool) -> anyhow::Result<ExitCode> {
    let root = manifest::dir();
    let mut entries = manifest::all(&root);
    entries.retain(|e| {
        matches(&filter.algorithms, &e.algorithm).unwrap_or(false)
            && matches(&filter.implementations, &e.facts.implementation).unwrap_or(false)
    });
    if json {
        println!("{}", serde_json::to_string_pretty(&entries)?);
    } else {
        out::print_list(&entries, &root);
    }
    Ok(ExitCode::SUCCESS)
}
