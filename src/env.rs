//! The environment record: everything about the machine and the build that a reader needs to
//! reproduce (or distrust) a result.
//!
//! [`Environment::collect`] reads the machine at run time (`/proc`, `/sys`, `uname`) and the
//! build facts that `build.rs` captured at compile time (compilers, git commit, profile, target).
//! It never fails: whatever cannot be read is `None` or `"unknown"`. The versions of the
//! measured libraries ([`Environment::providers`]) are filled in by the caller, which knows which
//! implementations ran.
//!
//! The file parsers are small pure functions over the file text, so they are tested on fixed
//! samples rather than on whatever machine runs the tests.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// What is written for a value that could not be found.
const UNKNOWN: &str = "unknown";

/// The CPU flags worth recording: the instruction-set extensions the measured code may dispatch
/// on, and the timer properties the measurements rely on. Listed in the order they are reported.
const INTERESTING_FLAGS: &[&str] = &[
    // x86
    "avx2",
    "avx512f",
    "avx512vl",
    "aes",
    "sha_ni",
    "bmi2",
    "adx",
    "pclmulqdq",
    "vaes",
    "vpclmulqdq",
    "constant_tsc",
    "nonstop_tsc",
    "rdtscp",
    "hypervisor",
    // aarch64 (`Features` line)
    "asimd",
    "pmull",
    "sha2",
    "sha3",
    "sve",
    "sve2",
];

/// The machine, the operating system and the build a result was measured with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    /// The host name (`uname -n`).
    pub hostname: String,
    /// The operating system, `PRETTY_NAME` from `/etc/os-release`.
    pub os: String,
    /// The kernel release (`uname -r`).
    pub kernel: String,
    /// The CPU architecture the binary was built for (`std::env::consts::ARCH`).
    pub arch: String,
    /// The processor.
    pub cpu: Cpu,
    /// Total memory, `MemTotal` from `/proc/meminfo`, in bytes (0 when unreadable).
    pub memory_bytes: u64,
    /// The hypervisor the machine runs under, `None` on bare metal (or when none could be
    /// detected): the cpuid vendor, `/sys/hypervisor/type` and the DMI system vendor, as far as
    /// they are readable.
    pub hypervisor: Option<String>,
    /// How kembench itself was built.
    pub build: Build,
    /// The versions of the measured implementations; filled by the caller, empty after
    /// [`Environment::collect`].
    pub providers: Vec<ProviderVersion>,
    /// How each measured build that `kembench builds` compiled was made: compiler and version,
    /// flags, the source's version and hash, the CPU features it targets, its gate verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub builds: Vec<crate::kem::BuildFacts>,
}

/// The processor and the settings that move timings: frequency scaling, turbo, SMT.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cpu {
    /// The model name (`model name` in `/proc/cpuinfo`), or "unknown".
    pub model: String,
    /// The vendor (`vendor_id`, or the implementer code on Arm), or "unknown".
    pub vendor: String,
    /// Logical CPUs (hardware threads) of the machine: the processors in `/proc/cpuinfo`, or
    /// `std::thread::available_parallelism` when that lists none.
    pub logical_cpus: usize,
    /// Physical cores: distinct (`physical id`, `core id`) pairs, or `logical_cpus` when the
    /// topology is not listed.
    pub physical_cores: usize,
    /// Whether simultaneous multithreading is on: more logical CPUs than cores, or
    /// `/sys/devices/system/cpu/smt/active` is 1.
    pub smt: bool,
    /// The interesting flags the CPU has (see the list in this module), in a fixed order.
    pub flags: Vec<String>,
    /// `cpu MHz` of the first processor in `/proc/cpuinfo`, in MHz. Most kernels report the
    /// current frequency there, so this is a snapshot rather than a guaranteed base clock.
    pub nominal_mhz: Option<f64>,
    /// The cpufreq governor of cpu0 (`scaling_governor`), `None` without cpufreq.
    pub governor: Option<String>,
    /// Whether turbo/boost is enabled (`intel_pstate/no_turbo` inverted, or `cpufreq/boost`),
    /// `None` when the kernel does not say.
    pub turbo: Option<bool>,
    /// `/proc/sys/kernel/perf_event_paranoid`: which hardware counters an unprivileged run may
    /// read.
    pub perf_event_paranoid: Option<i32>,
}

