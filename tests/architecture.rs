//! The layering that ARCHITECTURE.md describes, checked on the sources: every row of its layer
//! table (read from the document itself, so the two cannot drift apart), no import cycle
//! between the folders of `src/`, and no command module imports another.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

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
    out.sort();
    out
}

/// The code of a file without its unit tests (which may use fixtures from anywhere): up to the
/// first `#[cfg(test)]` that opens a `mod tests` (of any visibility).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut from = 0;
    while let Some(i) = text[from..].find("#[cfg(test)]\n") {
        let at = from + i;
        let next = text[at..].lines().nth(1).unwrap_or_default();
        let module = next
            .trim_start()
            .trim_start_matches("pub(super) ")
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub ");
        // An inline `mod tests { ... }` runs to the end of the file; `mod tests;` (a file of
        // its own) is one line, and the code after it is the module's.
        if module.starts_with("mod tests") && !module.trim_end().ends_with(';') {
            return text[..at].to_string();
        }
        from = at + 1;
    }
    text
}

/// The names that follow `root::` in `text` (`crate` in the library, `kembench` in the binary).
fn paths_under(text: &str, root: &str) -> BTreeSet<String> {
    let prefix = format!("{root}::");
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices(&prefix) {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c == '$' || c == '_' || c.is_ascii_alphanumeric()) {
            continue; // `$crate::` inside a macro (the macro's own crate), or `foo_crate::`
        }
        let name: String = text[i + prefix.len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// The names that follow `crate::` in `text`.
fn crate_paths(text: &str) -> BTreeSet<String> {
    paths_under(text, "crate")
}

/// The top-level modules of `src/` (`lib` and `main` included).
fn top_level_modules() -> BTreeSet<String> {
    std::fs::read_dir(src())
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            p.file_stem().unwrap().to_string_lossy().into_owned()
        })
        .collect()
}

/// A file's path under `src/`, with `/` separators.
fn rel(path: &Path) -> String {
    let r = path.strip_prefix(src()).unwrap();
    r.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The top-level module a file under `src/` belongs to.
fn top_of(rel: &str) -> String {
    let first = rel.split('/').next().unwrap();
    first.trim_end_matches(".rs").to_string()
}

/// Every library and binary file with the top-level modules it imports (its own excepted);
/// test-only modules (`fixture.rs`, `tests.rs`) left out.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let tops = top_level_modules();
    let mut out = BTreeMap::new();
    for f in sources(&src()) {
        let name = f.file_name().unwrap().to_string_lossy();
        if name == "fixture.rs" || name == "tests.rs" {
            continue;
        }
        let rel = rel(&f);
        let top = top_of(&rel);
        let text = code(&f);
        let mut deps = crate_paths(&text);
        if rel == "main.rs" {
            deps.extend(paths_under(&text, "kembench"));
        }
        // `bail_usage!` is `$crate::usage::Usage`, which the scan above skips.
        if text.contains("bail_usage!") {
            deps.insert("usage".to_string());
        }
        deps.retain(|d| *d != top && tops.contains(d));
        out.insert(rel, deps);
    }
    out
}

/// Top-level module → the top-level modules it imports.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, deps) in imports() {
        g.entry(top_of(&file)).or_default().extend(deps);
    }
    g
}

/// What a row's "may import" column allows.
#[derive(Debug, PartialEq)]
enum MayImport {
    /// Every module of a lower layer ("the layers below", "everything below").
    Below,
    /// Exactly these modules (none for "nothing of kembench").
    Named(BTreeSet<String>),
}

/// One row of ARCHITECTURE.md's layer table.
#[derive(Debug)]
struct Row {
    layer: u32,
    /// Folders (`kem/`, `providers/built/`) and files (`exit.rs`) under `src/`.
    paths: Vec<String>,
    may_import: MayImport,
    /// The row in a few words, for messages: its folders and files, layer and "may import".
    text: String,
}

