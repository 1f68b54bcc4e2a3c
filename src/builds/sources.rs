//! The C sources kembench can compile at run time, as the crates the kembench build fetched into
//! the cargo registry ship them (nothing is downloaded):
//!
//! - PQClean's implementations in `pqcrypto-mlkem` and `pqcrypto-ntru`: one [`Source`] per
//!   (algorithm, variant) directory, `clean` (portable C), `avx2`, and FrodoKEM's `opt`
//!   (portable, optimised), compiled file by file into one shared object;
//! - liboqs 0.13 in `oqs-sys`, configured with CMake for one algorithm
//!   (`OQS_MINIMAL_BUILD`) with run-time dispatch off: `liboqs/generic`
//!   (`OQS_OPT_TARGET=generic`, portable C) and `liboqs/auto` (`OQS_OPT_TARGET=auto`: this CPU's
//!   extensions, AVX2 code compiled in).

use crate::arch::Arch;
use crate::providers::built::{Symbols, LIBOQS_SET_HOOK_SYMBOL, SET_HOOK_SYMBOL};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Catalog algorithm, source crate, and the scheme's directory under `pqclean/crypto_kem/`.
const TABLE: &[(&str, Crate, &str)] = &[
    ("ML-KEM-512", Crate::Mlkem, "ml-kem-512"),
    ("ML-KEM-768", Crate::Mlkem, "ml-kem-768"),
    ("ML-KEM-1024", Crate::Mlkem, "ml-kem-1024"),
    ("Kyber512", Crate::Ntru, "kyber512"),
    ("Kyber768", Crate::Ntru, "kyber768"),
    ("Kyber1024", Crate::Ntru, "kyber1024"),
    ("ntruhps2048509", Crate::Ntru, "ntruhps2048509"),
    ("ntruhps2048677", Crate::Ntru, "ntruhps2048677"),
    ("ntruhps4096821", Crate::Ntru, "ntruhps4096821"),
    ("ntruhps40961229", Crate::Ntru, "ntruhps40961229"),
    ("ntruhrss701", Crate::Ntru, "ntruhrss701"),
    ("ntruhrss1373", Crate::Ntru, "ntruhrss1373"),
    ("sntrup761", Crate::Ntru, "sntrup761"),
    ("FrodoKEM-640-AES", Crate::Ntru, "frodokem640aes"),
    ("FrodoKEM-640-SHAKE", Crate::Ntru, "frodokem640shake"),
    ("FrodoKEM-976-AES", Crate::Ntru, "frodokem976aes"),
    ("FrodoKEM-976-SHAKE", Crate::Ntru, "frodokem976shake"),
    ("FrodoKEM-1344-AES", Crate::Ntru, "frodokem1344aes"),
    ("FrodoKEM-1344-SHAKE", Crate::Ntru, "frodokem1344shake"),
];

/// The carried copy's builds: catalog algorithm, liboqs's algorithm id
/// (`OQS_MINIMAL_BUILD=KEM_<id>`, symbols `OQS_KEM_<id>_*`) and its family directory under
/// `src/kem/`. Its HQC, BIKE, Kyber and Classic McEliece are measured through oqs-sys's own
/// build (implementation `liboqs`); a tree's are built from it, every KEM it declares
/// ([`super::liboqs_kems`]).
const LIBOQS: &[(&str, &str, &str)] = &[
    ("ML-KEM-512", "ml_kem_512", "ml_kem"),
    ("ML-KEM-768", "ml_kem_768", "ml_kem"),
    ("ML-KEM-1024", "ml_kem_1024", "ml_kem"),
    ("sntrup761", "ntruprime_sntrup761", "ntruprime"),
    ("FrodoKEM-640-AES", "frodokem_640_aes", "frodokem"),
    ("FrodoKEM-640-SHAKE", "frodokem_640_shake", "frodokem"),
    ("FrodoKEM-976-AES", "frodokem_976_aes", "frodokem"),
    ("FrodoKEM-976-SHAKE", "frodokem_976_shake", "frodokem"),
    ("FrodoKEM-1344-AES", "frodokem_1344_aes", "frodokem"),
    ("FrodoKEM-1344-SHAKE", "frodokem_1344_shake", "frodokem"),
];

/// The catalog algorithm of PQClean's scheme directory `scheme` among those kembench carries
/// (`ml-kem-768`: `ML-KEM-768`).
pub(super) fn pqclean_table_algorithm(scheme: &str) -> Option<&'static str> {
    TABLE.iter().find(|t| t.2 == scheme).map(|t| t.0)
}

/// The crates that carry C sources.
#[derive(Debug, Clone, Copy)]
enum Crate {
    Mlkem,
    Ntru,
    OqsSys,
}