/// How the kembench binary was built, captured by `build.rs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Build {
    /// The kembench package version.
    pub kembench_version: String,
    /// The short git commit of the source tree, with `-dirty` for uncommitted changes, or
    /// "unknown" when built outside a git checkout.
    pub git_commit: String,
    /// `rustc -V` of the compiler that built kembench.
    pub rustc: String,
    /// The first line of `--version` of the C compiler the C providers were built with by
    /// default (`CC_<target>`, `TARGET_CC`, `CC`, else `cc`, as the `cc` crate picks it; a cross
    /// build names its cross compiler).
    pub cc: String,
    /// The cargo profile ("release" or "debug").
    pub profile: String,
    /// The optimisation level (`opt-level`).
    pub opt_level: String,
    /// The target triple.
    pub target: String,
    /// The target features enabled at compile time (e.g. `sse2`, or `avx2` with
    /// `-C target-cpu=native`), sorted.
    pub target_features: Vec<String>,
}

/// The version of one measured implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderVersion {
    /// The implementation, as named in the registry.
    pub implementation: String,
    /// Its version: the library and crate versions that were linked.
    pub version: String,
}

impl Environment {
    /// This machine's environment with the versions of the implementations about to be
    /// measured.
    pub fn for_implementations(impls: &[std::sync::Arc<dyn crate::kem::Kem>]) -> Environment {
        let mut env = Environment::collect();
        env.providers = impls
            .iter()
            .map(|k| ProviderVersion {
                implementation: k.meta().implementation.clone(),
                version: k.meta().version.clone(),
            })
            .collect();
        env.providers
            .sort_by(|a, b| a.implementation.cmp(&b.implementation));
        env.providers.dedup();
        env.builds = impls.iter().filter_map(|k| k.build().cloned()).collect();
        env.builds
            .sort_by(|a, b| a.implementation.cmp(&b.implementation));
        env.builds.dedup();
        env
    }

    /// Reads the machine and the build facts. Never panics: unreadable sources give `None` or
    /// "unknown". `providers` is left empty for the caller to fill.
    pub fn collect() -> Environment {
        let uname = uname();
        let cpuinfo = parse_cpuinfo(&read("/proc/cpuinfo").unwrap_or_default());
        let under_hypervisor = cpuinfo.flags.iter().any(|f| f == "hypervisor");
        // Without the flag, cpuid leaf 0x4000_0000 returns unrelated data: do not ask.
        let cpuid_vendor = under_hypervisor.then(cpuid_hypervisor_vendor).flatten();
        let hypervisor = describe_hypervisor(
            under_hypervisor,
            cpuid_vendor.as_deref(),
            read_trimmed("/sys/hypervisor/type").as_deref(),
            read_trimmed("/sys/class/dmi/id/sys_vendor").as_deref(),
        );
        let os = read("/etc/os-release")
            .or_else(|| read("/usr/lib/os-release"))
            .and_then(|t| parse_os_release(&t));
        Environment {
            hostname: uname
                .as_ref()
                .map(|u| u.nodename.clone())
                .or_else(|| read_trimmed("/proc/sys/kernel/hostname"))
                .unwrap_or_else(|| UNKNOWN.into()),
            os: os.unwrap_or_else(|| UNKNOWN.into()),
            kernel: uname
                .map(|u| u.release)
                .or_else(|| read_trimmed("/proc/sys/kernel/osrelease"))
                .unwrap_or_else(|| UNKNOWN.into()),
            arch: std::env::consts::ARCH.into(),
            cpu: cpu(cpuinfo),
            memory_bytes: read("/proc/meminfo")
                .and_then(|t| parse_meminfo(&t))
                .unwrap_or(0),
            hypervisor,
            build: Build::current(),
            providers: Vec::new(),
            builds: Vec::new(),
        }
    }

