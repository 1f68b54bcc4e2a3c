//! liboqs's two SHA-3 callback tables, and what kembench installs in them: a probe that counts
//! liboqs's SHA-3 (`profile --sha3-probe`), and the routes of `liboqs/openssl-sha3` (OpenSSL's
//! SHA-3 for the operations of that label, liboqs's own for every other caller).
//!
//! liboqs reaches SHA-3 only through two tables of function pointers (`OQS_SHA3_callbacks` in
//! `sha3_ops.h`, `OQS_SHA3_x4_callbacks` in `sha3x4_ops.h`), which a caller may replace
//! (`OQS_SHA3_set_callbacks`, `OQS_SHA3_x4_set_callbacks`). liboqs's defaults are
//! `sha3_default_callbacks` and `sha3_x4_default_callbacks`, global symbols of `liboqs.a`;
//! OpenSSL's are liboqs's own `ossl_sha3.c` and `ossl_sha3x4.c`, compiled by kembench's
//! `build.rs` with their tables renamed `kembench_ossl_sha3_callbacks` and
//! `kembench_ossl_sha3_x4_callbacks` (features `liboqs` and `openssl`). oqs-sys has no bindings
//! for any of this, so the tables are declared here, field for field as in liboqs 0.13's
//! headers.
//!
//! **Routes.** The tables are process-global, but `verify` runs several labels in one process,
//! on threads. So the table kembench installs picks, per call, the backend of the calling
//! thread: OpenSSL's while a `liboqs/openssl-sha3` operation runs on it ([`with_openssl`]), else
//! liboqs's own. A SHA-3 context is created and released within one operation, so it never
//! crosses backends. Nothing is installed until the first `liboqs/openssl-sha3` operation of a
//! process: a process that never runs one (the plain `liboqs` worker of `run` and `profile`)
//! calls liboqs's defaults directly, as without kembench.
//!
//! **Probe.** Every SHA-3 and 4-way SHAKE call passes through a kembench function named
//! `kembench_sha3_probe_<slot>` on its way to the thread's backend. liboqs's one-shot defaults
//! call back into its incremental functions through the same tables (`SHA3_sha3_256` calls
//! `OQS_SHA3_sha3_256_inc_init`, `_absorb`, ...; OpenSSL's 4-way SHAKE calls the one-way
//! `OQS_SHA3_shake128` four times). So that no instruction is counted twice, only the
//! outermost SHA-3 call of a thread goes through a `kembench_sha3_probe_<slot>` frame; calls
//! made from inside one go straight to the backend. Each probe is a real frame (not inlined,
//! not a tail jump): callgrind's inclusive cost of the functions whose names start with
//! [`SHA3_PROBE_PREFIX`], summed, is the instructions spent in SHA-3 (plus a few per outermost
//! call for the probe itself). The table entries that choose (`sha3_probe::<slot>::entry`)
//! cost a few instructions per call outside the probes. Once installed, the probe stays (the
//! routes never replace it). Outputs are unchanged.

use std::cell::Cell;
use std::ffi::c_void;
use std::sync::Mutex;
#[cfg(feature = "openssl")]
use std::sync::Once;

/// The prefix of every probe function's symbol name.
pub const SHA3_PROBE_PREFIX: &str = "kembench_sha3_probe_";

thread_local! {
    /// How many probe frames this thread is inside.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Whether this thread's SHA-3 goes to OpenSSL (a `liboqs/openssl-sha3` operation runs).
    static OPENSSL: Cell<bool> = const { Cell::new(false) };
}

