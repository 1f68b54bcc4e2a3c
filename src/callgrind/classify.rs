//! Which primitive a function belongs to, by name: one table of patterns per provider, plus
//! the Rust crates any provider (and kembench's own adapters) may call. A stack's cost goes to
//! the outermost frame that matches (see `analyse`), so the tables name entry points as well
//! as inner functions, and never an algorithm's own functions (`OQS_KEM_keypair`,
//! `PQCLEAN_..._crypto_kem_keypair`, `ossl_ml_kem_genkey`), which call several primitives.
//!
//! Patterns are globs (`*` matches any run of characters) on the name after two
//! normalisations: aws-lc's symbol prefix (`aws_lc_0_47_0_`) is dropped, and so is a C
//! name's compiler or version suffix (`.constprop.0`, `.cold`, `@@GLIBC_2.25`).

use super::inline::InlineFrame;
use super::Primitive::{self, Aes, Bignum, Keccak, Rng, Sha2};

/// A set of patterns that all mean one primitive.
type Rule = (Primitive, &'static [&'static str]);

/// Names that never decide by themselves, whatever else matches: the algorithms' entry
/// points, and the probes kembench wraps around liboqs's SHA-3 callbacks (their callees
/// decide).
const NEVER: &[&str] = &[
    "kembench_sha3_probe*",
    "kembench_profiled_op",
    "OQS_KEM_*",
    "*_crypto_kem_*",
    "ossl_ml_kem_*",
    "ml_kem_*",
];

/// liboqs: its own SHA-3 (XKCP, `OQS_SHA3_*` / `SHA3_*` dispatch), SHA-2, AES, and
/// `OQS_randombytes`; some schemes are PQClean code with their own hash names.
const LIBOQS: &[Rule] = &[
    (Rng, &["OQS_randombytes*", "randombytes*"]),
    (
        Keccak,
        &[
            "OQS_SHA3_*",
            "SHA3_*",
            "Keccak*",
            "__KeccakF1600",
            "keccak_*",
            "*_shake128*",
            "*_shake256*",
            "*_sha3_256*",
            "*_sha3_512*",
            "*seedexpander*",
            "shake128*",
            "shake256*",
            "sha3_*",
        ],
    ),
    (
        Sha2,
        &[
            "OQS_SHA2_*",
            "SHA2_*",
            "oqs_sha2_*",
            "*crypto_hashblocks_sha*",
            "*crypto_hash_sha*",
            "sha256*",
            "sha384*",
            "sha512*",
        ],
    ),
    (
        Aes,
        &[
            "OQS_AES*", "AES128_*", "AES256_*", "oqs_aes*", "aes128_*", "aes256_*",
        ],
    ),
];

/// PQClean through the pqcrypto crates: the common `fips202.c` (`shake128_absorb`,
/// `sha3_256`, `KeccakF1600_StatePermute`), the AVX2 four-way Keccak, each scheme's hash
/// wrappers (`..._kyber_shake128_absorb`, `..._shake256x4_...`), and the crates'
/// `PQCRYPTO_RUST_randombytes`.
const PQCLEAN: &[Rule] = &[
    (Rng, &["PQCRYPTO_RUST_randombytes*", "randombytes*"]),
    (
        Keccak,
        &[
            "*KeccakF1600*",
            "*KeccakP1600*",
            "*f1600x4*",
            "keccak_*",
            "shake128*",
            "shake256*",
            "sha3_*",
            "*_shake128*",
            "*_shake256*",
            "*_sha3_256*",
            "*_sha3_512*",
            "*seedexpander*",
        ],
    ),
    (
        Sha2,
        &[
            "sha224*",
            "sha256*",
            "sha384*",
            "sha512*",
            "*crypto_hashblocks_sha*",
        ],
    ),
    (Aes, &["aes128_*", "aes192_*", "aes256_*", "aes_*"]),
];

