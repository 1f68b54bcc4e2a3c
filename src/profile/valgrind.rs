//! Finding valgrind and the callgrind command line `profile` runs its workers under, and the
//! CPU features a process sees (natively, and under valgrind, which hides some).

use crate::kem::MEGABYTE_KEYS_STACK;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The function the worker runs each profiled call inside: callgrind collects only while it
/// is on the stack and writes one dump each time it returns.
pub const MARKER: &str = "kembench_profiled_op";

/// Frames of call chain callgrind keeps in each function's name (`--separate-callers`):
/// deeper than any stack the providers reach from `main`, so every cost has its whole stack.
pub const SEPARATE_CALLERS: usize = 100;

/// The simulated caches: stated, so that counts do not depend on the machine's own caches.
/// First levels as on most x86 cores of the last decade, a last level of 8 MiB.
pub const CACHE_ARGS: [&str; 3] = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"];

/// The cache geometry of [`CACHE_ARGS`], for records and tables.
pub const CACHE_GEOMETRY: &str = "I1 and D1 32 KiB 8-way, LL 8 MiB 16-way, 64-byte lines";

/// Where valgrind is, or the error that says how to install it.
/// `KEMBENCH_VALGRIND` names the executable when it is not `valgrind` on the `PATH`.
pub fn locate() -> anyhow::Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = match std::env::var_os("KEMBENCH_VALGRIND") {
        Some(p) => Some(PathBuf::from(p)).filter(|p| p.is_file()),
        None => std::env::split_paths(&path)
            .map(|d| d.join("valgrind"))
            .find(|p| p.is_file()),
    };
    found.ok_or_else(|| {
        anyhow::anyhow!(
            "valgrind is not installed (needed by `kembench profile`, which counts \
                 instructions under callgrind): install it with `sudo apt-get install valgrind` \
                 or run scripts/setup"
        )
    })
}

/// `valgrind --version` (`valgrind-3.19.0`).
pub fn version(valgrind: &Path) -> anyhow::Result<String> {
    let out = Command::new(valgrind)
        .arg("--version")
        .output()
        .map_err(|e| anyhow::anyhow!("{} --version: {e}", valgrind.display()))?;
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || v.is_empty() {
        anyhow::bail!(
            "{} --version failed; is valgrind installed correctly?",
            valgrind.display()
        );
    }
    Ok(v)
}

/// The arguments that put a worker under callgrind, writing its dumps to `out_file.N`.
pub fn callgrind_args(out_file: &Path) -> Vec<String> {
    let mut a: Vec<String> = vec![
        "--tool=callgrind".into(),
        format!("--callgrind-out-file={}", out_file.display()),
        format!("--toggle-collect={MARKER}"),
        format!("--dump-after={MARKER}"),
        format!("--separate-callers={SEPARATE_CALLERS}"),
        "--cache-sim=yes".into(),
        // Every instruction's address, so that the primitive shares can look through the
        // frames inlined there (`callgrind::analyse_with`).
        "--dump-instr=yes".into(),
        "--compress-strings=no".into(),
        "--compress-pos=no".into(),
        // Classic McEliece keeps megabyte keys on the stack.
        format!("--max-stackframe={MEGABYTE_KEYS_STACK}"),
        format!("--main-stacksize={MEGABYTE_KEYS_STACK}"),
        "--quiet".into(),
    ];
    a.extend(CACHE_ARGS.iter().map(|s| s.to_string()));
    a
}

/// The x86 features libraries dispatch on, as CPUID reports them to this process (under
/// valgrind: as valgrind's virtual CPU reports them).
pub fn cpu_features() -> Vec<String> {
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))] // empty elsewhere
    let mut v = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! probe {
            ($($f:tt),*) => {
                $(if std::arch::is_x86_feature_detected!($f) {
                    v.push($f.to_string());
                })*
            };
        }
        probe!(
            "sse4.1",
            "popcnt",
            "aes",
            "pclmulqdq",
            "avx",
            "avx2",
            "bmi1",
            "bmi2",
            "adx",
            "sha",
            "vaes",
            "vpclmulqdq",
            "avx512f",
            "avx512bw",
            "avx512vl",
            "avx512ifma"
        );
    }
    v
}
