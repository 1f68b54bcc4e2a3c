//! The profile worker: a `kembench profile-worker` process that runs under callgrind, loads one
//! implementation, fixes its randomness from the seed, prepares each operation's inputs
//! outside collection, warms it up, and then makes one call inside [`kembench_profiled_op`],
//! which callgrind collects and dumps. It reports on stdout, on the engines' line protocol ([`WIRE`]), which dump
//! holds which operation.

use crate::kem::{Kem, KemError};
use crate::measure::counters::{Counters, Pmu};
use crate::kem::Op;
use crate::measure::sampler::Workload;
use crate::providers::registry::Registry;
use crate::record::profile::RandomnessNote;
use crate::verify::Outcome;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

/// Marks a message line on the worker's stdout.
pub const WIRE: crate::engine::wire::Wire = crate::engine::wire::Wire::new("KEMBENCH-PROFILE ");

/// What a worker says.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Message {
    /// How the seed fixed the implementation's random draws.
    Randomness(RandomnessNote),
    /// `op` was profiled; callgrind's dump number `dump` (1-based) holds it.
    Profiled {
        /// The operation.
        op: Op,
        /// The dump's number.
        dump: usize,
        /// What the call was.
        call: String,
    },
    /// `op` could not be profiled.
    Failed {
        /// The operation.
        op: Op,
        /// Why.
        error: String,
    },
    /// The CPU features this process sees.
    Features(Vec<String>),
    /// The quick correctness gate's outcome (the native worker).
    Checked(Outcome),
    /// Real hardware counters per call of `op` run natively (the native worker).
    Native {
        /// The operation.
        op: Op,
        /// The counters, or why there are none.
        counters: Counters,
    },
}

/// What one worker profiles.
#[derive(Debug, Clone)]
pub struct WorkerArgs {
    /// `algorithm@implementation`.
    pub label: String,
    /// The seed.
    pub seed: u64,
    /// Operations, in order (those the implementation lacks are skipped).
    pub ops: Vec<Op>,
    /// Offer the mock implementations.
    pub include_mock: bool,
    /// Route liboqs's SHA-3 through kembench's counting wrappers.
    pub sha3_probe: bool,
    /// Run natively (not under valgrind): the quick correctness gate, then the hardware
    /// counters of each operation where the machine has them.
    pub native: bool,
}

static PROFILED_CALLS: AtomicU64 = AtomicU64::new(0);

/// The marker: callgrind collects only while this function is on the stack
/// (`--toggle-collect`) and dumps when it returns (`--dump-after`). Its own cost, a handful of
/// instructions for the call and the counter, is part of every profiled count.
#[no_mangle]
#[inline(never)]
pub fn kembench_profiled_op(f: &mut dyn FnMut() -> Result<(), KemError>) -> Result<(), KemError> {
    let r = f();
    // Work after the call, so that it is never a tail call and the marker stays on the stack
    // while the operation runs.
    PROFILED_CALLS.fetch_add(1, Ordering::Relaxed);
    r
}

fn send(m: &Message) -> std::io::Result<()> {
    WIRE.send(m)
}

/// Parses one line of a worker's stdout: the message, or `None` for anything else (a C
/// library may print there).
pub fn parse(line: &str) -> Option<Message> {
    WIRE.parse(line)
}

/// The 32-byte seed the implementation's generators are fixed with: SHA-256 of a label and
/// the seed number, so seeds 0, 1, 2 ... give unrelated streams.
pub fn seed_bytes(seed: u64) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(b"kembench profile seed");
    h.update(seed.to_le_bytes());
    h.finalize().into()
}

/// Prints the CPU features this process sees.
pub fn features() -> anyhow::Result<()> {
    send(&Message::Features(super::valgrind::cpu_features()))?;
    Ok(())
}

/// Serves one profile, on a thread with a stack of
/// [`MEGABYTE_KEYS_STACK`](crate::kem::MEGABYTE_KEYS_STACK) (megabyte keys live on the stack
/// in some libraries).
pub fn serve(a: WorkerArgs) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name("kembench-profile".into())
        .stack_size(crate::kem::MEGABYTE_KEYS_STACK)
        .spawn(move || serve_here(&a))?
        .join()
        .map_err(|_| anyhow::anyhow!("the profiling thread panicked"))?
}

