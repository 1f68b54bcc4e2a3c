//! The engine of `profile`: each selected implementation passes the quick correctness gate
//! natively, then runs once per seed in a worker process under valgrind's callgrind
//! ([`worker`]); its dumps are read into exact instruction counts and where they go
//! ([`crate::callgrind`]). Implementations are profiled side by side (`jobs` at a time):
//! instruction counts do not depend on what else the machine is doing.
#![cfg(feature = "app")]

pub mod emulated;
pub mod estimate;
pub mod mix;
pub mod randomness;
pub mod symbols;
pub mod valgrind;
pub mod worker;

use crate::callgrind::{self, AnalysisOptions, OpAnalysis};
use crate::engine::ended::Ended;
use crate::kem::Kem;
use crate::measure::counters::Counters;
use crate::kem::Op;
use crate::record::profile::{OpProfile, ProfileConfig, ProfileResult, RandomnessNote, Spread};
use crate::record::Failure;
use crate::verify::Outcome;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use crate::record::profile::SHA3_PROBE_PREFIX;

/// What to profile and how.
pub struct Plan {
    /// The implementations, in the order results are listed.
    pub impls: Vec<Arc<dyn Kem>>,
    /// Seeds, operations and analysis settings (as recorded).
    pub config: ProfileConfig,
    /// Whether the mock implementations are offered (workers build the same registry).
    pub include_mock: bool,
    /// Implementations profiled at once.
    pub jobs: usize,
    /// Longest one worker (one implementation, one seed) may run before it is killed.
    pub timeout: Duration,
    /// The valgrind executable.
    pub valgrind: PathBuf,
    /// The kembench binary workers run.
    pub exe: PathBuf,
    /// Keep callgrind's raw files here (`LABEL/seedN/OP.callgrind`), for kcachegrind.
    pub keep: Option<PathBuf>,
    /// Names of the binary's functions valgrind cannot name ([`symbols`]).
    pub names: std::collections::HashMap<u64, String>,
    /// The debug information of the objects profiled, read once: the primitive shares look
    /// through inlined frames with it.
    pub debug: callgrind::DebugInfo,
}

/// What one profiled call is, for the record and the README.
pub fn call_of(op: Op) -> &'static str {
    match op {
        Op::Keygen => {
            "one key generation, the key kept as the library's object (as `run` times it)"
        }
        Op::Encaps => "one encapsulation to a public key given as bytes (as `run` times it)",
        Op::Decaps => "one decapsulation with a kept secret key (as `run` times it)",
        Op::Exchange => "keygen, encaps and decaps of one fresh key (as `run` times it)",
        Op::SkImport => "one secret-key import from bytes (as `run` times it)",
        Op::PkImport => "one public-key parse and check (as `run` times it)",
    }
}

/// The CPU features a process sees under valgrind (`profile-worker --cpu-features` under
/// valgrind's no-op tool).
pub fn features_under_valgrind(valgrind: &Path, exe: &Path) -> anyhow::Result<Vec<String>> {
    let out = Command::new(valgrind)
        .args(["--tool=none", "--quiet"])
        .arg(exe)
        .args(["profile-worker", "--cpu-features"])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| anyhow::anyhow!("running {}: {e}", valgrind.display()))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| match worker::parse(l) {
            Some(worker::Message::Features(f)) => Some(f),
            _ => None,
        })
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{} could not run kembench ({}); check that valgrind works: `valgrind --tool=none true`",
                valgrind.display(),
                out.status
            )
        })
}

/// Profiles every implementation of `plan`, `plan.jobs` at a time, and hands each result to
/// `emit` as it finishes (in the order they finish). Stops starting new ones when `stop`
/// says so; those in progress are killed and recorded as interrupted.
pub fn profile_all(
    plan: &Plan,
    stop: &(dyn Fn() -> bool + Sync),
    emit: &mut dyn FnMut(ProfileResult),
) {
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..plan.jobs.clamp(1, plan.impls.len().max(1)) {
            let tx = tx.clone();
            let next = &next;
            std::thread::Builder::new()
                .name("kembench-profile-job".into())
                // The native correctness check and counters use megabyte keys on the stack.
                .stack_size(crate::kem::MEGABYTE_KEYS_STACK)
                .spawn_scoped(s, move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(k) = plan.impls.get(i) else { break };
                    if stop() {
                        break;
                    }
                    if tx.send(profile_one(plan, k.as_ref(), stop)).is_err() {
                        break;
                    }
                })
                .expect("spawning a profile job");
        }
        drop(tx);
        for r in rx {
            emit(r);
        }
    });
}

