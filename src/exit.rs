//! Exit codes, and the one place that decides which code an error that ended a command gets.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success |
//! | 1 | a check or a benchmark failed (`verify`, `run`, `throughput`, `compare --fail-on-regression`) |
//! | 2 | bad usage or arguments: an unknown name, a bad number, a selector that names no run, an input file that is not a kembench record |
//! | 3 | an I/O or store error: a file that cannot be written, a store that cannot be opened, read or written |
//! | 130 | interrupted (Ctrl-C) |
//! | 141 | standard output's reader went away (a pipe closed early, as by `head`): nothing more was printed, and a measuring command stopped as on Ctrl-C (its run kept, interrupted and resumable) |

use crate::providers::SelectError;
use crate::record::LoadError;
use crate::usage::Usage;

/// Success.
pub const SUCCESS: u8 = 0;
/// A check or a benchmark failed.
pub const FAILED: u8 = 1;
/// Bad usage or arguments.
pub const USAGE: u8 = 2;
/// An I/O or store error.
pub const IO: u8 = 3;
/// Interrupted by Ctrl-C.
pub const INTERRUPTED: u8 = 130;
/// Standard output's reader went away (128 + SIGPIPE, as a shell reports a writer the pipe
/// stopped).
pub const READER_GONE: u8 = 141;

/// The exit code for an error that ended a command: [`USAGE`] when anything in its chain is
/// a problem with what was asked (a [`Usage`] error, a selection that matches nothing, an
/// input file that is not a readable record), else [`IO`].
pub fn code_for(e: &anyhow::Error) -> u8 {
    let usage = e.chain().any(|c| {
        c.is::<Usage>()
            || c.is::<SelectError>()
            || c.downcast_ref::<LoadError>()
                .is_some_and(|l| !matches!(l, LoadError::Read { .. }))
    });
    if usage {
        USAGE
    } else {
        IO
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn usage_errors_are_found_anywhere_in_the_chain() {
        let e = anyhow::Error::new(Usage("bad --noise".into())).context("comparing");
        assert_eq!(code_for(&e), USAGE);
        let e = anyhow::Error::new(SelectError::Empty);
        assert_eq!(code_for(&e), USAGE);
        let io: anyhow::Result<()> =
            Err(std::io::Error::other("disk full")).context("writing report.html");
        assert_eq!(code_for(&io.unwrap_err()), IO);
        let read = LoadError::Read {
            path: "r.json".into(),
            source: std::io::Error::other("permission denied"),
        };
        assert_eq!(code_for(&anyhow::Error::new(read)), IO);
        let not_json = LoadError::NoKind {
            path: "r.json".into(),
        };
        assert_eq!(code_for(&anyhow::Error::new(not_json)), USAGE);
    }

    fn bails() -> anyhow::Result<()> {
        crate::bail_usage!("--x must be {}", 1)
    }

    #[test]
    fn bail_usage_returns_a_usage_error() {
        assert_eq!(code_for(&bails().unwrap_err()), USAGE);
        assert_eq!(bails().unwrap_err().to_string(), "--x must be 1");
    }
}
