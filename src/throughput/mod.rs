//! Throughput: sustained operations per second at several thread (or process) counts.
//!
//! Every thread owns its inputs (its own pool of keys and ciphertexts, prepared before the
//! start) and its randomness (the operating system's, per call); the timed loop takes no lock
//! and writes nothing shared: each thread counts in a local variable and stores its count and
//! its own elapsed time once, at the end, in a slot on its own cache line. All threads start
//! together after a barrier and stop when the coordinator raises a flag after a fixed window.
//! With `--processes`, N copies of kembench run the same loop as independent processes: the
//! ceiling that threads should reach.
#![cfg(feature = "app")]

pub mod measure;

use crate::engine::cpu::pin_current_thread;
use crate::kem::Kem;
use crate::kem::Op;
use crate::measure::sampler::Workload;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// One thread's result slot, alone on its cache line(s) so that no two threads' final writes
/// share a line (128 bytes covers adjacent-line prefetching).
#[repr(align(128))]
#[derive(Default)]
struct Slot {
    ops: AtomicU64,
    nanos: AtomicU64,
}

/// Runs `op` on `threads` threads for `duration`; each thread's (operations, seconds).
pub fn run_threads(
    k: &Arc<dyn Kem>,
    op: Op,
    threads: usize,
    duration: Duration,
    pin: bool,
    pool: usize,
) -> Result<Vec<(u64, f64)>, String> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let barrier = Barrier::new(threads + 1);
    let stop = AtomicBool::new(false);
    let slots: Vec<Slot> = (0..threads).map(|_| Slot::default()).collect();
    let errors: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for (i, slot) in slots.iter().enumerate() {
            let (barrier, stop, errors) = (&barrier, &stop, &errors);
            let k = k.clone();
            std::thread::Builder::new()
                .stack_size(k.meta().algorithm.stack_size())
                .spawn_scoped(s, move || {
                    if pin {
                        pin_current_thread(i % cpus);
                    }
                    let prepared = Workload::new(k.as_ref(), op, pool).and_then(|mut w| {
                        // A short warm-up of this thread's own inputs and caches.
                        let t = Instant::now();
                        while t.elapsed() < Duration::from_millis(20) {
                            w.call()?;
                        }
                        Ok(w)
                    });
                    // Every thread reaches the barrier, even a failed one, or the others wait.
                    barrier.wait();
                    let mut w = match prepared {
                        Ok(w) => w,
                        Err(e) => {
                            errors
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .push(e.to_string());
                            return;
                        }
                    };
                    let start = Instant::now();
                    let mut n = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        if let Err(e) = w.call() {
                            errors
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .push(e.to_string());
                            break;
                        }
                        n += 1;
                    }
                    let dt = start.elapsed();
                    slot.ops.store(n, Ordering::Relaxed);
                    slot.nanos.store(dt.as_nanos() as u64, Ordering::Relaxed);
                })
                .expect("spawn a throughput thread");
        }
        barrier.wait();
        std::thread::sleep(duration);
        stop.store(true, Ordering::Relaxed);
    });
    let errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = errors.first() {
        return Err(e.clone());
    }
    Ok(slots
        .iter()
        .map(|s| {
            (
                s.ops.load(Ordering::Relaxed),
                s.nanos.load(Ordering::Relaxed) as f64 / 1e9,
            )
        })
        .collect())
}

/// `throughput --processes`' channel to its worker processes.
const WIRE: crate::engine::wire::Wire = crate::engine::wire::Wire::new("KEMBENCH-THROUGHPUT ");

/// What a worker process of `throughput --processes` and its parent say, in order.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
enum Message {
    /// Worker: prepared and warmed up.
    Ready,
    /// Parent, once every worker is ready: start.
    Go,
    /// Worker: the calls made and the nanoseconds they took.
    Done {
        /// Calls.
        calls: u64,
        /// Nanoseconds.
        nanos: u64,
    },
}

