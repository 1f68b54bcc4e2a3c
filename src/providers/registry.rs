//! The registry: every implementation of this build, and selection by name, glob, family and
//! level, with suggestions for names that match nothing.

use super::Unavailable;
use crate::kem::catalog::{self, Family};
use crate::kem::Kem;
use crate::suggest::nearest;
use globset::{Glob, GlobMatcher};
use std::sync::Arc;

/// Why a selection failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SelectError {
    /// A name or glob that matches no algorithm.
    #[error("no algorithm matches '{pattern}'{}", hint(.suggestions))]
    UnknownAlgorithm {
        /// What the user typed.
        pattern: String,
        /// The nearest names.
        suggestions: Vec<String>,
    },
    /// A name or glob that matches no implementation.
    #[error("no implementation matches '{pattern}'{}", hint(.suggestions))]
    UnknownImplementation {
        /// What the user typed.
        pattern: String,
        /// The nearest implementation ids.
        suggestions: Vec<String>,
    },
    /// A malformed glob.
    #[error("bad pattern '{pattern}': {reason}")]
    BadPattern {
        /// What the user typed.
        pattern: String,
        /// The parser's complaint.
        reason: String,
    },
    /// Every filter is valid alone but together they select nothing.
    #[error(
        "the filters together select no implementation (try `kembench list` to see what exists; \
         builds and added packages are listed by `kembench list --builds` and selected with \
         `--impl 'SOURCE@*'` or `--impl 'local/*'`)"
    )]
    Empty,
}

fn hint(s: &[String]) -> String {
    crate::suggest::did_you_mean(s)
}

/// Why the implementations labelled `missing` are not in this process's registry, for a run
/// that planned them and is resumed here.
pub fn why_missing(missing: &[String]) -> &'static str {
    if missing.iter().any(|l| l.contains("@mock/")) {
        " They are fault-injecting mock implementations: the run was started with \
         KEMBENCH_MOCK_FAULTS=1 in the environment; set it again to resume."
    } else {
        " This kembench build or this CPU does not offer them."
    }
}

/// What to select. Empty lists select everything.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Algorithm names or globs (case-insensitive), any of which may match.
    pub algorithms: Vec<String>,
    /// Implementation ids or globs (`pqclean/*`), any of which may match.
    pub implementations: Vec<String>,
    /// Only this family.
    pub family: Option<Family>,
    /// Only this NIST level.
    pub level: Option<u8>,
}

impl Filter {
    /// Whether no filter is set (everything matches).
    pub fn is_empty(&self) -> bool {
        self.algorithms.is_empty()
            && self.implementations.is_empty()
            && self.family.is_none()
            && self.level.is_none()
    }
}

/// Every implementation of this build, and the builds `kembench builds` compiled.
///
/// Builds are selected only by implementation patterns that contain `@` (the build separator,
/// as in `pqclean/clean@*`), so that the default suite, `--all` and `--impl pqclean` keep
/// meaning what kembench itself links.
pub struct Registry {
    impls: Vec<Arc<dyn Kem>>,
    builds: Vec<Arc<dyn Kem>>,
    /// Implementations built on first use, selected only by a pattern that names their id
    /// ([`super::on_demand`]).
    on_demand: Vec<Arc<dyn Kem>>,
    unavailable: Vec<Unavailable>,
}

/// Whether an implementation pattern addresses builds (`provider/variant@compiler:flags`), or
/// packages added with `kembench add` (`local/...`, which are builds too).
pub fn addresses_builds(pattern: &str) -> bool {
    pattern.contains('@') || pattern.to_ascii_lowercase().starts_with("local")
}

/// A name or glob as every filter of kembench reads one, case-insensitive. A name equal to the
/// pattern matches it literally, whatever glob characters it holds: a build id made from
/// `-DA=[1]` (`...:DA=[1]`) or `-DA={1,2}` names that build, not a character class or a
/// choice, and a malformed glob that is a name still names it.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// As given.
    text: String,
    /// Lowercased, for the literal comparison.
    lower: String,
    /// Matched only literally: it is one of the names it is matched against.
    exact: bool,
    /// The glob, or why it is malformed.
    glob: Result<GlobMatcher, String>,
}

