//! The console (and JSON) of `kembench builds` and `kembench list --builds`.

use super::{clean, fit, num, table, wrap};
use crate::builds::sources::Missing;
use crate::builds::Summary;
use crate::kem::Gate;
use crate::providers::built::manifest::{Compiled, Entry};
use comfy_table::Cell;
use serde::Serialize;
use std::path::Path;

/// Whether a build failed: it did not compile, was refused, or failed the gate.
pub fn failed(e: &Entry) -> bool {
    !matches!(e.compiled, Compiled::Built) || matches!(e.facts.gate, Gate::Failed(_))
}

fn status(e: &Entry) -> String {
    match (&e.compiled, &e.facts.gate) {
        (Compiled::Failed(why), _) => format!("compile failed: {why}"),
        (Compiled::Refused(why), _) => format!("refused: {why}"),
        (Compiled::Built, Gate::Passed(what)) => {
            let kats: Vec<&str> = ["ACVP", "accumulated", "NIST KAT", "liboqs KAT", "PQCkemKAT"]
                .into_iter()
                .filter(|k| what.contains(k))
                .collect();
            if kats.is_empty() {
                "verified".into()
            } else {
                format!("verified, known answers: {}", kats.join(", "))
            }
        }
        (Compiled::Built, Gate::Failed(why)) => format!("verify FAILED: {why}"),
        (Compiled::Built, Gate::NotRun) => "built, not verified yet".into(),
    }
}

/// The widest vector extension a build targets, and how many features in all (the JSON has
/// the list).
fn targets(e: &Entry) -> String {
    if let Some(a) = &e.facts.arch {
        return format!("{a} (emulated)");
    }
    let t = &e.facts.targets;
    let widest = ["avx512f", "avx2", "avx", "sse4_2", "ssse3", "pni"]
        .into_iter()
        .find(|f| t.iter().any(|x| x == f));
    match widest {
        None if t.is_empty() => "x86-64 baseline".into(),
        None => format!("{} features", t.len()),
        Some(w) if t.len() == 1 => w.to_string(),
        Some(w) => format!("{w} (+{})", t.len() - 1),
    }
}

/// `builds --json`: every build's record, with whether the cache served it.
#[derive(Serialize)]
pub struct Json<'a> {
    /// The build cache.
    pub cache: &'a Path,
    /// Seconds compiling took, all compilers together (wall clock).
    pub compile_seconds: f64,
    /// Compiler runs made.
    pub compiler_runs: usize,
    /// Seconds the gate took.
    pub gate_seconds: f64,
    /// Every build.
    pub builds: Vec<JsonBuild<'a>>,
}

/// One build in `builds --json`.
#[derive(Serialize)]
pub struct JsonBuild<'a> {
    /// Its record.
    #[serde(flatten)]
    pub entry: &'a Entry,
    /// Served from the cache (no compiler run).
    pub cached: bool,
    /// Gated by this invocation (false: the cache's verdict from this kembench was kept).
    pub gated_now: bool,
}

/// The JSON of a summary.
pub fn json(s: &Summary) -> Json<'_> {
    Json {
        cache: &s.root,
        compile_seconds: s.compile_seconds,
        compiler_runs: s.compiler_runs,
        gate_seconds: s.gate_seconds,
        builds: s
            .outcomes
            .iter()
            .map(|o| JsonBuild {
                entry: &o.entry,
                cached: o.cached,
                gated_now: o.gated_now,
            })
            .collect(),
    }
}

/// One sentence naming the version of every source the builds were compiled from (a source
/// tree named by `builds --source` with its path and its commit or content digest), when
/// there are builds.
fn sources_line<'a>(entries: impl Iterator<Item = &'a Entry>) -> Option<String> {
    let mut seen: Vec<(String, String)> = Vec::new();
    for e in entries {
        let source = e
            .facts
            .source
            .split('/')
            .next()
            .unwrap_or_default()
            .to_string();
        if e.facts.source_version.is_empty() || seen.iter().any(|(s, _)| *s == source) {
            continue;
        }
        seen.push((source, clean(&e.facts.source_version)));
    }
    (!seen.is_empty()).then(|| {
        let said: Vec<String> = seen.iter().map(|(s, v)| format!("{s}: {v}")).collect();
        format!("Sources: {}.", said.join("; "))
    })
}