fn serve_here(a: &WorkerArgs) -> anyhow::Result<()> {
    let registry = Registry::new(a.include_mock);
    let Some(k) = registry.get(&a.label) else {
        anyhow::bail!("{} is not an implementation in this build", a.label);
    };
    let k: &dyn Kem = k.as_ref();
    if a.native {
        return serve_native(k, &a.ops);
    }
    let seed = seed_bytes(a.seed);
    let mut note = super::randomness::fix(k, &seed);
    let ops: Vec<Op> = a
        .ops
        .iter()
        .copied()
        .filter(|op| op.offered_by(k))
        .collect();
    // Where the library's draws cannot be fixed but it has derandomized entry points that
    // cover every operation asked for, those are profiled instead, with seeds from `seed`.
    let derand = (!note.fixed && Derand::covers(k, &ops)).then(|| Derand::new(k, &seed));
    if derand.is_some() {
        note = RandomnessNote {
            fixed: true,
            how: format!(
                "keygen and encaps profiled through the derandomized entry points (keypair_derand, \
                 encaps_derand) with seeds from the profile seed, and decaps on the key and \
                 ciphertext they made; the library's own draws could not be fixed: {}",
                note.how
            ),
        };
    }
    send(&Message::Randomness(note))?;
    // The probe exists for liboqs only; other implementations are profiled as usual.
    if a.sha3_probe && k.meta().provider() == "liboqs" {
        super::randomness::install_sha3_probe(k)?;
    }
    let mut dumps = 0;
    for op in ops {
        let done = match &derand {
            Some(d) => d.profile(op, &mut dumps).map(|()| Derand::call_of(op)),
            None => profile_op(k, op, &mut dumps).map(|()| super::call_of(op)),
        };
        match done {
            Ok(call) => send(&Message::Profiled {
                op,
                dump: dumps,
                call: call.to_string(),
            })?,
            Err(e) => send(&Message::Failed {
                op,
                error: e.to_string(),
            })?,
        }
    }
    Ok(())
}

/// The native worker: the quick correctness gate (in a process of its own, so that an
/// implementation that crashes or hangs ends only this process), then, if it passed, the
/// hardware counters of each operation.
fn serve_native(k: &dyn Kem, ops: &[Op]) -> anyhow::Result<()> {
    let outcome = crate::engine::quick_check(k);
    let failed = outcome.failed();
    send(&Message::Checked(outcome))?;
    if failed {
        return Ok(());
    }
    let mut pmu = Pmu::open();
    for op in ops.iter().copied().filter(|op| op.offered_by(k)) {
        send(&Message::Native {
            op,
            counters: native_counters(k, op, &mut pmu),
        })?;
    }
    Ok(())
}

/// Real counters per call of `op` run natively, or why there are none.
fn native_counters(k: &dyn Kem, op: Op, pmu: &mut Result<Pmu, String>) -> Counters {
    const CALLS: u64 = 16;
    let pmu = match pmu {
        Ok(p) => p,
        Err(why) => return Counters::Unavailable(why.clone()),
    };
    // A warm-up of as many calls, then the counted ones.
    let counted = Workload::new(k, op, CALLS as usize).and_then(|mut w| {
        w.ready(CALLS as usize)?;
        (0..CALLS).try_for_each(|_| w.call())?;
        w.count(pmu, CALLS)
    });
    counted.unwrap_or_else(|e| Counters::Unavailable(format!("{}: {e}", op.as_str())))
}

/// Prepares `op`'s inputs and warms it up outside collection, then makes one call inside the
/// marker. `dumps` counts the marker's returns (callgrind's dump numbers).
fn profile_op(k: &dyn Kem, op: Op, dumps: &mut usize) -> Result<(), KemError> {
    // One input: the warm-up and the profiled call see the same public key or ciphertext
    // (a keygen makes a fresh key each time).
    let mut w = Workload::new(k, op, 1)?;
    w.ready(2)?;
    // Warm-up: lazy initialisation, CPU-feature detection, first-touch page faults and
    // one-time table setup land here, not in the profiled call.
    w.call()?;
    w.ready(1)?;
    let r = kembench_profiled_op(&mut || w.call());
    *dumps += 1;
    r
}

