//! The README and the manual (`docs/*.md`) cannot rot: every `kembench` command line they show
//! is checked against kembench's own command line, and the examples in blocks marked `sh run`
//! are run.
//!
//! - A command line in a fenced `sh` block with no placeholder parses with kembench's clap
//!   definitions as written (`Cli::try_parse_from`): a renamed flag, a removed subcommand or a
//!   value kembench refuses at parse time fails here.
//! - A synopsis line (with `[...]`, `A|B`, `...` or an upper-case placeholder such as `RUN`) and
//!   every `kembench ...` in inline code in the prose name a subcommand that exists and only
//!   flags that it takes.
//! - The examples of a ```` ```sh run ```` block are run, in the order written, each in a
//!   scratch directory with a store and a build cache of the test's own; each must exit 0 (or the
//!   code a trailing `# exits N` names). A block marked ```` ```sh run fixture=NAME ```` finds
//!   the files of `tests/data/NAME/` in its scratch directory first (the package `add` is shown
//!   adding), as a reader's current directory would hold them; one marked `liboqs-tree=DIR`
//!   finds there a copy of the liboqs tree kembench carries under `DIR` (the checkouts
//!   `builds --source` is shown building).
//! - The front README stays a front door (at most 300 lines) and links the manual's index, and
//!   the index links every chapter.

use clap::CommandFactory;
use clap::Parser;
use kembench::commands::Cli;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every page of docs/.
fn pages() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    v.extend(docs);
    v
}

/// A fenced block: its info string and its lines.
struct Block {
    info: String,
    text: String,
}

fn blocks(md: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut cur: Option<Block> = None;
    for line in md.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("```") {
            match cur.take() {
                Some(b) => out.push(b),
                None => {
                    cur = Some(Block {
                        info: rest.trim().to_string(),
                        text: String::new(),
                    })
                }
            }
        } else if let Some(b) = cur.as_mut() {
            b.text.push_str(line);
            b.text.push('\n');
        }
    }
    out
}

/// A command of a shell block: the `kembench ...` words and the exit code it expects.
#[derive(Debug)]
struct Example {
    line: String,
    exits: i32,
}

/// Drops an unquoted `#` comment; returns the line and the comment.
fn split_comment(line: &str) -> (&str, &str) {
    let (mut single, mut double) = (false, false);
    let b = line.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b'#' if !single && !double && (i == 0 || b[i - 1].is_ascii_whitespace()) => {
                return (&line[..i], &line[i + 1..]);
            }
            _ => {}
        }
    }
    (line, "")
}

/// The `kembench` commands of a shell block, continuation lines joined, `&&` and `;` split.
fn examples(script: &str) -> Vec<Example> {
    let joined = script.replace("\\\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        let (code, comment) = split_comment(line);
        let exits = comment
            .trim()
            .strip_prefix("exits ")
            .and_then(|n| n.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        for part in split_commands(code) {
            let p = part.trim();
            if p.starts_with("kembench ") {
                out.push(Example {
                    line: p.to_string(),
                    exits,
                });
            }
        }
    }
    out
}

/// A shell line split at unquoted `&&` and `;`.
fn split_commands(line: &str) -> Vec<&str> {
    let (mut single, mut double) = (false, false);
    let b = line.as_bytes();
    let (mut out, mut start, mut i) = (Vec::new(), 0, 0);
    while i < b.len() {
        match b[i] {
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b';' if !single && !double => {
                out.push(&line[start..i]);
                start = i + 1;
            }
            b'&' if !single && !double && b.get(i + 1) == Some(&b'&') => {
                out.push(&line[start..i]);
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&line[start..]);
    out
}

/// Whether a command line is a synopsis (placeholders) rather than a command to run.
fn is_synopsis(line: &str) -> bool {
    line.contains('[')
        || line.contains("...")
        || line.contains('<')
        || line
            .split_whitespace()
            .any(|w| w.contains('|') && !w.starts_with('\'') && !w.starts_with('"'))
        || line.split_whitespace().skip(1).any(|w| {
            let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric());
            w.len() >= 3
                && w.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                && !w.contains("KEM")
        })
}

/// The subcommand a line names and the flags it uses; an error naming what kembench lacks.
fn flags_exist(line: &str) -> Result<(), String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.get(1) {
        // `kembench ... | head -1`: any subcommand.
        Some(&"...") => return Ok(()),
        // `kembench run|profile --shard K/N`: each of them.
        Some(alternatives) if alternatives.contains('|') => {
            for sub in alternatives.split('|') {
                let rest = words[2..].join(" ");
                flags_exist(&format!("kembench {sub} {rest}"))?;
            }
            return Ok(());
        }
        _ => {}
    }
    let cli = Cli::command();
    let Some(sub) = words.get(1).and_then(|s| cli.find_subcommand(s)) else {
        return Err(format!("no subcommand in `{line}`"));
    };
    let mut known: Vec<String> = cli
        .get_arguments()
        .chain(sub.get_arguments())
        .filter_map(|a| a.get_long().map(String::from))
        .collect();
    known.extend(["help".into(), "version".into()]);
    for w in &words[2..] {
        let w = w.trim_start_matches('[').trim_start_matches('(');
        if let Some(flag) = w.strip_prefix("--") {
            let name: String = flag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if !name.is_empty() && !known.contains(&name) {
                return Err(format!("`kembench {}` has no --{name}: `{line}`", words[1]));
            }
        }
    }
    Ok(())
}

/// Whether a concrete command line parses as written.
fn parses(line: &str) -> Result<(), String> {
    let args = shlex::split(line).ok_or_else(|| format!("not shell words: {line}"))?;
    Cli::try_parse_from(&args)
        .map(drop)
        .map_err(|e| format!("{line}\n{e}"))
}

/// Every `kembench ...` in inline code (single backticks) of the prose.
fn inline_commands(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            continue;
        }
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1 && span.starts_with("kembench ") {
                out.push(span.to_string());
            }
        }
    }
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

