//! Stack meter: the maximum stack depth that a closure reaches, by stack painting.
//!
//! # Method
//!
//! [`measure`] runs the closure on a fresh thread whose stack has the requested size. At
//! the start of that thread the harness finds the lowest address of the thread's stack
//! (`pthread_getattr_np` and `pthread_attr_getstack`; one page above it is left alone),
//! reads the stack pointer, and fills everything in between, that is every byte the closure
//! could use, with a fixed 8-byte pattern. On x86-64 the stack pointer is read and the fill
//! (`rep stosq`) done by inline assembly within the harness frame, so the paint reaches the
//! stack pointer itself: the harness function calls other functions, so the compiler keeps
//! nothing below the stack pointer there (there is no red zone in a non-leaf function).
//! The harness then calls the closure, and afterwards scans upwards from the bottom of the
//! painted region for the first byte that no longer holds the pattern. The depth is the
//! stack pointer minus that address.
//!
//! The harness's own share (the call into the closure through a trait object) is measured
//! once with an empty closure, cached, and subtracted, so the figure is the closure's own
//! depth, including the frames of everything it calls (Rust or C).
//!
//! # Limits
//!
//! - The meter sees bytes that were *written*. Stack that a function reserves but never
//!   writes (an array it leaves untouched, frame padding below the deepest store) is not
//!   seen; stack probes that only read or `or` zero into a page are not seen either.
//! - A write that stores exactly the pattern's bytes at the deepest spot would be missed
//!   (the 8-byte pattern makes that a coincidence, not a habit of real code).
//! - The closure runs on another thread: it does not see the caller's thread-locals, and a
//!   signal handler that runs on that thread's stack would add to the figure.
//! - The figure can differ by a few bytes from the "true" depth because the calibration
//!   closure's call path is not byte-for-byte the one the measured closure takes.
//! - A closure that needs more than `stack_size` overflows into the guard page, which
//!   aborts the whole process (Rust's stack overflow handler); it cannot be reported as an
//!   error. Give it a larger stack.
//! - Painting touches the whole stack (64 MiB for an algorithm with megabyte keys:
//!   [`Algorithm::stack_size`](crate::kem::Algorithm::stack_size)), which costs tens of
//!   milliseconds and that much resident memory while the measurement runs.

use serde::{Deserialize, Serialize};
use std::any::Any;
use std::sync::OnceLock;

/// Stack usage of one measured closure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackUsage {
    /// Deepest stack extent the closure wrote, in bytes below the point where it was called.
    pub max_stack_bytes: u64,
}

/// The paint: eight distinct, non-zero bytes.
const PATTERN: u64 = 0xA55A_C33C_96E1_4BD2;

/// Bytes above the lowest stack address that are left unpainted.
const FLOOR_MARGIN: usize = 4096;

/// Stack size of the calibration thread.
const CALIBRATION_STACK: usize = 1 << 20;

/// Runs `f` on a fresh thread with a `stack_size`-byte stack and returns its result and its
/// maximum stack depth.
///
/// Returns `Err` with the panic payload if `f` panics, or with a `String` payload if the
/// thread cannot be spawned.
pub fn measure<R: Send>(
    stack_size: usize,
    f: impl FnOnce() -> R + Send,
) -> std::thread::Result<(R, StackUsage)> {
    let baseline = baseline();
    let (r, raw) = run_painted(stack_size, f)?;
    Ok((
        r,
        StackUsage {
            max_stack_bytes: raw.saturating_sub(baseline),
        },
    ))
}

/// The harness's own depth: an empty closure measured once.
fn baseline() -> u64 {
    static BASELINE: OnceLock<u64> = OnceLock::new();
    *BASELINE.get_or_init(|| {
        run_painted(CALIBRATION_STACK, || ())
            .map(|((), depth)| depth)
            .unwrap_or(0)
    })
}

