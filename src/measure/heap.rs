//! Heap meter: peak live heap, allocation count and bytes requested by a closure, counting
//! the allocations made inside the C libraries (OpenSSL, liboqs, PQClean, aws-lc) as well as
//! Rust's own.
//!
//! # Method
//!
//! This module interposes the C allocator. It defines `malloc`, `free`, `calloc`, `realloc`,
//! `reallocarray`, `posix_memalign`, `aligned_alloc`, `memalign`, `valloc` and `pvalloc` as
//! exported, unmangled symbols, each of which forwards to glibc's own implementation
//! (`__libc_malloc`, `__libc_free`, …), so the memory itself still comes from glibc and
//! glibc's `malloc_usable_size` keeps working on it. Because the definitions live in the
//! executable, they win over glibc's at link time for every statically linked object (the
//! Rust standard library's `System` allocator, which calls `malloc`, and the vendored C
//! libraries), and, through the executable's dynamic symbol table, at load time for calls
//! that glibc makes internally (`strdup`, `fopen`, …).
//!
//! Bookkeeping is per thread, in `thread_local!` cells with `const` initialisers and no
//! destructor, so reading them from inside `malloc` never allocates and stays valid while a
//! thread is being torn down. A per-thread `enabled` flag is off except inside [`measure`],
//! so threads that are not measuring pay one thread-local read per call.
//!
//! While a measurement runs, every allocation made on the measuring thread is recorded in a
//! small open-addressing table (pointer → requested size) that lives in an anonymous memory
//! mapping made for the measurement (`mmap`, which does not allocate from the heap). A `free`
//! on the measuring thread subtracts the size that was recorded for that pointer; a pointer
//! that is not in the table (it was allocated before the measurement began, or on another
//! thread) subtracts its `malloc_usable_size` instead, so freeing pre-existing memory lowers
//! the live figure below its starting point. Should the table fill up (tens of thousands of
//! simultaneously live allocations), further allocations are charged, and later released,
//! at their usable size; the balance still returns to zero.
//!
//! # What is counted
//!
//! - [`HeapUsage::peak_heap_bytes`]: the highest number of live bytes, counted as requested
//!   by the caller (not glibc's chunk overhead or rounding), above the live bytes at the
//!   start of the measurement. A `realloc` that moves its block is counted after the move
//!   (the old and new blocks are not counted together);
//! - [`HeapUsage::allocations`]: successful calls to `malloc`, `calloc`, `realloc` (with a
//!   non-zero size), `reallocarray`, `posix_memalign`, `aligned_alloc`, `memalign`, `valloc`
//!   and `pvalloc`;
//! - [`HeapUsage::allocated_bytes`]: the total bytes requested by those calls.
//!
//! # What is not counted
//!
//! - allocations made on other threads, including threads that the closure spawns (only the
//!   allocations that the spawning itself makes on the measuring thread are counted);
//! - memory that does not come from `malloc`: `mmap` made directly, the stack, static data,
//!   memory from custom allocators that carve their own arenas;
//! - a block allocated on the measuring thread and freed on another thread during the
//!   measurement stays counted as live;
//! - the interposer exists only on Linux with glibc; elsewhere [`measure`] reports zeros and
//!   [`interposer_active`] returns `false`. It also relies on the executable's own
//!   definitions winning symbol resolution: a C library that was itself built with a private
//!   allocator, or loaded with `RTLD_DEEPBIND`, escapes it.

use serde::{Deserialize, Serialize};

/// Heap usage of one measured closure, on the thread that ran it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapUsage {
    /// Highest live heap bytes (as requested) above the live bytes at the start of the
    /// measurement; zero when the closure never raised the live heap.
    pub peak_heap_bytes: u64,
    /// Number of successful allocation calls (`malloc`, `calloc`, `realloc`, the aligned
    /// variants).
    pub allocations: u64,
    /// Total bytes requested by those calls.
    pub allocated_bytes: u64,
}

