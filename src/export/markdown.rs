//! Markdown: tables for papers and READMEs, one layout for every record kind. Each kind
//! describes its tables once ([`crate::table::Described`], beside its record); this file draws
//! the Markdown view of that description: the title and the lines before the tables, the table
//! streamed as results finish (a latency run's operations, a throughput run's points, a tls
//! run's CPU per handshake, a profile's instruction counts), then the other tables with their
//! captions and notes, and the lines after them. Every text is escaped except a cell kembench
//! marks verbatim.

use super::Layout;
use crate::record::{Kind, Record};
use crate::table::{Described, Drawn, Tables, Target};
use std::fmt::Write as _;

/// GitHub-flavoured Markdown.
pub struct Markdown;

pub use crate::table::{markdown_escape as escape, markdown_escape_cell as escape_cell};

/// A table's header and alignment lines.
fn header(d: &Drawn) -> String {
    let names: Vec<String> = d.columns.iter().map(|c| escape_cell(&c.text)).collect();
    let align: Vec<&str> = d
        .columns
        .iter()
        .map(|c| if c.numeric { "--:" } else { "---" })
        .collect();
    format!("| {} |\n|{}|\n", names.join(" | "), align.join("|"))
}

/// A table's rows; a row that ends early closes its empty cells with bare `|`.
fn rows(d: &Drawn) -> String {
    let mut s = String::new();
    for line in &d.rows {
        let cells: Vec<String> = line
            .cells
            .iter()
            .map(|c| {
                if c.verbatim {
                    c.text.clone()
                } else {
                    escape_cell(&c.text)
                }
            })
            .collect();
        let rest = d.columns.len().saturating_sub(cells.len());
        let _ = writeln!(s, "| {} |{}", cells.join(" | "), "|".repeat(rest));
    }
    s
}

/// The streamed table of `t` as the Markdown export draws it.
fn streamed(t: &Tables) -> Option<Drawn> {
    t.tables
        .iter()
        .find(|x| x.is_streamed())
        .and_then(|x| x.draw(Target::Markdown))
}

/// Any kind that describes its tables: the title and what is said before the tables, the
/// streamed table's caption and header; one part per result (its rows in the streamed table);
/// then every other table of the results so far with its caption and notes, and what is said
/// after the tables.
impl<K: Kind> Layout<K> for Markdown {
    fn head(&self, r: &Record<K>) -> anyhow::Result<Vec<u8>> {
        let t = r.tables(&[]);
        let mut s = format!("# {}\n\n", escape_cell(&t.title));
        for p in Tables::said(&t.intro, Target::Markdown) {
            writeln!(s, "{}\n", escape(p))?;
        }
        if let Some(d) = streamed(&t) {
            if let Some(c) = &d.caption {
                writeln!(s, "{}\n", escape(c))?;
            }
            s.push_str(&header(&d));
        }
        Ok(s.into_bytes())
    }

    fn item(&self, r: &Record<K>, _index: usize, item: &K::Result) -> anyhow::Result<Vec<u8>> {
        let t = r.tables(std::slice::from_ref(item));
        Ok(streamed(&t)
            .map_or(String::new(), |d| rows(&d))
            .into_bytes())
    }

    fn tail(&self, r: &Record<K>, count: usize) -> anyhow::Result<Vec<u8>> {
        let t = r.tables(&r.results[..count]);
        let mut s = String::new();
        for table in &t.tables {
            let Some(d) = table.draw(Target::Markdown) else {
                continue;
            };
            if !table.is_streamed() && d.shown() {
                s.push('\n');
                if let Some(c) = &d.caption {
                    writeln!(s, "{}\n", escape(c))?;
                }
                s.push_str(&header(&d));
                s.push_str(&rows(&d));
            }
            for n in &d.notes {
                writeln!(s, "\n{}", escape(n))?;
            }
        }
        for p in Tables::said(&t.outro, Target::Markdown) {
            writeln!(s, "\n{}", escape(p))?;
        }
        Ok(s.into_bytes())
    }
}

