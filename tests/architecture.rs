//! The layering that ARCHITECTURE.md describes, checked on the sources: no import cycle
//! between the folders of `src/`, the bottom layers import nothing above them, and no command
//! module imports another.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(sources(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

/// The code of a file without its unit tests (which may use fixtures from anywhere).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// The names that follow `crate::` in `text`.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        if text[..i].ends_with('$') {
            continue; // `$crate::` inside a macro: the macro's own crate
        }
        let rest = &text[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// Top-level module → the top-level modules it imports.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let tops: BTreeSet<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            p.file_stem().unwrap().to_string_lossy().into_owned()
        })
        .collect();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in sources(&src) {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let name = rel.file_name().unwrap().to_string_lossy();
        if name == "fixture.rs" || name == "tests.rs" {
            continue; // test-only modules
        }
        let deps = g.entry(top.clone()).or_default();
        for d in crate_paths(&code(&f)) {
            if d != top && tops.contains(&d) {
                deps.insert(d);
            }
        }
    }
    g
}

/// Whether `to` can be reached from `from`.
fn reaches(g: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(m) = stack.pop() {
        for d in g.get(&m).into_iter().flatten() {
            if d == to {
                return true;
            }
            if seen.insert(d.clone()) {
                stack.push(d.clone());
            }
        }
    }
    false
}

#[test]
fn no_import_cycle_between_modules() {
    let g = graph();
    for (m, deps) in &g {
        for d in deps {
            assert!(
                !reaches(&g, d, m),
                "import cycle: {m} imports {d}, and {d} leads back to {m} ({g:#?})"
            );
        }
    }
}

#[test]
fn the_bottom_layers_import_nothing_above_them() {
    let g = graph();
    let allowed: [(&str, &[&str]); 4] = [
        ("kem", &[]),
        ("stats", &[]),
        ("callgrind", &[]),
        ("measure", &["kem"]),
    ];
    for (m, ok) in allowed {
        let deps = g.get(m).cloned().unwrap_or_default();
        let above: Vec<&String> = deps.iter().filter(|d| !ok.contains(&d.as_str())).collect();
        assert!(above.is_empty(), "{m} imports {above:?}");
    }
}

#[test]
fn no_command_module_imports_another() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/commands");
    for f in sources(&dir) {
        if f.file_name().unwrap() == "mod.rs" {
            continue;
        }
        let text = code(&f);
        assert!(
            !text.contains("super::") && !text.contains("crate::commands"),
            "{} imports another command module",
            f.display()
        );
    }
}

#[test]
fn the_checker_sees_imports() {
    let p = crate_paths("use crate::record::run; x = $crate::export::Format; crate::kem::Kem");
    assert_eq!(
        p,
        ["kem", "record"]
            .iter()
            .map(|s| s.to_string())
            .collect::<BTreeSet<_>>()
    );
    assert!(graph()["commands"].contains("record"));
}
