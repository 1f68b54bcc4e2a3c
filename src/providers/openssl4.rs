//! OpenSSL 4.0.3 (`openssl-src` 400.x) as implementation `openssl4`, beside the OpenSSL 3.6
//! kembench links: the same adapter ([`crate::openssl_kem`]: what one timed call does is said
//! there), compiled into the library of `workers/tls-openssl4` and opened here with local
//! symbols (`RTLD_LOCAL`), since two OpenSSLs cannot be linked into one executable. One timed
//! call adds an indirect call into that library and nothing else: buffers are the caller's,
//! kept keys stay OpenSSL 4's own objects behind a handle.
//!
//! Selected only when named (`--impl openssl4`): its first use builds the library with cargo
//! (OpenSSL 4.0.3 from source, minutes), which `verify`, `--all` or `--impl 'openssl*'` must
//! never start. Worker processes inherit the built library's location (the variable of the
//! [`Locator`], `$KEMBENCH_TLS_OPENSSL4`) and never build. Draws come from
//! kembench's seeded stream through a callback, so `profile` repeats them and `ct` marks them
//! secret, as for OpenSSL 3.6.

use super::seeded;
use crate::kem::{ImplMeta, Imports, Kem, KemError, Randomness, SecretKey, SeedLens};
use crate::openssl_kem::{abi, Spec};
use libloading::os::unix::{Library, Symbol, RTLD_LOCAL, RTLD_NOW};
use std::ffi::{c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The implementation id.
pub const ID: &str = "openssl4";

/// A kept key: the library's handle.
type Handle = *mut c_void;

/// The library's functions (see `workers/tls-openssl4/src/lib.rs` for each).
struct Fns {
    keypair: unsafe extern "C" fn(usize, *mut u8, usize, *mut u8, usize) -> abi::Code,
    encaps:
        unsafe extern "C" fn(usize, *const u8, usize, *mut u8, usize, *mut u8, usize) -> abi::Code,
    decaps: unsafe extern "C" fn(
        usize,
        *const u8,
        usize,
        *const u8,
        usize,
        *mut u8,
        usize,
    ) -> abi::Code,
    keypair_kept: unsafe extern "C" fn(usize, *mut u8, usize, *mut Handle) -> abi::Code,
    decaps_kept: unsafe extern "C" fn(usize, Handle, *const u8, usize, *mut u8, usize) -> abi::Code,
    sk_import: unsafe extern "C" fn(usize, *const u8, usize, *mut Handle) -> abi::Code,
    sk_export: unsafe extern "C" fn(usize, Handle, *mut u8, usize) -> abi::Code,
    key_free: unsafe extern "C" fn(Handle),
    pk_import: unsafe extern "C" fn(usize, *const u8, usize) -> abi::Code,
    keypair_derand:
        unsafe extern "C" fn(usize, *const u8, usize, *mut u8, usize, *mut u8, usize) -> abi::Code,
    encaps_derand: unsafe extern "C" fn(
        usize,
        *const u8,
        usize,
        *const u8,
        usize,
        *mut u8,
        usize,
        *mut u8,
        usize,
    ) -> abi::Code,
    fix_randomness: unsafe extern "C" fn(usize) -> abi::Code,
    error: unsafe extern "C" fn(*mut u8, usize) -> usize,
}

/// The opened library.
struct Lib {
    /// OpenSSL's version line, as the library says it.
    line: String,
    fns: Fns,
    /// Where it was opened from.
    path: PathBuf,
    /// Never closed: OpenSSL 4 registers exit handlers and thread-local destructors in it.
    _lib: Library,
}

/// The library's last error message on this thread.
fn message(lib: &Lib) -> String {
    let mut buf = vec![0u8; 512];
    // SAFETY: a buffer of its length.
    let n = unsafe { (lib.fns.error)(buf.as_mut_ptr(), buf.len()) };
    buf.truncate(n.min(512));
    String::from_utf8_lossy(&buf).into_owned()
}

/// `code` as a result, with the library's message.
fn check(lib: &Lib, code: abi::Code) -> Result<(), KemError> {
    if code == abi::OK {
        Ok(())
    } else {
        Err(abi::error(code, message(lib)))
    }
}

/// The host's random source as the library calls it: kembench's seeded stream (draws marked
/// secret for `ct`), or the operating system when no seed is installed.
unsafe extern "C" fn fill(buf: *mut u8, n: usize) -> c_int {
    if n == 0 {
        return 1;
    }
    // SAFETY: the library passes a writable buffer of `n` bytes.
    let buf = unsafe { std::slice::from_raw_parts_mut(buf, n) };
    c_int::from(seeded::fill_or_os(buf).is_ok())
}

/// How OpenSSL 4's library is found: the worker crate whose build makes it, which the layer
/// that owns worker builds (`tls::worker`) builds on first use. The command layer sets it
/// (`commands::run`) before any command runs.
#[derive(Debug, Clone, Copy)]
pub struct Locator {
    /// The worker's executable, built where needed (the library lies beside it), or why not.
    pub find: fn() -> Result<PathBuf, String>,
    /// The environment variable that names a built worker (`KEMBENCH_TLS_OPENSSL4`).
    pub var: &'static str,
    /// The executable's file name.
    pub exe: &'static str,
}

static LOCATOR: OnceLock<Locator> = OnceLock::new();

/// Sets how OpenSSL 4's library is found (the first call wins).
pub fn set_locator(l: Locator) {
    let _ = LOCATOR.set(l);
}

/// The sources of the crate that builds OpenSSL's KEM library (`workers/tls-openssl4`), beside
/// kembench's own.
pub fn worker_sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("workers")
        .join("tls-openssl4")
}

