//! The KEMs a liboqs tree declares, and which of kembench's catalog algorithms each is built
//! as. A tree of another version may call an algorithm by another name (liboqs 0.16's
//! `NTRU-HPS-2048-509`, `eFrodoKEM-640-AES`) or keep a name for another specification
//! (0.16's `FrodoKEM-640-AES` is the salted FrodoKEM, with other sizes): a KEM is built as a
//! catalog algorithm only when its declared sizes are that algorithm's, and then the gate (the
//! tree's own known answers, exchanges with every other implementation of the algorithm)
//! decides whether it is that algorithm.

use super::c_text;
use crate::kem::catalog::{self, Algorithm};
use std::path::Path;

/// One KEM a liboqs tree switches on (`OQS_ENABLE_KEM_<id>` in `.CMake/alg_support.cmake`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Declared {
    /// liboqs's id (`hqc_1`): `OQS_MINIMAL_BUILD=KEM_<id>`, symbols `OQS_KEM_<id>_*`.
    pub id: String,
    /// liboqs's name for it (`OQS_KEM_alg_<id>` in `src/kem/kem.h`), else the id.
    pub name: String,
    /// The folder under `src/kem/` whose `kem_*.h` declares it.
    pub family: Option<String>,
    /// Public key, secret key, ciphertext and shared secret bytes its header declares.
    pub sizes: [Option<usize>; 4],
}

impl Declared {
    fn sizes_said(&self) -> String {
        let n = |v: Option<usize>| v.map_or("?".to_string(), |v| v.to_string());
        format!(
            "pk {}, sk {}, ct {}, ss {} bytes",
            n(self.sizes[0]),
            n(self.sizes[1]),
            n(self.sizes[2]),
            n(self.sizes[3])
        )
    }
}

/// Every KEM the liboqs tree at `root` switches on, in the order its
/// `.CMake/alg_support.cmake` names them.
pub(super) fn declared(root: &Path) -> Vec<Declared> {
    let support =
        std::fs::read_to_string(root.join(".CMake").join("alg_support.cmake")).unwrap_or_default();
    let kem_h = std::fs::read_to_string(root.join("src").join("kem").join("kem.h"))
        .map(|t| c_text::read(&t))
        .unwrap_or_default();
    // Each family folder's `kem_*.h`, read once, in the folders' order.
    let entries = |dir: &Path| -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        v.sort();
        v
    };
    let mut headers: Vec<(String, c_text::CText)> = Vec::new();
    for dir in entries(&root.join("src").join("kem")) {
        let Some(family) = dir.file_name().map(|f| f.to_string_lossy().into_owned()) else {
            continue;
        };
        for p in entries(&dir) {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            if !(name.starts_with("kem_") && name.ends_with(".h")) {
                continue;
            }
            if let Ok(t) = std::fs::read_to_string(&p) {
                headers.push((family.clone(), c_text::read(&t)));
            }
        }
    }
    let mut out: Vec<Declared> = Vec::new();
    for word in support.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        let Some(id) = word.strip_prefix("OQS_ENABLE_KEM_") else {
            continue;
        };
        // Per-algorithm switches are lower case (`ml_kem_768`); families upper case; an
        // implementation's own (`ml_kem_768_avx2`) is not an algorithm.
        let lower = id.chars().any(|c| c.is_ascii_lowercase());
        let own_impl = ["_avx2", "_aarch64", "_cuda", "_icicle", "_x86_64"]
            .iter()
            .any(|s| id.ends_with(s));
        if !lower || own_impl || out.iter().any(|d| d.id == id) {
            continue;
        }
        let length = |what: &str| format!("OQS_KEM_{id}_length_{what}");
        let home = headers
            .iter()
            .find(|(_, h)| h.defined_number(&length("public_key")).is_some());
        let n = |what: &str| home.and_then(|(_, h)| h.defined_number(&length(what)));
        out.push(Declared {
            id: id.to_string(),
            name: kem_h
                .defined_string(&format!("OQS_KEM_alg_{id}"))
                .unwrap_or_else(|| id.to_string()),
            family: home.map(|(f, _)| f.clone()),
            sizes: [
                n("public_key"),
                n("secret_key"),
                n("ciphertext"),
                n("shared_secret"),
            ],
        });
    }
    out
}

