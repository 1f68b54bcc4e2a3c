//! The example workflows of docs/ci.md are checked: each parses as YAML with jobs and steps,
//! and every `kembench` command their steps run parses with kembench's own command line (the
//! subcommands exist and take the flags used), so a renamed flag breaks this test, not a
//! maintainer's CI.

use clap::Parser;
use kembench::commands::Cli;
use std::path::PathBuf;
use yaml_rust2::{Yaml, YamlLoader};

fn workflows() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/ci");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yml"))
        .collect();
    v.sort();
    v
}

/// The `kembench ...` command lines of a step's script, continuation lines joined.
fn kembench_lines(script: &str) -> Vec<String> {
    let joined = script.replace("\\\n", " ");
    joined
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("kembench "))
        .map(String::from)
        .collect()
}

/// `script` with each `${{ matrix.NAME }}` replaced by the matrix's first value of NAME, as
/// the first job of the matrix runs it.
fn with_matrix(script: &str, matrix: &Yaml) -> String {
    let mut out = script.to_string();
    if let Some(m) = matrix.as_hash() {
        for (k, v) in m {
            let (Some(k), Some(first)) = (k.as_str(), v.as_vec().and_then(|v| v.first())) else {
                continue;
            };
            let value = match first {
                Yaml::Integer(i) => i.to_string(),
                Yaml::String(s) => s.clone(),
                other => panic!("matrix {k}: {other:?}"),
            };
            out = out.replace(&format!("${{{{ matrix.{k} }}}}"), &value);
        }
    }
    out
}

/// Whether kembench's command line takes `line`; the error when it does not.
fn parses(line: &str) -> Result<(), String> {
    let args = shlex::split(line).ok_or_else(|| format!("not shell words: {line}"))?;
    Cli::try_parse_from(&args)
        .map(drop)
        .map_err(|e| format!("{line}\n{e}"))
}

#[test]
fn the_example_workflows_run_commands_that_exist() {
    let files = workflows();
    assert_eq!(files.len(), 4, "{files:?}");
    let guide =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/ci.md"))
            .unwrap();
    let mut commands = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            guide.contains(&format!("ci/{name}")),
            "docs/ci.md does not show {name}"
        );
        let text = std::fs::read_to_string(f).unwrap();
        let docs = YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let doc = &docs[0];
        let jobs = doc["jobs"]
            .as_hash()
            .unwrap_or_else(|| panic!("{name}: no jobs"));
        assert!(!jobs.is_empty());
        for (_, job) in jobs {
            let steps = job["steps"]
                .as_vec()
                .unwrap_or_else(|| panic!("{name}: a job without steps"));
            for step in steps {
                assert!(
                    step["run"].as_str().is_some() || step["uses"].as_str().is_some(),
                    "{name}: a step neither runs nor uses: {step:?}"
                );
                if let Yaml::String(script) = &step["run"] {
                    let script = with_matrix(script, &job["strategy"]["matrix"]);
                    for line in kembench_lines(&script) {
                        if let Err(e) = parses(&line) {
                            panic!("{name}: {e}");
                        }
                        commands += 1;
                    }
                }
            }
        }
    }
    assert!(commands >= 6, "only {commands} kembench commands found");
}

/// The check can fail: a flag kembench does not have, or a subcommand it does not have, is
/// refused.
#[test]
fn a_flag_that_does_not_exist_is_caught() {
    assert!(parses("kembench profile --impl liboqs --seeds 1 --baseline b.json").is_ok());
    assert!(parses("kembench profile --impl liboqs --gate-against b.json").is_err());
    assert!(parses("kembench ci --baseline b.json").is_err());
    let lines = kembench_lines("echo x\n  kembench profile \\\n    --seeds 1\nkembenchx y\n");
    // A matrix value is put in before the line is parsed: a shard the matrix cannot give is
    // caught.
    let matrix = &YamlLoader::load_from_str("shard: [5, 6]").unwrap()[0];
    let line = with_matrix(
        "kembench run --shard ${{ matrix.shard }}/4 --sweep s",
        matrix,
    );
    assert_eq!(line, "kembench run --shard 5/4 --sweep s");
    assert!(parses(&line).is_err());
    assert!(parses("kembench run --shard 2/4 --sweep s").is_ok());
    assert_eq!(lines, ["kembench profile      --seeds 1"]);
}
