//! The formats continuous-benchmarking dashboards read, from any kind's points
//! ([`Kind::metrics`](crate::record::Kind::metrics), names stable across versions):
//!
//! - `github-action-benchmark`: the action's custom JSON for `tool: customSmallerIsBetter`, an
//!   array of `{name, unit, value, range?, extra}`: latency and instruction points.
//! - `github-action-benchmark-bigger`: the same for `tool: customBiggerIsBetter`: throughput
//!   points (the action takes one direction per file).
//! - `bmf`: Bencher Metric Format, `{benchmark: {measure: {value, lower_value?, upper_value?}}}`
//!   with Bencher's measure slugs `latency` (ns), `throughput` (ops/s) and `instructions`.
//! - `libcrux-benchmark`: the fields libcrux's benchmark action uploads, an array of `{name,
//!   unit, value, range, category, keySize, platform, api, os}`.
//!
//! Each file is a JSON array or object whose entries come from one result at a time, so it is
//! written as results arrive like every other format.

use super::Layout;
use crate::record::metrics::{Measure, Metric};
use crate::record::{Benchmark, Kind, Record};
use serde_json::{json, Map, Value};

/// github-action-benchmark, smaller is better.
pub struct GithubSmaller;
/// github-action-benchmark, bigger is better.
pub struct GithubBigger;
/// Bencher Metric Format.
pub struct Bmf;
/// libcrux's benchmark action.
pub struct Libcrux;

/// How one of these formats writes a point set: whether it is an array or an object, which
/// measures it takes, and the entries of one result's points.
trait Entries {
    /// `[` or `{`.
    const OPEN: &'static str;
    /// `]` or `}`.
    const CLOSE: &'static str;
    /// Whether `m` goes in this format's files.
    fn takes(m: Measure) -> bool;
    /// The entries (JSON text, without separators) for one result's points, all of a measure
    /// this format takes, with where they come from.
    fn entries(points: &[Metric], from: &Provenance) -> Vec<String>;
}

/// The points of `item` that format `E` takes.
fn points<E: Entries, K: Kind>(item: &K::Result) -> Vec<Metric> {
    K::metrics(item)
        .into_iter()
        .filter(|m| E::takes(m.measure) && m.value.is_finite())
        .collect()
}

/// Where a result's points come from: what makes two points comparable.
pub struct Provenance {
    /// The machine's OS and architecture.
    os: String,
    /// kembench's version and commit, the implementation's version (a build's compiler, flags
    /// and source digest), and what counted the figures.
    text: String,
}

impl Provenance {
    fn of<K: Kind>(r: &Record<K>, result: &K::Result) -> Provenance {
        let e = &r.environment;
        let imp = result.implementation();
        let mut parts = vec![format!(
            "kembench {} ({})",
            e.build.kembench_version, e.build.git_commit
        )];
        if let Some(b) = e.builds.iter().find(|b| b.implementation == imp) {
            parts.push(format!(
                "{}; flags {}; source sha256 {}",
                b.compiler_version,
                b.flags,
                b.source_sha256.get(..16).unwrap_or(&b.source_sha256)
            ));
        } else if let Some(p) = e.providers.iter().find(|p| p.implementation == imp) {
            parts.push(p.version.clone());
        }
        parts.extend(K::counted_under(&r.measured));
        parts.push(format!("{}, {}", e.cpu.model, e.os));
        Provenance {
            os: format!("{} {}", e.os, e.arch),
            text: parts.join("; "),
        }
    }
}

/// The shared layout: an opening bracket, each result's entries comma-separated, the close.
fn head<E: Entries>() -> Vec<u8> {
    E::OPEN.as_bytes().to_vec()
}

fn item<E: Entries, K: Kind>(r: &Record<K>, index: usize, result: &K::Result) -> Vec<u8> {
    // Whether an entry came before: results before this one that had points.
    let mut earlier = r.results[..index.min(r.results.len())]
        .iter()
        .any(|x| !points::<E, K>(x).is_empty());
    let mut out = String::new();
    for e in E::entries(&points::<E, K>(result), &Provenance::of(r, result)) {
        out.push_str(if earlier { ",\n  " } else { "\n  " });
        out.push_str(&e);
        earlier = true;
    }
    out.into_bytes()
}