/// The family switch of folder `family` (`OQS_ENABLE_KEM_HQC` for `hqc`) when the tree at
/// `root` declares it off by default (`option(OQS_ENABLE_KEM_HQC "..." OFF)`: liboqs 0.13's
/// HQC), so that a build of one of its algorithms must switch it on; `None` when it is on by
/// default or not a plain option.
pub(super) fn off_by_default(root: &Path, family: &str) -> Option<String> {
    let switch = format!("OQS_ENABLE_KEM_{}", family.to_ascii_uppercase());
    let support =
        std::fs::read_to_string(root.join(".CMake").join("alg_support.cmake")).unwrap_or_default();
    support
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("option("))
        .filter_map(|l| l.trim_start().strip_prefix(switch.as_str()))
        .any(|rest| {
            rest.starts_with(|c: char| c.is_whitespace())
                && rest
                    .trim_end()
                    .trim_end_matches(')')
                    .trim_end()
                    .ends_with("OFF")
        })
        .then_some(switch)
}

/// A name as letters and digits alone, lower case: `NTRU-HPS-2048-509` and `ntruhps2048509`
/// are one name.
fn plain(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn sizes_of(a: &Algorithm) -> [Option<usize>; 4] {
    [
        Some(a.pk_len),
        Some(a.sk_len),
        Some(a.ct_len),
        Some(a.ss_len),
    ]
}

/// The catalog algorithm the tree's KEM `k` is built as, or why it is not built:
/// - the algorithm of the same name (letters and digits, any case), when the sizes are its;
/// - else one with the same sizes whose name ends liboqs's (`eFrodoKEM-640-AES`:
///   `FrodoKEM-640-AES`, the unsalted FrodoKEM, which kembench's other FrodoKEMs implement);
/// - a name kembench knows with other sizes is another specification under that name, and is
///   said so (liboqs 0.16's salted `FrodoKEM-640-AES`).
pub(super) fn built_as(k: &Declared) -> Result<&'static Algorithm, String> {
    let name = plain(&k.name);
    let kems = || {
        catalog::ALGORITHMS
            .iter()
            .filter(|a| a.nist_level.is_some() && a.hybrid.is_none())
    };
    let same_name = kems().find(|a| plain(a.name) == name);
    if k.sizes.iter().any(Option::is_none) {
        return Err(format!(
            "the tree's header declares no full set of sizes for it ({}), so kembench cannot \
             tell which algorithm it is; not built from this tree",
            k.sizes_said()
        ));
    }
    if let Some(a) = same_name.filter(|a| sizes_of(a) == k.sizes) {
        return Ok(a);
    }
    if let Some(a) = kems().find(|a| sizes_of(a) == k.sizes && name.ends_with(&plain(a.name))) {
        return Ok(a);
    }
    Err(match same_name {
        Some(a) => format!(
            "another specification under kembench's name: the tree declares {}, kembench's {} \
             ({}) has pk {}, sk {}, ct {}, ss {} bytes; not built from this tree (kembench \
             does not implement the tree's)",
            k.sizes_said(),
            a.name,
            a.standard,
            a.pk_len,
            a.sk_len,
            a.ct_len,
            a.ss_len
        ),
        None => format!(
            "not in kembench's catalog, so not built from this tree; the tree declares {}",
            k.sizes_said()
        ),
    })
}