/// Runs `f` on a new thread with a painted stack; returns its result and the raw depth
/// (harness included).
fn run_painted<R: Send>(
    stack_size: usize,
    f: impl FnOnce() -> R + Send,
) -> std::thread::Result<(R, u64)> {
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("kembench-stack".to_owned())
            .stack_size(stack_size)
            .spawn_scoped(scope, move || {
                let floor = stack_floor(stack_size);
                let mut f = Some(f);
                let mut out = None;
                let depth = painted_call(floor, &mut || {
                    if let Some(f) = f.take() {
                        out = Some(f());
                    }
                });
                (out.expect("the measured closure ran"), depth)
            });
        match spawned {
            Ok(handle) => handle.join(),
            Err(e) => {
                Err(Box::new(format!("cannot spawn the measuring thread: {e}"))
                    as Box<dyn Any + Send>)
            }
        }
    })
}

/// Lowest address of the current thread's stack that may be painted.
#[cfg(target_os = "linux")]
fn stack_floor(stack_size: usize) -> usize {
    let mut attr = std::mem::MaybeUninit::<libc::pthread_attr_t>::uninit();
    // SAFETY: `pthread_getattr_np` initialises `attr` for the calling thread when it
    // returns 0; it is destroyed once, after use.
    let bounds = unsafe {
        if libc::pthread_getattr_np(libc::pthread_self(), attr.as_mut_ptr()) != 0 {
            None
        } else {
            let mut addr = std::ptr::null_mut();
            let mut size = 0;
            let rc = libc::pthread_attr_getstack(attr.as_ptr(), &mut addr, &mut size);
            libc::pthread_attr_destroy(attr.as_mut_ptr());
            (rc == 0 && !addr.is_null()).then_some(addr as usize)
        }
    };
    match bounds {
        Some(lowest) => lowest + FLOOR_MARGIN,
        None => estimated_floor(stack_size),
    }
}

/// Lowest address of the current thread's stack that may be painted.
#[cfg(not(target_os = "linux"))]
fn stack_floor(stack_size: usize) -> usize {
    estimated_floor(stack_size)
}

/// A conservative floor when the real bounds are unknown: three quarters of the stack
/// below the current frame.
fn estimated_floor(stack_size: usize) -> usize {
    let here = 0u8;
    let here = std::hint::black_box(&here) as *const u8 as usize;
    here - stack_size / 4 * 3
}

/// Paints `[floor, stack pointer)`, calls `f`, and returns the depth below the stack
/// pointer of the lowest byte that changed.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn painted_call(floor: usize, f: &mut dyn FnMut()) -> u64 {
    let sp: usize;
    // SAFETY: reads the stack pointer into a register; touches no memory.
    unsafe {
        std::arch::asm!("mov {}, rsp", out(reg) sp, options(nomem, nostack, preserves_flags));
    }
    let lo = floor.next_multiple_of(8);
    let hi = sp & !7;
    if hi > lo {
        // SAFETY: `[lo, hi)` lies within this thread's stack (above its lowest address plus
        // a page, below the current stack pointer) and is unused: this function calls
        // others, so the compiler keeps no data below the stack pointer (no red zone), and
        // nothing else runs on this stack meanwhile. `rep stosq` writes `rcx` words of `rax`
        // from `rdi` upwards (the direction flag is clear on entry to `asm!`), using no stack.
        unsafe {
            std::arch::asm!(
                "rep stosq",
                inout("rdi") lo => _,
                inout("rcx") (hi - lo) / 8 => _,
                in("rax") PATTERN,
                options(nostack, preserves_flags),
            );
        }
    }
    f();
    let lowest = lowest_modified(lo, hi).unwrap_or(hi);
    (sp - lowest) as u64
}

/// Paints from `floor` to a little below the current frame, calls `f`, and returns the
/// depth below the frame of the lowest byte that changed.
#[cfg(not(target_arch = "x86_64"))]
#[inline(never)]
fn painted_call(floor: usize, f: &mut dyn FnMut()) -> u64 {
    /// Left unpainted below the frame, for the painting function's own frame.
    const MARGIN: usize = 1024;
    let here = 0u8;
    let sp = std::hint::black_box(&here) as *const u8 as usize;
    let lo = floor.next_multiple_of(8);
    let hi = (sp - MARGIN) & !7;
    if hi > lo {
        paint(lo, hi);
    }
    f();
    let lowest = lowest_modified(lo, hi).unwrap_or(hi);
    (sp - lowest) as u64
}

