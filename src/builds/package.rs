//! Bring your own KEM: a directory of C sources implementing the NIST KEM API (`api.h` with
//! `CRYPTO_*` sizes and `crypto_kem_keypair/enc/dec`, as NIST submission packages and PQClean
//! lay them out) becomes a [`Source`]; a prebuilt shared library exporting those functions
//! becomes a build directly.
//!
//! kembench supplies what a package expects from its harness: `randombytes` (and
//! `randombytes_init`) through its own generator, so that the package's KAT file can be
//! reproduced with NIST's DRBG, and PQClean's common symmetric code (`fips202`, `sha2`, `aes`,
//! ...) when the package includes those headers without shipping them. The package's own
//! `rng.c`, `randombytes.c` and any file with a `main` (NIST's `PQCgenKAT_kem.c`) are left out.
//! A shim compiled beside it calls the API through `api.h` (so namespacing macros expand as in
//! the package) and exports the sizes.

use super::sources::{api_prefix, common_code, files_in as files, Package, Recipe, Source};
use crate::providers::built::{Symbols, API_SIZES_SYMBOL, SET_HOOK_SYMBOL};
use std::path::{Path, PathBuf};

/// The shim's functions and data.
pub const SHIM_KEYPAIR: &str = "kembench_api_keypair";
/// See [`SHIM_KEYPAIR`].
pub const SHIM_ENC: &str = "kembench_api_enc";
/// See [`SHIM_KEYPAIR`].
pub const SHIM_DEC: &str = "kembench_api_dec";

/// Files of a package that are never part of the implementation.
fn left_out(path: &Path, text: &str) -> bool {
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_ascii_lowercase();
    name == "rng.c"
        || name == "randombytes.c"
        || name.starts_with("pqcgenkat")
        || super::c_text::read(text).defines_main()
}

/// The C of the shim for an `api.h` whose names carry `prefix`.
fn shim(prefix: &str) -> String {
    format!(
        r#"/* Written by kembench add: the package's NIST API, called through its own api.h. */
#include <stdint.h>
#include "api.h"
int {SHIM_KEYPAIR}(unsigned char *pk, unsigned char *sk) {{ return {prefix}crypto_kem_keypair(pk, sk); }}
int {SHIM_ENC}(unsigned char *ct, unsigned char *ss, const unsigned char *pk) {{ return {prefix}crypto_kem_enc(ct, ss, pk); }}
int {SHIM_DEC}(unsigned char *ss, const unsigned char *ct, const unsigned char *sk) {{ return {prefix}crypto_kem_dec(ss, ct, sk); }}
const uint64_t {API_SIZES_SYMBOL}[4] = {{ {prefix}CRYPTO_PUBLICKEYBYTES, {prefix}CRYPTO_SECRETKEYBYTES, {prefix}CRYPTO_CIPHERTEXTBYTES, {prefix}CRYPTO_BYTES }};
"#
    )
}

/// The files that `files` include with quoted includes, directly or through one another,
/// that are not among `files`: each name looked up beside the file that includes it, then in
/// the package directory `dir` (the compiler's `-I`), as C looks up a quoted include. Files
/// are told apart by their canonical path, so a name reached twice (`sub/../x.h`) counts once.
fn included_elsewhere(dir: &Path, files: &[PathBuf]) -> Vec<PathBuf> {
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut seen: std::collections::BTreeSet<PathBuf> =
        files.iter().map(|f| canonical(f)).collect();
    let mut queue: Vec<PathBuf> = files.to_vec();
    let mut out = Vec::new();
    let mut i = 0;
    // Finite: each file is queued once, by its canonical path.
    while i < queue.len() {
        let f = queue[i].clone();
        i += 1;
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for name in super::c_text::read(&text).quoted_includes() {
            let beside = f.parent().map(|d| d.join(&name));
            let Some(found) = beside
                .into_iter()
                .chain([dir.join(&name)])
                .find(|p| p.is_file())
            else {
                continue;
            };
            if seen.insert(canonical(&found)) {
                out.push(found.clone());
                queue.push(found);
            }
        }
    }
    out
}

