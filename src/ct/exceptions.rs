//! The exception lists of `kembench ct`: findings that are benign by analysis, or known issues
//! of an implementation, as data with a reason each (`ct-exceptions/*.toml` at the repository
//! root, embedded in the binary, and any file a user loads on top).
//!
//! An entry:
//!
//! ```toml
//! [[exception]]
//! id = "mlkem-liboqs-rej-uniform"      # unique over every list loaded
//! list = "benign"                      # or "issue"
//! algorithm = "ML-KEM-*"               # glob over the algorithm's name
//! implementation = "liboqs*"           # glob over the implementation id (builds: `pqclean/clean@gcc-12:O2`)
//! screen = "secret-flow"               # secret-flow | latency | timing
//! operation = "keygen"                 # optional: keygen | encaps | decaps (absent: every one)
//! kind = "branch"                      # branch | index | syscall | timing | a mnemonic (div, ...)
//! function = "*rej_uniform*"           # glob, see below
//! reason = "why it is benign, or what the issue is"
//! ```
//!
//! Globs are case-sensitive except over algorithm and implementation names, and `*` crosses
//! `/` (so `pqclean/clean*` matches every build of that source). **`function` is matched
//! against the finding's innermost function and then against every frame of its stack** (from
//! the innermost out to the marker): an entry names the routine whose work is public (such as
//! the sampling of a public matrix) and covers the helpers it calls (Keccak, a comparison),
//! which is how liboqs's suppressions name a frame anywhere on the stack. The first entry that
//! matches explains a finding.
//!
//! A known issue is explained, not excused: `ct` exits 1 when any finding is a known issue
//! that nobody accepted. A user accepts named issues by their entry's id, with `ct --accept
//! ID[,ID]` or in a list of their own:
//!
//! ```toml
//! [[accept]]
//! id = "kyberslash-pqclean-clean-decaps"   # the id of an issue entry of any list loaded
//! reason = "why this build may ship anyway"
//! ```
//!
//! kembench's own lists accept nothing. A malformed list is bad input (exit 2), named by its
//! file and line.

use crate::kem::Op;
use crate::record::ct::{ExceptionList, Explained, Finding, Screen, ScreenResult};
use globset::{Glob, GlobBuilder, GlobMatcher};
use serde::Deserialize;
use std::collections::HashSet;
use std::path::Path;
use std::sync::Mutex;

/// The lists kembench carries, each with the path it came from.
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "ct-exceptions/ml-kem.toml",
        include_str!("../../ct-exceptions/ml-kem.toml"),
    ),
    (
        "ct-exceptions/other-kems.toml",
        include_str!("../../ct-exceptions/other-kems.toml"),
    ),
    (
        "ct-exceptions/classical.toml",
        include_str!("../../ct-exceptions/classical.toml"),
    ),
    (
        "ct-exceptions/latency.toml",
        include_str!("../../ct-exceptions/latency.toml"),
    ),
];

/// The mnemonics the latency screen names, accepted as an entry's `kind`.
pub const MNEMONICS: &[&str] = &[
    "div", "idiv", "divss", "divsd", "divps", "divpd", "vdivss", "vdivsd", "vdivps", "vdivpd",
    "sqrtss", "sqrtsd", "sqrtps", "sqrtpd", "vsqrtss", "vsqrtsd", "vsqrtps", "vsqrtpd", "fdiv",
    "fdivr", "fidiv", "fsqrt",
    // Foreign builds under QEMU (the divide class of `profile`'s instruction mix): aarch64,
    "udiv", "sdiv",
    // s390x,
    "d", "dr", "dl", "dlr", "dlg", "dlgr", "dsg", "dsgr", "dsgf", "dsgfr", "ddb", "ddbr", "deb",
    "debr", "dxbr",
    // ppc64le,
    "divw", "divwu", "divd", "divdu", "divwe", "divweu", "divde", "divdeu", "fdivs", "xsdivdp",
    // riscv64.
    "divu", "divuw", "rem", "remu", "remw", "remuw",
];

/// One entry as written in a file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    id: String,
    list: String,
    algorithm: String,
    implementation: String,
    screen: String,
    #[serde(default)]
    operation: Option<String>,
    kind: String,
    function: String,
    reason: String,
}

/// One acceptance of a known issue, as written in a file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAccept {
    id: String,
    reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    exception: Vec<RawEntry>,
    #[serde(default)]
    accept: Vec<RawAccept>,
}