/// Fills `[lo, hi)` with the pattern.
#[cfg(not(target_arch = "x86_64"))]
#[inline(never)]
fn paint(lo: usize, hi: usize) {
    let mut a = lo;
    while a < hi {
        // SAFETY: `[lo, hi)` is unused stack of this thread, below this function's caller's
        // frame by more than this function's own frame, and 8-byte aligned.
        unsafe { std::ptr::write_volatile(a as *mut u64, PATTERN) };
        a += 8;
    }
}

/// Address of the lowest byte in `[lo, hi)` (8-byte aligned) that no longer holds the
/// pattern.
#[inline(always)]
fn lowest_modified(lo: usize, hi: usize) -> Option<usize> {
    let mut a = lo;
    while a < hi {
        // SAFETY: `[lo, hi)` is mapped stack of this thread, above the current stack
        // pointer's frame-free region that was painted and that no other thread writes; the
        // address is 8-byte aligned. Volatile, since the memory is not a Rust object.
        let word = unsafe { std::ptr::read_volatile(a as *const u64) };
        if word != PATTERN {
            let diff = word ^ PATTERN;
            let byte = if cfg!(target_endian = "little") {
                diff.trailing_zeros()
            } else {
                diff.leading_zeros()
            } / 8;
            return Some(a + byte as usize);
        }
        a += 8;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kem::MEGABYTE_KEYS_STACK;
    use std::hint::black_box;

    /// Writes every byte of an `N`-byte stack array and reads one back.
    #[inline(never)]
    fn touch_array<const N: usize>() -> u8 {
        let mut buf = [0u8; N];
        for (i, b) in buf.iter_mut().enumerate() {
            // SAFETY: `b` is a valid, exclusive reference into `buf`.
            unsafe { std::ptr::write_volatile(b, i as u8) };
        }
        black_box(&mut buf);
        // SAFETY: in bounds of `buf`.
        unsafe { std::ptr::read_volatile(&buf[N / 2]) }
    }

    #[test]
    fn known_depth_of_64_kib() {
        let (x, usage) = measure(MEGABYTE_KEYS_STACK, touch_array::<65536>).unwrap();
        assert_eq!(x, (65536 / 2) as u8);
        let d = usage.max_stack_bytes;
        assert!(d.abs_diff(65536) <= 256, "measured {d}");
    }

    #[test]
    fn known_depth_in_a_small_stack() {
        let (_, usage) = measure(256 << 10, touch_array::<65536>).unwrap();
        let d = usage.max_stack_bytes;
        assert!(d.abs_diff(65536) <= 256, "measured {d}");
    }

    #[test]
    fn trivial_closure_is_shallow() {
        let (x, usage) = measure(MEGABYTE_KEYS_STACK, || black_box(1) + 1).unwrap();
        assert_eq!(x, 2);
        assert!(usage.max_stack_bytes < 512, "{usage:?}");
    }

    #[test]
    fn one_mebibyte_array_fits_the_default_stack() {
        let (_, usage) = measure(MEGABYTE_KEYS_STACK, touch_array::<{ 1 << 20 }>).unwrap();
        let d = usage.max_stack_bytes;
        assert!(d.abs_diff(1 << 20) <= 256, "measured {d}");
    }

    #[test]
    fn borrows_and_results_pass_through() {
        let data = [1u64, 2, 3];
        let (sum, _) = measure(MEGABYTE_KEYS_STACK, || data.iter().sum::<u64>()).unwrap();
        assert_eq!(sum, 6);
    }

    #[test]
    fn panics_are_returned() {
        let r = measure(1 << 20, || -> u8 { panic!("boom") });
        let payload = r.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom"));
    }
}
