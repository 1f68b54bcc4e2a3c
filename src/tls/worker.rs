//! Stacks that live outside kembench's binary ([`WORKERS`]): BoringSSL and OpenSSL 4.0.3 cannot
//! be linked beside the vendored OpenSSL 3.6 (they export the same C symbols), so each runs in
//! an executable of its own, `workers/tls-boring` and `workers/tls-openssl4`, which links
//! kembench's measuring core (no `app` feature) and measures its plans with kembench's own code ([`serve`]: the same checks, rounds, scaling and network
//! conditions as the stacks in kembench's process). kembench hands it a [`Job`] as JSON on
//! standard input and reads the results as JSON from its standard output ([`run`]).

use super::certs::Chain;
use super::groups::{CertKind, Group, HelloShape, StackKind};
use super::measure::{self, Plan};
use super::side::Stack;
use crate::record::tls::{TlsConfig, TlsResult};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub use super::groups::{Worker, BORING_VAR, OPENSSL4_VAR, WORKERS};

/// One benchmark of a job: a group, a certificate key and a hello shape, by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobPlan {
    /// The group's TLS name.
    pub group: String,
    /// The certificate key (`ecdsa-p256`).
    pub cert: String,
    /// The hello shape (`browser`).
    pub hello: String,
}

/// A certificate chain as a job carries it: the very chain kembench's own stacks are measured
/// with in the same run, DER and PKCS #8 in hex, so that the worker needs no certificate
/// library of its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobChain {
    /// The certificate key (`ecdsa-p256`).
    pub cert: String,
    /// The leaf certificate.
    pub leaf: String,
    /// The intermediate certificate.
    pub intermediate: String,
    /// The root certificate.
    pub root: String,
    /// The leaf's private key.
    pub leaf_key: String,
}

impl JobChain {
    /// `chain` as a job carries it.
    pub fn of(chain: &Chain) -> JobChain {
        JobChain {
            cert: chain.kind.as_str().to_string(),
            leaf: hex::encode(&chain.leaf_der),
            intermediate: hex::encode(&chain.intermediate_der),
            root: hex::encode(&chain.root_der),
            leaf_key: hex::encode(&chain.leaf_key_pkcs8),
        }
    }

    /// The chain back, or what is wrong with it.
    pub fn chain(&self) -> Result<Chain, String> {
        let kind = CertKind::parse(&self.cert)
            .ok_or_else(|| format!("unknown certificate {}", self.cert))?;
        let bytes = |what: &str, h: &str| {
            hex::decode(h).map_err(|e| format!("the {} chain's {what} is not hex: {e}", self.cert))
        };
        Ok(Chain {
            kind,
            leaf_der: bytes("leaf", &self.leaf)?,
            intermediate_der: bytes("intermediate", &self.intermediate)?,
            root_der: bytes("root", &self.root)?,
            leaf_key_pkcs8: bytes("leaf key", &self.leaf_key)?,
        })
    }
}

/// What a worker is asked to measure.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    /// The run's configuration (durations, modes, threads, network conditions).
    pub config: TlsConfig,
    /// The benchmarks, in order.
    pub plans: Vec<JobPlan>,
    /// The chains the plans name, one per certificate key.
    pub chains: Vec<JobChain>,
    /// Logical CPUs (for the capacity figures).
    pub cpus: usize,
}

/// What makes a stack outside kembench's own build: for a group, a chain and a hello shape.
pub type MakeStack = dyn Fn(&Group, &Chain, HelloShape) -> Result<Box<dyn Stack>, String>;

/// The worker's own implementation of a group's key exchange on the stack's library, timed
/// bare beside the handshakes as kembench's in-process stacks' are (OpenSSL 4's worker has
/// `openssl_kem`'s; BoringSSL's has none).
pub type KemFor = dyn Fn(&Group) -> Option<std::sync::Arc<dyn crate::kem::Kem>>;

