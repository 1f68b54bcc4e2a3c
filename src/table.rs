//! One table model: a record kind describes each of its tables once, and the console
//! (`output`), the Markdown export (`export::markdown`) and the report (`report`) draw that one
//! description.
//!
//! A [`Table`] has columns (a header, numeric or text, whether it may wrap on the console),
//! rows of [`Cell`]s (text, a value to sort on, a [`Mark`], the row's [`Tags`] for the report's
//! filters), a caption and notes. The targets do not show the same columns: the description
//! gives each [`Target`] a view, the columns it shows in the order it shows them (so the
//! console's `--wide` columns are those of the [`WIDE`] view that the [`FIT`] view leaves
//! out). Where a target spells a header or a figure its own way, the column or cell says so
//! for that target ([`Column::named`], [`Cell::on`]); where a row belongs to one target only (a
//! message in place of figures), the row says so ([`Table::line`]).
//!
//! Text here is plain: the Markdown and HTML renderers escape it; `backticks` mark code as in
//! the console's prose. A kind's tables with what is said around them are [`Tables`], which a
//! record implementing [`Described`] gives for any of its results.

use crate::units;
use std::ops::BitOr;

/// Where a table is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The console within 120 columns (the default).
    Fit,
    /// The console with every column (`--wide`).
    Wide,
    /// The Markdown export.
    Markdown,
    /// The report (HTML and Markdown).
    Report,
}

/// A set of [`Target`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Targets(u8);

/// The console within 120 columns.
pub const FIT: Targets = Targets(1);
/// The console with `--wide`.
pub const WIDE: Targets = Targets(2);
/// The console, either way.
pub const CONSOLE: Targets = Targets(3);
/// The Markdown export.
pub const MARKDOWN: Targets = Targets(4);
/// The report.
pub const REPORT: Targets = Targets(8);
/// Every target.
pub const ALL: Targets = Targets(15);

impl Targets {
    /// Whether `t` is one of them.
    pub fn has(self, t: Target) -> bool {
        self.0 & Targets::from(t).0 != 0
    }
}

impl From<Target> for Targets {
    fn from(t: Target) -> Targets {
        match t {
            Target::Fit => FIT,
            Target::Wide => WIDE,
            Target::Markdown => MARKDOWN,
            Target::Report => REPORT,
        }
    }
}

impl BitOr for Targets {
    type Output = Targets;
    fn bitor(self, other: Targets) -> Targets {
        Targets(self.0 | other.0)
    }
}

/// What a table row is about, for the report's filters (family, level, implementation).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tags {
    /// Family (kebab-case).
    pub family: String,
    /// NIST level, `classical`, or empty when unknown.
    pub level: String,
    /// Implementation id.
    pub implementation: String,
}

impl Tags {
    /// Tags of an (algorithm, implementation) whose level is known (`None`: classical).
    pub fn new(family: &str, level: Option<u8>, implementation: &str) -> Tags {
        Tags {
            family: family.to_string(),
            level: level_text(level),
            implementation: implementation.to_string(),
        }
    }

    /// Tags of an (algorithm, implementation) whose level comes from the catalog: `None` when
    /// the catalog does not know the algorithm (the level is left empty).
    pub fn catalogued(family: &str, level: Option<Option<u8>>, implementation: &str) -> Tags {
        match level {
            Some(l) => Tags::new(family, l, implementation),
            None => Tags {
                level: String::new(),
                ..Tags::new(family, None, implementation)
            },
        }
    }
}

/// The terminal width the default tables and notes fit in.
pub const WIDTH: usize = 120;

/// `s` as a code span in kembench's text (`` `s` ``): a backtick inside it, which would end
/// the span early, is shown as `'`.
pub fn code(s: &str) -> String {
    format!("`{}`", s.replace('`', "'"))
}

/// How a NIST level is written: its number, or `classical` for none.
pub fn level_text(level: Option<u8>) -> String {
    level.map_or("classical".into(), |l| l.to_string())
}

/// How a cell is highlighted: in colour on the console, by its class in the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// A pass or an improvement.
    Good,
    /// A failure or a regression.
    Bad,
    /// Worth a look (a flag, the budget spent).
    Warn,
}

impl Mark {
    /// The report's CSS class.
    pub fn class(self) -> &'static str {
        match self {
            Mark::Good => "good",
            Mark::Bad => "bad",
            Mark::Warn => "warn",
        }
    }
}

