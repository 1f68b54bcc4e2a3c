//! The report as a document, independent of its format: headings, paragraphs, tables and
//! charts. [`super::sections`] builds it once; [`super::html`] and [`super::markdown`] render
//! it, so both formats say the same thing. Every string here is raw text from the data or from
//! kembench: the renderers escape it. Cells, marks and tags are the table model's
//! ([`crate::table`]); a record kind's described tables become report tables with
//! [`Table::described`].

use crate::table::Target;
pub use crate::table::{level_text, Cell, Mark, Tags};

/// A run of inline text.
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    /// Plain text.
    Text(String),
    /// Code or a value to be read literally (host names, command lines).
    Code(String),
    /// Emphasised text.
    Strong(String),
}

/// Plain text.
pub fn text(s: impl Into<String>) -> Span {
    Span::Text(s.into())
}

/// Literal text.
pub fn code(s: impl Into<String>) -> Span {
    Span::Code(s.into())
}

/// Emphasised text.
pub fn strong(s: impl Into<String>) -> Span {
    Span::Strong(s.into())
}

/// A paragraph of spans.
pub type Para = Vec<Span>;

/// One table row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The cells, one per column.
    pub cells: Vec<Cell>,
    /// What the row is about, for filtering; `None` for rows that are never filtered.
    pub tags: Option<Tags>,
}

/// A table; numeric columns are right-aligned.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// An id for the HTML element.
    pub id: String,
    /// Column headers with whether the column is numeric.
    pub columns: Vec<(String, bool)>,
    /// Rows.
    pub rows: Vec<Row>,
    /// Shown folded in HTML (a long table of details under a chart); Markdown ignores it.
    pub folded: bool,
    /// A line naming the table, for tables that do not follow a heading of their own: a
    /// folded table's summary line in HTML (instead of "The table (N rows)"), a bold line
    /// above the table in Markdown.
    pub title: Option<String>,
}

impl Table {
    /// An empty table with these columns (names ending in `#` are numeric; the `#` is
    /// dropped).
    pub fn new(id: &str, columns: &[&str]) -> Table {
        Table {
            id: id.to_string(),
            columns: columns
                .iter()
                .map(|c| match c.strip_suffix('#') {
                    Some(name) => (name.to_string(), true),
                    None => (c.to_string(), false),
                })
                .collect(),
            rows: Vec::new(),
            folded: false,
            title: None,
        }
    }

    /// The same table, folded in HTML.
    pub fn folded(mut self) -> Table {
        self.folded = true;
        self
    }

    /// The same table, named by `title` (see [`Table::title`]).
    pub fn titled(mut self, title: impl Into<String>) -> Table {
        self.title = Some(title.into());
        self
    }

    /// Adds a row.
    pub fn push(&mut self, cells: Vec<Cell>, tags: Option<Tags>) {
        debug_assert_eq!(cells.len(), self.columns.len(), "table {}", self.id);
        self.rows.push(Row { cells, tags });
    }

    /// The table `id` as the report shows it, from each file's described tables in turn
    /// (`(label, tables)`): its rows one file after another, the file's label in the `file`
    /// column. Without any, a table with no columns.
    pub fn described<'a>(
        id: &str,
        files: impl IntoIterator<Item = (&'a str, &'a crate::table::Tables)>,
    ) -> Table {
        let mut out: Option<Table> = None;
        for (label, tables) in files {
            let Some(d) = tables.get(id).and_then(|t| t.draw(Target::Report)) else {
                continue;
            };
            let t = out.get_or_insert_with(|| Table {
                id: d.id.clone(),
                columns: d
                    .columns
                    .iter()
                    .map(|c| (c.text.clone(), c.numeric))
                    .collect(),
                rows: Vec::new(),
                folded: d.folded,
                title: d.caption.clone(),
            });
            for line in d.rows {
                let mut cells = line.cells;
                cells.resize(d.columns.len(), Cell::text(""));
                for (c, h) in cells.iter_mut().zip(&d.columns) {
                    if h.file {
                        c.text = format!("{label}{}", c.text);
                    }
                }
                t.push(cells, line.tags);
            }
        }
        out.unwrap_or_else(|| Table::new(id, &[]))
    }
}

/// A chart rendered to SVG.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Element id in the HTML (`chart-latency-module-lattice`); the Markdown report's SVG file
    /// is named after it.
    pub id: String,
    /// Title shown above the chart.
    pub title: String,
    /// How to read it.
    pub caption: String,
    /// The SVG document, from plotters.
    pub svg: String,
    /// The family the chart is about, when it is about one (the HTML family filter hides it).
    pub family: Option<String>,
    /// How the HTML page holds the SVG.
    pub embed: Embed,
}

/// How the HTML page holds a chart's SVG (the Markdown report always writes it to a file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embed {
    /// Inline, as part of the page: plotters' charts, whose text the page's CSS and the
    /// browser's search reach.
    Inline,
    /// As an image (`<img>` of a `data:` URI): an SVG with scripts and styles of its own
    /// (inferno's flame graphs), which inline would run in the page and restyle every other
    /// chart. As an image its scripts never run and its styles stay inside it.
    Image,
}

impl Chart {
    /// The SVG file name in the Markdown report: the id without its `chart-` prefix.
    pub fn file_name(&self) -> String {
        format!("{}.svg", self.id.strip_prefix("chart-").unwrap_or(&self.id))
    }
}

/// A block of the document.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A section heading (level 2) or sub-heading (level 3); `id` anchors it.
    Heading {
        /// 2 or 3.
        level: u8,
        /// Anchor.
        id: String,
        /// Text.
        text: String,
    },
    /// A paragraph.
    Para(Para),
    /// A bulleted list.
    List(Vec<Para>),
    /// A table.
    Table(Table),
    /// Charts shown together: a grid in HTML. `id` names the group's container.
    Charts {
        /// Container id (`chart-throughput`), or empty for no container id.
        id: String,
        /// The charts.
        charts: Vec<Chart>,
    },
    /// Key-value pairs (an environment).
    Facts(Vec<(String, String)>),
}

/// A whole report.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// Title.
    pub title: String,
    /// The lines under the title (which files, generated by what).
    pub intro: Vec<Para>,
    /// Body.
    pub blocks: Vec<Block>,
}

impl Document {
    /// Every chart, in order.
    pub fn charts(&self) -> impl Iterator<Item = &Chart> {
        self.blocks.iter().flat_map(|b| match b {
            Block::Charts { charts, .. } => charts.as_slice(),
            _ => &[],
        })
    }

    /// The (id, text) of every section heading, for a table of contents.
    pub fn sections(&self) -> Vec<(&str, &str)> {
        self.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Heading { level: 2, id, text } => Some((id.as_str(), text.as_str())),
                _ => None,
            })
            .collect()
    }
}

/// `s` reduced to `[a-z0-9-]` for ids and file names (`Module lattice!` → `module-lattice-`).
pub fn slug(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    if out.is_empty() {
        "x".into()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_safe_for_ids_and_file_names() {
        assert_eq!(slug("module-lattice"), "module-lattice");
        assert_eq!(slug("<script>/../x"), "-script-----x");
        assert_eq!(slug(""), "x");
    }

    #[test]
    fn numeric_columns_are_marked_with_a_hash() {
        let t = Table::new("t", &["name", "median#"]);
        assert_eq!(
            t.columns,
            [("name".to_string(), false), ("median".to_string(), true)]
        );
    }
}