/// The acceptance of one known issue by id: on the command line or in a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acceptance {
    /// The id of the issue entry accepted.
    pub id: String,
    /// What accepted it: `--accept`, or `FILE:LINE` of the `[[accept]]` entry.
    pub by: String,
    /// Why, when the list says.
    pub reason: Option<String>,
}

/// One entry of the lists, checked.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its id, unique over every list loaded.
    pub id: String,
    /// Benign or issue.
    pub list: ExceptionList,
    /// The algorithm glob, as written.
    pub algorithm: String,
    /// The implementation glob, as written.
    pub implementation: String,
    /// The screen.
    pub screen: Screen,
    /// The operation, or every one.
    pub operation: Option<Op>,
    /// The finding kind's short name (`branch`, `div`).
    pub kind: String,
    /// The function glob, as written.
    pub function: String,
    /// Why.
    pub reason: String,
    /// The file it came from.
    pub file: String,
    algorithm_glob: GlobMatcher,
    implementation_glob: GlobMatcher,
    function_glob: GlobMatcher,
}

impl Entry {
    /// Whether the entry is about this algorithm, implementation and screen (whatever it
    /// found).
    pub fn applies(&self, algorithm: &str, implementation: &str, screen: Screen) -> bool {
        self.screen == screen
            && self.algorithm_glob.is_match(algorithm)
            && self.implementation_glob.is_match(implementation)
    }

    /// Whether the entry explains `f`, found by `screen` in `op`.
    pub fn matches(&self, op: Op, f: &Finding) -> bool {
        self.operation.is_none_or(|o| o == op)
            && self.kind == f.kind.short()
            && (self.function_glob.is_match(&f.function)
                || f.stack.iter().any(|s| self.function_glob.is_match(s)))
    }
}

/// The exception lists loaded, in order (the first entry that matches a finding explains it).
#[derive(Debug, Default)]
pub struct Exceptions {
    entries: Vec<Entry>,
    accepted: Vec<Acceptance>,
    matched: Mutex<HashSet<String>>,
}

fn glob(text: &str, case_insensitive: bool) -> Result<GlobMatcher, String> {
    GlobBuilder::new(text)
        .case_insensitive(case_insensitive)
        .literal_separator(false)
        .build()
        .map(|g: Glob| g.compile_matcher())
        .map_err(|e| format!("bad glob `{text}`: {e}"))
}

fn op_named(s: &str) -> Option<Op> {
    super::worker::OPS.into_iter().find(|o| o.as_str() == s)
}

/// The entry checked, or the field at fault and what is wrong with it.
fn check(raw: RawEntry, file: &str) -> Result<Entry, (&'static str, String)> {
    let list = match raw.list.as_str() {
        "benign" => ExceptionList::Benign,
        "issue" => ExceptionList::Issue,
        other => return Err(("list", format!("unknown list `{other}` (benign or issue)"))),
    };
    let screen = Screen::parse(&raw.screen).ok_or_else(|| {
        (
            "screen",
            format!(
                "unknown screen `{}` (secret-flow, latency or timing)",
                raw.screen
            ),
        )
    })?;
    let operation = match raw.operation.as_deref() {
        None => None,
        Some(o) => Some(op_named(o).ok_or_else(|| {
            (
                "operation",
                format!("unknown operation `{o}` (keygen, encaps or decaps)"),
            )
        })?),
    };
    let kind_fits = match screen {
        Screen::SecretFlow => ["branch", "index", "syscall"].contains(&raw.kind.as_str()),
        Screen::Latency => MNEMONICS.contains(&raw.kind.as_str()),
        Screen::Timing => raw.kind == "timing",
    };
    if !kind_fits {
        return Err((
            "kind",
            format!(
                "unknown kind `{}` for screen {} (secret-flow: branch, index, syscall; latency: \
                 a mnemonic such as div; timing: timing)",
                raw.kind, raw.screen
            ),
        ));
    }
    if raw.reason.trim().is_empty() {
        return Err((
            "reason",
            "the reason is empty: every exception says why".into(),
        ));
    }
    if raw.id.trim().is_empty() {
        return Err(("id", "the id is empty".into()));
    }
    Ok(Entry {
        algorithm_glob: glob(&raw.algorithm, true).map_err(|e| ("algorithm", e))?,
        implementation_glob: glob(&raw.implementation, true).map_err(|e| ("implementation", e))?,
        function_glob: glob(&raw.function, false).map_err(|e| ("function", e))?,
        id: raw.id,
        list,
        algorithm: raw.algorithm,
        implementation: raw.implementation,
        screen,
        operation,
        kind: raw.kind,
        function: raw.function,
        reason: raw.reason.trim().to_string(),
        file: file.to_string(),
    })
}

