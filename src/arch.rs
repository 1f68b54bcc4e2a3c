//! The architectures kembench builds for: the host's own, and the foreign ones it compiles with
//! Debian's cross compilers and runs under QEMU's user-mode emulation (`qemu-<arch>`), where
//! its builds are proven correct and counted, never timed.

use std::fmt;
use std::path::PathBuf;

/// A Linux architecture kembench knows how to build for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Arch {
    /// x86-64.
    X86_64,
    /// 64-bit Arm (Graviton, Ampere, Apple).
    Aarch64,
    /// IBM Z (big-endian).
    S390x,
    /// POWER, little-endian.
    Ppc64le,
    /// 64-bit RISC-V.
    Riscv64,
}

/// Every architecture, in the order tables show them.
pub const ALL: [Arch; 5] = [
    Arch::X86_64,
    Arch::Aarch64,
    Arch::S390x,
    Arch::Ppc64le,
    Arch::Riscv64,
];

impl Arch {
    /// Its name as Rust and Debian's QEMU spell it (`s390x`, `aarch64`).
    pub fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::Aarch64 => "aarch64",
            Arch::S390x => "s390x",
            Arch::Ppc64le => "ppc64le",
            Arch::Riscv64 => "riscv64",
        }
    }

    /// The GNU triple of its Debian cross toolchain (`s390x-linux-gnu`).
    pub fn triple(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64-linux-gnu",
            Arch::Aarch64 => "aarch64-linux-gnu",
            Arch::S390x => "s390x-linux-gnu",
            Arch::Ppc64le => "powerpc64le-linux-gnu",
            Arch::Riscv64 => "riscv64-linux-gnu",
        }
    }

    /// The Debian package of its cross gcc (`gcc-s390x-linux-gnu`).
    pub fn gcc_package(self) -> String {
        format!("gcc-{}", self.triple())
    }

    /// The QEMU user-mode emulator that runs its binaries (`qemu-s390x`).
    pub fn qemu(self) -> &'static str {
        match self {
            Arch::X86_64 => "qemu-x86_64",
            Arch::Aarch64 => "qemu-aarch64",
            Arch::S390x => "qemu-s390x",
            Arch::Ppc64le => "qemu-ppc64le",
            Arch::Riscv64 => "qemu-riscv64",
        }
    }

    /// The byte order of its integers.
    pub fn big_endian(self) -> bool {
        self == Arch::S390x
    }

    /// The architecture kembench itself runs on.
    pub fn host() -> Arch {
        Arch::parse(std::env::consts::ARCH).unwrap_or(Arch::X86_64)
    }

    /// Whether it is another architecture than the host's.
    pub fn foreign(self) -> bool {
        self != Arch::host()
    }

    /// The foreign architecture a build runs on under emulation, from its record's `arch`
    /// (`None` for the host's own builds, which are timed).
    pub fn of(arch: Option<&str>) -> Option<Arch> {
        arch.and_then(|a| Arch::parse(a).ok())
    }

    /// What a label or build id gets for this architecture: nothing for the host's,
    /// `@s390x` for a foreign one.
    pub fn suffix(self) -> String {
        if self.foreign() {
            format!("@{self}")
        } else {
            String::new()
        }
    }

    /// Every name, for suggestions.
    pub fn names() -> Vec<String> {
        ALL.iter().map(|a| a.name().to_string()).collect()
    }

    /// Reads a name (`s390x`; `arm64` and `x86-64`, `amd64`, `ppc64el` as their usual aliases);
    /// an unknown one is refused by name (the command adds the nearest).
    pub fn parse(name: &str) -> Result<Arch, String> {
        let n = name.trim().to_ascii_lowercase();
        let alias = match n.as_str() {
            "arm64" => "aarch64",
            "x86-64" | "amd64" | "x64" => "x86_64",
            "ppc64el" => "ppc64le",
            other => other,
        };
        ALL.into_iter()
            .find(|a| a.name() == alias)
            .ok_or_else(|| format!("unknown architecture '{name}'"))
    }

    /// Reads a comma-separated list, in order, without repeats; an unknown name is the error,
    /// and so is an empty one (`--arch ''` names no architecture: it must not mean the host's).
    pub fn parse_list(values: &[String]) -> Result<Vec<Arch>, String> {
        let mut out = Vec::new();
        for v in values.iter().flat_map(|v| v.split(',')) {
            let a = Arch::parse(v).map_err(|_| v.trim().to_string())?;
            if !out.contains(&a) {
                out.push(a);
            }
        }
        Ok(out)
    }

    /// The emulator's path, or why there is none (naming the Debian package).
    pub fn emulator(self) -> Result<PathBuf, String> {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join(self.qemu()))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                format!(
                    "{} builds run under {}, which is not installed (Debian package: qemu-user; \
                     scripts/setup installs it)",
                    self.name(),
                    self.qemu()
                )
            })
    }
}