/// Exact instruction counts of one call of each of `ops` (one seed) for every implementation
/// of `impls`, the way `profile` counts them: what `run --instructions` records beside its
/// times. Analysis settings are `profile`'s defaults.
pub fn instruction_counts(
    impls: Vec<Arc<dyn Kem>>,
    ops: Vec<Op>,
    include_mock: bool,
    exe: PathBuf,
    stop: &(dyn Fn() -> bool + Sync),
) -> anyhow::Result<Vec<ProfileResult>> {
    let valgrind = valgrind::locate()?;
    let plan = Plan {
        config: ProfileConfig {
            selection: "run --instructions".into(),
            seeds: 1,
            operations: ops,
            planned: impls.iter().map(|k| k.meta().label()).collect(),
            cache_geometry: valgrind::CACHE_GEOMETRY.to_string(),
            separate_callers: valgrind::SEPARATE_CALLERS,
            tree_depth: AnalysisOptions::default().tree_depth,
            tree_threshold: AnalysisOptions::default().tree_threshold,
            sha3_probe: false,
            cpus: Vec::new(),
            llvm: String::new(),
        },
        impls,
        include_mock,
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        timeout: Duration::from_secs(600),
        valgrind,
        names: symbols::unsized_text_symbols(&exe),
        exe,
        keep: None,
        debug: callgrind::DebugInfo::new(),
    };
    let mut out = Vec::new();
    profile_all(&plan, stop, &mut |r| out.push(r));
    Ok(out)
}

/// A result with the implementation's names and nothing profiled yet.
fn skeleton(k: &dyn Kem, correctness: Outcome) -> ProfileResult {
    let m = k.meta();
    ProfileResult {
        algorithm: m.algorithm.name.to_string(),
        family: m.algorithm.family.to_string(),
        implementation: m.implementation.clone(),
        version: m.version.clone(),
        correctness,
        randomness: RandomnessNote {
            fixed: false,
            how: "not profiled".into(),
        },
        operations: Vec::new(),
        error: None,
        failure: None,
    }
}

/// One operation as one worker reported it.
struct Profiled {
    op: Op,
    call: String,
    analysis: OpAnalysis,
    /// Estimated cycles per CPU of `--cpus` of this machine's architecture (seed 0 only).
    estimates: Vec<crate::record::profile::CycleEstimate>,
}

/// What one worker (one seed) produced.
struct SeedOutput {
    randomness: Option<RandomnessNote>,
    profiled: Vec<Profiled>,
    errors: Vec<String>,
}

/// Profiles `k`: the quick correctness gate and the native counters in a native worker,
/// then every seed of the plan in a worker under callgrind.
pub fn profile_one(plan: &Plan, k: &dyn Kem, stop: &dyn Fn() -> bool) -> ProfileResult {
    let mut result = skeleton(k, Outcome::Skip("not checked".into()));
    if crate::engine::foreign_arch(k).is_some() {
        return emulated::profile(k, &plan.config, stop, result);
    }
    let native = match run_native(plan, k, stop) {
        Ok(n) => n,
        Err(f) => {
            result.failure = Some(*f);
            return result;
        }
    };
    result.correctness = native.checked;
    if result.correctness.failed() {
        return result;
    }
    if let Some(why) = Op::none_offered(&plan.config.operations, k) {
        result.error = Some(why);
        return result;
    }
    let mut seeds: Vec<SeedOutput> = Vec::new();
    for seed in 0..plan.config.seeds as u64 {
        match run_worker(plan, k, seed, stop) {
            Ok(out) => seeds.push(out),
            Err(f) => {
                result.failure = Some(*f);
                return result;
            }
        }
    }
    let Some(first) = seeds.first() else {
        result.error = Some("no seed was profiled".into());
        return result;
    };
    result.randomness = first.randomness.clone().unwrap_or(RandomnessNote {
        fixed: false,
        how: "the worker did not say".into(),
    });
    let mut errors: Vec<String> = first.errors.clone();
    for p in &first.profiled {
        let mut counts = Vec::with_capacity(seeds.len());
        for (seed, out) in seeds.iter().enumerate() {
            match out.profiled.iter().find(|q| q.op == p.op) {
                Some(q) => counts.push(q.analysis.instructions),
                None => errors.push(format!(
                    "{}: seed {seed} has no profile of it",
                    p.op.as_str()
                )),
            }
        }
        if counts.len() != seeds.len() {
            continue;
        }
        let counters = native
            .counters
            .iter()
            .find(|(op, _)| *op == p.op)
            .map_or(Counters::Unavailable("not counted".into()), |(_, c)| {
                c.clone()
            });
        result.operations.push(OpProfile {
            operation: p.op,
            call: p.call.clone(),
            instructions: Spread::of(counts),
            analysis: p.analysis.clone(),
            native: counters,
            emulated: None,
            estimates: p.estimates.clone(),
        });
    }
    if !errors.is_empty() {
        result.error = Some(errors.join("; "));
    }
    result
}

