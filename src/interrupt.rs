//! Ctrl-C (SIGINT), SIGTERM and SIGHUP for the measuring commands: the first asks to stop
//! after the step in progress, keeping everything measured; the second asks to stop at once.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Interrupts received by this process.
pub static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// Installs the handler once; `step` names what the first interrupt waits for ("the step in
/// progress", "the thread count in progress").
pub fn install(step: &'static str) {
    let r = ctrlc::set_handler(move || {
        let n = INTERRUPTS.fetch_add(1, Ordering::SeqCst) + 1;
        if n == 1 {
            eprintln!("\nCtrl-C (or SIGTERM): stopping after {step} and keeping everything measured (Ctrl-C again to stop at once)");
        } else {
            eprintln!("\nCtrl-C (or SIGTERM) again: stopping now");
        }
    });
    if let Err(e) = r {
        eprintln!("warning: cannot catch Ctrl-C ({e}); an interrupted run keeps only what was already stored");
    }
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    INTERRUPTS.load(Ordering::SeqCst) >= 1
}
