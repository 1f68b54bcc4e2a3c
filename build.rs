//! Build-time facts for the environment record (`src/env.rs`): the exact versions of the
//! provider crates (from Cargo.lock), the compilers, the git commit, the profile and the target,
//! so that every result can name the code it measured and how it was built.
//!
//! Everything here is best effort: a missing tool or repository gives "unknown", never a failed
//! build.

use std::{
    env, fs,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

const TRACKED: &[&str] = &[
    "oqs-sys",
    "pqcrypto-mlkem",
    "pqcrypto-ntru",
    "libcrux-ml-kem",
    "ml-kem",
    "aws-lc-rs",
    "aws-lc-sys",
    "openssl",
    "openssl-sys",
    "openssl-src",
    "rustls",
];

fn main() {
    let dir = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&dir);
    provider_versions(dir);
    crate_sources(dir);
    toolchain();
    git(dir);
}

/// `KEMBENCH_DEP_<NAME>`: the locked version of each tracked provider crate, or "absent"; and
/// `KEMBENCH_AWS_LC_SYMBOL_PREFIX`, the prefix of aws-lc's C symbols.
fn provider_versions(dir: &Path) {
    let lock = dir.join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = fs::read_to_string(&lock).unwrap_or_default();
    let mut name: Option<&str> = None;
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"'));
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), name.take()) {
            if TRACKED.contains(&n) {
                let key = n.to_uppercase().replace('-', "_");
                let v = v.trim_matches('"');
                println!("cargo:rustc-env=KEMBENCH_DEP_{key}={v}");
                if n == "aws-lc-sys" {
                    // aws-lc-sys prefixes every C symbol with its version.
                    let prefix = format!("aws_lc_{}_", v.replace('.', "_"));
                    println!("cargo:rustc-env=KEMBENCH_AWS_LC_SYMBOL_PREFIX={prefix}");
                }
            }
        }
    }
    for n in TRACKED {
        // Absent from Cargo.lock (feature off): still define the variable.
        let key = n.to_uppercase().replace('-', "_");
        if !text.contains(&format!("name = \"{n}\"")) {
            println!("cargo:rustc-env=KEMBENCH_DEP_{key}=absent");
        }
    }
}

/// Crates whose C sources `kembench builds` compiles at run time.
const SOURCES: &[&str] = &["pqcrypto-mlkem", "pqcrypto-ntru", "oqs-sys"];

/// `KEMBENCH_SRC_<NAME>`: the directory of each crate in `SOURCES` as the build fetched it (in
/// the cargo registry, `$CARGO_HOME/registry/src/*/<name>-<version>`), or "absent".
fn crate_sources(dir: &Path) {
    let lock = fs::read_to_string(dir.join("Cargo.lock")).unwrap_or_default();
    let cargo_home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    for name in SOURCES {
        let key = name.to_uppercase().replace('-', "_");
        let version = lock
            .split("[[package]]")
            .find(|p| p.contains(&format!("name = \"{name}\"\n")))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
            .map(|v| v.trim_matches('"').to_string());
        let found = version.zip(cargo_home.as_ref()).and_then(|(v, home)| {
            let registries = fs::read_dir(home.join("registry").join("src")).ok()?;
            registries
                .flatten()
                .map(|r| r.path().join(format!("{name}-{v}")))
                .find(|p| p.is_dir())
        });
        let value = found.map(|p| p.display().to_string());
        println!(
            "cargo:rustc-env=KEMBENCH_SRC_{key}={}",
            value.as_deref().unwrap_or("absent")
        );
    }
}