/// What the native worker reported.
struct NativeOutput {
    checked: Outcome,
    counters: Vec<(Op, Counters)>,
}

/// The worker's command line after the executable: `profile-worker --label L ...`.
fn worker_args(plan: &Plan, label: &str, seed: u64) -> Vec<String> {
    let ops: Vec<&str> = plan.config.operations.iter().map(|o| o.as_str()).collect();
    let mut a: Vec<String> = vec![
        "profile-worker".into(),
        "--label".into(),
        label.into(),
        "--seed".into(),
        seed.to_string(),
        "--ops".into(),
        ops.join(","),
    ];
    if plan.include_mock {
        a.push("--include-mock".into());
    }
    a
}

/// Runs the native worker: the correctness gate and the hardware counters.
fn run_native(
    plan: &Plan,
    k: &dyn Kem,
    stop: &dyn Fn() -> bool,
) -> Result<NativeOutput, Box<Failure>> {
    let label = k.meta().label();
    let during = "the correctness check";
    let dir = WorkDir::new(&label, 0)
        .map_err(|e| crashed(format!("cannot make a work directory: {e}"), during))?;
    let mut cmd = Command::new(&plan.exe);
    cmd.args(worker_args(plan, &label, 0)).arg("--native");
    let stdout = spawn_and_wait(cmd, &dir, plan.timeout, stop, during)?;
    let mut out = NativeOutput {
        checked: Outcome::Skip("the worker did not say".into()),
        counters: Vec::new(),
    };
    let mut said = false;
    for m in stdout.lines().filter_map(worker::parse) {
        match m {
            worker::Message::Checked(o) => {
                out.checked = o;
                said = true;
            }
            worker::Message::Native { op, counters } => out.counters.push((op, counters)),
            _ => {}
        }
    }
    if !said {
        return Err(crashed("the worker reported nothing".into(), during));
    }
    Ok(out)
}

/// Starts `cmd` (its stderr into `dir`), waits for it within `timeout` while watching
/// `stop`, and returns its stdout; a death, a timeout or a stop is the failure to record.
fn spawn_and_wait(
    mut cmd: Command,
    dir: &WorkDir,
    timeout: Duration,
    stop: &dyn Fn() -> bool,
    during: &str,
) -> Result<String, Box<Failure>> {
    let stderr_path = dir.0.join("stderr");
    let stderr = std::fs::File::create(&stderr_path).map_err(|e| {
        crashed(
            format!("cannot write {}: {e}", stderr_path.display()),
            during,
        )
    })?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        // Its own process group: Ctrl-C reaches `profile`, which decides.
        .process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| crashed(format!("cannot start {:?}: {e}", cmd.get_program()), during))?;
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) => {}
            Err(e) => return Err(crashed(format!("waiting for the worker: {e}"), during)),
        }
        let ended = if stop() {
            Some(Ended::Aborted)
        } else if started.elapsed() > timeout {
            Some(Ended::TimedOut)
        } else {
            None
        };
        if let Some(ended) = ended {
            let _ = child.kill();
            let _ = child.wait();
            let _ = reader.join();
            return Err(Box::new(crate::engine::ended::failure(&ended, during)));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = reader.join().unwrap_or_default();
    if !status.success() {
        let ended = Ended::Died {
            signal: status.signal(),
            code: status.code(),
        };
        let mut f = crate::engine::ended::failure(&ended, during);
        let said = tail(
            &std::fs::read_to_string(&stderr_path).unwrap_or_default(),
            8,
        );
        if !said.is_empty() {
            f.detail = format!("{}; it said:\n{said}", f.detail);
        }
        return Err(Box::new(f));
    }
    Ok(stdout)
}

/// A directory of its own for one worker's files, removed when dropped.
struct WorkDir(PathBuf);

