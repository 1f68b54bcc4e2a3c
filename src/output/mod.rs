//! Console rendering: every command's tables (one module each), the table printer and unit
//! formatting they share, and the console's drawing of the tables each record kind describes
//! once ([`described`], [`shown`]; see [`crate::table`]). The renderers return Strings; the commands print them, tables to
//! stdout and progress and warnings to stderr.
//!
//! `run`, `show`, `throughput` and `tls` have two layouts: [`Width::Fit`], the default, keeps every
//! line within [`WIDTH`] columns (the headline columns only, long messages moved under the
//! table); [`Width::Wide`] (`--wide`) shows every column and every message in place.

pub mod builds;
pub mod list;
pub mod runs;

pub mod verify;

use crate::table::{Drawn, Mark, Tables, Target};
use comfy_table::{
    presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Color, ColumnConstraint, ContentArrangement,
    Table, Width as ColumnWidth,
};

pub use crate::table::WIDTH;

/// How much a table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Width {
    /// The headline columns, every line within [`WIDTH`] columns, notes summarised.
    #[default]
    Fit,
    /// Every column, every note and message in full (`--wide`).
    Wide,
}

impl Width {
    /// The described tables' view this layout draws.
    pub fn target(self) -> Target {
        match self {
            Width::Fit => Target::Fit,
            Width::Wide => Target::Wide,
        }
    }

    /// [`Width::Wide`] when `--wide` was given.
    pub fn wide_if(wide: bool) -> Width {
        if wide {
            Width::Wide
        } else {
            Width::Fit
        }
    }
}

/// A table with kembench's look: condensed borders, no wrapping.
pub fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header.iter().map(Cell::new));
    t
}

/// A table that stays within [`WIDTH`] columns whatever the terminal: every column is as wide
/// as its content except column `flexible`, which wraps its words into what is left.
pub fn fit_table(header: &[&str], flexible: usize) -> Table {
    let mut t = table(header);
    t.set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(WIDTH as u16);
    for (i, c) in t.column_iter_mut().enumerate() {
        if i != flexible {
            c.set_constraint(ColumnConstraint::ContentWidth);
        }
    }
    t
}

/// The fewest columns the wrapping column of a [`fit_table`] keeps (a message stays readable).
pub const FLEXIBLE_MIN: usize = 32;

/// Keeps a [`fit_table`] within [`WIDTH`] once its rows are in, and its wrapping column
/// `flexible` at least [`FLEXIBLE_MIN`] wide (or as wide as its content, if less): columns
/// wider than their share (a build id with a long flag set) wrap at the width that leaves that
/// room, instead of squeezing the wrapping column to one character (an error printed one
/// letter per line).
pub fn fit_columns(t: &mut Table, flexible: usize) {
    let widths: Vec<usize> = t
        .column_max_content_widths()
        .into_iter()
        .map(usize::from)
        .collect();
    let n = widths.len();
    if flexible >= n {
        return;
    }
    // Borders (n + 1) and one space of padding on each side of every column.
    let chrome = n + 1 + 2 * n;
    let keep = widths[flexible].min(FLEXIBLE_MIN);
    let budget = WIDTH.saturating_sub(chrome + keep);
    let others: Vec<usize> = (0..n).filter(|&i| i != flexible).collect();
    if others.iter().map(|&i| widths[i]).sum::<usize>() <= budget {
        return;
    }
    // The widest cap at which the other columns fit the budget.
    let mut cap = budget;
    while cap > 1 && others.iter().map(|&i| widths[i].min(cap)).sum::<usize>() > budget {
        cap -= 1;
    }
    for &i in &others {
        if widths[i] > cap {
            if let Some(c) = t.column_mut(i) {
                c.set_constraint(ColumnConstraint::Absolute(ColumnWidth::Fixed(cap as u16)));
            }
        }
    }
    if let Some(c) = t.column_mut(flexible) {
        c.set_constraint(ColumnConstraint::LowerBoundary(ColumnWidth::Fixed(
            keep as u16,
        )));
    }
}

/// A right-aligned cell, for numbers.
pub fn num(v: impl ToString) -> Cell {
    Cell::new(v.to_string()).set_alignment(CellAlignment::Right)
}

/// `text` broken at spaces into lines of at most [`WIDTH`] characters, every line after the
/// first indented by `indent` spaces, each line ending in a newline. A command in backticks
/// is never broken, and a word longer than a line (a path) stays whole. Characters are
/// counted, not bytes: every character kembench prints (µ, ±, –, box drawing) is one column
/// wide.
pub fn wrap(text: &str, indent: usize) -> String {
    fill(words(text), indent, "")
}

