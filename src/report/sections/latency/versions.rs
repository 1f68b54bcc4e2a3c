//! The view per library across its versions: for each library the run measured at two or more
//! versions (source trees given to `builds --source`, `openssl4` beside `openssl`), one chart
//! of every operation of each newer version's build against the older one's of the same
//! variant, compiler and flags, from the same interleaved rounds: the ratio of medians with its
//! 95% bootstrap interval, drawn as `compare` draws two runs.

use crate::record::latency::compare::{Report, Row, NOISE_THRESHOLD};
use crate::record::latency::versions::{side_by_side, Versions};
use crate::record::latency::LatencyRecord;
use crate::report::doc::{slug, Chart, Embed};
use crate::report::sections::comparison::chart::ratio_svg;

/// A row label's longest length: the algorithm, both versions and the variant, compiler and
/// flags they share.
const LABEL_CHARS: usize = 72;

/// The source part of a build id (`liboqs-0.16.0+g1a2b3c4`, `liboqs`, `openssl4`).
fn source(id: &str) -> &str {
    id.split(['/', '@']).next().unwrap_or_default()
}

/// How a row names a pair: `liboqs-0.16.0+g1a2b3c4 vs liboqs`, then what the two builds share
/// (`/generic@gcc-12:O3`).
fn pair(v: &Versions) -> String {
    let shared = &v.from[source(&v.from).len()..];
    format!("{} vs {}{shared}", source(&v.to), source(&v.from))
}

/// One chart per library measured at two or more versions in `run`, in the order the run
/// lists them; none when it measured every library at one version.
pub fn charts(run: &LatencyRecord) -> anyhow::Result<Vec<Chart>> {
    let all = side_by_side(&run.results);
    let mut libraries: Vec<String> = Vec::new();
    for v in &all {
        let l = v.library();
        if !libraries.contains(&l) {
            libraries.push(l);
        }
    }
    let mut out = Vec::new();
    for lib in libraries {
        let rows: Vec<Row> = all
            .iter()
            .filter(|v| v.library() == lib)
            .map(|v| Row {
                algorithm: v.algorithm.clone(),
                implementation: pair(v),
                new_implementation: None,
                operation: v.operation,
                old_median_ns: v.from_median_ns,
                new_median_ns: v.to_median_ns,
                rounds_p_value: None,
                comparison: v.comparison.clone(),
            })
            .collect();
        let report = Report {
            differences: Vec::new(),
            rows,
            unmatched: Vec::new(),
            noise_threshold: NOISE_THRESHOLD,
        };
        let x_desc = "newer / older, ratio of medians with 95% interval (log scale; below 1 is \
                      faster)";
        let Some(svg) = ratio_svg(&report, x_desc, LABEL_CHARS)? else {
            continue;
        };
        out.push(Chart {
            id: format!("chart-versions-{}", slug(&lib)),
            title: format!("{lib}: versions side by side"),
            caption: format!(
                "Each newer version's build of {lib} over the older version's build of the same \
                 variant, compiler and flags (the copy kembench carries is the older), per \
                 operation: the ratio of medians from the same interleaved rounds with its 95% \
                 bootstrap interval (log scale): left of 1 is faster. Filled: a significant \
                 change beyond ±{:.0}%; hollow: within noise.",
                NOISE_THRESHOLD * 100.0
            ),
            svg,
            family: None,
            embed: Embed::Inline,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    #[test]
    fn a_library_at_two_versions_gets_its_chart() {
        let c = charts(&fixture::run_with_versions(1.25)).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].id, "chart-versions-pqclean");
        assert_eq!(c[0].title, "pqclean: versions side by side");
        assert!(
            c[0].svg
                .contains("pqclean-2026.01+g1a2b3c4 vs pqclean/clean@gcc-12:O2"),
            "{}",
            c[0].svg
        );
        // Builds of one version are the builds matrix, not versions.
        assert!(charts(&fixture::run_with_builds()).unwrap().is_empty());
    }

    #[test]
    fn a_row_names_both_versions_and_what_their_builds_share() {
        let v = side_by_side(&fixture::run_with_versions(1.0).results);
        assert_eq!(
            pair(&v[0]),
            "pqclean-2026.01+g1a2b3c4 vs pqclean/clean@gcc-12:O2"
        );
    }
}
