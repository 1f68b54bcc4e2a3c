//! Source trees the user names (`kembench builds --source KIND=PATH`): a liboqs checkout or
//! release, a PQClean checkout, of any version, built through the same recipes as the copies
//! kembench carries (liboqs's CMake, PQClean's `crypto_kem/*` packages) and gated the same way.
//!
//! A tree's sources are named after the tree, never after the carried copy: the project's
//! declared version, then `+g` and the commit when the tree is a git checkout
//! (`liboqs-0.13.0+g1a2b3c4`), with `.` and the first 8 hex digits of a content digest after
//! it when the checkout has uncommitted changes (`liboqs-0.13.0+g1a2b3c4.5e6f7a8b`), or `+`
//! and the digest alone when it is not a git checkout (`liboqs-0.13.0+5e6f7a8b`). So two trees
//! of one declared version are told apart, and the same code in two places is one build.
//! The build cache keys each build by its files' contents as well, so an edited tree is
//! rebuilt.
//!
//! Known answers come from the tree's own files: liboqs's `tests/KATs/kem/kats.json`,
//! PQClean's `META.yml` per scheme. An algorithm a tree has that kembench does not build
//! from it is listed with the sizes the tree declares, not dropped.

use super::c_text;
use super::liboqs_kems;
use super::sources::{self, Missing, Origin, Source};
use crate::arch::Arch;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The kinds of tree `--source` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A liboqs tree: `CMakeLists.txt` with `project(liboqs`, and `src/kem/`.
    Liboqs,
    /// A PQClean tree: `crypto_kem/` and `common/`.
    Pqclean,
    /// An OpenSSL tree: `Configure` and `VERSION.dat`, built with its own `Configure` and
    /// `make`, then OpenSSL's KEM adapter (`workers/tls-openssl4`'s library) linked against it.
    Openssl,
}

/// Every kind name `--source` knows, and for those it does not build yet, why.
const KINDS: &[(&str, Option<Kind>)] = &[
    ("liboqs", Some(Kind::Liboqs)),
    ("pqclean", Some(Kind::Pqclean)),
    ("openssl", Some(Kind::Openssl)),
    ("aws-lc", None),
];

impl Kind {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Liboqs => "liboqs",
            Kind::Pqclean => "pqclean",
            Kind::Openssl => "openssl",
        }
    }

    /// The files that make up its code (relative to the tree): what the content digest
    /// covers, and where a git checkout's uncommitted changes are looked for.
    fn code(self) -> &'static [&'static str] {
        match self {
            Kind::Liboqs => &[
                "CMakeLists.txt",
                ".CMake",
                "src",
                "tests/KATs/kem/kats.json",
            ],
            Kind::Pqclean => &["crypto_kem", "common"],
            Kind::Openssl => &[
                "Configure",
                "VERSION.dat",
                "Configurations",
                "crypto",
                "providers",
                "include",
                "ssl",
            ],
        }
    }
}

/// A tree named by `--source`, opened: what it is, which version, which code.
#[derive(Debug, Clone)]
pub struct Tree {
    /// Its kind.
    pub kind: Kind,
    /// Where it is (as given, made absolute).
    pub path: PathBuf,
    /// The version the project declares in the tree (liboqs's `OQS_VERSION_*`); PQClean
    /// declares none.
    pub declared: Option<String>,
    /// The git commit (full), when the tree is the top of a git checkout.
    pub commit: Option<String>,
    /// Whether that checkout has uncommitted changes in its code.
    pub dirty: bool,
    /// SHA-256 over its code's file names and contents ([`Kind::code`]).
    pub digest: String,
    /// How its sources are named and recorded.
    pub origin: Origin,
}

