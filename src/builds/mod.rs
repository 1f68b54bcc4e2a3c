//! The engine of `kembench builds`: compiles the C sources kembench carries with every compiler
//! and flag set asked for, each into a shared object of its own in the build cache, checks what
//! each targets against this CPU, and puts every new build through the correctness gate. A
//! second invocation finds every build in the cache by its key (sources, compiler, flags) and
//! invokes no compiler.

mod c_text;
pub mod compile;
pub mod compiler;
mod gate;
mod liboqs_kems;
pub mod package;
pub mod sources;
#[cfg(test)]
mod tests;
pub mod trees;

use crate::kem::{BuildFacts, Gate};
use crate::providers::built::manifest::{self, Compiled, Entry};
use compile::FlagSet;
use compiler::Compiler;
use sources::Source;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// What to build.
#[derive(Debug, Clone)]
pub struct Request {
    /// The sources (algorithm, variant) to compile.
    pub sources: Vec<Source>,
    /// Compiler names or paths (`gcc`, `clang`).
    pub compilers: Vec<String>,
    /// Flag sets.
    pub flags: Vec<FlagSet>,
    /// Compilers run at once.
    pub jobs: usize,
    /// Run the gate again even where this kembench already gated a build.
    pub reverify: bool,
    /// Longest one gate child may run before it is killed (a hanging build).
    pub gate_timeout: std::time::Duration,
    /// Only this shard of the (source, compiler, flag set) combinations (`--shard K/N`).
    pub shard: Option<crate::shard::Shard>,
}

/// One build as this invocation left it.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The build's record (also in the cache).
    pub entry: Entry,
    /// Whether the cache served it (no compiler run).
    pub cached: bool,
    /// Whether this invocation ran the gate on it.
    pub gated_now: bool,
}

/// What a whole invocation did.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Every build, sorted by label.
    pub outcomes: Vec<Outcome>,
    /// The build cache.
    pub root: PathBuf,
    /// Seconds compiling took (wall clock, all compilers together).
    pub compile_seconds: f64,
    /// Seconds the gate took.
    pub gate_seconds: f64,
    /// Compiler runs made.
    pub compiler_runs: usize,
}

/// The kembench build that gates: version and commit.
fn gated_by() -> String {
    let b = crate::env::Build::current();
    format!("{} {}", b.kembench_version, b.git_commit)
}

impl Outcome {
    /// A build this invocation has not gated.
    fn new(entry: Entry, cached: bool) -> Outcome {
        Outcome {
            entry,
            cached,
            gated_now: false,
        }
    }
}