    /// A short human header for the console (five lines): the CPU, its flags and frequency
    /// settings, the system, and the build.
    pub fn summary_lines(&self) -> Vec<String> {
        let cpu = &self.cpu;
        let mhz = cpu
            .nominal_mhz
            .map(|m| format!(", {m:.0} MHz"))
            .unwrap_or_default();
        let flags = if cpu.flags.is_empty() {
            "none of interest".to_owned()
        } else {
            cpu.flags.join(" ")
        };
        let or_na = |v: Option<String>| v.unwrap_or_else(|| "n/a".into());
        let b = &self.build;
        vec![
            format!(
                "CPU: {} ({}), {} logical / {} physical cores, SMT {}{mhz}",
                cpu.model,
                cpu.vendor,
                cpu.logical_cpus,
                cpu.physical_cores,
                if cpu.smt { "on" } else { "off" },
            ),
            format!("Flags: {flags}"),
            format!(
                "Governor: {}, turbo: {}, perf_event_paranoid: {}, hypervisor: {}",
                or_na(cpu.governor.clone()),
                or_na(
                    cpu.turbo
                        .map(|t| if t { "on".into() } else { "off".into() })
                ),
                or_na(cpu.perf_event_paranoid.map(|p| p.to_string())),
                self.hypervisor.as_deref().unwrap_or("none detected"),
            ),
            format!(
                "System: {}, kernel {} ({}), {:.1} GiB RAM, host {}",
                self.os,
                self.kernel,
                self.arch,
                self.memory_bytes as f64 / (1u64 << 30) as f64,
                self.hostname,
            ),
            format!(
                "Build: kembench {} at {}, {} (opt-level {}), {}; cc: {}",
                b.kembench_version, b.git_commit, b.profile, b.opt_level, b.rustc, b.cc,
            ),
        ]
    }
}

impl Build {
    /// The facts `build.rs` recorded for this binary.
    pub fn current() -> Build {
        Build {
            kembench_version: env!("CARGO_PKG_VERSION").into(),
            git_commit: env!("KEMBENCH_GIT_COMMIT").into(),
            rustc: env!("KEMBENCH_RUSTC_VERSION").into(),
            cc: env!("KEMBENCH_CC_VERSION").into(),
            profile: env!("KEMBENCH_PROFILE").into(),
            opt_level: env!("KEMBENCH_OPT_LEVEL").into(),
            target: env!("KEMBENCH_TARGET").into(),
            target_features: parse_target_features(env!("KEMBENCH_TARGET_FEATURES")),
        }
    }
}

/// What `/proc/cpuinfo` says, before it is combined with `/sys`.
#[derive(Debug, Clone, Default, PartialEq)]
struct CpuInfoParsed {
    /// `model name` (x86) or `Model`/`Hardware` (Arm) of the first processor that has one.
    model: Option<String>,
    /// `vendor_id` (x86) or `CPU implementer` (Arm).
    vendor: Option<String>,
    /// The number of `processor` entries.
    processors: usize,
    /// Distinct (`physical id`, `core id`) pairs; `None` when the file lists no `core id`.
    physical_cores: Option<usize>,
    /// All flags of the first processor (`flags`, or `Features` on Arm).
    flags: Vec<String>,
    /// `cpu MHz` of the first processor.
    mhz: Option<f64>,
}

/// Parses the text of `/proc/cpuinfo`.
fn parse_cpuinfo(text: &str) -> CpuInfoParsed {
    let mut parsed = CpuInfoParsed::default();
    let mut cores = BTreeSet::new();
    // The topology of the processor being read; `/proc/cpuinfo` lists `physical id` before
    // `core id`, but do not rely on it: pair them at the end of each block.
    let mut package: Option<&str> = None;
    let mut core: Option<&str> = None;
    let mut end_block = |package: &mut Option<&str>, core: &mut Option<&str>| {
        if let Some(c) = core.take() {
            cores.insert((package.take().unwrap_or("0").to_owned(), c.to_owned()));
        }
        *package = None;
    };
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            if line.trim().is_empty() {
                end_block(&mut package, &mut core);
            }
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        match key {
            "processor" => {
                // A new block even without a blank line before it.
                end_block(&mut package, &mut core);
                parsed.processors += 1;
            }
            "model name" | "Model" | "Hardware" if parsed.model.is_none() && !value.is_empty() => {
                parsed.model = Some(value.to_owned());
            }
            "vendor_id" | "CPU implementer" if parsed.vendor.is_none() && !value.is_empty() => {
                parsed.vendor = Some(value.to_owned());
            }
            "physical id" => package = Some(value),
            "core id" => core = Some(value),
            "flags" | "Features" if parsed.flags.is_empty() => {
                parsed.flags = value.split_whitespace().map(str::to_owned).collect();
            }
            "cpu MHz" if parsed.mhz.is_none() => {
                parsed.mhz = value
                    .parse::<f64>()
                    .ok()
                    .filter(|m| m.is_finite() && *m > 0.0);
            }
            _ => {}
        }
    }
    end_block(&mut package, &mut core);
    parsed.physical_cores = (!cores.is_empty()).then_some(cores.len());
    parsed
}