#[cfg(test)]
thread_local! {
    /// Counts of the SHA-3 calls this thread routed to each backend (tests only): (liboqs's
    /// own, OpenSSL's).
    pub(super) static ROUTED: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// Whether this thread's SHA-3 calls now go to OpenSSL.
fn openssl_now() -> bool {
    #[cfg(test)]
    ROUTED.with(|r| {
        let (own, ossl) = r.get();
        r.set(if OPENSSL.with(Cell::get) { (own, ossl + 1) } else { (own + 1, ossl) });
    });
    OPENSSL.with(Cell::get)
}

/// Whether a SHA-3 call now is an outermost one (not made from inside liboqs's SHA-3).
fn outermost() -> bool {
    DEPTH.with(|d| d.get() == 0)
}

/// Declares one of liboqs's callback tables, liboqs's default table, OpenSSL's table and the
/// setter, the backend of the calling thread, per slot a probe (forwards and counts depth), a
/// probe table entry (the probe when outermost, else the backend directly) and a route (the
/// backend), and the tables of entries and of routes.
macro_rules! probe_table {
    (
        $table:ident, $default:ident, $ossl:ident, $setter:ident, $backend:ident,
        $entries:ident, $routes:ident;
        $( $slot:ident => $probe:ident ( $($arg:ident : $ty:ty),* ); )*
    ) => {
        /// One of liboqs's callback tables, in its header's field order.
        #[repr(C)]
        struct $table {
            $( $slot: unsafe extern "C" fn($($ty),*), )*
        }

        unsafe extern "C" {
            /// liboqs's own implementations (every slot filled, in `xkcp_sha3*.c`).
            static $default: $table;
            /// OpenSSL's, by liboqs's `ossl_sha3*.c` (every slot filled; renamed by build.rs).
            #[cfg(feature = "openssl")]
            static $ossl: $table;
            /// Makes liboqs call through `table` from now on; liboqs keeps the pointer.
            fn $setter(table: *mut $table);
        }

        /// The table the calling thread's SHA-3 goes to.
        fn $backend() -> &'static $table {
            #[cfg(feature = "openssl")]
            if openssl_now() {
                // SAFETY: a filled table that lives for the process, only read.
                return unsafe { &$ossl };
            }
            #[cfg(not(feature = "openssl"))]
            let _ = openssl_now();
            // SAFETY: as above.
            unsafe { &$default }
        }

        $(
            #[no_mangle]
            #[inline(never)]
            unsafe extern "C" fn $probe($($arg: $ty),*) {
                DEPTH.with(|d| d.set(d.get() + 1));
                // SAFETY: the thread's backend's implementation of the same slot, called with
                // the arguments liboqs passed, which satisfy that implementation's contract.
                unsafe { ($backend().$slot)($($arg),*) };
                // After the call, so that the call stays a call (not a tail jump) and the probe
                // stays on the stack while liboqs's code runs.
                DEPTH.with(|d| d.set(d.get() - 1));
            }

            mod $slot {
                use super::*;

                /// The probe table's entry for this slot.
                pub(super) unsafe extern "C" fn entry($($arg: $ty),*) {
                    if outermost() {
                        // SAFETY: as the probe's own call.
                        unsafe { $probe($($arg),*) }
                    } else {
                        // SAFETY: as in the probe.
                        unsafe { ($backend().$slot)($($arg),*) }
                    }
                }

                /// The routes table's entry for this slot: the thread's backend.
                #[cfg_attr(not(feature = "openssl"), allow(dead_code))]
                pub(super) unsafe extern "C" fn route($($arg: $ty),*) {
                    // SAFETY: as in the probe.
                    unsafe { ($backend().$slot)($($arg),*) }
                }
            }
        )*

        /// The probe's entries, as a table liboqs can be given.
        static $entries: $table = $table { $( $slot: $slot::entry, )* };
        /// The routes, as a table liboqs can be given.
        #[cfg_attr(not(feature = "openssl"), allow(dead_code))]
        static $routes: $table = $table { $( $slot: $slot::route, )* };
    };
}

