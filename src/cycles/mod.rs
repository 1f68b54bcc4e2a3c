//! Cycle estimates for CPUs kembench does not have: every executed block of a counted call
//! (the QEMU plugin's per-block counts) is disassembled by LLVM's `llvm-mc` and priced by
//! `llvm-mca`'s scheduling model of a named CPU (steady-state cycles per iteration of the block,
//! run as a loop of itself); the estimate of the call is the sum over its blocks of executions
//! × cycles.
//!
//! The LLVM is pinned (`llvm-mca-19`, Debian 12's `llvm-19`): its models change between
//! versions, and 19 is the oldest with real Neoverse N1/V1/V2, POWER8 and SiFive P670 models.
//! LLVM gives some names another CPU's model (Cortex-A72 and A76 get Cortex-A57's; Apple M1 gets
//! Cyclone's): kembench finds out which by the model's resource names and says so
//! ([`CpuModel::model`]). A name without a scheduling model is refused, never priced with a
//! generic machine.
//!
//! What no such model sees: caches, branch mispredictions, memory latency, the clock. An
//! estimate is cycles of an ideal pipeline, not time.

pub mod length;
pub mod mca;

use crate::arch::Arch;
pub use crate::record::profile::CpuModel;
use std::path::PathBuf;
use std::process::Command;

/// The LLVM major version whose models kembench prices with.
pub const LLVM_MAJOR: &str = "19";

/// The Debian package that brings `llvm-mca-19` and `llvm-mc-19`.
pub const PACKAGE: &str = "llvm-19";

/// The environment variable naming a directory that holds `llvm-mca-19` and `llvm-mc-19`
/// (instead of `PATH`).
pub const TOOLS_VAR: &str = "KEMBENCH_LLVM_BIN";

/// What `--cpus default` means for each architecture (for the host's, this machine's own model
/// comes first, as LLVM names it).
pub fn defaults(arch: Arch) -> &'static [&'static str] {
    match arch {
        Arch::Aarch64 => &["cortex-a55", "cortex-a76", "neoverse-n1", "neoverse-v2"],
        Arch::S390x => &["z15", "z16"],
        Arch::Ppc64le => &["pwr9", "pwr10"],
        Arch::Riscv64 => &["sifive-u74", "sifive-p670"],
        Arch::X86_64 => &["znver4", "sapphirerapids"],
    }
}

/// The CPUs whose names LLVM 19's scheduling models carry (the model's owner): a CPU whose
/// model's resources are one of these owners' is priced with that owner's model.
fn owners(arch: Arch) -> &'static [&'static str] {
    match arch {
        Arch::Aarch64 => &[
            "cortex-a53",
            "cortex-a55",
            "cortex-a57",
            "cortex-a510",
            "neoverse-n1",
            "neoverse-n2",
            "neoverse-v1",
            "neoverse-v2",
            "cyclone",
            "exynos-m3",
            "exynos-m4",
            "exynos-m5",
            "falkor",
            "kryo",
            "thunderx",
            "thunderx2t99",
            "thunderx3t110",
            "tsv110",
            "a64fx",
            "ampere1",
        ],
        Arch::S390x => &["z13", "z14", "z15", "z16", "zEC12", "z196"],
        Arch::Ppc64le => &["pwr8", "pwr9", "pwr10"],
        Arch::Riscv64 => &[
            "sifive-u74",
            "sifive-p670",
            "sifive-p470",
            "syntacore-scr1-base",
        ],
        Arch::X86_64 => &[
            "sandybridge",
            "haswell",
            "broadwell",
            "skylake",
            "skylake-avx512",
            "icelake-client",
            "icelake-server",
            "alderlake",
            "sapphirerapids",
            "btver2",
            "znver1",
            "znver2",
            "znver3",
            "znver4",
        ],
    }
}

/// LLVM's target triple and the features its disassembler and models need for `arch`'s
/// Debian builds.
pub fn target(arch: Arch) -> (&'static str, &'static str) {
    match arch {
        Arch::X86_64 => ("x86_64-linux-gnu", ""),
        Arch::Aarch64 => ("aarch64-linux-gnu", ""),
        Arch::S390x => ("s390x-linux-gnu", ""),
        Arch::Ppc64le => ("powerpc64le-linux-gnu", ""),
        // Debian's riscv64 is rv64gc; the vector unit for builds that use it.
        Arch::Riscv64 => ("riscv64-linux-gnu", "+m,+a,+f,+d,+c,+v"),
    }
}

