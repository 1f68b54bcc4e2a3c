//! Which generator liboqs's `randombytes` uses: the system's, the known-answer generator of
//! [`kat`](super::kat), or the seeded stream of [`seeded`](crate::providers::seeded).
//!
//! liboqs keeps one process-global `randombytes` function. A known-answer transcript holds
//! [`LOCK`] from its switch to its restore; [`fix`] is meant for a fresh `profile` worker,
//! where no transcript runs, and takes no lock (tests that call it hold [`LOCK`] themselves).

use crate::providers::seeded;
use std::sync::Mutex;

/// Held while liboqs's `randombytes` is switched to a generator of limited duration.
pub(crate) static LOCK: Mutex<()> = Mutex::new(());

/// liboqs's `randombytes` while `profile` fixes randomness: the calling thread's seeded stream
/// (the operating system's generator if the seed has been removed).
unsafe extern "C" fn seeded_randombytes(out: *mut u8, len: usize) {
    // SAFETY: liboqs passes a writable buffer of `len` bytes.
    let buf = unsafe { std::slice::from_raw_parts_mut(out, len) };
    if seeded::fill_or_os(buf).is_err() {
        // liboqs's own system generator exits likewise: the caller cannot be told.
        std::process::abort();
    }
}

/// Installs `seed` and switches liboqs's `randombytes` to the seeded stream.
pub(crate) fn fix(seed: &[u8; 32]) {
    seeded::install(seed);
    // SAFETY: a function with the signature OQS_randombytes expects, valid for the process.
    unsafe { oqs_sys::rand::OQS_randombytes_custom_algorithm(Some(seeded_randombytes)) };
}

/// Puts liboqs back on the seeded stream if `profile` installed one, else on the system's
/// generator (after a known-answer transcript).
pub(crate) fn restore() {
    if seeded::installed() {
        // SAFETY: as in `fix`.
        unsafe { oqs_sys::rand::OQS_randombytes_custom_algorithm(Some(seeded_randombytes)) };
    } else {
        // SAFETY: a static C string naming a built-in algorithm.
        unsafe { oqs_sys::rand::OQS_randombytes_switch_algorithm(c"system".as_ptr()) };
    }
}
