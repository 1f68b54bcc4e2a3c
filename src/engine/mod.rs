//! What the measuring engines (`run`, `throughput`, `profile`, `tls`, `builds`) share, below
//! all of them so that no engine imports another: the quick correctness check before timing
//! ([`quick_check`]), pinning to a CPU ([`cpu`]), and how a child process that gave no answer
//! ended and the failure recorded for it ([`ended`]), and the one line protocol every worker
//! process speaks ([`wire`]).

pub mod cpu;
pub mod ended;
pub mod wire;

use crate::kem::{Gate, Kem};
use crate::verify::{self, Outcome};

/// The architecture `k` runs on under emulation, if it is a foreign build (counted by
/// `profile`, never timed); `None` for everything that runs on this machine.
pub fn foreign_arch(k: &dyn Kem) -> Option<crate::arch::Arch> {
    crate::arch::Arch::of(k.build()?.arch.as_deref())
}

/// The quick gate before timing: a few round trips and the canary check. The full gate is
/// `kembench verify`; a build compiled at run time must have passed it (`kembench builds`
/// runs it on every new build) before it is timed.
pub fn quick_check(k: &dyn Kem) -> Outcome {
    if let Some(a) = foreign_arch(k) {
        return Outcome::Fail(format!(
            "a build for {a} runs under emulation ({}): it is verified and counted by `kembench \
             profile`, never timed (time under an emulator says nothing about the machine)",
            a.qemu()
        ));
    }
    correctness_check(k)
}

/// The quick gate without the refusal of foreign builds: the build's gate verdict, then a few
/// round trips and the canary check (under emulation for a foreign build, as `profile` counts
/// it).
pub fn correctness_check(k: &dyn Kem) -> Outcome {
    if let Some(b) = k.build() {
        match &b.gate {
            Gate::Passed(_) => {}
            Gate::Failed(why) => {
                return Outcome::Fail(format!("this build failed the correctness gate: {why}"))
            }
            Gate::NotRun => {
                return Outcome::Fail(
                    "this build has not been through the correctness gate (run `kembench \
                     builds` again)"
                        .into(),
                )
            }
        }
    }
    let opts = verify::Options {
        min_round_trips: 3,
        max_round_trips: 3,
        ..verify::Options::default()
    };
    match verify::guarded(|| verify::checks::round_trips(k, &opts)) {
        Outcome::Pass(_) => verify::guarded(|| verify::checks::canaries(k)),
        other => other,
    }
}
