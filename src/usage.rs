//! The error that marks a problem with what the user asked for (a bad argument, an unknown
//! name, an input that is not a record): `exit::code_for` turns it into exit code 2. It sits
//! at the bottom, below `exit`, so that any layer can refuse a request with it.

/// A problem with the command line or an input it names: exits 2 (`exit::USAGE`).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Usage(pub String);

/// Returns a [`Usage`] error from the enclosing function, `format!`-style.
#[macro_export]
macro_rules! bail_usage {
    ($($arg:tt)*) => {
        return Err($crate::usage::Usage(format!($($arg)*)).into())
    };
}