/// `MemTotal` from the text of `/proc/meminfo`, in bytes.
fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find_map(|l| l.strip_prefix("MemTotal:"))?;
    let mut words = line.split_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    let scale = match words.next().map(str::to_ascii_lowercase).as_deref() {
        Some("kb") => 1024,
        Some("mb") => 1024 * 1024,
        Some("gb") => 1024 * 1024 * 1024,
        None | Some("b") => 1,
        Some(_) => return None,
    };
    value.checked_mul(scale).filter(|&b| b > 0)
}

/// `PRETTY_NAME` from the text of `os-release`, unquoted; `NAME` and `VERSION` when it has no
/// `PRETTY_NAME`.
fn parse_os_release(text: &str) -> Option<String> {
    let field = |name: &str| {
        text.lines()
            .filter_map(|l| l.trim().strip_prefix(name)?.strip_prefix('='))
            .map(unquote)
            .rfind(|v| !v.is_empty())
    };
    field("PRETTY_NAME").or_else(|| {
        let name = field("NAME")?;
        Some(match field("VERSION") {
            Some(version) => format!("{name} {version}"),
            None => name,
        })
    })
}

/// A shell-style value of `os-release`: surrounding quotes removed, backslash escapes resolved.
fn unquote(value: &str) -> String {
    let value = value.trim();
    let inner = ['"', '\'']
        .iter()
        .find_map(|&q| value.strip_prefix(q)?.strip_suffix(q))
        .unwrap_or(value);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// The comma-separated list `CARGO_CFG_TARGET_FEATURE`, sorted; empty for "unknown".
fn parse_target_features(list: &str) -> Vec<String> {
    if list == UNKNOWN {
        return Vec::new();
    }
    let set: BTreeSet<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .collect();
    set.into_iter().map(str::to_owned).collect()
}

/// The flags of [`INTERESTING_FLAGS`] present in `flags`, in the order of that list.
fn interesting_flags(flags: &[String]) -> Vec<String> {
    INTERESTING_FLAGS
        .iter()
        .filter(|want| flags.iter().any(|f| f == *want))
        .map(|f| (*f).to_owned())
        .collect()
}

/// Turbo from the sysfs texts: `intel_pstate/no_turbo` (1 means off) first, then
/// `cpufreq/boost` (1 means on).
fn parse_turbo(no_turbo: Option<&str>, boost: Option<&str>) -> Option<bool> {
    let flag = |t: &str| match t.trim() {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    };
    no_turbo
        .and_then(flag)
        .map(|off| !off)
        .or_else(|| boost.and_then(flag))
}

/// Names the hypervisor from what the machine says. Only the cpuid flag or
/// `/sys/hypervisor/type` establish that there is one (a DMI vendor such as "Amazon EC2" is also
/// found on bare-metal instances), except for DMI vendors that only exist as virtual machines.
fn describe_hypervisor(
    flag: bool,
    cpuid_vendor: Option<&str>,
    sys_type: Option<&str>,
    dmi_vendor: Option<&str>,
) -> Option<String> {
    const VIRTUAL_ONLY: &[&str] = &[
        "QEMU",
        "KVM",
        "VMware",
        "innotek",
        "Xen",
        "Bochs",
        "Parallels",
    ];
    fn clean(v: Option<&str>) -> Option<&str> {
        v.map(str::trim).filter(|v| !v.is_empty())
    }
    let (cpuid_vendor, sys_type, dmi_vendor) =
        (clean(cpuid_vendor), clean(sys_type), clean(dmi_vendor));
    let dmi_virtual = dmi_vendor.is_some_and(|d| VIRTUAL_ONLY.iter().any(|v| d.contains(v)));
    if !flag && sys_type.is_none() && !dmi_virtual {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in [cpuid_vendor, sys_type, dmi_vendor].into_iter().flatten() {
        if !parts.iter().any(|p| p.eq_ignore_ascii_case(part)) {
            parts.push(part);
        }
    }
    Some(if parts.is_empty() {
        UNKNOWN.to_owned()
    } else {
        parts.join(" / ")
    })
}

/// The hypervisor's vendor signature from cpuid leaf 0x4000_0000, named where it is a known one.
/// Only meaningful when the cpuid `hypervisor` flag is set: call it only then.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn cpuid_hypervisor_vendor() -> Option<String> {
    #[cfg(target_arch = "x86")]
    use std::arch::x86::__cpuid;
    #[cfg(target_arch = "x86_64")]
    use std::arch::x86_64::__cpuid;
    // SAFETY: cpuid is available on every x86 CPU that runs a kernel with /proc/cpuinfo, and
    // reading a leaf has no side effects. (`__cpuid` is a safe fn in newer Rust.)
    #[allow(unused_unsafe)]
    let leaf = unsafe { __cpuid(0x4000_0000) };
    let bytes: Vec<u8> = [leaf.ebx, leaf.ecx, leaf.edx]
        .iter()
        .flat_map(|r| r.to_le_bytes())
        .collect();
    let signature = String::from_utf8_lossy(&bytes)
        .trim_matches(|c: char| c == '\0' || c.is_whitespace())
        .to_owned();
    Some(hypervisor_name(&signature)?.to_owned())
}

/// No cpuid outside x86.
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
fn cpuid_hypervisor_vendor() -> Option<String> {
    None
}

/// The product behind a cpuid hypervisor signature; unknown printable signatures as they are.
#[cfg_attr(
    not(any(target_arch = "x86", target_arch = "x86_64")),
    allow(dead_code)
)]
fn hypervisor_name(signature: &str) -> Option<&str> {
    Some(match signature {
        "KVMKVMKVM" | "Linux KVM Hv" => "KVM",
        "Microsoft Hv" => "Hyper-V",
        "VMwareVMware" => "VMware",
        "XenVMMXenVMM" => "Xen",
        "TCGTCGTCGTCG" => "QEMU TCG",
        "VBoxVBoxVBox" => "VirtualBox",
        "prl hyperv" | "lrpepyh  vr" => "Parallels",
        "bhyve bhyve" => "bhyve",
        "ACRNACRNACRN" => "ACRN",
        "QNXQVMBSQG" => "QNX",
        "" => return None,
        s if s.chars().all(|c| c.is_ascii_graphic() || c == ' ') => s,
        _ => return None,
    })
}