impl super::Exporter for Markdown {
    fn name(&self) -> &'static str {
        "markdown"
    }

    fn about(&self) -> &'static str {
        "Markdown tables, for papers and READMEs"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::Format;

    fn markdown() -> Format {
        Format::by_name("markdown").unwrap()
    }

    /// Names and a host from an imported file, crafted: a line break, a pipe, a backtick and
    /// terminal escape sequences (colour, OSC title, bell) never break a table row or reach the
    /// terminal that prints the file.
    #[test]
    fn data_never_breaks_a_row_or_acts_on_a_terminal() {
        let mut r = super::super::fixture::run();
        r.environment.hostname = "evil\u{1b}[31mhost\u{1b}]0;title\u{7}`x".into();
        r.results[0].algorithm = "Mock\nKEM|x".into();
        r.results[0].implementation = "mock/\r`correct`".into();
        let text = String::from_utf8(markdown().serialize(&r).unwrap()).unwrap();
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        for line in text.lines().filter(|l| l.starts_with('|')) {
            assert!(line.ends_with('|'), "a row cut short: {line:?}");
        }
        let rows: Vec<&str> = text.lines().filter(|l| l.contains("mock/\\r")).collect();
        assert!(!rows.is_empty(), "{text}");
        for row in rows {
            assert!(row.contains("Mock\\nKEM\\|x"), "{row}");
            assert!(row.contains("mock/\\r`correct`"), "{row}");
        }
        assert!(
            text.contains("Host `evil\\u{1b}[31mhost\\u{1b}]0;title\\u{7}'x`"),
            "{text}"
        );
    }

    #[test]
    fn snapshot() {
        let run = super::super::fixture::run();
        let text = String::from_utf8(markdown().serialize(&run).unwrap()).unwrap();
        insta::assert_snapshot!(text);
    }

    #[test]
    fn throughput_snapshot() {
        let r = super::super::fixture::throughput();
        insta::assert_snapshot!(String::from_utf8(markdown().serialize(&r).unwrap()).unwrap());
    }

    #[test]
    fn tls_snapshot() {
        let r = super::super::fixture::tls();
        let text = String::from_utf8(markdown().serialize(&r).unwrap()).unwrap();
        assert!(text.contains("| 15000 | 4 | 11 | > initcwnd |"), "{text}");
        assert!(text.contains("&lt;MLKEM1024&gt;"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn ct_snapshot() {
        let r = super::super::fixture::ct();
        let text = String::from_utf8(markdown().serialize(&r).unwrap()).unwrap();
        assert!(text.contains("# kembench ct"), "{text}");
        assert!(text.contains("| unexplained |"), "{text}");
        insta::assert_snapshot!(text);
    }

    /// `r` put together from its head, items and tail.
    fn streamed<K: Kind>(r: &Record<K>) -> String
    where
        Record<K>: Described<Item = K::Result>,
    {
        let mut parts = Markdown.head(r).unwrap();
        for (i, item) in r.results.iter().enumerate() {
            parts.extend(Markdown.item(r, i, item).unwrap());
        }
        parts.extend(Markdown.tail(r, r.results.len()).unwrap());
        String::from_utf8(parts).unwrap()
    }

    #[test]
    fn every_described_kind_streams_into_its_whole_file() {
        use crate::export::fixture;
        let whole = |f: &[u8]| String::from_utf8(f.to_vec()).unwrap();
        let (run, tp) = (fixture::run(), fixture::throughput());
        let (profile, tls) = (fixture::profile(), fixture::tls());
        assert_eq!(streamed(&run), whole(&Markdown.whole(&run).unwrap()));
        assert_eq!(streamed(&tp), whole(&Markdown.whole(&tp).unwrap()));
        assert_eq!(streamed(&tls), whole(&Markdown.whole(&tls).unwrap()));
        let ct = fixture::ct();
        assert_eq!(streamed(&ct), whole(&Markdown.whole(&ct).unwrap()));
        let text = streamed(&profile);
        assert_eq!(text, whole(&Markdown.whole(&profile).unwrap()));
        assert!(text.contains("| hottest function (self) |"), "{text}");
        // A tls run's head is its streamed table's caption and header, nothing measured yet.
        let head = whole(&Markdown.head(&tls).unwrap());
        assert!(
            head.ends_with("|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n"),
            "{head}"
        );
        assert!(head.contains("CPU per handshake (each side's time in its own calls):"));
    }

    #[test]
    fn names_are_escaped() {
        assert_eq!(
            escape("<script>a|b</script>"),
            "&lt;script&gt;a\\|b&lt;/script&gt;"
        );
    }
}
