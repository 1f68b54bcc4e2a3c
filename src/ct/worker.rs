//! The worker of `kembench ct`: a `kembench ct-worker` process that loads one implementation,
//! makes its random draws secret, and for each operation asked for prepares the inputs with
//! memcheck's error reporting off and makes one call inside the operation's marker
//! ([`MARKERS`]: `kembench_ct_keygen`, `kembench_ct_encaps`, `kembench_ct_decaps`) with error
//! reporting on. Under memcheck the errors whose stack holds a marker are that operation's
//! secret-flow findings; under callgrind (`--toggle-collect` and `--dump-after` of each
//! marker) each dump holds one operation's instructions for the latency screen. It reports on
//! stdout, on the engines' line protocol ([`WIRE`]), one message per operation, in the order asked.
//!
//! What is secret, as liboqs's constant-time tests have it: every byte of the seeded stream
//! (keys and everything derived from them), or where a library's draws cannot be fixed, the
//! seeds of its derandomized entry points. What is declassified: the public key once made, the
//! ciphertext once made, and every output once the screened call has returned.

use crate::kem::{Kem, KemError};
use crate::kem::Op;
use crate::providers::registry::Registry;
use crate::providers::secrets;
use serde::{Deserialize, Serialize};

/// Marks a message line on the worker's stdout.
pub const WIRE: crate::engine::wire::Wire = crate::engine::wire::Wire::new("KEMBENCH-CT ");

/// The marker of each screened operation: the one call runs inside it.
pub const MARKERS: [(Op, &str); 3] = [
    (Op::Keygen, "kembench_ct_keygen"),
    (Op::Encaps, "kembench_ct_encaps"),
    (Op::Decaps, "kembench_ct_decaps"),
];

/// The marker of `op`, if `ct` screens it.
pub fn marker(op: Op) -> Option<&'static str> {
    MARKERS.iter().find(|(o, _)| *o == op).map(|(_, m)| *m)
}

/// What a worker says about one operation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Message {
    /// The call was made (inside the operation's marker); how the secrets were marked.
    Screened {
        /// The operation.
        op: Op,
        /// What was secret and what was declassified, in words.
        how: String,
    },
    /// The operation cannot be screened for this implementation, and why.
    Cannot {
        /// The operation.
        op: Op,
        /// Why.
        why: String,
    },
    /// The call failed.
    Failed {
        /// The operation.
        op: Op,
        /// How.
        error: String,
    },
}

/// What one worker screens.
#[derive(Debug, Clone)]
pub struct WorkerArgs {
    /// `algorithm@implementation`.
    pub label: String,
    /// The operations, in order.
    pub ops: Vec<Op>,
    /// The seed of the draws.
    pub seed: u64,
    /// Offer the mock implementations.
    pub include_mock: bool,
}

/// One call inside a marker, error reporting on only while it runs. `which` differs per
/// marker, so that the three markers never compile to identical code: the compiler or linker
/// would fold identical functions into one address, and memcheck would name one marker for
/// every operation's errors.
#[inline(always)]
fn screened(which: u8, f: &mut dyn FnMut() -> Result<(), KemError>) -> Result<(), KemError> {
    std::hint::black_box(which);
    secrets::report_errors();
    let r = f();
    secrets::silence_errors();
    // Work after the call, so that it is never a tail call and the marker stays on the stack.
    std::hint::black_box(&r);
    std::hint::black_box(which);
    r
}

/// The marker of a screened key generation.
#[no_mangle]
#[inline(never)]
pub fn kembench_ct_keygen(f: &mut dyn FnMut() -> Result<(), KemError>) -> Result<(), KemError> {
    screened(1, f)
}

/// The marker of a screened encapsulation.
#[no_mangle]
#[inline(never)]
pub fn kembench_ct_encaps(f: &mut dyn FnMut() -> Result<(), KemError>) -> Result<(), KemError> {
    screened(2, f)
}

/// The marker of a screened decapsulation.
#[no_mangle]
#[inline(never)]
pub fn kembench_ct_decaps(f: &mut dyn FnMut() -> Result<(), KemError>) -> Result<(), KemError> {
    screened(3, f)
}

fn send(m: &Message) -> std::io::Result<()> {
    WIRE.send(m)
}

/// Parses one line of a worker's stdout.
pub fn parse(line: &str) -> Option<Message> {
    WIRE.parse(line)
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
    let r = std::thread::Builder::new()
        .name("kembench-ct".into())
        .stack_size(crate::kem::MEGABYTE_KEYS_STACK)
        .spawn(move || serve_here(&a))?
        .join()
        .map_err(|_| anyhow::anyhow!("the screening thread panicked"));
    secrets::report_errors();
    r?
}

