//! Builds that `kembench builds` compiled at run time: each a shared object loaded with local
//! symbol binding (`dlopen(RTLD_NOW | RTLD_LOCAL)`, and linked `-Bsymbolic`), so that several
//! builds of the same source, and the crate-built copy in kembench itself, coexist in one
//! process without one's symbols serving another.
//!
//! A build's functions are named in its record ([`Symbols`]): PQClean's NIST API
//! (`<prefix>crypto_kem_keypair`, `_enc`, `_dec`, and for ML-KEM the `_derand` variants) or
//! liboqs's (`OQS_KEM_<alg>_keypair`, `_encaps`, `_decaps`, `_keypair_derand`). Its random
//! draws go through kembench's generator, installed at load time (PQClean builds get kembench's
//! `randombytes` compiled in; liboqs takes it through `OQS_randombytes_custom_algorithm`): the
//! operating system's by default, `profile`'s seeded stream once installed, and NIST's
//! AES-256-CTR DRBG while a known-answer transcript is made. Libraries are opened on first use, so listing builds costs
//! no `dlopen`.

pub mod manifest;

use crate::kem::{BuildFacts, Gate, ImplMeta, Kem, KemError, Randomness, SeedLens};
use crate::providers::drbg;
use crate::providers::seeded;
use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
pub use manifest::{CustomAlgorithm, Entry, Symbols};
use std::os::raw::c_int;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

type KeypairFn = unsafe extern "C" fn(*mut u8, *mut u8) -> c_int;
type EncFn = unsafe extern "C" fn(*mut u8, *mut u8, *const u8) -> c_int;
type DecFn = unsafe extern "C" fn(*mut u8, *const u8, *const u8) -> c_int;
type KeypairDerandFn = unsafe extern "C" fn(*mut u8, *mut u8, *const u8) -> c_int;
type EncDerandFn = unsafe extern "C" fn(*mut u8, *mut u8, *const u8, *const u8) -> c_int;
type RandomHook = unsafe extern "C" fn(*mut u8, usize);
type SetHookFn = unsafe extern "C" fn(Option<RandomHook>);

/// The function kembench's `randombytes` shim exports to take a generator.
pub const SET_HOOK_SYMBOL: &str = "kembench_set_randombytes";

/// The function liboqs exports to take a generator (`OQS_randombytes_custom_algorithm`).
pub const LIBOQS_SET_HOOK_SYMBOL: &str = "OQS_randombytes_custom_algorithm";

/// The C source of kembench's `randombytes`, compiled into every build.
pub const RANDOMBYTES_C: &str = include_str!("randombytes.c");

/// The functions of one loaded build.
struct Fns {
    /// Kept open for as long as the functions are used (the life of the process).
    _lib: Library,
    keypair: KeypairFn,
    enc: EncFn,
    dec: DecFn,
    keypair_derand: Option<KeypairDerandFn>,
    enc_derand: Option<EncDerandFn>,
}

/// One compiled build, as an implementation.
pub struct Built {
    meta: ImplMeta,
    entry: Entry,
    library: PathBuf,
    fns: OnceLock<Result<Fns, String>>,
}

/// Every build's `randombytes`: this thread's known-answer generator while it makes a
/// transcript, else `profile`'s seeded stream when installed, else the operating system.
unsafe extern "C" fn build_randombytes(out: *mut u8, len: usize) {
    if len == 0 {
        return;
    }
    // SAFETY: the shim passes the caller's writable buffer of `len` bytes.
    let buf = unsafe { std::slice::from_raw_parts_mut(out, len) };
    let from_kat = drbg::kat_fill(buf);
    if !from_kat && seeded::fill_or_os(buf).is_err() {
        std::process::abort();
    }
}

fn symbol<T: Copy>(lib: &Library, name: &str) -> Result<T, String> {
    let mut z = name.as_bytes().to_vec();
    z.push(0);
    // SAFETY: the symbol is looked up by its exact name; the type is the NIST API's signature
    // for that name (the build's api.h is PQClean's), which the gate then exercises.
    unsafe { lib.get::<T>(&z) }
        .map(|s| *s)
        .map_err(|e| format!("symbol {name}: {e}"))
}

fn optional<T: Copy>(lib: &Library, name: &Option<String>) -> Result<Option<T>, String> {
    name.as_ref().map(|n| symbol(lib, n)).transpose()
}

fn open(path: &Path, names: &Symbols) -> Result<Fns, String> {
    // SAFETY: loading runs the library's initialisers; kembench compiled it from known C
    // sources with no constructors of their own.
    let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }
        .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
    if !names.set_random.is_empty() {
        let set_hook: SetHookFn = symbol(&lib, &names.set_random)?;
        // SAFETY: the installer stores the pointer; the hook has the signature it expects.
        unsafe { set_hook(Some(build_randombytes)) };
    }
    Ok(Fns {
        keypair: symbol(&lib, &names.keypair)?,
        enc: symbol(&lib, &names.enc)?,
        dec: symbol(&lib, &names.dec)?,
        keypair_derand: optional(&lib, &names.keypair_derand)?,
        enc_derand: optional(&lib, &names.enc_derand)?,
        _lib: lib,
    })
}

fn rc(code: c_int, what: &str) -> Result<(), KemError> {
    if code == 0 {
        Ok(())
    } else {
        Err(KemError::Failure(format!("{what} returned {code}")))
    }
}