/// The library's expected OpenSSL version, from the worker's locked `openssl-src`
/// (`400.0.2+4.0.3` gives `4.0.3`).
fn upstream() -> &'static str {
    let src = env!("KEMBENCH_OPENSSL4_SRC");
    src.split_once('+').map_or(src, |(_, v)| v)
}

/// The library, built with cargo where no worker is named (`$KEMBENCH_TLS_OPENSSL4`).
fn locate() -> Result<PathBuf, String> {
    let l = LOCATOR
        .get()
        .ok_or("kembench's command layer set no way to build OpenSSL 4's worker")?;
    Ok((l.find)()?.with_file_name(abi::FILE))
}

/// Opens the library at `path` and checks that it is what this kembench expects: its
/// interface, its algorithms, and (when given) the start of its OpenSSL version line.
fn open(path: &Path, expect: Option<&str>) -> Result<Lib, String> {
    if !path.is_file() {
        return Err(format!(
            "OpenSSL's KEM library {} is not there (a worker built before kembench had it?): \
             build workers/tls-openssl4 again, or unset KEMBENCH_TLS_OPENSSL4",
            path.display(),
        ));
    }
    // SAFETY: the library's initialisers are Rust's and OpenSSL's; local symbols keep its
    // OpenSSL 4 from serving (or being served by) the OpenSSL 3.6 of this process.
    let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }
        .map_err(|e| format!("opening {}: {e}", path.display()))?;
    macro_rules! sym {
        ($name:literal) => {{
            // SAFETY: the type is the one `workers/tls-openssl4/src/lib.rs` defines for it
            // (same interface version, checked below before any other call).
            let s: Symbol<_> = unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                .map_err(|e| format!("{} lacks {}: {e}", path.display(), $name))?;
            *s
        }};
    }
    let abi_version: unsafe extern "C" fn() -> u32 = sym!("kembench_kem_abi");
    // SAFETY: no arguments.
    let got = unsafe { abi_version() };
    if got != abi::VERSION {
        return Err(format!(
            "{} speaks interface {got}, this kembench {}: build workers/tls-openssl4 again",
            path.display(),
            abi::VERSION
        ));
    }
    let init: unsafe extern "C" fn(abi::FillFn) -> c_int = sym!("kembench_kem_init");
    let version: unsafe extern "C" fn(*mut u8, usize) -> usize = sym!("kembench_kem_version");
    let count: unsafe extern "C" fn() -> usize = sym!("kembench_kem_count");
    let algorithm: unsafe extern "C" fn(usize, *mut u8, usize) -> usize =
        sym!("kembench_kem_algorithm");
    let text = |f: &dyn Fn(*mut u8, usize) -> usize| {
        let mut buf = vec![0u8; 256];
        let n = f(buf.as_mut_ptr(), buf.len()).min(256);
        buf.truncate(n);
        String::from_utf8_lossy(&buf).into_owned()
    };
    // SAFETY: a buffer of its length.
    let line = text(&|p, n| unsafe { version(p, n) });
    if let Some(want) = expect {
        if !line.starts_with(want) {
            return Err(format!(
                "{} links {line}, not {}",
                path.display(),
                want.trim()
            ));
        }
    }
    let want: Vec<&str> = crate::openssl_kem::specs()
        .iter()
        .map(|s| s.algorithm)
        .collect();
    // SAFETY: no arguments; then buffers of their length and indices below the count.
    let have: Vec<String> = (0..unsafe { count() })
        .map(|i| text(&|p, n| unsafe { algorithm(i, p, n) }))
        .collect();
    if have != want {
        return Err(format!(
            "{} offers {have:?}, this kembench expects {want:?}: build workers/tls-openssl4 again",
            path.display()
        ));
    }
    // SAFETY: `fill` lives as long as the process.
    unsafe { init(fill) };
    Ok(Lib {
        line,
        fns: Fns {
            keypair: sym!("kembench_kem_keypair"),
            encaps: sym!("kembench_kem_encaps"),
            decaps: sym!("kembench_kem_decaps"),
            keypair_kept: sym!("kembench_kem_keypair_kept"),
            decaps_kept: sym!("kembench_kem_decaps_kept"),
            sk_import: sym!("kembench_kem_sk_import"),
            sk_export: sym!("kembench_kem_sk_export"),
            key_free: sym!("kembench_kem_key_free"),
            pk_import: sym!("kembench_kem_pk_import"),
            keypair_derand: sym!("kembench_kem_keypair_derand"),
            encaps_derand: sym!("kembench_kem_encaps_derand"),
            fix_randomness: sym!("kembench_kem_fix_randomness"),
            error: sym!("kembench_kem_error"),
        },
        path: path.to_path_buf(),
        _lib: lib,
    })
}