impl Pattern {
    /// Whether `name` is the pattern itself or matches it as a glob.
    pub fn is_match(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        name == self.lower || (!self.exact && self.glob.as_ref().is_ok_and(|g| g.is_match(&name)))
    }

    /// The pattern matched literally only, when it is one of `names` (the id of a build made
    /// with `-DA=[1]` selects that build, never one made with `-DA=1` as well).
    pub fn exact_where_named(mut self, names: &[String]) -> Pattern {
        self.exact = names.iter().any(|n| n.eq_ignore_ascii_case(&self.text));
        self
    }

    /// Why the pattern is no glob, when it is malformed (`[` unclosed): an error only where
    /// it names nothing literally either.
    pub fn malformed(&self) -> Option<SelectError> {
        self.glob
            .as_ref()
            .err()
            .map(|reason| SelectError::BadPattern {
                pattern: self.text.clone(),
                reason: reason.clone(),
            })
    }
}

/// Reads a pattern (see [`Pattern`]).
pub fn matcher(pattern: &str) -> Pattern {
    let lower = pattern.to_ascii_lowercase();
    Pattern {
        glob: Glob::new(&lower)
            .map(|g| g.compile_matcher())
            .map_err(|e| e.kind().to_string()),
        text: pattern.to_string(),
        lower,
        exact: false,
    }
}

impl Registry {
    /// Every real implementation, plus the mock ones when `include_mock`.
    pub fn new(include_mock: bool) -> Self {
        let real = super::all();
        let mut impls: Vec<Arc<dyn Kem>> = real.impls.into_iter().map(Arc::from).collect();
        if include_mock {
            impls.extend(super::mock::implementations().into_iter().map(Arc::from));
        }
        Registry {
            impls,
            builds: registered_builds().into_iter().map(Arc::from).collect(),
            on_demand: super::on_demand().into_iter().map(Arc::from).collect(),
            unavailable: real.unavailable,
        }
    }

    /// Only the mock implementations (fast, for tests).
    pub fn mock_only() -> Self {
        Registry {
            impls: super::mock::implementations()
                .into_iter()
                .map(Arc::from)
                .collect(),
            builds: Vec::new(),
            on_demand: Vec::new(),
            unavailable: Vec::new(),
        }
    }

    /// Every implementation kembench links, in registry order (builds are apart:
    /// [`builds`](Self::builds)).
    pub fn all(&self) -> &[Arc<dyn Kem>] {
        &self.impls
    }

    /// The builds `kembench builds` compiled and registered, sorted by label.
    pub fn builds(&self) -> &[Arc<dyn Kem>] {
        &self.builds
    }

    /// The implementations built on first use and selected only when named (`openssl4`).
    pub fn on_demand(&self) -> &[Arc<dyn Kem>] {
        &self.on_demand
    }

    /// The implementation (or build, or on-demand implementation) labelled
    /// `algorithm@implementation` (exactly), if there is one.
    pub fn get(&self, label: &str) -> Option<Arc<dyn Kem>> {
        self.impls
            .iter()
            .chain(&self.builds)
            .chain(&self.on_demand)
            .find(|k| k.meta().label() == label)
            .cloned()
    }

    /// Implementations this build or CPU cannot offer.
    pub fn unavailable(&self) -> &[Unavailable] {
        &self.unavailable
    }

    fn algorithm_names(&self) -> Vec<String> {
        let mut v: Vec<String> = catalog::ALGORITHMS
            .iter()
            .map(|a| a.name.to_string())
            .collect();
        for k in self.impls.iter().chain(&self.builds) {
            let n = k.meta().algorithm.name.to_string();
            if !v.contains(&n) {
                v.push(n);
            }
        }
        v
    }

    fn implementation_names(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for k in self.impls.iter().chain(&self.builds).chain(&self.on_demand) {
            let id = k.meta().implementation.clone();
            let provider = k.meta().provider().to_string();
            for n in [id, provider] {
                if !v.contains(&n) {
                    v.push(n);
                }
            }
        }
        v
    }

    /// Selects implementations (every pattern must match something on its own), and builds and
    /// opens the on-demand ones picked (OpenSSL 4's library: minutes on its first use), from
    /// the calling thread, before anything is measured.
    pub fn select(&self, f: &Filter) -> Result<Vec<Arc<dyn Kem>>, SelectError> {
        let picked = self.select_unprepared(f)?;
        super::prepare(&picked);
        Ok(picked)
    }

