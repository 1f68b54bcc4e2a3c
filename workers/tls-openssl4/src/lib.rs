//! OpenSSL 4.0.3's KEMs and key exchanges as a library kembench opens (`--impl openssl4`): the
//! adapter kembench measures OpenSSL 3.6 with (`kembench::openssl_kem`), here linked against
//! OpenSSL 4.0.3, behind the C interface of `kembench::openssl_kem::abi`. A `cdylib` exports only
//! the `#[no_mangle]` functions below, so OpenSSL 4's own symbols stay inside the library and
//! never meet the OpenSSL 3.6 of kembench's process.
//!
//! Every function is called by kembench with buffers of the catalog's lengths, an index below
//! `kembench_kem_count()` and handles this library made; each still checks what it can and
//! reports a failure instead of trusting it.

use kembench::kem::{Kem, SecretKey};
use kembench::openssl_kem::{self, abi};
use std::ffi::c_int;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The host's random source (an `abi::FillFn`), 0 before `kembench_kem_init`.
static FILL: AtomicUsize = AtomicUsize::new(0);

/// Every algorithm of the table, as implementation `openssl4` of this library's OpenSSL.
fn impls() -> &'static [Box<dyn Kem>] {
    static IMPLS: OnceLock<Vec<Box<dyn Kem>>> = OnceLock::new();
    IMPLS.get_or_init(|| openssl_kem::implementations("openssl4", &openssl_kem::library_version()))
}

/// The implementation at `i`, or a failure kembench can read.
fn kem(i: usize) -> Result<&'static dyn Kem, kembench::kem::KemError> {
    impls()
        .get(i)
        .map(|k| k.as_ref())
        .ok_or_else(|| kembench::kem::KemError::Failure(format!("no implementation {i}")))
}

/// A slice over the host's buffer (empty when `len` is 0, whatever `p` is).
///
/// # Safety
/// `p` must be valid for `len` bytes of reading.
unsafe fn bytes<'a>(p: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: the caller's promise.
        unsafe { std::slice::from_raw_parts(p, len) }
    }
}

/// A mutable slice over the host's buffer (empty when `len` is 0).
///
/// # Safety
/// `p` must be valid for `len` bytes of writing.
unsafe fn bytes_mut<'a>(p: *mut u8, len: usize) -> &'a mut [u8] {
    if len == 0 {
        &mut []
    } else {
        // SAFETY: the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(p, len) }
    }
}

/// The interface's version (`abi::VERSION`).
#[no_mangle]
pub extern "C" fn kembench_kem_abi() -> u32 {
    abi::VERSION
}

/// Makes `fill` (the host's seeded stream, or the operating system when no seed is installed)
/// the source of OpenSSL's seeded random provider. The host installs seeds itself; the library
/// only switches OpenSSL to the provider (`kembench_kem_fix_randomness`).
///
/// # Safety
/// `fill` must stay callable for the life of the process.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_init(fill: abi::FillFn) -> c_int {
    FILL.store(fill as usize, Ordering::Release);
    openssl_kem::set_source(openssl_kem::Source {
        install: |_| {},
        fill: |buf| {
            let f = FILL.load(Ordering::Acquire);
            if f == 0 {
                return false;
            }
            // SAFETY: stored from an `abi::FillFn` above.
            let f: abi::FillFn = unsafe { std::mem::transmute::<usize, abi::FillFn>(f) };
            // SAFETY: a buffer of `buf.len()` bytes.
            (unsafe { f(buf.as_mut_ptr(), buf.len()) }) == 1
        },
    });
    abi::OK
}

/// OpenSSL's version line (`OpenSSL 4.0.3 ...`) into `out`; its whole length.
///
/// # Safety
/// `out` must be valid for `cap` bytes of writing.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_version(out: *mut u8, cap: usize) -> usize {
    // SAFETY: the caller's buffer.
    unsafe { abi::copy_out(openssl_kem::library_version().as_bytes(), out, cap) }
}

/// How many implementations the library offers.
#[no_mangle]
pub extern "C" fn kembench_kem_count() -> usize {
    impls().len()
}