/// Compilers, profile and target.
fn toolchain() {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = run(Command::new(rustc).arg("-V"), None);
    emit("KEMBENCH_RUSTC_VERSION", rustc_version.as_deref());

    // The C compiler the `cc` crate picks for this target: the first of `CC_<target>` (with
    // dashes, then underscores), `TARGET_CC` (cross builds) or `HOST_CC`, and `CC` that is set,
    // else `cc`. A cross build (scripts/cross-kembench) names its cross gcc this way.
    let target = env::var("TARGET").unwrap_or_default();
    let kind = if env::var("HOST").ok().as_deref() == Some(target.as_str()) {
        "HOST"
    } else {
        "TARGET"
    };
    let cc = [
        format!("CC_{target}"),
        format!("CC_{}", target.replace('-', "_")),
        format!("{kind}_CC"),
        "CC".to_string(),
    ]
    .into_iter()
    .find_map(|var| {
        println!("cargo:rerun-if-env-changed={var}");
        env::var(var).ok().filter(|v| !v.is_empty())
    })
    .unwrap_or_default();
    let mut words = cc.split_whitespace();
    let cc_version = words.next().or(Some("cc")).and_then(|program| {
        // `CC="ccache gcc"`: ask the compiler, not the wrapper.
        let program = match words.next() {
            Some(real) if program.ends_with("ccache") || program.ends_with("sccache") => real,
            _ => program,
        };
        run(Command::new(program).arg("--version"), None)
    });
    emit("KEMBENCH_CC_VERSION", cc_version.as_deref());

    for (key, var) in [
        ("KEMBENCH_PROFILE", "PROFILE"),
        ("KEMBENCH_OPT_LEVEL", "OPT_LEVEL"),
        ("KEMBENCH_TARGET", "TARGET"),
        ("KEMBENCH_TARGET_FEATURES", "CARGO_CFG_TARGET_FEATURE"),
    ] {
        emit(key, env::var(var).ok().as_deref());
    }
}

/// `KEMBENCH_GIT_COMMIT`: the short commit, `-dirty` when the tree has changes, else "unknown".
fn git(dir: &Path) {
    let commit = run(
        Command::new("git").args(["rev-parse", "--short=12", "HEAD"]),
        Some(dir),
    );
    let commit = commit.map(|c| {
        // `--no-optional-locks`: `git status` must not refresh `.git/index`, which is watched
        // below and would then look changed on every build.
        let status = Command::new("git")
            .args(["--no-optional-locks", "status", "--porcelain"])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output();
        match status {
            Ok(out) if out.status.success() && out.stdout.iter().all(u8::is_ascii_whitespace) => c,
            // Changes, or a status we could not read: do not claim a clean tree.
            _ => format!("{c}-dirty"),
        }
    });
    emit("KEMBENCH_GIT_COMMIT", commit.as_deref());

    // Rerun when the commit or the index moves. Listing paths also stops cargo from rerunning
    // this script on every change to any file of the package; `src/` is watched because a change
    // there rebuilds the crate anyway, and it may turn the tree dirty.
    let git_dir = run(
        Command::new("git").args(["rev-parse", "--absolute-git-dir"]),
        Some(dir),
    )
    .map(PathBuf::from)
    .unwrap_or_else(|| dir.join(".git"));
    let mut watched = vec![
        git_dir.join("HEAD"),
        git_dir.join("index"),
        git_dir.join("packed-refs"),
    ];
    // The branch HEAD points at: a commit changes that file, not HEAD.
    if let Some(reference) = fs::read_to_string(git_dir.join("HEAD"))
        .ok()
        .and_then(|head| head.strip_prefix("ref:").map(|r| r.trim().to_owned()))
    {
        watched.push(git_dir.join(reference));
    }
    watched.push(dir.join("src"));
    for path in watched.iter().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// The first line of a command's standard output, if it ran, succeeded and printed something.
fn run(command: &mut Command, dir: Option<&Path>) -> Option<String> {
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let out = command
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().next()?.trim();
    (!line.is_empty()).then(|| line.to_owned())
}

/// Defines `key` for the crate, as "unknown" when the value could not be found.
fn emit(key: &str, value: Option<&str>) {
    let value = value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .unwrap_or("unknown");
    // One line per directive: a stray newline would end it early.
    let value = value.replace(['\n', '\r'], " ");
    println!("cargo:rustc-env={key}={value}");
}
