//! The C interface between kembench and OpenSSL 4's KEM library (the `cdylib` of
//! `workers/tls-openssl4`): what both sides agree on. The library exports one C function per
//! [`Kem`](crate::kem::Kem) operation, on implementations named by their index in
//! [`super::specs`]'s order and on kept keys as opaque handles; kembench opens it with local
//! symbols (`providers::openssl4`), so that its OpenSSL 4 never meets the OpenSSL 3.6 kembench
//! links.
//!
//! Every operation returns a [`Code`]; the message of the last error on the calling thread is
//! read with `kembench_kem_error`. Buffers have the catalog's lengths (kembench checks them
//! before calling, and the library checks them again).

use crate::kem::KemError;
use std::cell::RefCell;
use std::ffi::c_int;

/// The interface's version: the library and kembench must agree on it.
pub const VERSION: u32 = 1;

/// The file cargo makes of the library (`workers/tls-openssl4`'s `[lib]`), beside the worker's
/// executable.
pub const FILE: &str = "libkembench_tls_openssl4.so";

/// The library's key-generation function: a build whose recorded `keypair` symbol is this one
/// is a library of this interface (`kembench builds --source openssl=PATH`), not a NIST-API
/// build.
pub const KEYPAIR: &str = "kembench_kem_keypair";

/// What an operation returned.
pub type Code = c_int;
/// It succeeded.
pub const OK: Code = 0;
/// [`KemError::Rejected`].
pub const REJECTED: Code = 1;
/// [`KemError::Failure`] (or an index or handle the library does not know).
pub const FAILURE: Code = 2;
/// [`KemError::Unsupported`].
pub const UNSUPPORTED: Code = 3;

/// The host's random source, as the library calls it: fills `n` bytes at `buf`, 1 on success.
pub type FillFn = unsafe extern "C" fn(buf: *mut u8, n: usize) -> c_int;

thread_local! {
    /// The calling thread's last error message (library side).
    static LAST: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The code of `r`, keeping its message for `kembench_kem_error` (library side).
pub fn code(r: Result<(), KemError>) -> Code {
    match r {
        Ok(()) => OK,
        Err(e) => {
            let code = match &e {
                KemError::Rejected(_) => REJECTED,
                KemError::Unsupported => UNSUPPORTED,
                KemError::Failure(_) | KemError::InvalidLength { .. } => FAILURE,
            };
            let message = match e {
                KemError::Rejected(m) | KemError::Failure(m) => m,
                other => other.to_string(),
            };
            say(message);
            code
        }
    }
}

/// Keeps `message` as the calling thread's last message (library side: what an `OK` means, where
/// it says more than success).
pub fn say(message: String) {
    LAST.with(|l| *l.borrow_mut() = message);
}

/// Copies the calling thread's last error message into `out` (at most `cap` bytes); returns its
/// whole length (library side).
///
/// # Safety
/// `out` must be valid for `cap` bytes of writing (or `cap` 0).
pub unsafe fn last_error(out: *mut u8, cap: usize) -> usize {
    // SAFETY: the caller's buffer.
    LAST.with(|l| unsafe { copy_out(l.borrow().as_bytes(), out, cap) })
}

/// Copies `text` into `out` (at most `cap` bytes); returns its whole length.
///
/// # Safety
/// `out` must be valid for `cap` bytes of writing (or `cap` 0).
pub unsafe fn copy_out(text: &[u8], out: *mut u8, cap: usize) -> usize {
    let n = text.len().min(cap);
    if n > 0 {
        // SAFETY: the caller's buffer holds `cap` ≥ `n` bytes.
        unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), out, n) };
    }
    text.len()
}

/// The error a code stands for, with the library's message (host side).
pub fn error(code: Code, message: String) -> KemError {
    match code {
        REJECTED => KemError::Rejected(message),
        UNSUPPORTED => KemError::Unsupported,
        _ => KemError::Failure(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_survives_the_crossing() {
        for e in [
            KemError::Rejected("bad point".into()),
            KemError::Failure("EVP_PKEY_decapsulate failed".into()),
            KemError::Unsupported,
        ] {
            let c = code(Err(e.clone()));
            let mut buf = [0u8; 64];
            // SAFETY: a 64-byte buffer.
            let n = unsafe { last_error(buf.as_mut_ptr(), buf.len()) };
            let back = error(c, String::from_utf8_lossy(&buf[..n]).into_owned());
            assert_eq!(back, e);
        }
        assert_eq!(code(Ok(())), OK);
        // A message longer than the buffer is cut there, and its whole length said.
        code(Err(KemError::Failure("x".repeat(100))));
        let mut small = [0u8; 8];
        // SAFETY: an 8-byte buffer.
        assert_eq!(unsafe { last_error(small.as_mut_ptr(), 8) }, 100);
        assert_eq!(small, [b'x'; 8]);
    }
}