/// The algorithm of implementation `i` into `out`; its whole length (0: no such index).
///
/// # Safety
/// `out` must be valid for `cap` bytes of writing.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_algorithm(i: usize, out: *mut u8, cap: usize) -> usize {
    match impls().get(i) {
        // SAFETY: the caller's buffer.
        Some(k) => unsafe { abi::copy_out(k.meta().algorithm.name.as_bytes(), out, cap) },
        None => 0,
    }
}

/// The calling thread's last error message into `out`; its whole length.
///
/// # Safety
/// `out` must be valid for `cap` bytes of writing.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_error(out: *mut u8, cap: usize) -> usize {
    // SAFETY: the caller's buffer.
    unsafe { abi::last_error(out, cap) }
}

/// Key generation with the key's bytes out.
///
/// # Safety
/// Each buffer valid for its length.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_keypair(
    i: usize,
    pk: *mut u8,
    pk_len: usize,
    sk: *mut u8,
    sk_len: usize,
) -> abi::Code {
    // SAFETY: the caller's buffers.
    abi::code(
        kem(i).and_then(|k| unsafe { k.keypair(bytes_mut(pk, pk_len), bytes_mut(sk, sk_len)) }),
    )
}

/// Encapsulation to a public key given as bytes.
///
/// # Safety
/// Each buffer valid for its length.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_encaps(
    i: usize,
    pk: *const u8,
    pk_len: usize,
    ct: *mut u8,
    ct_len: usize,
    ss: *mut u8,
    ss_len: usize,
) -> abi::Code {
    abi::code(kem(i).and_then(|k| {
        // SAFETY: the caller's buffers.
        unsafe {
            k.encaps(
                bytes(pk, pk_len),
                bytes_mut(ct, ct_len),
                bytes_mut(ss, ss_len),
            )
        }
    }))
}

/// Decapsulation with a secret key given as bytes.
///
/// # Safety
/// Each buffer valid for its length.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_decaps(
    i: usize,
    sk: *const u8,
    sk_len: usize,
    ct: *const u8,
    ct_len: usize,
    ss: *mut u8,
    ss_len: usize,
) -> abi::Code {
    abi::code(kem(i).and_then(|k| {
        // SAFETY: the caller's buffers.
        unsafe { k.decaps(bytes(sk, sk_len), bytes(ct, ct_len), bytes_mut(ss, ss_len)) }
    }))
}

/// Moves a kept key out to the host as a handle.
///
/// # Safety
/// `out` must be valid for writing one pointer.
unsafe fn hand_out(key: SecretKey, out: *mut *mut SecretKey) {
    // SAFETY: the caller's promise.
    unsafe { *out = Box::into_raw(Box::new(key)) };
}

/// Key generation keeping the key as OpenSSL keeps it: the public key out, the key as a handle
/// (freed with `kembench_kem_key_free`).
///
/// # Safety
/// `pk` valid for `pk_len` bytes; `out` for one pointer.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_keypair_kept(
    i: usize,
    pk: *mut u8,
    pk_len: usize,
    out: *mut *mut SecretKey,
) -> abi::Code {
    abi::code(kem(i).and_then(|k| {
        // SAFETY: the caller's buffer.
        let key = k.keypair_kept(unsafe { bytes_mut(pk, pk_len) })?;
        // SAFETY: the caller's pointer.
        unsafe { hand_out(key, out) };
        Ok(())
    }))
}

/// Decapsulation with a kept key.
///
/// # Safety
/// `key` a handle this library made and not yet freed; each buffer valid for its length.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_decaps_kept(
    i: usize,
    key: *mut SecretKey,
    ct: *const u8,
    ct_len: usize,
    ss: *mut u8,
    ss_len: usize,
) -> abi::Code {
    abi::code(kem(i).and_then(|k| {
        // SAFETY: the caller's handle and buffers.
        let key = unsafe { key.as_mut() }
            .ok_or_else(|| kembench::kem::KemError::Failure("no key handle".into()))?;
        k.decaps_kept(key, unsafe { bytes(ct, ct_len) }, unsafe {
            bytes_mut(ss, ss_len)
        })
    }))
}