/// OpenSSL 3: the provider digests and `SHA3_absorb`/`KeccakF1600`, ML-KEM's own
/// `single_keccak`, SHA-2 block functions, AES-NI, the DRBG chain from `RAND_*` down to the
/// seed source, and BN / nistz256 / X25519 / X448 arithmetic. Random scalars
/// (`BN_priv_rand_range_ex`) are RNG, not bignum.
const OPENSSL: &[Rule] = &[
    (
        Rng,
        &[
            "RAND_*",
            "rand_*",
            "ossl_rand_*",
            "EVP_RAND_*",
            "evp_rand_*",
            "drbg_*",
            "ossl_drbg_*",
            "ossl_prov_drbg_*",
            "ossl_crngt_*",
            "crng_test*",
            "seed_src_*",
            "seed_get_seed",
            "seed_clear_seed",
            "ossl_pool_*",
            "ossl_prov_get_entropy",
            "ossl_prov_seeding_*",
            "get_entropy",
            "cleanup_entropy",
            "do_rand_init*",
            "syscall_random",
            "BN_rand*",
            "BN_priv_rand*",
            "BN_pseudo_rand*",
            "BN_generate_dsa_nonce",
            "bnrand*",
            "ossl_bn_priv_rand*",
            "ossl_bn_gen_dsa_nonce*",
        ],
    ),
    (
        Keccak,
        &[
            "SHA3_*",
            "KeccakF1600",
            "__KeccakF1600",
            "ossl_sha3_*",
            "ossl_keccak_*",
            "keccak_*",
            "generic_sha3_*",
            "shake_*",
            "sha3_*",
            "single_keccak",
        ],
    ),
    (
        Sha2,
        &[
            "sha1_block_data_order*",
            "sha256_block_data_order*",
            "sha512_block_data_order*",
            "SHA1_*",
            "SHA224*",
            "SHA256*",
            "SHA384*",
            "SHA512*",
            "ossl_sha1*",
            "ossl_sha256*",
            "ossl_sha512*",
            "sha1_*",
            "sha224_*",
            "sha256_*",
            "sha384_*",
            "sha512_*",
        ],
    ),
    (
        Aes,
        &[
            "aesni_*",
            "_aesni_*",
            "AES_*",
            "vpaes_*",
            "_vpaes_*",
            "bsaes_*",
            "ossl_aes*",
            "cipher_hw_aes*",
            "ossl_prov_cipher_hw_aes*",
        ],
    ),
    (
        Bignum,
        &[
            "BN_*",
            "bn_*",
            "ossl_bn_*",
            "EC_POINT_*",
            "ossl_ec_GFp_*",
            "ossl_ec_scalar_mul*",
            "ossl_ec_wNAF_*",
            "ecp_nistz256*",
            "__ecp_nistz256*",
            "ossl_ec_GFp_nistp*",
            "ossl_ec_nistp*",
            "x25519_fe51*",
            "x25519_fe64*",
            "x25519_scalar_mult*",
            "ossl_x25519",
            "ossl_x25519_public_from_private",
            "ge_*",
            "fe_*",
            "fe51_*",
            "fe64_*",
            "ossl_x448",
            "ossl_x448_public_from_private",
            "ossl_curve448_*",
            "ossl_c448_*",
            "gf_*",
            "ossl_gf_*",
        ],
    ),
];

/// aws-lc (aws-lc-rs, and rustls on it): `Keccak1600_*`/`SHA3_*`/`SHAKE_*`, the CTR-DRBG
/// with its entropy sources (jitter entropy, RDRAND, the OS), AES-NI, and s2n-bignum /
/// fiat / nistz256 arithmetic.
const AWS_LC: &[Rule] = &[
    (
        Rng,
        &[
            "RAND_*",
            "rand_*",
            "CTR_DRBG_*",
            "ctr_drbg_*",
            "CRYPTO_sysrand*",
            "CRYPTO_rdrand*",
            "rdrand_*",
            "CRYPTO_get_fork_ube_generation",
            "CRYPTO_get_ube_generation_number",
            "CRYPTO_get_vm_ube_*",
            "jent_*",
            "_jent_*",
            "tree_jitter_*",
            "get_entropy_source",
            "fill_with_entropy",
            "ensure_entropy_state_is_initd_once",
            "entropy_*",
            "bn_rand*",
            "BN_rand*",
            "ec_random_*",
        ],
    ),
    (
        Keccak,
        &[
            "Keccak1600_*",
            "KeccakF1600*",
            "KeccakSponge_*",
            "SHA3_*",
            "SHAKE*",
            "sha3_keccak*",
        ],
    ),
    (
        Sha2,
        &[
            "sha256_block_data_order*",
            "sha512_block_data_order*",
            "SHA224*",
            "SHA256*",
            "SHA384*",
            "SHA512*",
        ],
    ),
    (
        Aes,
        &[
            "aes_hw_*",
            "aes_nohw_*",
            "vpaes_*",
            "aes_ctr_set_key",
            "AES_*",
        ],
    ),
    (
        Bignum,
        &[
            "fiat_*",
            "bignum_*",
            "curve25519_x25519*",
            "x25519_scalar_mult*",
            "x25519_public_from_private*",
            "x25519_ge_*",
            "x25519_sc_*",
            "X25519",
            "X25519_public_from_private",
            "ec_GFp_*",
            "ec_point_*",
            "ec_felem_*",
            "ec_scalar_*",
            "ec_simple_scalar*",
            "ec_compute_wNAF",
            "ec_nistp*",
            "EC_POINT_*",
            "p256_*",
            "p384_*",
            "p521_*",
            "Lp256_*",
            "Lp384_*",
            "Lp521_*",
            "ecp_nistz256*",
            "__ecp_nistz256*",
            "bn_*",
            "BN_*",
        ],
    ),
];