impl Crate {
    fn name(self) -> &'static str {
        match self {
            Crate::Mlkem => "pqcrypto-mlkem",
            Crate::Ntru => "pqcrypto-ntru",
            Crate::OqsSys => "oqs-sys",
        }
    }

    /// Where the kembench build found the crate (see `build.rs`), if it did; an environment
    /// variable of the same name at run time (`KEMBENCH_SRC_PQCRYPTO_MLKEM`, ...) names another
    /// copy (a registry moved since the build).
    fn dir(self) -> Option<PathBuf> {
        let (var, built) = match self {
            Crate::Mlkem => (
                "KEMBENCH_SRC_PQCRYPTO_MLKEM",
                env!("KEMBENCH_SRC_PQCRYPTO_MLKEM"),
            ),
            Crate::Ntru => (
                "KEMBENCH_SRC_PQCRYPTO_NTRU",
                env!("KEMBENCH_SRC_PQCRYPTO_NTRU"),
            ),
            Crate::OqsSys => ("KEMBENCH_SRC_OQS_SYS", env!("KEMBENCH_SRC_OQS_SYS")),
        };
        if let Some(d) = std::env::var_os(var) {
            return Some(PathBuf::from(d));
        }
        (built != "absent").then(|| PathBuf::from(built))
    }

    fn version(self) -> &'static str {
        match self {
            Crate::Mlkem => env!("KEMBENCH_DEP_PQCRYPTO_MLKEM"),
            Crate::Ntru => env!("KEMBENCH_DEP_PQCRYPTO_NTRU"),
            Crate::OqsSys => env!("KEMBENCH_DEP_OQS_SYS"),
        }
    }
}

/// How a source is turned into a shared object.
#[derive(Debug, Clone)]
pub enum Recipe {
    /// One compiler run over these files, with these `-I` directories.
    Files {
        /// Files handed to the compiler (C and assembly), kembench's `randombytes` added.
        compile: Vec<PathBuf>,
        /// `-I` directories.
        includes: Vec<PathBuf>,
        /// C compiled beside them that calls the API through `api.h` and exports its sizes
        /// (packages added with `kembench add`).
        shim: Option<String>,
    },
    /// An OpenSSL tree's own build (`Configure`, `make`), shared by every algorithm of one
    /// compiler and flag set, and OpenSSL's KEM adapter linked against it (a library of
    /// `openssl_kem::abi`).
    Openssl {
        /// The OpenSSL source tree.
        root: PathBuf,
        /// The tree's content digest (the cache key's share of it).
        digest: String,
        /// The version it declares (`3.6.3`), which the built library must report.
        declared: String,
    },
    /// liboqs's CMake build of one algorithm.
    Liboqs(LiboqsBuild),
}

/// How liboqs's CMake builds one algorithm.
#[derive(Debug, Clone)]
pub struct LiboqsBuild {
    /// The liboqs source tree.
    pub root: PathBuf,
    /// `OQS_MINIMAL_BUILD`.
    pub minimal: String,
    /// `OQS_OPT_TARGET`: `generic` or `auto`.
    pub opt_target: &'static str,
    /// The family switch the tree leaves off by default (liboqs 0.13's
    /// `OQS_ENABLE_KEM_HQC`), passed as `ON`: the user asked for the algorithm.
    pub switch_on: Option<String>,
}

/// Flags PQClean's AVX2 code needs (as the crates' build scripts give them).
const AVX2_FLAGS: &[&str] = &["-mavx2", "-mbmi2", "-mbmi", "-maes", "-mpopcnt", "-mpclmul"];

/// One compilable implementation: files, include directories, the flags it needs, its API.
#[derive(Debug, Clone)]
pub struct Source {
    /// `pqclean/clean`, `pqclean/avx2`, `pqclean/opt`.
    pub id: String,
    /// The catalog algorithm.
    pub algorithm: &'static str,
    /// "PQClean via pqcrypto-mlkem 0.1.1".
    pub version: String,
    /// How it is built.
    pub recipe: Recipe,
    /// Every file whose content goes into the cache key (sources and headers).
    pub hashed: Vec<PathBuf>,
    /// Flags the code itself needs (PQClean's AVX2: after the user's flag set) or that its build
    /// adds (liboqs: before the user's flag set, which has the last word).
    pub required_flags: Vec<String>,
    /// Whether the user's flags come after `required_flags` (liboqs) rather than before.
    pub flags_last: bool,
    /// The functions it exports.
    pub symbols: Symbols,
    /// `nistkat-sha256` of the scheme's `META.yml`, and where it comes from.
    pub kat_sha256: Option<(String, String)>,
    /// For a package added with `kembench add`: what the user said about it.
    pub package: Option<Package>,
    /// The architecture it is built for: the host's, or a foreign one (cross-compiled into a
    /// static driver program run under QEMU).
    pub arch: Arch,
}

/// What `kembench add` knows about a package besides its files.
#[derive(Debug, Clone)]
pub struct Package {
    /// Its NIST KAT response file, if it ships one.
    pub kat_file: Option<PathBuf>,
    /// Whether `algorithm` is a catalog algorithm it claims to implement (`--implements`), whose
    /// sizes it must then have; else a scheme of its own, described by its `api.h`.
    pub implements: bool,
    /// Its claimed NIST level.
    pub level: Option<u8>,
    /// Whether it claims IND-CCA with implicit rejection.
    pub implicit_rejection: bool,
}