/// The CPU whose instruction set the disassembler reads `arch`'s code with (the newest, so
/// that no facility a build may use is unknown to it).
fn disassembler_cpu(arch: Arch) -> &'static str {
    match arch {
        Arch::X86_64 => "sapphirerapids",
        Arch::Aarch64 => "neoverse-v2",
        Arch::S390x => "z16",
        Arch::Ppc64le => "pwr10",
        Arch::Riscv64 => "sifive-p670",
    }
}

/// One instruction every model of `arch` prices: how a model's resources are read.
fn probe(arch: Arch) -> &'static str {
    match arch {
        Arch::X86_64 => "addq %rax, %rbx",
        Arch::Aarch64 => "add x1, x1, #1",
        Arch::S390x => "lgr %r1, %r2",
        Arch::Ppc64le => "add 3, 3, 4",
        Arch::Riscv64 => "add a0, a0, a1",
    }
}

/// LLVM's tools, found.
#[derive(Debug, Clone)]
pub struct Tools {
    /// `llvm-mca-19`.
    pub mca: PathBuf,
    /// `llvm-mc-19`.
    pub mc: PathBuf,
    /// `llvm-mca-19 --version`'s version line (`Debian LLVM version 19.1.7`).
    pub version: String,
    /// The CPU LLVM takes this machine for (`znver3`), from the same output.
    pub host: Option<String>,
}

impl Tools {
    /// Finds `llvm-mca-19` and `llvm-mc-19` (in `$KEMBENCH_LLVM_BIN`, else on `PATH`), or says
    /// which Debian package brings them.
    pub fn find() -> Result<Tools, String> {
        let dirs: Vec<PathBuf> = match std::env::var_os(TOOLS_VAR).filter(|v| !v.is_empty()) {
            Some(d) => vec![PathBuf::from(d)],
            None => std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect(),
        };
        Tools::find_in(&dirs)
    }

    /// [`Tools::find`] in `dirs`.
    pub fn find_in(dirs: &[PathBuf]) -> Result<Tools, String> {
        let find = |name: &str| {
            dirs.iter()
                .map(|d| d.join(name))
                .find(|p| p.is_file())
                .ok_or_else(|| {
                    format!(
                        "cycle estimates need {name}, which is not installed (Debian package: \
                         {PACKAGE}; scripts/setup installs it)"
                    )
                })
        };
        let mca = find(&format!("llvm-mca-{LLVM_MAJOR}"))?;
        let mc = find(&format!("llvm-mc-{LLVM_MAJOR}"))?;
        let out = Command::new(&mca)
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run {}: {e}", mca.display()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let version = text
            .lines()
            .map(str::trim)
            .find(|l| l.contains("LLVM version"))
            .unwrap_or("LLVM (version not read)")
            .to_string();
        let host = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Host CPU:"))
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty() && c != "generic");
        Ok(Tools {
            mca,
            mc,
            version,
            host,
        })
    }

    /// The CPU names LLVM knows for `arch` (`-mcpu=help`).
    pub fn cpus(&self, arch: Arch) -> Result<Vec<String>, String> {
        let (triple, _) = target(arch);
        let out = Command::new(&self.mca)
            .args([&format!("-mtriple={triple}"), "-mcpu=help"])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.mca.display()))?;
        // The list goes to standard output or error depending on the version.
        let text = [out.stdout, out.stderr].concat();
        Ok(cpu_list(&String::from_utf8_lossy(&text)))
    }

    /// The resource names of the scheduling model LLVM prices `cpu` with (empty: it has
    /// none).
    pub fn resources(&self, arch: Arch, cpu: &str) -> Result<Vec<String>, String> {
        let (triple, attrs) = target(arch);
        let mut args = vec![
            format!("-mtriple={triple}"),
            format!("-mcpu={cpu}"),
            "--json".into(),
        ];
        if !attrs.is_empty() {
            args.push(format!("-mattr={attrs}"));
        }
        let out = mca::run(&self.mca, &args, probe(arch))?;
        if !out.status.success() {
            return Ok(Vec::new());
        }
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("llvm-mca wrote JSON kembench cannot read: {e}"))?;
        let mut names: Vec<String> = v["TargetInfo"]["Resources"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|r| r.as_str())
                    // `A57UnitI.\0`, `A57UnitI.\1`: units of one group.
                    .map(|r| r.split('.').next().unwrap_or(r).to_string())
                    .collect()
            })
            .unwrap_or_default();
        names.dedup();
        Ok(names)
    }
}

