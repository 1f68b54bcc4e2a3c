//! Stacks that live outside kembench's binary: BoringSSL cannot be linked beside the vendored
//! OpenSSL (the two export the same C symbols), so it runs in its own executable,
//! `workers/tls-boring`, which links kembench as a library without OpenSSL and measures its
//! plans with kembench's own code ([`serve`]: the same checks, rounds, scaling and network
//! conditions as the stacks in kembench's process). kembench hands it a [`Job`] as JSON on
//! standard input and reads the results as JSON from its standard output ([`run`]).

use super::certs::Chain;
use super::groups::{CertKind, Group, HelloShape, StackKind};
use super::measure::{self, Plan};
use super::side::Stack;
use crate::record::tls::{TlsConfig, TlsResult};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The environment variable naming a built BoringSSL worker to use instead of building
/// `workers/tls-boring`.
pub const BORING_VAR: &str = "KEMBENCH_TLS_BORING";

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

/// What a worker is asked to measure.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    /// The run's configuration (durations, modes, threads, network conditions).
    pub config: TlsConfig,
    /// The benchmarks, in order.
    pub plans: Vec<JobPlan>,
    /// Logical CPUs (for the capacity figures).
    pub cpus: usize,
}

/// What makes a stack outside kembench's own build: for a group, a chain and a hello shape.
pub type MakeStack = dyn Fn(&Group, &Chain, HelloShape) -> Result<Box<dyn Stack>, String>;

/// The plans of `job` measured on the stack `kind`, each stack made by `make`: every
/// benchmark checked, timed in interleaved rounds, scaled, then measured under the job's
/// network conditions, exactly as `kembench tls` measures its own stacks. Progress goes to
/// standard error.
pub fn serve(
    job: &Job,
    kind: StackKind,
    make: &MakeStack,
    stop: &dyn Fn() -> bool,
) -> Result<Vec<TlsResult>, String> {
    let mut chains: Vec<Chain> = Vec::new();
    for p in &job.plans {
        let c = CertKind::parse(&p.cert).ok_or_else(|| format!("unknown certificate {}", p.cert))?;
        if !chains.iter().any(|x| x.kind == c) {
            chains.push(Chain::generate(c).map_err(|e| format!("making a {} chain: {e}", p.cert))?);
        }
    }
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
                    .expect("made above"),
                hello: HelloShape::parse(&p.hello)
                    .ok_or_else(|| format!("unknown hello shape {}", p.hello))?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let cfg = &job.config;
    let timers = crate::measure::timer::Timers::calibrate();
    let mut benches: Vec<_> = plans
        .iter()
        .map(|p| measure::start_with(p, cfg, None, make(p.group, p.chain, p.hello)))
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
        r.kem_unavailable = Some(format!(
            "kembench's registry has no {} key exchange to time bare",
            kind.as_str()
        ));
        r.signature_unavailable = Some(
            "BoringSSL runs in its own worker: its signatures are not timed bare there (no other \
             library's figure is borrowed)"
                .into(),
        );
        if !cfg.network.is_empty() && r.error.is_none() && r.unavailable.is_none() && !r.interrupted
        {
            eprintln!("tls: {} under network conditions ...", p.label());
            super::network::measure_with(p, make(p.group, p.chain, p.hello), cfg, &mut r, stop);
        }
        out.push(r);
    }
    Ok(out)
}

/// The worker's sources, beside kembench's own.
fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("workers")
        .join("tls-boring")
}

/// BoringSSL's worker: `$KEMBENCH_TLS_BORING`, else built from `workers/tls-boring` into
/// `target` (cargo, `--locked`) on first use and reused; or why there is none.
pub fn boring_worker(target: &Path) -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(BORING_VAR).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("{BORING_VAR}={} is not a file", p.display()))
        };
    }
    let src = sources();
    if !src.join("Cargo.toml").is_file() {
        return Err(format!(
            "BoringSSL's worker's sources are not at {} (a kembench installed without its \
             source tree): build workers/tls-boring and name the executable with {BORING_VAR}",
            src.display()
        ));
    }
    let exe = target.join("release").join("kembench-tls-boring");
    eprintln!(
        "tls: building BoringSSL's worker (workers/tls-boring, BoringSSL from source with cmake; \
         minutes the first time) ..."
    );
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Cargo itself decides whether anything changed (and holds a lock for concurrent calls).
    let out = Command::new(cargo)
        .args(["build", "--release", "--locked", "--quiet", "--manifest-path"])
        .arg(src.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target)
        .output()
        .map_err(|e| format!("cannot run cargo to build BoringSSL's worker: {e}"))?;
    if !out.status.success() || !exe.is_file() {
        let text = String::from_utf8_lossy(&out.stderr);
        let v: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        return Err(format!(
            "building BoringSSL's worker (workers/tls-boring) failed: {}",
            v[v.len().saturating_sub(4)..].join("\n")
        ));
    }
    Ok(exe)
}

/// Runs `job` in the worker `exe` and reads its results; or why it gave none.
pub fn run(exe: &Path, job: &Job) -> Result<Vec<TlsResult>, String> {
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let input = serde_json::to_vec(job).map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(&input)
        .map_err(|e| format!("writing the job to {}: {e}", exe.display()))?;
    let out = child
        .wait_with_output()
        .map_err(|e| format!("waiting for {}: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!("{} ended with {}", exe.display(), out.status));
    }
    serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("reading {}'s results: {e}", exe.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_prebuilt_worker_is_refused_with_its_name() {
        // Only this test sets the variable, in this process.
        std::env::set_var(BORING_VAR, "/nonexistent/kembench-tls-boring");
        let e = boring_worker(Path::new("/nonexistent")).unwrap_err();
        std::env::remove_var(BORING_VAR);
        assert!(e.contains("KEMBENCH_TLS_BORING=/nonexistent"), "{e}");
    }

    #[test]
    fn a_job_with_an_unknown_group_is_refused() {
        let job = Job {
            config: serde_json::from_value(serde_json::json!({
                "stacks": [], "groups": [], "certs": [], "modes": ["full"], "duration_s": 0.1,
                "threads": [], "scaling_duration_s": 0.1, "target_rate": 1.0, "network": [],
                "network_handshakes": 10, "planned": []
            }))
            .unwrap(),
            plans: vec![JobPlan {
                group: "X99".into(),
                cert: "ecdsa-p256".into(),
                hello: "browser".into(),
            }],
            cpus: 1,
        };
        let e = serve(&job, StackKind::Boringssl, &|_, _, _| Err("none".into()), &|| false)
            .unwrap_err();
        assert_eq!(e, "unknown group X99");
    }
}