/// The line (from 1) of byte `at` of `text`.
fn line_at(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// The line of the `n`-th (from 0) `[[table]]` header of `text`, and of its `field` when the
/// entry writes it (the header's line otherwise): where an error in that entry is shown.
fn entry_line(text: &str, table: &str, n: usize, field: Option<&str>) -> Option<usize> {
    let header = format!("[[{table}]]");
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim() == header)
        .map(|(i, _)| i)
        .collect();
    let start = *starts.get(n)?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.trim_start().starts_with('['))
        .map_or(lines.len(), |p| start + 1 + p);
    let at = field.and_then(|f| {
        (start + 1..end).find(|&i| {
            lines[i]
                .trim_start()
                .strip_prefix(f)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
    });
    Some(at.unwrap_or(start) + 1)
}

/// A problem in a list: bad input (exit 2), named by the file and line.
fn bad_list(file: &str, line: Option<usize>, what: String) -> anyhow::Error {
    let at = line.map(|l| format!(", line {l}")).unwrap_or_default();
    crate::usage::Usage(format!("{file}{at}: {what}")).into()
}

impl Exceptions {
    /// Parses one file's text (`file` names it in errors). A malformed file is a
    /// [`crate::usage::Usage`] error naming the file, the line and the problem.
    pub fn parse(text: &str, file: &str) -> anyhow::Result<Exceptions> {
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            bad_list(
                file,
                e.span().map(|s| line_at(text, s.start)),
                format!("not a list of exceptions: {}", e.message().trim()),
            )
        })?;
        let mut out = Exceptions::default();
        for (i, r) in raw.exception.into_iter().enumerate() {
            let id = r.id.clone();
            let e = check(r, file).map_err(|(field, why)| {
                bad_list(
                    file,
                    entry_line(text, "exception", i, Some(field)),
                    format!("exception #{} (id `{id}`): {why}", i + 1),
                )
            })?;
            if let Some(old) = out.entries.iter().find(|o| o.id == e.id) {
                return Err(bad_list(
                    file,
                    entry_line(text, "exception", i, Some("id")),
                    format!(
                        "exception id `{}` is already used (in {})",
                        e.id, old.file
                    ),
                ));
            }
            out.entries.push(e);
        }
        for (i, a) in raw.accept.into_iter().enumerate() {
            let line = entry_line(text, "accept", i, None);
            let by = format!("{file}{}", line.map(|l| format!(":{l}")).unwrap_or_default());
            if a.reason.trim().is_empty() {
                return Err(bad_list(
                    file,
                    entry_line(text, "accept", i, Some("reason")),
                    format!(
                        "accept #{} (id `{}`): the reason is empty: every acceptance says why",
                        i + 1,
                        a.id
                    ),
                ));
            }
            out.accepted.push(Acceptance {
                id: a.id.trim().to_string(),
                by,
                reason: Some(a.reason.trim().to_string()),
            });
        }
        Ok(out)
    }

    fn push(&mut self, e: Entry) -> anyhow::Result<()> {
        if let Some(old) = self.entries.iter().find(|o| o.id == e.id) {
            return Err(crate::usage::Usage(format!(
                "{}: exception id `{}` is already used (in {})",
                e.file, e.id, old.file
            ))
            .into());
        }
        self.entries.push(e);
        Ok(())
    }

    /// The lists kembench carries ([`BUILTIN`]). They accept no issue: accepting one is the
    /// user's choice, made by id.
    pub fn builtin() -> anyhow::Result<Exceptions> {
        let mut out = Exceptions::default();
        for (file, text) in BUILTIN {
            let list = Exceptions::parse(text, file)?;
            if let Some(a) = list.accepted.first() {
                anyhow::bail!("{}: kembench's own lists accept no issue ({})", a.by, a.id);
            }
            out.merge(list)?;
        }
        Ok(out)
    }

    /// Accepts the known issues `ids`, given by `by` (`--accept`).
    pub fn accept(&mut self, ids: &[String], by: &str) {
        for id in ids {
            self.accepted.push(Acceptance {
                id: id.trim().to_string(),
                by: by.to_string(),
                reason: None,
            });
        }
    }

    /// Every acceptance, in order.
    pub fn accepted(&self) -> &[Acceptance] {
        &self.accepted
    }

    /// Checks every acceptance against the entries loaded: each must name an entry listed as
    /// an issue. An unknown id is refused with the nearest issue ids; a benign entry's id with
    /// what it is.
    pub fn check_accepted(&self) -> anyhow::Result<()> {
        let issues: Vec<String> = self
            .entries
            .iter()
            .filter(|e| e.list == ExceptionList::Issue)
            .map(|e| e.id.clone())
            .collect();
        for a in &self.accepted {
            match self.entries.iter().find(|e| e.id == a.id) {
                Some(e) if e.list == ExceptionList::Issue => {}
                Some(e) => crate::bail_usage!(
                    "{}: `{}` is a benign entry of {}, not a known issue: there is nothing to \
                     accept (benign findings never fail `ct`)",
                    a.by,
                    a.id,
                    e.file
                ),
                None => crate::bail_usage!(
                    "{}: no known issue has the id `{}` (the ids are those of the `issue` \
                     entries of the exception lists, printed beside each finding){}",
                    a.by,
                    a.id,
                    crate::suggest::hint(&a.id, &issues)
                ),
            }
        }
        Ok(())
    }

    /// A user's list from `path`.
    pub fn load(path: &Path) -> anyhow::Result<Exceptions> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        Exceptions::parse(&text, &path.display().to_string())
    }

    /// Adds `other`'s entries after these (these come first when both match); an id used in
    /// both is an error naming both files.
    pub fn merge(&mut self, other: Exceptions) -> anyhow::Result<()> {
        for e in other.entries {
            self.push(e)?;
        }
        self.accepted.extend(other.accepted);
        Ok(())
    }

    /// Every entry, in order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Sets `explained` on each finding of `r` (screened on `algorithm` by `implementation`)
    /// that an entry matches, and clears it on the others.
    pub fn explain(&self, algorithm: &str, implementation: &str, r: &mut ScreenResult) {
        let applicable: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| e.applies(algorithm, implementation, r.screen))
            .collect();
        let mut matched = self.matched.lock().unwrap_or_else(|p| p.into_inner());
        for f in &mut r.findings {
            let hits: Vec<&&Entry> = applicable
                .iter()
                .filter(|e| e.matches(r.operation, f))
                .collect();
            for e in &hits {
                matched.insert(e.id.clone());
            }
            f.explained = hits.first().map(|e| Explained {
                list: e.list,
                id: e.id.clone(),
                reason: e.reason.clone(),
                accepted: match e.list {
                    ExceptionList::Issue => self
                        .accepted
                        .iter()
                        .find(|a| a.id == e.id)
                        .map(|a| a.by.clone()),
                    ExceptionList::Benign => None,
                },
            });
        }
    }

    /// The entries that apply to something screened (`screened`: algorithm, implementation,
    /// screen) and matched no finding in any [`explain`](Self::explain) call so far: stale,
    /// to be removed or re-examined.
    pub fn stale<'a>(
        &self,
        screened: impl IntoIterator<Item = (&'a str, &'a str, Screen)>,
    ) -> Vec<&Entry> {
        let matched = self.matched.lock().unwrap_or_else(|p| p.into_inner());
        let screened: Vec<_> = screened.into_iter().collect();
        self.entries
            .iter()
            .filter(|e| !matched.contains(&e.id))
            .filter(|e| screened.iter().any(|(a, i, s)| e.applies(a, i, *s)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::ct::{FindingKind, Ran};

    const GOOD: &str = r#"
[[exception]]
id = "a"
list = "benign"
algorithm = "ML-KEM-*"
implementation = "pqclean/clean*"
screen = "secret-flow"
operation = "keygen"
kind = "branch"
function = "*rej_uniform*"
reason = "public matrix"
"#;

    fn with(field: &str, value: &str) -> String {
        GOOD.lines()
            .map(|l| {
                if l.starts_with(&format!("{field} =")) {
                    format!("{field} = \"{value}\"")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn result(op: Op, function: &str, stack: &[&str]) -> ScreenResult {
        ScreenResult {
            screen: Screen::SecretFlow,
            operation: op,
            ran: Ran::Screened,
            how: String::new(),
            findings: vec![Finding {
                kind: FindingKind::Branch,
                function: function.into(),
                stack: stack.iter().map(|s| s.to_string()).collect(),
                object: None,
                line: None,
                count_per_call: 1,
                secret_operands: None,
                detail: String::new(),
                explained: None,
            }],
            timing: None,
        }
    }

    #[test]
    fn the_builtin_lists_load_and_every_file_of_the_folder_is_embedded() {
        let b = Exceptions::builtin().unwrap();
        assert!(!b.entries().is_empty());
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("ct-exceptions");
        for f in std::fs::read_dir(dir).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|e| e == "toml") {
                let name = format!("ct-exceptions/{}", p.file_name().unwrap().to_string_lossy());
                assert!(
                    BUILTIN.iter().any(|(n, _)| *n == name),
                    "{name} is not in BUILTIN"
                );
            }
        }
    }

    #[test]
    fn a_listed_finding_is_explained_and_an_unlisted_one_is_not() {
        let x = Exceptions::parse(GOOD, "t.toml").unwrap();
        // The glob covers builds, and a frame anywhere on the stack.
        let mut r = result(
            Op::Keygen,
            "KeccakF1600",
            &["KeccakF1600", "PQCLEAN_x_rej_uniform", "gen"],
        );
        x.explain("ML-KEM-768", "pqclean/clean@gcc-12:O2", &mut r);
        let e = r.findings[0].explained.as_ref().unwrap();
        assert_eq!((e.id.as_str(), e.list), ("a", ExceptionList::Benign));
        assert_eq!(e.reason, "public matrix");
        for (alg, imp, op, func) in [
            ("ML-KEM-768", "pqclean/avx2", Op::Keygen, "rej_uniform"),
            ("HQC-128", "pqclean/clean", Op::Keygen, "rej_uniform"),
            ("ML-KEM-768", "pqclean/clean", Op::Decaps, "rej_uniform"),
            ("ML-KEM-768", "pqclean/clean", Op::Keygen, "poly_tomsg"),
        ] {
            let mut r = result(op, func, &[func]);
            x.explain(alg, imp, &mut r);
            assert!(
                r.findings[0].explained.is_none(),
                "{alg} {imp} {op:?} {func}"
            );
        }
    }

    #[test]
    fn stale_entries_are_those_that_applied_and_matched_nothing() {
        let x = Exceptions::parse(GOOD, "t.toml").unwrap();
        let screened = [("ML-KEM-768", "pqclean/clean", Screen::SecretFlow)];
        let mut r = result(Op::Keygen, "other", &["other"]);
        x.explain("ML-KEM-768", "pqclean/clean", &mut r);
        assert_eq!(x.stale(screened).len(), 1);
        assert!(
            x.stale([("HQC-128", "liboqs", Screen::SecretFlow)])
                .is_empty(),
            "not screened: not stale"
        );
        let mut r = result(Op::Keygen, "rej_uniform", &["rej_uniform"]);
        x.explain("ML-KEM-768", "pqclean/clean", &mut r);
        assert!(x.stale(screened).is_empty());
    }

    #[test]
    fn bad_entries_are_refused_naming_the_file_and_the_entry() {
        for (field, value, says) in [
            ("screen", "memory", "unknown screen `memory`"),
            ("list", "maybe", "unknown list `maybe`"),
            ("kind", "jump", "unknown kind `jump`"),
            ("kind", "div", "unknown kind `div` for screen secret-flow"),
            ("operation", "exchange", "unknown operation `exchange`"),
            ("reason", "  ", "the reason is empty"),
            ("function", "a[", "bad glob"),
        ] {
            let err = Exceptions::parse(&with(field, value), "bad.toml").unwrap_err();
            assert_eq!(crate::exit::code_for(&err), crate::exit::USAGE, "bad input: exit 2");
            let e = err.to_string();
            // The line of the field at fault (GOOD starts with a blank line).
            let line = GOOD
                .lines()
                .position(|l| l.starts_with(&format!("{field} =")))
                .unwrap()
                + 1;
            assert!(
                e.starts_with(&format!("bad.toml, line {line}: exception #1 (id `a`)")),
                "{e}"
            );
            assert!(e.contains(says), "{field}: {e}");
        }
        let twice = format!("{GOOD}\n{}", GOOD);
        let e = Exceptions::parse(&twice, "dup.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("exception id `a` is already used"), "{e}");
        let mut a = Exceptions::parse(GOOD, "one.toml").unwrap();
        let e = a
            .merge(Exceptions::parse(GOOD, "two.toml").unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("two.toml") && e.contains("one.toml"), "{e}");
        let err = Exceptions::parse("[[exception]]\nid = \"x\"\n", "short.toml").unwrap_err();
        assert_eq!(crate::exit::code_for(&err), crate::exit::USAGE);
        let e = err.to_string();
        assert!(e.starts_with("short.toml, line 1: not a list of exceptions"), "{e}");
        let e = Exceptions::parse("[[exception]]\nid = \"x\"\nlist = \n", "syntax.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("syntax.toml, line 3: not a list of exceptions"), "{e}");
        let e = Exceptions::parse(
            &GOOD.replace("reason =", "why = \"\"\nreason ="),
            "extra.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("why"), "unknown fields are refused: {e}");
    }

    /// GOOD as a known issue, with `accept` appended.
    fn issue_list(accept: &str) -> String {
        format!("{}\n{accept}", with("list", "issue"))
    }

    #[test]
    fn a_known_issue_is_accepted_by_id_on_the_command_line_or_in_a_list() {
        let finding = || result(Op::Keygen, "rej_uniform", &["rej_uniform"]);
        // Not accepted: explained, and nothing says accepted.
        let x = Exceptions::parse(&issue_list(""), "t.toml").unwrap();
        x.check_accepted().unwrap();
        let mut r = finding();
        x.explain("ML-KEM-768", "pqclean/clean", &mut r);
        let e = r.findings[0].explained.as_ref().unwrap();
        assert_eq!((e.list, e.accepted.as_deref()), (ExceptionList::Issue, None));
        assert!(r.findings[0].unaccepted_issue());
        // On the command line.
        let mut x = Exceptions::parse(&issue_list(""), "t.toml").unwrap();
        x.accept(&["a".into()], "--accept");
        x.check_accepted().unwrap();
        let mut r = finding();
        x.explain("ML-KEM-768", "pqclean/clean", &mut r);
        let e = r.findings[0].explained.as_ref().unwrap();
        assert_eq!(e.accepted.as_deref(), Some("--accept"));
        assert!(!r.findings[0].unaccepted_issue());
        // In a list, named by its file and line; the acceptance may come from another file
        // than the entry.
        let mut x = Exceptions::parse(&issue_list(""), "t.toml").unwrap();
        let mine = "# mine\n[[accept]]\nid = \"a\"\nreason = \"we ship it knowingly\"\n";
        x.merge(Exceptions::parse(mine, "mine.toml").unwrap()).unwrap();
        x.check_accepted().unwrap();
        assert_eq!(x.accepted()[0].by, "mine.toml:2");
        assert_eq!(x.accepted()[0].reason.as_deref(), Some("we ship it knowingly"));
        let mut r = finding();
        x.explain("ML-KEM-768", "pqclean/clean", &mut r);
        assert_eq!(
            r.findings[0].explained.as_ref().unwrap().accepted.as_deref(),
            Some("mine.toml:2")
        );
    }

    #[test]
    fn an_acceptance_must_name_a_known_issue() {
        let mut x = Exceptions::parse(&issue_list(""), "t.toml").unwrap();
        x.accept(&["b".into()], "--accept");
        let err = x.check_accepted().unwrap_err();
        assert_eq!(crate::exit::code_for(&err), crate::exit::USAGE);
        assert!(err.to_string().contains("no known issue has the id `b`"), "{err}");
        let mut x = Exceptions::builtin().unwrap();
        x.accept(&["kyberslash-tomsg-dvi".into()], "--accept");
        let err = x.check_accepted().unwrap_err().to_string();
        assert!(err.contains("did you mean kyberslash-tomsg-div"), "{err}");
        // A benign entry has nothing to accept.
        let mut x = Exceptions::parse(GOOD, "t.toml").unwrap();
        x.accept(&["a".into()], "--accept");
        let err = x.check_accepted().unwrap_err().to_string();
        assert!(err.contains("is a benign entry of t.toml"), "{err}");
        // An acceptance without a reason is refused at its line.
        let err = Exceptions::parse("[[accept]]\nid = \"a\"\nreason = \" \"\n", "r.toml")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("r.toml, line 3: accept #1"), "{err}");
        // kembench's own lists accept nothing.
        assert!(Exceptions::builtin().unwrap().accepted().is_empty());
    }

    #[test]
    fn a_user_file_loads_and_a_missing_one_is_an_error() {
        let dir = std::env::temp_dir().join(format!("kembench-exc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("mine.toml");
        std::fs::write(&p, GOOD).unwrap();
        assert_eq!(Exceptions::load(&p).unwrap().entries().len(), 1);
        assert!(Exceptions::load(&dir.join("none.toml"))
            .unwrap_err()
            .to_string()
            .contains("cannot read"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
