//! What a test does when a component it needs is missing (Chromium, root with network
//! namespaces, PostgreSQL, valgrind, a compiler): under `KEMBENCH_REQUIRE_COMPONENTS=1`, which
//! `.ci/run` sets, it fails; elsewhere it says which component is missing and how to get it, on
//! the terminal itself (libtest's capture hides `eprintln!` from tests that pass, but not a
//! write to standard error), and the test returns without asserting anything.

use std::io::Write;

/// The switch that turns every skip for a missing component into a failure.
pub const REQUIRE: &str = "KEMBENCH_REQUIRE_COMPONENTS";

/// Whether a missing component fails the test ([`REQUIRE`] set, and not to `0`).
pub fn required() -> bool {
    std::env::var_os(REQUIRE).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The line that says `test` did not run: `component` is missing, `how` gets it.
pub fn line(test: &str, component: &str, how: &str) -> String {
    format!("SKIPPED {test}: {component} is missing here ({how})")
}

/// Says that `test` cannot run without `component` (`how`: how to get it), and fails the test
/// when [`required`].
#[track_caller]
pub fn skip(test: &str, component: &str, how: &str) {
    let said = checked(required(), test, component, how);
    let _ = writeln!(std::io::stderr(), "{said}");
}

/// The line [`skip`] prints, after failing the test when skipping is `required`.
#[track_caller]
pub fn checked(required: bool, test: &str, component: &str, how: &str) -> String {
    let said = line(test, component, how);
    assert!(
        !required,
        "{said}; {REQUIRE} is set (as in CI), so a missing component fails the test"
    );
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_fails_when_components_are_required() {
        let refused =
            std::panic::catch_unwind(|| checked(true, "t", "chromium", "apt-get install chromium"));
        let why = refused.unwrap_err();
        let why = why.downcast_ref::<String>().unwrap();
        assert!(why.contains("SKIPPED t: chromium is missing here (apt-get install chromium)"));
        assert!(why.contains(REQUIRE), "{why}");
        let said = checked(false, "t", "chromium", "apt-get install chromium");
        assert_eq!(
            said,
            "SKIPPED t: chromium is missing here (apt-get install chromium)"
        );
    }
}