/// The flag set word `builds` reads as "this architecture's vector unit" (`-O3 -march=vector`):
/// replaced per architecture by [`Arch::vector_flags`].
pub const VECTOR_FLAG: &str = "-march=vector";

impl Arch {
    /// The compiler flags that let gcc and clang auto-vectorise for the architecture's vector
    /// unit, as `-march=vector` in a flag set stands for: x86-64-v3 (AVX2), Armv8.2-A with SVE
    /// (NEON is in every aarch64), z13 (the first IBM Z with the vector facility), POWER9
    /// (VSX 3.0). `Err` says why there is none (RISC-V: gcc 12 does not auto-vectorise for
    /// RVV, and QEMU 7.2's default rv64 CPU has no V extension).
    pub fn vector_flags(self) -> Result<&'static [&'static str], &'static str> {
        match self {
            Arch::X86_64 => Ok(&["-march=x86-64-v3"]),
            Arch::Aarch64 => Ok(&["-march=armv8.2-a+sve"]),
            Arch::S390x => Ok(&["-march=z13"]),
            Arch::Ppc64le => Ok(&["-mcpu=power9"]),
            Arch::Riscv64 => Err(
                "gcc 12 does not auto-vectorise for RISC-V's V extension, and QEMU 7.2's default \
                 rv64 CPU does not offer it",
            ),
        }
    }

    /// The vector (and crypto) capabilities set in a program's auxiliary vector (`AT_HWCAP`,
    /// `AT_HWCAP2`), by the Linux names of their bits on this architecture.
    pub fn capabilities(self, hwcap: u64, hwcap2: u64) -> Vec<&'static str> {
        let bits: &[(u32, u32, &str)] = match self {
            // arch/x86: AT_HWCAP holds CPUID(1).EDX; the vector units are not in it.
            Arch::X86_64 => &[(1, 25, "sse"), (1, 26, "sse2")],
            // arch/arm64/include/uapi/asm/hwcap.h
            Arch::Aarch64 => &[
                (1, 1, "asimd"),
                (1, 3, "aes"),
                (1, 4, "pmull"),
                (1, 6, "sha2"),
                (1, 17, "sha3"),
                (1, 21, "sha512"),
                (1, 22, "sve"),
                (2, 1, "sve2"),
            ],
            // arch/s390/include/asm/elf.h
            Arch::S390x => &[
                (1, 3, "msa"),
                (1, 11, "vxrs"),
                (1, 13, "vxrs_ext"),
                (1, 15, "vxrs_ext2"),
                (1, 16, "vxrs_pde"),
                (1, 19, "vxrs_pde2"),
                (1, 20, "nnpa"),
            ],
            // arch/powerpc/include/uapi/asm/cputable.h
            Arch::Ppc64le => &[
                (1, 28, "altivec"),
                (1, 7, "vsx"),
                (2, 31, "arch_2_07"),
                (2, 25, "vcrypto"),
                (2, 23, "arch_3_00"),
                (2, 18, "arch_3_1"),
            ],
            // arch/riscv: one bit per single-letter extension.
            Arch::Riscv64 => &[(1, 21, "v")],
        };
        bits.iter()
            .filter(|(word, bit, _)| (if *word == 1 { hwcap } else { hwcap2 }) >> bit & 1 == 1)
            .map(|(_, _, name)| *name)
            .collect()
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An implementation id read as `SOURCE@BUILD@ARCH` (a build for a foreign architecture),
/// `SOURCE@BUILD` (a build for the host) or `SOURCE` (a library as its crate ships it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildId<'a> {
    /// `pqclean/clean`, `liboqs/generic`, `liboqs`.
    pub source: &'a str,
    /// `gcc-12:O3`; empty for a library.
    pub build: &'a str,
    /// The architecture a foreign build's id names; `None` for the host's.
    pub arch: Option<Arch>,
    /// The id without its architecture (`pqclean/clean@gcc-12:O3@s390x` →
    /// `pqclean/clean@gcc-12:O3`); any other id as it is.
    pub arch_less: &'a str,
}