impl Source {
    /// Why this source cannot be built with `flags`, if it cannot. liboqs's aarch64 dist build
    /// (`liboqs/auto`) compiles its backends each with a `-march=` of its own (AES and SHA-3
    /// intrinsics: `+crypto`, `+sha3`); on aarch64 a `-march=` or `-mcpu=` names the whole
    /// architecture and the last one wins, so the user's, which comes last, would take those
    /// extensions away and the compile fails (`inlining failed ... target specific option
    /// mismatch`). On x86-64 a `-march=` leaves liboqs's `-maes`/`-mavx2` in force.
    pub fn refuses(&self, flags: &[String]) -> Option<String> {
        let dist = matches!(
            &self.recipe,
            Recipe::Liboqs(LiboqsBuild {
                opt_target: "auto",
                ..
            })
        );
        let march = flags
            .iter()
            .find(|w| w.starts_with("-march=") || w.starts_with("-mcpu="));
        match march {
            Some(m) if dist && self.arch == Arch::Aarch64 => Some(format!(
                "{m} for liboqs/auto on aarch64: liboqs's dist build gives each backend a                  -march= of its own (AES, SHA-3 intrinsics), which a whole-architecture {m}                  would replace; liboqs/generic takes any flag set"
            )),
            _ => None,
        }
    }

    /// SHA-256 over every hashed file's name (relative to its directory) and content.
    pub fn sha256(&self) -> std::io::Result<String> {
        let mut h = Sha256::new();
        for f in &self.hashed {
            let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
            h.update(name.unwrap_or_default().as_bytes());
            h.update([0]);
            let bytes = std::fs::read(f)?;
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(&bytes);
        }
        Ok(hex::encode(h.finalize()))
    }
}

/// A source that cannot be offered here, with the reason.
#[derive(Debug, Clone)]
pub struct Missing {
    /// `algorithm@source id`.
    pub label: String,
    /// Why.
    pub reason: String,
    /// Whether its files are there but cannot be read (a permission, a broken registry), as
    /// opposed to code this machine cannot run or a crate the build did not find.
    pub unreadable: bool,
    /// Whether it is said only when asked for by name: code for another architecture than a
    /// foreign one asked for (AVX2 on s390x, liboqs's `auto` where liboqs has no code of its
    /// own), which every foreign request would list otherwise.
    pub quiet: bool,
}

/// Every source kembench carries for the host, and those it cannot offer on this machine.
pub fn all() -> (Vec<Source>, Vec<Missing>) {
    all_for(&[Arch::host()])
}

/// Every source kembench carries for each of `archs`, and those it cannot offer.
pub fn all_for(archs: &[Arch]) -> (Vec<Source>, Vec<Missing>) {
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    for &arch in archs {
        let (f, m) = one_arch(arch);
        found.extend(f);
        missing.extend(m);
    }
    (found, missing)
}

/// `label` for `arch`: as it is for the host, `@arch` added for a foreign one.
fn on(label: String, arch: Arch) -> String {
    label + &arch.suffix()
}

fn one_arch(arch: Arch) -> (Vec<Source>, Vec<Missing>) {
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    for &(alg, krate, scheme) in TABLE {
        let Some(root) = krate.dir() else {
            missing.push(Missing {
                label: format!("{alg}@pqclean"),
                reason: format!(
                    "the kembench build found no {} sources in the cargo registry",
                    krate.name()
                ),
                unreadable: false,
                quiet: false,
            });
            continue;
        };
        let version = format!("PQClean via {} {}", krate.name(), krate.version());
        let (f, m) = pqclean_scheme(alg, &root.join("pqclean"), scheme, arch, None, &version);
        found.extend(f);
        missing.extend(m);
    }
    match Crate::OqsSys.dir() {
        None => missing.push(Missing {
            label: "liboqs".into(),
            reason: "the kembench build found no oqs-sys sources in the cargo registry".into(),
            unreadable: false,
            quiet: false,
        }),
        Some(dir) => {
            let (f, m) = liboqs_tree(&dir.join("liboqs"), arch, None);
            found.extend(f);
            missing.extend(m);
        }
    }
    (found, missing)
}