impl Built {
    /// The build recorded in `entry`, whose library lies under `root`; `None` when its
    /// algorithm is not in the catalog or it was not built.
    pub fn new(root: &Path, entry: Entry) -> Option<Built> {
        if entry.compiled != manifest::Compiled::Built {
            return None;
        }
        let algorithm = match crate::kem::catalog::find(&entry.algorithm) {
            Some(a) => a,
            None => entry.custom.as_ref()?.leak(),
        };
        let f = &entry.facts;
        let version = format!(
            "{}, built by kembench with {} ({}){}",
            f.source_version,
            f.compiler_version,
            f.flags_said(),
            if f.targets.is_empty() {
                String::new()
            } else {
                format!(", targets {}", f.targets.join(" "))
            }
        );
        Some(Built {
            meta: ImplMeta {
                algorithm,
                implementation: f.implementation.clone(),
                version,
                dispatch: "compiled by kembench at run time",
            },
            library: entry.library(root),
            entry,
            fns: OnceLock::new(),
        })
    }

    fn fns(&self) -> Result<&Fns, KemError> {
        self.fns
            .get_or_init(|| open(&self.library, &self.entry.symbols))
            .as_ref()
            .map_err(|e| KemError::Failure(e.clone()))
    }
}

impl Kem for Built {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn build(&self) -> Option<&BuildFacts> {
        Some(&self.entry.facts)
    }

    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        let f = self.fns()?;
        // SAFETY: buffers have the catalog's lengths, which the gate checks against the build's
        // real outputs (sizes, canaries).
        rc(
            unsafe { (f.keypair)(pk.as_mut_ptr(), sk.as_mut_ptr()) },
            "keypair",
        )
    }

    fn keeps_bytes(&self) -> bool {
        true
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        let f = self.fns()?;
        // SAFETY: as above.
        rc(
            unsafe { (f.enc)(ct.as_mut_ptr(), ss.as_mut_ptr(), pk.as_ptr()) },
            "enc",
        )
    }

    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        let f = self.fns()?;
        // SAFETY: as above.
        rc(
            unsafe { (f.dec)(ss.as_mut_ptr(), ct.as_ptr(), sk.as_ptr()) },
            "dec",
        )
    }

    fn seed_lens(&self) -> SeedLens {
        self.entry.symbols.seed_lens()
    }

    fn keypair_derand_raw(
        &self,
        seed: &[u8],
        pk: &mut [u8],
        sk: &mut [u8],
    ) -> Result<(), KemError> {
        let kp = self.fns()?.keypair_derand.ok_or(KemError::Unsupported)?;
        // SAFETY: as above; `seed` holds d || z (64 bytes, checked by the caller).
        rc(
            unsafe { kp(pk.as_mut_ptr(), sk.as_mut_ptr(), seed.as_ptr()) },
            "keypair_derand",
        )
    }

    fn encaps_derand_raw(
        &self,
        pk: &[u8],
        seed: &[u8],
        ct: &mut [u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        let enc = self.fns()?.enc_derand.ok_or(KemError::Unsupported)?;
        // SAFETY: as above; `seed` holds m (32 bytes, checked by the caller).
        rc(
            unsafe { enc(ct.as_mut_ptr(), ss.as_mut_ptr(), pk.as_ptr(), seed.as_ptr()) },
            "enc_derand",
        )
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        if self.entry.symbols.set_random.is_empty() {
            return Randomness::NotFixed(
                "a prebuilt library draws from its own randombytes, which kembench cannot reach"
                    .into(),
            );
        }
        seeded::install(seed);
        Randomness::Fixed(
            "every draw goes through kembench's randombytes, compiled into the build, which \
             takes the seeded ChaCha20 stream"
                .into(),
        )
    }

    fn known_answer_transcript(&self, entries: usize) -> Option<Result<String, KemError>> {
        if self.entry.symbols.set_random.is_empty() {
            return None; // a prebuilt library: its draws cannot be seeded
        }
        if let Err(e) = self.fns() {
            return Some(Err(e));
        }
        Some(drbg::kat_transcript(self, entries))
    }

    fn known_answer_digest(&self) -> Option<(String, String)> {
        self.entry.kat_sha256.clone()
    }

    fn known_answer_file(&self) -> Option<PathBuf> {
        self.entry.kat_file.clone()
    }
}

/// The array a package's shim exports with its API's sizes (`CRYPTO_PUBLICKEYBYTES`,
/// `CRYPTO_SECRETKEYBYTES`, `CRYPTO_CIPHERTEXTBYTES`, `CRYPTO_BYTES`).
pub const API_SIZES_SYMBOL: &str = "kembench_api_sizes";

/// The (pk, sk, ct, ss) bytes a compiled package's shim exports ([`API_SIZES_SYMBOL`]).
pub fn read_api_sizes(path: &Path) -> Result<[usize; 4], String> {
    // SAFETY: as in `open`: a library kembench compiled.
    let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }
        .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
    let sizes: *const u64 = symbol(&lib, API_SIZES_SYMBOL)?;
    // SAFETY: the shim defines `const uint64_t kembench_api_sizes[4]`; `lib` stays open while
    // it is read.
    let s = unsafe { std::slice::from_raw_parts(sizes, 4) };
    Ok([s[0], s[1], s[2], s[3]].map(|v| v as usize))
}

/// The native build recorded as `entry` in the build cache at `root`, as an implementation
/// (its library unopened); `None` when its record is unusable.
pub fn native(root: &Path, entry: Entry) -> Option<Box<dyn Kem>> {
    Built::new(root, entry).map(|b| Box::new(b) as Box<dyn Kem>)
}

/// Whether a build may be timed: it passed the gate.
pub fn gate_passed(facts: &BuildFacts) -> bool {
    matches!(facts.gate, Gate::Passed(_))
}