/// The names in backquotes in `cell`.
fn quoted(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// `cell` without what is in parentheses (remarks).
fn without_remarks(cell: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::new();
    for c in cell.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Reads a "may import" cell: a phrase, or module names in backquotes separated by commas.
fn may_import(cell: &str) -> Result<MayImport, String> {
    let said = without_remarks(cell);
    let lower = said.to_lowercase();
    if lower.contains("nothing of kembench") {
        return Ok(MayImport::Named(BTreeSet::new()));
    }
    if lower.contains("the layers below") || lower.contains("everything below") {
        return Ok(MayImport::Below);
    }
    let names = quoted(&said);
    let mut rest = said.clone();
    for n in &names {
        rest = rest.replacen(&format!("`{n}`"), "", 1);
    }
    let rest = rest.replace(',', " ").replace(" and ", " ");
    if names.is_empty() || !rest.trim().is_empty() {
        return Err(format!(
            "cannot read \"{cell}\": write module names in backquotes separated by commas, \
             \"the layers below\", \"everything below\" or \"nothing of kembench\" (remarks in \
             parentheses)"
        ));
    }
    Ok(MayImport::Named(names.into_iter().collect()))
}

/// The rows of the table under "## The layers" in `doc`.
fn parse_table(doc: &str) -> Result<Vec<Row>, String> {
    let doc = format!("\n{doc}");
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("The layers"))
        .ok_or("no section \"## The layers\"")?;
    let mut rows = Vec::new();
    for line in section.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // "| layer | folder / file | owns | may import |" splits into six cells.
        let Ok(layer) = cells.get(1).unwrap_or(&"").parse::<u32>() else {
            continue; // the header and its rule
        };
        if cells.len() != 6 {
            return Err(format!(
                "a row of the layer table has {} cells: {line}",
                cells.len()
            ));
        }
        let paths = quoted(cells[2]);
        if paths.is_empty() {
            return Err(format!("a row names no folder or file: {line}"));
        }
        rows.push(Row {
            layer,
            paths,
            may_import: may_import(cells[4])?,
            text: format!(
                "the row of {} (layer {layer}, may import: {})",
                cells[2], cells[4]
            ),
        });
    }
    if rows.is_empty() {
        return Err("the layer table has no rows".into());
    }
    Ok(rows)
}

/// The folder of the row that holds the engine of a kind without a row of its own.
const KIND: &str = "KIND/";

/// The modules of the list of kinds in `record/mod.rs` (`Tls => tls::Tls,` gives `tls`): each
/// is a kind's record folder and its engine, the top-level module of the same name.
fn kind_modules() -> BTreeSet<String> {
    std::fs::read_to_string(src().join("record/mod.rs"))
        .unwrap()
        .lines()
        .filter_map(|l| {
            let (variant, rest) = l.trim().split_once(" => ")?;
            let (module, marker) = rest.split_once("::")?;
            let ident =
                |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            (ident(variant) && ident(module) && ident(marker.trim_end_matches(',')))
                .then(|| module.to_string())
        })
        .collect()
}

/// The row of a file (its index): the one whose folder or file names it most closely; for a
/// file of a kind's engine that no row names, the `KIND/` row.
fn row_of(rows: &[Row], rel: &str, kinds: &BTreeSet<String>) -> Option<usize> {
    rows.iter()
        .enumerate()
        .flat_map(|(i, r)| r.paths.iter().map(move |p| (p, i)))
        .filter(|(p, _)| {
            if p.as_str() == KIND {
                false
            } else if p.ends_with('/') {
                rel.starts_with(p.as_str())
            } else {
                rel == p.as_str()
            }
        })
        .max_by_key(|(p, _)| p.len())
        .map(|(_, i)| i)
        .or_else(|| {
            let engine = rel.contains('/') && kinds.contains(&top_of(rel));
            engine
                .then(|| rows.iter().position(|r| r.paths.iter().any(|p| p == KIND)))
                .flatten()
        })
}