/// The plans of `job` measured on the stack `kind`, each stack made by `make`: every
/// benchmark checked, timed in interleaved rounds, scaled, then measured under the job's
/// network conditions, exactly as `kembench tls` measures its own stacks. Progress goes to
/// standard error.
pub fn serve(
    job: &Job,
    kind: StackKind,
    make: &MakeStack,
    kems: &KemFor,
    stop: &dyn Fn() -> bool,
) -> Result<Vec<TlsResult>, String> {
    let chains = job
        .chains
        .iter()
        .map(JobChain::chain)
        .collect::<Result<Vec<Chain>, String>>()?;
    let plans = job
        .plans
        .iter()
        .map(|p| {
            Ok(Plan {
                stack: kind,
                group: Group::find(&p.group).ok_or_else(|| format!("unknown group {}", p.group))?,
                chain: chains
                    .iter()
                    .find(|c| c.kind.as_str() == p.cert)
                    .ok_or_else(|| format!("the job carries no {} chain", p.cert))?,
                hello: HelloShape::parse(&p.hello)
                    .ok_or_else(|| format!("unknown hello shape {}", p.hello))?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let cfg = &job.config;
    let timers = crate::measure::timer::Timers::calibrate();
    let mut benches: Vec<_> = plans
        .iter()
        .map(|p| measure::start_with(p, cfg, kems(p.group), make(p.group, p.chain, p.hello)))
        .collect();
    for round in 1..=measure::ROUNDS {
        if stop() {
            break;
        }
        eprintln!(
            "tls ({}): round {round} of {} over {} benchmarks ...",
            kind.as_str(),
            measure::ROUNDS,
            benches.iter().filter(|b| b.live()).count()
        );
        for b in benches.iter_mut() {
            measure::round(b, cfg, &timers);
        }
    }
    let mut out = Vec::new();
    for (p, b) in plans.iter().zip(benches) {
        eprintln!("tls: {} ...", p.label());
        let mut r = measure::finish(b, cfg, job.cpus, stop);
        if r.kem.is_none() && r.kem_unavailable.is_none() {
            r.kem_unavailable = Some(format!(
                "kembench has no {} key exchange of its own to time {} bare",
                kind.as_str(),
                p.group.tls_name
            ));
        }
        r.signature_unavailable = Some(format!(
            "{} runs in its own worker: its signatures are not timed bare there (no other \
             library's figure is borrowed)",
            Worker::of(kind).map_or(kind.as_str(), |w| w.name)
        ));
        if !cfg.network.is_empty() && r.error.is_none() && r.unavailable.is_none() && !r.interrupted
        {
            eprintln!("tls: {} under network conditions ...", p.label());
            super::network::measure_with(p, make(p.group, p.chain, p.hello), cfg, &mut r, stop);
        }
        out.push(r);
    }
    Ok(out)
}

/// The sources of the worker `w`, beside kembench's own.
fn sources(w: &Worker) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("workers")
        .join(w.dir)
}

/// `tls`'s channel to its worker executables: the job on standard input, the results on
/// standard output, one message each.
const WIRE: crate::engine::wire::Wire = crate::engine::wire::Wire::new("KEMBENCH-TLS ");

/// A worker executable's `main`: the [`Job`] read from standard input ([`WIRE`]), [`serve`]d on
/// the stack `kind` made by `make`, the results sent on standard output; an error goes to
/// standard error (named by the executable `exe`) with exit code 1.
pub fn serve_stdio(exe: &str, kind: StackKind, make: &MakeStack) -> std::process::ExitCode {
    serve_stdio_with(exe, kind, make, &|_| None)
}

/// [`serve_stdio`], timing each group's key exchange bare with `kems` where it has one.
pub fn serve_stdio_with(
    exe: &str,
    kind: StackKind,
    make: &MakeStack,
    kems: &KemFor,
) -> std::process::ExitCode {
    use std::io::Read;
    let mut input = String::new();
    let job = std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| e.to_string())
        .and_then(|_| match WIRE.first::<Job>(&input) {
            Some(job) => job.map_err(|e| e.to_string()),
            None => Err("no job on standard input".to_string()),
        });
    match job.and_then(|job| serve(&job, kind, make, kems, &|| false)) {
        Ok(results) => {
            if WIRE.send(&results).is_err() {
                return std::process::ExitCode::from(1);
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{exe}: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

/// The worker `w` (BoringSSL's, OpenSSL 4's): the executable its variable names
/// (`$KEMBENCH_TLS_BORING`), else built from `workers/DIR` into `target` (cargo, `--locked`) on first use and reused; or why there is none. The build's
/// progress goes to standard error; when `stop` turns true (Ctrl-C, SIGTERM) cargo is ended
/// and the build said interrupted.
pub fn stack_worker(
    w: &Worker,
    target: &Path,
    stop: &dyn Fn() -> bool,
) -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(w.var).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("{}={} is not a file", w.var, p.display()))
        };
    }
    let src = sources(w);
    if !src.join("Cargo.toml").is_file() {
        return Err(format!(
            "{}'s worker's sources are not at {} (a kembench installed without its source \
             tree): build workers/{} and name the executable with {}",
            w.name,
            src.display(),
            w.dir,
            w.var
        ));
    }
    let exe = target.join("release").join(w.exe);
    let first = !exe.is_file();
    if first {
        eprintln!(
            "kembench: first use of {}: building {} and its worker (workers/{})\n  into {}: {}; \
             reused afterwards.",
            w.name,
            w.builds,
            w.dir,
            target.display(),
            w.first_build
        );
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Cargo itself decides whether anything changed (and holds a lock for concurrent calls).
    // Its stderr is read as it comes: each crate it starts compiling is the progress shown.
    let mut child = Command::new(cargo)
        .args(["build", "--release", "--locked", "--color", "never"])
        .arg("--manifest-path")
        .arg(src.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cargo to build {}'s worker: {e}", w.name))?;
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stderr = child.stderr.take().expect("piped");
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let started = std::time::Instant::now();
    let mut progress = Progress::new(w.name, first);
    let mut tail: Vec<String> = Vec::new();
    let mut take = |line: String, progress: &mut Progress| {
        if let Some(c) = compiling(&line) {
            progress.crate_started(c, started.elapsed());
        }
        if !line.trim().is_empty() {
            tail.push(line);
            let cut = tail.len().saturating_sub(TAIL_LINES);
            tail.drain(..cut);
        }
    };
    let status = loop {
        while let Ok(line) = rx.try_recv() {
            take(line, &mut progress);
        }
        if stop() {
            // Cargo may not have had the signal (a SIGTERM sent to kembench alone).
            let _ = child.kill();
            let _ = child.wait();
            progress.finish();
            return Err(ended(w, None, true, &[], started.elapsed()));
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                return Err(format!(
                    "waiting for cargo to build {}'s worker: {e}",
                    w.name
                ))
            }
        }
        progress.tick(started.elapsed());
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    // What cargo said last (the pipe closes when it has gone; a grandchild that kept it open
    // is not waited for).
    while let Ok(line) = rx.recv_timeout(std::time::Duration::from_secs(1)) {
        take(line, &mut progress);
    }
    progress.finish();
    let interrupted = stop() || by_interrupt(&status);
    if interrupted || !status.success() || !exe.is_file() {
        return Err(ended(w, Some(&status), interrupted, &tail, started.elapsed()));
    }
    if progress.shown() {
        eprintln!(
            "kembench: built {}'s worker in {}",
            w.name,
            minutes(started.elapsed())
        );
    }
    Ok(exe)
}

/// How many of cargo's last lines a failure quotes.
const TAIL_LINES: usize = 6;

/// The crate in a line of cargo's output that starts compiling one (`   Compiling boring-sys
/// v4.13.0 (/path)` gives `boring-sys v4.13.0`).
fn compiling(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("Compiling ")?;
    let mut words = rest.split(' ');
    let name = words.next().filter(|n| !n.is_empty())?;
    let len = match words.next() {
        Some(v) if v.starts_with('v') => name.len() + 1 + v.len(),
        _ => name.len(),
    };
    Some(&rest[..len])
}

/// Whether cargo was ended by Ctrl-C, SIGTERM or SIGHUP (the terminal sends Ctrl-C to the
/// whole process group: cargo stops at the same time as kembench is asked to).
fn by_interrupt(status: &std::process::ExitStatus) -> bool {
    use std::os::unix::process::ExitStatusExt;
    matches!(
        status.signal(),
        Some(libc::SIGINT | libc::SIGTERM | libc::SIGHUP)
    )
}

/// An elapsed time in minutes and seconds (`3 min 05 s`, `42 s`).
fn minutes(d: std::time::Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s} s")
    } else {
        format!("{} min {:02} s", s / 60, s % 60)
    }
}

/// Why building `w` gave no worker: `interrupted` (Ctrl-C, SIGTERM), or
/// cargo's `status` with its last lines (`tail`), never an empty reason.
fn ended(
    w: &Worker,
    status: Option<&std::process::ExitStatus>,
    interrupted: bool,
    tail: &[String],
    elapsed: std::time::Duration,
) -> String {
    if interrupted {
        return format!(
            "building {}'s worker (workers/{}) was interrupted after {} (Ctrl-C or SIGTERM); \
             its next use (`kembench tls --stack {}`{}) continues it where cargo left off",
            w.name,
            w.dir,
            minutes(elapsed),
            w.kind.as_str(),
            if w.kind == StackKind::Openssl4 {
                ", or `--impl openssl4`"
            } else {
                ""
            }
        );
    }
    let how = match status {
        Some(s) if s.success() => "cargo ended without error but made no worker".to_string(),
        Some(s) => format!("cargo {s}"),
        None => "cargo did not finish".to_string(),
    };
    // Shown as it is here: the console and the exports escape what they show of a reason.
    let said = tail;
    if said.is_empty() {
        format!(
            "building {}'s worker (workers/{}) failed after {}: {how}, and it printed nothing",
            w.name,
            w.dir,
            minutes(elapsed)
        )
    } else {
        format!(
            "building {}'s worker (workers/{}) failed after {}: {how}: {}",
            w.name,
            w.dir,
            minutes(elapsed),
            said.join("\n")
        )
    }
}

/// The progress of a build of a stack's worker on standard error: on a terminal, one line
/// redrawn in place (the crate being compiled, the time elapsed); otherwise, a plain line
/// when a crate starts at most every [`QUIET`], and one every [`QUIET`] while nothing starts
/// (BoringSSL's cmake build, OpenSSL's make, run inside one crate's build script for minutes). Nothing is
/// shown while cargo only checks that the worker is up to date.
struct Progress {
    /// Whose worker (`BoringSSL`).
    name: &'static str,
    bar: Option<indicatif::ProgressBar>,
    tty: bool,
    shown: bool,
    current: String,
    said_at: Option<std::time::Duration>,
}

/// The least time between two plain progress lines.
const QUIET: std::time::Duration = std::time::Duration::from_secs(30);

impl Progress {
    /// Progress for a build that is the first (`first`: shown from the start) or a check that
    /// may rebuild (shown once a crate is compiled).
    fn new(name: &'static str, first: bool) -> Progress {
        use std::io::IsTerminal;
        let mut p = Progress {
            name,
            bar: None,
            tty: std::io::stderr().is_terminal(),
            shown: false,
            current: String::new(),
            said_at: None,
        };
        if first {
            p.show();
        }
        p
    }

    fn show(&mut self) {
        if self.shown {
            return;
        }
        self.shown = true;
        if self.tty {
            let bar = indicatif::ProgressBar::new_spinner();
            let template = format!(
                "{{spinner}} tls: building {}'s worker, {{elapsed}} so far: {{msg}}",
                self.name
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template(&template).expect("a valid template"),
            );
            bar.set_message("starting cargo");
            bar.enable_steady_tick(std::time::Duration::from_millis(250));
            self.bar = Some(bar);
        }
    }

    /// Whether anything was shown.
    fn shown(&self) -> bool {
        self.shown
    }

    /// Cargo started compiling `name`, `at` into the build.
    fn crate_started(&mut self, name: &str, at: std::time::Duration) {
        self.show();
        self.current = name.to_string();
        match &self.bar {
            Some(bar) => bar.set_message(format!("compiling {name}")),
            None => {
                if plain_line_due(self.said_at, at, true) {
                    self.say(at);
                }
            }
        }
    }

    /// Time passed with nothing new from cargo.
    fn tick(&mut self, at: std::time::Duration) {
        if self.shown && self.bar.is_none() && plain_line_due(self.said_at, at, false) {
            self.say(at);
        }
    }

    fn say(&mut self, at: std::time::Duration) {
        self.said_at = Some(at);
        let what = if self.current.is_empty() {
            "starting".to_string()
        } else {
            format!("compiling {}", self.current)
        };
        eprintln!(
            "kembench: building {}'s worker, {} so far: {what}",
            self.name,
            minutes(at)
        );
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// Whether a plain progress line is due `now`: the first crate at once, another crate
/// [`QUIET`] after the last line, and twice that with nothing new.
fn plain_line_due(
    last: Option<std::time::Duration>,
    now: std::time::Duration,
    new_crate: bool,
) -> bool {
    match last {
        None => new_crate || now >= 2 * QUIET,
        Some(t) if new_crate => now >= t + QUIET,
        Some(t) => now >= t + 2 * QUIET,
    }
}

/// Runs `job` in the worker `exe` and reads its results; or why it gave none.
pub fn run(exe: &Path, job: &Job) -> Result<Vec<TlsResult>, String> {
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    WIRE.write(&mut child.stdin.take().expect("piped"), job)
        .map_err(|e| format!("writing the job to {}: {e}", exe.display()))?;
    let out = child
        .wait_with_output()
        .map_err(|e| format!("waiting for {}: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!("{} ended with {}", exe.display(), out.status));
    }
    match WIRE.first(&String::from_utf8_lossy(&out.stdout)) {
        Some(results) => results.map_err(|e| format!("reading {}'s results: {e}", exe.display())),
        None => Err(format!("{} sent no results", exe.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_prebuilt_worker_is_refused_with_its_name() {
        // Only this test sets the variable, in this process.
        std::env::set_var(BORING_VAR, "/nonexistent/kembench-tls-boring");
        let boring = Worker::of(StackKind::Boringssl).unwrap();
        let e = stack_worker(boring, Path::new("/nonexistent"), &|| false).unwrap_err();
        std::env::remove_var(BORING_VAR);
        assert!(e.contains("KEMBENCH_TLS_BORING=/nonexistent"), "{e}");
    }

    #[test]
    fn cargos_compiling_lines_name_the_crate() {
        assert_eq!(
            compiling("   Compiling boring-sys v4.13.0 (/home/x/boring-sys)"),
            Some("boring-sys v4.13.0")
        );
        assert_eq!(compiling("   Compiling libc v0.2.170"), Some("libc v0.2.170"));
        assert_eq!(compiling("Compiling kembench"), Some("kembench"));
        assert_eq!(compiling("    Finished `release` profile"), None);
        assert_eq!(compiling("warning: unused variable: `Compiling`"), None);
        assert_eq!(compiling("   Compiling "), None);
    }

    #[test]
    fn an_ended_build_says_interrupted_or_why_it_failed_never_nothing() {
        use std::os::unix::process::ExitStatusExt;
        let t = std::time::Duration::from_secs(192);
        let boring = Worker::of(StackKind::Boringssl).unwrap();
        let e = ended(boring, None, true, &["   Compiling boring-sys v4".into()], t);
        assert!(e.contains("was interrupted after 3 min 12 s"), "{e}");
        assert!(!e.contains("failed"), "{e}");
        // Exit status 1 (as a wait status), with nothing said.
        let one = std::process::ExitStatus::from_raw(1 << 8);
        let e = ended(boring, Some(&one), false, &[], t);
        assert!(e.contains("failed after 3 min 12 s: cargo exit status: 1"), "{e}");
        assert!(e.ends_with("and it printed nothing"), "{e}");
        let e = ended(
            boring,
            Some(&one),
            false,
            &["error: failed to run custom build command for `boring-sys`".into()],
            std::time::Duration::from_secs(5),
        );
        assert!(
            e.ends_with("failed after 5 s: cargo exit status: 1: error: failed to run custom build command for `boring-sys`"),
            "{e}"
        );
        // Killed by Ctrl-C sent to the process group: an interrupt, not a failure.
        assert!(by_interrupt(&std::process::ExitStatus::from_raw(libc::SIGINT)));
        assert!(by_interrupt(&std::process::ExitStatus::from_raw(libc::SIGTERM)));
        assert!(!by_interrupt(&std::process::ExitStatus::from_raw(libc::SIGKILL)));
        assert!(!by_interrupt(&one));
    }

    #[test]
    fn plain_progress_lines_are_spaced() {
        let s = std::time::Duration::from_secs;
        assert!(plain_line_due(None, s(0), true), "the first crate at once");
        assert!(!plain_line_due(None, s(10), false));
        assert!(plain_line_due(None, s(60), false), "a line while cmake runs");
        assert!(!plain_line_due(Some(s(0)), s(29), true));
        assert!(plain_line_due(Some(s(0)), s(30), true));
        assert!(!plain_line_due(Some(s(0)), s(59), false));
        assert!(plain_line_due(Some(s(0)), s(60), false));
        assert_eq!(minutes(s(42)), "42 s");
        assert_eq!(minutes(s(725)), "12 min 05 s");
    }

    fn job(group: &str, chains: Vec<JobChain>) -> Job {
        Job {
            config: serde_json::from_value(serde_json::json!({
                "stacks": [], "groups": [], "certs": [], "modes": ["full"], "duration_s": 0.1,
                "threads": [], "scaling_duration_s": 0.1, "target_rate": 1.0, "network": [],
                "network_handshakes": 10, "planned": []
            }))
            .unwrap(),
            plans: vec![JobPlan {
                group: group.into(),
                cert: "ecdsa-p256".into(),
                hello: "browser".into(),
            }],
            chains,
            cpus: 1,
        }
    }

    fn serve_none(job: &Job) -> String {
        serve(job, StackKind::Boringssl, &|_, _, _| Err("none".into()), &|_| None, &|| false).unwrap_err()
    }

    #[test]
    fn a_job_with_an_unknown_group_is_refused() {
        let chain = Chain::generate(CertKind::EcdsaP256).unwrap();
        let e = serve_none(&job("X99", vec![JobChain::of(&chain)]));
        assert_eq!(e, "unknown group X99");
    }

    #[test]
    fn a_job_carries_kembench_s_own_chain_byte_for_byte() {
        let chain = Chain::generate(CertKind::EcdsaP256).unwrap();
        let carried = JobChain::of(&chain);
        let json = serde_json::to_string(&carried).unwrap();
        let back: JobChain = serde_json::from_str(&json).unwrap();
        let again = back.chain().unwrap();
        assert_eq!(again.kind, chain.kind);
        assert_eq!(again.leaf_der, chain.leaf_der);
        assert_eq!(again.intermediate_der, chain.intermediate_der);
        assert_eq!(again.root_der, chain.root_der);
        assert_eq!(again.leaf_key_pkcs8, chain.leaf_key_pkcs8);
    }

    #[test]
    fn a_job_without_its_plans_chain_or_with_a_broken_one_is_refused() {
        let e = serve_none(&job("x25519", Vec::new()));
        assert_eq!(e, "the job carries no ecdsa-p256 chain");
        let mut bad = JobChain::of(&Chain::generate(CertKind::EcdsaP256).unwrap());
        bad.root = "zz".into();
        let e = serve_none(&job("x25519", vec![bad.clone()]));
        assert!(e.starts_with("the ecdsa-p256 chain's root is not hex"), "{e}");
        bad.cert = "ecdsa-p999".into();
        assert_eq!(serve_none(&job("x25519", vec![bad])), "unknown certificate ecdsa-p999");
    }
}