    /// [`select`](Self::select) without building or opening anything (`list`).
    pub fn select_unprepared(&self, f: &Filter) -> Result<Vec<Arc<dyn Kem>>, SelectError> {
        let alg_names = self.algorithm_names();
        let impl_names = self.implementation_names();
        let mut alg_matchers = Vec::new();
        for p in &f.algorithms {
            let m = matcher(p);
            if !alg_names.iter().any(|n| m.is_match(n)) {
                return Err(m.malformed().unwrap_or(SelectError::UnknownAlgorithm {
                    pattern: p.clone(),
                    suggestions: nearest(p, &alg_names),
                }));
            }
            alg_matchers.push(m.exact_where_named(&alg_names));
        }
        let mut impl_matchers = Vec::new();
        for p in &f.implementations {
            let m = matcher(p);
            if !impl_names.iter().any(|n| m.is_match(n)) {
                return Err(m.malformed().unwrap_or(SelectError::UnknownImplementation {
                    pattern: p.clone(),
                    suggestions: nearest(p, &impl_names),
                }));
            }
            impl_matchers.push(m.exact_where_named(&impl_names));
        }
        // Patterns with `@` (or `local/`) address builds, the others what kembench links.
        let (build_matchers, linked_matchers): (Vec<_>, Vec<_>) = impl_matchers
            .into_iter()
            .zip(&f.implementations)
            .partition(|(_, p)| addresses_builds(p));
        let strip = |v: Vec<(Pattern, &String)>| -> Vec<Pattern> {
            v.into_iter().map(|(g, _)| g).collect()
        };
        let (build_matchers, linked_matchers) = (strip(build_matchers), strip(linked_matchers));
        // A pattern that names a linked implementation's id (`liboqs`) selects by id only, so
        // that `liboqs` stays one implementation beside `liboqs/openssl-sha3`; one that names
        // no id (`pqclean`) selects every implementation of that provider.
        let ids: Vec<String> = self
            .impls
            .iter()
            .map(|k| k.meta().implementation.to_ascii_lowercase())
            .collect();
        let by_provider: Vec<bool> = linked_matchers
            .iter()
            .map(|g| !ids.iter().any(|id| g.is_match(id)))
            .collect();
        // An on-demand implementation is picked only by a pattern that contains its id
        // (`openssl4`, `openssl4*`), never by `*` or `openssl*`.
        let named = |id: &str| {
            f.implementations
                .iter()
                .filter(|p| !addresses_builds(p))
                .any(|p| p.to_ascii_lowercase().contains(id))
        };
        let picked: Vec<Arc<dyn Kem>> = self
            .impls
            .iter()
            .chain(self.builds.iter().filter(|_| !build_matchers.is_empty()))
            .chain(
                self.on_demand
                    .iter()
                    .filter(|k| named(&k.meta().implementation.to_ascii_lowercase())),
            )
            .filter(|k| {
                let m = k.meta();
                let (impl_matchers, by_provider) = if k.build().is_some() {
                    (&build_matchers, &[][..])
                } else {
                    (&linked_matchers, &by_provider[..])
                };
                if !f.implementations.is_empty() && impl_matchers.is_empty() {
                    return false;
                }
                let alg = m.algorithm.name.to_ascii_lowercase();
                let id = m.implementation.to_ascii_lowercase();
                let provider = m.provider().to_ascii_lowercase();
                (alg_matchers.is_empty() || alg_matchers.iter().any(|g| g.is_match(&alg)))
                    && (impl_matchers.is_empty()
                        || impl_matchers.iter().enumerate().any(|(i, g)| {
                            g.is_match(&id)
                                || (by_provider.get(i).copied().unwrap_or(true)
                                    && g.is_match(&provider))
                        }))
                    && f.family.is_none_or(|fam| m.algorithm.family == fam)
                    && f.level.is_none_or(|l| m.algorithm.nist_level == Some(l))
            })
            .cloned()
            .collect();
        if picked.is_empty() {
            Err(SelectError::Empty)
        } else {
            Ok(picked)
        }
    }
}