/// A command line in lines of at most [`WIDTH`] characters, broken only before an option
/// (so that `--store URL` stays together) and continued shell-style with ` \`.
pub fn command_line(args: &[String]) -> String {
    let mut groups: Vec<String> = Vec::new();
    for a in args {
        match groups.last_mut() {
            Some(g) if !a.starts_with('-') => {
                g.push(' ');
                g.push_str(a);
            }
            _ => groups.push(a.clone()),
        }
    }
    fill(groups, 2, " \\")
}

/// `words` joined by spaces into lines of at most [`WIDTH`] characters, `tail` included at
/// the end of every line but the last, later lines indented by `indent`.
fn fill(words: Vec<String>, indent: usize, tail: &str) -> String {
    let width = WIDTH - tail.chars().count();
    let mut out = String::new();
    let mut line = String::new();
    let mut len = 0;
    let mut has_word = false;
    for word in words {
        let n = word.chars().count();
        if has_word && len + 1 + n > width {
            out.push_str(&line);
            out.push_str(tail);
            out.push('\n');
            line = " ".repeat(indent);
            len = indent;
            has_word = false;
        }
        if has_word {
            line.push(' ');
            len += 1;
        }
        line.push_str(&word);
        len += n;
        has_word = true;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The words of `text` for [`wrap`]: split at spaces, except inside backticks.
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for w in text.split(' ').filter(|w| !w.is_empty()) {
        match out.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(w);
            }
            _ => out.push(w.to_string()),
        }
        open ^= w.matches('`').count() % 2 == 1;
    }
    out
}

/// Names repeated from the row above, blanked: each name is shown only when it, or a name to
/// its left, differs from the previous row's (an algorithm is named once for its rows).
#[derive(Debug, Default)]
pub struct Grouped(Vec<String>);

impl Grouped {
    /// The cells for this row's `names`.
    pub fn cells(&mut self, names: &[&str]) -> Vec<Cell> {
        let mut same = true;
        let cells = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                same = same && self.0.get(i).is_some_and(|l| l == n);
                Cell::new(if same { "" } else { *n })
            })
            .collect();
        self.0 = names.iter().map(|n| n.to_string()).collect();
        cells
    }
}

/// A record's described tables as the console shows them, each line ending in a newline: what
/// is said before them, each table shown in `layout` with its caption above it and its
/// numbered notes and paragraphs under it, then what is said after them.
pub fn described(tables: &Tables, layout: Width) -> String {
    let target = layout.target();
    let mut out = String::new();
    for p in Tables::said(&tables.intro, target) {
        out.push_str(&prose(layout, p));
    }
    for t in &tables.tables {
        out.push_str(&shown(t, layout));
    }
    for p in Tables::said(&tables.outro, target) {
        out.push_str(&prose(layout, p));
    }
    out
}

/// One described table as the console shows it in `layout`: its caption, the table, its
/// numbered notes and paragraphs; nothing when `layout` does not show it.
pub fn shown(t: &crate::table::Table, layout: Width) -> String {
    let target = layout.target();
    let Some(d) = t.draw(target).filter(Drawn::shown) else {
        return String::new();
    };
    let mut out = String::new();
    if let Some(c) = &d.caption {
        out.push_str(&prose(layout, c));
    }
    match &d.block {
        Some(lines) => out.push_str(lines),
        None => out.push_str(&format!("{}\n", drawn(&d, layout))),
    }
    for (i, f) in d.footnotes.iter().enumerate() {
        out.push_str(&wrap(&format!("[{}] {f}", i + 1), 4));
    }
    for n in &d.notes {
        out.push_str(&prose(layout, n));
    }
    out
}

/// One described table on the console: within [`WIDTH`] in [`Width::Fit`] when a column may
/// wrap (it wraps; `\n` in a header breaks it), else as wide as its content; the
/// grouped names blanked where they repeat the row above; marked cells in colour.
fn drawn(d: &Drawn, layout: Width) -> Table {
    let headers: Vec<&str> = d.columns.iter().map(|c| c.text.as_str()).collect();
    let wraps = d.columns.iter().position(|c| c.wraps);
    let mut t = match (layout, wraps) {
        (Width::Fit, Some(w)) => fit_table(&headers, w),
        (Width::Fit, None) => {
            // No column is meant to wrap, but long names or wide counts must not push the
            // table past the width: comfy-table wraps the widest cells only if it must.
            let mut t = table(&headers);
            t.set_content_arrangement(ContentArrangement::Dynamic)
                .set_width(WIDTH as u16);
            t
        }
        _ => table(&headers),
    };
    let mut names = Grouped::default();
    for line in &d.rows {
        let grouped: Vec<&str> = (0..d.grouped)
            .map(|i| line.cells.get(i).map_or("", |c| c.text.as_str()))
            .collect();
        let mut row = names.cells(&grouped);
        for c in line.cells.iter().skip(d.grouped) {
            let mut cell = Cell::new(&c.text);
            if c.right {
                cell = cell.set_alignment(CellAlignment::Right);
            }
            row.push(match c.mark {
                Some(Mark::Good) => cell.fg(Color::Green),
                Some(Mark::Bad | Mark::Warn) => cell.fg(Color::Red),
                None => cell,
            });
        }
        t.add_row(row);
    }
    if let (Width::Fit, Some(w)) = (layout, wraps) {
        fit_columns(&mut t, w);
    }
    t
}

