//! The correctness gate for builds: `kembench verify` in a child process, over the new builds of
//! one algorithm together with every implementation kembench links for it (so interoperability
//! is checked against the crate-built code). A child that crashes or hangs costs only that
//! algorithm's batch, which is then verified build by build to find the culprit.

use crate::kem::Gate;
use crate::providers::built::manifest;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Why a verify child gave no report: how it ended (`how`), the last step one of `ids` began
/// (the gate names each on stderr), and its last other line.
fn died(how: &str, stderr: &str, ids: &[String]) -> String {
    let step = stderr
        .lines()
        .rev()
        .filter_map(|l| l.strip_prefix("verify step: "))
        .find(|l| ids.iter().any(|id| l.contains(&format!("@{id}:"))))
        .map(|l| l.rsplit(": ").next().unwrap_or(l).to_string());
    let other = stderr
        .lines()
        .rev()
        .find(|l| !l.starts_with("verify step: ") && !l.trim().is_empty())
        .map(|l| format!(" ({})", l.trim()))
        .unwrap_or_default();
    match step {
        Some(s) => format!("the verify process was {how} during {s}{other}"),
        None => format!("the verify process was {how}{other}"),
    }
}

#[derive(Deserialize)]
struct Report {
    implementations: Vec<ImplReport>,
}

#[derive(Deserialize)]
struct ImplReport {
    implementation: String,
    checks: BTreeMap<String, Outcome>,
}

#[derive(Deserialize)]
#[serde(tag = "status", content = "detail", rename_all = "lowercase")]
enum Outcome {
    Pass(String),
    Fail(String),
    Skip(#[allow(dead_code)] String),
}

/// How one verify child ended: its verdict per build id, or why there is none.
fn child(
    root: &Path,
    algorithm: &str,
    ids: &[String],
    limit: Duration,
) -> Result<BTreeMap<String, Gate>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("kembench itself: {e}"))?;
    let mut cmd = Command::new(exe);
    // The names go whole (`--exact-*` are never cut at commas) and match literally (an id
    // made from `-DA=[1]` names that build, not a glob).
    cmd.args(["verify", "--json", "--exact-alg", algorithm, "--impl", "*"]);
    for id in ids {
        cmd.args(["--exact-impl", id]);
    }
    cmd.env(manifest::DIR_VAR, root)
        .env(crate::verify::TRACE_VAR, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot start verify: {e}"))?;
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let (out, hung) = match rx.recv_timeout(limit) {
        Ok(r) => (r.map_err(|e| format!("verify: {e}"))?, false),
        Err(_) => {
            // SAFETY: kill(2) on the child we started; it has not been reaped (the waiting
            // thread is still blocked on it).
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            let out = rx
                .recv()
                .map_err(|_| "verify hung and was killed".to_string())?
                .map_err(|e| format!("verify: {e}"))?;
            (out, true)
        }
    };
    let report: Report = match (hung, serde_json::from_slice(&out.stdout)) {
        (false, Ok(r)) => r,
        _ => {
            use std::os::unix::process::ExitStatusExt;
            let how = if hung {
                format!("still running after {} s and killed", limit.as_secs())
            } else {
                match out.status.signal() {
                    Some(s) => format!("killed by {}", crate::engine::ended::signal_name(s)),
                    None => format!("exited {}", out.status.code().unwrap_or(-1)),
                }
            };
            return Err(died(&how, &String::from_utf8_lossy(&out.stderr), ids));
        }
    };
    let mut v = BTreeMap::new();
    for r in report.implementations {
        if !ids.contains(&r.implementation) {
            continue;
        }
        let failed: Vec<String> = r
            .checks
            .iter()
            .filter_map(|(c, o)| match o {
                Outcome::Fail(why) => Some(format!("{c}: {why}")),
                _ => None,
            })
            .collect();
        let gate = if failed.is_empty() {
            let passed: Vec<&str> = r
                .checks
                .iter()
                .filter_map(|(c, o)| matches!(o, Outcome::Pass(_)).then_some(c.as_str()))
                .collect();
            let kat = r.checks.get("known-answers").and_then(|o| match o {
                Outcome::Pass(d) => Some(d.clone()),
                _ => None,
            });
            Gate::Passed(format!(
                "{} checks passed{}",
                passed.len(),
                kat.map(|k| format!(" (known answers: {k})"))
                    .unwrap_or_default()
            ))
        } else {
            Gate::Failed(failed.join("; "))
        };
        v.insert(r.implementation, gate);
    }
    Ok(v)
}

/// The gate's verdict for each of `ids` (builds of `algorithm` registered under `root`); a
/// child still running after `limit` is killed.
pub fn verify(
    root: &Path,
    algorithm: &str,
    ids: &[String],
    limit: Duration,
) -> BTreeMap<String, Gate> {
    match child(root, algorithm, ids, limit) {
        Ok(mut v) => {
            for id in ids {
                v.entry(id.clone()).or_insert_with(|| {
                    Gate::Failed("verify did not report this build (it could not be loaded)".into())
                });
            }
            v
        }
        Err(_) if ids.len() > 1 => {
            // One of them crashed or hung the batch: one child per build finds which.
            ids.iter()
                .flat_map(|id| verify(root, algorithm, std::slice::from_ref(id), limit))
                .collect()
        }
        Err(why) => ids
            .iter()
            .map(|id| (id.clone(), Gate::Failed(why.clone())))
            .collect(),
    }
}