/// PQClean's common code for a package in `dir`: the `common` directory of the PQClean tree
/// the package sits in (`<tree>/crypto_kem/<scheme>/<variant>`, so that it gets the common
/// code of its own PQClean version), else kembench's copy (from the crates the build fetched).
fn pqclean_common(dir: &Path) -> Option<PathBuf> {
    let tree = dir
        .parent()
        .and_then(Path::parent)
        .filter(|d| d.file_name().is_some_and(|n| n == "crypto_kem"))
        .and_then(Path::parent)
        .map(|t| t.join("common"))
        .filter(|c| c.is_dir());
    let d = env!("KEMBENCH_SRC_PQCRYPTO_MLKEM");
    tree.or_else(|| (d != "absent").then(|| Path::new(d).join("pqclean").join("common")))
}

/// `CRYPTO_ALGNAME` when `api.h` defines it as a string literal (with or without a namespace
/// prefix), however the directive is spaced or commented.
pub fn algname(api_h: &str) -> Option<String> {
    super::c_text::read(api_h).defined_string("CRYPTO_ALGNAME")
}

/// The NIST KAT response file of a package: `PQCkemKAT_*.rsp` in its directory, or in a `KAT`
/// directory beside it or up to three levels above (a submission keeps `KAT/<scheme>/` beside
/// `Reference_Implementation/`).
pub fn find_kat(dir: &Path) -> Option<PathBuf> {
    let scheme = dir.file_name()?.to_owned();
    let mut places = vec![dir.to_path_buf()];
    let mut up = dir.to_path_buf();
    for _ in 0..4 {
        let kat = up.join("KAT");
        places.push(kat.join(&scheme));
        places.push(kat);
        if !up.pop() {
            break;
        }
    }
    places.into_iter().find_map(|d| {
        files(&d, &["rsp"]).into_iter().find(|f| {
            f.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("PQCkemKAT_"))
        })
    })
}