/// One table cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// What is shown.
    pub text: String,
    /// The value the report sorts on, when it differs from the text (numbers with units).
    pub sort: Option<f64>,
    /// Highlight.
    pub mark: Option<Mark>,
    /// Right-aligned on the console (the other targets align by column).
    pub right: bool,
    /// Written as it is in Markdown: kembench's own text, never escaped.
    pub verbatim: bool,
    /// The text some targets show instead of [`Cell::text`].
    spelled: Vec<(Targets, String)>,
}

impl Cell {
    /// A text cell.
    pub fn text(s: impl Into<String>) -> Cell {
        Cell {
            text: s.into(),
            sort: None,
            mark: None,
            right: false,
            verbatim: false,
            spelled: Vec::new(),
        }
    }

    /// A number shown as `text`, sorted by `value`.
    pub fn num(s: impl Into<String>, value: f64) -> Cell {
        Cell {
            sort: value.is_finite().then_some(value),
            right: true,
            ..Cell::text(s)
        }
    }

    /// A time in ns, with its unit (`12.3 µs`).
    pub fn ns(v: f64) -> Cell {
        Cell::num(units::ns(v), v)
    }

    /// A rate or a large count, with an SI prefix (`12.3 k`).
    pub fn count(v: f64) -> Cell {
        Cell::num(units::count(v), v)
    }

    /// Right-aligned text on the console, not sorted in the report.
    pub fn right(s: impl Into<String>) -> Cell {
        Cell {
            right: true,
            ..Cell::text(s)
        }
    }

    /// A whole number (a count of samples, threads, handshakes).
    pub fn int(v: u64) -> Cell {
        Cell::num(v.to_string(), v as f64)
    }

    /// No figure: `–` on the console, `-` elsewhere.
    pub fn none() -> Cell {
        Cell {
            right: true,
            ..Cell::text("-").on(CONSOLE, "–")
        }
    }

    /// The same cell, sorted in the report by `value` (text that sorts in another order).
    pub fn sorted(mut self, value: f64) -> Cell {
        self.sort = value.is_finite().then_some(value);
        self
    }

    /// The same cell, highlighted.
    pub fn marked(mut self, mark: Mark) -> Cell {
        self.mark = Some(mark);
        self
    }

    /// The same cell, highlighted when `when`.
    pub fn marked_if(self, when: bool, mark: Mark) -> Cell {
        if when {
            self.marked(mark)
        } else {
            self
        }
    }

    /// The same cell, showing `text` in `targets`.
    pub fn on(mut self, targets: Targets, text: impl Into<String>) -> Cell {
        self.spelled.push((targets, text.into()));
        self
    }

    /// The same cell, never escaped in Markdown.
    pub fn verbatim(mut self) -> Cell {
        self.verbatim = true;
        self
    }

    /// The cell as `target` shows it: its text for that target, nothing else to choose.
    fn for_target(&self, target: Target) -> Cell {
        let mut c = self.clone();
        if let Some((_, s)) = self.spelled.iter().rev().find(|(t, _)| t.has(target)) {
            c.text = s.clone();
        }
        c.spelled.clear();
        c
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::text(s)
    }
}

impl From<&String> for Cell {
    fn from(s: &String) -> Cell {
        Cell::text(s.as_str())
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::text(s)
    }
}

/// A column of a [`Table`].
#[derive(Debug, Clone)]
pub struct Column {
    header: String,
    numeric: bool,
    wraps: bool,
    optional: bool,
    file: bool,
    named: Vec<(Targets, String)>,
    text_in: Option<Targets>,
}

impl Column {
    /// A text column headed `header` (a `\n` breaks it in two on the console's [`FIT`] view;
    /// the other targets show a space).
    pub fn text(header: &str) -> Column {
        Column {
            header: header.to_string(),
            numeric: false,
            wraps: false,
            optional: false,
            file: false,
            named: Vec::new(),
            text_in: None,
        }
    }

    /// A numeric column: right-aligned, sorted by value in the report.
    pub fn num(header: &str) -> Column {
        Column {
            numeric: true,
            ..Column::text(header)
        }
    }

    /// The report's `file` column: the report writes the file's label before what the rows
    /// put there (nothing, or a word about the file).
    pub fn file() -> Column {
        Column {
            file: true,
            ..Column::text("file")
        }
    }

