//! OpenSSL's randomness switched to `profile`'s seeded stream, through OpenSSL 3.5's random
//! provider (`RAND_set1_random_provider`).
//!
//! A provider may supply the library context's random bytes
//! (`OSSL_FUNC_PROVIDER_RANDOM_BYTES`); once it is set as the random provider, `RAND_bytes_ex`
//! and `RAND_priv_bytes_ex` call it instead of the DRBG (`crypto/rand/rand_lib.c`), and every
//! draw of the default provider's key generation, ephemeral keys and blinding goes through those
//! two. The provider here is built in (`OSSL_PROVIDER_add_builtin`), offers nothing else and
//! answers from the [`Source`] its embedder set: kembench's seeded stream
//! (`providers::seeded::fill_or_os`) in kembench's own process, the host's callback in OpenSSL
//! 4's library (`workers/tls-openssl4`), so that both OpenSSLs draw from one stream.

use openssl_sys as ffi;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::ptr;
use std::sync::OnceLock;

/// `OSSL_DISPATCH`: one entry of a provider's function table.
#[repr(C)]
struct Dispatch {
    function_id: c_int,
    function: Option<unsafe extern "C" fn()>,
}

/// `OSSL_FUNC_PROVIDER_RANDOM_BYTES` (`core_dispatch.h`).
const RANDOM_BYTES: c_int = 1032;

type RandomBytesFn = unsafe extern "C" fn(*mut c_void, c_int, *mut c_void, usize, c_uint) -> c_int;

type InitFn = unsafe extern "C" fn(
    *const c_void,
    *const Dispatch,
    *mut *const Dispatch,
    *mut *mut c_void,
) -> c_int;

unsafe extern "C" {
    fn OSSL_PROVIDER_add_builtin(
        ctx: *mut ffi::OSSL_LIB_CTX,
        name: *const c_char,
        init: InitFn,
    ) -> c_int;
    fn RAND_set1_random_provider(
        ctx: *mut ffi::OSSL_LIB_CTX,
        prov: *mut ffi::OSSL_PROVIDER,
    ) -> c_int;
}

/// The provider's name in the default library context.
const NAME: &CStr = c"kembench-seeded";

/// `provider_random_bytes`: `n` bytes of the calling thread's seeded stream (1 on success).
unsafe extern "C" fn random_bytes(
    _provctx: *mut c_void,
    _which: c_int,
    buf: *mut c_void,
    n: usize,
    _strength: c_uint,
) -> c_int {
    // SAFETY: OpenSSL passes a writable buffer of `n` bytes.
    let buf = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), n) };
    c_int::from(SOURCE.get().is_some_and(|s| (s.fill)(buf)))
}

/// Where the seeded provider's bytes come from, set once by whoever embeds this module.
#[derive(Debug, Clone, Copy)]
pub struct Source {
    /// Installs a seed: every thread's draws start from it from now on.
    pub install: fn(&[u8; 32]),
    /// Fills the buffer from the seeded stream (or the operating system when no seed is
    /// installed); false on failure.
    pub fill: fn(&mut [u8]) -> bool,
}

static SOURCE: OnceLock<Source> = OnceLock::new();

/// Sets the seeded provider's source (the first call wins: one process, one stream).
pub fn set_source(source: Source) {
    let _ = SOURCE.set(source);
}

/// The provider's function table: random bytes only.
static DISPATCH: [Dispatch; 2] = [
    Dispatch {
        function_id: RANDOM_BYTES,
        // SAFETY: OpenSSL calls a table entry through the type its id names, as C providers'
        // tables store every function as `void (*)(void)`.
        function: Some(unsafe {
            std::mem::transmute::<RandomBytesFn, unsafe extern "C" fn()>(random_bytes)
        }),
    },
    Dispatch {
        function_id: 0,
        function: None,
    },
];

/// `OSSL_provider_init_fn`: hands OpenSSL the table; the provider keeps no context.
unsafe extern "C" fn init(
    _handle: *const c_void,
    _core: *const Dispatch,
    out: *mut *const Dispatch,
    provctx: *mut *mut c_void,
) -> c_int {
    // SAFETY: OpenSSL passes valid out-pointers.
    unsafe {
        *out = DISPATCH.as_ptr();
        *provctx = ptr::null_mut();
    }
    1
}

/// The provider, loaded once: its address, or why it could not be loaded.
fn provider() -> &'static Result<usize, String> {
    static PROVIDER: OnceLock<Result<usize, String>> = OnceLock::new();
    PROVIDER.get_or_init(|| {
        // SAFETY: a static name and an init function valid for the process.
        if unsafe { OSSL_PROVIDER_add_builtin(ptr::null_mut(), NAME.as_ptr(), init) } != 1 {
            return Err("OSSL_PROVIDER_add_builtin failed".into());
        }
        // Keep the default provider: loading any provider explicitly would otherwise stop
        // OpenSSL from loading it on first use.
        // SAFETY: the default library context and a registered name.
        let p = unsafe { ffi::OSSL_PROVIDER_try_load(ptr::null_mut(), NAME.as_ptr(), 1) };
        if p.is_null() {
            Err("OSSL_PROVIDER_try_load failed".into())
        } else {
            Ok(p as usize)
        }
    })
}

/// Installs `seed` and makes OpenSSL draw from the seeded stream from now on.
pub(super) fn fix(seed: &[u8; 32]) -> Result<(), String> {
    let source = SOURCE
        .get()
        .ok_or("no seeded source was set for OpenSSL's random provider")?;
    (source.install)(seed);
    let p = provider().clone()?;
    // SAFETY: a provider loaded into the default library context, never unloaded.
    if unsafe { RAND_set1_random_provider(ptr::null_mut(), p as *mut ffi::OSSL_PROVIDER) } == 1 {
        Ok(())
    } else {
        Err("RAND_set1_random_provider failed".into())
    }
}