/// Reads `KIND=PATH` and opens the tree. A malformed argument, an unknown kind (with the
/// nearest), a kind not built yet, or a PATH that is not a tree of KIND (naming the file
/// expected there) is a usage error; a tree that cannot be read names the system's reason.
pub fn open(arg: &str) -> anyhow::Result<Tree> {
    let names: Vec<String> = KINDS.iter().map(|(n, _)| n.to_string()).collect();
    let Some((kind, path)) = arg.split_once('=') else {
        crate::bail_usage!(
            "--source takes KIND=PATH (KIND one of {}), not '{arg}'",
            names.join(", ")
        );
    };
    let kind = match KINDS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(kind.trim()))
    {
        Some((_, Some(k))) => *k,
        Some((n, None)) => crate::bail_usage!(
            "--source {n}=PATH: not built yet. kembench builds liboqs, PQClean and OpenSSL \
             trees; building {n} from its tree (its own build system, its library loaded \
             beside kembench's own) is not there yet"
        ),
        None => crate::bail_usage!(
            "--source: unknown kind '{kind}'{}",
            match crate::suggest::hint(kind, &names) {
                h if h.is_empty() => format!("; kinds: {}", names.join(", ")),
                h => h,
            }
        ),
    };
    if path.is_empty() {
        crate::bail_usage!("--source {}= names no path", kind.name());
    }
    let path = std::path::absolute(path)?;
    match std::fs::metadata(&path) {
        Err(e) => anyhow::bail!("--source {}={}: {e}", kind.name(), path.display()),
        Ok(m) if !m.is_dir() => crate::bail_usage!(
            "--source {}={}: not a directory (a {} tree is a directory)",
            kind.name(),
            path.display(),
            kind.name()
        ),
        Ok(_) => {}
    }
    // Readable at all: a directory without permission is a system error, not a wrong path.
    std::fs::read_dir(&path)
        .map_err(|e| anyhow::anyhow!("--source {}={}: {e}", kind.name(), path.display()))?;
    check_kind(kind, &path)?;
    let declared = match kind {
        Kind::Liboqs => Some(liboqs_version(&path)?),
        Kind::Pqclean => None,
        Kind::Openssl => Some(openssl_version(&path)?),
    };
    let digest = content_digest(&path, kind.code())
        .map_err(|e| anyhow::anyhow!("--source {}={}: {e}", kind.name(), path.display()))?;
    let (commit, dirty) = git_state(&path, kind.code());
    let mut prefix = kind.name().to_string();
    if let Some(v) = &declared {
        prefix += &format!("-{v}");
    }
    let short = &digest[..8];
    prefix += &match (&commit, dirty) {
        (Some(c), false) => format!("+g{}", &c[..7]),
        (Some(c), true) => format!("+g{}.{short}", &c[..7]),
        (None, _) => format!("+{short}"),
    };
    let revision = match (&commit, dirty) {
        (Some(c), false) => format!("git {c}"),
        (Some(c), true) => format!("git {c} with uncommitted changes, content sha256 {digest}"),
        (None, _) => format!("not a git checkout, content sha256 {digest}"),
    };
    let version = format!(
        "{}{} tree {} ({revision})",
        kind.name(),
        declared
            .as_deref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default(),
        path.display()
    );
    let kats = match kind {
        Kind::Liboqs => liboqs_kats(&path, &prefix),
        Kind::Pqclean | Kind::Openssl => BTreeMap::new(),
    };
    Ok(Tree {
        kind,
        path,
        declared,
        commit,
        dirty,
        digest,
        origin: Origin {
            prefix,
            version,
            kats,
        },
    })
}

/// Checks that `path` is a tree of `kind`, naming the file or folder expected there.
fn check_kind(kind: Kind, path: &Path) -> anyhow::Result<()> {
    let not = |what: &str| -> anyhow::Result<()> {
        crate::bail_usage!(
            "--source {}={}: not {} {} tree: expected {what} there",
            kind.name(),
            path.display(),
            if kind.name().starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            },
            kind.name()
        )
    };
    match kind {
        Kind::Liboqs => {
            let cmake = path.join("CMakeLists.txt");
            let text = match std::fs::read_to_string(&cmake) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return not("CMakeLists.txt declaring project(liboqs ...)")
                }
                Err(e) => anyhow::bail!("--source liboqs: {}: {e}", cmake.display()),
            };
            let declares = text.lines().any(|l| {
                l.trim_start()
                    .replace(' ', "")
                    .starts_with("project(liboqs")
            });
            if !declares {
                return not(
                    "CMakeLists.txt declaring project(liboqs ...), which this one does not",
                );
            }
            if !path.join("src").join("kem").is_dir() {
                return not("src/kem/");
            }
        }
        Kind::Pqclean => {
            for d in ["crypto_kem", "common"] {
                if !path.join(d).is_dir() {
                    return not(&format!("{d}/"));
                }
            }
        }
        Kind::Openssl => {
            for f in ["Configure", "VERSION.dat"] {
                if !path.join(f).is_file() {
                    return not(f);
                }
            }
        }
    }
    Ok(())
}