    /// The same column, headed `header` in `targets`.
    pub fn named(mut self, targets: Targets, header: &str) -> Column {
        self.named.push((targets, header.to_string()));
        self
    }

    /// The same column, a text column in `targets` (a range the report does not align).
    pub fn text_in(mut self, targets: Targets) -> Column {
        self.text_in = Some(targets);
        self
    }

    /// The same column, the one that wraps its words on the console's [`FIT`] view.
    pub fn wraps(mut self) -> Column {
        self.wraps = true;
        self
    }

    /// The same column, one the console's [`FIT`] view leaves out when the table would
    /// otherwise be wider than [`WIDTH`] (it has a place in the [`WIDE`] view).
    pub fn optional(mut self) -> Column {
        self.optional = true;
        self
    }

    fn header_for(&self, target: Target) -> String {
        let h = self
            .named
            .iter()
            .rev()
            .find(|(t, _)| t.has(target))
            .map_or(self.header.as_str(), |(_, h)| h.as_str());
        match target {
            Target::Fit => h.to_string(),
            _ => h.replace('\n', " "),
        }
    }

    fn numeric_for(&self, target: Target) -> bool {
        self.numeric && !self.text_in.is_some_and(|t| t.has(target))
    }
}

/// A column of a [`Table`], as [`Table::add`] returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Col(usize);

/// One row: a cell per column (or none), the targets that show it, its tags.
#[derive(Debug, Clone)]
pub struct Row {
    cells: Vec<Option<Cell>>,
    targets: Targets,
    tags: Option<Tags>,
}

impl Row {
    /// Puts `cell` in column `c`.
    pub fn set(&mut self, c: Col, cell: impl Into<Cell>) -> &mut Row {
        self.cells[c.0] = Some(cell.into());
        self
    }

    /// Shows the row in `targets` only.
    pub fn only(&mut self, targets: Targets) -> &mut Row {
        self.targets = targets;
        self
    }
}

#[derive(Debug, Clone)]
struct View {
    targets: Targets,
    columns: Vec<Col>,
    grouped: usize,
}

/// One table, described once for every target.
#[derive(Debug, Clone)]
pub struct Table {
    /// The table's id: the report's element id, and how a report section picks the table.
    pub id: String,
    columns: Vec<Column>,
    views: Vec<View>,
    rows: Vec<Row>,
    captions: Vec<(Targets, String)>,
    notes: Vec<(Targets, String)>,
    footnotes: Vec<String>,
    always: Targets,
    folded: bool,
    streamed: bool,
    block: Option<String>,
}

impl Table {
    /// An empty table called `id`, with no columns yet.
    pub fn new(id: &str) -> Table {
        Table {
            id: id.to_string(),
            columns: Vec::new(),
            views: Vec::new(),
            rows: Vec::new(),
            captions: Vec::new(),
            notes: Vec::new(),
            footnotes: Vec::new(),
            always: Targets(0),
            folded: false,
            streamed: false,
            block: None,
        }
    }

    /// Lines its writer laid out (a list, a tree), shown as they are on the console in
    /// `targets` (the console's targets only: [`FIT`], [`WIDE`]) at this place among the
    /// tables, with the caption and notes of a table (shown when any of the three is there);
    /// each line ends in a newline.
    pub fn block(id: &str, targets: Targets, lines: impl Into<String>) -> Table {
        debug_assert!(
            targets.0 & !CONSOLE.0 == 0,
            "block {id}: only the console shows blocks"
        );
        let mut t = Table::new(id);
        t.view(targets, 0, &[]);
        t.block = Some(lines.into());
        t
    }

    /// Adds a column (before any row).
    pub fn add(&mut self, c: Column) -> Col {
        debug_assert!(
            self.rows.is_empty(),
            "table {}: columns come first",
            self.id
        );
        self.columns.push(c);
        Col(self.columns.len() - 1)
    }

    /// Shows `columns` in this order in `targets`, the first `grouped` of them names that the
    /// console blanks where they repeat the row above. A target without a view does not show
    /// the table.
    pub fn view(&mut self, targets: Targets, grouped: usize, columns: &[Col]) -> &mut Table {
        self.views.push(View {
            targets,
            columns: columns.to_vec(),
            grouped,
        });
        self
    }

    /// What is said above the table in `targets`: the console's and the Markdown export's line
    /// before it, the report's title (a folded table's summary, a bold line above the others).
    pub fn caption(&mut self, targets: Targets, text: impl Into<String>) -> &mut Table {
        self.captions.push((targets, text.into()));
        self
    }