/// libcrux: its SHA-3 crate and ML-KEM's hash module.
const LIBCRUX: &[Rule] = &[(
    Keccak,
    &[
        "libcrux_ml_kem::hash_functions::*",
        "<libcrux_ml_kem::hash_functions::*",
    ],
)];

/// RustCrypto's ml-kem: its hash functions (`G`, `H`, `J`, `PRF`, `XOF`).
const RUSTCRYPTO: &[Rule] = &[(
    Keccak,
    &[
        "ml_kem::crypto::G*",
        "ml_kem::crypto::H*",
        "ml_kem::crypto::J*",
        "ml_kem::crypto::PRF*",
        "ml_kem::crypto::XOF*",
    ],
)];

/// Functions any provider reaches: the C library's entropy calls.
const SHARED: &[Rule] = &[(Rng, &["getrandom", "getentropy", "__getrandom_nocancel"])];

/// Rust crates by their first path segment (`sha3::...`, `<sha3::Sha3_256 as ...>::...`).
const RUST_CRATES: &[(&str, Primitive)] = &[
    ("sha3", Keccak),
    ("shake", Keccak),
    ("keccak", Keccak),
    ("sponge_cursor", Keccak),
    ("libcrux_sha3", Keccak),
    ("tiny_keccak", Keccak),
    ("sha2", Sha2),
    ("aes", Aes),
    ("rand", Rng),
    ("rand_core", Rng),
    ("rand_chacha", Rng),
    ("getrandom", Rng),
];

/// The source files whose code is one primitive, for frames the debug information names
/// (inlined code, `super::inline`): globs on the whole path, per provider. Rust crates from
/// the registry are named by their path as well (the [`RUST_CRATES`] table).
type FileRule = (Primitive, &'static [&'static str]);

/// liboqs's common primitives and mlkem-native's glue to them.
const LIBOQS_FILES: &[FileRule] = &[
    (
        Keccak,
        &[
            "*/src/common/sha3/*",
            "*/fips202_glue.h",
            "*/fips202x4_glue.h",
        ],
    ),
    (Sha2, &["*/src/common/sha2/*"]),
    (Aes, &["*/src/common/aes/*"]),
    (Rng, &["*/src/common/rand/*"]),
];

/// PQClean's common files (pqcrypto-internals) and each scheme's SHAKE wrappers.
const PQCLEAN_FILES: &[FileRule] = &[
    (Rng, &["*/randombytes.c"]),
    (
        Keccak,
        &[
            "*/fips202.c",
            "*/fips202x4.c",
            "*/fips202x2.c",
            "*/keccak4x/*",
            "*/keccak2x/*",
            "*/sp800-185.c",
            "*/symmetric-shake.c",
        ],
    ),
    (Sha2, &["*/sha2.c"]),
    (Aes, &["*/aes.c", "*/nistseedexpander.c"]),
];

/// libcrux ML-KEM's hash module (its SHA-3 crate is named by its path).
const LIBCRUX_FILES: &[FileRule] = &[(Keccak, &["*/libcrux-ml-kem-*/src/hash_functions*"])];

