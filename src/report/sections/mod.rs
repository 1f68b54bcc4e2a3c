//! Builds the report's [`Document`] from the loaded files, one section per file: the summary,
//! latency, speed against size, builds (compilers × flags), time shares, where the time goes
//! (a profile), across architectures (every profile given), memory, throughput, TLS handshakes, the comparison of runs, correctness,
//! environments and the method. Charts and tables describe the last run given (and the last profile and tls run);
//! the comparison takes the first run as its baseline.
//!
//! Each section file declares one [`Section`] (`pub const SECTION: Section = Section::new(id,
//! title, build);`) and [`SECTIONS`] is the one list that orders them. [`build`] writes each
//! section's heading (its `id` and `title`) and then its body; the table of contents of both
//! formats is read from those headings ([`Document::sections`]), so it follows the same list.
//!
//! Adding a section takes one new file and two lines here:
//! 1. `src/report/sections/<name>.rs`, declaring `pub const SECTION: Section` and its `build`
//!    function (a chart of its own goes in `src/report/sections/<name>/chart.rs`, declared in
//!    the section file with `pub mod chart;`);
//! 2. `mod <name>;` among the section modules below;
//! 3. `<name>::SECTION,` in [`SECTIONS`], where the section is to appear.
//!
//! What sections share is in `common.rs` (sub-headings, cells, the primary run's opening) and
//! [`crate::report::charts`] (how charts are drawn); what one section alone uses stays in its
//! file.

use super::data::{Dataset, Input};
use super::doc::{Block, Document, Para};
use crate::record::latency::LatencyRecord;

mod common;
mod intro;

mod arches;
mod builds;
mod comparison;
mod correctness;
mod ct;
mod environment;
mod latency;
mod memory;
mod method;
mod profile;
mod shares;
mod size;
mod summary;
mod throughput;
mod tls;

/// What every section is built from.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// Every file given, in order.
    pub data: &'a Dataset,
    /// The run the charts and tables describe (the last one given), if any.
    pub primary: Option<&'a Input<LatencyRecord>>,
    /// The comparison's noise threshold, as a fraction.
    pub noise: f64,
}

/// One section of the report: its heading and what follows it.
#[derive(Debug, Clone, Copy)]
pub struct Section {
    /// The anchor of its heading (`latency`): the table of contents links to it.
    pub id: &'static str,
    /// Its heading (`Latency`).
    pub title: &'static str,
    /// Adds what follows the heading.
    pub build: Build,
}

/// How a section adds its body.
pub type Build = fn(&Context<'_>, &mut Vec<Block>) -> anyhow::Result<()>;

impl Section {
    /// The section headed `title`, anchored at `id`, whose body `build` adds.
    pub const fn new(id: &'static str, title: &'static str, build: Build) -> Section {
        Section { id, title, build }
    }
}

/// What the report's shared parts say of the records of one kind, declared beside the kind's
/// section: its lines under the title, each record's facts under "Environment", its paragraph
/// under "Methodology". [`KINDS`] orders them.
#[derive(Debug, Clone, Copy)]
pub struct KindParts {
    /// The intro's lines for the records of this kind.
    pub intro: fn(&Dataset) -> Vec<Para>,
    /// Each record's heading and facts under "Environment".
    pub environment: fn(&Dataset, &mut Vec<Block>),
    /// What "Methodology" says of this kind, when the report has records of it.
    pub method: fn(&Dataset, &mut Vec<Block>),
}

impl KindParts {
    /// Says nothing (a kind with nothing to add to a shared part).
    pub fn nothing(_: &Dataset, _: &mut Vec<Block>) {}
}

/// Every kind's parts, in the order the intro and "Environment" list their records.
pub const KINDS: &[KindParts] = &[
    latency::PARTS,
    throughput::PARTS,
    tls::PARTS,
    profile::PARTS,
    ct::PARTS,
];

/// The sections, in the order the report shows them (and its table of contents lists them).
pub const SECTIONS: &[Section] = &[
    summary::SECTION,
    latency::SECTION,
    size::SECTION,
    builds::SECTION,
    shares::SECTION,
    profile::SECTION,
    arches::SECTION,
    memory::SECTION,
    throughput::SECTION,
    tls::SECTION,
    ct::SECTION,
    comparison::SECTION,
    correctness::SECTION,
    environment::SECTION,
    method::SECTION,
];

/// Builds the whole document; `noise` is the comparison's noise threshold (a fraction).
pub fn build(data: &Dataset, noise: f64) -> anyhow::Result<Document> {
    let ctx = Context {
        data,
        primary: data.primary(),
        noise,
    };
    let mut blocks = Vec::new();
    for section in SECTIONS {
        blocks.push(Block::Heading {
            level: 2,
            id: section.id.into(),
            text: section.title.into(),
        });
        (section.build)(&ctx, &mut blocks)?;
    }
    Ok(Document {
        title: "kembench report".into(),
        intro: intro::intro(data),
        blocks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::report::data::AnyRecord;

    #[test]
    fn the_contents_follow_the_list_of_sections() {
        let data = Dataset::from_records(vec![("r.json".into(), AnyRecord::from(fixture::run()))]);
        for data in [data, Dataset::default()] {
            let doc = build(&data, 0.02).unwrap();
            let listed: Vec<(&str, &str)> = SECTIONS.iter().map(|s| (s.id, s.title)).collect();
            assert_eq!(doc.sections(), listed);
        }
        let mut ids: Vec<&str> = SECTIONS.iter().map(|s| s.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), SECTIONS.len(), "section ids repeat");
    }
}