/// A stored record as `show` prints it: the command line, the environment, then its tables
/// ([`tables`]; `elsewhere`: where the columns and notes the default view leaves out are).
pub fn record(r: &crate::record::AnyRecord, layout: Width, elsewhere: &[String]) -> String {
    let mut line = vec!["Command:".to_string()];
    line.extend(r.command_line().iter().map(|a| clean(a)));
    let mut out = match layout {
        Width::Fit => command_line(&line),
        Width::Wide => format!("{}\n", line.join(" ")),
    };
    out.push_str(&environment(r.environment(), layout));
    out.push_str(&r.visit(AllTables { layout, elsewhere }));
    out
}

/// Every table of a record of kind `K` as the console shows it in `layout` (what the
/// measuring command prints at its end, and `show`), with what is said around them; a kind
/// whose default view leaves columns or notes out ([`Tables::rest_elsewhere`]) ends it by
/// saying where they are (`elsewhere`, from [`elsewhere`]).
pub fn tables<K: crate::record::Kind>(
    r: &crate::record::Record<K>,
    layout: Width,
    elsewhere: &[String],
) -> String {
    let t = K::tables(r, &r.results);
    let mut out = described(&t, layout);
    if t.rest_elsewhere && layout == Width::Fit {
        out.push_str(&wrap(
            &if elsewhere.is_empty() {
                "This run is not stored: `--wide` shows every column and every note, `--json FILE` keeps every figure.".to_string()
            } else {
                format!("Every column and the full lists: {}.", elsewhere.join(", "))
            },
            2,
        ));
    }
    out
}

/// Where a run's full detail can be read: `show --wide` and `report` when it is in the store
/// (`stored_id`), and its JSON file when one was written.
pub fn elsewhere(stored_id: Option<&str>, json: Option<&std::path::Path>) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(id) = stored_id {
        v.push(format!("`kembench show {id} --wide`"));
        v.push(format!("`kembench report {id}`"));
    }
    if let Some(p) = json {
        v.push(p.display().to_string());
    }
    v
}

/// [`tables`] of a record, with its kind known.
struct AllTables<'a> {
    layout: Width,
    elsewhere: &'a [String],
}

impl crate::record::Visit<'_> for AllTables<'_> {
    type Out = String;
    fn visit<K: crate::record::Kind>(self, r: &crate::record::Record<K>) -> String {
        tables(r, self.layout, self.elsewhere)
    }
}

/// The environment's summary lines, as printed above a run's table.
pub fn environment(e: &crate::env::Environment, layout: Width) -> String {
    e.summary_lines()
        .iter()
        .map(|l| prose(layout, &clean(l)))
        .collect()
}

/// `s` with every control character shown as an escape ([`crate::units::visible`]): for text
/// from a record, which an imported file may have crafted.
pub fn clean(s: &str) -> String {
    crate::units::visible(s)
}