fn tail<E: Entries, K: Kind>(r: &Record<K>, count: usize) -> Vec<u8> {
    let any = r.results[..count.min(r.results.len())]
        .iter()
        .any(|x| !points::<E, K>(x).is_empty());
    format!("{}{}\n", if any { "\n" } else { "" }, E::CLOSE).into_bytes()
}

/// `value` as JSON text on one line.
fn text(value: &Value) -> String {
    serde_json::to_string(value).expect("JSON values serialise")
}

/// A bound as `± half-width`, in the value's unit.
fn range(m: &Metric) -> Option<String> {
    let (lo, hi) = (m.lower?, m.upper?);
    Some(format!("± {}", round((hi - lo) / 2.0)))
}

/// A figure with at most three decimals, as a JSON number.
fn round(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// The github-action-benchmark entries of `points`: one per point, named
/// `BENCHMARK (measure)`, the bounds and the provenance in `extra`.
fn github(points: &[Metric], from: &Provenance) -> Vec<String> {
    points
        .iter()
        .map(|m| {
            let mut o = Map::new();
            o.insert(
                "name".into(),
                json!(format!("{} ({})", m.benchmark(), m.measure.name())),
            );
            o.insert("unit".into(), json!(m.measure.unit()));
            o.insert("value".into(), json!(round(m.value)));
            if let Some(r) = range(m) {
                o.insert("range".into(), json!(r));
            }
            let extra = match (m.lower, m.upper) {
                (Some(lo), Some(hi)) => format!(
                    "{}; bounds {} to {}",
                    exactness(m.measure),
                    round(lo),
                    round(hi)
                ),
                _ => exactness(m.measure).to_string(),
            };
            o.insert("extra".into(), json!(format!("{extra}\n{}", from.text)));
            text(&Value::Object(o))
        })
        .collect()
}

/// What a dashboard reader should know of a measure's noise.
fn exactness(m: Measure) -> &'static str {
    match m {
        Measure::Findings => "exact count (kembench ct): findings no exception explains",
        Measure::EstimatedCycles => {
            "model estimate (llvm-mca over exact block counts): identical run to run, not a \
             measurement"
        }
        m if m.noisy() => "timed: varies run to run",
        _ => "exact count (callgrind): identical run to run",
    }
}

impl Entries for GithubSmaller {
    const OPEN: &'static str = "[";
    const CLOSE: &'static str = "]";
    fn takes(m: Measure) -> bool {
        m.smaller_is_better()
    }
    fn entries(points: &[Metric], from: &Provenance) -> Vec<String> {
        github(points, from)
    }
}

impl Entries for GithubBigger {
    const OPEN: &'static str = "[";
    const CLOSE: &'static str = "]";
    fn takes(m: Measure) -> bool {
        !m.smaller_is_better()
    }
    fn entries(points: &[Metric], from: &Provenance) -> Vec<String> {
        github(points, from)
    }
}

impl Entries for Bmf {
    const OPEN: &'static str = "{";
    const CLOSE: &'static str = "}";
    fn takes(_: Measure) -> bool {
        true
    }
    /// One entry per benchmark, its measures inside (BMF has no field for provenance).
    fn entries(points: &[Metric], _from: &Provenance) -> Vec<String> {
        let mut benchmarks: Vec<(String, Map<String, Value>)> = Vec::new();
        for m in points {
            let name = m.benchmark();
            let at = match benchmarks.iter().position(|(n, _)| *n == name) {
                Some(i) => i,
                None => {
                    benchmarks.push((name, Map::new()));
                    benchmarks.len() - 1
                }
            };
            let mut v = Map::new();
            v.insert("value".into(), json!(m.value));
            if let (Some(lo), Some(hi)) = (m.lower, m.upper) {
                v.insert("lower_value".into(), json!(lo));
                v.insert("upper_value".into(), json!(hi));
            }
            benchmarks[at]
                .1
                .insert(m.measure.name().into(), Value::Object(v));
        }
        benchmarks
            .into_iter()
            .map(|(name, measures)| {
                format!("{}: {}", text(&json!(name)), text(&Value::Object(measures)))
            })
            .collect()
    }
}