/// Where an implementation's library is.
#[derive(Debug, Clone)]
enum Place {
    /// OpenSSL 4.0.3's, built from `workers/tls-openssl4` on first use.
    Worker,
    /// A library built by `kembench builds --source openssl=PATH` (the build's `lib.so`).
    File(PathBuf),
}

/// OpenSSL 4.0.3's library, opened once per process (and built first where needed), or why
/// not.
fn worker_lib() -> Result<&'static Lib, KemError> {
    static LIB: OnceLock<Result<Lib, String>> = OnceLock::new();
    LIB.get_or_init(|| locate().and_then(|p| open(&p, Some(&format!("OpenSSL {} ", upstream())))))
        .as_ref()
        .map_err(|why| KemError::Failure(format!("OpenSSL 4.0.3 is not available: {why}")))
}

/// The library at `path`, opened once per process (one file serves every algorithm of a
/// build), or why not.
fn file_lib(path: &Path) -> Result<&'static Lib, KemError> {
    static LIBS: std::sync::Mutex<Vec<(PathBuf, Result<&'static Lib, String>)>> =
        std::sync::Mutex::new(Vec::new());
    let mut libs = LIBS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, r)) = libs.iter().find(|(p, _)| p == path) {
        return r.clone().map_err(KemError::Failure);
    }
    // Never closed (see `Lib`): leaked once per file.
    let r = open(path, None).map(|l| &*Box::leak(Box::new(l)));
    libs.push((path.to_path_buf(), r.clone()));
    r.map_err(KemError::Failure)
}

impl Place {
    fn lib(&self) -> Result<&'static Lib, KemError> {
        match self {
            Place::Worker => worker_lib(),
            Place::File(p) => file_lib(p),
        }
    }
}

/// Opens the library kembench built from an OpenSSL tree at `path` and checks that it links
/// the OpenSSL whose version line starts with `expect` (`OpenSSL 3.6.3 `): the line, or why
/// not (`kembench builds --source openssl=PATH`, before the build is recorded as built).
pub fn check_built(path: &Path, expect: &str) -> Result<String, String> {
    open(path, Some(expect)).map(|l| l.line.clone())
}

/// Builds (where needed) and opens the library before anything is measured, from the main
/// thread: then names its location for the worker processes this kembench starts, so that
/// they open the same file and never build. A failure is kept and said by every operation.
pub fn prepare() {
    if let (Ok(lib), Some(l)) = (worker_lib(), LOCATOR.get()) {
        if std::env::var_os(l.var).is_none_or(|v| v.is_empty()) {
            // Called before any thread of the command starts (see `Registry::select`).
            std::env::set_var(l.var, lib.path.with_file_name(l.exe));
        }
    }
}