/// Every compiled build recorded in the build cache, as implementations (libraries unopened,
/// foreign builds' emulators not started): native builds through `built`, builds for another
/// architecture through `foreign` (which reads the same cache records).
fn registered_builds() -> Vec<Box<dyn Kem>> {
    let root = super::built::manifest::dir();
    super::built::manifest::all(&root)
        .into_iter()
        .filter_map(|e| {
            if e.facts.arch.is_some() {
                super::foreign::Foreign::new(&root, e).map(|f| Box::new(f) as Box<dyn Kem>)
            } else {
                native(&root, e)
            }
        })
        .collect()
}

/// A native build as an implementation: a build of an OpenSSL tree is a library of OpenSSL's
/// KEM interface (`providers::openssl4`), any other a NIST-API library (`providers::built`).
fn native(root: &std::path::Path, e: super::built::Entry) -> Option<Box<dyn Kem>> {
    #[cfg(feature = "openssl")]
    if e.symbols.keypair == crate::openssl_kem::abi::KEYPAIR {
        return super::openssl4::built(root, &e);
    }
    super::built::native(root, e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kem::KemError;
    use std::collections::BTreeSet;

    #[test]
    fn a_name_with_glob_characters_matches_itself_literally() {
        let names: Vec<String> = [
            "pqclean/clean@gcc-12:DA=[1]",
            "pqclean/clean@gcc-12:DA=1",
            "pqclean/clean@gcc-12:DA=[1",
            "pqclean/clean@gcc-12:DA={1,2}",
        ]
        .map(String::from)
        .to_vec();
        for (i, n) in names.iter().enumerate() {
            let m = matcher(n).exact_where_named(&names);
            for (j, other) in names.iter().enumerate() {
                assert_eq!(m.is_match(other), i == j, "{n} against {other}");
            }
        }
        // Case-insensitive, like every filter; a malformed glob that names nothing is an error.
        assert!(matcher("PQCLEAN/clean@GCC-12:da=[1]").is_match(&names[0]));
        assert!(matcher(&names[2]).malformed().is_some());
        assert!(matcher("pqclean/*").malformed().is_none());
        // A pattern that is no name stays a glob.
        let glob = matcher("pqclean/clean@*").exact_where_named(&names);
        assert!(names.iter().all(|n| glob.is_match(n)));
    }

    #[test]
    fn real_outputs_have_the_catalog_lengths() {
        // Each adapter copies its library's outputs into buffers of the catalog's length and
        // fails (or panics) on a mismatch; owned vectors make the lengths visible here too.
        // Secret keys are kept objects (as timed); their bytes where the library exports them.
        let r = Registry::new(false);
        for k in r.all() {
            let k = k.as_ref();
            let a = k.meta().algorithm;
            if a.has_megabyte_keys() {
                continue; // Classic McEliece: covered by the liboqs declared-length test
            }
            let (pk, mut sk) = k.keypair_kept_vec().unwrap();
            let (ct, ss) = k.encaps_vec(&pk).unwrap();
            let ss2 = k.decaps_kept_vec(&mut sk, &ct).unwrap();
            assert_eq!(
                (pk.len(), ct.len(), ss.len()),
                (a.pk_len, a.ct_len, a.ss_len)
            );
            assert_eq!(ss, ss2, "{}", k.meta().label());
            match k.sk_export(&sk) {
                Ok(bytes) => assert_eq!(bytes.len(), a.sk_len),
                Err(e) => assert_eq!(e, KemError::Unsupported, "{}", k.meta().label()),
            }
        }
    }

    #[test]
    fn the_default_build_offers_what_the_foundation_promises() {
        let r = Registry::new(false);
        let providers: BTreeSet<&str> = r.all().iter().map(|k| k.meta().provider()).collect();
        assert_eq!(providers.len(), super::super::BUILT.len(), "{providers:?}");
        assert_eq!(
            super::super::BUILT,
            super::super::LISTED,
            "the default build has every provider"
        );
        assert!(r.all().len() >= 45);
        let mlkem768 = r
            .all()
            .iter()
            .filter(|k| k.meta().algorithm.name == "ML-KEM-768")
            .count();
        assert!(
            mlkem768
                + r.unavailable()
                    .iter()
                    .filter(|u| u.label.starts_with("ML-KEM-768@"))
                    .count()
                >= 8
        );
        // Every implementation names a catalog algorithm, and no pair appears twice.
        let labels: BTreeSet<String> = r.all().iter().map(|k| k.meta().label()).collect();
        assert_eq!(labels.len(), r.all().len());
        for k in r.all() {
            assert!(catalog::find(k.meta().algorithm.name).is_some());
        }
    }

    #[test]
    fn a_pattern_that_names_an_id_selects_that_id_and_a_provider_every_variant() {
        let r = Registry::new(false);
        let ids = |i: &str| -> BTreeSet<String> {
            let f = Filter {
                algorithms: vec!["ML-KEM-768".into()],
                implementations: vec![i.into()],
                ..Filter::default()
            };
            r.select(&f)
                .unwrap()
                .iter()
                .map(|k| k.meta().implementation.clone())
                .collect()
        };
        assert_eq!(ids("liboqs"), BTreeSet::from(["liboqs".to_string()]));
        let pqclean = ids("pqclean");
        assert!(!pqclean.is_empty() && pqclean.iter().all(|i| i.starts_with("pqclean/")));
        #[cfg(feature = "openssl")]
        assert_eq!(
            ids("liboqs*"),
            BTreeSet::from(["liboqs".to_string(), "liboqs/openssl-sha3".to_string()])
        );
    }

    #[cfg(feature = "openssl")]
    #[test]
    fn openssl_4_is_picked_only_by_a_pattern_that_names_it_and_nothing_is_built_to_list_it() {
        let r = Registry::new(false);
        let ids = |patterns: &[&str]| -> BTreeSet<String> {
            let f = Filter {
                algorithms: vec!["ML-KEM-768".into()],
                implementations: patterns.iter().map(|p| p.to_string()).collect(),
                ..Filter::default()
            };
            r.select_unprepared(&f)
                .unwrap()
                .iter()
                .map(|k| k.meta().implementation.clone())
                .collect()
        };
        let four = || BTreeSet::from(["openssl4".to_string()]);
        assert_eq!(ids(&["openssl4"]), four());
        assert_eq!(ids(&["OpenSSL4*"]), four());
        assert_eq!(
            ids(&["openssl", "openssl4"]),
            BTreeSet::from(["openssl".to_string(), "openssl4".to_string()])
        );
        // A glob that merely matches it, or no filter at all, never starts its build.
        assert!(!ids(&["openssl*"]).contains("openssl4"));
        assert!(!ids(&["*"]).contains("openssl4"));
        assert!(r
            .all()
            .iter()
            .all(|k| k.meta().implementation != "openssl4"));
        // Every algorithm of the table, and found by label as workers look it up.
        assert_eq!(r.on_demand().len(), crate::openssl_kem::specs().len());
        let k = r.get("X25519MLKEM768@openssl4").unwrap();
        assert!(
            k.meta().version.starts_with("OpenSSL 4."),
            "{}",
            k.meta().version
        );
        // The same import steps and seeds as OpenSSL 3.6's adapter says for itself.
        let three = r.get("ML-KEM-768@openssl").unwrap();
        let four = r.get("ML-KEM-768@openssl4").unwrap();
        assert_eq!(four.imports(), three.imports());
        assert_eq!(four.seed_lens(), three.seed_lens());
    }

    #[test]
    fn mock_registry_selects_by_glob_and_rejects_unknown_names() {
        let r = Registry::mock_only();
        let all = r.select(&Filter::default()).unwrap();
        assert_eq!(all.len(), 2);
        let f = Filter {
            implementations: vec!["mock/corr*".into()],
            ..Filter::default()
        };
        assert_eq!(r.select(&f).unwrap().len(), 1);
        let f = Filter {
            algorithms: vec!["MokKEM".into()],
            ..Filter::default()
        };
        match r.select(&f) {
            Err(SelectError::UnknownAlgorithm { suggestions, .. }) => {
                assert!(suggestions.contains(&"MockKEM".to_string()))
            }
            other => panic!("{:?}", other.map(|v| v.len())),
        }
        let f = Filter {
            level: Some(5),
            ..Filter::default()
        };
        assert_eq!(r.select(&f).err(), Some(SelectError::Empty));
    }
}