/// A package directory as a source, or why it is not one.
pub fn from_dir(
    dir: &Path,
    id: &str,
    algorithm: &'static str,
    package: Package,
) -> Result<Source, String> {
    if !dir.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    let api = dir.join("api.h");
    let api_text = std::fs::read_to_string(&api).map_err(|e| {
        if e.kind() != std::io::ErrorKind::NotFound {
            return format!("cannot read {}: {e}", api.display());
        }
        format!(
            "{} has no api.h: a NIST KEM package keeps api.h (CRYPTO_PUBLICKEYBYTES, \
             CRYPTO_SECRETKEYBYTES, CRYPTO_CIPHERTEXTBYTES, CRYPTO_BYTES, CRYPTO_ALGNAME and \
             crypto_kem_keypair/enc/dec) beside its .c files; in a submission that is \
             Reference_Implementation/crypto_kem/<scheme>/ or Optimized_Implementation/...",
            dir.display()
        )
    })?;
    let prefix = api_prefix(&api_text).ok_or_else(|| {
        format!(
            "{} declares no crypto_kem_keypair: not the NIST KEM API",
            api.display()
        )
    })?;
    let mut compile = Vec::new();
    let mut hashed = files(dir, &[]);
    for f in files(dir, &["c", "s", "S"]) {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        if !left_out(&f, &text) {
            compile.push(f);
        }
    }
    if compile.is_empty() {
        return Err(format!(
            "{} has no C sources besides its KAT generator",
            dir.display()
        ));
    }
    let mut includes = vec![dir.to_path_buf()];
    // PQClean's common code (every header of its `common` directory: `fips202.h`,
    // `compat.h`, ...) that the package includes without shipping it.
    let mut required_flags = Vec::new();
    let all_text: String = hashed
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect();
    if let Some(common) = pqclean_common(dir) {
        let shipped: Vec<String> = hashed
            .iter()
            .filter_map(|f| f.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .collect();
        let found = common_code(&common, &hashed, &shipped);
        hashed.extend(found.hashed);
        compile.extend(found.compile);
        includes.extend(found.includes);
    }
    // What the package's files include from elsewhere (a subdirectory, a directory above it)
    // goes into the cache key too: an edit there is another build, never a reuse of the old.
    let reached = included_elsewhere(dir, &hashed);
    hashed.extend(reached);
    if all_text.contains("<openssl/") {
        required_flags.push("-lcrypto".to_string());
    }
    Ok(Source {
        id: id.to_string(),
        algorithm,
        version: format!("local package {}", dir.display()),
        recipe: Recipe::Files {
            compile,
            includes,
            shim: Some(shim(&prefix)),
        },
        hashed,
        required_flags,
        flags_last: false,
        symbols: Symbols {
            keypair: SHIM_KEYPAIR.into(),
            enc: SHIM_ENC.into(),
            dec: SHIM_DEC.into(),
            keypair_derand: None,
            enc_derand: None,
            set_random: SET_HOOK_SYMBOL.into(),
        },
        kat_sha256: None,
        package: Some(package),
        arch: crate::arch::Arch::host(),
    })
}

/// Turns a compiler's complaint about a package into what to do: the Debian package or flag
/// that provides a missing header or symbol, or which NIST API function is missing.
pub fn explain(message: &str) -> String {
    let mut hints = Vec::new();
    for line in message.lines() {
        if let Some(rest) = line.split("fatal error: ").nth(1) {
            let header = rest.split(':').next().unwrap_or_default().trim();
            let hint = if header.starts_with("openssl/") {
                "install Debian's libssl-dev (kembench then links -lcrypto)".to_string()
            } else if header.starts_with("gmp") {
                "install Debian's libgmp-dev and add -lgmp to --flags".to_string()
            } else if header.starts_with("NTL/") {
                "install Debian's libntl-dev and add -lntl -lgmp to --flags".to_string()
            } else if header.contains("Keccak") || header.contains("libkeccak") {
                "the XKCP Keccak library (no Debian package): build XKCP and pass -I and -l \
                 in --flags, or include fips202.h instead, which kembench supplies"
                    .to_string()
            } else {
                format!("the package includes {header}, which neither it nor kembench provides")
            };
            hints.push(format!("missing header {header}: {hint}"));
        }
        if let Some(rest) = line.split("undefined reference to `").nth(1) {
            let sym = rest.split('\'').next().unwrap_or_default();
            let hint = if sym.ends_with("crypto_kem_keypair")
                || sym.ends_with("crypto_kem_enc")
                || sym.ends_with("crypto_kem_dec")
            {
                format!(
                    "api.h declares {sym} but no .c file of the package defines it (the NIST \
                     KEM API needs crypto_kem_keypair, crypto_kem_enc and crypto_kem_dec)"
                )
            } else if sym.starts_with("EVP_") || sym.starts_with("SHA") || sym.starts_with("AES_") {
                "an OpenSSL libcrypto function: install libssl-dev and add -lcrypto to --flags"
                    .into()
            } else {
                format!("no file of the package defines {sym}")
            };
            hints.push(format!("missing symbol {sym}: {hint}"));
        }
    }
    if hints.is_empty() {
        message.to_string()
    } else {
        format!("{}\n{message}", hints.join("\n"))
    }
}

/// The NIST API functions a prebuilt shared library exports: `(prefix)crypto_kem_keypair`,
/// `_enc`, `_dec` with one common prefix, or why not (naming the exported functions that look
/// closest).
pub fn library_symbols(path: &Path) -> Result<Symbols, String> {
    use object::{Object, ObjectSymbol, SymbolKind};
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = object::File::parse(&*data)
        .map_err(|e| format!("{} is not a shared library: {e}", path.display()))?;
    let exported: Vec<String> = file
        .dynamic_symbols()
        .filter(|s| s.is_definition() && s.kind() == SymbolKind::Text)
        .filter_map(|s| s.name().ok().map(str::to_string))
        .collect();
    let prefix = exported
        .iter()
        .find_map(|n| n.strip_suffix("crypto_kem_keypair"))
        .map(str::to_string);
    let found = prefix.as_ref().filter(|p| {
        ["crypto_kem_enc", "crypto_kem_dec"]
            .iter()
            .all(|f| exported.contains(&format!("{p}{f}")))
    });
    match found {
        Some(p) => Ok(Symbols {
            keypair: format!("{p}crypto_kem_keypair"),
            enc: format!("{p}crypto_kem_enc"),
            dec: format!("{p}crypto_kem_dec"),
            keypair_derand: None,
            enc_derand: None,
            // Its randombytes is its own: kembench cannot seed it.
            set_random: String::new(),
        }),
        None => {
            let mut close: Vec<&str> = exported
                .iter()
                .map(String::as_str)
                .filter(|n| {
                    let l = n.to_ascii_lowercase();
                    ["keypair", "encaps", "decaps", "_enc", "_dec", "kem"]
                        .iter()
                        .any(|k| l.contains(k))
                })
                .collect();
            close.sort();
            close.truncate(8);
            Err(format!(
                "{} does not export crypto_kem_keypair, crypto_kem_enc and crypto_kem_dec (the \
                 NIST KEM API, with or without one common prefix){}",
                path.display(),
                if close.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; functions it exports that look close: {}",
                        close.join(", ")
                    )
                }
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_complaints_become_what_to_do() {
        let e = explain("kem.c:3:10: fatal error: openssl/sha.h: No such file or directory");
        assert!(
            e.starts_with("missing header openssl/sha.h: install Debian's libssl-dev"),
            "{e}"
        );
        let e = explain("/usr/bin/ld: shim.c:(.text+0x1): undefined reference to `crypto_kem_enc'");
        assert!(e.contains("no .c file of the package defines it"), "{e}");
        assert_eq!(explain("something else"), "something else");
    }

    /// A package's files, with the common headers kembench supplies.
    fn supplied(dir: &Path) -> (Vec<String>, Vec<PathBuf>) {
        let p = Package {
            kat_file: None,
            implements: false,
            level: None,
            implicit_rejection: false,
        };
        let s = from_dir(dir, "local/x", "X", p).unwrap();
        let Recipe::Files { includes, .. } = &s.recipe else {
            panic!("a package compiles files")
        };
        let names = s
            .hashed
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        (names, includes.clone())
    }

    /// A file the package includes from a subdirectory or from above it keys the build: an
    /// edit there changes the key (a build kembench reused after such an edit ran old code).
    #[test]
    fn files_included_from_elsewhere_key_the_build() {
        let root = std::env::temp_dir().join(format!("kembench-nested-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let dir = root.join("pkg");
        std::fs::create_dir_all(dir.join("impl")).unwrap();
        // impl/all.c includes a header beside it, one above the package, and itself again
        // by another path.
        for (f, text) in [
            (
                dir.join("api.h"),
                "#define CRYPTO_BYTES 32\nint crypto_kem_keypair(unsigned char *pk, unsigned char *sk);\n",
            ),
            (dir.join("kem.c"), "#include \"api.h\"\n#include \"impl/all.c\"\n"),
            (
                dir.join("impl/all.c"),
                "#include \"params.h\"\n#include \"../../shared.h\"\n#include \"../impl/all.c\"\n",
            ),
            (dir.join("impl/params.h"), "#define N 256\n"),
            (root.join("shared.h"), "#define Q 3329\n"),
        ] {
            std::fs::write(f, text).unwrap();
        }
        let (names, _) = supplied(&dir);
        for n in ["all.c", "params.h", "shared.h"] {
            assert_eq!(
                names.iter().filter(|m| *m == n).count(),
                1,
                "{n}: {names:?}"
            );
        }
        let p = || Package {
            kat_file: None,
            implements: false,
            level: None,
            implicit_rejection: false,
        };
        let key = || {
            from_dir(&dir, "local/x", "X", p())
                .unwrap()
                .sha256()
                .unwrap()
        };
        let before = key();
        for (f, text) in [
            (dir.join("impl/params.h"), "#define N 512\n"),
            (root.join("shared.h"), "#define Q 7681\n"),
        ] {
            let old = std::fs::read_to_string(&f).unwrap();
            std::fs::write(&f, text).unwrap();
            assert_ne!(key(), before, "{} changed", f.display());
            std::fs::write(&f, old).unwrap();
            assert_eq!(key(), before);
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn every_common_header_is_supplied_and_api_h_is_read_as_c() {
        // A package whose only common header is compat.h, declaring its API over lines.
        let dir = std::env::temp_dir().join(format!("kembench-compat-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("api.h"),
            "#define CRYPTO_BYTES 32\nint crypto_kem_keypair\n(\n unsigned char *pk,\n unsigned char *sk\n);\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("kem.c"),
            "#include \"api.h\"\n#include \"compat.h\"\nint crypto_kem_keypair(unsigned char *pk, unsigned char *sk) { return 0; }\n",
        )
        .unwrap();
        let (names, includes) = supplied(&dir);
        assert!(names.contains(&"compat.h".to_string()), "{names:?}");
        assert!(
            includes.iter().any(|i| i.join("compat.h").is_file()),
            "{includes:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);

        // PQClean's Classic McEliece, as it ships: the API's parenthesis on the next line,
        // compat.h and crypto_declassify.h from common.
        let mceliece = Path::new(env!("KEMBENCH_SRC_PQCRYPTO_MLKEM"))
            .join("pqclean/crypto_kem/mceliece348864/clean");
        let (names, _) = supplied(&mceliece);
        for h in ["compat.h", "crypto_declassify.h", "fips202.h"] {
            assert!(names.contains(&h.to_string()), "{h}: {names:?}");
        }
        // HQC-RMRS includes nistseedexpander.h, whose C file needs aes.c.
        let hqc = Path::new(env!("KEMBENCH_SRC_PQCRYPTO_NTRU"))
            .join("pqclean/crypto_kem/hqc-rmrs-128/clean");
        let (names, _) = supplied(&hqc);
        assert!(names.contains(&"aes.c".to_string()), "{names:?}");
    }

    #[test]
    fn the_test_package_is_a_source_and_its_kat_file_is_found() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/nist-package/mlkem512/Reference_Implementation/crypto_kem/mlkem512");
        let p = Package {
            kat_file: None,
            implements: true,
            level: None,
            implicit_rejection: true,
        };
        let s = from_dir(&dir, "local/mlkem512", "ML-KEM-512", p.clone()).unwrap();
        let Recipe::Files { compile, shim, .. } = &s.recipe else {
            panic!("a package compiles files")
        };
        assert!(!compile.iter().any(|f| f.ends_with("PQCgenKAT_kem.c")));
        assert!(
            compile.iter().any(|f| f.ends_with("fips202.c")),
            "kembench supplies fips202"
        );
        assert!(shim
            .as_deref()
            .unwrap()
            .contains("return crypto_kem_enc(ct, ss, pk)"));
        let kat = find_kat(&dir).unwrap();
        assert!(
            kat.ends_with("KAT/mlkem512/PQCkemKAT_1632.rsp"),
            "{}",
            kat.display()
        );
        let e = from_dir(dir.parent().unwrap(), "local/x", "ML-KEM-512", p).unwrap_err();
        assert!(e.contains("has no api.h"), "{e}");
    }
}