#[test]
fn every_command_line_in_the_docs_is_kembench_s() {
    let (mut concrete, mut synopses, mut inline) = (0, 0, 0);
    let mut errors = Vec::new();
    for page in pages() {
        let md = std::fs::read_to_string(&page).unwrap();
        for b in blocks(&md).iter().filter(|b| b.info.starts_with("sh")) {
            for e in examples(&b.text) {
                let r = if is_synopsis(&e.line) {
                    synopses += 1;
                    flags_exist(&e.line)
                } else {
                    concrete += 1;
                    parses(&e.line)
                };
                if let Err(err) = r {
                    errors.push(format!("{}: {err}", rel(&page)));
                }
            }
        }
        for line in inline_commands(&md) {
            inline += 1;
            if let Err(err) = flags_exist(&line) {
                errors.push(format!("{} (inline): {err}", rel(&page)));
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n\n"));
    assert!(
        concrete >= 20 && synopses >= 15 && inline >= 30,
        "too few command lines found: {concrete} examples, {synopses} synopses, {inline} inline"
    );
}

/// The checks can fail: a flag or subcommand kembench lacks, a value it refuses, are caught.
#[test]
fn the_command_line_checks_fail_on_what_kembench_lacks() {
    assert!(parses("kembench run --alg ML-KEM-768 --time-budget 2").is_ok());
    assert!(parses("kembench run --alg ML-KEM-768 --time-budgett 2").is_err());
    assert!(parses("kembench run --shard 5/4 --sweep s").is_err());
    assert!(flags_exist("kembench run [--alg GLOB] [--time-budget SECS]").is_ok());
    assert!(flags_exist("kembench run [--alg GLOB] [--budget SECS]").is_err());
    assert!(flags_exist("kembench frobnicate [--alg GLOB]").is_err());
    assert!(is_synopsis("kembench show RUN [--wide]"));
    assert!(is_synopsis("kembench export RUN --format json|csv"));
    assert!(!is_synopsis(
        "kembench run --alg ML-KEM-768,X25519 --impl 'pqclean/*'"
    ));
    let ex = examples(
        "kembench runs && kembench show latest # exits 1\nls\n  kembench list \\\n --json\n",
    );
    let lines: Vec<_> = ex.iter().map(|e| (e.line.as_str(), e.exits)).collect();
    assert_eq!(
        lines,
        [
            ("kembench runs", 1),
            ("kembench show latest", 1),
            ("kembench list   --json", 0)
        ]
    );
    assert_eq!(split_comment("a '#x' # c"), ("a '#x' ", " c"));
    assert_eq!(
        split_commands("kembench builds --flags '-O2;-O3' && kembench runs; ls"),
        [
            "kembench builds --flags '-O2;-O3' ",
            " kembench runs",
            " ls"
        ]
    );
    assert!(flags_exist("kembench run|profile --shard K/N").is_ok());
    assert!(flags_exist("kembench run|list --shard K/N").is_err());
}

/// The folders a block's info string asks to hold a copy of the carried liboqs tree
/// (`sh run liboqs-tree=liboqs-pr liboqs-tree=liboqs-main`).
fn liboqs_trees(info: &str) -> Vec<&str> {
    info.split_whitespace()
        .filter_map(|w| w.strip_prefix("liboqs-tree="))
        .collect()
}

/// The fixture a block's info string names (`sh run fixture=NAME`).
fn fixture(info: &str) -> Option<&str> {
    info.split_whitespace()
        .find_map(|w| w.strip_prefix("fixture="))
}

/// Copies the files below `from` into `to`, folders included.
fn copy_tree(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

#[test]
fn a_blocks_fixture_is_read_from_its_info_string() {
    assert_eq!(fixture("sh run fixture=nist-package"), Some("nist-package"));
    assert_eq!(fixture("sh run"), None);
    assert_eq!(
        liboqs_trees("sh run liboqs-tree=a liboqs-tree=b"),
        ["a", "b"]
    );
    assert!(liboqs_trees("sh run fixture=x").is_empty());
}

#[test]
fn the_examples_marked_to_run_run() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_kembench"));
    let scratch = std::env::temp_dir().join(format!("kembench-docs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let mut ran = 0;
    for page in pages() {
        let md = std::fs::read_to_string(&page).unwrap();
        for (n, b) in blocks(&md)
            .iter()
            .filter(|b| b.info.split_whitespace().take(2).eq(["sh", "run"]))
            .enumerate()
        {
            // One scratch directory (store, build cache, files) per block: its examples build
            // on each other, as a reader typing them in order would.
            let dir = scratch.join(format!(
                "{}-{n}",
                page.file_stem().unwrap().to_string_lossy()
            ));
            std::fs::create_dir_all(&dir).unwrap();
            if let Some(name) = fixture(&b.info) {
                let from = root().join("tests").join("data").join(name);
                assert!(
                    from.is_dir(),
                    "{}: no fixture {}",
                    rel(&page),
                    from.display()
                );
                copy_tree(&from, &dir);
            }
            for name in liboqs_trees(&b.info) {
                let from = Path::new(env!("KEMBENCH_SRC_OQS_SYS")).join("liboqs");
                let o = std::process::Command::new("cp")
                    .arg("-a")
                    .arg(&from)
                    .arg(dir.join(name))
                    .output()
                    .unwrap();
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            }
            for e in examples(&b.text) {
                let args = shlex::split(&e.line).unwrap();
                let out = std::process::Command::new(&bin)
                    .args(&args[1..])
                    .current_dir(&dir)
                    .env("KEMBENCH_STORE", dir.join("store.sqlite"))
                    .env("KEMBENCH_BUILD_DIR", dir.join("builds"))
                    .env_remove("KEMBENCH_MOCK_FAULTS")
                    .output()
                    .unwrap();
                let code = out.status.code().unwrap_or(-1);
                assert_eq!(
                    code,
                    e.exits,
                    "{}: `{}` exited {code}, expected {}\nstdout:\n{}\nstderr:\n{}",
                    rel(&page),
                    e.line,
                    e.exits,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                ran += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(ran >= 17, "only {ran} examples ran");
}

#[test]
fn the_readme_is_a_front_door_to_an_indexed_manual() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines: keep it <= 300");
    assert!(
        readme.contains("(docs/README.md)"),
        "README does not link the manual's index"
    );
    let index = std::fs::read_to_string(root().join("docs/README.md")).unwrap();
    for page in pages().iter().skip(1) {
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        if name != "README.md" {
            assert!(
                index.contains(&format!("]({name})")),
                "docs/README.md does not link {name}"
            );
        }
    }
    // Every relative link of every page names a file that exists.
    for page in pages() {
        let md = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        for target in md.split("](").skip(1).filter_map(|s| s.split(')').next()) {
            if target.starts_with("http") || target.starts_with('#') {
                continue;
            }
            let file = target.split('#').next().unwrap();
            assert!(
                dir.join(file).exists(),
                "{}: the link {target} names no file",
                rel(&page)
            );
        }
    }
}

/// The implementation table of `docs/sources.md` gives, for every implementation kembench
/// links, its version (the one `list` prints) and the specification of every algorithm it
/// offers (the catalog's `standard`, word for word): two specifications of one scheme (HQC
/// round 4 and the 2025-08-22 one) are never blurred into one name.
#[test]
fn the_implementation_table_names_every_version_and_specification() {
    let md = std::fs::read_to_string(root().join("docs/sources.md")).unwrap();
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| `")).collect();
    assert!(
        !rows.is_empty(),
        "docs/sources.md has no implementation table"
    );
    let registry = kembench::providers::Registry::new(false);
    let mut missing = Vec::new();
    for k in registry.all() {
        let m = k.meta();
        let id = format!("`{}`", m.implementation);
        let Some(row) = rows
            .iter()
            .find(|r| r.split('|').nth(1).is_some_and(|c| c.contains(&id)))
        else {
            missing.push(format!("{id}: no row"));
            continue;
        };
        // The version `list` prints first (liboqs 0.13.0, OpenSSL 3.6.3, hqc-kem 0.1.0-rc.0).
        let version = m
            .version
            .split_whitespace()
            .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))
            .map(|w| w.trim_end_matches([',', ')']))
            .unwrap_or_else(|| panic!("{}: no version in {:?}", m.label(), m.version));
        if !row.contains(version) {
            missing.push(format!("{id}: version {version}"));
        }
        if !row.contains(m.algorithm.standard) {
            missing.push(format!(
                "{id}: {} of {}",
                m.algorithm.standard, m.algorithm.name
            ));
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "docs/sources.md lacks:\n{}",
        missing.join("\n")
    );
}