    /// A paragraph after the table in `targets`.
    pub fn note(&mut self, targets: Targets, text: impl Into<String>) -> &mut Table {
        self.notes.push((targets, text.into()));
        self
    }

    /// Keeps `text` as a numbered note under the table on the console's [`FIT`] view and
    /// returns its marker, `[n]`, for a cell.
    pub fn footnote(&mut self, text: String) -> String {
        self.footnotes.push(text);
        format!("[{}]", self.footnotes.len())
    }

    /// Shows the table in `targets` even without rows (its header alone).
    pub fn always(&mut self, targets: Targets) -> &mut Table {
        self.always = self.always | targets;
        self
    }

    /// Folds the table in the HTML report (a long table of details under a chart).
    pub fn folded(&mut self) -> &mut Table {
        self.folded = true;
        self
    }

    /// Makes the table the one the Markdown export streams: its caption and header in the
    /// file's head, its rows as each result comes.
    pub fn streamed(&mut self) -> &mut Table {
        self.streamed = true;
        self
    }

    /// Whether the Markdown export streams this table.
    pub fn is_streamed(&self) -> bool {
        self.streamed
    }

    /// Adds a row shown in every target, with no cells yet.
    pub fn row(&mut self, tags: Option<Tags>) -> &mut Row {
        self.rows.push(Row {
            cells: vec![None; self.columns.len()],
            targets: ALL,
            tags,
        });
        self.rows.last_mut().expect("just pushed")
    }

    /// Adds a row that `target` alone shows, its `cells` in the order of that target's view
    /// (a message in place of figures); a row shorter than the view leaves the rest empty.
    pub fn line(&mut self, target: Target, tags: Option<Tags>, cells: Vec<Cell>) {
        let view = self.view_for(target).expect("a view for the line's target");
        let columns = view.columns.clone();
        debug_assert!(cells.len() <= columns.len(), "table {}", self.id);
        let row = self.row(tags);
        row.only(target.into());
        for (c, cell) in columns.into_iter().zip(cells) {
            row.set(c, cell);
        }
    }

    fn view_for(&self, target: Target) -> Option<&View> {
        self.views.iter().find(|v| v.targets.has(target))
    }

    /// The table as `target` draws it: `None` when the target has no view of it.
    pub fn draw(&self, target: Target) -> Option<Drawn> {
        let view = self.view_for(target)?;
        let rows: Vec<Line> = self
            .rows
            .iter()
            .filter(|r| r.targets.has(target))
            .map(|r| {
                let mut cells: Vec<Option<Cell>> = view
                    .columns
                    .iter()
                    .map(|c| r.cells[c.0].as_ref().map(|x| x.for_target(target)))
                    .collect();
                while cells.last().is_some_and(Option::is_none) {
                    cells.pop();
                }
                Line {
                    cells: cells
                        .into_iter()
                        .map(|c| c.unwrap_or_else(|| Cell::text("")))
                        .collect(),
                    tags: r.tags.clone(),
                }
            })
            .collect();
        let texts = |list: &[(Targets, String)]| -> Vec<String> {
            list.iter()
                .filter(|(t, _)| t.has(target))
                .map(|(_, s)| s.clone())
                .collect()
        };
        Some(Drawn {
            id: self.id.clone(),
            caption: texts(&self.captions).into_iter().next(),
            columns: view
                .columns
                .iter()
                .map(|c| {
                    let col = &self.columns[c.0];
                    Heading {
                        text: col.header_for(target),
                        numeric: col.numeric_for(target),
                        wraps: col.wraps,
                        optional: col.optional,
                        file: col.file,
                    }
                })
                .collect(),
            grouped: view.grouped,
            rows,
            notes: texts(&self.notes),
            footnotes: if target == Target::Fit {
                self.footnotes.clone()
            } else {
                Vec::new()
            },
            folded: self.folded,
            always: self.always.has(target),
            block: self.block.clone(),
        })
    }
}

/// A column as one target draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct Heading {
    /// The header (a `\n` only on the console's [`FIT`] view).
    pub text: String,
    /// Numbers: right-aligned, sorted by value.
    pub numeric: bool,
    /// Wraps its words on the console's [`FIT`] view.
    pub wraps: bool,
    /// Left out of the console's [`FIT`] view when the table would not fit otherwise.
    pub optional: bool,
    /// The report's `file` column ([`Column::file`]).
    pub file: bool,
}

