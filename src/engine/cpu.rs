//! Pinning to a CPU: the CPU `run` measures on, and pinning the calling thread to one (the
//! measuring threads and workers of `run` and `throughput`).

/// The last logical CPU this process may run on (its affinity mask, as `taskset` sets it):
/// the CPU `run` pins its measuring threads to. `None` when the mask cannot be read.
///
/// `available_parallelism() - 1` is not it: under `taskset -c 1` that count is 1 and names
/// CPU 0, a CPU outside the set the user chose (and one that other work may be using).
pub fn last_allowed_cpu() -> Option<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set that sched_getaffinity fills; CPU_ISSET
    // reads inside it (indices below CPU_SETSIZE); pid 0 means the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        (0..libc::CPU_SETSIZE as usize)
            .rev()
            .find(|&cpu| libc::CPU_ISSET(cpu, &set))
    }
}

/// Pins the calling thread to `cpu`; false when the OS refuses.
pub fn pin_current_thread(cpu: usize) -> bool {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET stays inside it (checked
    // against CPU_SETSIZE); pid 0 means the calling thread.
    unsafe {
        if cpu >= libc::CPU_SETSIZE as usize {
            return false;
        }
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_cpu_is_one_this_process_may_use() {
        let cpu = last_allowed_cpu().expect("an affinity mask on Linux");
        // Pinning this test's thread to it must be allowed, and it stays the last one.
        assert!(pin_current_thread(cpu));
        assert_eq!(last_allowed_cpu(), Some(cpu));
    }
}