/// A key kept by OpenSSL's library: the library's handle, freed by that library.
struct Kept(Handle, &'static Lib);

// SAFETY: the handle owns an OpenSSL key object (and its context), used by one thread at a
// time through `&mut SecretKey`, as the OpenSSL 3.6 adapter's own keys are.
unsafe impl Send for Kept {}

impl Drop for Kept {
    fn drop(&mut self) {
        // SAFETY: a live handle of this library, never used again.
        unsafe { (self.1.fns.key_free)(self.0) };
    }
}

/// The handle of `kept`, if `lib` made it (a key of another OpenSSL library is refused).
fn own(kept: &Kept, lib: &'static Lib) -> Result<Handle, KemError> {
    if std::ptr::eq(kept.1, lib) {
        Ok(kept.0)
    } else {
        Err(KemError::Failure(
            "secret key object made by another OpenSSL library".into(),
        ))
    }
}

/// One algorithm of an OpenSSL library kembench opens: OpenSSL 4.0.3's, or a build of an
/// OpenSSL tree.
pub struct OpenSsl4 {
    meta: ImplMeta,
    /// Its index in the library's table.
    index: usize,
    spec: Spec,
    place: Place,
    /// The library once opened (or why not), so that a timed call takes no lock and compares
    /// no path to find it.
    opened: OnceLock<Result<&'static Lib, KemError>>,
    /// A tree's build: how it was made and gated.
    facts: Option<crate::kem::BuildFacts>,
}

impl OpenSsl4 {
    /// A handle made by `make` as a kept key.
    fn kept(
        &self,
        make: impl FnOnce(&Lib, *mut Handle) -> abi::Code,
    ) -> Result<SecretKey, KemError> {
        let lib = self.lib()?;
        let mut h: Handle = std::ptr::null_mut();
        check(lib, make(lib, &mut h))?;
        Ok(SecretKey::new(Kept(h, lib)))
    }

    fn lib(&self) -> Result<&'static Lib, KemError> {
        self.opened.get_or_init(|| self.place.lib()).clone()
    }
}

