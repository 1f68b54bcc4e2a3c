//! Secrets as valgrind's memcheck sees them, for `kembench ct`'s secret-flow screen: memory
//! marked *undefined* is secret (memcheck reports every branch, memory index and system-call
//! argument that depends on it), memory marked *defined* again is declassified (public).
//!
//! While [`draws_secret`] is on, every byte the seeded stream hands a library
//! ([`super::seeded::fill`]) is marked secret as it is drawn, as liboqs's constant-time tests
//! mark every byte of their `randombytes`: keys and everything derived from them are then
//! tracked. Outside valgrind (or on a build without valgrind's client requests) the marks are
//! no-ops, and [`available`] says so.

use std::sync::atomic::{AtomicBool, Ordering};

static DRAWS_SECRET: AtomicBool = AtomicBool::new(false);

/// Whether this build can mark memory for memcheck (valgrind's client requests are compiled
/// in on x86-64 only).
pub const fn available() -> bool {
    cfg!(target_arch = "x86_64")
}

/// Whether this process runs under valgrind (any tool).
pub fn under_valgrind() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        crabgrind::valgrind::running_mode().is_valgrind()
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Turns the marking of every seeded draw as secret on or off.
pub fn draws_secret(on: bool) {
    DRAWS_SECRET.store(on, Ordering::Release);
}

/// Called by the seeded stream with each buffer it filled.
pub(super) fn drawn(buf: &[u8]) {
    if DRAWS_SECRET.load(Ordering::Acquire) {
        mark_secret(buf);
    }
}

/// Marks `buf` secret (memcheck: undefined).
pub fn mark_secret(buf: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use crabgrind::memcheck::{mark_memory, MemState};
        // Outside valgrind the request does nothing; its result says only that.
        let _ = mark_memory(buf.as_ptr().cast(), buf.len(), MemState::Undefined);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = buf;
}

/// Declassifies `buf` (memcheck: defined): a value that is public from here on.
pub fn declassify(buf: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use crabgrind::memcheck::{mark_memory, MemState};
        let _ = mark_memory(buf.as_ptr().cast(), buf.len(), MemState::Defined);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = buf;
}

/// Stops memcheck from reporting errors of this thread until [`report_errors`] (preparation
/// outside the screened call).
pub fn silence_errors() {
    #[cfg(target_arch = "x86_64")]
    crabgrind::valgrind::disable_error_reporting();
}

/// Lets memcheck report errors of this thread again.
pub fn report_errors() {
    #[cfg(target_arch = "x86_64")]
    crabgrind::valgrind::enable_error_reporting();
}

/// Whether `buf` holds any secret (undefined) bit, as memcheck sees it; `None` outside
/// valgrind.
pub fn holds_secret(buf: &[u8]) -> Option<bool> {
    #[cfg(target_arch = "x86_64")]
    {
        if !under_valgrind() {
            return None;
        }
        Some(crabgrind::memcheck::check_mem_defined(buf.as_ptr().cast(), buf.len()).is_err())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = buf;
        None
    }
}
