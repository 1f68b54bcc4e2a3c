//! The worker of `kembench ct`: a `kembench ct-worker` process that loads one implementation,
//! makes its random draws secret, prepares one operation's inputs with memcheck's error
//! reporting off, and makes one call of the operation inside [`kembench_ct_screened`] with
//! error reporting on. Under memcheck the errors of that call are the secret-flow screen's
//! findings; under callgrind (`--toggle-collect=kembench_ct_screened`) its instructions are
//! the latency screen's. It reports on stdout, behind [`PREFIX`].
//!
//! What is secret, as liboqs's constant-time tests have it: every byte of the seeded stream
//! (keys and everything derived from them), or where a library's draws cannot be fixed, the
//! seeds of its derandomized entry points. What is declassified: the public key once made, the
//! ciphertext once made, and every output once the screened call has returned.

use crate::kem::{Kem, KemError};
use crate::measure::sampler::Op;
use crate::providers::registry::Registry;
use crate::providers::secrets;
use serde::{Deserialize, Serialize};
use std::io::Write;

/// Marks a message line on the worker's stdout.
pub const PREFIX: &str = "KEMBENCH-CT ";

/// The marker: the screened call runs inside it.
pub const MARKER: &str = "kembench_ct_screened";

/// What a worker says.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Message {
    /// The call was made; how the secrets were marked.
    Screened {
        /// What was secret and what was declassified, in words.
        how: String,
    },
    /// The operation cannot be screened for this implementation, and why.
    Cannot(String),
    /// The call failed.
    Failed(String),
}

/// What one worker screens.
#[derive(Debug, Clone)]
pub struct WorkerArgs {
    /// `algorithm@implementation`.
    pub label: String,
    /// The operation.
    pub op: Op,
    /// The seed of the draws.
    pub seed: u64,
    /// Offer the mock implementations.
    pub include_mock: bool,
}

/// The marker: one call of the screened operation. Error reporting is on only while it runs.
#[no_mangle]
#[inline(never)]
pub fn kembench_ct_screened(f: &mut dyn FnMut() -> Result<(), KemError>) -> Result<(), KemError> {
    secrets::report_errors();
    let r = f();
    secrets::silence_errors();
    // Work after the call, so that it is never a tail call.
    std::hint::black_box(&r);
    r
}

fn send(m: &Message) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{PREFIX}{}",
        serde_json::to_string(m).expect("messages always serialise")
    )?;
    out.flush()
}

/// Parses one line of a worker's stdout.
pub fn parse(line: &str) -> Option<Message> {
    serde_json::from_str(line.strip_prefix(PREFIX)?).ok()
}

/// The 32-byte seed of the draws: SHA-256 of a label and the seed number.
pub fn seed_bytes(seed: u64) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(b"kembench ct seed");
    h.update(seed.to_le_bytes());
    h.finalize().into()
}

/// The operations `ct` screens: those that handle secrets.
pub const OPS: [Op; 3] = [Op::Keygen, Op::Encaps, Op::Decaps];

/// Serves one screen, on a thread with a big stack (megabyte keys live on the stack in some
/// libraries).
pub fn serve(a: WorkerArgs) -> anyhow::Result<()> {
    secrets::silence_errors();
    std::thread::Builder::new()
        .name("kembench-ct".into())
        .stack_size(crate::kem::MEGABYTE_KEYS_STACK)
        .spawn(move || serve_here(&a))?
        .join()
        .map_err(|_| anyhow::anyhow!("the screening thread panicked"))?
}

fn serve_here(a: &WorkerArgs) -> anyhow::Result<()> {
    // The new thread reports errors unless told otherwise.
    secrets::silence_errors();
    let registry = Registry::new(a.include_mock);
    let Some(k) = registry.get(&a.label) else {
        anyhow::bail!("{} is not an implementation in this build", a.label);
    };
    let k: &dyn Kem = k.as_ref();
    if !OPS.contains(&a.op) {
        send(&Message::Cannot(format!(
            "{} handles no secret of its own: ct screens keygen, encaps and decaps",
            a.op.as_str()
        )))?;
        return Ok(());
    }
    let seed = seed_bytes(a.seed);
    let r = k.fix_randomness(&seed);
    let message = if r.is_fixed() {
        secrets::draws_secret(true);
        drawn(k, a.op, r.how())
    } else if derandomized_covers(k, a.op) {
        derandomized(k, a.op, &seed)
    } else {
        Ok(Message::Cannot(format!(
            "its random draws cannot be marked secret: {}; and it has no derandomized entry \
             point for {} whose seed kembench could mark instead",
            r.how(),
            a.op.as_str()
        )))
    };
    send(&message.unwrap_or_else(|e| Message::Failed(e.to_string())))?;
    Ok(())
}