impl Entries for Libcrux {
    const OPEN: &'static str = "[";
    const CLOSE: &'static str = "]";
    fn takes(_: Measure) -> bool {
        true
    }
    fn entries(points: &[Metric], from: &Provenance) -> Vec<String> {
        points
            .iter()
            .map(|m| {
                // The parameter set's number (768 of ML-KEM-768), 0 where the name has none.
                let key_size: u64 = m
                    .algorithm
                    .rsplit(|c: char| !c.is_ascii_digit())
                    .find(|d| !d.is_empty())
                    .and_then(|d| d.parse().ok())
                    .unwrap_or(0);
                text(&json!({
                    "name": m.benchmark(),
                    "unit": m.measure.unit(),
                    "value": round(m.value),
                    "range": range(m).unwrap_or_else(|| "± 0".into()),
                    "category": m.algorithm,
                    "keySize": key_size,
                    "platform": m.implementation,
                    "api": m.measure.name(),
                    "os": from.os,
                }))
            })
            .collect()
    }
}

/// Implements [`Layout`] for every kind through [`Entries`].
macro_rules! layout {
    ($($ty:ty),*) => {$(
        impl<K: Kind> Layout<K> for $ty {
            fn head(&self, _r: &Record<K>) -> anyhow::Result<Vec<u8>> {
                Ok(head::<$ty>())
            }
            fn item(&self, r: &Record<K>, index: usize, result: &K::Result) -> anyhow::Result<Vec<u8>> {
                Ok(item::<$ty, K>(r, index, result))
            }
            fn tail(&self, r: &Record<K>, count: usize) -> anyhow::Result<Vec<u8>> {
                Ok(tail::<$ty, K>(r, count))
            }
        }
    )*};
}

layout!(GithubSmaller, GithubBigger, Bmf, Libcrux);

impl super::Exporter for GithubSmaller {
    fn name(&self) -> &'static str {
        "github-action-benchmark"
    }
    fn about(&self) -> &'static str {
        "github-action-benchmark's custom JSON (tool: customSmallerIsBetter): latency and instructions"
    }
}

impl super::Exporter for GithubBigger {
    fn name(&self) -> &'static str {
        "github-action-benchmark-bigger"
    }
    fn about(&self) -> &'static str {
        "github-action-benchmark's custom JSON (tool: customBiggerIsBetter): throughput"
    }
}

impl super::Exporter for Bmf {
    fn name(&self) -> &'static str {
        "bmf"
    }
    fn about(&self) -> &'static str {
        "Bencher Metric Format: latency (ns), throughput (ops/s) and instructions, with bounds"
    }
}

