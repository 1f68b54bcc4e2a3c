//! Reproduces liboqs's NIST-format known-answer transcripts in-process.
//!
//! liboqs's `tests/kat_kem.c` seeds NIST's AES-256-CTR DRBG with the bytes 0..47, draws a
//! 48-byte seed per entry, reseeds with it and runs keypair, encaps, decaps. HQC uses a
//! SHAKE256-based generator instead (`tests/test_helpers.c`). The SHA-256 of the transcript is
//! compared with liboqs's `kats.json`. liboqs's randomness source is global: while a transcript
//! is made, only the thread making it draws from the known-answer generator, others draw as
//! before; afterwards liboqs is put back on the generator it had (the system's, or `profile`'s
//! seeded stream).

use super::LibOqs;
use crate::kem::{Kem, KemError};
use crate::providers::drbg::KatGenerator;
use crate::providers::seeded;
use std::sync::Mutex;
use std::thread::{self, ThreadId};

/// The source, and the thread making the transcript: only its draws come from the source.
static SOURCE: Mutex<Option<(ThreadId, KatGenerator)>> = Mutex::new(None);

fn seed_generator(algorithm: &str, seed: &[u8; 48]) {
    let s = KatGenerator::new(algorithm, seed);
    *SOURCE.lock().unwrap_or_else(|e| e.into_inner()) = Some((thread::current().id(), s));
}

/// liboqs's `randombytes` during a transcript. Other threads that use liboqs meanwhile draw as
/// they would without it (the operating system, or `profile`'s seeded stream), so that they
/// neither consume the transcript's bytes nor get predictable ones.
unsafe extern "C" fn kat_randombytes(out: *mut u8, len: usize) {
    // SAFETY: liboqs passes a writable buffer of `len` bytes.
    let buf = unsafe { std::slice::from_raw_parts_mut(out, len) };
    let me = thread::current().id();
    if let Some((owner, g)) = SOURCE.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        if *owner == me {
            return g.fill(buf);
        }
    }
    if seeded::fill_or_os(buf).is_err() {
        std::process::abort();
    }
}

/// Puts liboqs back on the generator it used before the transcript when dropped: the system's,
/// or `profile`'s seeded stream.
struct RestoreRandomOnDrop;

impl Drop for RestoreRandomOnDrop {
    fn drop(&mut self) {
        super::randomness::restore();
    }
}

fn draw(out: &mut [u8]) {
    // SAFETY: OQS_randombytes writes `len` bytes into a writable buffer.
    unsafe { oqs_sys::rand::OQS_randombytes(out.as_mut_ptr(), out.len()) };
}

/// The transcript of `entries` KAT entries, byte for byte as liboqs's `kat_kem` prints it.
///
/// Transcripts wait for each other (they hold [`LOCK`](super::randomness::LOCK)); other liboqs
/// users are not disturbed (see the module docs).
pub fn transcript(kem: &LibOqs, entries: usize) -> Result<String, KemError> {
    let algorithm = kem.meta().algorithm.name;
    let _switching = super::randomness::LOCK
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let _restore = RestoreRandomOnDrop;
    // SAFETY: a function with the signature OQS_randombytes expects.
    unsafe { oqs_sys::rand::OQS_randombytes_custom_algorithm(Some(kat_randombytes)) };

    let mut reseed = |seed: &[u8; 48]| seed_generator(algorithm, seed);
    crate::kem::nist_kat::transcript(kem, entries, &mut reseed, &mut draw)
}
