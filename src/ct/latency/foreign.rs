//! The variable-latency screen of a foreign-architecture build (s390x, aarch64, ...), which
//! runs under QEMU: callgrind cannot run its code, so the screen runs `kembench profile` on
//! the build, whose emulated path counts one call per operation with kembench's QEMU plugin
//! and names every division instruction the call executed, by address, with its function,
//! its line where the program has line tables, and its executions
//! ([`crate::record::profile::DivisionSite`]). Each one is a finding.
//!
//! What this path sees: the instructions the emulated CPU executed in the call, named by
//! binutils' disassembly of the program; the divisions are the mnemonics of
//! `profile/mix.rs`'s divide class for that architecture. What it does not see: whether the
//! operands are secret (no secrets are tracked under QEMU), and instructions that are slow on
//! some CPUs of the architecture for other reasons.

use crate::ct::Context;
use crate::kem::Kem;
use crate::kem::Op;
use crate::record::ct::{Finding, FindingKind, Ran, Screen, ScreenResult, SecretOperands};
use crate::record::profile::{OpProfile, ProfileRecord};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Why a foreign build's division operands are unknown.
pub const OPERANDS_UNKNOWN_FOREIGN: &str = "whether the operands are secret was not \
     determined: QEMU's plugin counts executions and tracks no secrets; read the source at the \
     line given";

/// Screens `ops` of the foreign build `k` through a `kembench profile` child.
pub fn screen(ctx: &Context, k: &dyn Kem, arch: &str, ops: &[Op]) -> Vec<ScreenResult> {
    let meta = k.meta();
    let dir = ctx.work_dir.join(format!(
        "latency-foreign-{}",
        super::folder_name(&meta.label())
    ));
    let run = std::fs::create_dir_all(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))
        .and_then(|()| profile(ctx, meta.algorithm.name, &meta.implementation, ops, &dir));
    let _ = std::fs::remove_dir_all(&dir);
    match run {
        Ok((record, seconds)) => results(&record, &meta.implementation, arch, ops, seconds),
        Err(why) => ops
            .iter()
            .map(|&op| super::failed(op, why.clone()))
            .collect(),
    }
}

/// Runs `kembench profile` on one implementation, one seed, and reads its record.
fn profile(
    ctx: &Context,
    algorithm: &str,
    implementation: &str,
    ops: &[Op],
    dir: &Path,
) -> Result<(ProfileRecord, f64), String> {
    let json = dir.join("profile.json");
    let ops_arg: Vec<&str> = ops.iter().map(|o| o.as_str()).collect();
    let started = Instant::now();
    let out = Command::new(&ctx.exe)
        .args(["profile", "--alg", algorithm, "--impl", implementation])
        .args(["--ops", &ops_arg.join(","), "--seeds", "1", "--no-store"])
        .arg("--json")
        .arg(&json)
        .arg("--timeout")
        .arg(ctx.worker_timeout.as_secs().max(1).to_string())
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{} profile could not start: {e}", ctx.exe.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    let text = std::fs::read_to_string(&json).map_err(|e| {
        format!(
            "`kembench profile` under QEMU wrote no record ({}; exit {}): {}",
            e,
            out.status,
            super::tail(&String::from_utf8_lossy(&out.stderr), 1500)
        )
    })?;
    let record: ProfileRecord = serde_json::from_str(&text)
        .map_err(|e| format!("the profile record of the QEMU run cannot be read: {e}"))?;
    Ok((record, seconds))
}

/// One result per operation from the profile record.
fn results(
    record: &ProfileRecord,
    implementation: &str,
    arch: &str,
    ops: &[Op],
    seconds: f64,
) -> Vec<ScreenResult> {
    let Some(r) = record
        .results
        .iter()
        .find(|r| r.implementation == implementation)
    else {
        return ops
            .iter()
            .map(|&op| super::failed(op, format!("the QEMU profile has no result for {implementation}")))
            .collect();
    };
    let problems = r.problems();
    ops.iter()
        .map(|&op| match r.op(op) {
            Some(p) => screened(p, arch, seconds),
            None if !problems.is_empty() => super::failed(op, problems.join("; ")),
            None => super::failed(
                op,
                format!("the QEMU profile did not count {}", op.as_str()),
            ),
        })
        .collect()
}

fn screened(p: &OpProfile, arch: &str, seconds: f64) -> ScreenResult {
    let Some(e) = &p.emulated else {
        return super::failed(
            p.operation,
            "the profile of this build was not counted under QEMU".into(),
        );
    };
    let findings = e
        .division_sites
        .iter()
        .map(|d| Finding {
            kind: FindingKind::VariableLatency {
                mnemonic: d
                    .instruction
                    .split_whitespace()
                    .next()
                    .unwrap_or("div")
                    .to_lowercase(),
            },
            function: d.function.clone(),
            stack: Vec::new(),
            object: Some(format!("driver ({arch})")),
            line: d.line.clone(),
            count_per_call: d.executions,
            secret_operands: Some(SecretOperands::Unknown),
            detail: format!(
                "{} at {:#x}; {OPERANDS_UNKNOWN_FOREIGN}",
                d.instruction, d.address
            ),
            explained: None,
        })
        .collect();
    ScreenResult {
        screen: Screen::Latency,
        operation: p.operation,
        ran: Ran::Screened,
        how: format!(
            "{} ran {} (`kembench profile`, {seconds:.1} s): {} instructions, each named by \
             binutils' disassembly of the {arch} program; every division mnemonic of {arch} is a \
             finding",
            e.emulator, p.call, p.analysis.instructions
        ),
        findings,
        timing: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real record: `kembench profile` of Kyber768 (PQClean, gcc -Os) for aarch64, decaps,
    /// under QEMU (its function lists and stacks cut), with KyberSlash's `udiv`s.
    const FIXTURE: &str = include_str!("../../../tests/data/profile-aarch64.json");

    #[test]
    fn every_division_site_is_a_finding_and_what_was_not_counted_fails() {
        let record: ProfileRecord = serde_json::from_str(FIXTURE).expect("the fixture loads");
        let implementation = record.results[0].implementation.clone();
        let out = results(&record, &implementation, "aarch64", &[Op::Decaps, Op::Keygen], 1.0);
        assert_eq!(out[0].ran, Ran::Screened, "{:?}", out[0].ran);
        let sites = &record.results[0].operations[0]
            .emulated
            .as_ref()
            .expect("emulated")
            .division_sites;
        assert!(!sites.is_empty());
        assert_eq!(out[0].findings.len(), sites.len());
        let tomsg = out[0]
            .findings
            .iter()
            .find(|f| f.function.ends_with("_poly_tomsg"))
            .expect("KyberSlash1's division is found");
        assert_eq!(tomsg.kind.short(), "udiv");
        assert_eq!(tomsg.count_per_call, 256);
        assert_eq!(tomsg.secret_operands, Some(SecretOperands::Unknown));
        assert!(
            matches!(out[1].ran, Ran::Failed(_)),
            "keygen was not counted: {:?}",
            out[1].ran
        );
        let none = results(&record, "no/such", "aarch64", &[Op::Decaps], 1.0);
        assert!(matches!(none[0].ran, Ran::Failed(_)));
    }
}