/// Screens `op` with every draw of the seeded stream secret.
fn drawn(k: &dyn Kem, op: Op, how: &str) -> Result<Message, KemError> {
    let a = k.meta().algorithm;
    let (mut pk, mut ct, mut ss) = (vec![0; a.pk_len], vec![0; a.ct_len], vec![0; a.ss_len]);
    let marked = format!(
        "every random byte secret ({how}); the public key, the ciphertext and the outputs \
         declassified"
    );
    match op {
        Op::Keygen => {
            let mut kept = None;
            kembench_ct_screened(&mut || {
                kept = Some(k.keypair_kept(&mut pk)?);
                Ok(())
            })?;
            secrets::declassify(&pk);
        }
        Op::Encaps => {
            let _sk = k.keypair_kept(&mut pk)?;
            secrets::declassify(&pk);
            kembench_ct_screened(&mut || k.encaps(&pk, &mut ct, &mut ss))?;
            secrets::declassify(&ct);
            secrets::declassify(&ss);
        }
        _ => {
            let mut sk = k.keypair_kept(&mut pk)?;
            secrets::declassify(&pk);
            k.encaps(&pk, &mut ct, &mut ss)?;
            secrets::declassify(&ct);
            kembench_ct_screened(&mut || k.decaps_kept(&mut sk, &ct, &mut ss))?;
            secrets::declassify(&ss);
        }
    }
    Ok(Message::Screened { how: marked })
}

/// Whether the derandomized entry points can make `op`'s inputs from seeds.
fn derandomized_covers(k: &dyn Kem, op: Op) -> bool {
    let lens = k.seed_lens();
    match op {
        Op::Keygen => lens.keypair.is_some(),
        _ => lens.keypair.is_some() && lens.encaps.is_some(),
    }
}

/// Screens `op` through the derandomized entry points, their seeds marked secret.
fn derandomized(k: &dyn Kem, op: Op, seed: &[u8; 32]) -> Result<Message, KemError> {
    use rand::{RngCore, SeedableRng};
    let mut rng = rand::rngs::StdRng::from_seed(*seed);
    let lens = k.seed_lens();
    let mut draw = |n: Option<usize>| {
        let mut v = vec![0u8; n.unwrap_or(0)];
        rng.fill_bytes(&mut v);
        secrets::mark_secret(&v);
        v
    };
    let (key_seed, enc_seed) = (draw(lens.keypair), draw(lens.encaps));
    let a = k.meta().algorithm;
    let (mut pk, mut sk) = (vec![0; a.pk_len], vec![0; a.sk_len]);
    let (mut ct, mut ss) = (vec![0; a.ct_len], vec![0; a.ss_len]);
    let how = "the seeds of the derandomized entry points secret (keypair_derand, encaps_derand: \
               the library's own draws cannot be fixed), the secret key kept as the library \
               keeps it; the public key, the ciphertext and the outputs declassified";
    match op {
        Op::Keygen => {
            kembench_ct_screened(&mut || k.keypair_derand(&key_seed, &mut pk, &mut sk))?;
            secrets::declassify(&pk);
        }
        Op::Encaps => {
            k.keypair_derand(&key_seed, &mut pk, &mut sk)?;
            secrets::declassify(&pk);
            kembench_ct_screened(&mut || k.encaps_derand(&pk, &enc_seed, &mut ct, &mut ss))?;
            secrets::declassify(&ct);
        }
        _ => {
            k.keypair_derand(&key_seed, &mut pk, &mut sk)?;
            secrets::declassify(&pk);
            k.encaps_derand(&pk, &enc_seed, &mut ct, &mut ss)?;
            secrets::declassify(&ct);
            let mut kept = k.sk_import(&sk)?;
            kembench_ct_screened(&mut || k.decaps_kept(&mut kept, &ct, &mut ss))?;
        }
    }
    secrets::declassify(&ss);
    Ok(Message::Screened { how: how.into() })
}