/// One line of prose: wrapped to [`WIDTH`] in [`Width::Fit`], whole in [`Width::Wide`].
pub fn prose(layout: Width, text: &str) -> String {
    match layout {
        Width::Fit => wrap(text, 2),
        Width::Wide => format!("{text}\n"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_column_leaves_the_wrapping_column_readable() {
        use super::*;
        let message =
            "compile failed: gcc: error: unrecognized command-line option '-mno-such-flag'";
        let mut t = fit_table(&["build", "targets", "compile s", "cache", "result"], 4);
        t.add_row(vec![
            Cell::new(format!(
                "pqclean/clean@gcc-12:O2{}",
                "+DKEMBENCH_LONG_FLAG=1".repeat(10)
            )),
            Cell::new("x86-64 baseline"),
            num("–"),
            Cell::new("new"),
            Cell::new(message),
        ]);
        fit_columns(&mut t, 4);
        let drawn = t.to_string();
        for line in drawn.lines() {
            assert!(line.chars().count() <= WIDTH, "{line}\n{drawn}");
        }
        assert!(drawn.contains("compile failed: gcc: error:"), "{drawn}");
        // A table that fits is left as it is.
        let mut t = fit_table(&["build", "result"], 1);
        t.add_row(vec![
            Cell::new("pqclean/clean@gcc-12:O2"),
            Cell::new("verified"),
        ]);
        let before = t.to_string();
        fit_columns(&mut t, 1);
        assert_eq!(t.to_string(), before);
    }

    #[test]
    fn clean_defuses_escape_sequences() {
        assert_eq!(super::clean("host\u{1b}[2Jx\r"), "host\\u{1b}[2Jx\\r");
        assert_eq!(super::clean("plain µs"), "plain µs");
    }

    use super::*;

    #[test]
    fn wrap_keeps_lines_within_the_width_and_every_word() {
        let text = "word ".repeat(60) + "µ±–";
        let w = wrap(&text, 2);
        assert!(w.lines().count() > 1);
        for l in w.lines() {
            assert!(l.chars().count() <= WIDTH, "{l}");
        }
        for l in w.lines().skip(1) {
            assert!(l.starts_with("  ") && !l.starts_with("   "), "{l:?}");
        }
        let words: Vec<&str> = w.split_whitespace().collect();
        assert_eq!(words, text.split_whitespace().collect::<Vec<_>>());
        assert_eq!(wrap("short line", 2), "short line\n");
        let cmd = format!(
            "{} `kembench show 20261123-193239-b4df30e4 --wide`, x",
            "y".repeat(90)
        );
        assert_eq!(
            wrap(&cmd, 2),
            format!(
                "{}\n  `kembench show 20261123-193239-b4df30e4 --wide`, x\n",
                "y".repeat(90)
            )
        );
        let long = "x".repeat(WIDTH + 5);
        assert_eq!(
            wrap(&format!("a {long} b"), 2),
            format!("a\n  {long}\n  b\n")
        );
    }

    #[test]
    fn command_lines_break_before_options_only() {
        let args: Vec<String> = ["kembench", "--store", &"p".repeat(70), "run", "--impl"]
            .iter()
            .map(|s| s.to_string())
            .chain(["mock/correct".into(), "--ops".into(), "keygen".into()])
            .chain((0..6).map(|i| format!("--flag-{i}")))
            .collect();
        let text = command_line(&args);
        assert!(text.lines().count() > 1, "{text}");
        for l in text.lines() {
            assert!(l.chars().count() <= WIDTH, "{l}");
        }
        assert!(
            text.contains(&format!("--store {} run", "p".repeat(70))),
            "{text}"
        );
        assert!(text.contains("--impl mock/correct"), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[..lines.len() - 1].iter().all(|l| l.ends_with(" \\")));
        assert!(lines[1..].iter().all(|l| l.starts_with("  --")), "{text}");
        // Joined back, the words are the command's.
        let joined = text.replace(" \\\n", " ");
        assert_eq!(joined.split_whitespace().collect::<Vec<_>>(), args);
    }

    /// Every kind's fixture as `show` prints it, by default and with `--wide`: the tables drawn
    /// from each kind's description, byte for byte what each kind's own console code printed.
    #[test]
    fn every_kind_prints_its_described_tables() {
        use crate::export::fixture;
        use crate::record::AnyRecord;
        let records = [
            ("run", AnyRecord::Run(Box::new(fixture::run()))),
            (
                "throughput",
                AnyRecord::Throughput(Box::new(fixture::throughput())),
            ),
            ("profile", AnyRecord::Profile(Box::new(fixture::profile()))),
            ("tls", AnyRecord::Tls(Box::new(fixture::tls()))),
            ("ct", AnyRecord::Ct(Box::new(fixture::ct()))),
        ];
        for (name, r) in records {
            let fit = record(&r, Width::Fit, &[]);
            // Checked apart from the snapshot, which the code under test wrote: the default
            // view fits the width, whatever the kind.
            for line in fit.lines() {
                assert!(line.chars().count() <= WIDTH, "{name}: {line}");
            }
            let text = format!("{fit}--wide:\n{}", record(&r, Width::Wide, &[]));
            insta::assert_snapshot!(format!("console_{name}"), text);
        }
    }

    #[test]
    fn grouped_names_are_shown_once_per_group() {
        let mut g = Grouped::default();
        let text =
            |cells: Vec<Cell>| -> Vec<String> { cells.iter().map(|c| c.content()).collect() };
        assert_eq!(text(g.cells(&["A", "x"])), ["A", "x"]);
        assert_eq!(text(g.cells(&["A", "x"])), ["", ""]);
        assert_eq!(text(g.cells(&["A", "y"])), ["", "y"]);
        assert_eq!(text(g.cells(&["B", "y"])), ["B", "y"]);
    }
}
