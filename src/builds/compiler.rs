//! C compilers found on this machine: what each is (name, version), and which CPU features a
//! flag set makes it target (from its predefined macros), so that a build for a feature this CPU
//! lacks is refused before it can crash.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A compiler that exists here.
#[derive(Debug, Clone)]
pub struct Compiler {
    /// What the user asked for (`gcc`, `clang`, `/usr/bin/gcc-12`).
    pub asked: String,
    /// Its path.
    pub path: PathBuf,
    /// `gcc-12`, `clang-14`: family and major version, as build ids show it.
    pub short: String,
    /// The first line of `--version`.
    pub version: String,
    /// Arguments that make it compile for a foreign architecture (clang's `--target=...`);
    /// empty for the host and for a cross gcc.
    pub target_args: Vec<String>,
}

fn on_path(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        let p = PathBuf::from(name);
        return p.is_file().then_some(p);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn output(path: &PathBuf, args: &[&str]) -> Result<String, String> {
    let out = Command::new(path)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if !out.status.success() {
        return Err(first_lines(&String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The compiler's first error lines (or its first lines when none says "error").
pub fn first_lines(stderr: &str) -> String {
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("error") || l.contains("undefined reference"))
        .take(4)
        .collect();
    let lines: Vec<&str> = if errors.is_empty() {
        stderr.lines().take(4).collect()
    } else {
        errors
    };
    lines.join("\n").trim().to_string()
}

impl Compiler {
    /// Finds `name` on `PATH` (or at a path) and asks it what it is.
    pub fn find(name: &str) -> Result<Compiler, String> {
        let path = on_path(name).ok_or_else(|| {
            format!(
                "compiler '{name}' not found on PATH (scripts/setup installs gcc and clang; \
                 Debian packages: gcc, clang)"
            )
        })?;
        let version = output(&path, &["--version"])?
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let major = output(&path, &["-dumpversion"])?
            .trim()
            .split('.')
            .next()
            .unwrap_or_default()
            .to_string();
        let family = if version.contains("clang") {
            "clang".to_string()
        } else if version.contains("gcc") || version.contains("GCC") {
            "gcc".to_string()
        } else {
            path.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        };
        Ok(Compiler {
            asked: name.to_string(),
            path,
            short: format!("{family}-{major}"),
            version,
            target_args: Vec::new(),
        })
    }

    /// The compiler `name` for `arch`: itself for the host; for a foreign architecture gcc's
    /// Debian cross compiler (`gcc` → `s390x-linux-gnu-gcc`, `gcc-12` →
    /// `s390x-linux-gnu-gcc-12`), clang with `--target=` the architecture's triple (it finds
    /// the cross gcc's libraries), or a path as given (a cross compiler of the user's).
    pub fn find_for(name: &str, arch: crate::arch::Arch) -> Result<Compiler, String> {
        if !arch.foreign() || name.contains('/') {
            return Compiler::find(name);
        }
        let triple = arch.triple();
        if name.starts_with("clang") {
            let mut c = Compiler::find(name)?;
            c.target_args = vec![format!("--target={triple}")];
            if on_path(&format!("{triple}-gcc")).is_none() {
                return Err(format!(
                    "clang compiles for {arch} with the cross gcc's C library, which is not \
                     installed (Debian package: {}; scripts/setup installs it)",
                    arch.gcc_package()
                ));
            }
            return Ok(c);
        }
        if let Some(version) = name.strip_prefix("gcc") {
            let cross = format!("{triple}-gcc{version}");
            return Compiler::find(&cross).map_err(|_| {
                format!(
                    "no {arch} cross compiler for '{name}': {cross} is not installed (Debian \
                     package: gcc{version}-{triple}; scripts/setup installs gcc's)"
                )
            });
        }
        Err(format!(
            "kembench knows how to cross-compile for {arch} with gcc and clang; give another \
             compiler for {arch} by its path"
        ))
    }

    /// The CPU features that compiling with `flags` targets beyond x86-64's baseline (SSE2),
    /// read from the predefined macros; an error (the compiler's message) when it rejects the
    /// flags.
    pub fn targets(&self, flags: &[String]) -> Result<Vec<String>, String> {
        let mut args: Vec<&str> = self.target_args.iter().map(String::as_str).collect();
        args.extend(flags.iter().map(String::as_str));
        args.extend(["-dM", "-E", "-x", "c", "/dev/null"]);
        let macros = output(&self.path, &args)?;
        Ok(FEATURES
            .iter()
            .filter(|(m, _)| {
                macros
                    .lines()
                    .any(|l| l.split_whitespace().nth(1) == Some(*m))
            })
            .map(|(_, f)| f.to_string())
            .collect())
    }
}

/// Predefined macro → CPU feature, in Linux's `/proc/cpuinfo` spelling (SSE3 is `pni`, LZCNT
/// `abm`).
const FEATURES: &[(&str, &str)] = &[
    ("__SSE3__", "pni"),
    ("__SSSE3__", "ssse3"),
    ("__SSE4_1__", "sse4_1"),
    ("__SSE4_2__", "sse4_2"),
    ("__POPCNT__", "popcnt"),
    ("__AES__", "aes"),
    ("__PCLMUL__", "pclmulqdq"),
    ("__AVX__", "avx"),
    ("__AVX2__", "avx2"),
    ("__FMA__", "fma"),
    ("__F16C__", "f16c"),
    ("__BMI__", "bmi1"),
    ("__BMI2__", "bmi2"),
    ("__LZCNT__", "abm"),
    ("__MOVBE__", "movbe"),
    ("__ADX__", "adx"),
    ("__SHA__", "sha_ni"),
    ("__AVX512F__", "avx512f"),
    ("__AVX512BW__", "avx512bw"),
    ("__AVX512DQ__", "avx512dq"),
    ("__AVX512VL__", "avx512vl"),
    ("__AVX512VBMI__", "avx512vbmi"),
    ("__VAES__", "vaes"),
    ("__VPCLMULQDQ__", "vpclmulqdq"),
    ("__AVX512FP16__", "avx512_fp16"),
    ("__AVX512BF16__", "avx512_bf16"),
    ("__AVXVNNI__", "avx_vnni"),
    ("__AMX_TILE__", "amx_tile"),
    ("__AMX_INT8__", "amx_int8"),
    ("__AMX_BF16__", "amx_bf16"),
    // AMD's alone (no Intel CPU has them; XOP only the Bulldozer family): a CPU with every
    // feature above still lacks these, so a test can always see a build refused.
    ("__SSE4A__", "sse4a"),
    ("__XOP__", "xop"),
];

/// This CPU's feature flags, as the kernel lists them (the first `flags` line of
/// `/proc/cpuinfo`); empty where there is no such file.
pub fn cpu_flags() -> Vec<String> {
    std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "flags").then(|| v.split_whitespace().map(str::to_string).collect())
        })
        .unwrap_or_default()
}

/// The features in `targets` this CPU lacks (its `/proc/cpuinfo` flags are `cpu_flags`).
pub fn lacking(targets: &[String], cpu_flags: &[String]) -> Vec<String> {
    targets
        .iter()
        .filter(|t| !cpu_flags.iter().any(|f| f == *t))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compiler_that_does_not_exist_says_so() {
        let e = Compiler::find("kembench-no-such-cc").unwrap_err();
        assert!(e.contains("not found on PATH"), "{e}");
    }

    #[test]
    fn gcc_names_itself_and_its_targets() {
        // gcc is never skipped (README): without it this test fails rather than pass unchecked.
        let gcc = Compiler::find("gcc").expect("gcc is required (scripts/setup installs it)");
        assert!(gcc.short.starts_with("gcc-"), "{}", gcc.short);
        let avx2 = gcc.targets(&["-mavx2".into(), "-mbmi2".into()]).unwrap();
        assert!(avx2.contains(&"avx2".to_string()) && avx2.contains(&"bmi2".to_string()));
        assert!(!gcc
            .targets(&["-O2".into()])
            .unwrap()
            .contains(&"avx2".into()));
        let amd = gcc.targets(&["-msse4a".into(), "-mxop".into()]).unwrap();
        assert!(
            amd.contains(&"sse4a".into()) && amd.contains(&"xop".into()),
            "{amd:?}"
        );
        let e = gcc.targets(&["-mno-such-flag".into()]).unwrap_err();
        assert!(e.contains("error"), "{e}");
        assert_eq!(
            lacking(&["avx2".into(), "bmi2".into()], &["avx2".into()]),
            vec!["bmi2".to_string()]
        );
    }
}