/// The body of one worker process (`kembench throughput-worker`): prepare, say
/// [`Message::Ready`], wait for [`Message::Go`] on stdin, run for `duration`, report
/// [`Message::Done`].
pub fn worker_process(
    k: &dyn Kem,
    op: Op,
    duration: Duration,
    pin_cpu: Option<usize>,
    pool: usize,
) -> anyhow::Result<()> {
    use std::io::BufRead;
    if let Some(cpu) = pin_cpu {
        pin_current_thread(cpu);
    }
    let mut w = Workload::new(k, op, pool)?;
    let t = Instant::now();
    while t.elapsed() < Duration::from_millis(20) {
        w.call()?;
    }
    WIRE.send(&Message::Ready)?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    if WIRE.parse::<Message>(&line) != Some(Message::Go) {
        anyhow::bail!("expected the parent's go, read {line:?}");
    }
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < duration {
        // Checking the clock every call costs ~40 ns, so check it every 16 calls.
        for _ in 0..16 {
            w.call()?;
            n += 1;
        }
    }
    let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    WIRE.send(&Message::Done { calls: n, nanos })?;
    Ok(())
}

/// Runs `op` as `processes` independent processes started together; each one's (operations,
/// seconds).
pub fn run_processes(
    label: &str,
    include_mock: bool,
    op: Op,
    processes: usize,
    duration: Duration,
    pin: bool,
) -> Result<Vec<(u64, f64)>, String> {
    use std::io::BufReader;
    use std::process::{Command, Stdio};
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut children = Vec::new();
    for i in 0..processes {
        let mut c = Command::new(&exe);
        c.args(["throughput-worker", "--label", label, "--op", op.as_str()])
            .arg("--duration")
            .arg(duration.as_secs_f64().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        if include_mock {
            c.arg("--include-mock");
        }
        if pin {
            c.arg("--pin-cpu").arg((i % cpus).to_string());
        }
        children.push(
            c.spawn()
                .map_err(|e| format!("starting a worker process: {e}"))?,
        );
    }
    let mut readers = Vec::new();
    for ch in &mut children {
        let mut r = BufReader::new(ch.stdout.take().expect("piped stdout"));
        match next_message(&mut r)? {
            Some(Message::Ready) => readers.push(r),
            other => return Err(format!("a worker process did not start: {other:?}")),
        }
    }
    for ch in &mut children {
        let _ = WIRE.write(ch.stdin.as_mut().expect("piped stdin"), &Message::Go);
    }
    let mut out = Vec::new();
    for (mut r, mut ch) in readers.into_iter().zip(children) {
        let done = next_message(&mut r);
        let _ = ch.wait();
        match done? {
            Some(Message::Done { calls, nanos }) => out.push((calls, nanos as f64 / 1e9)),
            other => return Err(format!("a worker process reported {other:?}")),
        }
    }
    Ok(out)
}

/// The hidden worker process of `throughput --processes`: `label`'s implementation from
/// this build's registry, running `op` for `duration` seconds.
pub fn serve_worker(
    label: &str,
    op: Op,
    duration: f64,
    pin_cpu: Option<usize>,
    include_mock: bool,
) -> anyhow::Result<()> {
    let registry = crate::providers::Registry::new(include_mock);
    let k = registry
        .get(label)
        .ok_or_else(|| anyhow::anyhow!("{label} is not an implementation in this build"))?;
    worker_process(
        k.as_ref(),
        op,
        Duration::from_secs_f64(duration),
        pin_cpu,
        16,
    )
}

/// The next message a worker process sends on `r` (lines that are not messages, printed by a
/// library, are passed on to standard error); `None` at the end of its output.
fn next_message(r: &mut impl std::io::BufRead) -> Result<Option<Message>, String> {
    let mut line = String::new();
    loop {
        line.clear();
        if r.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            return Ok(None);
        }
        match WIRE.decode(&line) {
            Some(m) => return m.map(Some).map_err(|e| format!("{e}: {line:?}")),
            None => eprint!("[throughput worker] {line}"),
        }
    }
}