/// Imports a secret key from bytes into a handle.
///
/// # Safety
/// `sk` valid for `sk_len` bytes; `out` for one pointer.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_sk_import(
    i: usize,
    sk: *const u8,
    sk_len: usize,
    out: *mut *mut SecretKey,
) -> abi::Code {
    abi::code(kem(i).and_then(|k| {
        // SAFETY: the caller's buffer.
        let key = k.sk_import(unsafe { bytes(sk, sk_len) })?;
        // SAFETY: the caller's pointer.
        unsafe { hand_out(key, out) };
        Ok(())
    }))
}

/// Exports a kept key's bytes.
///
/// # Safety
/// `key` a live handle of this library; `out` valid for `out_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_sk_export(
    i: usize,
    key: *const SecretKey,
    out: *mut u8,
    out_len: usize,
) -> abi::Code {
    abi::code(kem(i).and_then(|k| {
        // SAFETY: the caller's handle.
        let key = unsafe { key.as_ref() }
            .ok_or_else(|| kembench::kem::KemError::Failure("no key handle".into()))?;
        let bytes = k.sk_export(key)?;
        // SAFETY: the caller's buffer.
        let out = unsafe { bytes_mut(out, out_len) };
        kembench::kem::check_len("secret key", out.len(), bytes.len())?;
        out.copy_from_slice(&bytes);
        Ok(())
    }))
}

/// Frees a handle this library made (null: nothing).
///
/// # Safety
/// `key` a live handle of this library, or null; never used again.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_key_free(key: *mut SecretKey) {
    if !key.is_null() {
        // SAFETY: made by `hand_out`'s Box::into_raw.
        drop(unsafe { Box::from_raw(key) });
    }
}

/// Imports a peer's public key from bytes (and frees it).
///
/// # Safety
/// `pk` valid for `pk_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_pk_import(
    i: usize,
    pk: *const u8,
    pk_len: usize,
) -> abi::Code {
    // SAFETY: the caller's buffer.
    abi::code(kem(i).and_then(|k| k.pk_import(unsafe { bytes(pk, pk_len) })))
}

/// Key generation from a seed.
///
/// # Safety
/// Each buffer valid for its length.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_keypair_derand(
    i: usize,
    seed: *const u8,
    seed_len: usize,
    pk: *mut u8,
    pk_len: usize,
    sk: *mut u8,
    sk_len: usize,
) -> abi::Code {
    abi::code(kem(i).and_then(|k| {
        // SAFETY: the caller's buffers.
        unsafe {
            k.keypair_derand(
                bytes(seed, seed_len),
                bytes_mut(pk, pk_len),
                bytes_mut(sk, sk_len),
            )
        }
    }))
}

/// Encapsulation from a given message.
///
/// # Safety
/// Each buffer valid for its length.
#[no_mangle]
pub unsafe extern "C" fn kembench_kem_encaps_derand(
    i: usize,
    pk: *const u8,
    pk_len: usize,
    seed: *const u8,
    seed_len: usize,
    ct: *mut u8,
    ct_len: usize,
    ss: *mut u8,
    ss_len: usize,
) -> abi::Code {
    abi::code(kem(i).and_then(|k| {
        // SAFETY: the caller's buffers.
        unsafe {
            k.encaps_derand(
                bytes(pk, pk_len),
                bytes(seed, seed_len),
                bytes_mut(ct, ct_len),
                bytes_mut(ss, ss_len),
            )
        }
    }))
}

/// Switches OpenSSL's draws to the host's source (`kembench_kem_init`), whose seed the host has
/// installed: `OK` with how, or `FAILURE` with why not (both read with `kembench_kem_error`).
#[no_mangle]
pub extern "C" fn kembench_kem_fix_randomness(i: usize) -> abi::Code {
    let k = match kem(i) {
        Ok(k) => k,
        Err(e) => return abi::code(Err(e)),
    };
    // The seed given here goes to the source's `install`, which does nothing in this library:
    // the host installed its own seed in its stream before calling.
    match k.fix_randomness(&[0; 32]) {
        kembench::kem::Randomness::Fixed(how) => {
            abi::say(how);
            abi::OK
        }
        kembench::kem::Randomness::NotFixed(why) => {
            abi::code(Err(kembench::kem::KemError::Failure(why)))
        }
    }
}