/// RustCrypto ml-kem's `crypto.rs`, which holds only its hash functions.
const RUSTCRYPTO_FILES: &[FileRule] = &[(Keccak, &["*/ml-kem-*/src/crypto.rs"])];

/// The file tables of each provider name.
const PROVIDER_FILES: &[(&str, &[FileRule])] = &[
    ("liboqs", LIBOQS_FILES),
    ("pqclean", PQCLEAN_FILES),
    ("libcrux", LIBCRUX_FILES),
    ("rustcrypto", RUSTCRYPTO_FILES),
];

/// The tables of each provider name; rustls runs on aws-lc.
const PROVIDERS: &[(&str, &[Rule])] = &[
    ("liboqs", LIBOQS),
    ("pqclean", PQCLEAN),
    ("openssl", OPENSSL),
    ("aws-lc", AWS_LC),
    ("rustls", AWS_LC),
    ("libcrux", LIBCRUX),
    ("rustcrypto", RUSTCRYPTO),
];

/// Classifies function names for one provider.
pub(crate) struct Classifier {
    rules: Vec<Rule>,
    files: Vec<FileRule>,
}

impl Classifier {
    /// The classifier of `provider` (its name as in `kembench list`, before any `/`); an
    /// empty or unknown name uses every table, in the order of [`PROVIDERS`].
    pub fn new(provider: &str) -> Classifier {
        let base = provider.split('/').next().unwrap_or("");
        let mut rules: Vec<Rule> = Vec::new();
        match PROVIDERS.iter().find(|(name, _)| *name == base) {
            Some((_, table)) => rules.extend_from_slice(table),
            None if base == "mock" => {}
            None => {
                for (_, table) in PROVIDERS {
                    rules.extend_from_slice(table);
                }
            }
        }
        rules.extend_from_slice(SHARED);
        let files = match PROVIDER_FILES.iter().find(|(name, _)| *name == base) {
            Some((_, table)) => table.to_vec(),
            None if base == "mock" => Vec::new(),
            None => PROVIDER_FILES
                .iter()
                .flat_map(|(_, t)| t.iter().copied())
                .collect(),
        };
        Classifier { rules, files }
    }

    /// The primitive of a frame the debug information names: by its function's name, as
    /// [`classify`](Self::classify), else by the source file its code comes from (the
    /// provider's file table, or a registry crate of [`RUST_CRATES`]). `None` when neither
    /// decides.
    pub fn classify_frame(&self, frame: &InlineFrame) -> Option<Primitive> {
        if !frame.function.is_empty() {
            let name = normalise(&frame.function);
            if NEVER.iter().any(|p| glob(p, name)) {
                return None;
            }
            if let Some(p) = self.classify(&frame.function) {
                return Some(p);
            }
        }
        if frame.file.is_empty() {
            return None;
        }
        for (primitive, patterns) in &self.files {
            if patterns.iter().any(|p| glob(p, &frame.file)) {
                return Some(*primitive);
            }
        }
        let krate = registry_crate(&frame.file)?.replace('-', "_");
        RUST_CRATES
            .iter()
            .find(|(c, _)| *c == krate)
            .map(|(_, p)| *p)
    }

    /// The primitive `frame` belongs to, or `None` when its callees must decide.
    pub fn classify(&self, frame: &str) -> Option<Primitive> {
        let name = normalise(frame);
        if NEVER.iter().any(|p| glob(p, name)) {
            return None;
        }
        for (primitive, patterns) in &self.rules {
            if patterns.iter().any(|p| glob(p, name)) {
                return Some(*primitive);
            }
        }
        let krate = rust_crate(name)?;
        RUST_CRATES
            .iter()
            .find(|(c, _)| *c == krate)
            .map(|(_, p)| *p)
    }
}

/// The primitive `frame` belongs to when profiling `provider`, by the same tables as the
/// shares of [`analyse()`](super::analyse()); `None` when the frame does not decide by itself.
pub fn primitive_of(provider: &str, frame: &str) -> Option<Primitive> {
    Classifier::new(provider).classify(frame)
}