impl WorkDir {
    fn new(label: &str, seed: u64) -> std::io::Result<WorkDir> {
        let safe = crate::record::profile::flames::file_part(label);
        let d = std::env::temp_dir().join(format!(
            "kembench-profile-{}-{safe}-{seed}-{:08x}",
            std::process::id(),
            rand::random::<u32>()
        ));
        std::fs::create_dir(&d)?;
        Ok(WorkDir(d))
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn crashed(detail: String, during: &str) -> Box<Failure> {
    let mut f = crate::engine::ended::failure(
        &Ended::Died {
            signal: None,
            code: None,
        },
        during,
    );
    f.detail = detail;
    Box::new(f)
}

/// The last lines of `text`, for error details.
fn tail(text: &str, lines: usize) -> String {
    let v: Vec<&str> = text.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

/// Runs one worker under callgrind for `seed` and analyses its dumps.
fn run_worker(
    plan: &Plan,
    k: &dyn Kem,
    seed: u64,
    stop: &dyn Fn() -> bool,
) -> Result<SeedOutput, Box<Failure>> {
    let label = k.meta().label();
    let during = format!("seed {seed} under callgrind");
    let dir = WorkDir::new(&label, seed)
        .map_err(|e| crashed(format!("cannot make a work directory: {e}"), &during))?;
    let out_file = dir.0.join("cg.out");
    let mut cmd = Command::new(&plan.valgrind);
    cmd.args(valgrind::callgrind_args(&out_file))
        .arg(&plan.exe)
        .args(worker_args(plan, &label, seed));
    if plan.config.sha3_probe {
        cmd.arg("--sha3-probe");
    }
    let stdout = spawn_and_wait(cmd, &dir, plan.timeout, stop, &during)?;
    let mut out = SeedOutput {
        randomness: None,
        profiled: Vec::new(),
        errors: Vec::new(),
    };
    // The CPUs of `--cpus` of this machine's architecture: seed 0's calls are priced for them.
    let native_cpus: Vec<crate::record::profile::CpuModel> = plan
        .config
        .cpus
        .iter()
        .filter(|c| c.arch == crate::arch::Arch::host().name())
        .cloned()
        .collect();
    let mut executions = Vec::new();
    for m in stdout.lines().filter_map(worker::parse) {
        match m {
            worker::Message::Randomness(r) => out.randomness = Some(r),
            worker::Message::Failed { op, error } => {
                out.errors.push(format!("{}: {error}", op.as_str()))
            }
            worker::Message::Profiled { op, dump, call } => {
                let path = dir.0.join(format!("cg.out.{dump}"));
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    crashed(
                        format!(
                            "callgrind left no dump {} for {}: {e}",
                            path.display(),
                            op.as_str()
                        ),
                        &during,
                    )
                })?;
                if let Some(keep) = &plan.keep {
                    keep_dump(keep, &label, seed, op, &path);
                }
                let opts = AnalysisOptions {
                    root: op.as_str().to_string(),
                    marker: valgrind::MARKER.to_string(),
                    provider: k.meta().provider().to_string(),
                    tree_depth: plan.config.tree_depth,
                    tree_threshold: plan.config.tree_threshold,
                    ..AnalysisOptions::default()
                };
                let text = callgrind::name_addresses(&text, &plan.names);
                if seed == 0 && !native_cpus.is_empty() {
                    match callgrind::executions(&text) {
                        Ok(e) => executions.push(e),
                        Err(e) => out.errors.push(format!("{}: cycle estimates: {e}", op.as_str())),
                    }
                }
                match callgrind::analyse_with(&text, &opts, &plan.debug) {
                    Ok(analysis) => out.profiled.push(Profiled {
                        op,
                        call,
                        analysis,
                        estimates: Vec::new(),
                    }),
                    Err(e) => out
                        .errors
                        .push(format!("{}: reading callgrind's dump: {e}", op.as_str())),
                }
            }
            _ => {}
        }
    }
    if out.randomness.is_none() {
        return Err(crashed("the worker reported nothing".into(), &during));
    }
    if !executions.is_empty() && executions.len() == out.profiled.len() {
        let priced = crate::cycles::Tools::find()
            .and_then(|tools| estimate::native(&tools, &executions, &native_cpus));
        match priced {
            Ok(v) => {
                for (p, e) in out.profiled.iter_mut().zip(v) {
                    p.estimates = e;
                }
            }
            Err(e) => out.errors.push(format!("cycle estimates: {e}")),
        }
    }
    Ok(out)
}

/// Copies one dump to `keep/LABEL/seedN/OP.callgrind`; a failure is reported, not fatal.
fn keep_dump(keep: &Path, label: &str, seed: u64, op: Op, dump: &Path) {
    let safe = crate::record::profile::flames::file_part(label);
    let dir = keep.join(safe).join(format!("seed{seed}"));
    let to = dir.join(format!("{}.callgrind", op.as_str()));
    if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::copy(dump, &to)) {
        eprintln!("profile: could not keep {}: {e}", to.display());
    }
}