/// The variants (`clean`, `avx2`, ...) of PQClean's scheme `scheme` (its directory under
/// `crypto_kem/` of the PQClean tree `pqclean`) for `arch`, as catalog algorithm `alg`: the
/// carried copy's (`origin` `None`: ids `pqclean/VARIANT`) or a tree the user named.
pub(super) fn pqclean_scheme(
    alg: &'static str,
    pqclean: &Path,
    scheme: &str,
    arch: Arch,
    origin: Option<&Origin>,
    version: &str,
) -> (Vec<Source>, Vec<Missing>) {
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    let prefix = origin.map_or("pqclean", |o| o.prefix.as_str());
    let scheme_dir = pqclean.join("crypto_kem").join(scheme);
    let entries = match std::fs::read_dir(&scheme_dir) {
        Ok(entries) => entries,
        Err(e) => {
            missing.push(Missing {
                label: format!("{alg}@{prefix}"),
                reason: format!("{} cannot be read: {e}", scheme_dir.display()),
                unreadable: true,
                quiet: false,
            });
            return (found, missing);
        }
    };
    let mut variants: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    variants.sort();
    for v in variants {
        let id = format!("{prefix}/{v}");
        let arch_ok = match v.as_str() {
            "avx2" => arch == Arch::X86_64,
            "aarch64" => arch == Arch::Aarch64,
            _ => true,
        };
        if !arch_ok {
            missing.push(Missing {
                label: on(format!("{alg}@{id}"), arch),
                reason: format!("{v} code does not run on {arch}"),
                unreadable: false,
                quiet: arch.foreign(),
            });
            continue;
        }
        match source(alg, version, pqclean, &scheme_dir, &v) {
            Ok(mut s) => {
                s.arch = arch;
                s.id = id;
                if let Some(o) = origin {
                    s.version = o.version.clone();
                }
                found.push(s)
            }
            Err(reason) => missing.push(Missing {
                label: on(format!("{alg}@{id}"), arch),
                reason,
                unreadable: false,
                quiet: false,
            }),
        }
    }
    (found, missing)
}

/// Where a source tree the user named (`builds --source`) came from: what its sources are
/// called and what their records say, instead of the carried copy's.
#[derive(Debug, Clone)]
pub struct Origin {
    /// The id before `/variant`: `liboqs-0.13.0+g1a2b3c4`.
    pub prefix: String,
    /// What a record says of its version: the tree's declared version, path and revision.
    pub version: String,
    /// Known-answer digests the tree ships, by catalog name (liboqs's
    /// `tests/KATs/kem/kats.json` "single"; PQClean's `META.yml` `nistkat-sha256`), and where
    /// they come from.
    pub kats: BTreeMap<String, (String, String)>,
}

/// A KEM of a liboqs tree that kembench builds: the catalog algorithm, liboqs's id, its
/// family folder under `src/kem/`, liboqs's name (its known answers are filed under it), and
/// how a record names it when liboqs calls it otherwise.
struct TreeKem {
    alg: &'static str,
    id: String,
    family: String,
    liboqs_name: String,
    renamed: Option<String>,
}

/// The liboqs sources of the liboqs tree at `root` (its `CMakeLists.txt` there) for `arch`:
/// kembench's carried copy (`origin` `None`: ids `liboqs/generic`, `liboqs/auto`; the
/// algorithms of [`LIBOQS`]) or a tree the user named (every KEM its own files declare that is
/// one of the catalog's algorithms by its sizes and name: [`super::liboqs_kems`]).
pub(super) fn liboqs_tree(
    root: &Path,
    arch: Arch,
    origin: Option<&Origin>,
) -> (Vec<Source>, Vec<Missing>) {
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    let prefix = origin.map_or("liboqs", |o| o.prefix.as_str());
    if let Err(e) = std::fs::File::open(root.join("CMakeLists.txt")) {
        for &(alg, _, _) in LIBOQS {
            missing.push(Missing {
                label: format!("{alg}@{prefix}"),
                reason: format!("{} cannot be read: {e}", root.display()),
                unreadable: true,
                quiet: false,
            });
        }
        return (found, missing);
    }
    // The carried copy: the algorithms kembench has always built from it. A tree: every
    // KEM it declares that is one of the catalog's by its sizes and name.
    let kems: Vec<TreeKem> = match origin {
        None => LIBOQS
            .iter()
            .map(|&(alg, id, family)| TreeKem {
                alg,
                id: id.into(),
                family: family.into(),
                liboqs_name: alg.into(),
                renamed: None,
            })
            .collect(),
        Some(_) => super::liboqs_kems::declared(root)
            .into_iter()
            .filter_map(|k| {
                let a = super::liboqs_kems::built_as(&k).ok()?;
                Some(TreeKem {
                    alg: a.name,
                    renamed: super::liboqs_kems::renamed(&k, a),
                    family: k.family?,
                    id: k.id,
                    liboqs_name: k.name,
                })
            })
            .collect(),
    };
    for TreeKem {
        alg,
        id,
        family,
        liboqs_name,
        renamed,
    } in kems
    {
        for target in ["generic", "auto"] {
            // liboqs's own code for an architecture: AVX2 on x86-64 (`auto`:
            // `-march=native`), NEON on aarch64 (a dist build, which compiles it in);
            // for the others it has none.
            if target == "auto" && arch.foreign() && arch != Arch::Aarch64 {
                missing.push(Missing {
                    label: on(format!("{alg}@{prefix}/auto"), arch),
                    reason: format!(
                        "liboqs has no code of its own for {arch}: {prefix}/generic is its \
                         build there"
                    ),
                    unreadable: false,
                    quiet: true,
                });
                continue;
            }
            let mut s = liboqs(alg, &id, &family, root, target);
            if let Some(o) = origin {
                s.id = format!("{}/{target}", o.prefix);
                s.version = o.version.clone();
                if let Some(r) = &renamed {
                    s.version.push_str(&format!("; {r}"));
                }
                if let Recipe::Liboqs(LiboqsBuild {
                    switch_on: Some(on),
                    ..
                }) = &s.recipe
                {
                    s.version.push_str(&format!(
                        "; this tree leaves {on} off by default, switched on for this build"
                    ));
                }
                // The tree's known answers are filed under liboqs's name.
                s.kat_sha256 = o.kats.get(&liboqs_name).cloned();
            }
            if arch.foreign() {
                s.arch = arch;
                // A cross build: no -march=native (the dist build picks the backend).
                s.required_flags.retain(|f| f != "-march=native");
            }
            found.push(s);
        }
    }
    (found, missing)
}

