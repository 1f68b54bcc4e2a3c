//! One build: its flag set, its cache key, and the compiler run that makes its shared object.

use super::compiler::{first_lines, Compiler};
use super::sources::{LiboqsBuild, Recipe, Source};
use crate::providers::built::RANDOMBYTES_C;
use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Bumped whenever the way kembench compiles changes, so that older builds are not reused.
const RECIPE: &str = "kembench-builds-2: -fPIC -shared -Wl,-Bsymbolic -Wl,--no-undefined; \
    liboqs: cmake, shared, minimal, no dist build, user flags appended by a launcher";

/// Bumped whenever the way kembench makes a foreign build changes.
const FOREIGN_RECIPE: &str = "foreign 2: static driver, each derandomized entry its own macro; \
    liboqs: cmake cross build, static, linked -O2 -static";

/// How kembench builds an OpenSSL tree and its KEM library (bumped when that changes).
const OPENSSL_RECIPE: &str = "openssl 2: Configure as openssl-src configures kembench's own \
    (no-shared no-module no-tests no-comp no-zlib no-zlib-dynamic no-legacy), make build_libs \
    install_dev, workers/tls-openssl4 --lib with OPENSSL_NO_VENDOR OPENSSL_DIR OPENSSL_STATIC";

/// A set of compiler flags as the user wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagSet {
    /// As given, trimmed (`-O3 -march=native`).
    pub text: String,
    /// Its words.
    pub words: Vec<String>,
}

impl FlagSet {
    /// The flag set of `words`, its text each word quoted as a shell would need.
    fn of_words(words: Vec<String>) -> FlagSet {
        FlagSet {
            text: words
                .iter()
                .map(|w| shell_word(w))
                .collect::<Vec<_>>()
                .join(" "),
            words,
        }
    }

    /// Parses one flag set into words as a shell would (`-DMSG='a b'` is one word,
    /// `-DMSG=a b`), or says why it cannot (an unbalanced quote).
    pub fn parse(text: &str) -> Result<FlagSet, String> {
        let words = shlex::split(text).ok_or_else(|| {
            format!(
                "--flags '{text}': an unbalanced quote (flags are split into words as a shell \
                 splits them: quote a flag that holds spaces, e.g. -DMSG='a b')"
            )
        })?;
        Ok(FlagSet::of_words(words))
    }

    /// Every flag set of `--flags` values: each value holds flag sets separated by `;`
    /// outside quotes (`-O2;-O3 -DSEP='a;b'` is two sets).
    pub fn parse_all(values: &[String]) -> Result<Vec<FlagSet>, String> {
        let mut sets: Vec<FlagSet> = Vec::new();
        for v in values {
            for text in split_sets(v) {
                let f = FlagSet::parse(&text)?;
                if !sets.contains(&f) {
                    sets.push(f);
                }
            }
        }
        Ok(sets)
    }

    /// The flag set for `arch`: `-march=vector` replaced by the architecture's vector flags
    /// ([`Arch::vector_flags`]); `Err` with the reason when it has none.
    pub fn for_arch(&self, arch: crate::arch::Arch) -> Result<FlagSet, String> {
        if !self.words.iter().any(|w| w == crate::arch::VECTOR_FLAG) {
            return Ok(self.clone());
        }
        let vector = arch
            .vector_flags()
            .map_err(|why| format!("{} for {arch}: {why}", crate::arch::VECTOR_FLAG))?;
        let words: Vec<String> = self
            .words
            .iter()
            .flat_map(|w| {
                if w == crate::arch::VECTOR_FLAG {
                    vector.iter().map(|v| v.to_string()).collect()
                } else {
                    vec![w.clone()]
                }
            })
            .collect();
        Ok(FlagSet::of_words(words))
    }

    /// The flag set as an id part: each flag without its leading dashes, joined by `+`
    /// (`O3+march=native`); `none` for no flags.
    pub fn slug(&self) -> String {
        if self.words.is_empty() {
            return "none".into();
        }
        self.words
            .iter()
            .map(|w| w.trim_start_matches('-'))
            .collect::<Vec<_>>()
            .join("+")
    }
}