/// Measures the heap usage of `f` on the current thread and returns its result with the
/// usage. Measurements nest: an inner measurement sees only its own closure, and the outer
/// one still sees everything.
///
/// Where the interposer is not available (see [`interposer_active`]) the usage is all zeros.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, HeapUsage) {
    imp::measure(f)
}

/// Whether the allocator interposer is linked into this binary and sees allocations made by
/// C code (it probes once with glibc's `strdup`, whose internal `malloc` is resolved
/// dynamically, and caches the answer). When it returns `false`, heap figures are
/// meaningless and callers should print "unavailable".
pub fn interposer_active() -> bool {
    imp::interposer_active()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod imp {
    use super::HeapUsage;
    use std::cell::Cell;
    use std::ffi::c_void;
    use std::ptr;
    use std::sync::OnceLock;

    use interpose::INTERPOSER;

    /// log2 of the number of slots in the pointer table.
    const TABLE_BITS: u32 = 16;
    /// Number of slots in the pointer table.
    const TABLE_SLOTS: usize = 1 << TABLE_BITS;
    /// At most this many entries are stored (75 % load), so probes stay short.
    const TABLE_MAX: usize = TABLE_SLOTS / 4 * 3;

    /// One slot of the pointer table; `key == 0` marks an empty slot.
    #[derive(Clone, Copy)]
    #[repr(C)]
    struct Slot {
        key: usize,
        size: usize,
    }

    /// Bookkeeping of the measuring thread. `Copy`, with no destructor.
    #[derive(Clone, Copy)]
    struct State {
        /// Live bytes relative to the start of the outermost measurement.
        live: i64,
        /// Highest value of `live` since the innermost measurement began.
        peak: i64,
        /// Allocation calls since the outermost measurement began.
        allocations: u64,
        /// Bytes requested since the outermost measurement began.
        requested: u64,
        /// The pointer table (`TABLE_SLOTS` slots), or null when it could not be mapped.
        table: *mut Slot,
        /// Occupied slots in `table`.
        used: usize,
    }

    const IDLE: State = State {
        live: 0,
        peak: 0,
        allocations: 0,
        requested: 0,
        table: ptr::null_mut(),
        used: 0,
    };

    thread_local! {
        /// Whether this thread is inside [`measure`]: the only state read on the fast path.
        static ENABLED: Cell<bool> = const { Cell::new(false) };
        /// This thread's counters; meaningful only while `ENABLED` is set.
        static STATE: Cell<State> = const { Cell::new(IDLE) };
    }

    unsafe extern "C" {
        fn __libc_malloc(size: usize) -> *mut c_void;
        fn __libc_free(ptr: *mut c_void);
        fn __libc_calloc(nmemb: usize, size: usize) -> *mut c_void;
        fn __libc_realloc(ptr: *mut c_void, size: usize) -> *mut c_void;
        fn __libc_memalign(alignment: usize, size: usize) -> *mut c_void;
        fn __libc_valloc(size: usize) -> *mut c_void;
        fn __libc_pvalloc(size: usize) -> *mut c_void;
        fn malloc_usable_size(ptr: *mut c_void) -> usize;
    }

    /// Home slot of a pointer (Fibonacci hashing; the low 4 bits are always zero).
    fn home(key: usize) -> usize {
        (((key as u64) >> 4).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - TABLE_BITS)) as usize
    }

    /// What happened to an insertion.
    enum Inserted {
        /// The pointer is now in the table.
        New,
        /// The pointer was already there (its block was freed by another thread and glibc
        /// handed the address out again): the stale size is returned and replaced.
        Replaced(usize),
        /// The table is full or missing; the caller charges the usable size instead.
        NoRoom,
    }

    impl State {
        /// Slot `i` of the table.
        ///
        /// # Safety
        /// `self.table` must be non-null and `i < TABLE_SLOTS`.
        unsafe fn slot(&self, i: usize) -> *mut Slot {
            // SAFETY: the caller guarantees that the table is mapped with `TABLE_SLOTS`
            // slots and that `i` is in range.
            unsafe { self.table.add(i) }
        }

        fn insert(&mut self, key: usize, size: usize) -> Inserted {
            if self.table.is_null() {
                return Inserted::NoRoom;
            }
            let mut i = home(key);
            loop {
                // SAFETY: the table is non-null (checked above) and `i` is masked in range;
                // only this thread touches its table.
                let s = unsafe { &mut *self.slot(i) };
                if s.key == key {
                    let old = s.size;
                    s.size = size;
                    return Inserted::Replaced(old);
                }
                if s.key == 0 {
                    if self.used >= TABLE_MAX {
                        return Inserted::NoRoom;
                    }
                    *s = Slot { key, size };
                    self.used += 1;
                    return Inserted::New;
                }
                i = (i + 1) & (TABLE_SLOTS - 1);
            }
        }

        /// Index of `key`'s slot, if present.
        fn find(&self, key: usize) -> Option<usize> {
            if self.table.is_null() {
                return None;
            }
            let mut i = home(key);
            loop {
                // SAFETY: the table is non-null and `i` is masked in range. The table is
                // never full (load ≤ 75 %), so the probe ends at an empty slot.
                let s = unsafe { *self.slot(i) };
                if s.key == key {
                    return Some(i);
                }
                if s.key == 0 {
                    return None;
                }
                i = (i + 1) & (TABLE_SLOTS - 1);
            }
        }

        /// The recorded size of `key`, if present.
        fn get(&self, key: usize) -> Option<usize> {
            // SAFETY: `find` returned an in-range index of the non-null table.
            self.find(key).map(|i| unsafe { (*self.slot(i)).size })
        }

        /// Removes `key` (backward-shift deletion) and returns its recorded size.
        fn remove(&mut self, key: usize) -> Option<usize> {
            let mut i = self.find(key)?;
            // SAFETY: (for every `slot` call below) the table is non-null (`find`
            // succeeded), indices are masked in range, and only this thread touches it.
            let size = unsafe { (*self.slot(i)).size };
            let mut j = i;
            loop {
                j = (j + 1) & (TABLE_SLOTS - 1);
                // SAFETY: as above.
                let s = unsafe { *self.slot(j) };
                if s.key == 0 {
                    break;
                }
                let k = home(s.key);
                // Leave `s` where it is if its home lies cyclically in (i, j].
                let stays = if i <= j {
                    i < k && k <= j
                } else {
                    i < k || k <= j
                };
                if !stays {
                    // SAFETY: as above.
                    unsafe { *self.slot(i) = s };
                    i = j;
                }
            }
            // SAFETY: as above.
            unsafe { (*self.slot(i)).key = 0 };
            self.used -= 1;
            Some(size)
        }

        fn add_live(&mut self, bytes: usize) {
            self.live += bytes as i64;
            self.peak = self.peak.max(self.live);
        }
    }

    /// Runs `f` on this thread's state. Only called while `ENABLED` is set.
    #[inline]
    fn with_state<T>(f: impl FnOnce(&mut State) -> T) -> T {
        let mut s = STATE.get();
        let r = f(&mut s);
        STATE.set(s);
        r
    }

    /// Records a new block `p` of `size` requested bytes (nothing when `p` is null).
    fn on_alloc(s: &mut State, p: *mut c_void, size: usize) {
        if p.is_null() {
            return;
        }
        s.allocations += 1;
        s.requested += size as u64;
        let charge = match s.insert(p as usize, size) {
            Inserted::New => size,
            Inserted::Replaced(stale) => {
                s.live -= stale as i64;
                size
            }
            // SAFETY: `p` was just returned by glibc's allocator and is live.
            Inserted::NoRoom => unsafe { malloc_usable_size(p) },
        };
        s.add_live(charge);
    }

    /// The bytes that freeing the live block `p` releases from the live figure.
    ///
    /// # Safety
    /// `p` must be a live block from glibc's allocator.
    unsafe fn charge_of(s: &State, p: *mut c_void) -> usize {
        match s.get(p as usize) {
            Some(size) => size,
            // SAFETY: the caller guarantees `p` is a live glibc block.
            None => unsafe { malloc_usable_size(p) },
        }
    }

    /// Records that the live block `p` is being freed.
    ///
    /// # Safety
    /// `p` must be a live block from glibc's allocator, not yet freed.
    unsafe fn on_free(s: &mut State, p: *mut c_void) {
        let released = match s.remove(p as usize) {
            Some(size) => size,
            // SAFETY: the caller guarantees `p` is a live glibc block.
            None => unsafe { malloc_usable_size(p) },
        };
        s.live -= released as i64;
    }

    /// The allocator entry points. `pub` inside a private module: exported as unmangled
    /// symbols for the linker, not part of the crate's API.
    mod interpose {
        use super::*;

        /// The interposed functions, referenced from [`measure`] and
        /// [`interposer_active`] so that any binary using the
        /// meter pulls the object file that defines them out of the rlib.
        pub struct Interposer {
            _malloc: unsafe extern "C" fn(usize) -> *mut c_void,
            _free: unsafe extern "C" fn(*mut c_void),
            _calloc: unsafe extern "C" fn(usize, usize) -> *mut c_void,
            _realloc: unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void,
            _reallocarray: unsafe extern "C" fn(*mut c_void, usize, usize) -> *mut c_void,
            _posix_memalign: unsafe extern "C" fn(*mut *mut c_void, usize, usize) -> i32,
            _aligned_alloc: unsafe extern "C" fn(usize, usize) -> *mut c_void,
            _memalign: unsafe extern "C" fn(usize, usize) -> *mut c_void,
            _valloc: unsafe extern "C" fn(usize) -> *mut c_void,
            _pvalloc: unsafe extern "C" fn(usize) -> *mut c_void,
        }

        /// See [`Interposer`].
        pub static INTERPOSER: Interposer = Interposer {
            _malloc: malloc,
            _free: free,
            _calloc: calloc,
            _realloc: realloc,
            _reallocarray: reallocarray,
            _posix_memalign: posix_memalign,
            _aligned_alloc: aligned_alloc,
            _memalign: memalign,
            _valloc: valloc,
            _pvalloc: pvalloc,
        };

        // Every entry point checks `ENABLED` first and, off (always, outside a measurement),
        // hands the call straight to glibc's function: no frame, no register saved, a few
        // instructions, as the allocator calls inside a timed call pay. The bookkeeping of a
        // measurement is in the cold functions below, never inlined into that path.

        /// C `malloc`, forwarded to glibc.
        ///
        /// # Safety
        /// As for C `malloc`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
            if ENABLED.get() {
                // SAFETY: same contract.
                return unsafe { counted::malloc(size) };
            }
            // SAFETY: glibc's implementation, same contract.
            unsafe { __libc_malloc(size) }
        }

        /// C `free`, forwarded to glibc.
        ///
        /// # Safety
        /// As for C `free`: `p` is null or a live block from this allocator.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn free(p: *mut c_void) {
            if !p.is_null() && ENABLED.get() {
                // SAFETY: same contract.
                return unsafe { counted::free(p) };
            }
            // SAFETY: glibc's implementation, same contract.
            unsafe { __libc_free(p) }
        }

        /// C `calloc`, forwarded to glibc.
        ///
        /// # Safety
        /// As for C `calloc`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn calloc(nmemb: usize, size: usize) -> *mut c_void {
            if ENABLED.get() {
                // SAFETY: same contract.
                return unsafe { counted::calloc(nmemb, size) };
            }
            // SAFETY: glibc's implementation, same contract (it checks the overflow).
            unsafe { __libc_calloc(nmemb, size) }
        }

        /// C `realloc`, forwarded to glibc.
        ///
        /// # Safety
        /// As for C `realloc`: `p` is null or a live block from this allocator.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
            if ENABLED.get() {
                // SAFETY: same contract.
                return unsafe { counted::realloc(p, size) };
            }
            // SAFETY: glibc's implementation, same contract.
            unsafe { __libc_realloc(p, size) }
        }

        /// C `reallocarray`, forwarded to [`realloc`] after the overflow check.
        ///
        /// # Safety
        /// As for C `reallocarray`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn reallocarray(
            p: *mut c_void,
            nmemb: usize,
            size: usize,
        ) -> *mut c_void {
            match nmemb.checked_mul(size) {
                // SAFETY: same contract as `realloc`.
                Some(bytes) => unsafe { realloc(p, bytes) },
                None => {
                    // SAFETY: `__errno_location` returns this thread's errno.
                    unsafe { *libc::__errno_location() = libc::ENOMEM };
                    ptr::null_mut()
                }
            }
        }

        /// glibc's `memalign`, counted while a measurement runs: what `memalign`,
        /// `aligned_alloc` and `posix_memalign` do.
        ///
        /// # Safety
        /// As for C `memalign`.
        #[inline(always)]
        unsafe fn any_memalign(alignment: usize, size: usize) -> *mut c_void {
            if ENABLED.get() {
                // SAFETY: same contract.
                return unsafe { counted::memalign(alignment, size) };
            }
            // SAFETY: glibc's implementation, same contract.
            unsafe { __libc_memalign(alignment, size) }
        }

        /// C `memalign`, forwarded to glibc.
        ///
        /// # Safety
        /// As for C `memalign`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn memalign(alignment: usize, size: usize) -> *mut c_void {
            // SAFETY: same contract.
            unsafe { any_memalign(alignment, size) }
        }

        /// C11 `aligned_alloc`, forwarded to glibc's `memalign` (as glibc 2.36 does).
        ///
        /// # Safety
        /// As for C `aligned_alloc`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn aligned_alloc(alignment: usize, size: usize) -> *mut c_void {
            // SAFETY: same contract as `memalign`.
            unsafe { any_memalign(alignment, size) }
        }

        /// POSIX `posix_memalign`, forwarded to glibc's `memalign` with POSIX's checks.
        ///
        /// # Safety
        /// As for `posix_memalign`: `out` is valid for a pointer write.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn posix_memalign(
            out: *mut *mut c_void,
            alignment: usize,
            size: usize,
        ) -> i32 {
            // POSIX: a power of two and a multiple of the pointer size (which, for a power
            // of two, means at least the pointer size).
            if !alignment.is_power_of_two() || alignment < size_of::<*mut c_void>() {
                return libc::EINVAL;
            }
            // SAFETY: same contract as `memalign`, with a valid alignment.
            let p = unsafe { any_memalign(alignment, size) };
            if p.is_null() {
                return libc::ENOMEM;
            }
            // SAFETY: the caller guarantees `out` is writable.
            unsafe { *out = p };
            0
        }

        /// Obsolete `valloc`, forwarded to glibc.
        ///
        /// # Safety
        /// As for C `valloc`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn valloc(size: usize) -> *mut c_void {
            if ENABLED.get() {
                // SAFETY: same contract.
                return unsafe { counted::valloc(size) };
            }
            // SAFETY: glibc's implementation, same contract.
            unsafe { __libc_valloc(size) }
        }

        /// Obsolete `pvalloc`, forwarded to glibc.
        ///
        /// # Safety
        /// As for C `pvalloc`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn pvalloc(size: usize) -> *mut c_void {
            if ENABLED.get() {
                // SAFETY: same contract.
                return unsafe { counted::pvalloc(size) };
            }
            // SAFETY: glibc's implementation, same contract.
            unsafe { __libc_pvalloc(size) }
        }

        /// The entry points while a measurement runs on this thread: glibc's function, then
        /// the bookkeeping. Cold and never inlined, so that none of it (no frame, no saved
        /// register) reaches the path every other call takes.
        mod counted {
            use super::*;

            /// Counts a new block of `size` requested bytes at `p` (null: a failed call).
            fn note(p: *mut c_void, size: usize) -> *mut c_void {
                with_state(|s| on_alloc(s, p, size));
                p
            }

            #[cold]
            #[inline(never)]
            pub(super) unsafe fn malloc(size: usize) -> *mut c_void {
                // SAFETY: glibc's implementation, the caller's contract.
                note(unsafe { __libc_malloc(size) }, size)
            }

            #[cold]
            #[inline(never)]
            pub(super) unsafe fn free(p: *mut c_void) {
                // SAFETY: `p` is a live block (the caller's contract), not yet freed.
                with_state(|s| unsafe { on_free(s, p) });
                // SAFETY: glibc's implementation, same contract.
                unsafe { __libc_free(p) }
            }

            #[cold]
            #[inline(never)]
            pub(super) unsafe fn calloc(nmemb: usize, size: usize) -> *mut c_void {
                // SAFETY: glibc's implementation, same contract (it checks the overflow).
                note(
                    unsafe { __libc_calloc(nmemb, size) },
                    nmemb.wrapping_mul(size),
                )
            }

            #[cold]
            #[inline(never)]
            pub(super) unsafe fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
                // Charge of the old block, taken while it is still live.
                let old = if p.is_null() {
                    0
                } else {
                    // SAFETY: `p` is a live glibc block (the caller's contract).
                    with_state(|s| unsafe { charge_of(s, p) })
                };
                // SAFETY: glibc's implementation, same contract.
                let q = unsafe { __libc_realloc(p, size) };
                // glibc frees `p` when it returns a new block, or when `size` is 0; on
                // failure (null with a non-zero size) `p` is untouched.
                let released = !p.is_null() && (!q.is_null() || size == 0);
                with_state(|s| {
                    if released {
                        s.remove(p as usize);
                        s.live -= old as i64;
                    }
                    on_alloc(s, q, size);
                });
                q
            }

            #[cold]
            #[inline(never)]
            pub(super) unsafe fn memalign(alignment: usize, size: usize) -> *mut c_void {
                // SAFETY: glibc's implementation, same contract.
                note(unsafe { __libc_memalign(alignment, size) }, size)
            }

            #[cold]
            #[inline(never)]
            pub(super) unsafe fn valloc(size: usize) -> *mut c_void {
                // SAFETY: glibc's implementation, same contract.
                note(unsafe { __libc_valloc(size) }, size)
            }

            #[cold]
            #[inline(never)]
            pub(super) unsafe fn pvalloc(size: usize) -> *mut c_void {
                // SAFETY: glibc's implementation, same contract.
                note(unsafe { __libc_pvalloc(size) }, size)
            }
        }
    }

    /// Maps a zeroed pointer table, or returns null if that fails (the meter then charges
    /// usable sizes).
    fn map_table() -> *mut Slot {
        // SAFETY: an anonymous private mapping with no address hint has no preconditions.
        let p = unsafe {
            libc::mmap(
                ptr::null_mut(),
                TABLE_SLOTS * size_of::<Slot>(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            ptr::null_mut()
        } else {
            p.cast()
        }
    }

    /// Ends a measurement, also when the closure unwinds.
    struct Guard {
        /// Whether this is the outermost measurement on the thread.
        outer: bool,
        /// The enclosing measurement's peak, restored (as a maximum) on exit.
        saved_peak: i64,
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            if self.outer {
                ENABLED.set(false);
                let table = STATE.get().table;
                STATE.set(IDLE);
                if !table.is_null() {
                    // SAFETY: `table` was mapped by `map_table` with this length, and
                    // nothing refers to it now that the thread is disabled.
                    unsafe { libc::munmap(table.cast(), TABLE_SLOTS * size_of::<Slot>()) };
                }
            } else {
                with_state(|s| s.peak = s.peak.max(self.saved_peak));
            }
        }
    }

    pub(super) fn measure<R>(f: impl FnOnce() -> R) -> (R, HeapUsage) {
        std::hint::black_box(&INTERPOSER);
        let outer = !ENABLED.get();
        if outer {
            STATE.set(State {
                table: map_table(),
                ..IDLE
            });
            ENABLED.set(true);
        }
        let start = STATE.get();
        with_state(|s| s.peak = s.live);
        let guard = Guard {
            outer,
            saved_peak: start.peak,
        };
        let r = f();
        let end = STATE.get();
        drop(guard);
        let usage = HeapUsage {
            peak_heap_bytes: (end.peak - start.live).max(0) as u64,
            allocations: end.allocations - start.allocations,
            allocated_bytes: end.requested - start.requested,
        };
        (r, usage)
    }

    pub(super) fn interposer_active() -> bool {
        static ACTIVE: OnceLock<bool> = OnceLock::new();
        std::hint::black_box(&INTERPOSER);
        *ACTIVE.get_or_init(|| {
            let (_, usage) = measure(|| {
                // SAFETY: `strdup` copies a valid NUL-terminated string into a block from
                // `malloc`, which `free` releases. `black_box` keeps the optimiser from
                // deleting the unused allocation.
                unsafe {
                    libc::free(std::hint::black_box(libc::strdup(c"kembench".as_ptr())).cast())
                }
            });
            usage.allocations >= 1
        })
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod imp {
    use super::HeapUsage;

    pub(super) fn measure<R>(f: impl FnOnce() -> R) -> (R, HeapUsage) {
        (f(), HeapUsage::default())
    }

    pub(super) fn interposer_active() -> bool {
        false
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;
    use std::hint::black_box;

    #[test]
    fn interposer_is_active() {
        assert!(interposer_active());
    }

    #[cfg(feature = "openssl")]
    #[test]
    fn counts_allocations_made_inside_openssl() {
        use std::ffi::{c_char, c_int, c_void};
        unsafe extern "C" {
            fn CRYPTO_malloc(num: usize, file: *const c_char, line: c_int) -> *mut c_void;
            fn CRYPTO_free(ptr: *mut c_void, file: *const c_char, line: c_int);
        }
        let file = c"heap.rs".as_ptr();
        let (p, usage) = measure(|| {
            // SAFETY: OpenSSL's allocator; the block is freed below.
            let p = unsafe { CRYPTO_malloc(100_000, file, 1) };
            assert!(!p.is_null());
            p
        });
        // SAFETY: `p` came from `CRYPTO_malloc` and is freed once.
        unsafe { CRYPTO_free(p, file, 2) };
        assert!(usage.peak_heap_bytes >= 100_000, "{usage:?}");
        assert!(usage.peak_heap_bytes < 100_000 + 64, "{usage:?}");
        assert!(usage.allocations >= 1, "{usage:?}");
        assert!(usage.allocated_bytes >= 100_000, "{usage:?}");

        // Allocated and freed inside: the peak is still seen.
        let ((), usage) = measure(|| {
            // SAFETY: as above; freed once, inside.
            unsafe { CRYPTO_free(CRYPTO_malloc(100_000, file, 3), file, 4) }
        });
        assert!(
            (100_000..100_064).contains(&usage.peak_heap_bytes),
            "{usage:?}"
        );
    }

    #[test]
    fn counts_glibc_internal_allocations() {
        let ((), usage) = measure(|| {
            // SAFETY: valid C string; the copy is freed once.
            unsafe { libc::free(black_box(libc::strdup(c"0123456789".as_ptr())).cast()) }
        });
        assert_eq!(usage.allocations, 1);
        assert_eq!(usage.allocated_bytes, 11);
        assert_eq!(usage.peak_heap_bytes, 11);
    }

    #[test]
    fn rust_vec_of_one_mebibyte() {
        let (len, usage) = measure(|| {
            let v = black_box(Vec::<u8>::with_capacity(1 << 20));
            v.capacity()
        });
        assert_eq!(len, 1 << 20);
        assert!(usage.peak_heap_bytes >= 1 << 20, "{usage:?}");
        assert!(usage.peak_heap_bytes < (1 << 20) + 64, "{usage:?}");
        assert_eq!(usage.allocations, 1);
        assert_eq!(usage.allocated_bytes, 1 << 20);
    }

    #[test]
    fn nothing_allocated_gives_zero() {
        let (x, usage) = measure(|| black_box(41) + 1);
        assert_eq!(x, 42);
        assert_eq!(usage, HeapUsage::default());
    }

    #[test]
    fn other_threads_are_not_counted() {
        use std::sync::Barrier;
        let barrier = Barrier::new(2);
        std::thread::scope(|s| {
            s.spawn(|| {
                barrier.wait();
                let v = black_box(vec![1u8; 4 << 20]);
                barrier.wait();
                drop(v);
            });
            let ((), usage) = measure(|| {
                barrier.wait();
                barrier.wait();
            });
            assert_eq!(usage, HeapUsage::default());
        });
    }

    #[test]
    fn realloc_and_freeing_older_memory() {
        let mut old = black_box(vec![0u8; 100_000]);
        let ((), usage) = measure(|| {
            let mut v = Vec::<u64>::new();
            for i in 0..10_000u64 {
                v.push(black_box(i));
            }
            drop(v);
            // Freeing memory from before the measurement lowers the live figure.
            old = Vec::new();
            black_box(vec![0u8; 1000]);
        });
        drop(old);
        // The vector grows by doubling to 16384 × 8 bytes; the last move is not counted
        // as old + new.
        assert_eq!(usage.peak_heap_bytes, 16_384 * 8, "{usage:?}");
        assert!(usage.allocations >= 2, "{usage:?}");
    }

    #[test]
    fn balance_returns_to_zero_past_the_table() {
        // More live blocks than the pointer table holds: the excess is charged at its
        // usable size and released at the same size.
        let ((), usage) = measure(|| {
            let boxes: Vec<Box<u64>> = (0..100_000).map(|i| Box::new(black_box(i))).collect();
            drop(black_box(boxes));
            black_box(vec![0u8; 16 << 20]);
        });
        assert_eq!(usage.peak_heap_bytes, 16 << 20, "{usage:?}");
        assert_eq!(usage.allocations, 100_002, "{usage:?}");
    }

    #[test]
    fn nested_measurements() {
        let (inner, outer) = measure(|| {
            let a = black_box(vec![0u8; 3000]);
            let ((), inner) = measure(|| {
                black_box(vec![0u8; 1000]);
            });
            drop(a);
            inner
        });
        assert_eq!(inner.peak_heap_bytes, 1000);
        assert_eq!(inner.allocations, 1);
        assert_eq!(outer.peak_heap_bytes, 4000);
        assert_eq!(outer.allocations, 2);
    }

    #[test]
    fn posix_memalign_and_calloc() {
        let ((), usage) = measure(|| {
            let mut p = std::ptr::null_mut();
            // SAFETY: valid out-pointer and alignment; every block is freed once.
            unsafe {
                assert_eq!(libc::posix_memalign(&mut p, 4096, 5000), 0);
                assert_eq!(p as usize % 4096, 0);
                let q = black_box(libc::calloc(10, 100));
                let r = black_box(libc::realloc(q, 2000));
                libc::free(black_box(p));
                libc::free(r);
            }
        });
        assert_eq!(usage.allocations, 3);
        assert_eq!(usage.allocated_bytes, 5000 + 1000 + 2000);
        assert_eq!(usage.peak_heap_bytes, 7000);
    }
}