/// Drops aws-lc's symbol prefix and a C name's `.suffix` or `@version`.
fn normalise(frame: &str) -> &str {
    let mut name = frame;
    if let Some(rest) = name.strip_prefix("aws_lc_") {
        // aws_lc_<major>_<minor>_<patch>_NAME
        let mut parts = rest.splitn(4, '_');
        let numeric = |p: Option<&str>| p.is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()));
        if numeric(parts.next()) && numeric(parts.next()) && numeric(parts.next()) {
            if let Some(n) = parts.next() {
                name = n;
            }
        }
    }
    if let Some(end) = name.find(['.', '@']) {
        let stem = &name[..end];
        if !stem.is_empty() && stem.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            name = stem;
        }
    }
    name
}

/// The crate a Rust path starts with: `sha3` for `sha3::f` and `<sha3::Sha3_256 as T>::f`.
fn rust_crate(name: &str) -> Option<&str> {
    let path = name.trim_start_matches(['<', '&']);
    let path = path.strip_prefix("mut ").unwrap_or(path);
    let end = path.find("::")?;
    let krate = &path[..end];
    krate
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        .then_some(krate)
}

/// The crate a source path from cargo's registry belongs to, as its package is named
/// (`libcrux-sha3` for `.../registry/src/index.crates.io-.../libcrux-sha3-0.0.11/src/x.rs`).
fn registry_crate(path: &str) -> Option<&str> {
    let (_, rest) = path.split_once("/registry/src/")?;
    let mut parts = rest.split('/');
    parts.next()?; // the index's folder
    let package = parts.next()?;
    // name-MAJOR.MINOR.PATCH[-pre][+build]: the name ends before the '-' that starts the version.
    let at = package
        .match_indices('-')
        .map(|(i, _)| i)
        .find(|&i| package[i + 1..].starts_with(|c: char| c.is_ascii_digit()))?;
    Some(&package[..at])
}