/// Combines `/proc/cpuinfo` with `/sys` and the scheduler's view.
fn cpu(info: CpuInfoParsed) -> Cpu {
    let logical_cpus = if info.processors > 0 {
        info.processors
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    };
    let physical_cores = info
        .physical_cores
        .filter(|&p| p > 0 && p <= logical_cpus)
        .unwrap_or(logical_cpus);
    let smt_active = read_trimmed("/sys/devices/system/cpu/smt/active").as_deref() == Some("1");
    Cpu {
        model: info.model.unwrap_or_else(|| UNKNOWN.into()),
        vendor: info.vendor.unwrap_or_else(|| UNKNOWN.into()),
        logical_cpus,
        physical_cores,
        smt: logical_cpus > physical_cores || smt_active,
        flags: interesting_flags(&info.flags),
        nominal_mhz: info.mhz,
        governor: read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        turbo: parse_turbo(
            read("/sys/devices/system/cpu/intel_pstate/no_turbo").as_deref(),
            read("/sys/devices/system/cpu/cpufreq/boost")
                .or_else(|| read("/sys/devices/system/cpu/cpufreq/policy0/boost"))
                .as_deref(),
        ),
        perf_event_paranoid: read_trimmed("/proc/sys/kernel/perf_event_paranoid")
            .and_then(|t| t.parse().ok()),
    }
}