impl<'a> BuildId<'a> {
    /// Splits `id`; an id of three parts whose last is no architecture is read whole as a source.
    pub fn parse(id: &'a str) -> BuildId<'a> {
        let whole = BuildId {
            source: id,
            build: "",
            arch: None,
            arch_less: id,
        };
        let parts: Vec<&str> = id.split('@').collect();
        match parts.as_slice() {
            [s, b, a] => Arch::parse(a).map_or(whole, |arch| BuildId {
                source: s,
                build: b,
                arch: Some(arch),
                arch_less: &id[..s.len() + 1 + b.len()],
            }),
            [s, b] => BuildId {
                source: s,
                build: b,
                arch: None,
                arch_less: id,
            },
            _ => whole,
        }
    }

    /// Whether `id` is a build of a source tree (`builds --source`): its source carries a
    /// version (`liboqs-0.16.0+g1a2b3c4/auto@gcc-12:O3`), unlike the copy kembench carries; or
    /// another release of a linked library ([`RELEASES`]), unlike the one kembench links.
    pub fn of_tree(id: &str) -> bool {
        BuildId::version_less(id) != id
    }

    /// The id without the version of a source tree (`builds --source`): the first part of
    /// the source cut at its `+` (the commit or digest) and then at its `-` (the declared
    /// version), so `liboqs-0.16.0+g1a2b3c4/auto@gcc-12:O3` and `liboqs/auto@gcc-12:O3` are
    /// both `liboqs/auto@gcc-12:O3`: the same variant, compiler and flags of two versions.
    /// An id whose source has no `+` is returned as it is.
    ///
    /// A linked implementation that is another release of a library kembench links ([`RELEASES`]:
    /// `openssl4`, OpenSSL 4.0.3 beside the linked 3.6) loses its version the same way:
    /// `openssl4` is `openssl`.
    pub fn version_less(id: &str) -> String {
        let (first, rest) = id.split_at(id.find(['/', '@']).unwrap_or(id.len()));
        if let Some((_, library)) = RELEASES.iter().find(|(r, _)| *r == first) {
            return format!("{library}{rest}");
        }
        match first.split_once('+') {
            Some((tagged, _)) => {
                let kind = tagged.split_once('-').map_or(tagged, |(k, _)| k);
                format!("{kind}{rest}")
            }
            None => id.to_string(),
        }
    }
}

/// Linked implementations that are another release of the library of another linked
/// implementation: (its id, that implementation's id). The other is the older, kembench's own.
pub const RELEASES: &[(&str, &str)] = &[("openssl4", "openssl")];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_release_of_a_linked_library_is_that_library_without_its_version() {
        assert_eq!(BuildId::version_less("openssl4"), "openssl");
        assert!(BuildId::of_tree("openssl4"));
        assert!(!BuildId::of_tree("openssl"));
        // Only the whole first part: a provider whose name merely starts alike is itself.
        assert_eq!(BuildId::version_less("openssl45/x"), "openssl45/x");
    }

    #[test]
    fn a_source_trees_version_is_taken_off_its_id() {
        for (id, want) in [
            (
                "liboqs-0.16.0+g1a2b3c4/auto@gcc-12:O3",
                "liboqs/auto@gcc-12:O3",
            ),
            (
                "liboqs-0.13.1-rc1+g1a2b3c4.5e6f7a8b/generic@gcc-12:O2@s390x",
                "liboqs/generic@gcc-12:O2@s390x",
            ),
            (
                "pqclean+5e6f7a8b/clean@clang-14:O3",
                "pqclean/clean@clang-14:O3",
            ),
            ("liboqs/auto@gcc-12:O3", "liboqs/auto@gcc-12:O3"),
            ("local/my-kem@gcc-12:O2", "local/my-kem@gcc-12:O2"),
            ("liboqs", "liboqs"),
        ] {
            assert_eq!(BuildId::version_less(id), want, "{id}");
        }
    }

