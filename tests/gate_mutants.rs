//! `scripts/gate-mutants` removes each check of the gates in turn and shows a test failing
//! (about 30 minutes; run by hand). Its table names each check by its text in the sources: this
//! test keeps the table and the sources in step, so a check that moves is noticed at once.

use std::path::Path;
use std::process::Command;

fn check(dir: &Path) -> std::process::Output {
    Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gate-mutants"))
        .arg("--check")
        .arg(dir)
        .output()
        .expect("python3 runs")
}

#[test]
fn every_mutation_of_the_gates_still_applies() {
    let out = check(Path::new(env!("CARGO_MANIFEST_DIR")));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.starts_with("all ") && said.contains("mutations apply"),
        "{said}"
    );
}

#[test]
fn a_check_that_moved_is_said_with_its_file() {
    // A copy of the sources the table reads, with one check's text changed.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("kembench-mutants-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for f in [
        "src/record/profile/gate.rs",
        "src/record/profile/compare.rs",
        "src/verify/checks.rs",
        "src/verify/kat.rs",
        "src/tls/memory.rs",
        "src/tls/network.rs",
        "src/tls/measure.rs",
    ] {
        let to = dir.join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root.join(f), &to).unwrap();
    }
    assert!(check(&dir).status.success(), "the copy is the sources");
    let memory = dir.join("src/tls/memory.rs");
    let text = std::fs::read_to_string(&memory).unwrap();
    std::fs::write(
        &memory,
        text.replace(
            "if ekm_client != ekm_server {",
            "if ekm_server != ekm_client {",
        ),
    )
    .unwrap();
    let out = check(&dir);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("mutant 13: src/tls/memory.rs has 0 of its text, not 1: update the table"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
