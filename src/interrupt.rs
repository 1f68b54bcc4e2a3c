//! Ctrl-C (SIGINT), SIGTERM and SIGHUP for the measuring commands: the first asks to stop
//! after the step in progress, keeping everything measured; the second asks to stop at once.
//!
//! A reader of standard output that goes away (`kembench run | head -1`) is taken the same
//! way: everything kembench prints goes through [`print`] (the crate's `print!` and
//! `println!`), which writes nothing more once a write has failed and asks a measuring command
//! to stop after the step in progress, as a first Ctrl-C does; the command then exits with
//! 141 (`exit::READER_GONE`), quietly.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Interrupts received by this process.
pub static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// What a first interrupt waits for, once a measuring command has installed the handler.
static STEP: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Installs the handler once; `step` names what the first interrupt waits for ("the step in
/// progress", "the thread count in progress").
pub fn install(step: &'static str) {
    let _ = STEP.set(step);
    if is_reader_gone() {
        say_reader_gone(step);
    }
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

/// Whether standard output's reader has gone away.
static READER_GONE: AtomicBool = AtomicBool::new(false);

/// Standard output's reader has gone away: nothing more is printed, and a measuring command
/// stops after the step in progress, as on a first Ctrl-C.
pub fn reader_gone() {
    if !READER_GONE.swap(true, Ordering::SeqCst) {
        INTERRUPTS.fetch_add(1, Ordering::SeqCst);
        if let Some(step) = STEP.get() {
            say_reader_gone(step);
        }
    }
}

/// Says, for a measuring command, what a closed standard output does.
fn say_reader_gone(step: &str) {
    eprintln!(
        "\nStandard output was closed: stopping after {step} and keeping everything measured"
    );
}

/// Whether standard output's reader has gone away.
pub fn is_reader_gone() -> bool {
    READER_GONE.load(Ordering::SeqCst)
}

/// Writes `args` to standard output (what the crate's `print!` and `println!` do): nothing
/// once the reader has gone away, and no panic when it goes (see [`reader_gone`]).
pub fn print(args: std::fmt::Arguments<'_>) {
    if is_reader_gone() {
        return;
    }
    let mut out = std::io::stdout().lock();
    if out.write_fmt(args).and_then(|()| out.flush()).is_err() {
        reader_gone();
    }
}