probe_table! {
    Sha3Callbacks, sha3_default_callbacks, kembench_ossl_sha3_callbacks, OQS_SHA3_set_callbacks,
    sha3_backend, SHA3_ENTRIES, SHA3_ROUTES;
    sha3_256 => kembench_sha3_probe_sha3_256(out: *mut u8, input: *const u8, len: usize);
    sha3_256_inc_init => kembench_sha3_probe_sha3_256_inc_init(s: *mut c_void);
    sha3_256_inc_absorb => kembench_sha3_probe_sha3_256_inc_absorb(s: *mut c_void, input: *const u8, len: usize);
    sha3_256_inc_finalize => kembench_sha3_probe_sha3_256_inc_finalize(out: *mut u8, s: *mut c_void);
    sha3_256_inc_ctx_release => kembench_sha3_probe_sha3_256_inc_ctx_release(s: *mut c_void);
    sha3_256_inc_ctx_reset => kembench_sha3_probe_sha3_256_inc_ctx_reset(s: *mut c_void);
    sha3_256_inc_ctx_clone => kembench_sha3_probe_sha3_256_inc_ctx_clone(d: *mut c_void, s: *const c_void);
    sha3_384 => kembench_sha3_probe_sha3_384(out: *mut u8, input: *const u8, len: usize);
    sha3_384_inc_init => kembench_sha3_probe_sha3_384_inc_init(s: *mut c_void);
    sha3_384_inc_absorb => kembench_sha3_probe_sha3_384_inc_absorb(s: *mut c_void, input: *const u8, len: usize);
    sha3_384_inc_finalize => kembench_sha3_probe_sha3_384_inc_finalize(out: *mut u8, s: *mut c_void);
    sha3_384_inc_ctx_release => kembench_sha3_probe_sha3_384_inc_ctx_release(s: *mut c_void);
    sha3_384_inc_ctx_reset => kembench_sha3_probe_sha3_384_inc_ctx_reset(s: *mut c_void);
    sha3_384_inc_ctx_clone => kembench_sha3_probe_sha3_384_inc_ctx_clone(d: *mut c_void, s: *const c_void);
    sha3_512 => kembench_sha3_probe_sha3_512(out: *mut u8, input: *const u8, len: usize);
    sha3_512_inc_init => kembench_sha3_probe_sha3_512_inc_init(s: *mut c_void);
    sha3_512_inc_absorb => kembench_sha3_probe_sha3_512_inc_absorb(s: *mut c_void, input: *const u8, len: usize);
    sha3_512_inc_finalize => kembench_sha3_probe_sha3_512_inc_finalize(out: *mut u8, s: *mut c_void);
    sha3_512_inc_ctx_release => kembench_sha3_probe_sha3_512_inc_ctx_release(s: *mut c_void);
    sha3_512_inc_ctx_reset => kembench_sha3_probe_sha3_512_inc_ctx_reset(s: *mut c_void);
    sha3_512_inc_ctx_clone => kembench_sha3_probe_sha3_512_inc_ctx_clone(d: *mut c_void, s: *const c_void);
    shake128 => kembench_sha3_probe_shake128(out: *mut u8, outlen: usize, input: *const u8, len: usize);
    shake128_inc_init => kembench_sha3_probe_shake128_inc_init(s: *mut c_void);
    shake128_inc_absorb => kembench_sha3_probe_shake128_inc_absorb(s: *mut c_void, input: *const u8, len: usize);
    shake128_inc_finalize => kembench_sha3_probe_shake128_inc_finalize(s: *mut c_void);
    shake128_inc_squeeze => kembench_sha3_probe_shake128_inc_squeeze(out: *mut u8, outlen: usize, s: *mut c_void);
    shake128_inc_ctx_release => kembench_sha3_probe_shake128_inc_ctx_release(s: *mut c_void);
    shake128_inc_ctx_clone => kembench_sha3_probe_shake128_inc_ctx_clone(d: *mut c_void, s: *const c_void);
    shake128_inc_ctx_reset => kembench_sha3_probe_shake128_inc_ctx_reset(s: *mut c_void);
    shake256 => kembench_sha3_probe_shake256(out: *mut u8, outlen: usize, input: *const u8, len: usize);
    shake256_inc_init => kembench_sha3_probe_shake256_inc_init(s: *mut c_void);
    shake256_inc_absorb => kembench_sha3_probe_shake256_inc_absorb(s: *mut c_void, input: *const u8, len: usize);
    shake256_inc_finalize => kembench_sha3_probe_shake256_inc_finalize(s: *mut c_void);
    shake256_inc_squeeze => kembench_sha3_probe_shake256_inc_squeeze(out: *mut u8, outlen: usize, s: *mut c_void);
    shake256_inc_ctx_release => kembench_sha3_probe_shake256_inc_ctx_release(s: *mut c_void);
    shake256_inc_ctx_clone => kembench_sha3_probe_shake256_inc_ctx_clone(d: *mut c_void, s: *const c_void);
    shake256_inc_ctx_reset => kembench_sha3_probe_shake256_inc_ctx_reset(s: *mut c_void);
}

