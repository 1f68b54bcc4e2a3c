//! aws-lc's randomness switched to `profile`'s seeded stream, for the aws-lc and rustls
//! providers (both run on the aws-lc that `aws-lc-sys` builds).
//!
//! aws-lc draws every random byte from a per-thread CTR-DRBG (`crypto/fipsmodule/rand/rand.c`)
//! that takes its seed, its extra entropy and its prediction resistance (RDRAND) from an
//! "entropy source". aws-lc-rs offers no deterministic key generation and no way to pass a
//! generator (its `SecureRandom` is sealed; `dev-tests-only` refuses release builds), and
//! aws-lc's public `RAND_set_rand_method` does nothing. What aws-lc does export is
//! `override_entropy_source_method_FOR_TESTING` (declared in its internal header
//! `crypto/fipsmodule/rand/entropy/internal.h`): a process-global replacement of the entropy
//! source, taken by each thread's DRBG when the thread first draws. The replacement here gives
//! seed material from the thread's seeded stream and no extra entropy or prediction
//! resistance, so the DRBG's output, and every draw of key generation and ephemeral keys, is a
//! function of the seed.
//!
//! Two limits: it is a testing hook of aws-lc with an internal struct layout (copied here from
//! aws-lc-sys 0.47's sources, checked by the provider tests' determinism check), and a thread
//! that drew from aws-lc before [`fix`] keeps its DRBG (a fresh `profile` worker has none).

use crate::providers::seeded;

/// `CTR_DRBG_ENTROPY_LEN`: the seed length of aws-lc's CTR-DRBG.
const SEED_LEN: usize = 48;

/// `OVERRIDDEN_ENTROPY_SOURCE`.
const OVERRIDDEN: i32 = 0;

/// `struct entropy_source_methods` (`crypto/fipsmodule/rand/entropy/internal.h`); the
/// `entropy_source_t` argument is not looked at here.
#[repr(C)]
struct EntropySourceMethods {
    initialize: unsafe extern "C" fn(*mut u8) -> i32,
    zeroize_thread: unsafe extern "C" fn(*mut u8),
    free_thread: unsafe extern "C" fn(*mut u8),
    get_seed: unsafe extern "C" fn(*const u8, *mut u8) -> i32,
    get_extra_entropy: Option<unsafe extern "C" fn(*const u8, *mut u8) -> i32>,
    get_prediction_resistance: Option<unsafe extern "C" fn(*const u8, *mut u8) -> i32>,
    id: i32,
}

unsafe extern "C" {
    #[link_name = concat!(
        env!("KEMBENCH_AWS_LC_SYMBOL_PREFIX"),
        "override_entropy_source_method_FOR_TESTING"
    )]
    fn override_entropy_source_method(methods: *const EntropySourceMethods);
}

unsafe extern "C" fn initialize(_source: *mut u8) -> i32 {
    1
}

unsafe extern "C" fn nothing(_source: *mut u8) {}

/// `SEED_LEN` bytes of the calling thread's seeded stream (the OS's if the seed was removed).
unsafe extern "C" fn get_seed(_source: *const u8, seed: *mut u8) -> i32 {
    // SAFETY: aws-lc passes a `uint8_t[CTR_DRBG_ENTROPY_LEN]`.
    let buf = unsafe { std::slice::from_raw_parts_mut(seed, SEED_LEN) };
    i32::from(seeded::fill_or_os(buf).is_ok())
}

static SEEDED: EntropySourceMethods = EntropySourceMethods {
    initialize,
    zeroize_thread: nothing,
    free_thread: nothing,
    get_seed,
    get_extra_entropy: None,
    get_prediction_resistance: None,
    id: OVERRIDDEN,
};

/// Installs `seed` and makes aws-lc's per-thread DRBGs seed from the seeded stream: every
/// thread that draws from aws-lc for the first time from now on.
pub(super) fn fix(seed: &[u8; 32]) {
    seeded::install(seed);
    // SAFETY: a static table with the layout aws-lc expects, every mandatory slot filled;
    // aws-lc keeps the pointer, and the table lives for the process.
    unsafe { override_entropy_source_method(&SEEDED) };
}

/// What `fix_randomness` reports for aws-lc and rustls.
pub(super) const FIXED: &str = "aws-lc's per-thread CTR-DRBG seeded from kembench's seeded \
    ChaCha20 stream, with no extra entropy and no RDRAND prediction resistance \
    (override_entropy_source_method_FOR_TESTING, an exported testing hook of aws-lc, \
    process-global): every draw of keygen, encaps and decaps, on threads that first draw from \
    aws-lc after this call";