/// Every way the sources depart from `rows`, one message each.
fn departures(
    rows: &[Row],
    files: &BTreeMap<String, BTreeSet<String>>,
    kinds: &BTreeSet<String>,
) -> Vec<String> {
    let tops = top_level_modules();
    let mut out = Vec::new();
    // The layer of each top-level module: the highest of its rows.
    let mut layer: BTreeMap<String, u32> = BTreeMap::new();
    for r in rows {
        for p in &r.paths {
            if p == KIND {
                continue; // a pattern: the engines of kinds without a row of their own
            }
            let rel = p.trim_end_matches('/');
            if !src().join(rel).exists() {
                out.push(format!(
                    "ARCHITECTURE.md names src/{p}, which does not exist"
                ));
            }
            let top = top_of(rel);
            let l = layer.entry(top).or_insert(r.layer);
            *l = (*l).max(r.layer);
        }
    }
    // The engine of a kind without a row of its own sits in the `KIND/` row's layer, so that
    // the layers above may import it.
    if let Some(r) = rows.iter().find(|r| r.paths.iter().any(|p| p == KIND)) {
        for k in kinds {
            layer.entry(k.clone()).or_insert(r.layer);
        }
    }
    // Which files each row covers, and what they import together.
    let mut covered: Vec<BTreeSet<String>> = vec![BTreeSet::new(); rows.len()];
    for (file, deps) in files {
        if file == "lib.rs" {
            continue; // the crate root only declares the modules
        }
        let Some(i) = row_of(rows, file, kinds) else {
            out.push(format!(
                "src/{file} has no row in ARCHITECTURE.md's layer table (add one for `{}`)",
                top_of(file)
            ));
            continue;
        };
        let row = &rows[i];
        let allowed: BTreeSet<String> = match &row.may_import {
            MayImport::Below => layer
                .iter()
                .filter(|(_, l)| **l < row.layer)
                .map(|(m, _)| m.clone())
                .collect(),
            MayImport::Named(n) => n.clone(),
        };
        for d in deps.difference(&allowed) {
            out.push(format!(
                "src/{file} imports `{d}`, which {} does not allow",
                row.text
            ));
        }
        covered[i].extend(deps.iter().cloned());
    }
    for (r, used) in rows.iter().zip(&covered) {
        let MayImport::Named(names) = &r.may_import else {
            continue;
        };
        for n in names {
            if !tops.contains(n) {
                out.push(format!("`{n}` in {} is not a module of src/", r.text));
            } else if layer.get(n).is_none_or(|l| *l >= r.layer) {
                out.push(format!(
                    "`{n}` in {} is not in a lower layer (it is in layer {})",
                    r.text,
                    layer.get(n).map_or("none".into(), |l| l.to_string())
                ));
            }
            // The `KIND/` row is a ceiling for engines to come: it may name what none uses yet.
            if !used.contains(n) && !r.paths.iter().any(|p| p == KIND) {
                out.push(format!("no file imports `{n}`: take it out of {}", r.text));
            }
        }
    }
    out
}

fn architecture_md() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md")).unwrap()
}

#[test]
fn every_row_of_the_layer_table_holds() {
    let rows = parse_table(&architecture_md()).unwrap();
    let wrong = departures(&rows, &imports(), &kind_modules());
    assert!(
        wrong.is_empty(),
        "ARCHITECTURE.md's layer table and the sources disagree:\n{}",
        wrong.join("\n")
    );
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
fn no_command_module_imports_another() {
    let dir = src().join("commands");
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
    let p = crate_paths("use crate::record::latency; x = $crate::export::Format; crate::kem::Kem");
    assert_eq!(
        p,
        ["kem", "record"]
            .iter()
            .map(|s| s.to_string())
            .collect::<BTreeSet<_>>()
    );
    let files = imports();
    assert!(graph()["commands"].contains("record"));
    assert!(
        files["main.rs"].contains("commands"),
        "kembench:: in main.rs"
    );
    assert!(files["report/mod.rs"].contains("usage"), "bail_usage!");
    // A unit test's imports are not the module's.
    assert!(!files["verify/checks.rs"].contains("providers"));
}

#[test]
fn the_checker_reads_the_table() {
    let doc = "# x\n\n## The layers, bottom to top\n\n\
               | layer | folder / file | owns | may import |\n|---|---|---|---|\n\
               | 0 | `kem/` | the trait (`Kem`) | nothing of kembench |\n\
               | 1 | `a.rs`, `b/` | things | `kem` (the trait), `stats` |\n\
               | 2 | `cli.rs` | clap | the layers below |\n\n## Next\n\n| 9 | `x/` | | `y` |\n";
    let rows = parse_table(doc).unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0].may_import, MayImport::Named(BTreeSet::new()));
    assert_eq!(rows[1].paths, ["a.rs", "b/"]);
    assert_eq!(
        rows[1].may_import,
        MayImport::Named(["kem", "stats"].iter().map(|s| s.to_string()).collect())
    );
    assert_eq!(rows[2].may_import, MayImport::Below);
    assert!(may_import("the same, and `run`").is_err(), "unknown prose");
    assert!(may_import("").is_err());
}