probe_table! {
    Sha3X4Callbacks, sha3_x4_default_callbacks, kembench_ossl_sha3_x4_callbacks,
    OQS_SHA3_x4_set_callbacks, sha3_x4_backend, SHA3_X4_ENTRIES, SHA3_X4_ROUTES;
    shake128_x4 => kembench_sha3_probe_shake128_x4(
        o0: *mut u8, o1: *mut u8, o2: *mut u8, o3: *mut u8, outlen: usize,
        i0: *const u8, i1: *const u8, i2: *const u8, i3: *const u8, inlen: usize);
    shake128_x4_inc_init => kembench_sha3_probe_shake128_x4_inc_init(s: *mut c_void);
    shake128_x4_inc_absorb => kembench_sha3_probe_shake128_x4_inc_absorb(
        s: *mut c_void, i0: *const u8, i1: *const u8, i2: *const u8, i3: *const u8, inlen: usize);
    shake128_x4_inc_finalize => kembench_sha3_probe_shake128_x4_inc_finalize(s: *mut c_void);
    shake128_x4_inc_squeeze => kembench_sha3_probe_shake128_x4_inc_squeeze(
        o0: *mut u8, o1: *mut u8, o2: *mut u8, o3: *mut u8, outlen: usize, s: *mut c_void);
    shake128_x4_inc_ctx_release => kembench_sha3_probe_shake128_x4_inc_ctx_release(s: *mut c_void);
    shake128_x4_inc_ctx_clone => kembench_sha3_probe_shake128_x4_inc_ctx_clone(d: *mut c_void, s: *const c_void);
    shake128_x4_inc_ctx_reset => kembench_sha3_probe_shake128_x4_inc_ctx_reset(s: *mut c_void);
    shake256_x4 => kembench_sha3_probe_shake256_x4(
        o0: *mut u8, o1: *mut u8, o2: *mut u8, o3: *mut u8, outlen: usize,
        i0: *const u8, i1: *const u8, i2: *const u8, i3: *const u8, inlen: usize);
    shake256_x4_inc_init => kembench_sha3_probe_shake256_x4_inc_init(s: *mut c_void);
    shake256_x4_inc_absorb => kembench_sha3_probe_shake256_x4_inc_absorb(
        s: *mut c_void, i0: *const u8, i1: *const u8, i2: *const u8, i3: *const u8, inlen: usize);
    shake256_x4_inc_finalize => kembench_sha3_probe_shake256_x4_inc_finalize(s: *mut c_void);
    shake256_x4_inc_squeeze => kembench_sha3_probe_shake256_x4_inc_squeeze(
        o0: *mut u8, o1: *mut u8, o2: *mut u8, o3: *mut u8, outlen: usize, s: *mut c_void);
    shake256_x4_inc_ctx_release => kembench_sha3_probe_shake256_x4_inc_ctx_release(s: *mut c_void);
    shake256_x4_inc_ctx_clone => kembench_sha3_probe_shake256_x4_inc_ctx_clone(d: *mut c_void, s: *const c_void);
    shake256_x4_inc_ctx_reset => kembench_sha3_probe_shake256_x4_inc_ctx_reset(s: *mut c_void);
}