/// A row as one target draws it: a row shorter than the columns leaves the rest empty.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The cells, in the view's order.
    pub cells: Vec<Cell>,
    /// What the row is about (the report's filters).
    pub tags: Option<Tags>,
}

/// A table as one target draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    /// The table's id.
    pub id: String,
    /// What is said above it.
    pub caption: Option<String>,
    /// Its columns.
    pub columns: Vec<Heading>,
    /// How many leading columns are names the console blanks where they repeat.
    pub grouped: usize,
    /// Its rows.
    pub rows: Vec<Line>,
    /// Paragraphs after it.
    pub notes: Vec<String>,
    /// The numbered notes its cells point to (`[n]`), in order.
    pub footnotes: Vec<String>,
    /// Folded in the HTML report.
    pub folded: bool,
    /// Shown even without rows.
    pub always: bool,
    /// The lines of a block ([`Table::block`]), shown as they are instead of a table.
    pub block: Option<String>,
}

impl Drawn {
    /// Whether the console and the Markdown export show it: when it has rows, is to be shown
    /// [`Table::always`], or is a block with something to say.
    pub fn shown(&self) -> bool {
        self.always
            || !self.rows.is_empty()
            || self
                .block
                .as_ref()
                .is_some_and(|b| !b.is_empty() || self.caption.is_some() || !self.notes.is_empty())
    }
}

/// A kind's tables and what is said around them.
#[derive(Debug, Clone)]
pub struct Tables {
    /// The Markdown export's title (`kembench tls, 2026-11-22T12:00:00Z`).
    pub title: String,
    /// Paragraphs before the tables, each for some targets.
    pub intro: Vec<(Targets, String)>,
    /// The tables, in the console's order; the Markdown export writes its streamed table
    /// first and the others in this order.
    pub tables: Vec<Table>,
    /// Paragraphs after the tables, each for some targets.
    pub outro: Vec<(Targets, String)>,
    /// Whether the console's default view ([`FIT`]) ends by saying where the columns and
    /// notes it leaves out can be read (`show --wide`, the report, the JSON file), or that
    /// they are nowhere when the run is neither stored nor written.
    pub rest_elsewhere: bool,
}

impl Tables {
    /// The table called `id`.
    pub fn get(&self, id: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.id == id)
    }

    /// The paragraphs of `list` that `target` shows.
    pub fn said(list: &[(Targets, String)], target: Target) -> impl Iterator<Item = &str> {
        list.iter()
            .filter(move |(t, _)| t.has(target))
            .map(|(_, s)| s.as_str())
    }
}

/// A record whose tables are described once: each record kind implements it.
pub trait Described {
    /// One result of the record.
    type Item;
    /// The tables of `items`: every result of the record, or, while the Markdown export
    /// streams, one result or the first few.
    fn tables(&self, items: &[Self::Item]) -> Tables;
}

/// Escapes what Markdown tables and HTML would interpret, and shows every control character
/// but a line break as an escape (an imported host name's ESC sequences never reach a
/// terminal that prints the file).
pub fn markdown_escape(s: &str) -> String {
    let shown: String = s
        .split('\n')
        .map(crate::units::visible)
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::with_capacity(shown.len());
    let mut rest = shown.as_str();
    while let Some(open) = rest.find('`') {
        let (text, from) = rest.split_at(open);
        out.push_str(&escape_text(text));
        let run = from.len() - from.trim_start_matches('`').len();
        let after = &from[run..];
        // A code span closes at the next run of exactly as many backticks; without one the
        // backticks are literal text (CommonMark), and so is what follows them.
        match closing(after, run) {
            Some(end) => {
                out.push_str(&from[..run]);
                // Inside a code span nothing is markup: entities would show as written. Only
                // a pipe still ends a table cell.
                out.push_str(&after[..end].replace('|', "\\|"));
                out.push_str(&from[..run]);
                rest = &after[end + run..];
            }
            None => {
                out.push_str(&from[..run]);
                rest = after;
            }
        }
    }
    out.push_str(&escape_text(rest));
    out
}

/// Markdown text outside code spans: what HTML or a table would read as markup.
fn escape_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
}