/// The table of one `builds` invocation and its totals.
pub fn print_summary(s: &Summary, unavailable: &[&Missing]) {
    let mut t = table(&["build", "targets", "compile s", "cache", "result"]);
    for o in &s.outcomes {
        let e = &o.entry;
        t.add_row(vec![
            Cell::new(clean(&e.label())),
            Cell::new(targets(e)),
            if matches!(e.compiled, Compiled::Built) && !o.cached {
                num(format!("{:.2}", e.build_seconds))
            } else {
                num("–")
            },
            Cell::new(if o.cached { "reused" } else { "new" }),
            Cell::new(clean(&status(e))),
        ]);
    }
    fit(&mut t, &[4], &[]);
    println!("{t}");
    let n = s.outcomes.len();
    let cached = s.outcomes.iter().filter(|o| o.cached).count();
    let n_failed = s.outcomes.iter().filter(|o| failed(&o.entry)).count();
    let gated = s.outcomes.iter().filter(|o| o.gated_now).count();
    print!(
        "{}",
        wrap(
            &format!(
                "{n} builds: {} compiler runs in {:.1} s, {cached} reused from the cache; gate run \
                 on {gated} in {:.1} s; {n_failed} failed. Cache: {}",
                s.compiler_runs,
                s.compile_seconds,
                s.gate_seconds,
                s.root.display()
            ),
            2
        )
    );
    if let Some(line) = sources_line(s.outcomes.iter().map(|o| &o.entry)) {
        print!("{}", wrap(&line, 2));
    }
    for m in unavailable {
        print!(
            "{}",
            wrap(&format!("not offered: {}: {}", m.label, m.reason), 2)
        );
    }
    let mut algs: Vec<&str> = Vec::new();
    let mut foreign: Vec<&str> = Vec::new();
    for o in s.outcomes.iter().filter(|o| !failed(&o.entry)) {
        if let Some(a) = &o.entry.facts.arch {
            if !foreign.contains(&a.as_str()) {
                foreign.push(a);
            }
        } else if !algs.contains(&o.entry.algorithm.as_str()) {
            algs.push(&o.entry.algorithm);
        }
    }
    if !foreign.is_empty() {
        print!(
            "{}",
            wrap(
                &format!(
                    "Builds for {} run under emulation: they are verified and counted, never \
                     timed (time under an emulator says nothing about the machine).",
                    foreign.join(", ")
                ),
                2
            )
        );
    }
    if !algs.is_empty() {
        print!(
            "{}",
            wrap(
                &format!(
                    "Compare them in one interleaved run: `kembench run --alg {} --impl '*@*'`",
                    algs.join(",")
                ),
                2
            )
        );
    }
}

/// The table of `list --builds`.
pub fn print_list(entries: &[Entry], root: &Path) {
    if entries.is_empty() {
        println!(
            "No builds registered in {} (make some with `kembench builds --alg ML-KEM-768`).",
            root.display()
        );
        return;
    }
    let mut t = table(&["build", "compiler", "flags", "targets", "status"]);
    for e in entries {
        t.add_row(vec![
            Cell::new(clean(&e.label())),
            Cell::new(clean(&e.facts.compiler_version)),
            Cell::new(if e.facts.flags.is_empty() {
                "(none)".to_string()
            } else {
                clean(&e.facts.flags)
            }),
            Cell::new(targets(e)),
            Cell::new(clean(&status(e))),
        ]);
    }
    // The flags wrap between flags, the status between words; the compiler's version (the
    // widest cell after the build) is shown in full by `builds --json`.
    fit(&mut t, &[2, 4], &[]);
    println!("{t}");
    if let Some(line) = sources_line(entries.iter()) {
        print!("{}", wrap(&line, 2));
    }
    print!(
        "{}",
        wrap(
            &format!(
                "{} builds in {}; select them with `--impl 'SOURCE@*'` (a pattern with '@') or `--impl 'local/*'`.",
                entries.len(),
                root.display()
            ),
            2
        )
    );
}