/// Whether `name` matches `pattern`, where `*` matches any run of characters.
fn glob(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty(); // no `*`: exact
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("abc", "abc"));
        assert!(!glob("abc", "abcd"));
        assert!(glob("abc*", "abcd"));
        assert!(glob("*bc*", "abcd"));
        assert!(!glob("*bc*", "acd"));
        assert!(glob("a*c*e", "abcde"));
        assert!(!glob("a*c*e", "abcdef"));
        assert!(glob(
            "*_shake128*",
            "PQCLEAN_MLKEM768_CLEAN_kyber_shake128_absorb"
        ));
        assert!(glob("a*a", "aa"));
        assert!(!glob("a*a", "a"));
    }

    #[test]
    fn normalises_prefixes_and_suffixes() {
        assert_eq!(normalise("aws_lc_0_47_0_SHA3_256"), "SHA3_256");
        assert_eq!(
            normalise("aws_lc_rs::agreement::x"),
            "aws_lc_rs::agreement::x"
        );
        assert_eq!(normalise("keccak_absorb.constprop.2"), "keccak_absorb");
        assert_eq!(normalise("getrandom@@GLIBC_2.25"), "getrandom");
        assert_eq!(
            normalise("core::ops::function::FnOnce::call_once{{vtable.shim}}"),
            "core::ops::function::FnOnce::call_once{{vtable.shim}}"
        );
        assert_eq!(
            rust_crate("<sha3::Sha3_256 as digest::Update>::update"),
            Some("sha3")
        );
        assert_eq!(
            rust_crate("<&module_lattice::X as Mul>::mul"),
            Some("module_lattice")
        );
        assert_eq!(
            rust_crate("keccak::backends::soft::keccak_p"),
            Some("keccak")
        );
        assert_eq!(rust_crate("memcpy"), None);
    }

    #[test]
    fn entry_points_and_probes_never_decide() {
        for provider in ["liboqs", "pqclean", "openssl", "aws-lc", ""] {
            let c = Classifier::new(provider);
            for name in [
                "OQS_KEM_keypair",
                "OQS_KEM_frodokem_640_shake_keypair",
                "PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair",
                "PQCLEAN_MLKEM768_AVX2_crypto_kem_keypair_derand",
                "ossl_ml_kem_genkey",
                "ml_kem_gen",
                "kembench_sha3_probe_shake128",
                "kembench_sha3_probe",
                "kembench_profiled_op",
                "EVP_PKEY_keygen",
                "aws_lc_0_47_0_EC_KEY_generate_key",
                "aws_lc_0_47_0_X25519_keypair",
                "x25519_gen",
                "ossl_ec_key_simple_generate_key",
                "libcrux_ml_kem::mlkem768::avx2::generate_key_pair",
                "ml_kem::pke::DecryptionKey<P>::generate",
                "memcpy",
            ] {
                assert_eq!(c.classify(name), None, "{provider}: {name}");
            }
        }
    }

    #[test]
    fn each_table_knows_its_provider() {
        let cases: &[(&str, Primitive, &[&str])] = &[
            (
                "liboqs",
                Keccak,
                &[
                    "KeccakP1600times4_PermuteAll_24rounds_avx2",
                    "OQS_SHA3_shake128_x4_inc_squeeze",
                ],
            ),
            ("liboqs", Rng, &["OQS_randombytes_system"]),
            (
                "liboqs",
                Aes,
                &["OQS_AES128_ECB_enc_sch", "oqs_aes128_ecb_enc_sch_ni"],
            ),
            ("liboqs", Sha2, &["OQS_SHA2_sha512"]),
            (
                "pqclean",
                Keccak,
                &[
                    "PQCLEAN_MLKEM768_CLEAN_kyber_shake128_absorb",
                    "PQCLEAN_MLKEM768_AVX2_shake128x4_squeezeblocks",
                    "KeccakF1600_StatePermute",
                    "keccak_absorb.constprop.2",
                ],
            ),
            ("pqclean", Rng, &["PQCRYPTO_RUST_randombytes", "getrandom"]),
            ("openssl", Keccak, &["SHA3_absorb", "single_keccak"]),
            ("openssl", Sha2, &["sha256_block_data_order_avx2"]),
            ("openssl", Aes, &["aesni_ctr32_encrypt_blocks"]),
            (
                "openssl",
                Rng,
                &["RAND_priv_bytes_ex", "BN_priv_rand_range_ex"],
            ),
            (
                "openssl",
                Bignum,
                &[
                    "BN_mod_mul_montgomery",
                    "x25519_fe51_mul",
                    "ossl_x25519",
                    "ecp_nistz256_point_double",
                ],
            ),
            (
                "aws-lc",
                Keccak,
                &[
                    "aws_lc_0_47_0_Keccak1600_Squeezeblocks_x4",
                    "aws_lc_0_47_0_SHAKE256_x4",
                ],
            ),
            (
                "aws-lc",
                Rng,
                &[
                    "aws_lc_0_47_0_CTR_DRBG_generate",
                    "aws_lc_0_47_0_RAND_bytes",
                    "aws_lc_0_47_0_bn_rand_range_words",
                ],
            ),
            ("aws-lc", Aes, &["aws_lc_0_47_0_aes_hw_encrypt"]),
            (
                "aws-lc",
                Bignum,
                &[
                    "aws_lc_0_47_0_curve25519_x25519_alt",
                    "aws_lc_0_47_0_X25519",
                    "__ecp_nistz256_mul_montq",
                ],
            ),
            ("rustls", Keccak, &["aws_lc_0_47_0_SHA3_256"]),
            (
                "libcrux",
                Keccak,
                &[
                    "libcrux_sha3::generic_keccak::portable::keccak1",
                    "libcrux_ml_kem::hash_functions::avx2::G",
                ],
            ),
            (
                "rustcrypto",
                Keccak,
                &[
                    "keccak::backends::soft::keccak_p",
                    "<sha3::Sha3_512 as digest::Update>::update",
                    "<shake::ShakeReader<_> as digest::XofReader>::read",
                    "ml_kem::crypto::XOF",
                ],
            ),
            (
                "rustcrypto",
                Rng,
                &["getrandom::backends::linux_android_with_fallback::init"],
            ),
            ("mock", Sha2, &["<sha2::Sha256 as digest::Update>::update"]),
        ];
        for &(provider, want, names) in cases {
            for name in names {
                assert_eq!(
                    primitive_of(provider, name),
                    Some(want),
                    "{provider}: {name}"
                );
            }
        }
        // One provider's names mean nothing to another's table (beyond the shared ones).
        assert_eq!(primitive_of("liboqs", "single_keccak"), None);
        assert_eq!(primitive_of("rustcrypto", "SHA3_absorb"), None);
        // An unknown provider uses every table.
        assert_eq!(primitive_of("", "SHA3_absorb"), Some(Keccak));
    }

    #[test]
    fn registry_paths_name_their_crate() {
        let reg = "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f";
        assert_eq!(
            registry_crate(&format!("{reg}/libcrux-sha3-0.0.11/src/simd/avx2.rs")),
            Some("libcrux-sha3")
        );
        assert_eq!(
            registry_crate(&format!(
                "{reg}/oqs-sys-0.11.0+liboqs-0.13.0/liboqs/src/x.c"
            )),
            Some("oqs-sys")
        );
        assert_eq!(
            registry_crate(&format!("{reg}/sha3-0.10.9/src/lib.rs")),
            Some("sha3")
        );
        assert_eq!(registry_crate("/work/main/src/kem/mod.rs"), None);
        assert_eq!(
            registry_crate("/rustc/abc/library/core/src/ptr/mod.rs"),
            None
        );
    }

    /// Frames named by the debug information: by the function's name first, then by the
    /// source file (the provider's table, then registry crates); the algorithms' entry points
    /// never decide.
    #[test]
    fn inlined_frames_are_classified_by_name_then_file() {
        let reg = "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f";
        let f = |function: &str, file: &str| InlineFrame {
            function: function.into(),
            file: file.into(),
        };
        let libcrux = Classifier::new("libcrux/avx2");
        let keccak = f(
            "keccakf1600<4>",
            &format!("{reg}/libcrux-sha3-0.0.11/src/generic_keccak.rs"),
        );
        assert_eq!(libcrux.classify_frame(&keccak), Some(Keccak));
        let hash = f(
            "shake128_squeeze_first_three_blocks<3>",
            &format!("{reg}/libcrux-ml-kem-0.0.11/src/hash_functions.rs"),
        );
        assert_eq!(libcrux.classify_frame(&hash), Some(Keccak));
        let ntt = f(
            "ntt_at_layer_1",
            &format!("{reg}/libcrux-ml-kem-0.0.11/src/ntt.rs"),
        );
        assert_eq!(libcrux.classify_frame(&ntt), None);
        let intrinsic = f(
            "_mm256_xor_si256",
            "/rustc/x/library/stdarch/crates/core_arch/src/x86/avx2.rs",
        );
        assert_eq!(libcrux.classify_frame(&intrinsic), None);
        let liboqs = Classifier::new("liboqs");
        assert_eq!(
            liboqs.classify_frame(&f("KeccakF1600_StatePermute", "/x/other.c")),
            Some(Keccak)
        );
        assert_eq!(
            liboqs.classify_frame(&f(
                "",
                &format!("{reg}/oqs-sys-0.11.0+liboqs-0.13.0/liboqs/src/common/sha3/xkcp_low/x.c")
            )),
            Some(Keccak)
        );
        assert_eq!(
            liboqs.classify_frame(&f(
                "OQS_KEM_ml_kem_768_keypair",
                "/x/src/common/sha3/glue.c"
            )),
            None,
            "an entry point never decides, whatever its file"
        );
        let pqclean = Classifier::new("pqclean/avx2");
        assert_eq!(
            pqclean.classify_frame(&f(
                "",
                &format!(
                    "{reg}/pqcrypto-internals-0.2.11/cfiles/keccak4x/KeccakP-1600-times4-SIMD256.c"
                )
            )),
            Some(Keccak)
        );
        assert_eq!(pqclean.classify_frame(&f("", "/x/cfiles/aes.c")), Some(Aes));
        let rustcrypto = Classifier::new("rustcrypto");
        assert_eq!(
            rustcrypto.classify_frame(&f("G<...>", &format!("{reg}/ml-kem-0.3.4/src/crypto.rs"))),
            Some(Keccak)
        );
        assert_eq!(
            rustcrypto.classify_frame(&f("keccak_p", &format!("{reg}/keccak-0.2.2/src/lib.rs"))),
            Some(Keccak)
        );
        assert_eq!(rustcrypto.classify_frame(&f("", "")), None);
    }
}