#[test]
fn the_checker_finds_a_forbidden_import() {
    let doc = "## The layers\n\n| layer | folder / file | owns | may import |\n|---|---|---|---|\n\
               | 0 | `kem/` | | nothing of kembench |\n\
               | 0 | `stats/` | | nothing of kembench |\n\
               | 2 | `measure/` | | `kem`, `stats` |\n";
    let rows = parse_table(doc).unwrap();
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    let files = BTreeMap::from([
        ("kem/mod.rs".to_string(), set(&["measure"])),
        ("measure/mod.rs".to_string(), set(&["kem"])),
        ("units.rs".to_string(), set(&[])),
    ]);
    let wrong = departures(&rows, &files, &BTreeSet::new()).join("\n");
    assert!(
        wrong.contains("src/kem/mod.rs imports `measure`"),
        "{wrong}"
    );
    assert!(wrong.contains("src/units.rs has no row"), "{wrong}");
    assert!(wrong.contains("no file imports `stats`"), "{wrong}");
}

#[test]
fn a_new_kinds_engine_is_held_to_the_kind_row() {
    let doc = "## The layers\n\n| layer | folder / file | owns | may import |\n|---|---|---|---|\n\
               | 0 | `kem/` | | nothing of kembench |\n\
               | 3 | `record/` | | `kem` |\n\
               | 5 | `KIND/` | a kind's engine | `kem`, `record`, `stats` |\n\
               | 7 | `output/` | | `kem` |\n\
               | 10 | `commands/` | | everything below |\n";
    let rows = parse_table(doc).unwrap();
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    let files = BTreeMap::from([
        ("kem/mod.rs".to_string(), set(&[])),
        ("record/mod.rs".to_string(), set(&["kem"])),
        ("output/mod.rs".to_string(), set(&["kem"])),
        // The kind's command imports its engine, which sits in the KIND row's layer.
        (
            "commands/sizes.rs".to_string(),
            set(&["kem", "record", "output", "sizes"]),
        ),
        (
            "sizes/mod.rs".to_string(),
            set(&["kem", "record", "output"]),
        ),
        ("stray/mod.rs".to_string(), set(&["kem"])),
    ]);
    let wrong = departures(&rows, &files, &set(&["sizes"])).join("\n");
    assert!(
        wrong.contains("src/sizes/mod.rs imports `output`, which the row of `KIND/`"),
        "the engine of the kind `sizes` has the KIND row: {wrong}"
    );
    assert!(!wrong.contains("src/sizes/mod.rs has no row"), "{wrong}");
    assert!(
        !wrong.contains("src/commands/sizes.rs imports"),
        "a command may import its kind's engine: {wrong}"
    );
    assert!(
        wrong.contains("src/stray/mod.rs has no row"),
        "not a kind: {wrong}"
    );
    assert!(
        !wrong.contains("no file imports `stats`"),
        "a ceiling: {wrong}"
    );
    assert!(kind_modules().contains("tls"), "{:?}", kind_modules());
}

/// The top-level modules that exist only with the `app` feature: those `lib.rs` declares
/// under `#[cfg(feature = "app")]`, and the engines whose `mod.rs` opens with
/// `#![cfg(feature = "app")]`.
fn app_modules() -> BTreeSet<String> {
    const GATE: &str = "#[cfg(feature = \"app\")]";
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let lines: Vec<&str> = lib.lines().map(str::trim).collect();
    let mut out = BTreeSet::new();
    for w in lines.windows(2) {
        if let (true, Some(m)) = (w[0] == GATE, w[1].strip_prefix("pub mod ")) {
            out.insert(m.trim_end_matches(';').to_string());
        }
    }
    for m in kind_modules() {
        let text = std::fs::read_to_string(src().join(&m).join("mod.rs")).unwrap_or_default();
        if text
            .lines()
            .any(|l| l.trim() == "#![cfg(feature = \"app\")]")
        {
            out.insert(m);
        }
    }
    out
}