/// The version OpenSSL's `VERSION.dat` declares: `MAJOR.MINOR.PATCH`, with `-PRE_RELEASE_TAG`
/// when there is one (`3.7.0-dev`), as OpenSSL's own version line gives it.
fn openssl_version(path: &Path) -> anyhow::Result<String> {
    let file = path.join("VERSION.dat");
    let text = std::fs::read_to_string(&file)
        .map_err(|e| anyhow::anyhow!("--source openssl: {}: {e}", file.display()))?;
    let get = |name: &str| -> Option<String> {
        text.lines().find_map(|l| {
            let v = l.trim().strip_prefix(name)?.strip_prefix('=')?;
            Some(v.trim().trim_matches('"').to_string())
        })
    };
    match (get("MAJOR"), get("MINOR"), get("PATCH")) {
        (Some(a), Some(b), Some(c)) if !a.is_empty() && !b.is_empty() && !c.is_empty() => {
            let pre = get("PRE_RELEASE_TAG").filter(|t| !t.is_empty());
            Ok(format!(
                "{a}.{b}.{c}{}",
                pre.map(|t| format!("-{t}")).unwrap_or_default()
            ))
        }
        _ => Err(crate::usage::Usage(format!(
            "--source openssl={}: its VERSION.dat declares no version (MAJOR, MINOR, PATCH)",
            path.display()
        ))
        .into()),
    }
}

/// The version liboqs's `CMakeLists.txt` declares: `OQS_VERSION_TEXT` when it is a literal
/// (older trees), else `OQS_VERSION_MAJOR.MINOR.PATCH` and `OQS_VERSION_PRE_RELEASE`.
fn liboqs_version(path: &Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(path.join("CMakeLists.txt"))?;
    let set = |name: &str| -> Option<String> {
        text.lines().find_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix("set(")?.trim_start();
            let rest = rest.strip_prefix(name)?;
            if !rest.starts_with(|c: char| c.is_whitespace()) {
                return None;
            }
            let v = rest.trim().strip_suffix(')')?.trim();
            Some(v.trim_matches('"').to_string())
        })
    };
    if let Some(t) = set("OQS_VERSION_TEXT").filter(|t| !t.contains("${")) {
        return Ok(t);
    }
    match (
        set("OQS_VERSION_MAJOR"),
        set("OQS_VERSION_MINOR"),
        set("OQS_VERSION_PATCH"),
    ) {
        (Some(a), Some(b), Some(c)) => Ok(format!(
            "{a}.{b}.{c}{}",
            set("OQS_VERSION_PRE_RELEASE").unwrap_or_default()
        )),
        _ => Err(crate::usage::Usage(format!(
            "--source liboqs={}: its CMakeLists.txt declares no version (OQS_VERSION_TEXT, or \
             OQS_VERSION_MAJOR/MINOR/PATCH)",
            path.display()
        ))
        .into()),
    }
}

/// SHA-256 over every file under `parts` of `root`: each file's path relative to `root`,
/// then its length and content, in sorted order.
fn content_digest(root: &Path, parts: &[&str]) -> std::io::Result<String> {
    let mut files = Vec::new();
    for p in parts {
        let at = root.join(p);
        if at.is_file() {
            files.push(at);
        } else if at.is_dir() {
            walk(&at, &mut files)?;
        }
    }
    files.sort();
    let mut h = Sha256::new();
    for f in files {
        let rel = f.strip_prefix(root).unwrap_or(&f);
        h.update(rel.to_string_lossy().as_bytes());
        h.update([0]);
        let bytes = std::fs::read(&f)?;
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(hex::encode(h.finalize()))
}

/// Every file under `dir` (symbolic links to files followed, to folders not).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let p = e.path();
        if e.file_type()?.is_dir() {
            walk(&p, out)?;
        } else if p.is_file() {
            out.push(p);
        }
    }
    Ok(())
}