/// Keygen, encaps and decaps through the derandomized entry points, for libraries whose own
/// draws cannot be fixed (PQClean): every input comes from the profile seed.
struct Derand<'a> {
    k: &'a dyn Kem,
    /// The key-generation seed of the profiled key.
    key_seed: Vec<u8>,
    /// The encapsulation seed.
    enc_seed: Vec<u8>,
    /// A second key-generation seed, for the warm-up.
    warm_seed: Vec<u8>,
}

impl<'a> Derand<'a> {
    /// Whether the derandomized entry points cover `ops`.
    fn covers(k: &dyn Kem, ops: &[Op]) -> bool {
        let lens = k.seed_lens();
        lens.keypair.is_some()
            && lens.encaps.is_some()
            && ops
                .iter()
                .all(|op| matches!(op, Op::Keygen | Op::Encaps | Op::Decaps))
    }

    fn new(k: &'a dyn Kem, seed: &[u8; 32]) -> Derand<'a> {
        use rand::{RngCore, SeedableRng};
        let mut rng = rand::rngs::StdRng::from_seed(*seed);
        let lens = k.seed_lens();
        let mut draw = |n: Option<usize>| {
            let mut v = vec![0u8; n.unwrap_or(0)];
            rng.fill_bytes(&mut v);
            v
        };
        Derand {
            k,
            key_seed: draw(lens.keypair),
            enc_seed: draw(lens.encaps),
            warm_seed: draw(lens.keypair),
        }
    }

    fn call_of(op: Op) -> &'static str {
        match op {
            Op::Keygen => "one keypair_derand from a seed (no draw of the library's own)",
            Op::Encaps => "one encaps_derand to a public key given as bytes, from a seed",
            _ => "one decapsulation with a kept secret key (as `run` times it)",
        }
    }

    fn keypair(&self, seed: &[u8]) -> Result<(Vec<u8>, Vec<u8>), KemError> {
        let a = self.k.meta().algorithm;
        let (mut pk, mut sk) = (vec![0; a.pk_len], vec![0; a.sk_len]);
        self.k.keypair_derand(seed, &mut pk, &mut sk)?;
        Ok((pk, sk))
    }

    fn encaps(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        self.k.encaps_derand(pk, &self.enc_seed, ct, ss)
    }

    /// Prepares `op`'s inputs and warms it up outside collection, then one call inside the
    /// marker.
    fn profile(&self, op: Op, dumps: &mut usize) -> Result<(), KemError> {
        let a = self.k.meta().algorithm;
        let (mut ct, mut ss) = (vec![0; a.ct_len], vec![0; a.ss_len]);
        let r = match op {
            Op::Keygen => {
                let (mut pk, mut sk) = (vec![0; a.pk_len], vec![0; a.sk_len]);
                self.k.keypair_derand(&self.warm_seed, &mut pk, &mut sk)?;
                kembench_profiled_op(&mut || {
                    self.k.keypair_derand(&self.key_seed, &mut pk, &mut sk)
                })
            }
            Op::Encaps => {
                let (pk, _) = self.keypair(&self.key_seed)?;
                self.encaps(&pk, &mut ct, &mut ss)?;
                kembench_profiled_op(&mut || self.encaps(&pk, &mut ct, &mut ss))
            }
            _ => {
                let (pk, sk) = self.keypair(&self.key_seed)?;
                self.encaps(&pk, &mut ct, &mut ss)?;
                let mut kept = self.k.sk_import(&sk)?;
                self.k.decaps_kept(&mut kept, &ct, &mut ss)?;
                kembench_profiled_op(&mut || self.k.decaps_kept(&mut kept, &ct, &mut ss))
            }
        };
        *dumps += 1;
        r
    }
}
