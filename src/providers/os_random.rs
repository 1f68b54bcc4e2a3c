//! The C library's `getrandom`, interposed, so that the draws a library takes from the
//! operating system can come from kembench's seeded stream ([`super::seeded`]) and, in `ct`'s
//! secret-flow worker, be marked secret as they are drawn ([`super::secrets`]).
//!
//! # Who draws how (read from the crates' sources)
//!
//! - PQClean's C code (`pqcrypto-mlkem`, `pqcrypto-ntru`) draws through
//!   `PQCRYPTO_RUST_randombytes` (`pqcrypto-internals` 0.2), which calls `getrandom` 0.3's
//!   `fill`. On Linux with glibc that crate looks the C library's `getrandom` up once with
//!   `dlsym(RTLD_DEFAULT, "getrandom")` and calls what it finds (only where none is found does
//!   it read `/dev/urandom`). `getrandom` 0.4 (rand 0.10, `ml-kem`) does the same, and so does
//!   Rust's standard library (its hash-map keys: a weak `dlsym` lookup, the raw system call
//!   where none is found).
//! - `dlsym(RTLD_DEFAULT)` searches the executable first: the `getrandom` defined here, put in
//!   the executable's dynamic symbol table by `build.rs` (`--export-dynamic-symbol`), is what
//!   they all find. glibc's own `getentropy` and its internal draws call the system call
//!   directly and are not affected, and no library kembench links calls them.
//! - The other providers draw through hooks of their own that already take the seeded stream:
//!   liboqs's `randombytes`, OpenSSL's random provider, aws-lc's entropy source (the CTR-DRBG
//!   of each thread takes its seed there, once), libcrux and RustCrypto through kembench's
//!   generator. `ring` (through `getrandom` 0.2) makes the system call itself; kembench uses it
//!   for nothing it screens.
//!
//! Outside a capture (the default, and always in `run`), the function is the system call
//! itself: what glibc's wrapper does. While [`capture`] is on and a seed is installed, every
//! draw of the process comes from the calling thread's seeded stream instead.

use std::sync::atomic::{AtomicBool, Ordering};

static CAPTURE: AtomicBool = AtomicBool::new(false);

/// Turns the serving of `getrandom` from the seeded stream on or off, for the whole process
/// (a library draws on the thread of the operation, which is not always the one that fixed
/// its randomness). Draws still go to the operating system while no seed is installed.
pub fn capture(on: bool) {
    CAPTURE.store(on, Ordering::Release);
}

/// Whether the libraries' look-up of `getrandom` finds this module's (the executable exports
/// it): only then can their draws be fixed and marked.
pub fn interposed() -> bool {
    imp::interposed()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod imp {
    use super::{Ordering, CAPTURE};
    use crate::providers::seeded;
    use std::ffi::{c_uint, c_void};

    /// C `getrandom(2)`: from the calling thread's seeded stream during a capture with a seed
    /// installed, the system call otherwise (glibc's wrapper does no more).
    ///
    /// # Safety
    /// As for C `getrandom`: `buf` holds `len` writable bytes.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn getrandom(buf: *mut c_void, len: usize, flags: c_uint) -> isize {
        if len > 0 && !buf.is_null() && CAPTURE.load(Ordering::Acquire) && seeded::installed() {
            // SAFETY: the caller hands `len` writable bytes at `buf`.
            let out = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
            if seeded::fill(out) {
                return len as isize;
            }
        }
        // SAFETY: the system call reads the same arguments the caller handed us.
        unsafe { libc::syscall(libc::SYS_getrandom, buf, len, flags) as isize }
    }

    pub(super) fn interposed() -> bool {
        // SAFETY: a NUL-terminated name; `dlsym` only looks it up.
        let found = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"getrandom".as_ptr()) };
        let ours = getrandom as unsafe extern "C" fn(*mut c_void, usize, c_uint) -> isize;
        found as usize == ours as usize
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod imp {
    pub(super) fn interposed() -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::seeded;

    #[cfg(feature = "pqclean")]
    unsafe extern "C" {
        /// PQClean's `randombytes` (`pqcrypto-internals`): `getrandom` 0.3's `fill`.
        fn PQCRYPTO_RUST_randombytes(buf: *mut u8, len: usize) -> std::ffi::c_int;
    }

    /// What PQClean's C code gets from one draw.
    #[cfg(feature = "pqclean")]
    fn library_draw() -> [u8; 48] {
        let mut b = [0u8; 48];
        // SAFETY: a live buffer of its own length.
        let rc = unsafe { PQCRYPTO_RUST_randombytes(b.as_mut_ptr(), b.len()) };
        assert_eq!(rc, 0);
        b
    }

    /// What the `getrandom` crate (0.4, kembench's own) gets: the same look-up.
    #[cfg(not(feature = "pqclean"))]
    fn library_draw() -> [u8; 48] {
        let mut b = [0u8; 48];
        getrandom::fill(&mut b).expect("getrandom");
        b
    }

    #[test]
    fn the_interposed_getrandom_replays_the_seed_and_passes_through_otherwise() {
        let _g = seeded::tests::LOCK
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        assert!(
            interposed(),
            "dlsym(RTLD_DEFAULT, \"getrandom\") must find kembench's own: build.rs exports it"
        );
        capture(true);
        seeded::install(&[3; 32]);
        let a = library_draw();
        seeded::install(&[3; 32]);
        assert_eq!(library_draw(), a, "the same seed replays the same bytes");
        seeded::install(&[4; 32]);
        assert_ne!(library_draw(), a, "another seed, other bytes");
        capture(false);
        seeded::install(&[3; 32]);
        let (x, y) = (library_draw(), library_draw());
        assert_ne!(x, a, "outside a capture the operating system serves");
        assert_ne!(x, y);
        seeded::uninstall();
    }
}
