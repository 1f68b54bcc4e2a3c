//! Where `kembench builds` keeps its builds, and the record of each: one directory per build
//! (named by its cache key) holding the shared object and `build.json`.
//!
//! One file per build, written whole and renamed into place, so that builds made side by side
//! (threads, or two `kembench builds` at once) never write the same file, and a reader never sees
//! half a record.

use crate::kem::BuildFacts;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The environment variable that moves the build cache (tests point it at a temporary dir).
pub const DIR_VAR: &str = "KEMBENCH_BUILD_DIR";

/// The record's file name inside a build's directory.
pub const RECORD: &str = "build.json";

/// The build cache: `$KEMBENCH_BUILD_DIR`, else `$XDG_CACHE_HOME/kembench/builds`, else
/// `~/.cache/kembench/builds`.
pub fn dir() -> PathBuf {
    if let Some(d) = std::env::var_os(DIR_VAR).filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("kembench").join("builds")
}

/// How compiling a build ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", content = "detail", rename_all = "kebab-case")]
pub enum Compiled {
    /// The shared object exists.
    Built,
    /// The compiler (or the linker) failed: its first error lines.
    Failed(String),
    /// Not attempted: the compiler does not exist, or the build targets a CPU feature this
    /// machine lacks.
    Refused(String),
}

/// The exported functions of a build. Every KEM function takes its buffers in the NIST API's
/// order (`keypair(pk, sk)`, `enc(ct, ss, pk)`, `dec(ss, ct, sk)`, `keypair_derand(pk, sk,
/// seed)`, `enc_derand(ct, ss, pk, seed)`) and returns 0 on success; the random hook installer
/// takes a `void (*)(uint8_t *, size_t)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbols {
    /// Key generation.
    pub keypair: String,
    /// Encapsulation.
    pub enc: String,
    /// Decapsulation.
    pub dec: String,
    /// Deterministic key generation from a 64-byte seed (ML-KEM), if exported.
    pub keypair_derand: Option<String>,
    /// Deterministic encapsulation from a 32-byte seed (ML-KEM), if exported.
    pub enc_derand: Option<String>,
    /// The function that installs kembench's generator as the build's `randombytes`.
    pub set_random: String,
}

impl Symbols {
    /// The seed lengths of the derandomized entry points it exports (ML-KEM's 64-byte key
    /// seed and 32-byte encapsulation seed).
    pub fn seed_lens(&self) -> crate::kem::SeedLens {
        crate::kem::SeedLens {
            keypair: self.keypair_derand.as_ref().map(|_| 64),
            encaps: self.enc_derand.as_ref().map(|_| 32),
        }
    }
}

/// A scheme that is not in the catalog, described by its package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomAlgorithm {
    /// `CRYPTO_ALGNAME`, or the name given with `--name`.
    pub name: String,
    /// The claimed NIST level, when given.
    pub nist_level: Option<u8>,
    /// `CRYPTO_PUBLICKEYBYTES`.
    pub pk_len: usize,
    /// `CRYPTO_SECRETKEYBYTES`.
    pub sk_len: usize,
    /// `CRYPTO_CIPHERTEXTBYTES`.
    pub ct_len: usize,
    /// `CRYPTO_BYTES`.
    pub ss_len: usize,
    /// Whether it claims IND-CCA security with implicit rejection (checked by the gate's tamper
    /// test).
    pub implicit_rejection: bool,
}

impl CustomAlgorithm {
    /// The catalog-shaped description (leaked once per process: implementations hold
    /// `&'static Algorithm`).
    pub fn leak(&self) -> &'static crate::kem::Algorithm {
        Box::leak(Box::new(crate::kem::Algorithm {
            name: Box::leak(self.name.clone().into_boxed_str()),
            family: crate::kem::Family::Other,
            standard: "a package added with kembench add",
            nist_level: self.nist_level,
            classical_bits: 0,
            ind_cca: self.implicit_rejection,
            implicit_rejection: self.implicit_rejection,
            pk_len: self.pk_len,
            sk_len: self.sk_len,
            ct_len: self.ct_len,
            ss_len: self.ss_len,
            hybrid: None,
        }))
    }
}

/// One build: what it is, how it was made, and how compiling and the gate went.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// The cache key (SHA-256 over the recipe, the sources, the compiler and the flags).
    pub key: String,
    /// The catalog algorithm it implements.
    pub algorithm: String,
    /// How it was made, and the gate's verdict.
    pub facts: BuildFacts,
    /// The names of its functions.
    pub symbols: Symbols,
    /// The first KAT entry's SHA-256 as the source package publishes it, and where from.
    pub kat_sha256: Option<(String, String)>,
    /// For a scheme the catalog does not have (`kembench add`): its name, level and sizes, as
    /// the package's `api.h` declares them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<CustomAlgorithm>,
    /// The package's NIST KAT response file, if it ships one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kat_file: Option<PathBuf>,
    /// How compiling ended.
    pub compiled: Compiled,
    /// Seconds the compiler took (0 when refused).
    pub build_seconds: f64,
    /// The kembench build (version and commit) whose gate verdict `facts.gate` is.
    pub gated_by: Option<String>,
    /// When this build was last registered (Unix seconds): the newest of two records with the
    /// same id wins.
    pub registered_unix: u64,
}

impl Entry {
    /// `algorithm@implementation`.
    pub fn label(&self) -> String {
        format!("{}@{}", self.algorithm, self.facts.implementation)
    }

    /// The shared object, in the build's directory under `root`; for a foreign build, its
    /// static driver program (run under QEMU).
    pub fn library(&self, root: &Path) -> PathBuf {
        let name = if self.facts.arch.is_some() {
            "driver"
        } else {
            "lib.so"
        };
        root.join(&self.key).join(name)
    }
}

/// Reads the record of the build with cache key `key`, if there is one.
pub fn read(root: &Path, key: &str) -> Option<Entry> {
    let text = std::fs::read_to_string(root.join(key).join(RECORD)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Writes a build's record (whole, then renamed into place).
pub fn write(root: &Path, e: &Entry) -> std::io::Result<()> {
    let dir = root.join(&e.key);
    std::fs::create_dir_all(&dir)?;
    let tmp = dir.join(format!(".{RECORD}.{}", std::process::id()));
    let text = serde_json::to_string_pretty(e).map_err(std::io::Error::other)?;
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, dir.join(RECORD))
}

/// Every build record under `root`, two of the same label included. Unreadable records are
/// skipped.
pub fn every(root: &Path) -> Vec<Entry> {
    let Ok(dirs) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    dirs.flatten()
        .filter_map(|d| read(root, &d.file_name().to_string_lossy()))
        .collect()
}

/// Every build recorded under `root`, one per label (the most recently registered), sorted by
/// label. Unreadable records are skipped.
pub fn all(root: &Path) -> Vec<Entry> {
    let mut by_label: std::collections::BTreeMap<String, Entry> = Default::default();
    for e in every(root) {
        let label = e.label();
        match by_label.get(&label) {
            Some(old) if old.registered_unix > e.registered_unix => {}
            _ => {
                by_label.insert(label, e);
            }
        }
    }
    by_label.into_values().collect()
}