/// The imports by which a module of the measuring core (any module not in `app`) reaches a
/// module that exists only with the `app` feature.
fn core_departures(g: &BTreeMap<String, BTreeSet<String>>, app: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for (m, deps) in g {
        if app.contains(m) || m == "lib" || m == "main" {
            continue;
        }
        for d in deps.iter().filter(|d| app.contains(*d)) {
            out.push(format!(
                "src/{m} is in the measuring core (built without the `app` feature) but imports \
                 `{d}`, which exists only with it"
            ));
        }
    }
    out
}

/// The backquoted module names of ARCHITECTURE.md's line that starts with `label`.
fn named_in_features(doc: &str, label: &str) -> BTreeSet<String> {
    let at = doc
        .find(label)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no line starting {label:?}"));
    // The bullet runs to the next blank line.
    let item = &doc[at + label.len()..];
    let item = &item[..item.find("\n\n").unwrap_or(item.len())];
    quoted(&item.replace('\n', " ")).into_iter().collect()
}

#[test]
fn the_measuring_core_builds_without_the_app_feature() {
    let app = app_modules();
    assert!(
        app.contains("commands") && app.contains("latency") && !app.contains("tls"),
        "{app:?}"
    );
    let wrong = core_departures(&graph(), &app);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // ARCHITECTURE.md names the modules that need the feature, and no others.
    let doc = architecture_md();
    assert_eq!(
        named_in_features(&doc, "- **Only with `app`:**"),
        app,
        "ARCHITECTURE.md's \"Features\" section and lib.rs disagree on what needs `app`"
    );
}

#[test]
fn the_checker_finds_a_core_module_that_imports_the_app() {
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    let g = BTreeMap::from([
        ("tls".to_string(), set(&["record", "store"])),
        ("record".to_string(), set(&["kem"])),
        ("store".to_string(), set(&["record"])),
    ]);
    let wrong = core_departures(&g, &set(&["store"]));
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(
        wrong[0].starts_with("src/tls is in the measuring core"),
        "{wrong:?}"
    );
    assert!(core_departures(&g, &set(&["store", "tls"])).is_empty());
}

/// A file's module path under `src/` (`record::profile::tables` for
/// `record/profile/tables.rs`, `providers::built` for `providers/built/mod.rs`).
fn module_of(rel: &str) -> String {
    let rel = rel.trim_end_matches(".rs").trim_end_matches("/mod");
    rel.replace('/', "::")
}

/// The module paths a file's code names through `crate::` and `super::` (`super::arches::x`
/// in `record/profile/tables.rs` names `record::profile::arches::x`; a group
/// `super::{a, b::c}` names each of its paths).
fn named_paths(module: &str, text: &str) -> Vec<String> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    // `super` of a file's module is the module above it (a `mod.rs` is its folder's module).
    let above = module.rsplit_once("::").map_or("", |(p, _)| p).to_string();
    let mut out = Vec::new();
    for (prefix, base) in [("crate::", String::new()), ("super::", above)] {
        for (i, _) in text.match_indices(prefix) {
            let before = text[..i].chars().next_back();
            if before.is_some_and(|c| c == '$' || word(c)) {
                continue;
            }
            let after = &text[i + prefix.len()..];
            let paths: Vec<String> = if let Some(group) = after.strip_prefix('{') {
                let inner = &group[..group.find('}').unwrap_or(group.len())];
                inner.split(',').map(|p| p.trim().to_string()).collect()
            } else {
                let p: String = after.chars().take_while(|c| word(*c)).collect();
                // `super::analyse()` or `super::name!`: an item of the module above (a function
                // or macro it declares or re-exports), not a module of that name.
                let next = after[p.len()..].chars().next();
                if !p.contains("::") && matches!(next, Some('(') | Some('!')) {
                    continue;
                }
                vec![p]
            };
            for p in paths {
                let p = p.trim_end_matches(':');
                if p.is_empty() || p.starts_with(|c: char| !c.is_ascii_lowercase()) {
                    continue; // an item of the module itself (`super::Type`)
                }
                out.push(if base.is_empty() {
                    p.to_string()
                } else {
                    format!("{base}::{p}")
                });
            }
        }
    }
    out
}