/// Runs the gate on the builds `outcomes[i]` for `i` in `which` (all of `algorithm`) and
/// records each verdict, with the kembench that gave it, in the cache.
fn gate_and_record(
    root: &std::path::Path,
    algorithm: &str,
    outcomes: &mut [Outcome],
    which: &[usize],
    limit: std::time::Duration,
) -> std::io::Result<()> {
    let ids: Vec<String> = which
        .iter()
        .map(|&i| outcomes[i].entry.facts.implementation.clone())
        .collect();
    let verdicts = gate::verify(root, algorithm, &ids, limit);
    let me = gated_by();
    for &i in which {
        let o = &mut outcomes[i];
        if let Some(g) = verdicts.get(&o.entry.facts.implementation) {
            o.entry.facts.gate = g.clone();
            o.entry.gated_by = Some(me.clone());
            o.gated_now = true;
            manifest::write(root, &o.entry)?;
        }
    }
    Ok(())
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A compiled package's sizes, from its shim: they must be those of the algorithm it
/// claims to implement, or they describe a scheme of its own.
fn describe_package(e: &mut Entry, p: &sources::Package, root: &std::path::Path) {
    let program = e.library(root);
    let read = if e.facts.arch.is_some() {
        crate::providers::foreign::api_sizes(&program)
    } else {
        crate::providers::built::read_api_sizes(&program)
    };
    let sizes = match read {
        Ok(v) => v,
        Err(why) => {
            e.compiled = Compiled::Failed(why);
            return;
        }
    };
    e.kat_file = p.kat_file.clone();
    if p.implements {
        if let Some(a) = crate::kem::catalog::find(&e.algorithm) {
            let want = [a.pk_len, a.sk_len, a.ct_len, a.ss_len];
            if sizes != want {
                e.compiled = Compiled::Failed(format!(
                    "api.h declares pk/sk/ct/ss of {sizes:?} bytes, but {} has {want:?}",
                    a.name
                ));
            }
        }
        return;
    }
    e.custom = Some(crate::providers::built::CustomAlgorithm {
        name: e.algorithm.clone(),
        nist_level: p.level,
        pk_len: sizes[0],
        sk_len: sizes[1],
        ct_len: sizes[2],
        ss_len: sizes[3],
        implicit_rejection: p.implicit_rejection,
    });
}

/// A prebuilt shared library exporting the NIST API (`kembench add lib.so`): copied into the
/// cache (so a later change of the file is a new build, never confused with this one),
/// recorded, and gated like any build.
pub fn prebuilt(
    path: &std::path::Path,
    id: &str,
    algorithm: &str,
    custom: Option<crate::providers::built::CustomAlgorithm>,
    symbols: crate::providers::built::Symbols,
    gate_timeout: std::time::Duration,
) -> std::io::Result<Summary> {
    use sha2::{Digest, Sha256};
    let root = manifest::dir();
    std::fs::create_dir_all(&root)?;
    let bytes = std::fs::read(path)?;
    let sha = hex::encode(Sha256::digest(&bytes));
    let mut h = Sha256::new();
    h.update(format!(
        "prebuilt\0{sha}\0{id}\0{algorithm}\0{custom:?}\0{symbols:?}"
    ));
    let key = hex::encode(h.finalize());
    let e = Entry {
        key: key.clone(),
        algorithm: algorithm.to_string(),
        facts: BuildFacts {
            implementation: id.to_string(),
            source: id.split('@').next().unwrap_or(id).to_string(),
            source_version: format!("prebuilt library {}", path.display()),
            source_sha256: sha,
            compiler: "prebuilt".into(),
            compiler_version: "unknown (a prebuilt library)".into(),
            flags: String::new(),
            required_flags: Vec::new(),
            targets: Vec::new(),
            gate: Gate::NotRun,
            arch: None,
        },
        symbols,
        kat_sha256: None,
        custom,
        kat_file: None,
        compiled: Compiled::Built,
        build_seconds: 0.0,
        gated_by: None,
        registered_unix: now_unix(),
    };
    std::fs::create_dir_all(root.join(&key))?;
    std::fs::write(e.library(&root), &bytes)?;
    manifest::write(&root, &e)?;
    let started = Instant::now();
    let mut outcomes = vec![Outcome::new(e, false)];
    gate_and_record(&root, algorithm, &mut outcomes, &[0], gate_timeout)?;
    Ok(Summary {
        outcomes,
        root,
        compile_seconds: 0.0,
        gate_seconds: started.elapsed().as_secs_f64(),
        compiler_runs: 0,
    })
}

/// The expected cost of building and gating `s` for `--shard` (see [`crate::shard`]): a
/// liboqs CMake build compiles the whole library (about ten PQClean builds' worth), a
/// PQClean source its scheme, whose gate's cost grows with its sizes.
fn expected_cost(s: &Source) -> f64 {
    if s.id.starts_with("liboqs") {
        return 10.0;
    }
    crate::kem::catalog::find(s.algorithm).map_or(1.0, |a| {
        crate::shard::expected_cost(a.pk_len, a.sk_len, a.ct_len)
    })
}

/// Builds, gates and registers every (source, compiler, flag set) of `req`.
pub fn run(req: &Request, progress: &(dyn Fn(&str) + Sync)) -> std::io::Result<Summary> {
    let root = manifest::dir();
    std::fs::create_dir_all(&root)?;
    let mut archs: Vec<crate::arch::Arch> = req.sources.iter().map(|s| s.arch).collect();
    archs.sort();
    archs.dedup();
    let compilers: Vec<(String, crate::arch::Arch, Result<Compiler, String>)> = archs
        .iter()
        .flat_map(|&a| {
            req.compilers
                .iter()
                .map(move |c| (c.clone(), a, Compiler::find_for(c, a)))
        })
        .collect();
    let cpu_flags = compiler::cpu_flags();
    let me = gated_by();

    // Each flag set as each architecture reads it (`-march=vector`: its vector unit's flags).
    let per_arch: Vec<(crate::arch::Arch, Vec<Result<FlagSet, String>>)> = archs
        .iter()
        .map(|&a| (a, req.flags.iter().map(|f| f.for_arch(a)).collect()))
        .collect();
    // Plan: every combination, each either settled already (refused, cached) or to compile.
    let mut settled: Vec<Outcome> = Vec::new();
    let mut todo: Vec<(Entry, &Source, &Compiler, &FlagSet)> = Vec::new();
    let mut combos = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    for s in &req.sources {
        for (asked, arch, c) in &compilers {
            if *arch != s.arch {
                continue;
            }
            let flags = per_arch
                .iter()
                .find(|(a, _)| *a == s.arch)
                .map(|(_, f)| f.as_slice())
                .unwrap_or_default();
            for f in flags {
                let usable = f
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|f| s.refuses(&f.words).map_or(Ok(f), Err));
                match usable {
                    Ok(f) => combos.push((s, (asked, c), f)),
                    Err(why) => {
                        let said = format!("{}@{}: {why}", s.algorithm, s.id);
                        if !skipped.contains(&said) {
                            eprintln!("builds: not built: {said}");
                            skipped.push(said);
                        }
                    }
                }
            }
        }
    }
    if let Some(shard) = req.shard {
        let (mine, plan) = crate::shard::take(
            combos,
            shard,
            |(s, (asked, _), f)| {
                format!(
                    "{}@{}@{asked}:{}{}",
                    s.algorithm,
                    s.id,
                    f.text,
                    s.arch.suffix()
                )
            },
            |(s, _, _)| expected_cost(s),
        );
        eprintln!(
            "builds: shard {shard}: {} of the {} planned builds",
            mine.len(),
            plan.len()
        );
        combos = mine;
    }
    // Each source's files hashed once, whatever the compilers and flag sets: one digest per
    // (algorithm, source id), as each algorithm of one source id has files of its own.
    let mut digests: std::collections::HashMap<(&str, &str), String> = Default::default();
    for (s, (asked, c), f) in combos {
        let sha = match digests.get(&(s.algorithm, s.id.as_str())) {
            Some(d) => d.clone(),
            None => {
                let d = s.sha256()?;
                digests.insert((s.algorithm, &s.id), d.clone());
                d
            }
        };
        let base = |compiler: &str, version: &str, targets: Vec<String>| BuildFacts {
            implementation: compile::id(s, compiler, f),
            source: s.id.clone(),
            source_version: s.version.clone(),
            source_sha256: sha.clone(),
            compiler: compiler.to_string(),
            compiler_version: version.to_string(),
            flags: f.text.clone(),
            required_flags: s.required_flags.clone(),
            targets,
            gate: Gate::NotRun,
            arch: s.arch.foreign().then(|| s.arch.to_string()),
        };
        let entry = |key: String, facts: BuildFacts, compiled: Compiled| Entry {
            key,
            algorithm: s.algorithm.to_string(),
            facts,
            symbols: s.symbols.clone(),
            kat_sha256: s.kat_sha256.clone(),
            custom: None,
            kat_file: None,
            compiled,
            build_seconds: 0.0,
            gated_by: None,
            registered_unix: now_unix(),
        };
        let c = match c {
            Ok(c) => c,
            Err(why) => {
                // Not cached: the compiler may be installed later.
                settled.push(Outcome::new(
                    entry(
                        String::new(),
                        base(asked, "absent", vec![]),
                        Compiled::Refused(why.clone()),
                    ),
                    false,
                ));
                continue;
            }
        };
        let key = compile::key(s, &sha, c, f);
        if let Some(mut old) = manifest::read(&root, &key) {
            let usable = match &old.compiled {
                Compiled::Built => old.library(&root).is_file(),
                Compiled::Failed(_) => true,
                Compiled::Refused(_) => false,
            };
            if usable {
                old.registered_unix = now_unix();
                manifest::write(&root, &old)?;
                settled.push(Outcome::new(old, true));
                continue;
            }
        }
        if let (true, Some(n)) = (
            s.arch.foreign(),
            f.words.iter().find(|w| w.ends_with("=native")),
        ) {
            let why = format!(
                "{n} names this machine's CPU, not a {} one: give a CPU model (for example \
                 -march=z13 on s390x, -mcpu=neoverse-n1 on aarch64)",
                s.arch
            );
            let e = entry(
                key,
                base(&c.short, &c.version, vec![]),
                Compiled::Refused(why),
            );
            manifest::write(&root, &e)?;
            settled.push(Outcome::new(e, false));
            continue;
        }
        let all_flags: Vec<String> = if s.flags_last {
            s.required_flags.iter().chain(&f.words).cloned().collect()
        } else {
            f.words.iter().chain(&s.required_flags).cloned().collect()
        };
        match c.targets(&all_flags) {
            Err(why) => {
                let e = entry(
                    key,
                    base(&c.short, &c.version, vec![]),
                    Compiled::Failed(why),
                );
                manifest::write(&root, &e)?;
                settled.push(Outcome::new(e, false));
            }
            Ok(targets) => {
                // A foreign build runs on QEMU's CPU model, not this CPU.
                let lacking = if s.arch.foreign() {
                    Vec::new()
                } else {
                    compiler::lacking(&targets, &cpu_flags)
                };
                let facts = base(&c.short, &c.version, targets);
                if !lacking.is_empty() {
                    let why = format!(
                        "targets {}, which this CPU lacks: refused rather than run",
                        lacking.join(", ")
                    );
                    let e = entry(key, facts, Compiled::Refused(why));
                    manifest::write(&root, &e)?;
                    settled.push(Outcome::new(e, false));
                } else {
                    todo.push((entry(key, facts, Compiled::Built), s, c, f));
                }
            }
        }
    }

    // Compile, `jobs` at a time.
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let built: Mutex<Vec<Outcome>> = Mutex::new(Vec::new());
    let total = todo.len();
    std::thread::scope(|scope| {
        for _ in 0..req.jobs.max(1).min(total.max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((e, s, c, f)) = todo.get(i) else {
                    break;
                };
                let mut e = e.clone();
                progress(&format!("compiling {} ({}/{total})", e.label(), i + 1));
                match compile::compile(s, c, f, &root.join(&e.key)) {
                    Ok(secs) => {
                        e.build_seconds = secs;
                        if let Some(p) = &s.package {
                            describe_package(&mut e, p, &root);
                        }
                    }
                    Err(why) if s.package.is_some() => {
                        e.compiled = Compiled::Failed(package::explain(&why))
                    }
                    Err(why) => e.compiled = Compiled::Failed(why),
                }
                let _ = manifest::write(&root, &e);
                built
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(Outcome::new(e, false));
            });
        }
    });
    let compile_seconds = started.elapsed().as_secs_f64();
    let mut outcomes = settled;
    outcomes.extend(built.into_inner().unwrap_or_else(|p| p.into_inner()));

    // The gate, one child per algorithm, for builds this kembench has not gated.
    let started = Instant::now();
    let mut by_alg: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, o) in outcomes.iter().enumerate() {
        let e = &o.entry;
        let due = e.compiled == Compiled::Built
            && (req.reverify || e.gated_by.as_deref() != Some(&me) || e.facts.gate == Gate::NotRun);
        if due {
            by_alg.entry(e.algorithm.clone()).or_default().push(i);
        }
    }
    for (alg, idx) in by_alg {
        progress(&format!("verifying {} builds of {alg}", idx.len()));
        gate_and_record(&root, &alg, &mut outcomes, &idx, req.gate_timeout)?;
    }
    let gate_seconds = started.elapsed().as_secs_f64();
    outcomes.sort_by_key(|o| o.entry.label());
    Ok(Summary {
        outcomes,
        root,
        compile_seconds,
        gate_seconds,
        compiler_runs: total,
    })
}
