//! No C symbol may be defined by two linked C libraries: the linker would silently keep one
//! copy and two implementation labels would then run the same code.
//!
//! Scans the static libraries that the build scripts of this build produced (beside this test
//! binary) with `nm`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Symbols defined (globally) in more than one library: symbol -> libraries.
fn clashes(defs: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, Vec<String>> {
    let mut by_symbol: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (lib, syms) in defs {
        for s in syms {
            by_symbol.entry(s.clone()).or_default().insert(lib.clone());
        }
    }
    by_symbol
        .into_iter()
        .filter(|(_, libs)| libs.len() > 1)
        .map(|(s, libs)| (s, libs.into_iter().collect()))
        .collect()
}

fn find_archives(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            find_archives(&p, out);
        } else if p.extension().is_some_and(|x| x == "a") {
            out.push(p);
        }
    }
}

/// The newest archive of each file name under target/<profile>/build.
fn archives() -> BTreeMap<String, PathBuf> {
    let exe = std::env::current_exe().unwrap();
    let build = exe.parent().unwrap().parent().unwrap().join("build");
    let mut all = Vec::new();
    find_archives(&build, &mut all);
    let mut newest: BTreeMap<String, (std::time::SystemTime, PathBuf)> = BTreeMap::new();
    for p in all {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let t = p.metadata().and_then(|m| m.modified()).unwrap();
        if newest.get(&name).is_none_or(|(old, _)| t > *old) {
            newest.insert(name, (t, p));
        }
    }
    newest.into_iter().map(|(n, (_, p))| (n, p)).collect()
}

fn defined_symbols(path: &Path) -> BTreeSet<String> {
    let out = Command::new("nm")
        .args(["-g", "--defined-only"])
        .arg(path)
        .output()
        .expect("nm (binutils) is needed for this test");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 3 && f[1] != "U").then(|| f[2].to_string())
        })
        .collect()
}

#[test]
fn clash_detection_finds_a_shared_symbol() {
    let mut defs = BTreeMap::new();
    defs.insert(
        "liba.a".to_string(),
        BTreeSet::from(["shared".to_string(), "a_only".to_string()]),
    );
    defs.insert(
        "libb.a".to_string(),
        BTreeSet::from(["shared".to_string(), "b_only".to_string()]),
    );
    let c = clashes(&defs);
    assert_eq!(c.len(), 1);
    assert_eq!(c["shared"], vec!["liba.a", "libb.a"]);
}

#[test]
fn no_c_symbol_is_defined_by_two_linked_libraries() {
    let libs = archives();
    // The scan must see the providers' C code, or it proves nothing.
    for needed in [
        "liboqs.a",
        "libcrypto.a",
        "libml-kem-768_clean.a",
        "libntruhrss701_clean.a",
    ] {
        assert!(
            libs.contains_key(needed),
            "{needed} not found among {:?}",
            libs.keys()
        );
    }
    assert!(
        libs.keys().any(|n| n.starts_with("libaws_lc_")),
        "aws-lc archive not found"
    );
    let defs: BTreeMap<String, BTreeSet<String>> = libs
        .iter()
        .map(|(n, p)| (n.clone(), defined_symbols(p)))
        .collect();
    assert!(
        defs["liboqs.a"].len() > 100,
        "nm read too little from liboqs.a"
    );
    let c = clashes(&defs);
    let report: Vec<String> = c
        .iter()
        .take(20)
        .map(|(s, l)| format!("{s}: {}", l.join(", ")))
        .collect();
    assert!(
        c.is_empty(),
        "{} symbols defined twice:\n{}",
        c.len(),
        report.join("\n")
    );
}