fn serve_here(a: &WorkerArgs) -> anyhow::Result<()> {
    // The new thread reports errors unless told otherwise.
    secrets::silence_errors();
    let registry = Registry::new(a.include_mock);
    let Some(k) = registry.get(&a.label) else {
        anyhow::bail!("{} is not an implementation in this build", a.label);
    };
    let k: &dyn Kem = k.as_ref();
    let seed = seed_bytes(a.seed);
    let r = k.fix_randomness(&seed);
    secrets::draws_secret(r.is_fixed());
    for &op in &a.ops {
        let message = if !OPS.contains(&op) {
            Message::Cannot {
                op,
                why: format!(
                    "{} handles no secret of its own: ct screens keygen, encaps and decaps",
                    op.as_str()
                ),
            }
        } else if r.is_fixed() {
            done(op, drawn(k, op, r.how()))
        } else if derandomized_covers(k, op) {
            done(op, derandomized(k, op, &seed))
        } else {
            Message::Cannot {
                op,
                why: format!(
                    "its random draws cannot be marked secret: {}; and it has no derandomized \
                     entry point for {} whose seed kembench could mark instead",
                    r.how(),
                    op.as_str()
                ),
            }
        };
        send(&message)?;
    }
    // Reporting back on as the thread ends (valgrind warns of a thread that exits silenced).
    secrets::report_errors();
    Ok(())
}

fn done(op: Op, r: Result<String, KemError>) -> Message {
    match r {
        Ok(how) => Message::Screened { op, how },
        Err(e) => Message::Failed {
            op,
            error: e.to_string(),
        },
    }
}

/// Runs `f` inside `op`'s marker.
fn in_marker(op: Op, f: &mut dyn FnMut() -> Result<(), KemError>) -> Result<(), KemError> {
    match op {
        Op::Keygen => kembench_ct_keygen(f),
        Op::Encaps => kembench_ct_encaps(f),
        _ => kembench_ct_decaps(f),
    }
}

/// Screens `op` with every draw of the seeded stream secret.
fn drawn(k: &dyn Kem, op: Op, how: &str) -> Result<String, KemError> {
    let a = k.meta().algorithm;
    let (mut pk, mut ct, mut ss) = (vec![0; a.pk_len], vec![0; a.ct_len], vec![0; a.ss_len]);
    let marked = format!(
        "every random byte secret ({how}); the public key, the ciphertext and the outputs \
         declassified"
    );
    match op {
        Op::Keygen => {
            let mut kept = None;
            in_marker(op, &mut || {
                kept = Some(k.keypair_kept(&mut pk)?);
                Ok(())
            })?;
            secrets::declassify(&pk);
        }
        Op::Encaps => {
            let _sk = k.keypair_kept(&mut pk)?;
            secrets::declassify(&pk);
            in_marker(op, &mut || k.encaps(&pk, &mut ct, &mut ss))?;
            secrets::declassify(&ct);
            secrets::declassify(&ss);
        }
        _ => {
            let mut sk = k.keypair_kept(&mut pk)?;
            secrets::declassify(&pk);
            k.encaps(&pk, &mut ct, &mut ss)?;
            secrets::declassify(&ct);
            in_marker(op, &mut || k.decaps_kept(&mut sk, &ct, &mut ss))?;
            secrets::declassify(&ss);
        }
    }
    Ok(marked)
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
fn derandomized(k: &dyn Kem, op: Op, seed: &[u8; 32]) -> Result<String, KemError> {
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
            in_marker(op, &mut || k.keypair_derand(&key_seed, &mut pk, &mut sk))?;
            secrets::declassify(&pk);
        }
        Op::Encaps => {
            k.keypair_derand(&key_seed, &mut pk, &mut sk)?;
            secrets::declassify(&pk);
            in_marker(op, &mut || {
                k.encaps_derand(&pk, &enc_seed, &mut ct, &mut ss)
            })?;
            secrets::declassify(&ct);
        }
        _ => {
            k.keypair_derand(&key_seed, &mut pk, &mut sk)?;
            secrets::declassify(&pk);
            k.encaps_derand(&pk, &enc_seed, &mut ct, &mut ss)?;
            secrets::declassify(&ct);
            let mut kept = k.sk_import(&sk)?;
            in_marker(op, &mut || k.decaps_kept(&mut kept, &ct, &mut ss))?;
        }
    }
    secrets::declassify(&ss);
    Ok(how.into())
}