/// What kembench has installed in liboqs's tables, in the order each replaces the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(not(feature = "openssl"), allow(dead_code))]
enum Installed {
    /// Nothing: liboqs's defaults.
    Defaults,
    /// The routes: each thread's backend.
    Routes,
    /// The probe (which routes as well).
    Probe,
}

/// What is installed now; installing waits on it, so that the routes never replace the probe.
static INSTALLED: Mutex<Installed> = Mutex::new(Installed::Defaults);

/// Installs `what` unless it or a later one (the probe) already is.
fn install(what: Installed) {
    super::init();
    let mut now = INSTALLED.lock().unwrap_or_else(|e| e.into_inner());
    if *now >= what {
        return;
    }
    let (sha3, x4) = match what {
        Installed::Defaults => return,
        Installed::Routes => (&SHA3_ROUTES, &SHA3_X4_ROUTES),
        Installed::Probe => (&SHA3_ENTRIES, &SHA3_X4_ENTRIES),
    };
    // SAFETY: both tables are statics that live for the process and have the layout of
    // liboqs's structs; liboqs only reads through the pointers (the casts to `*mut` follow the
    // C prototypes). Replacing a table while another thread hashes is benign: every table
    // kembench installs ends, for a given thread, in the same functions on the same contexts.
    unsafe {
        OQS_SHA3_set_callbacks(std::ptr::from_ref(sha3).cast_mut());
        OQS_SHA3_x4_set_callbacks(std::ptr::from_ref(x4).cast_mut());
    }
    *now = what;
}

/// Routes every outermost SHA-3 and 4-way SHAKE call of liboqs through a
/// `kembench_sha3_probe_*` frame (see the module docs). Process-global and permanent; calling
/// it again changes nothing. Outputs are unchanged.
pub fn install_sha3_probe() {
    install(Installed::Probe);
}

/// Runs `f` with this thread's SHA-3 on OpenSSL: installs the routes on the first call of the
/// process (unless the probe, which routes too, is there), sets the thread's flag for the
/// duration of `f` and puts it back after, even if `f` panics.
#[cfg(feature = "openssl")]
pub(super) fn with_openssl<T>(f: impl FnOnce() -> T) -> T {
    static ROUTES: Once = Once::new();
    ROUTES.call_once(|| install(Installed::Routes));
    /// Puts the thread's flag back when dropped.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            OPENSSL.with(|o| o.set(self.0));
        }
    }
    let _restore = Restore(OPENSSL.with(|o| o.replace(true)));
    f()
}

#[cfg(test)]
mod tests {
    use super::super::LibOqs;
    use super::*;
    use crate::kem::Kem;

    /// A round trip and the two-entry known-answer transcript of each method that reaches
    /// SHA-3 differently: ML-KEM (x4 on AVX2), FrodoKEM-SHAKE, Classic McEliece (SHAKE256).
    fn transcripts() -> Vec<String> {
        ["ML-KEM-768", "ML-KEM-512", "FrodoKEM-640-SHAKE", "Classic-McEliece-348864"]
            .iter()
            .map(|m| {
                let k = LibOqs::open(m, m).unwrap();
                let k: &dyn Kem = &k;
                let (pk, sk) = k.keypair_vec().unwrap();
                let (ct, ss) = k.encaps_vec(&pk).unwrap();
                assert_eq!(k.decaps_vec(&sk, &ct).unwrap(), ss, "{m}: round trip");
                k.known_answer_transcript(2).unwrap().unwrap()
            })
            .collect()
    }

    /// McEliece's keys are large: a big stack.
    fn on_big_stack(f: fn() -> Vec<String>) -> Vec<String> {
        std::thread::Builder::new()
            .stack_size(crate::kem::MEGABYTE_KEYS_STACK)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    }

    #[test]
    fn the_probe_changes_no_output() {
        let before = on_big_stack(transcripts);
        install_sha3_probe();
        let after = on_big_stack(transcripts);
        assert_eq!(before, after);
    }
}