impl Kem for OpenSsl4 {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn build(&self) -> Option<&crate::kem::BuildFacts> {
        self.facts.as_ref()
    }

    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        let lib = self.lib()?;
        // SAFETY: buffers of their lengths (as every call below).
        let c = unsafe {
            (lib.fns.keypair)(
                self.index,
                pk.as_mut_ptr(),
                pk.len(),
                sk.as_mut_ptr(),
                sk.len(),
            )
        };
        check(lib, c)
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        let lib = self.lib()?;
        // SAFETY: see keypair_raw.
        let c = unsafe {
            (lib.fns.encaps)(
                self.index,
                pk.as_ptr(),
                pk.len(),
                ct.as_mut_ptr(),
                ct.len(),
                ss.as_mut_ptr(),
                ss.len(),
            )
        };
        check(lib, c)
    }

    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        let lib = self.lib()?;
        // SAFETY: see keypair_raw.
        let c = unsafe {
            (lib.fns.decaps)(
                self.index,
                sk.as_ptr(),
                sk.len(),
                ct.as_ptr(),
                ct.len(),
                ss.as_mut_ptr(),
                ss.len(),
            )
        };
        check(lib, c)
    }

    fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
        // SAFETY: see keypair_raw; `h` is a pointer to write the handle to.
        self.kept(|lib, h| unsafe {
            (lib.fns.keypair_kept)(self.index, pk.as_mut_ptr(), pk.len(), h)
        })
    }

    fn decaps_kept_raw(
        &self,
        sk: &mut SecretKey,
        ct: &[u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        let lib = self.lib()?;
        let h = own(sk.get_mut::<Kept>()?, lib)?;
        // SAFETY: a live handle; see keypair_raw.
        let c = unsafe {
            (lib.fns.decaps_kept)(
                self.index,
                h,
                ct.as_ptr(),
                ct.len(),
                ss.as_mut_ptr(),
                ss.len(),
            )
        };
        check(lib, c)
    }

    fn sk_import_raw(&self, sk: &[u8]) -> Result<SecretKey, KemError> {
        // SAFETY: see keypair_kept_raw.
        self.kept(|lib, h| unsafe { (lib.fns.sk_import)(self.index, sk.as_ptr(), sk.len(), h) })
    }

    fn sk_export_raw(&self, sk: &SecretKey, out: &mut [u8]) -> Result<(), KemError> {
        let lib = self.lib()?;
        let h = own(sk.get::<Kept>()?, lib)?;
        // SAFETY: a live handle; see keypair_raw.
        let c = unsafe { (lib.fns.sk_export)(self.index, h, out.as_mut_ptr(), out.len()) };
        check(lib, c)
    }

    fn pk_import_raw(&self, pk: &[u8]) -> Result<(), KemError> {
        let lib = self.lib()?;
        // SAFETY: see keypair_raw.
        let c = unsafe { (lib.fns.pk_import)(self.index, pk.as_ptr(), pk.len()) };
        check(lib, c)
    }

    fn imports(&self) -> Imports {
        self.spec.imports
    }

    fn seed_lens(&self) -> SeedLens {
        self.spec.seed_lens
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        let lib = match self.lib() {
            Ok(l) => l,
            Err(e) => return Randomness::NotFixed(e.to_string()),
        };
        seeded::install(seed);
        // SAFETY: no buffers.
        let c = unsafe { (lib.fns.fix_randomness)(self.index) };
        let said = message(lib);
        if c == abi::OK {
            Randomness::Fixed(format!(
                "{said} (OpenSSL 4's library draws through kembench's callback)"
            ))
        } else {
            Randomness::NotFixed(format!("OpenSSL 4 refused the seeded provider: {said}"))
        }
    }

    fn keypair_derand_raw(
        &self,
        seed: &[u8],
        pk: &mut [u8],
        sk: &mut [u8],
    ) -> Result<(), KemError> {
        let lib = self.lib()?;
        // SAFETY: see keypair_raw.
        let c = unsafe {
            (lib.fns.keypair_derand)(
                self.index,
                seed.as_ptr(),
                seed.len(),
                pk.as_mut_ptr(),
                pk.len(),
                sk.as_mut_ptr(),
                sk.len(),
            )
        };
        check(lib, c)
    }

    fn encaps_derand_raw(
        &self,
        pk: &[u8],
        seed: &[u8],
        ct: &mut [u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        let lib = self.lib()?;
        // SAFETY: see keypair_raw.
        let c = unsafe {
            (lib.fns.encaps_derand)(
                self.index,
                pk.as_ptr(),
                pk.len(),
                seed.as_ptr(),
                seed.len(),
                ct.as_mut_ptr(),
                ct.len(),
                ss.as_mut_ptr(),
                ss.len(),
            )
        };
        check(lib, c)
    }
}

/// OpenSSL 4.0.3's version as the records give it (the library is not opened to say it).
pub fn version() -> String {
    format!(
        "OpenSSL {} (openssl-src {}; workers/tls-openssl4, built on first use)",
        upstream(),
        env!("KEMBENCH_OPENSSL4_SRC")
    )
}

/// Every algorithm of OpenSSL 4.0.3, none opened yet: selected only when named.
pub fn on_demand() -> Vec<Box<dyn Kem>> {
    let version = version();
    crate::openssl_kem::specs()
        .into_iter()
        .enumerate()
        .map(|(index, spec)| {
            Box::new(OpenSsl4 {
                meta: ImplMeta::new(spec.algorithm, ID, &version, "run-time CPU dispatch"),
                index,
                spec,
                place: Place::Worker,
                opened: OnceLock::new(),
                facts: None,
            }) as Box<dyn Kem>
        })
        .collect()
}

/// The build `entry` of an OpenSSL tree (`kembench builds --source openssl=PATH`: its library
/// speaks [`abi`], see [`abi::KEYPAIR`]), its library unopened.
pub fn built(
    root: &Path,
    entry: &crate::providers::built::manifest::Entry,
) -> Option<Box<dyn Kem>> {
    if entry.compiled != crate::providers::built::manifest::Compiled::Built {
        return None;
    }
    let specs = crate::openssl_kem::specs();
    let index = specs.iter().position(|s| s.algorithm == entry.algorithm)?;
    let f = &entry.facts;
    let version = format!(
        "{}, built by kembench with {} ({})",
        f.source_version,
        f.compiler_version,
        f.flags_said()
    );
    Some(Box::new(OpenSsl4 {
        meta: ImplMeta::new(
            specs[index].algorithm,
            &f.implementation,
            &version,
            "compiled by kembench at run time",
        ),
        index,
        spec: specs[index],
        place: Place::File(entry.library(root)),
        opened: OnceLock::new(),
        facts: Some(f.clone()),
    }))
}
