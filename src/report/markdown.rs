//! The Markdown report: `report.md` with GitHub-flavoured tables, and one SVG file per chart
//! beside it, referenced as images. Strings from the data are escaped as the run exporter
//! escapes them ([`crate::export::markdown::escape`]).

use super::doc::{Block, Document, Mark, Para, Span};
use crate::export::markdown::{escape, escape_cell};
use std::fmt::Write as _;

/// The Markdown text and the chart files it refers to: (file name, SVG).
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// `report.md`'s text.
    pub text: String,
    /// One SVG per chart, named as the text refers to it.
    pub files: Vec<(String, String)>,
}

/// Literal text in a code span: escaped, and without backticks that would end the span.
fn code(s: &str) -> String {
    escape(&crate::table::code(&crate::units::visible(s)))
}

fn spans(p: &Para) -> String {
    p.iter()
        .map(|s| match s {
            Span::Text(t) => escape(t),
            Span::Code(t) => code(t),
            Span::Strong(t) => {
                let word = t.trim_end();
                format!("**{}**{}", escape(word), &t[word.len()..])
            }
        })
        .collect()
}

/// Renders the document.
pub fn render(doc: &Document) -> Rendered {
    let mut s = String::new();
    let mut files = Vec::new();
    let _ = writeln!(s, "# {}\n", escape(&doc.title));
    for p in &doc.intro {
        let _ = writeln!(s, "{}\n", spans(p));
    }
    let toc: Vec<String> = doc
        .sections()
        .iter()
        .map(|(id, text)| format!("[{}](#{})", escape(text), id))
        .collect();
    let _ = writeln!(s, "Contents: {}\n", toc.join(" · "));
    for b in &doc.blocks {
        match b {
            Block::Heading { level, id, text } => {
                let _ = writeln!(
                    s,
                    "<a id=\"{id}\"></a>\n{} {}\n",
                    "#".repeat(usize::from(*level)),
                    escape(text)
                );
            }
            Block::Para(p) => {
                let _ = writeln!(s, "{}\n", spans(p));
            }
            Block::List(items) => {
                for p in items {
                    let _ = writeln!(s, "- {}", spans(p));
                }
                s.push('\n');
            }
            Block::Table(t) => {
                if let Some(title) = &t.title {
                    let _ = writeln!(s, "**{}**\n", escape_cell(title));
                }
                let head: Vec<String> = t.columns.iter().map(|(c, _)| escape_cell(c)).collect();
                let _ = writeln!(s, "| {} |", head.join(" | "));
                let align: Vec<&str> = t
                    .columns
                    .iter()
                    .map(|(_, num)| if *num { "--:" } else { "---" })
                    .collect();
                let _ = writeln!(s, "|{}|", align.join("|"));
                for row in &t.rows {
                    let cells: Vec<String> = row
                        .cells
                        .iter()
                        .map(|c| {
                            let text = escape_cell(&c.text);
                            match c.mark {
                                Some(Mark::Bad) if !text.is_empty() => format!("**{text}**"),
                                _ => text,
                            }
                        })
                        .collect();
                    let _ = writeln!(s, "| {} |", cells.join(" | "));
                }
                s.push('\n');
            }
            Block::Charts { charts, .. } => {
                for c in charts {
                    let file = c.file_name();
                    let _ = writeln!(
                        s,
                        "**{}**\n\n![{}]({})\n\n{}\n",
                        escape(&c.title),
                        escape(&c.title).replace(['[', ']'], ""),
                        file,
                        escape(&c.caption)
                    );
                    files.push((file, c.svg.clone()));
                }
            }
            Block::Facts(facts) => {
                for (k, v) in facts {
                    let _ = writeln!(s, "- **{}**: {}", escape(k), escape(v));
                }
                s.push('\n');
            }
        }
    }
    Rendered {
        text: s.trim_end().to_string() + "\n",
        files,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::report::data::{AnyRecord, Dataset};

    fn data() -> Dataset {
        let mut later = fixture::run();
        later.started_at = "2026-11-23T12:00:00Z".into();
        later.finished_at = Some("2026-11-23T12:01:00Z".into());
        for r in &mut later.results {
            for o in &mut r.operations {
                for x in &mut o.raw_samples_ns {
                    *x *= 1.2;
                }
                o.median_ns *= 1.2;
                o.median_ci95_low_ns *= 1.2;
                o.median_ci95_high_ns *= 1.2;
                o.p25_ns *= 1.2;
                o.p75_ns *= 1.2;
                o.ops_per_sec /= 1.2;
            }
        }
        Dataset::from_records(vec![
            ("base.json".into(), AnyRecord::from(fixture::run())),
            ("later.json".into(), AnyRecord::from(later)),
        ])
    }

    #[test]
    fn snapshot() {
        let doc = crate::report::sections::build(&data(), 0.02).unwrap();
        let r = render(&doc);
        insta::assert_snapshot!(r.text);
    }

    #[test]
    fn names_from_the_data_are_escaped() {
        let mut run = fixture::run();
        run.results[0].implementation = "<script>alert(1)</script>|x".into();
        let data = Dataset::from_records(vec![("r.json".into(), AnyRecord::from(run))]);
        let r = render(&crate::report::sections::build(&data, 0.02).unwrap());
        assert!(r.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;\\|x"));
        assert!(!r.text.contains("<script"));
        for (_, svg) in &r.files {
            assert!(!svg.contains("<script"));
        }
    }

    #[test]
    fn every_chart_has_its_file() {
        let doc = crate::report::sections::build(&data(), 0.02).unwrap();
        let r = render(&doc);
        let names: Vec<&str> = r.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "latency-test.svg",
                "size.svg",
                "shares.svg",
                "memory.svg",
                "compare-2.svg"
            ]
        );
        for (name, svg) in &r.files {
            assert!(r.text.contains(&format!("]({name})")), "{name}");
            assert!(svg.starts_with("<svg"), "{name}");
        }
    }
}