/// The builds of the OpenSSL tree at `root` (its content `digest`, its `declared` version) for `arch`: one per algorithm of OpenSSL's adapter
/// (`openssl_kem`), all from one build of the tree per compiler and flags; none for another
/// architecture.
pub(super) fn openssl_tree(
    root: &Path,
    digest: &str,
    declared: &str,
    origin: &Origin,
    arch: Arch,
) -> (Vec<Source>, Vec<Missing>) {
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    let prefix = &origin.prefix;
    for spec in crate::openssl_kem::specs() {
        let label = on(format!("{}@{prefix}/evp", spec.algorithm), arch);
        if arch.foreign() {
            missing.push(Missing {
                label,
                reason: format!(
                    "an OpenSSL tree is built for this machine only: cross-building OpenSSL and \
                     its KEM library for {arch} is not there yet"
                ),
                unreadable: false,
                quiet: false,
            });
            continue;
        }
        let export = |name: &str| format!("kembench_kem_{name}");
        found.push(Source {
            id: format!("{prefix}/evp"),
            algorithm: spec.algorithm,
            version: origin.version.clone(),
            recipe: Recipe::Openssl {
                root: root.to_path_buf(),
                digest: digest.to_string(),
                declared: declared.to_string(),
            },
            hashed: vec![root.join("VERSION.dat")],
            required_flags: Vec::new(),
            // The user's flags after Configure's own (its `-O3`): the flag set has the last word.
            flags_last: true,
            symbols: Symbols {
                keypair: crate::openssl_kem::abi::KEYPAIR.to_string(),
                enc: export("encaps"),
                dec: export("decaps"),
                keypair_derand: spec.seed_lens.keypair.map(|_| export("keypair_derand")),
                enc_derand: spec.seed_lens.encaps.map(|_| export("encaps_derand")),
                set_random: export("init"),
            },
            kat_sha256: None,
            package: None,
            arch,
        });
    }
    (found, missing)
}

/// Files under `dir`, recursively, sorted.
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn liboqs(
    alg: &'static str,
    id: &str,
    family: &str,
    root: &Path,
    opt_target: &'static str,
) -> Source {
    let mut hashed = vec![root.join("CMakeLists.txt")];
    hashed.extend(tree(&root.join(".CMake")));
    hashed.extend(tree(&root.join("src").join("common")));
    hashed.push(root.join("src").join("kem").join("kem.c"));
    hashed.extend(tree(&root.join("src").join("kem").join(family)));
    let prefix = format!("OQS_KEM_{id}_");
    let ml_kem = id.starts_with("ml_kem");
    Source {
        id: format!("liboqs/{opt_target}"),
        algorithm: alg,
        version: format!(
            "liboqs via {} {}",
            Crate::OqsSys.name(),
            Crate::OqsSys.version()
        ),
        recipe: Recipe::Liboqs(LiboqsBuild {
            root: root.to_path_buf(),
            minimal: liboqs_minimal(id, family),
            opt_target,
            switch_on: super::liboqs_kems::off_by_default(root, family),
        }),
        hashed,
        // What liboqs's compiler_opts.cmake adds for gcc and clang.
        required_flags: if opt_target == "auto" {
            vec![
                "-O3".into(),
                "-fomit-frame-pointer".into(),
                "-march=native".into(),
            ]
        } else {
            vec!["-O3".into(), "-fomit-frame-pointer".into()]
        },
        flags_last: true,
        symbols: Symbols {
            keypair: format!("{prefix}keypair"),
            enc: format!("{prefix}encaps"),
            dec: format!("{prefix}decaps"),
            keypair_derand: ml_kem.then(|| format!("{prefix}keypair_derand")),
            enc_derand: None,
            set_random: LIBOQS_SET_HOOK_SYMBOL.into(),
        },
        kat_sha256: None,
        package: None,
        arch: Arch::host(),
    }
}

