//! A probe on liboqs's SHA-3: every SHA-3 and 4-way SHAKE call of liboqs passes through a
//! kembench function named `kembench_sha3_probe_<slot>` on its way to liboqs's own code.
//!
//! liboqs reaches SHA-3 only through two tables of function pointers (`OQS_SHA3_callbacks` in
//! `sha3_ops.h`, `OQS_SHA3_x4_callbacks` in `sha3x4_ops.h`), which a caller may replace
//! (`OQS_SHA3_set_callbacks`, `OQS_SHA3_x4_set_callbacks`). The probe replaces both with tables
//! of wrappers that forward each call, unchanged, to liboqs's defaults (`sha3_default_callbacks`,
//! `sha3_x4_default_callbacks`, global symbols of `liboqs.a`; oqs-sys has no bindings for any of
//! this, so the tables are declared here, field for field as in liboqs 0.13's headers).
//!
//! liboqs's one-shot defaults call back into its incremental functions through the same tables
//! (`SHA3_sha3_256` calls `OQS_SHA3_sha3_256_inc_init`, `_absorb`, ...). So that no instruction
//! is counted twice, only the outermost SHA-3 call of a thread goes through a
//! `kembench_sha3_probe_<slot>` frame; calls made from inside one go straight to liboqs's
//! default. Each probe is a real frame (not inlined, not a tail jump): callgrind's inclusive
//! cost of the functions whose names start with [`SHA3_PROBE_PREFIX`], summed, is the
//! instructions spent in liboqs's SHA-3 (plus a few per outermost call for the probe itself).
//! The table entries that choose (`sha3_probe::<slot>::entry`) cost a few instructions per call
//! outside the probes. Outputs are unchanged.

use std::cell::Cell;
use std::ffi::c_void;

/// The prefix of every probe function's symbol name.
pub const SHA3_PROBE_PREFIX: &str = "kembench_sha3_probe_";

thread_local! {
    /// How many probe frames this thread is inside.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Whether a SHA-3 call now is an outermost one (not made from inside liboqs's SHA-3).
fn outermost() -> bool {
    DEPTH.with(|d| d.get() == 0)
}

/// Declares one of liboqs's callback tables, liboqs's default table and setter, per slot a
/// probe (forwards and counts depth) and a table entry (the probe when outermost, else liboqs's
/// default directly), and the table of entries.
macro_rules! probe_table {
    (
        $table:ident, $default:ident, $setter:ident, $entries:ident;
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
            /// Makes liboqs call through `table` from now on; liboqs keeps the pointer.
            fn $setter(table: *mut $table);
        }

        $(
            #[no_mangle]
            #[inline(never)]
            unsafe extern "C" fn $probe($($arg: $ty),*) {
                DEPTH.with(|d| d.set(d.get() + 1));
                // SAFETY: liboqs's default implementation of the same slot, called with the
                // arguments liboqs passed, which satisfy that implementation's contract.
                unsafe { ($default.$slot)($($arg),*) };
                // After the call, so that the call stays a call (not a tail jump) and the probe
                // stays on the stack while liboqs's code runs.
                DEPTH.with(|d| d.set(d.get() - 1));
            }

            mod $slot {
                use super::*;

                /// The table's entry for this slot.
                pub(super) unsafe extern "C" fn entry($($arg: $ty),*) {
                    if outermost() {
                        // SAFETY: as the probe's own call.
                        unsafe { $probe($($arg),*) }
                    } else {
                        // SAFETY: as in the probe.
                        unsafe { ($default.$slot)($($arg),*) }
                    }
                }
            }
        )*

        /// The entries, as a table liboqs can be given.
        static $entries: $table = $table { $( $slot: $slot::entry, )* };
    };
}

probe_table! {
    Sha3Callbacks, sha3_default_callbacks, OQS_SHA3_set_callbacks, SHA3_ENTRIES;
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
    Sha3X4Callbacks, sha3_x4_default_callbacks, OQS_SHA3_x4_set_callbacks, SHA3_X4_ENTRIES;
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

/// Routes every outermost SHA-3 and 4-way SHAKE call of liboqs through a
/// `kembench_sha3_probe_*` frame (see the module docs). Process-global and permanent; calling it again changes
/// nothing. Outputs are unchanged.
pub fn install_sha3_probe() {
    super::init();
    // SAFETY: both tables are statics that live for the process and have the layout of
    // liboqs's structs; liboqs only reads through the pointers (the casts to `*mut` follow the
    // C prototypes). Replacing a table while another thread hashes is benign: both tables end
    // in the same functions on the same contexts.
    unsafe {
        OQS_SHA3_set_callbacks(std::ptr::from_ref(&SHA3_ENTRIES).cast_mut());
        OQS_SHA3_x4_set_callbacks(std::ptr::from_ref(&SHA3_X4_ENTRIES).cast_mut());
    }
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
