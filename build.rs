//! Build-time facts for the environment record (`src/env.rs`): the exact versions of the
//! provider crates (from Cargo.lock), the compilers, the git commit, the profile and the target,
//! so that every result can name the code it measured and how it was built.
//!
//! Everything here is best effort: a missing tool or repository gives "unknown", never a failed
//! build. The one exception is [`openssl_sha3`]: with features `liboqs` and `openssl` both on it
//! compiles liboqs's own OpenSSL SHA-3 glue (`liboqs/openssl-sha3`), which must build.

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
    "hqc-kem",
    "x-wing",
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
    openssl4_version(dir);
    crate_sources(dir);
    toolchain();
    git(dir);
    openssl_sha3();
    export_getrandom();
}

/// Puts kembench's `getrandom` (`src/providers/os_random.rs`) in the dynamic symbol table of
/// every executable (kembench, its tests), where the `getrandom` crate's
/// `dlsym(RTLD_DEFAULT, "getrandom")` finds it before the C library's. Only on Linux with
/// glibc, where the module defines it.
fn export_getrandom() {
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let libc = env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && libc == "gnu" {
        println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol=getrandom");
    }
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

/// `KEMBENCH_OPENSSL4_SRC`: the `openssl-src` version locked by OpenSSL 4's worker
/// (`workers/tls-openssl4/Cargo.lock`), which builds the `openssl4` implementation on first use.
fn openssl4_version(dir: &Path) {
    let lock = dir.join("workers/tls-openssl4/Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = fs::read_to_string(&lock).unwrap_or_default();
    let v = text
        .split("[[package]]")
        // The registry's crate (the worker's `[patch]` is a local shim that depends on it).
        .find(|p| p.contains("name = \"openssl-src\"") && p.contains("source = \"registry"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .map_or("unknown", |v| v.trim_matches('"'));
    println!("cargo:rustc-env=KEMBENCH_OPENSSL4_SRC={v}");
}

/// liboqs 0.13's own files that implement its SHA-3 callbacks with OpenSSL (what liboqs builds
/// with `-DOQS_USE_SHA3_OPENSSL=ON`), under `liboqs/src/common/` of the oqs-sys crate.
const OPENSSL_SHA3_FILES: &[&str] = &["sha3/ossl_sha3.c", "sha3/ossl_sha3x4.c", "ossl_helpers.c"];

/// The liboqs headers those files include, under `liboqs/src/common/`, installed as `oqs/NAME`
/// (as liboqs's CMake install does).
const OPENSSL_SHA3_HEADERS: &[&str] = &["common.h", "sha3/sha3_ops.h", "sha3/sha3x4_ops.h"];

/// Global symbols of those files renamed on the compile line: the two tables would clash with
/// `liboqs.a`'s own (`sha3_default_callbacks`, `sha3_x4_default_callbacks`), and the helpers
/// are renamed too so that no liboqs built with OpenSSL could ever clash with them.
const OPENSSL_SHA3_RENAMES: &[(&str, &str)] = &[
    ("sha3_default_callbacks", "kembench_ossl_sha3_callbacks"),
    (
        "sha3_x4_default_callbacks",
        "kembench_ossl_sha3_x4_callbacks",
    ),
    ("oqs_ossl_destroy", "kembench_oqs_ossl_destroy"),
    ("oqs_thread_stop", "kembench_oqs_thread_stop"),
    ("oqs_sha256", "kembench_oqs_sha256"),
    ("oqs_sha384", "kembench_oqs_sha384"),
    ("oqs_sha512", "kembench_oqs_sha512"),
    ("oqs_sha3_256", "kembench_oqs_sha3_256"),
    ("oqs_sha3_384", "kembench_oqs_sha3_384"),
    ("oqs_sha3_512", "kembench_oqs_sha3_512"),
    ("oqs_shake128", "kembench_oqs_shake128"),
    ("oqs_shake256", "kembench_oqs_shake256"),
    ("oqs_aes_128_ecb", "kembench_oqs_aes_128_ecb"),
    ("oqs_aes_128_ctr", "kembench_oqs_aes_128_ctr"),
    ("oqs_aes_256_ecb", "kembench_oqs_aes_256_ecb"),
    ("oqs_aes_256_ctr", "kembench_oqs_aes_256_ctr"),
];

/// The configuration those files see in place of the `oqsconfig.h` CMake generates: oqs-sys
/// builds liboqs without OpenSSL, and declares no `links` metadata that would hand its
/// installed headers to kembench, so kembench writes its own (liboqs's common headers are
/// copied from the crate's sources, unchanged).
const OPENSSL_SHA3_CONFIG: &str = "\
/* Written by kembench's build.rs: the configuration liboqs 0.13's OpenSSL SHA-3 glue needs. */
#define OQS_VERSION_TEXT \"0.13.0\"
#define OQS_USE_OPENSSL 1
#define OQS_USE_SHA3_OPENSSL 1
#define OQS_USE_PTHREADS 1
";

/// With features `liboqs` and `openssl`: compiles liboqs's OpenSSL SHA-3 callbacks (see
/// [`OPENSSL_SHA3_FILES`]) against the vendored OpenSSL's headers (`DEP_OPENSSL_INCLUDE`, from
/// openssl-sys) into a static library linked into kembench; its tables are
/// `kembench_ossl_sha3_callbacks` and `kembench_ossl_sha3_x4_callbacks`.
fn openssl_sha3() {
    if env::var_os("CARGO_FEATURE_LIBOQS").is_none()
        || env::var_os("CARGO_FEATURE_OPENSSL").is_none()
    {
        return;
    }
    let dir = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let oqs = crate_dir(Path::new(&dir), "oqs-sys")
        .expect("oqs-sys's sources in the cargo registry (features liboqs and openssl)");
    let common = oqs.join("liboqs").join("src").join("common");
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let include = out.join("liboqs-include");
    let headers = include.join("oqs");
    fs::create_dir_all(&headers).expect("OUT_DIR is writable");
    for h in OPENSSL_SHA3_HEADERS {
        let from = common.join(h);
        let name = Path::new(h).file_name().expect("a file name");
        fs::copy(&from, headers.join(name))
            .unwrap_or_else(|e| panic!("copying {}: {e}", from.display()));
    }
    fs::write(headers.join("oqsconfig.h"), OPENSSL_SHA3_CONFIG).expect("OUT_DIR is writable");
    fs::write(
        headers.join("oqs.h"),
        "/* Written by kembench's build.rs: what liboqs's SHA-3 glue takes from <oqs/oqs.h>. */\n\
         #include <oqs/oqsconfig.h>\n#include <oqs/common.h>\n",
    )
    .expect("OUT_DIR is writable");
    let openssl = env::var("DEP_OPENSSL_INCLUDE")
        .expect("openssl-sys (vendored) names its include directory as DEP_OPENSSL_INCLUDE");
    let mut build = cc::Build::new();
    build
        .include(&include)
        .include(&openssl)
        .flag_if_supported("-fno-strict-aliasing")
        .warnings(false);
    for (from, to) in OPENSSL_SHA3_RENAMES {
        build.define(from, Some(*to));
    }
    for f in OPENSSL_SHA3_FILES {
        let path = common.join(f);
        println!("cargo:rerun-if-changed={}", path.display());
        build.file(path);
    }
    build.compile("kembench_ossl_sha3");
}

/// Crates whose files kembench reads at run time: the C sources `kembench builds` compiles, and
/// the known-answer files the gate checks `hqc-kem` and `x-wing` against.
const SOURCES: &[&str] = &[
    "pqcrypto-mlkem",
    "pqcrypto-ntru",
    "oqs-sys",
    "hqc-kem",
    "x-wing",
    "openssl-src",
];

/// `KEMBENCH_SRC_<NAME>`: the directory of each crate in `SOURCES` as the build fetched it (in
/// the cargo registry, `$CARGO_HOME/registry/src/*/<name>-<version>`), or "absent".
fn crate_sources(dir: &Path) {
    for name in SOURCES {
        let key = name.to_uppercase().replace('-', "_");
        let value = crate_dir(dir, name).map(|p| p.display().to_string());
        println!(
            "cargo:rustc-env=KEMBENCH_SRC_{key}={}",
            value.as_deref().unwrap_or("absent")
        );
    }
}

/// The directory of crate `name` as the build fetched it, at its version in Cargo.lock.
fn crate_dir(dir: &Path, name: &str) -> Option<PathBuf> {
    let lock = fs::read_to_string(dir.join("Cargo.lock")).unwrap_or_default();
    let cargo_home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    crate_in(&lock, cargo_home.as_deref(), name)
}

/// `$CARGO_HOME/registry/src/*/<name>-<version>`, the version read from `lock`.
fn crate_in(lock: &str, cargo_home: Option<&Path>, name: &str) -> Option<PathBuf> {
    let version = lock
        .split("[[package]]")
        .find(|p| p.contains(&format!("name = \"{name}\"\n")))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .map(|v| v.trim_matches('"').to_string());
    version.zip(cargo_home).and_then(|(v, home)| {
        let registries = fs::read_dir(home.join("registry").join("src")).ok()?;
        registries
            .flatten()
            .map(|r| r.path().join(format!("{name}-{v}")))
            .find(|p| p.is_dir())
    })
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