/// liboqs's `OQS_MINIMAL_BUILD` for `id` of the family folder `family`. liboqs switches a
/// family on (`OQS_ENABLE_KEM_FRODOKEM`, which compiles its folder) only when the upper-cased
/// id starts with the family's name; `efrodokem_640_aes` does not, and liboqs 0.16's minimal
/// build of it then leaves `OQS_KEM_efrodokem_640_aes_new` undefined. The family is named too
/// in that case (`KEM_efrodokem_640_aes;KEM_FRODOKEM`); otherwise the id alone, as before.
fn liboqs_minimal(id: &str, family: &str) -> String {
    let family = family.to_ascii_uppercase();
    if id.to_ascii_uppercase().starts_with(&family) {
        format!("KEM_{id}")
    } else {
        format!("KEM_{id};KEM_{family}")
    }
}

/// The files directly in `dir` with one of `exts` (every file when `exts` is empty), sorted.
pub(super) fn files_in(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .filter(|p| {
                    let ext = p.extension().map(|e| e.to_string_lossy().into_owned());
                    exts.is_empty() || ext.is_some_and(|e| exts.contains(&e.as_str()))
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The quoted includes of `files` (`#include "..."`, however the directive is spaced).
fn quoted_includes(files: &[PathBuf]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for name in super::c_text::read(&text).quoted_includes() {
            if !v.contains(&name) {
                v.push(name);
            }
        }
    }
    v
}

/// The NIST API's symbol prefix, read off `api.h` as C reads it: the function declared as
/// `<prefix>crypto_kem_keypair (`, whatever whitespace or comments lie between the name and
/// its parenthesis (PQClean's Classic McEliece puts it on the next line).
pub fn api_prefix(api_h: &str) -> Option<String> {
    super::c_text::read(api_h).function_prefix("crypto_kem_keypair")
}

/// PQClean's common code that a scheme's or package's files use.
#[derive(Debug, Default)]
pub(super) struct Common {
    /// Common headers and C files, for the cache key.
    pub hashed: Vec<PathBuf>,
    /// Common C files to compile (PQClean's `randombytes.c` never: kembench's is used).
    pub compile: Vec<PathBuf>,
    /// `-I` directories: `common` and any of its subdirectories (`keccak4x`) a header came from.
    pub includes: Vec<PathBuf>,
}

/// Every header of PQClean's `common` directory (and its subdirectories, such as `keccak4x`)
/// that `files` include, directly or through another common header, and the C files beside
/// them. Names in `shipped` (the package's own files) are the package's, not common code.
/// Nothing is chosen by a list of names: whatever PQClean keeps in `common` is supplied
/// (`compat.h`, `crypto_declassify.h`, `fips202.h`, ...).
pub(super) fn common_code(common: &Path, files: &[PathBuf], shipped: &[String]) -> Common {
    let mut subdirs: Vec<PathBuf> = std::fs::read_dir(common)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    subdirs.sort();
    let mut found = Common::default();
    let mut wanted = quoted_includes(files);
    let mut i = 0;
    while i < wanted.len() {
        let name = wanted[i].clone();
        i += 1;
        // Only a plain relative name can be a common header: an absolute one
        // (`"/src/kem.c"`) or one that climbs (`"../x.h"`) names a file of the package's own,
        // which `Path::join` would otherwise take for common code and compile on its own.
        let plain = Path::new(&name)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if shipped.contains(&name) || !plain {
            continue;
        }
        for d in std::iter::once(common.to_path_buf()).chain(subdirs.iter().cloned()) {
            let h = d.join(&name);
            if !h.is_file() || found.hashed.contains(&h) {
                continue;
            }
            found.hashed.push(h.clone());
            for n in quoted_includes(std::slice::from_ref(&h)) {
                if !wanted.contains(&n) {
                    wanted.push(n);
                }
            }
            if !found.includes.contains(&d) {
                found.includes.push(d.clone());
            }
            if name == "randombytes.h" {
                continue;
            }
            let cs = if d == common {
                vec![h.with_extension("c")]
            } else {
                files_in(&d, &["c"])
            };
            for c in cs {
                if !c.is_file() || found.compile.contains(&c) {
                    continue;
                }
                // What the common C file itself includes is needed too (`nistseedexpander.c`
                // uses `aes.h` and `aes.c`).
                for n in quoted_includes(std::slice::from_ref(&c)) {
                    if !wanted.contains(&n) {
                        wanted.push(n);
                    }
                }
                found.hashed.push(c.clone());
                found.compile.push(c);
            }
        }
    }
    found
}

fn source(
    alg: &'static str,
    version: &str,
    pqclean: &Path,
    scheme_dir: &Path,
    variant: &str,
) -> Result<Source, String> {
    let dir = scheme_dir.join(variant);
    let api = std::fs::read_to_string(dir.join("api.h"))
        .map_err(|e| format!("{}: {e}", dir.join("api.h").display()))?;
    let prefix = api_prefix(&api).ok_or("api.h declares no crypto_kem_keypair")?;
    // PQClean declares the derandomized ML-KEM entry points in kem.h, not api.h.
    let headers: Vec<super::c_text::CText> = files_in(&dir, &["h"])
        .iter()
        .filter_map(|h| std::fs::read_to_string(h).ok())
        .map(|t| super::c_text::read(&t))
        .collect();
    let declared = |f: &str| {
        let name = format!("{prefix}{f}");
        headers.iter().any(|h| h.has_function(&name))
    };
    let derand = declared("crypto_kem_keypair_derand") && declared("crypto_kem_enc_derand");
    let own = files_in(&dir, &["c", "s", "S"]);
    let mut hashed = files_in(&dir, &[]);
    let mut compile = own.clone();
    let common = pqclean.join("common");
    let mut includes = vec![dir.clone(), common.clone()];
    // The common files the scheme includes (fips202, sha2, aes, keccak4x), and their C files;
    // randombytes is kembench's own.
    let found = common_code(&common, &hashed, &[]);
    hashed.extend(found.hashed);
    compile.extend(found.compile);
    for d in found.includes {
        if !includes.contains(&d) {
            includes.push(d);
        }
    }
    let meta = std::fs::read_to_string(scheme_dir.join("META.yml")).unwrap_or_default();
    let kat_sha256 = meta.lines().find_map(|l| {
        l.strip_prefix("nistkat-sha256:").map(|d| {
            (
                d.trim().to_string(),
                format!(
                    "nistkat-sha256 of PQClean's {}/META.yml",
                    scheme_dir.file_name().unwrap_or_default().to_string_lossy()
                ),
            )
        })
    });
    Ok(Source {
        id: format!("pqclean/{variant}"),
        algorithm: alg,
        version: version.to_string(),
        recipe: Recipe::Files {
            compile,
            includes,
            shim: None,
        },
        hashed,
        required_flags: if variant == "avx2" {
            AVX2_FLAGS.iter().map(|s| s.to_string()).collect()
        } else {
            Vec::new()
        },
        flags_last: false,
        symbols: Symbols {
            keypair: format!("{prefix}crypto_kem_keypair"),
            enc: format!("{prefix}crypto_kem_enc"),
            dec: format!("{prefix}crypto_kem_dec"),
            keypair_derand: derand.then(|| format!("{prefix}crypto_kem_keypair_derand")),
            enc_derand: derand.then(|| format!("{prefix}crypto_kem_enc_derand")),
            set_random: SET_HOOK_SYMBOL.into(),
        },
        kat_sha256,
        package: None,
        arch: Arch::host(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_prefix_is_read_off_api_h() {
        let api = "#define PQCLEAN_MLKEM768_CLEAN_CRYPTO_BYTES 32\n\
                   int PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair(uint8_t *pk, uint8_t *sk);\n";
        assert_eq!(api_prefix(api).as_deref(), Some("PQCLEAN_MLKEM768_CLEAN_"));
        assert_eq!(
            api_prefix("int crypto_kem_keypair(unsigned char *pk);").as_deref(),
            Some("")
        );
        assert_eq!(api_prefix("nothing here"), None);
    }

    #[test]
    fn the_registry_sources_of_ml_kem_and_ntru_are_found() {
        let (found, _) = all();
        let clean = found
            .iter()
            .find(|s| s.algorithm == "ML-KEM-768" && s.id == "pqclean/clean")
            .expect("ML-KEM-768 clean sources");
        assert_eq!(
            clean.symbols.keypair,
            "PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair"
        );
        assert!(clean.symbols.enc_derand.is_some());
        let Recipe::Files { compile, .. } = &clean.recipe else {
            panic!("PQClean compiles files")
        };
        assert!(compile.iter().any(|f| f.ends_with("fips202.c")));
        assert!(!compile.iter().any(|f| f.ends_with("randombytes.c")));
        assert!(clean.kat_sha256.is_some());
        let ntru = found
            .iter()
            .find(|s| s.algorithm == "ntruhrss701" && s.id == "pqclean/clean")
            .expect("ntruhrss701 clean sources");
        assert!(ntru.symbols.keypair_derand.is_none());
        let oqs = found
            .iter()
            .find(|s| s.algorithm == "ML-KEM-768" && s.id == "liboqs/generic")
            .expect("liboqs sources");
        assert_eq!(oqs.symbols.enc, "OQS_KEM_ml_kem_768_encaps");
    }

    /// Every liboqs source names functions its family's header declares and an
    /// The family is named beside an id whose upper case does not start with it (liboqs 0.16's
    /// `efrodokem_*` in `frodokem/`: its minimal build left the algorithm's constructor
    /// undefined); otherwise the id alone, as every carried build's cache key has it.
    #[test]
    fn a_minimal_build_names_the_family_where_liboqs_would_not_switch_it_on() {
        assert_eq!(liboqs_minimal("ml_kem_768", "ml_kem"), "KEM_ml_kem_768");
        assert_eq!(
            liboqs_minimal("ntruprime_sntrup761", "ntruprime"),
            "KEM_ntruprime_sntrup761"
        );
        assert_eq!(
            liboqs_minimal("efrodokem_640_aes", "frodokem"),
            "KEM_efrodokem_640_aes;KEM_FRODOKEM"
        );
    }

    /// `OQS_MINIMAL_BUILD` switch liboqs knows (sntrup761's are `ntruprime_sntrup761`: a wrong
    /// id builds a library without the algorithm), for the host and for a foreign architecture.
    #[test]
    fn liboqs_sources_name_what_liboqs_declares() {
        let (found, _) = all_for(&[Arch::host(), Arch::S390x]);
        let dir = Crate::OqsSys.dir().expect("oqs-sys sources").join("liboqs");
        let support =
            std::fs::read_to_string(dir.join(".CMake").join("alg_support.cmake")).unwrap();
        let mut checked = 0;
        for src in found.iter().filter(|s| s.id.starts_with("liboqs")) {
            let Recipe::Liboqs(LiboqsBuild { minimal, .. }) = &src.recipe else {
                panic!("{} is not a liboqs build", src.id)
            };
            let option = format!("OQS_ENABLE_{minimal}");
            assert!(support.contains(&option), "{option}: {}", src.algorithm);
            let family = &LIBOQS.iter().find(|l| l.0 == src.algorithm).unwrap().2;
            let header = dir
                .join("src")
                .join("kem")
                .join(family)
                .join(format!("kem_{family}.h"));
            let text = std::fs::read_to_string(&header).unwrap();
            for f in [&src.symbols.keypair, &src.symbols.enc, &src.symbols.dec] {
                assert!(
                    text.contains(&format!("{f}(")),
                    "{f} in {}",
                    header.display()
                );
            }
            checked += 1;
        }
        assert!(checked >= 2 * LIBOQS.len(), "{checked}");
    }

    /// The cache key is the sources' names and contents, wherever they lie: a copy of the
    /// files keys the same, one changed byte or one renamed file keys otherwise, and two
    /// variants of one scheme key apart.
    #[test]
    fn the_cache_key_follows_the_sources_contents_and_names() {
        let (found, _) = all();
        let pick = |id: &str| {
            found
                .iter()
                .find(|s| s.algorithm == "ntruhrss701" && s.id == id)
                .unwrap_or_else(|| panic!("ntruhrss701 {id}"))
                .clone()
        };
        let clean = pick("pqclean/clean");
        let key = clean.sha256().unwrap();
        assert_eq!(key.len(), 64);
        assert_ne!(key, pick("pqclean/avx2").sha256().unwrap());

        let dir = std::env::temp_dir().join(format!("kembench-key-{}", std::process::id()));
        let mut copy = clean.clone();
        copy.hashed = clean
            .hashed
            .iter()
            .enumerate()
            .map(|(i, f)| {
                // One folder per file: names may repeat across the scheme's and common folders.
                let to = dir.join(i.to_string()).join(f.file_name().unwrap());
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::copy(f, &to).unwrap();
                to
            })
            .collect();
        assert_eq!(copy.sha256().unwrap(), key, "a copy keys the same");
        let first = copy.hashed[0].clone();
        let mut bytes = std::fs::read(&first).unwrap();
        bytes[0] ^= 1;
        std::fs::write(&first, &bytes).unwrap();
        assert_ne!(copy.sha256().unwrap(), key, "one changed byte");
        bytes[0] ^= 1;
        std::fs::write(&first, &bytes).unwrap();
        assert_eq!(copy.sha256().unwrap(), key);
        let renamed = first.with_file_name("renamed.c");
        std::fs::rename(&first, &renamed).unwrap();
        copy.hashed[0] = renamed;
        assert_ne!(copy.sha256().unwrap(), key, "one renamed file");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A package's absolute or climbing include names its own file, never PQClean's common
    /// code: it was taken for a common file (`Path::join` of an absolute name is that name)
    /// and compiled on its own beside the file that includes it.
    #[test]
    fn only_a_plain_name_is_looked_up_in_common() {
        let root = std::env::temp_dir().join(format!("kembench-common-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let common = root.join("common");
        std::fs::create_dir_all(&common).unwrap();
        for f in ["fips202.h", "fips202.c", "mine.c"] {
            std::fs::write(common.join(f), "\n").unwrap();
        }
        let own = root.join("own.c");
        std::fs::write(&own, "\n").unwrap();
        let kem = root.join("kem.c");
        let includes = format!("\"fips202.h\" \"{}\" \"../common/mine.c\"", own.display());
        let text: String = includes
            .split(' ')
            .map(|name| format!("#include {name}\n"))
            .collect();
        std::fs::write(&kem, text).unwrap();
        let found = common_code(&common, std::slice::from_ref(&kem), &[]);
        assert_eq!(found.compile, vec![common.join("fips202.c")]);
        assert_eq!(
            found.hashed,
            vec![common.join("fips202.h"), common.join("fips202.c")]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