/// A word as it reads in a shell: as it is, or quoted when it holds a space, a quote or
/// another character the shell would take for itself.
fn shell_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=+.,:/@%^".contains(c));
    if plain {
        w.to_string()
    } else {
        shlex::try_quote(w).map_or_else(|_| format!("{w:?}"), |q| q.into_owned())
    }
}

/// `text` cut at each `;` that is not inside quotes or escaped by a backslash.
fn split_sets(text: &str) -> Vec<String> {
    let (mut sets, mut cur) = (Vec::new(), String::new());
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, ';') => {
                sets.push(std::mem::take(&mut cur));
                continue;
            }
            (None, '\\') | (Some('"'), '\\') => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                continue;
            }
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
        cur.push(c);
    }
    sets.push(cur);
    sets
}

/// The build id: `pqclean/clean@gcc-12:O3+march=native` (`compiler_short` is the compiler's
/// short name, or the name asked for when it does not exist).
pub fn id(source: &Source, compiler_short: &str, flags: &FlagSet) -> String {
    format!(
        "{}@{compiler_short}:{}{}",
        source.id,
        flags.slug(),
        source.arch.suffix()
    )
}

/// The cache key: SHA-256 over the recipe, the source id and its files' SHA-256, the
/// compiler's path and version, and the flags.
pub fn key(source: &Source, source_sha256: &str, compiler: &Compiler, flags: &FlagSet) -> String {
    // A foreign build: its architecture and how its static driver is made.
    let foreign_recipe = if source.arch.foreign() {
        format!(
            "{}\0{FOREIGN_RECIPE}\0{}",
            source.arch,
            crate::providers::foreign::DRIVER_C
        )
    } else {
        "host".to_string()
    };
    // liboqs's algorithm switch (a wrong one builds a library without the algorithm), and
    // the family switch a tree leaves off, when kembench switches it on.
    let switches = match &source.recipe {
        Recipe::Liboqs(LiboqsBuild {
            minimal,
            switch_on: None,
            ..
        }) => minimal.clone(),
        Recipe::Liboqs(LiboqsBuild {
            minimal,
            switch_on: Some(on),
            ..
        }) => format!("{minimal} {on}=ON"),
        Recipe::Files { .. } => String::new(),
        // An OpenSSL tree: its whole code, and how its library is made.
        Recipe::Openssl { digest, .. } => digest.clone(),
    };
    let mut h = Sha256::new();
    for part in [
        RECIPE,
        source.algorithm,
        &source.id,
        source_sha256,
        &compiler.path.display().to_string(),
        &compiler.version,
        &flags.text,
        &source.required_flags.join(" "),
        if source.flags_last {
            "flags last"
        } else {
            "flags first"
        },
        RANDOMBYTES_C,
        &compiler.target_args.join(" "),
        &foreign_recipe,
        &switches,
        match &source.recipe {
            Recipe::Openssl { .. } => OPENSSL_RECIPE,
            _ => "",
        },
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    hex::encode(h.finalize())
}

/// Compiles `source` into `dir/lib.so` (written under a temporary name, then renamed).
/// Returns the seconds the compiler took, or its first error lines.
pub fn compile(
    source: &Source,
    compiler: &Compiler,
    flags: &FlagSet,
    dir: &Path,
) -> Result<f64, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    match &source.recipe {
        Recipe::Files {
            compile,
            includes,
            shim,
        } => files(
            source,
            compile,
            includes,
            shim.as_deref(),
            compiler,
            flags,
            dir,
        ),
        Recipe::Liboqs(build) if source.arch.foreign() => {
            let secs = liboqs(build, compiler, flags, dir, Some(source))?;
            Ok(secs + link_liboqs_driver(source, compiler, dir)?)
        }
        Recipe::Liboqs(build) => liboqs(build, compiler, flags, dir, None),
        Recipe::Openssl {
            root,
            digest,
            declared,
        } => openssl(root, digest, declared, compiler, flags, dir),
    }
}