/// The commit of the git checkout whose top is `root`, and whether `parts` have changes not
/// committed (untracked files included); `(None, false)` when `root` is not the top of a
/// checkout (a copy inside another repository is not that repository's commit).
fn git_state(root: &Path, parts: &[&str]) -> (Option<String>, bool) {
    let git = |args: &[&str]| -> Option<String> {
        let o = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        o.status
            .success()
            .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(top) = git(&["rev-parse", "--show-toplevel"]) else {
        return (None, false);
    };
    let same = std::fs::canonicalize(&top).ok() == std::fs::canonicalize(root).ok();
    let Some(commit) = git(&["rev-parse", "HEAD"]).filter(|_| same) else {
        return (None, false);
    };
    let mut status = vec!["status", "--porcelain", "--untracked-files=all", "--"];
    status.extend(parts);
    // A status that cannot be read counts as changed: the digest then tells trees apart.
    let dirty = git(&status).is_none_or(|s| !s.is_empty());
    (Some(commit), dirty)
}

/// liboqs's own known-answer digests in the tree (`tests/KATs/kem/kats.json`, each
/// algorithm's "single"), by name.
fn liboqs_kats(root: &Path, prefix: &str) -> BTreeMap<String, (String, String)> {
    let path = root
        .join("tests")
        .join("KATs")
        .join("kem")
        .join("kats.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return BTreeMap::new();
    };
    let Ok(serde_json::Value::Object(all)) = serde_json::from_str::<serde_json::Value>(&text)
    else {
        return BTreeMap::new();
    };
    all.into_iter()
        .filter_map(|(name, v)| {
            let single = v.get("single")?.as_str()?.to_string();
            Some((
                name,
                (single, format!("{prefix}'s tests/KATs/kem/kats.json")),
            ))
        })
        .collect()
}

impl Tree {
    /// The sources this tree offers for each of `archs`, and what it has that kembench does
    /// not build from it (with the sizes the tree declares).
    pub fn sources(&self, archs: &[Arch]) -> (Vec<Source>, Vec<Missing>) {
        let (mut found, mut missing) = (Vec::new(), Vec::new());
        for &arch in archs {
            let (f, m) = match self.kind {
                Kind::Liboqs => sources::liboqs_tree(&self.path, arch, Some(&self.origin)),
                Kind::Pqclean => self.pqclean(arch),
                Kind::Openssl => sources::openssl_tree(
                    &self.path,
                    &self.digest,
                    self.declared.as_deref().unwrap_or_default(),
                    &self.origin,
                    arch,
                ),
            };
            found.extend(f);
            missing.extend(m);
        }
        missing.extend(match self.kind {
            Kind::Liboqs => self.liboqs_others(),
            Kind::Pqclean => self.pqclean_others(),
            // Every algorithm of OpenSSL's adapter is built; others of the tree are not read.
            Kind::Openssl => Vec::new(),
        });
        (found, missing)
    }

    /// The PQClean tree's schemes for `arch`: those kembench's catalog knows are built, the
    /// others listed with their `api.h` sizes.
    fn pqclean(&self, arch: Arch) -> (Vec<Source>, Vec<Missing>) {
        let (mut found, mut missing) = (Vec::new(), Vec::new());
        for d in subdirs(&self.path.join("crypto_kem")) {
            let scheme = d
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let Some(alg) = pqclean_algorithm(&scheme) else {
                continue; // listed once, by `pqclean_others`
            };
            let (f, m) = sources::pqclean_scheme(
                alg,
                &self.path,
                &scheme,
                arch,
                Some(&self.origin),
                &self.origin.version,
            );
            found.extend(f);
            missing.extend(m);
        }
        (found, missing)
    }

    /// The PQClean tree's schemes kembench's catalog does not know, each with the sizes its
    /// first variant's `api.h` declares.
    fn pqclean_others(&self) -> Vec<Missing> {
        subdirs(&self.path.join("crypto_kem"))
            .into_iter()
            .filter_map(|d| {
                let scheme = d.file_name()?.to_string_lossy().into_owned();
                pqclean_algorithm(&scheme)
                    .is_none()
                    .then(|| self.unknown_scheme(&scheme))
            })
            .collect()
    }

    /// A PQClean scheme kembench's catalog does not know, with the sizes its first variant's
    /// `api.h` declares.
    fn unknown_scheme(&self, scheme: &str) -> Missing {
        let dir = self.path.join("crypto_kem").join(scheme);
        let api = subdirs(&dir)
            .into_iter()
            .find_map(|v| std::fs::read_to_string(v.join("api.h")).ok())
            .map(|t| c_text::read(&t));
        let sizes = api
            .map(|a| {
                let n = |s: &str| {
                    a.defined_number(s)
                        .map_or("?".to_string(), |v| v.to_string())
                };
                format!(
                    "its api.h declares pk {}, sk {}, ct {}, ss {} bytes",
                    n("CRYPTO_PUBLICKEYBYTES"),
                    n("CRYPTO_SECRETKEYBYTES"),
                    n("CRYPTO_CIPHERTEXTBYTES"),
                    n("CRYPTO_BYTES")
                )
            })
            .unwrap_or_else(|| "it has no readable api.h".to_string());
        Missing {
            label: format!("{scheme}@{}", self.origin.prefix),
            reason: format!(
                "not in kembench's catalog, so not built from this tree; {sizes} (`kembench add \
                 {}/VARIANT` measures it as a scheme of its own)",
                dir.display()
            ),
            unreadable: false,
            quiet: false,
        }
    }

    /// The KEMs liboqs's tree switches on (`OQS_ENABLE_KEM_<id>`) that kembench does not
    /// build from it, each with liboqs's name for it, the sizes its header declares and why
    /// ([`liboqs_kems::built_as`]: not in the catalog, or another specification under a name
    /// kembench knows).
    fn liboqs_others(&self) -> Vec<Missing> {
        liboqs_kems::declared(&self.path)
            .into_iter()
            .filter_map(|k| {
                let why = liboqs_kems::built_as(&k).err()?;
                Some(Missing {
                    label: format!("{}@{}", k.name, self.origin.prefix),
                    reason: why,
                    unreadable: false,
                    quiet: false,
                })
            })
            .collect()
    }
}

/// The folders directly in `dir`, sorted.
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

/// The catalog algorithm of PQClean's scheme directory `scheme` (`ml-kem-768`,
/// `mceliece348864f`, `hqc-128`), if the catalog knows it.
fn pqclean_algorithm(scheme: &str) -> Option<&'static str> {
    if let Some(alg) = sources::pqclean_table_algorithm(scheme) {
        return Some(alg);
    }
    let name = if let Some(rest) = scheme.strip_prefix("mceliece") {
        format!("Classic-McEliece-{rest}")
    } else if let Some(rest) = scheme.strip_prefix("hqc-") {
        format!("HQC-{rest}")
    } else {
        return None;
    };
    crate::kem::catalog::find(&name).map(|a| a.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A liboqs tree: `CMakeLists.txt` declaring `version`, and `src/kem/`.
    fn liboqs_at(dir: &Path, cmake_version: &str) {
        std::fs::create_dir_all(dir.join("src").join("kem")).unwrap();
        std::fs::write(
            dir.join("CMakeLists.txt"),
            format!(
                "cmake_minimum_required (VERSION 3.15)\nproject(liboqs C ASM)\n{cmake_version}"
            ),
        )
        .unwrap();
        std::fs::write(dir.join("src").join("kem").join("kem.c"), "int x;\n").unwrap();
    }

    fn temp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kembench-trees-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn usage(arg: &str) -> String {
        let e = open(arg).expect_err(arg);
        assert_eq!(crate::exit::code_for(&e), crate::exit::USAGE, "{e:#}");
        format!("{e:#}")
    }

    #[test]
    fn the_declared_version_is_read_as_liboqs_declares_it() {
        let d = temp("version");
        liboqs_at(
            &d,
            "set(OQS_VERSION_MAJOR 0)\nset(OQS_VERSION_MINOR 16)\nset(OQS_VERSION_PATCH 0)\n\
             set(OQS_VERSION_PRE_RELEASE \"-rc1\")\nset(OQS_VERSION_TEXT \
             \"${OQS_VERSION_MAJOR}.${OQS_VERSION_MINOR}.${OQS_VERSION_PATCH}${OQS_VERSION_PRE_RELEASE}\")\n",
        );
        assert_eq!(liboqs_version(&d).unwrap(), "0.16.0-rc1");
        liboqs_at(&d, "set(OQS_VERSION_TEXT \"0.7.1\")\n");
        assert_eq!(liboqs_version(&d).unwrap(), "0.7.1");
        liboqs_at(&d, "# no version\n");
        let e = format!("{:#}", liboqs_version(&d).unwrap_err());
        assert!(e.contains("declares no version"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// Not a git checkout: named by version and content digest; one changed byte is another
    /// name; a copy of the same code is the same name.
    #[test]
    fn a_tree_is_named_by_its_version_and_its_content() {
        let d = temp("content");
        let (a, b) = (d.join("a"), d.join("b"));
        for t in [&a, &b] {
            liboqs_at(t, "set(OQS_VERSION_TEXT \"0.13.0\")\n");
        }
        let (ta, tb) = (
            open(&format!("liboqs={}", a.display())).unwrap(),
            open(&format!("liboqs={}", b.display())).unwrap(),
        );
        assert!(
            ta.origin.prefix.starts_with("liboqs-0.13.0+"),
            "{}",
            ta.origin.prefix
        );
        assert_eq!(ta.origin.prefix.len(), "liboqs-0.13.0+".len() + 8);
        assert_eq!(ta.origin.prefix, tb.origin.prefix, "the same code");
        assert!(ta.commit.is_none());
        assert!(
            ta.origin.version.contains("not a git checkout"),
            "{}",
            ta.origin.version
        );
        assert!(ta.origin.version.contains(&a.display().to_string()));
        std::fs::write(b.join("src").join("kem").join("kem.c"), "int y;\n").unwrap();
        let tb = open(&format!("liboqs={}", b.display())).unwrap();
        assert_ne!(ta.origin.prefix, tb.origin.prefix, "one changed file");
        assert_ne!(ta.digest, tb.digest);
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// A git checkout: `+g` and the commit; uncommitted changes add the content digest, so
    /// the edited tree is never taken for its commit.
    #[test]
    fn a_git_checkout_is_named_by_its_commit_and_its_changes() {
        let d = temp("git");
        liboqs_at(&d, "set(OQS_VERSION_TEXT \"0.16.0\")\n");
        let git = |args: &[&str]| {
            let o = std::process::Command::new("git")
                .arg("-C")
                .arg(&d)
                .args(["-c", "user.name=k", "-c", "user.email=k@k"])
                .args(args)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            String::from_utf8_lossy(&o.stdout).trim().to_string()
        };
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "tree"]);
        let head = git(&["rev-parse", "HEAD"]);
        let t = open(&format!("liboqs={}", d.display())).unwrap();
        assert_eq!(t.origin.prefix, format!("liboqs-0.16.0+g{}", &head[..7]));
        assert!(!t.dirty);
        assert!(
            t.origin.version.contains(&format!("git {head}")),
            "{}",
            t.origin.version
        );
        std::fs::write(d.join("src").join("kem").join("kem.c"), "int z;\n").unwrap();
        let t = open(&format!("liboqs={}", d.display())).unwrap();
        assert!(t.dirty);
        assert_eq!(
            t.origin.prefix,
            format!("liboqs-0.16.0+g{}.{}", &head[..7], &t.digest[..8])
        );
        // A folder inside the checkout is not the checkout: named by its content.
        let inner = d.join("inner");
        liboqs_at(&inner, "set(OQS_VERSION_TEXT \"0.1.0\")\n");
        let t = open(&format!("liboqs={}", inner.display())).unwrap();
        assert!(t.commit.is_none());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn bad_trees_say_what_was_expected() {
        let d = temp("bad");
        let e = usage(&d.display().to_string());
        assert!(e.contains("KIND=PATH"), "{e}");
        let e = usage(&format!("libqs={}", d.display()));
        assert!(e.contains("did you mean liboqs"), "{e}");
        let e = usage(&format!("aws-lc={}", d.display()));
        assert!(e.contains("not built yet"), "{e}");
        let e = usage(&format!("openssl={}", d.display()));
        assert!(
            e.contains("not an openssl tree") && e.contains("Configure"),
            "{e}"
        );
        std::fs::write(d.join("Configure"), "#!/usr/bin/env perl\n").unwrap();
        let e = usage(&format!("openssl={}", d.display()));
        assert!(e.contains("expected VERSION.dat"), "{e}");
        std::fs::write(d.join("VERSION.dat"), "MAJOR=3\nMINOR=7\n").unwrap();
        let e = usage(&format!("openssl={}", d.display()));
        assert!(e.contains("declares no version"), "{e}");
        std::fs::write(
            d.join("VERSION.dat"),
            "MAJOR=3\nMINOR=7\nPATCH=0\nPRE_RELEASE_TAG=dev\n",
        )
        .unwrap();
        let t = open(&format!("openssl={}", d.display())).unwrap();
        assert_eq!(t.declared.as_deref(), Some("3.7.0-dev"));
        assert!(
            t.origin.prefix.starts_with("openssl-3.7.0-dev+"),
            "{}",
            t.origin.prefix
        );
        // Its builds: one per algorithm of OpenSSL's adapter, here; none for another
        // architecture, each said.
        let (found, missing) = t.sources(&[crate::arch::Arch::host()]);
        assert_eq!(found.len(), crate::openssl_kem::specs().len());
        assert!(missing.is_empty());
        let (found, missing) = t.sources(&[crate::arch::Arch::S390x]);
        assert!(found.is_empty());
        assert!(
            missing[0].reason.contains("this machine only"),
            "{}",
            missing[0].reason
        );
        for f in ["Configure", "VERSION.dat"] {
            std::fs::remove_file(d.join(f)).unwrap();
        }
        let e = usage(&format!("liboqs={}", d.display()));
        assert!(
            e.contains("not a liboqs tree") && e.contains("CMakeLists.txt"),
            "{e}"
        );
        std::fs::write(d.join("CMakeLists.txt"), "project(openssl C)\n").unwrap();
        let e = usage(&format!("liboqs={}", d.display()));
        assert!(e.contains("which this one does not"), "{e}");
        let e = usage(&format!("pqclean={}", d.display()));
        assert!(e.contains("crypto_kem/"), "{e}");
        let e = usage(&format!("liboqs={}", d.join("CMakeLists.txt").display()));
        assert!(e.contains("not a directory"), "{e}");
        let e = open(&format!("liboqs={}", d.join("gone").display())).unwrap_err();
        assert_eq!(crate::exit::code_for(&e), crate::exit::IO);
        assert!(
            format!("{e:#}").contains("No such file or directory"),
            "{e:#}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// PQClean's scheme folders map to the catalog's names, or to none.
    #[test]
    fn pqclean_schemes_map_to_the_catalog() {
        assert_eq!(pqclean_algorithm("ml-kem-768"), Some("ML-KEM-768"));
        assert_eq!(
            pqclean_algorithm("mceliece348864f"),
            Some("Classic-McEliece-348864f")
        );
        assert_eq!(pqclean_algorithm("hqc-128"), Some("HQC-128"));
        assert_eq!(pqclean_algorithm("mceliece1"), None);
        assert_eq!(pqclean_algorithm("newkem-1"), None);
    }
}