/// Where the run of exactly `n` backticks that closes a code span starts in `s`.
fn closing(s: &str, n: usize) -> Option<usize> {
    let mut i = 0;
    while let Some(at) = s[i..].find('`') {
        let start = i + at;
        let len = s[start..].len() - s[start..].trim_start_matches('`').len();
        if len == n {
            return Some(start);
        }
        i = start + len;
    }
    None
}

/// [`markdown_escape`] for one table cell or title, which is one line: a line break is shown as `\n`
/// (it would end the table row). Backticks are kembench's code spans (made with
/// [`crate::table::code`], which keeps data from ending them early).
pub fn markdown_escape_cell(s: &str) -> String {
    markdown_escape(&crate::units::visible(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new("t");
        let name = t.add(Column::text("name").wraps());
        let median = t.add(
            Column::num("med\nian")
                .named(MARKDOWN, "median (ns)")
                .text_in(REPORT),
        );
        let extra = t.add(Column::num("extra"));
        t.view(FIT, 1, &[name, median])
            .view(WIDE | MARKDOWN, 0, &[name, median, extra])
            .caption(CONSOLE, "Console caption")
            .note(MARKDOWN, "A note");
        t.row(None)
            .set(name, "a")
            .set(median, Cell::num("1 ns", 1.0).on(REPORT, "1.0 ns"))
            .set(extra, Cell::none());
        t.line(Target::Markdown, None, vec!["b".into(), "why".into()]);
        let mark = t.footnote("the first".into());
        t.row(None).set(name, "c").set(median, mark).only(FIT);
        t
    }

    #[test]
    fn code_spans_keep_what_they_hold_and_the_rest_is_escaped() {
        assert_eq!(
            markdown_escape("`<T as Kem>::decaps` 12% <b>"),
            "`<T as Kem>::decaps` 12% &lt;b&gt;"
        );
        // A pipe ends a table cell even inside a code span.
        assert_eq!(markdown_escape("`a|b` c|d"), "`a\\|b` c\\|d");
        // An unclosed backtick is text: what follows it is escaped (no raw HTML gets through).
        assert_eq!(markdown_escape("`<script>"), "`&lt;script&gt;");
        // A span closes only at a run of as many backticks.
        assert_eq!(markdown_escape("``a`<b>``"), "``a`<b>``");
        assert_eq!(markdown_escape("``a`<b>"), "``a`&lt;b&gt;");
    }

    #[test]
    fn each_target_draws_its_view() {
        let t = sample();
        let fit = t.draw(Target::Fit).unwrap();
        assert_eq!(fit.columns[1].text, "med\nian");
        assert!(fit.columns[0].wraps);
        assert_eq!(fit.rows.len(), 2, "the Markdown line is not on the console");
        assert_eq!(fit.rows[1].cells[1].text, "[1]");
        assert_eq!(fit.footnotes, ["the first"]);
        assert_eq!(fit.caption.as_deref(), Some("Console caption"));
        let wide = t.draw(Target::Wide).unwrap();
        assert_eq!(wide.columns[1].text, "med ian");
        assert_eq!(wide.rows[0].cells[2].text, "–");
        assert!(wide.footnotes.is_empty());
        let md = t.draw(Target::Markdown).unwrap();
        assert_eq!(md.columns[1].text, "median (ns)");
        assert_eq!(md.rows[0].cells[2].text, "-");
        assert_eq!(md.rows[1].cells.len(), 2, "a short line stays short");
        assert_eq!(md.notes, ["A note"]);
        assert!(t.draw(Target::Report).is_none(), "no view");
    }

    #[test]
    fn spellings_alignment_and_emptiness() {
        let mut t = sample();
        t.view(REPORT, 0, &[Col(1)]);
        let r = t.draw(Target::Report).unwrap();
        assert!(!r.columns[0].numeric, "text in the report");
        assert_eq!(r.rows[0].cells[0].text, "1.0 ns");
        assert_eq!(r.rows[0].cells[0].sort, Some(1.0));
        let mut empty = Table::new("e");
        let c = empty.add(Column::text("x"));
        empty.view(ALL, 0, &[c]).always(MARKDOWN);
        assert!(!empty.draw(Target::Fit).unwrap().shown());
        assert!(empty.draw(Target::Markdown).unwrap().shown());
    }

    #[test]
    fn levels_and_tags() {
        assert_eq!(Tags::new("f", None, "i").level, "classical");
        assert_eq!(Tags::catalogued("f", Some(Some(3)), "i").level, "3");
        assert_eq!(Tags::catalogued("f", None, "i").level, "");
    }
}