/// The names of `-mcpu=help`'s list of CPUs (`  cortex-a76 - Select the cortex-a76
/// processor.`), up to its list of features.
fn cpu_list(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Available CPUs"))
        .skip(1)
        .take_while(|l| !l.starts_with("Available features"))
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(' ')?;
            rest.trim_start().starts_with('-').then(|| name.to_string())
        })
        .collect()
}

/// Why a `--cpus` list was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

/// The CPUs of `asked` (names, `default` for each architecture's set) that price the builds
/// of `arches`, each with the model it gets. An unknown name is refused with the nearest names
/// LLVM knows for those architectures; a CPU of another architecture with that architecture
/// named; a name LLVM has no scheduling model for is refused (never priced with a generic
/// machine). A name known to several of the architectures prices each.
pub fn resolve(tools: &Tools, arches: &[Arch], asked: &[String]) -> Result<Vec<CpuModel>, Refused> {
    let refused = |m: String| Refused(m);
    let mut known: Vec<(Arch, Vec<String>)> = Vec::new();
    for &a in crate::arch::ALL.iter() {
        known.push((a, tools.cpus(a).map_err(refused)?));
    }
    let knows = |a: Arch, n: &str| {
        known
            .iter()
            .any(|(k, list)| *k == a && list.iter().any(|c| c == n))
    };
    let mut wanted: Vec<(Arch, String)> = Vec::new();
    for name in asked.iter().flat_map(|v| v.split(',')).map(str::trim) {
        if name.is_empty() {
            return Err(refused("--cpus names no CPU (an empty name)".into()));
        }
        if name == "default" {
            for &a in arches {
                // This machine's own model first, for the host's builds.
                if a == Arch::host() {
                    wanted.extend(tools.host.iter().map(|c| (a, c.clone())));
                }
                wanted.extend(defaults(a).iter().map(|c| (a, c.to_string())));
            }
            continue;
        }
        let mine: Vec<Arch> = arches.iter().copied().filter(|&a| knows(a, name)).collect();
        if mine.is_empty() {
            let others: Vec<&str> = known
                .iter()
                .filter(|(a, list)| !arches.contains(a) && list.iter().any(|c| c == name))
                .map(|(a, _)| a.name())
                .collect();
            let builds = arches
                .iter()
                .map(|a| a.name())
                .collect::<Vec<_>>()
                .join(", ");
            if !others.is_empty() {
                return Err(refused(format!(
                    "--cpus {name}: a CPU of {} (LLVM's {} models), and the builds profiled \
                     here are {builds}",
                    others.join(", "),
                    others.join(", ")
                )));
            }
            let names: Vec<String> = known
                .iter()
                .filter(|(a, _)| arches.contains(a))
                .flat_map(|(_, l)| l.iter().cloned())
                .chain(std::iter::once("default".to_string()))
                .collect();
            return Err(refused(format!(
                "--cpus {name}: LLVM {LLVM_MAJOR} knows no CPU of that name for {builds}{}",
                crate::suggest::hint(name, &names)
            )));
        }
        wanted.extend(mine.into_iter().map(|a| (a, name.to_string())));
    }
    let mut out: Vec<CpuModel> = Vec::new();
    for (arch, cpu) in wanted {
        if out.iter().any(|m| m.cpu == cpu && m.arch == arch.name()) {
            continue;
        }
        let mine = tools.resources(arch, &cpu).map_err(refused)?;
        if mine.is_empty() {
            return Err(refused(format!(
                "--cpus {cpu}: LLVM {LLVM_MAJOR} has no scheduling model for {cpu} ({arch}): it \
                 would price it with a generic machine, which kembench does not do"
            )));
        }
        let model = if owners(arch).contains(&cpu.as_str()) {
            cpu.clone()
        } else {
            let mut found = None;
            for owner in owners(arch) {
                if tools.resources(arch, owner).map_err(refused)? == mine {
                    found = Some(owner.to_string());
                    break;
                }
            }
            found.unwrap_or_else(|| {
                let prefix = mine[0].trim_end_matches(|c: char| c.is_ascii_uppercase());
                format!("model with resources {prefix}*")
            })
        };
        out.push(CpuModel {
            cpu,
            arch: arch.name().to_string(),
            model,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_list_is_read_from_llvms_help() {
        let help = "Available CPUs for this target:\n\n  a64fx           - Select the a64fx processor.\n  \
                    cortex-a76      - Select the cortex-a76 processor.\n\nAvailable features for this target:\n\n  \
                    neon - Enable NEON.\n";
        assert_eq!(cpu_list(help), ["a64fx", "cortex-a76"]);
        assert!(cpu_list("nothing").is_empty());
    }

    #[test]
    fn missing_tools_name_the_debian_package() {
        let empty = std::env::temp_dir().join(format!("kembench-no-llvm-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let e = Tools::find_in(std::slice::from_ref(&empty)).unwrap_err();
        assert!(
            e.contains("llvm-mca-19") && e.contains("Debian package: llvm-19"),
            "{e}"
        );
        let _ = std::fs::remove_dir(&empty);
    }

    /// LLVM's tools, or the test says they are missing (and fails where components are
    /// required, as in CI).
    pub(crate) fn tools(test: &str) -> Option<Tools> {
        match Tools::find() {
            Ok(t) => Some(t),
            Err(_) => {
                crate::missing::skip(
                    test,
                    "llvm-mca-19",
                    "apt-get install llvm-19; scripts/setup",
                );
                None
            }
        }
    }

    #[test]
    fn each_name_gets_the_model_llvm_really_prices_it_with_and_bad_names_are_refused() {
        let Some(t) = tools("cycles::resolve") else {
            return;
        };
        let asked = |a: &[Arch], names: &[&str]| {
            resolve(
                &t,
                a,
                &names.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
            )
        };
        let m = asked(&[Arch::Aarch64], &["cortex-a76", "neoverse-v2"]).unwrap();
        assert_eq!(
            m[0].model, "cortex-a57",
            "LLVM 19 gives the A76 the A57's model"
        );
        assert!(m[0].substituted());
        assert_eq!(m[1].model, "neoverse-v2");
        assert!(!m[1].substituted());
        let d = asked(&[Arch::S390x, Arch::Aarch64], &["default"]).unwrap();
        let names: Vec<&str> = d.iter().map(|m| m.cpu.as_str()).collect();
        assert_eq!(
            names,
            [
                "z15",
                "z16",
                "cortex-a55",
                "cortex-a76",
                "neoverse-n1",
                "neoverse-v2"
            ]
        );
        let e = asked(&[Arch::Aarch64], &["z16"]).unwrap_err().0;
        assert!(e.contains("a CPU of s390x") && e.contains("aarch64"), "{e}");
        let e = asked(&[Arch::Aarch64], &["neoverse-v3x"]).unwrap_err().0;
        assert!(
            e.contains("knows no CPU") && e.contains("did you mean"),
            "{e}"
        );
        let e = asked(&[Arch::S390x], &["generic"]).unwrap_err().0;
        assert!(e.contains("no scheduling model"), "{e}");
        let e = asked(&[Arch::S390x], &[""]).unwrap_err().0;
        assert!(e.contains("empty"), "{e}");
    }

    #[test]
    fn blocks_are_disassembled_and_priced_and_what_llvm_cannot_read_is_unpriced() {
        let Some(t) = tools("cycles::mca") else {
            return;
        };
        // aarch64: four dependent `add x1, x1, #1`; then a block with one undecodable word.
        let add = vec![0x21, 0x04, 0x00, 0x91];
        let chain = vec![add.clone(); 4];
        let bad = vec![add.clone(), vec![0xff, 0xff, 0xff, 0xff]];
        let texts = mca::disassemble(&t, Arch::Aarch64, &[chain, bad]).unwrap();
        assert_eq!(texts[0], vec![Some("add\tx1, x1, #1".to_string()); 4]);
        assert_eq!(texts[1][1], None, "0xffffffff is no instruction");
        let p = mca::price(&t, Arch::Aarch64, "neoverse-v2", &texts).unwrap();
        // A chain of four one-cycle adds: about four cycles an iteration.
        assert!((3.9..=4.2).contains(&p[0].cycles), "{:?}", p[0]);
        assert_eq!(p[0].priced, 4);
        assert_eq!(p[1].priced, 1);
        // s390x: a PC-relative call (which llvm-mca 19 crashes on) is priced as a register
        // call; `brasl %r14, .+0x88` then `lgr %r1, %r2`.
        let call = vec![0xc0, 0xe5, 0x00, 0x00, 0x00, 0x44];
        let lgr = vec![0xb9, 0x04, 0x00, 0x12];
        let texts = mca::disassemble(&t, Arch::S390x, &[vec![call, lgr]]).unwrap();
        assert_eq!(texts[0][0].as_deref(), Some("br\t%r1"), "{texts:?}");
        let p = mca::price(&t, Arch::S390x, "z16", &texts).unwrap();
        assert_eq!(p[0].priced, 2, "{p:?}");
        assert!(p[0].cycles > 0.0);
    }
}