/// How a record names a KEM that liboqs calls otherwise than the catalog (`eFrodoKEM-640-AES`
/// built as `FrodoKEM-640-AES`); `None` when the names agree but for case and punctuation.
pub(super) fn renamed(k: &Declared, a: &Algorithm) -> Option<String> {
    (plain(&k.name) != plain(a.name)).then(|| {
        format!(
            "liboqs's {}, built as {} (the same sizes; its known answers and exchanges with \
             kembench's other {} implementations decide)",
            k.name, a.name, a.name
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kem(name: &str, sizes: [usize; 4]) -> Declared {
        Declared {
            id: plain(name),
            name: name.into(),
            family: Some("f".into()),
            sizes: sizes.map(Some),
        }
    }

    /// liboqs 0.16's names and sizes, as its headers declare them.
    #[test]
    fn a_kem_is_built_as_the_algorithm_its_sizes_and_name_say() {
        let as_ = |k: Declared| built_as(&k).map(|a| a.name);
        assert_eq!(as_(kem("HQC-1", [2241, 2321, 4433, 32])), Ok("HQC-1"));
        assert_eq!(as_(kem("HQC-128", [2249, 2305, 4433, 64])), Ok("HQC-128"));
        assert_eq!(
            as_(kem("NTRU-HPS-2048-509", [699, 935, 699, 32])),
            Ok("ntruhps2048509")
        );
        let e = kem("eFrodoKEM-640-AES", [9616, 19888, 9720, 16]);
        let a = built_as(&e).unwrap();
        assert_eq!(a.name, "FrodoKEM-640-AES");
        assert!(renamed(&e, a)
            .unwrap()
            .contains("liboqs's eFrodoKEM-640-AES"));
        assert!(renamed(&kem("HQC-1", [2241, 2321, 4433, 32]), a).is_some());
        let hqc = catalog::find("HQC-1").unwrap();
        assert_eq!(renamed(&kem("hqc-1", [0; 4]), hqc), None);
    }

    #[test]
    fn another_specification_under_a_known_name_is_not_built() {
        // liboqs 0.16's FrodoKEM-640-AES: the salted FrodoKEM.
        let e = built_as(&kem("FrodoKEM-640-AES", [9616, 19888, 9752, 16])).unwrap_err();
        assert!(
            e.contains("another specification")
                && e.contains("pk 9616, sk 19888, ct 9752, ss 16 bytes")
                && e.contains("ct 9720"),
            "{e}"
        );
        // HQC-1's sizes under HQC-128's name: not HQC-128, and not taken for HQC-1 either.
        let e = built_as(&kem("HQC-128", [2241, 2321, 4433, 32])).unwrap_err();
        assert!(e.contains("another specification"), "{e}");
        let e = built_as(&kem("NewKEM-1", [1, 2, 3, 4])).unwrap_err();
        assert!(e.contains("not in kembench's catalog"), "{e}");
        let mut k = kem("ML-KEM-768", [1184, 2400, 1088, 32]);
        assert!(built_as(&k).is_ok());
        k.sizes[2] = None;
        let e = built_as(&k).unwrap_err();
        assert!(e.contains("ct ?"), "{e}");
    }

    /// A tree's folders: ids from alg_support.cmake, names from kem.h, sizes and family from
    /// the family's header; implementations' own switches and families are not KEMs.
    #[test]
    fn a_tree_declares_its_kems_in_its_own_files() {
        let d = std::env::temp_dir().join(format!("kembench-liboqs-kems-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join(".CMake")).unwrap();
        std::fs::create_dir_all(d.join("src/kem/hqc")).unwrap();
        std::fs::write(
            d.join(".CMake/alg_support.cmake"),
            "cmake_dependent_option(OQS_ENABLE_KEM_HQC \"\" ON \"\" OFF)\n\
             cmake_dependent_option(OQS_ENABLE_KEM_hqc_1 \"\" ON \"OQS_ENABLE_KEM_HQC\" OFF)\n\
             cmake_dependent_option(OQS_ENABLE_KEM_hqc_1_avx2 \"\" ON \"\" OFF)\n\
             cmake_dependent_option(OQS_ENABLE_KEM_newkem \"\" ON \"\" OFF)\n",
        )
        .unwrap();
        std::fs::write(
            d.join("src/kem/kem.h"),
            "#define OQS_KEM_alg_hqc_1 \"HQC-1\"\n",
        )
        .unwrap();
        std::fs::write(
            d.join("src/kem/hqc/kem_hqc.h"),
            "#define OQS_KEM_hqc_1_length_public_key 2241\n\
             #define OQS_KEM_hqc_1_length_secret_key 2321\n\
             #define OQS_KEM_hqc_1_length_ciphertext 4433\n\
             #define OQS_KEM_hqc_1_length_shared_secret 32\n",
        )
        .unwrap();
        let got = declared(&d);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(
            got[0],
            Declared {
                id: "hqc_1".into(),
                name: "HQC-1".into(),
                family: Some("hqc".into()),
                sizes: [Some(2241), Some(2321), Some(4433), Some(32)],
            }
        );
        assert_eq!(built_as(&got[0]).unwrap().name, "HQC-1");
        assert_eq!(got[1].name, "newkem");
        // The family is on by default here; liboqs 0.13 leaves HQC off.
        assert_eq!(off_by_default(&d, "hqc"), None);
        std::fs::write(
            d.join(".CMake/alg_support.cmake"),
            "option(OQS_ENABLE_KEM_HQC \"Enable hqc algorithm family\" OFF)\n\
             option(OQS_ENABLE_KEM_HQCX \"\" ON)\n",
        )
        .unwrap();
        assert_eq!(
            off_by_default(&d, "hqc").as_deref(),
            Some("OQS_ENABLE_KEM_HQC")
        );
        assert_eq!(off_by_default(&d, "hqcx"), None);
        assert_eq!(off_by_default(&d, "bike"), None);
        assert_eq!(got[1].family, None);
        assert!(built_as(&got[1]).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
