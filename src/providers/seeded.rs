//! The seeded source of random bytes that [`Kem::fix_randomness`](crate::kem::Kem::fix_randomness)
//! installs, and that every provider hook draws from while it is installed.
//!
//! The source is ChaCha20 (`rand_chacha`, whose output for a given seed is stable across
//! versions), keyed with the 32-byte seed. Each thread draws from its own stream, started from
//! the seed when the thread first draws after [`install`]: the draws of one thread are the same
//! in every process with the same seed, whatever other threads do. A library hook (liboqs's
//! `randombytes`, OpenSSL's random provider, aws-lc's entropy source) runs on the thread of
//! the operation that draws, so it draws from that thread's stream.
//!
//! When no seed is installed, [`fill_or_os`] draws from the operating system (`getrandom`),
//! which is what the hooks fall back to. The libraries that draw through the C library's
//! `getrandom` (PQClean) reach the stream through kembench's own ([`super::os_random`]).

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The installed seed and its generation (0: none installed). Read when a thread's stream is
/// older than [`GENERATION`].
static SEED: Mutex<(u64, [u8; 32])> = Mutex::new((0, [0; 32]));

/// The generation of the installed seed; 0 while none is installed. Each [`install`] takes a
/// new one, so that every thread restarts its stream.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Generations handed out so far.
static INSTALLS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's stream and the generation it was started for.
    static STREAM: RefCell<Option<(u64, ChaCha20Rng)>> = const { RefCell::new(None) };
}

/// Installs `seed`: from now on every thread's draws start from it (again, if a seed was
/// installed before).
pub fn install(seed: &[u8; 32]) {
    let mut s = SEED.lock().unwrap_or_else(|e| e.into_inner());
    let generation = INSTALLS.fetch_add(1, Ordering::Relaxed) + 1;
    *s = (generation, *seed);
    GENERATION.store(generation, Ordering::Release);
}

/// Removes the seed: hooks draw from the operating system again (and so does kembench's
/// `getrandom`, whatever `os_random::capture` was left at).
#[cfg(test)]
pub(crate) fn uninstall() {
    let _s = SEED.lock().unwrap_or_else(|e| e.into_inner());
    GENERATION.store(0, Ordering::Release);
}

/// Whether a seed is installed.
pub fn installed() -> bool {
    GENERATION.load(Ordering::Acquire) != 0
}

/// Fills `buf` from this thread's seeded stream; false (and `buf` untouched) when no seed is
/// installed.
pub fn fill(buf: &mut [u8]) -> bool {
    let current = GENERATION.load(Ordering::Acquire);
    if current == 0 {
        return false;
    }
    STREAM.with(|cell| {
        let mut stream = cell.borrow_mut();
        if stream.as_ref().is_none_or(|(g, _)| *g != current) {
            let (generation, seed) = *SEED.lock().unwrap_or_else(|e| e.into_inner());
            if generation == 0 {
                return false;
            }
            *stream = Some((generation, ChaCha20Rng::from_seed(seed)));
        }
        match stream.as_mut() {
            Some((_, rng)) => {
                rng.fill_bytes(buf);
                super::secrets::drawn(buf);
                true
            }
            None => false,
        }
    })
}

/// Fills `buf` from the seeded stream, or from the operating system when no seed is installed.
pub fn fill_or_os(buf: &mut [u8]) -> Result<(), getrandom::Error> {
    if fill(buf) {
        Ok(())
    } else {
        getrandom::fill(buf)
    }
}

/// A `rand_core` 0.10 generator over [`fill_or_os`], for libraries that take one (RustCrypto's
/// `ml-kem`, `hqc-kem`, `x-wing`), and over the known-answer generator while a transcript is
/// made ([`super::drbg::kat_fill`]). It panics only if the operating system's generator fails, as `ml-kem`'s own
/// `getrandom` wrapper does.
#[cfg(feature = "rustcrypto")]
pub struct SeededRng;

