//! An oracle for the hardware-counter tests that does not go through kembench's counters:
//! `perf_event_open(2)` called directly for one event, retired user-space instructions of this
//! thread. kembench opens its five events through perf-event2 (`measure::counters`); the tests
//! ask this oracle whether the machine counts at all, and then require kembench to measure
//! (where it does) or to say why not (where it does not), so that neither outcome passes
//! unchecked. Included by the unit tests of `measure::counters` as well (`#[path]`).

/// The leading 64 bytes of `struct perf_event_attr` (`PERF_ATTR_SIZE_VER0`), which every
/// kernel with perf events accepts.
#[repr(C)]
#[derive(Default)]
#[allow(dead_code)] // read by the kernel, not by Rust
struct Attr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_COUNT_HW_INSTRUCTIONS: u64 = 1;
/// `disabled`, `exclude_kernel`, `exclude_hv`: bits 0, 5 and 6 of the flags word.
const DISABLED_USER_ONLY: u64 = 1 | 1 << 5 | 1 << 6;
const PERF_EVENT_IOC_ENABLE: u64 = 0x2400;
const PERF_EVENT_IOC_DISABLE: u64 = 0x2401;

/// The user-space instructions this thread retires over a loop of `iterations` opaque steps,
/// counted by the kernel; or why the machine does not count them here (the OS error of
/// `perf_event_open`, or a count of zero: the event was never scheduled).
pub fn instructions_over(iterations: u64) -> Result<u64, String> {
    let attr = Attr {
        kind: PERF_TYPE_HARDWARE,
        size: std::mem::size_of::<Attr>() as u32,
        config: PERF_COUNT_HW_INSTRUCTIONS,
        flags: DISABLED_USER_ONLY,
        ..Attr::default()
    };
    // pid 0 (this thread), cpu -1 (any), no group, no flags.
    // SAFETY: `attr` is a valid VER0 attribute that outlives the call.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const Attr,
            0,
            -1,
            -1,
            0u64,
        )
    };
    if fd < 0 {
        return Err(format!(
            "perf_event_open: {}",
            std::io::Error::last_os_error()
        ));
    }
    let fd = fd as libc::c_int;
    let mut count = 0u64;
    // SAFETY: `fd` is the event just opened, read into a u64 of its own, and closed once.
    unsafe {
        libc::ioctl(fd, PERF_EVENT_IOC_ENABLE as _, 0);
        for i in 0..iterations {
            std::hint::black_box(i);
        }
        libc::ioctl(fd, PERF_EVENT_IOC_DISABLE as _, 0);
        let n = libc::read(fd, &mut count as *mut u64 as *mut libc::c_void, 8);
        libc::close(fd);
        if n != 8 {
            return Err("reading the instruction count failed".into());
        }
    }
    if count == 0 {
        return Err("the instruction event was never scheduled".into());
    }
    Ok(count)
}