/// An OpenSSL tree's build for `compiler` and `flags` (shared by every algorithm: one
/// `Configure` and `make` per tree, compiler and flag set, under the cache's `openssl-trees/`),
/// then OpenSSL's KEM adapter (`workers/tls-openssl4`'s library) built by cargo against it
/// (`OPENSSL_NO_VENDOR`, `OPENSSL_DIR`, static), checked to report the tree's version, and
/// linked in as `dir/lib.so`. Returns the seconds both builds took (0 when reused).
fn openssl(
    root: &Path,
    digest: &str,
    declared: &str,
    compiler: &Compiler,
    flags: &FlagSet,
    dir: &Path,
) -> Result<f64, String> {
    // The algorithms of one tree share its build: one at a time in this process.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut h = Sha256::new();
    for part in [
        OPENSSL_RECIPE,
        digest,
        &compiler.path.display().to_string(),
        &compiler.version,
        &flags.text,
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    let cache = dir
        .parent()
        .ok_or("the build has no cache folder")?
        .join("openssl-trees")
        .join(&hex::encode(h.finalize())[..16]);
    let lib = cache
        .join("cargo")
        .join("release")
        .join(crate::openssl_kem::abi::FILE);
    let started = Instant::now();
    if !lib.is_file() {
        let build = cache.join("build");
        let install = cache.join("install");
        let _ = std::fs::remove_dir_all(&build);
        std::fs::create_dir_all(&build).map_err(|e| format!("{}: {e}", build.display()))?;
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        eprintln!(
            "builds: OpenSSL {declared} from {}: Configure and make ({jobs} jobs, minutes), \
             then its KEM library (cargo) into {}",
            root.display(),
            cache.display()
        );
        run_step(
            Command::new("perl")
                .arg(root.join("Configure"))
                .arg(format!("--prefix={}", install.display()))
                // What the `openssl-src` crate asks of kembench's own OpenSSL 3.6 (and of 4.0.3),
                // so that a tree is built as the OpenSSL it is compared with.
                .args([
                    "--libdir=lib",
                    "no-shared",
                    "no-module",
                    "no-tests",
                    "no-comp",
                ])
                .args(["no-zlib", "no-zlib-dynamic", "no-legacy"])
                .arg(format!("CC={}", compiler.path.display()))
                .args(&flags.words)
                .current_dir(&build),
            "OpenSSL's Configure",
        )?;
        run_step(
            Command::new("make")
                .arg(format!("-j{jobs}"))
                .arg("build_libs")
                .current_dir(&build),
            "make build_libs",
        )?;
        run_step(
            Command::new("make").arg("install_dev").current_dir(&build),
            "make install_dev",
        )?;
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        run_step(
            Command::new(cargo)
                .args([
                    "build",
                    "--release",
                    "--locked",
                    "--lib",
                    "--color",
                    "never",
                ])
                .arg("--manifest-path")
                .arg(crate::providers::openssl4::worker_sources().join("Cargo.toml"))
                .arg("--target-dir")
                .arg(cache.join("cargo"))
                .env("OPENSSL_NO_VENDOR", "1")
                .env("OPENSSL_DIR", &install)
                .env("OPENSSL_STATIC", "1"),
            "building OpenSSL's KEM library (workers/tls-openssl4) against the tree",
        )?;
        let _ = std::fs::remove_dir_all(&build);
    }
    let line = crate::providers::openssl4::check_built(&lib, &format!("OpenSSL {declared} "))?;
    eprintln!("builds: {} links {line}", lib.display());
    let to = dir.join("lib.so");
    let tmp = dir.join(format!(".lib.so.{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    // One file for every algorithm (hard links where the file system has them): a process that
    // opens several algorithms of the build loads it once.
    std::fs::hard_link(&lib, &tmp)
        .or_else(|_| std::fs::copy(&lib, &tmp).map(drop))
        .and_then(|()| std::fs::rename(&tmp, &to))
        .map_err(|e| format!("{}: {e}", to.display()))?;
    Ok(started.elapsed().as_secs_f64())
}

/// Quotes a word for `sh`.
fn sh_quote(w: &str) -> String {
    format!("'{}'", w.replace('\'', "'\\''"))
}

fn run_step(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{what}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    Err(format!("{what} failed: {}", first_lines(&text)))
}

/// liboqs's own build (CMake), one algorithm, run-time dispatch off, `opt_target` as asked.
/// liboqs adds `-O3` (and for `auto`, `-march=native`) itself; a compiler launcher appends the
/// user's flag set after everything CMake passes, so that the flag set has the last word.
fn liboqs(
    build: &LiboqsBuild,
    compiler: &Compiler,
    flags: &FlagSet,
    dir: &Path,
    foreign: Option<&Source>,
) -> Result<f64, String> {
    let LiboqsBuild {
        root,
        minimal,
        opt_target,
        switch_on,
    } = build;
    let launcher = dir.join("append-flags.sh");
    let words: Vec<String> = flags.words.iter().map(|w| sh_quote(w)).collect();
    std::fs::write(
        &launcher,
        format!("#!/bin/sh\nexec \"$@\" {}\n", words.join(" ")),
    )
    .map_err(|e| format!("{}: {e}", launcher.display()))?;
    std::fs::set_permissions(
        &launcher,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .map_err(|e| format!("{}: {e}", launcher.display()))?;
    let build = dir.join("cmake-build");
    let _ = std::fs::remove_dir_all(&build);
    let started = Instant::now();
    let mut configure = Command::new("cmake");
    configure
        .arg("-S")
        .arg(root)
        .arg("-B")
        .arg(&build)
        .args(["-G", "Unix Makefiles"])
        .arg(format!("-DCMAKE_C_COMPILER={}", compiler.path.display()))
        .arg(format!(
            "-DCMAKE_C_COMPILER_LAUNCHER={}",
            launcher.display()
        ))
        .args(["-DOQS_BUILD_ONLY_LIB=ON", "-DOQS_USE_OPENSSL=OFF"])
        .arg(format!("-DOQS_MINIMAL_BUILD={minimal}"));
    if let Some(on) = switch_on {
        configure.arg(format!("-D{on}=ON"));
    }
    match foreign {
        None => {
            configure.args([
                "-DBUILD_SHARED_LIBS=ON",
                "-DOQS_DIST_BUILD=OFF",
                &format!("-DOQS_OPT_TARGET={opt_target}"),
            ]);
        }
        Some(s) => {
            // A cross build (CMake's toolchain variables), static, for the driver to link.
            // `generic`: portable C only; `auto` (aarch64): a dist build, which compiles the
            // architecture's backend in and picks it at run time.
            configure
                .args(["-DCMAKE_SYSTEM_NAME=Linux", "-DBUILD_SHARED_LIBS=OFF"])
                .arg(format!("-DCMAKE_SYSTEM_PROCESSOR={}", s.arch))
                .arg(format!("-DCMAKE_CROSSCOMPILING_EMULATOR={}", s.arch.qemu()));
            if let Some(t) = compiler
                .target_args
                .first()
                .and_then(|t| t.strip_prefix("--target="))
            {
                configure.arg(format!("-DCMAKE_C_COMPILER_TARGET={t}"));
                configure.arg(format!("-DCMAKE_ASM_COMPILER_TARGET={t}"));
            }
            if *opt_target == "auto" {
                configure.arg("-DOQS_DIST_BUILD=ON");
            } else {
                configure.args(["-DOQS_DIST_BUILD=OFF", "-DOQS_OPT_TARGET=generic"]);
            }
        }
    }
    run_step(&mut configure, "cmake (configure)")?;
    run_step(
        Command::new("cmake")
            .arg("--build")
            .arg(&build)
            .args(["-j", "1"]),
        "cmake --build",
    )?;
    let secs = started.elapsed().as_secs_f64();
    if foreign.is_some() {
        let lib = build.join("lib").join("liboqs.a");
        std::fs::rename(&lib, dir.join("liboqs.a"))
            .map_err(|e| format!("liboqs's build made no {}: {e}", lib.display()))?;
        let _ = std::fs::remove_dir_all(&build);
        return Ok(secs);
    }
    let lib = std::fs::read_dir(build.join("lib"))
        .map_err(|e| format!("{}: {e}", build.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("liboqs.so."))
                && !p.is_symlink()
        })
        .ok_or("liboqs's build made no liboqs.so")?;
    let tmp = dir.join(format!(".lib.so.{}", std::process::id()));
    std::fs::copy(&lib, &tmp).map_err(|e| format!("{}: {e}", lib.display()))?;
    std::fs::rename(&tmp, dir.join("lib.so")).map_err(|e| format!("{}: {e}", dir.display()))?;
    let _ = std::fs::remove_dir_all(&build);
    Ok(secs)
}

fn files(
    source: &Source,
    compile: &[std::path::PathBuf],
    includes: &[std::path::PathBuf],
    shim: Option<&str>,
    compiler: &Compiler,
    flags: &FlagSet,
    dir: &Path,
) -> Result<f64, String> {
    // A host build: a shared object with kembench's `randombytes` (and a package's shim). A
    // foreign build: one static program with kembench's driver, which serves `randombytes`
    // too and takes the scheme's functions and sizes as macros, run under QEMU.
    // A package's shim: its NIST API under kembench's names.
    let mut extra = Vec::new();
    if let Some(text) = shim {
        let api = dir.join("kembench_api.c");
        std::fs::write(&api, text).map_err(|e| format!("{}: {e}", api.display()))?;
        extra.push(api);
    }
    let (extra, defines, link, out) = if source.arch.foreign() {
        let (driver, defines) = driver_source(source, dir)?;
        extra.push(driver);
        (extra, defines, &["-static"][..], "driver")
    } else {
        let random = dir.join("kembench_randombytes.c");
        std::fs::write(&random, RANDOMBYTES_C).map_err(|e| format!("{}: {e}", random.display()))?;
        extra.push(random);
        const SHARED: &[&str] = &["-fPIC", "-shared", "-Wl,-Bsymbolic", "-Wl,--no-undefined"];
        (extra, Vec::new(), SHARED, "lib.so")
    };
    let tmp = dir.join(format!(".{out}.{}", std::process::id()));
    // Libraries (`-lcrypto`) go after the files that need them.
    let (libs, opts): (Vec<&String>, Vec<&String>) = flags
        .words
        .iter()
        .chain(&source.required_flags)
        .partition(|w| w.starts_with("-l"));
    let mut cmd = Command::new(&compiler.path);
    cmd.args(&compiler.target_args).args(opts).args(link);
    for i in includes {
        cmd.arg("-I").arg(i);
    }
    cmd.args(compile)
        .args(&extra)
        .args(&defines)
        .args(libs)
        .arg("-o")
        .arg(&tmp);
    finish(cmd, compiler, &tmp, &dir.join(out))
}

/// Runs the compiler command `cmd`, which writes `tmp`, and renames `tmp` to `to`: the seconds
/// it took, or its first error lines.
fn finish(mut cmd: Command, compiler: &Compiler, tmp: &Path, to: &Path) -> Result<f64, String> {
    cmd.stdin(Stdio::null()).stdout(Stdio::null());
    let started = Instant::now();
    let out = cmd
        .output()
        .map_err(|e| format!("{}: {e}", compiler.path.display()))?;
    let secs = started.elapsed().as_secs_f64();
    if !out.status.success() {
        let _ = std::fs::remove_file(tmp);
        return Err(first_lines(&String::from_utf8_lossy(&out.stderr)));
    }
    std::fs::rename(tmp, to).map_err(|e| format!("{}: {e}", to.display()))?;
    Ok(secs)
}

/// kembench's driver written into `dir`, and the macros that give it the scheme's functions,
/// sizes and (for a library with a generator hook) the hook.
fn driver_source(source: &Source, dir: &Path) -> Result<(std::path::PathBuf, Vec<String>), String> {
    use crate::providers::foreign::DRIVER_C;
    let alg = crate::kem::catalog::find(source.algorithm)
        .ok_or_else(|| format!("{} is not in the catalog", source.algorithm))?;
    let driver = dir.join("kembench_driver.c");
    std::fs::write(&driver, DRIVER_C).map_err(|e| format!("{}: {e}", driver.display()))?;
    let sy = &source.symbols;
    let mut defines = vec![
        format!("-DKB_KEYPAIR={}", sy.keypair),
        format!("-DKB_ENC={}", sy.enc),
        format!("-DKB_DEC={}", sy.dec),
        format!("-DKB_PK_LEN={}", alg.pk_len),
        format!("-DKB_SK_LEN={}", alg.sk_len),
        format!("-DKB_CT_LEN={}", alg.ct_len),
        format!("-DKB_SS_LEN={}", alg.ss_len),
    ];
    if let Some(k) = &sy.keypair_derand {
        defines.push(format!("-DKB_KEYPAIR_DERAND={k}"));
    }
    if let Some(e) = &sy.enc_derand {
        defines.push(format!("-DKB_ENC_DERAND={e}"));
    }
    if sy.set_random == crate::providers::built::LIBOQS_SET_HOOK_SYMBOL {
        defines.push(format!("-DKB_SET_RANDOM={}", sy.set_random));
    }
    Ok((driver, defines))
}

/// A foreign liboqs build: kembench's driver linked statically with the `liboqs.a` that
/// liboqs's cross build left in `dir`, into `dir/driver`.
fn link_liboqs_driver(source: &Source, compiler: &Compiler, dir: &Path) -> Result<f64, String> {
    let (driver, defines) = driver_source(source, dir)?;
    let tmp = dir.join(format!(".driver.{}", std::process::id()));
    let mut cmd = Command::new(&compiler.path);
    cmd.args(&compiler.target_args)
        .args(["-O2", "-static"])
        .arg(&driver)
        .args(&defines)
        .arg(dir.join("liboqs.a"))
        .arg("-o")
        .arg(&tmp);
    finish(cmd, compiler, &tmp, &dir.join("driver"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn march_vector_is_read_per_architecture() {
        use crate::arch::Arch;
        let f = FlagSet::parse("-O3 -march=vector -DX=1").unwrap();
        let z = f.for_arch(Arch::S390x).unwrap();
        assert_eq!(z.text, "-O3 -march=z13 -DX=1");
        assert_eq!(z.slug(), "O3+march=z13+DX=1");
        assert_eq!(
            f.for_arch(Arch::Aarch64).unwrap().text,
            "-O3 -march=armv8.2-a+sve -DX=1"
        );
        let why = f.for_arch(Arch::Riscv64).unwrap_err();
        assert!(why.starts_with("-march=vector for riscv64: "), "{why}");
        // A set without it is itself on every architecture.
        let plain = FlagSet::parse("-O2").unwrap();
        assert_eq!(plain.for_arch(Arch::Riscv64).unwrap(), plain);
    }

    use super::*;

    #[test]
    fn flag_sets_read_and_name_themselves() {
        let f = FlagSet::parse("  -O3   -march=native ").unwrap();
        assert_eq!(f.text, "-O3 -march=native");
        assert_eq!(f.slug(), "O3+march=native");
        assert_eq!(FlagSet::parse("").unwrap().slug(), "none");
        // What counts as unoptimised (labelled, never the matrix's baseline).
        use crate::kem::flags_unoptimised as unoptimised;
        assert!(!unoptimised(&f.text));
        assert!(unoptimised("-O0") && unoptimised("") && unoptimised("-O2 -O0"));
        assert!(!unoptimised("-Os") && !unoptimised("-O0 -O2"));
    }

    #[test]
    fn flags_are_split_as_a_shell_splits_them() {
        let f = FlagSet::parse(r#"-O2 -DMSG='a b' -DQ="c \"d\"" -DE=e\ f"#).unwrap();
        assert_eq!(f.words, ["-O2", "-DMSG=a b", r#"-DQ=c "d""#, "-DE=e f"]);
        // The text reads back into the same words.
        assert_eq!(FlagSet::parse(&f.text).unwrap(), f);
        assert_eq!(f.text.split(' ').next(), Some("-O2"));
        let e = FlagSet::parse("-O2 -DMSG='a b").unwrap_err();
        assert!(e.contains("unbalanced quote"), "{e}");
        // Sets are cut at `;` outside quotes only.
        let sets = FlagSet::parse_all(&["-O2;-O3 -DSEP='a;b';-O2".into(), "-Os".into()]).unwrap();
        let words: Vec<&[String]> = sets.iter().map(|s| &s.words[..]).collect();
        assert_eq!(
            words,
            [
                &["-O2".to_string()][..],
                &["-O3".into(), "-DSEP=a;b".into()],
                &["-Os".into()]
            ]
        );
        assert!(FlagSet::parse_all(&["-O2;-DX='y".into()]).is_err());
    }
}