#[cfg(feature = "rustcrypto")]
impl rand_core::TryRng for SeededRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut b = [0; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut b = [0; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        // A known-answer transcript being made on this thread takes the draws first (hqc-kem's
        // KAT files: `verify` regenerates them through this generator).
        if super::drbg::kat_fill(dst) {
            return Ok(());
        }
        if let Err(e) = fill_or_os(dst) {
            panic!("getrandom failed: {e}");
        }
        Ok(())
    }
}

#[cfg(feature = "rustcrypto")]
impl rand_core::TryCryptoRng for SeededRng {}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Serialises the tests that install a seed (they change process-global state).
    pub(crate) static LOCK: Mutex<()> = Mutex::new(());

    #[test]
    fn a_seed_gives_one_stream_per_thread_and_restarts_on_install() {
        let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let draw = || {
            let mut b = [0u8; 40];
            assert!(fill(&mut b));
            b
        };
        install(&[7; 32]);
        let (a, b) = (draw(), draw());
        assert_ne!(a, b, "the stream advances");
        let other = std::thread::spawn(draw).join().unwrap();
        assert_eq!(
            other, a,
            "another thread starts its own stream from the seed"
        );
        install(&[7; 32]);
        assert_eq!(draw(), a, "installing again restarts the stream");
        install(&[8; 32]);
        assert_ne!(draw(), a);
        uninstall();
        let mut c = [0u8; 8];
        assert!(!fill(&mut c));
        assert!(fill_or_os(&mut c).is_ok());
    }

    /// What one implementation produces after `fix_randomness(seed)`: the public key, the
    /// secret key's bytes where the library exports them, an encapsulation to that key (ct,
    /// ss) and the decapsulated secret (not compared with ss: `mock/broken` is here too).
    type Draws = (Vec<u8>, Option<Vec<u8>>, Vec<u8>, Vec<u8>, Vec<u8>);

    /// Fixes `k`'s randomness with `seed` and draws on a fresh thread (aws-lc seeds a thread's
    /// generator at its first draw; Classic McEliece needs a big stack).
    fn draws_after_fix(k: &dyn crate::kem::Kem, seed: u8) -> Draws {
        assert!(k.fix_randomness(&[seed; 32]).is_fixed());
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(crate::kem::MEGABYTE_KEYS_STACK)
                .spawn_scoped(s, || {
                    let label = k.meta().label();
                    let (pk, mut sk) = k.keypair_kept_vec().expect(&label);
                    let sk_bytes = k.sk_export(&sk).ok();
                    let (ct, ss) = k.encaps_vec(&pk).expect(&label);
                    let decapsulated = k.decaps_kept_vec(&mut sk, &ct).expect(&label);
                    (pk, sk_bytes, ct, ss, decapsulated)
                })
                .unwrap()
                .join()
                .unwrap()
        })
    }

    #[test]
    fn every_fixed_implementation_repeats_its_draws_for_a_seed() {
        let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        // No known-answer transcript may switch liboqs's generator meanwhile.
        #[cfg(feature = "liboqs")]
        let _oqs = crate::providers::liboqs::randomness::LOCK
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let mut impls = crate::providers::all().impls;
        impls.extend(crate::providers::mock::implementations());
        for k in &impls {
            let k = k.as_ref();
            let label = k.meta().label();
            if let crate::kem::Randomness::NotFixed(why) = k.fix_randomness(&[1; 32]) {
                assert!(why.len() > 40, "{label}: say why not");
                continue;
            }
            let a = draws_after_fix(k, 1);
            assert_eq!(a, draws_after_fix(k, 1), "{label}: same seed, same draws");
            let b = draws_after_fix(k, 2);
            assert_ne!(a.0, b.0, "{label}: another seed, another key");
            assert_ne!(a.2, b.2, "{label}: another seed, another ciphertext");
        }
        uninstall();
    }
}