    #[test]
    fn build_ids_split_into_source_build_and_architecture() {
        let f = BuildId::parse("pqclean/clean@gcc-12:O3@s390x");
        assert_eq!(
            (f.source, f.build, f.arch, f.arch_less),
            (
                "pqclean/clean",
                "gcc-12:O3",
                Some(Arch::S390x),
                "pqclean/clean@gcc-12:O3"
            )
        );
        let h = BuildId::parse("pqclean/clean@gcc-12:O3");
        assert_eq!(
            (h.source, h.build, h.arch, h.arch_less),
            (
                "pqclean/clean",
                "gcc-12:O3",
                None,
                "pqclean/clean@gcc-12:O3"
            )
        );
        let l = BuildId::parse("liboqs");
        assert_eq!((l.source, l.build, l.arch), ("liboqs", "", None));
        // A third part that is no architecture: the whole id is the source.
        let odd = BuildId::parse("a@b@c");
        assert_eq!(
            (odd.source, odd.build, odd.arch, odd.arch_less),
            ("a@b@c", "", None, "a@b@c")
        );
    }

    #[test]
    fn capabilities_are_named_by_the_linux_bits_of_each_architecture() {
        // s390x: vector facility (bit 11), its enhancements 1 (13) and 2 (15), MSA (3).
        let s390x = Arch::S390x.capabilities(1 << 3 | 1 << 11 | 1 << 13 | 1 << 15, 0);
        assert_eq!(s390x, ["msa", "vxrs", "vxrs_ext", "vxrs_ext2"]);
        assert!(Arch::S390x.capabilities(1 << 3, 0) == ["msa"]);
        // aarch64: ASIMD (1) and SVE (22) in AT_HWCAP, SVE2 (1) in AT_HWCAP2.
        assert_eq!(
            Arch::Aarch64.capabilities(1 << 1 | 1 << 22, 1 << 1),
            ["asimd", "sve", "sve2"]
        );
        assert_eq!(Arch::Riscv64.capabilities(1 << 21, 0), ["v"]);
        assert!(Arch::Ppc64le.capabilities(0, 0).is_empty());
    }

    #[test]
    fn every_architecture_but_riscv_has_vector_flags() {
        assert_eq!(Arch::S390x.vector_flags().unwrap(), ["-march=z13"]);
        assert!(Arch::Riscv64.vector_flags().unwrap_err().contains("gcc 12"));
    }

    #[test]
    fn names_and_aliases_read_back() {
        for a in ALL {
            assert_eq!(Arch::parse(a.name()), Ok(a));
        }
        assert_eq!(Arch::parse("arm64"), Ok(Arch::Aarch64));
        assert_eq!(Arch::parse("AMD64"), Ok(Arch::X86_64));
        assert_eq!(
            Arch::parse_list(&["s390x,aarch64".into(), "s390x".into()]),
            Ok(vec![Arch::S390x, Arch::Aarch64])
        );
        assert_eq!(
            Arch::parse_list(&["s390x, mips".into()]),
            Err("mips".into())
        );
        assert_eq!(Arch::parse_list(&["".into()]), Err("".into()));
        assert_eq!(Arch::parse_list(&["s390x,".into()]), Err("".into()));
        assert!(Arch::S390x.big_endian() && !Arch::Aarch64.big_endian());
        assert_eq!(Arch::S390x.gcc_package(), "gcc-s390x-linux-gnu");
    }

    #[test]
    fn an_unknown_name_is_refused_by_name() {
        assert_eq!(
            Arch::parse("mips"),
            Err("unknown architecture 'mips'".into())
        );
        assert_eq!(Arch::of(Some("s390x")), Some(Arch::S390x));
        assert_eq!(Arch::of(None), None);
    }
}