impl super::Exporter for Libcrux {
    fn name(&self) -> &'static str {
        "libcrux-benchmark"
    }
    fn about(&self) -> &'static str {
        "the fields libcrux's benchmark action uploads (name, unit, value, range, category, keySize, platform, api, os)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::{fixture, Format};
    use crate::record::AnyRecord;

    /// The vendored schema `name` (tests/data/schemas, sources in SOURCES.md there).
    fn schema(name: &str) -> jsonschema::Validator {
        let path = format!(
            "{}/tests/data/schemas/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let s: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        jsonschema::validator_for(&s).unwrap()
    }

    fn exported(format: &str, r: &AnyRecord) -> Value {
        let bytes = Format::by_name(format).unwrap().serialize_any(r).unwrap();
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("{format}: {e}\n{}", String::from_utf8_lossy(&bytes)))
    }

    fn records() -> Vec<AnyRecord> {
        vec![
            AnyRecord::from(fixture::run()),
            AnyRecord::from(fixture::throughput()),
            AnyRecord::from(fixture::profile()),
            AnyRecord::from(fixture::tls()),
        ]
    }

    /// Every format's file of every kind validates against its schema, and holds every point
    /// the kind gives it (none missing, none twice).
    #[test]
    fn every_kind_exports_valid_files() {
        for (format, schema_name) in [
            ("bmf", "bmf"),
            ("github-action-benchmark", "github-action-benchmark"),
            ("github-action-benchmark-bigger", "github-action-benchmark"),
            ("libcrux-benchmark", "libcrux-benchmark"),
        ] {
            let v = schema(schema_name);
            // The schema can fail: a point without its value does.
            let broken = if format == "bmf" {
                json!({"ML-KEM-768@liboqs/keygen": {"latency": {"lower_value": 1.0}}})
            } else {
                json!([{"name": "ML-KEM-768@liboqs/keygen", "unit": "ns"}])
            };
            assert!(!v.is_valid(&broken), "{format}: {broken}");
            for r in records() {
                let out = exported(format, &r);
                if let Err(e) = v.validate(&out) {
                    panic!("{format} of a {} record: {e}\n{out:#}", r.kind().noun());
                }
            }
        }
    }

    /// The figures are the record's: a run's latency is each operation's median with its 95%
    /// interval as bounds, a profile's instructions the median over seeds; names are
    /// `ALG@IMPL/OP` and measures Bencher's slugs.
    #[test]
    fn points_carry_the_records_figures() {
        let run = fixture::run();
        let bmf = exported("bmf", &AnyRecord::from(run.clone()));
        let mut seen = 0;
        for r in run.results.iter().filter(|r| r.measured()) {
            for o in &r.operations {
                let name = format!(
                    "{}@{}/{}",
                    r.algorithm,
                    r.implementation,
                    o.operation.as_str()
                );
                let l = &bmf[&name]["latency"];
                assert_eq!(l["value"], json!(o.median_ns), "{name}");
                assert_eq!(l["lower_value"], json!(o.median_ci95_low_ns));
                assert_eq!(l["upper_value"], json!(o.median_ci95_high_ns));
                seen += 1;
            }
        }
        assert!(seen > 0);
        assert_eq!(
            bmf.as_object().unwrap().len(),
            seen,
            "one benchmark per measured operation"
        );
        let profile = fixture::profile();
        let gab = exported("github-action-benchmark", &AnyRecord::from(profile.clone()));
        let entries = gab.as_array().unwrap();
        let n: usize = profile.results.iter().map(|r| r.operations.len()).sum();
        assert_eq!(entries.len(), n);
        let first = &profile.results[0];
        let op = &first.operations[0];
        let e = entries
            .iter()
            .find(|e| {
                e["name"]
                    == json!(format!(
                        "{}@{}/{} (instructions)",
                        first.algorithm,
                        first.implementation,
                        op.operation.as_str()
                    ))
            })
            .unwrap();
        assert_eq!(e["value"], json!(op.instructions.median as f64));
        assert_eq!(e["unit"], "instructions");
        let extra = e["extra"].as_str().unwrap();
        assert!(extra.contains("exact count"), "{extra}");
        // Provenance: kembench's build, and what counted the figure.
        assert!(
            extra.contains(&format!(
                "kembench {}",
                profile.environment.build.kembench_version
            )) && extra.contains(&profile.measured.valgrind),
            "{extra}"
        );
        // Throughput is bigger-is-better: never in the smaller-is-better file.
        let tp = AnyRecord::from(fixture::throughput());
        assert_eq!(exported("github-action-benchmark", &tp), json!([]));
        assert!(!exported("github-action-benchmark-bigger", &tp)
            .as_array()
            .unwrap()
            .is_empty());
        // libcrux: the parameter set's number, 0 where the name has none.
        let lc = exported("libcrux-benchmark", &AnyRecord::from(fixture::tls()));
        let lc = lc.as_array().unwrap();
        assert!(lc
            .iter()
            .any(|e| e["category"] == "X25519MLKEM768" && e["keySize"] == 768));
        assert!(lc
            .iter()
            .any(|e| e["category"] == "P-256" && e["keySize"] == 256));
        let lc = exported("libcrux-benchmark", &AnyRecord::from(run));
        assert!(lc
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["category"] == "MockKEM" && e["keySize"] == 0));
    }

    /// A record with nothing measured gives an empty, valid file.
    #[test]
    fn nothing_measured_is_an_empty_file() {
        let mut run = fixture::run();
        run.results.clear();
        let r = AnyRecord::from(run);
        assert_eq!(exported("bmf", &r), json!({}));
        assert_eq!(exported("github-action-benchmark", &r), json!([]));
        assert_eq!(exported("libcrux-benchmark", &r), json!([]));
    }
}