/// Edges between sibling modules (two files or folders of one folder): `from` → `to` when
/// `from`'s code names `to` or anything inside it.
fn sibling_edges(files: &[(String, String)]) -> BTreeSet<(String, String)> {
    let modules: BTreeSet<String> = files.iter().map(|(rel, _)| module_of(rel)).collect();
    let mut out = BTreeSet::new();
    for (rel, text) in files {
        // Code only: a doc comment that points at a sibling ("built once by [`super::x`]")
        // says who uses this module, not what it depends on.
        let text: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let text = &text;
        let from = module_of(rel);
        let parent = from.rsplit_once("::").map_or("", |(p, _)| p).to_string();
        for path in named_paths(&from, text) {
            // The sibling of `from` that `path` lies in: `parent::NAME...`.
            let Some(rest) = path
                .strip_prefix(&format!("{parent}::"))
                .or(if parent.is_empty() {
                    Some(path.as_str())
                } else {
                    None
                })
            else {
                continue;
            };
            let name = rest.split("::").next().unwrap_or_default();
            let to = if parent.is_empty() {
                name.to_string()
            } else {
                format!("{parent}::{name}")
            };
            if to != from && modules.contains(&to) {
                out.insert((from.clone(), to));
            }
        }
    }
    out
}

/// The import circles between sibling modules inside a folder (by their code, not their doc
/// comments), each said once.
fn sibling_circles(files: &[(String, String)]) -> Vec<String> {
    let edges = sibling_edges(files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in &edges {
        g.entry(a.clone()).or_default().insert(b.clone());
    }
    let mut said = BTreeSet::new();
    let mut out = Vec::new();
    for (a, b) in &edges {
        let pair = if a < b { (a, b) } else { (b, a) };
        if reaches(&g, b, a) && said.insert(pair) {
            out.push(format!("{a} imports {b}, and {b} leads back to {a}"));
        }
    }
    out
}

#[test]
fn no_import_circle_inside_a_folder() {
    let files: Vec<(String, String)> = sources(&src())
        .into_iter()
        .filter(|f| {
            let n = f.file_name().unwrap().to_string_lossy();
            n != "fixture.rs" && n != "tests.rs" && n != "lib.rs" && n != "main.rs"
        })
        .map(|f| (rel(&f), code(&f)))
        .collect();
    let circles = sibling_circles(&files);
    assert!(circles.is_empty(), "{}", circles.join("\n"));
}

#[test]
fn the_checker_finds_a_circle_inside_a_folder() {
    let file = |rel: &str, text: &str| (rel.to_string(), text.to_string());
    let files = vec![
        file("record/profile/mod.rs", "pub struct P;"),
        file(
            "record/profile/tables.rs",
            "use super::{arches, P}; super::arches::placed();",
        ),
        file(
            "record/profile/arches.rs",
            "fn f() { super::tables::hottest(); }",
        ),
        file(
            "providers/built/mod.rs",
            "crate::providers::foreign::Foreign::new()",
        ),
        file(
            "providers/foreign/mod.rs",
            "use crate::providers::built::Entry;",
        ),
        file(
            "providers/registry.rs",
            "crate::providers::built::x(); crate::providers::foreign::y()",
        ),
    ];
    let circles = sibling_circles(&files).join("\n");
    assert!(
        circles.contains("record::profile::arches imports record::profile::tables"),
        "{circles}"
    );
    assert!(
        circles.contains("providers::built imports providers::foreign"),
        "{circles}"
    );
    assert!(!circles.contains("registry"), "{circles}");
    // Without the way back, no circle.
    let mut fixed = files.clone();
    fixed[2].1 = "fn f() { super::hottest(); }".into();
    fixed[3].1 = "crate::providers::built::native()".into();
    assert_eq!(sibling_circles(&fixed), Vec::<String>::new());
}