/// The fields of `uname` that the record uses.
struct Uname {
    nodename: String,
    release: String,
}

/// `uname(2)`, `None` if it fails.
#[cfg(unix)]
fn uname() -> Option<Uname> {
    use std::ffi::CStr;
    // SAFETY: `utsname` is plain C data for which all-zero bytes are valid; `uname` fills it and
    // NUL-terminates every field on success, so the `CStr`s stay inside their arrays.
    unsafe {
        let mut buf: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut buf) != 0 {
            return None;
        }
        let field = |f: &[libc::c_char]| {
            let s = CStr::from_ptr(f.as_ptr())
                .to_string_lossy()
                .trim()
                .to_owned();
            (!s.is_empty()).then_some(s)
        };
        Some(Uname {
            nodename: field(&buf.nodename)?,
            release: field(&buf.release)?,
        })
    }
}

/// No `uname` outside Unix.
#[cfg(not(unix))]
fn uname() -> Option<Uname> {
    None
}

/// A file's text, `None` if it cannot be read.
fn read(path: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(path).ok()
}

/// A file's text trimmed, `None` if it cannot be read or is empty.
fn read_trimmed(path: impl AsRef<Path>) -> Option<String> {
    let text = read(path)?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two logical processors on one physical core (SMT), Intel style; abridged.
    const CPUINFO_INTEL_SMT: &str = "\
processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 142
model name\t: Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz
stepping\t: 10
cpu MHz\t\t: 2112.006
cache size\t: 8192 KB
physical id\t: 0
siblings\t: 2
core id\t\t: 0
cpu cores\t: 1
apicid\t\t: 0
flags\t\t: fpu vme de pse tsc msr pae constant_tsc rdtscp nonstop_tsc pclmulqdq ssse3 aes avx avx2 bmi1 bmi2 adx sha_ni
bogomips\t: 4224.01
power management:

processor\t: 1
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 142
model name\t: Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz
stepping\t: 10
cpu MHz\t\t: 1800.000
cache size\t: 8192 KB
physical id\t: 0
siblings\t: 2
core id\t\t: 0
cpu cores\t: 1
apicid\t\t: 1
flags\t\t: fpu vme de pse tsc msr pae constant_tsc rdtscp nonstop_tsc pclmulqdq ssse3 aes avx avx2 bmi1 bmi2 adx sha_ni
bogomips\t: 4224.01
power management:

";

    const MEMINFO: &str = "\
MemTotal:       16314396 kB
MemFree:         9187252 kB
MemAvailable:   12419640 kB
Buffers:          305180 kB
";

    #[test]
    fn cpuinfo_intel_two_threads_one_core() {
        let p = parse_cpuinfo(CPUINFO_INTEL_SMT);
        assert_eq!(
            p.model.as_deref(),
            Some("Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz")
        );
        assert_eq!(p.vendor.as_deref(), Some("GenuineIntel"));
        assert_eq!(p.processors, 2);
        assert_eq!(p.physical_cores, Some(1));
        assert_eq!(p.mhz, Some(2112.006));
        assert_eq!(
            interesting_flags(&p.flags),
            [
                "avx2",
                "aes",
                "sha_ni",
                "bmi2",
                "adx",
                "pclmulqdq",
                "constant_tsc",
                "nonstop_tsc",
                "rdtscp"
            ]
        );
        // Combined: SMT follows from 2 logical CPUs on 1 core.
        let c = cpu(p);
        assert_eq!((c.logical_cpus, c.physical_cores, c.smt), (2, 1, true));
        assert_eq!(c.model, "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz");
    }

    #[test]
    fn cpuinfo_without_topology_or_model() {
        let text = "processor\t: 0\nFeatures\t: fp asimd aes pmull sha1 sha2\nCPU implementer\t: 0x41\n\n\
                    processor\t: 1\nFeatures\t: fp asimd aes pmull sha1 sha2\nCPU implementer\t: 0x41\n";
        let p = parse_cpuinfo(text);
        assert_eq!(p.processors, 2);
        assert_eq!(p.physical_cores, None);
        assert_eq!(p.model, None);
        assert_eq!(p.vendor.as_deref(), Some("0x41"));
        assert_eq!(
            interesting_flags(&p.flags),
            ["aes", "asimd", "pmull", "sha2"]
        );
        let c = cpu(p);
        assert_eq!(c.model, UNKNOWN);
        assert_eq!(c.physical_cores, c.logical_cpus);
        assert_eq!(parse_cpuinfo(""), CpuInfoParsed::default());
    }

    #[test]
    fn cpuinfo_two_packages_count_separately() {
        let text = "processor: 0\nphysical id: 0\ncore id: 0\n\nprocessor: 1\nphysical id: 1\ncore id: 0\n";
        assert_eq!(parse_cpuinfo(text).physical_cores, Some(2));
    }

    #[test]
    fn meminfo_total_in_bytes() {
        assert_eq!(parse_meminfo(MEMINFO), Some(16_314_396 * 1024));
        assert_eq!(parse_meminfo("MemFree: 12 kB\n"), None);
        assert_eq!(parse_meminfo("MemTotal: lots kB\n"), None);
    }

    #[test]
    fn os_release_pretty_name() {
        let text = "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n\
                    PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n";
        assert_eq!(
            parse_os_release(text).as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
        assert_eq!(
            parse_os_release("PRETTY_NAME='Say \\\"hi\\\"'\n").as_deref(),
            Some("Say \"hi\"")
        );
        assert_eq!(
            parse_os_release("NAME=Foo\nVERSION=\"1.0 (x)\"\n").as_deref(),
            Some("Foo 1.0 (x)")
        );
        assert_eq!(parse_os_release("ID=foo\n"), None);
    }

    #[test]
    fn turbo_and_target_features() {
        assert_eq!(parse_turbo(Some("1\n"), Some("1")), Some(false));
        assert_eq!(parse_turbo(Some("0\n"), None), Some(true));
        assert_eq!(parse_turbo(None, Some("0\n")), Some(false));
        assert_eq!(parse_turbo(None, None), None);
        assert_eq!(
            parse_target_features("sse2,fxsr,sse"),
            ["fxsr", "sse", "sse2"]
        );
        assert!(parse_target_features(UNKNOWN).is_empty());
    }

    #[test]
    fn hypervisor_detection() {
        assert_eq!(
            describe_hypervisor(false, None, None, Some("Dell Inc.")),
            None
        );
        // Bare-metal cloud instances carry the cloud's DMI vendor but no hypervisor flag.
        assert_eq!(
            describe_hypervisor(false, None, None, Some("Amazon EC2")),
            None
        );
        assert_eq!(
            describe_hypervisor(true, Some("KVM"), None, Some("Amazon EC2")).as_deref(),
            Some("KVM / Amazon EC2")
        );
        assert_eq!(
            describe_hypervisor(false, None, Some("xen"), Some("Xen")).as_deref(),
            Some("xen")
        );
        assert_eq!(
            describe_hypervisor(false, None, None, Some("QEMU")).as_deref(),
            Some("QEMU")
        );
        assert_eq!(
            describe_hypervisor(true, None, None, None).as_deref(),
            Some(UNKNOWN)
        );
        assert_eq!(hypervisor_name("KVMKVMKVM"), Some("KVM"));
        assert_eq!(hypervisor_name(""), None);
    }

    #[test]
    fn collect_on_this_machine() {
        let env = Environment::collect();
        assert!(!env.cpu.model.is_empty());
        assert!(env.cpu.logical_cpus >= 1);
        assert!(env.cpu.physical_cores >= 1 && env.cpu.physical_cores <= env.cpu.logical_cpus);
        assert!(env.memory_bytes > 0);
        assert!(!env.build.git_commit.is_empty());
        assert!(!env.build.rustc.is_empty());
        assert_eq!(env.build.kembench_version, env!("CARGO_PKG_VERSION"));
        assert!(env.providers.is_empty());

        let lines = env.summary_lines();
        assert!((3..=6).contains(&lines.len()));
        assert!(lines.iter().all(|l| !l.is_empty()));
        assert!(lines.iter().any(|l| l.contains(&env.cpu.model)));

        let json = serde_json::to_string(&env).expect("serialize");
        let back: Environment = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(back, env);
    }
}
