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

/// [`fit`] with one prose column, `flexible`, and no column to leave out.
pub fn fit_columns(t: &mut Table, flexible: usize) {
    fit(t, &[flexible], &[]);
}

/// Characters in the longest line of `s`.
fn line_width(s: &str) -> usize {
    s.split('\n').map(|l| l.chars().count()).max().unwrap_or(0)
}

/// Characters in the longest word of `s` (split at spaces and line breaks).
fn word_width(s: &str) -> usize {
    s.split(['\n', ' '])
        .map(|w| w.chars().count())
        .max()
        .unwrap_or(0)
}

/// Lays a table whose rows are in out within [`WIDTH`] columns without cutting a word: the
/// table is left as wide as its content when that fits; else the `prose` columns wrap at
/// spaces, headers wrap at spaces, and, when even that does not fit, the `optional` columns
/// (shown by `--wide`) are left out, the last named first; as a last resort any cell wraps
/// at its spaces (a figure with its unit, `in memory`). No cell is ever broken inside a
/// word: an identifier (a run id, an implementation, a build id) stays whole on one line, and
/// a table whose identifiers alone are wider than [`WIDTH`] is drawn wider rather than cut.
/// Characters are counted, not bytes ([`wrap`]).
pub fn fit(t: &mut Table, prose: &[usize], optional: &[usize]) {
    t.set_content_arrangement(ContentArrangement::Disabled);
    let n = t.column_count();
    let mut natural = vec![0usize; n];
    let mut least = vec![0usize; n];
    // The least widths if every cell may wrap at spaces: the last resort.
    let mut words = vec![0usize; n];
    for i in 0..n {
        for (row, cell) in t.column_cells_with_header_iter(i).enumerate() {
            let text = cell.map(comfy_table::Cell::content).unwrap_or_default();
            natural[i] = natural[i].max(line_width(&text)).max(1);
            words[i] = words[i].max(word_width(&text)).max(1);
            // A header (row 0) and a prose cell may wrap at spaces; any other cell is one
            // line per line it holds.
            let keep = if row == 0 || prose.contains(&i) {
                word_width(&text)
            } else {
                line_width(&text)
            };
            least[i] = least[i].max(keep).max(1);
        }
    }
    // Borders (k + 1) and one space of padding each side of every shown column.
    let total = |cols: &[usize], w: &[usize]| -> usize {
        cols.iter().map(|&i| w[i]).sum::<usize>() + 3 * cols.len() + 1
    };
    let mut shown: Vec<usize> = (0..n).collect();
    if total(&shown, &natural) <= WIDTH {
        return;
    }
    for &o in optional.iter().rev() {
        if total(&shown, &least) <= WIDTH {
            break;
        }
        shown.retain(|&i| i != o);
        if let Some(c) = t.column_mut(o) {
            c.set_constraint(ColumnConstraint::Hidden);
        }
    }
    // Still too wide: every cell may wrap at its spaces (`25% / 50%`, `in memory`). An
    // identifier has none, so it stays whole even then.
    if total(&shown, &least) > WIDTH {
        least = words;
    }
    // Every shown column at its least width, then what is left shared out a character at a
    // time: to the prose columns first, then to the others.
    let mut width = least.clone();
    let mut spare = WIDTH.saturating_sub(total(&shown, &least));
    let order: Vec<usize> = shown
        .iter()
        .copied()
        .filter(|i| prose.contains(i))
        .chain(shown.iter().copied().filter(|i| !prose.contains(i)))
        .collect();
    for group in [
        &order[..order.iter().filter(|i| prose.contains(i)).count()],
        &order[..],
    ] {
        while spare > 0 {
            let grown = group.iter().filter(|&&i| width[i] < natural[i]).count();
            if grown == 0 {
                break;
            }
            for &i in group {
                if spare > 0 && width[i] < natural[i] {
                    width[i] += 1;
                    spare -= 1;
                }
            }
        }
    }
    for &i in &shown {
        if width[i] < natural[i] {
            if let Some(c) = t.column_mut(i) {
                // The constraint's width includes the padding.
                c.set_constraint(ColumnConstraint::Absolute(ColumnWidth::Fixed(
                    (width[i] + 2) as u16,
                )));
            }
        }
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
    // What is said around the tables quotes the record (a host, a reason, an error): its
    // control characters are shown escaped, as every cell's are.
    for p in Tables::said(&tables.intro, target) {
        out.push_str(&prose(layout, &clean_lines(p)));
    }
    for t in &tables.tables {
        out.push_str(&shown(t, layout));
    }
    for p in Tables::said(&tables.outro, target) {
        out.push_str(&prose(layout, &clean_lines(p)));
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
        out.push_str(&prose(layout, &clean_lines(c)));
    }
    match &d.block {
        Some(lines) => out.push_str(&clean_lines(lines)),
        None => out.push_str(&format!("{}\n", drawn(&d, layout))),
    }
    for (i, f) in d.footnotes.iter().enumerate() {
        out.push_str(&wrap(&format!("[{}] {}", i + 1, clean_lines(f)), 4));
    }
    for n in &d.notes {
        out.push_str(&prose(layout, &clean_lines(n)));
    }
    out
}

/// One described table on the console: within [`WIDTH`] in [`Width::Fit`] when a column may
/// wrap (it wraps; `\n` in a header breaks it), else as wide as its content; the
/// grouped names blanked where they repeat the row above; marked cells in colour.
fn drawn(d: &Drawn, layout: Width) -> Table {
    let headers: Vec<&str> = d.columns.iter().map(|c| c.text.as_str()).collect();
    let mut t = table(&headers);
    let mut names = Grouped::default();
    for line in &d.rows {
        // Every cell's text shown with its control characters escaped: ids carry build
        // flags, and names come from imported files.
        let texts: Vec<String> = line.cells.iter().map(|c| clean_lines(&c.text)).collect();
        let grouped: Vec<&str> = (0..d.grouped)
            .map(|i| texts.get(i).map_or("", String::as_str))
            .collect();
        let mut row = names.cells(&grouped);
        for (c, text) in line.cells.iter().zip(&texts).skip(d.grouped) {
            let mut cell = Cell::new(text);
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
    if layout == Width::Fit {
        let which = |f: fn(&crate::table::Heading) -> bool| -> Vec<usize> {
            (0..d.columns.len()).filter(|&i| f(&d.columns[i])).collect()
        };
        fit(&mut t, &which(|c| c.wraps), &which(|c| c.optional));
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

/// [`clean`] line by line: the line breaks a cell holds stay line breaks.
pub fn clean_lines(s: &str) -> String {
    s.split('\n').map(clean).collect::<Vec<_>>().join("\n")
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
    /// Every line of `drawn` within [`WIDTH`], and each of `whole` on one line.
    fn fits_whole(drawn: &str, whole: &[&str]) {
        for line in drawn.lines() {
            assert!(line.chars().count() <= WIDTH, "{line}\n{drawn}");
        }
        for w in whole {
            assert!(drawn.lines().any(|l| l.contains(w)), "{w} cut:\n{drawn}");
        }
    }

    #[test]
    fn a_long_column_leaves_the_wrapping_column_readable() {
        use super::*;
        let message =
            "compile failed: gcc: error: unrecognized command-line option '-mno-such-flag'";
        let id = "pqclean/clean@gcc-12:O2+DKEMBENCH_LONG_FLAG=1".to_string();
        let mut t = table(&["build", "targets", "compile s", "cache", "result"]);
        t.add_row(vec![
            Cell::new(&id),
            Cell::new("x86-64 baseline"),
            num("–"),
            Cell::new("new"),
            Cell::new(message),
        ]);
        fit_columns(&mut t, 4);
        let drawn = t.to_string();
        // The build id is whole on one line; the message wraps between its words.
        fits_whole(&drawn, &[&id, "compile failed: gcc:", "'-mno-such-flag'"]);
        // A table that fits is left as it is.
        let mut t = table(&["build", "result"]);
        t.add_row(vec![
            Cell::new("pqclean/clean@gcc-12:O2"),
            Cell::new("verified"),
        ]);
        let before = t.to_string();
        fit_columns(&mut t, 1);
        assert_eq!(t.to_string(), before);
    }

    #[test]
    fn names_are_never_cut_optional_columns_go_first_then_cells_wrap_at_spaces() {
        use super::*;
        // The issue's table: a long algorithm and implementation beside a note column.
        let names = [
            "ntruhps2048509",
            "implementation",
            "pqclean/clean@gcc-12:O2",
        ];
        let row = |t: &mut Table| {
            t.add_row(vec![
                Cell::new(names[0]),
                Cell::new(names[2]),
                Cell::new("keygen"),
                num("1.27 ms ±160%"),
                num("788"),
                num("28.8 KiB"),
                num("34.1 KiB"),
                Cell::new("budget, drift 20%, rounds vary and more words to wrap"),
            ]);
        };
        let header = [
            "algorithm",
            "implementation",
            "op",
            "median ±CI95",
            "ops/s",
            "heap",
            "stack",
            "note",
        ];
        let mut t = table(&header);
        row(&mut t);
        fit(&mut t, &[7], &[4, 5, 6]);
        let drawn = t.to_string();
        fits_whole(&drawn, &names);
        // Enough room once the prose wraps: no column was left out.
        assert!(
            drawn.contains("stack") && drawn.contains("ops/s"),
            "{drawn}"
        );
        // Longer ids: the optional columns go, the last first.
        let long = "pqclean/clean@gcc-12:O2+march=native+fno-pie";
        let mut t = table(&header);
        t.add_row(vec![
            Cell::new(names[0]),
            Cell::new(long),
            Cell::new("keygen"),
            num("1.27 ms ±160%"),
            num("788"),
            num("28.8 KiB"),
            num("34.1 KiB"),
            Cell::new("budget"),
        ]);
        fit(&mut t, &[7], &[4, 5, 6]);
        let drawn = t.to_string();
        fits_whole(&drawn, &[names[0], long]);
        assert!(!drawn.contains("stack"), "{drawn}");
        assert!(
            drawn.contains("ops/s"),
            "only as many as needed go:\n{drawn}"
        );
        // Nothing optional and still too wide: cells wrap at their spaces, ids stay whole.
        let mut t = table(&["implementation", "figure", "pair"]);
        let wide_id = "x".repeat(90);
        t.add_row(vec![
            Cell::new(&wide_id),
            Cell::new("12.3 µs"),
            Cell::new("25% / 50%"),
        ]);
        fit(&mut t, &[], &[]);
        fits_whole(&t.to_string(), &[&wide_id]);
        // An id wider than the width is drawn whole, past it, never cut.
        let mut t = table(&["id"]);
        let huge = "y".repeat(WIDTH + 10);
        t.add_row(vec![Cell::new(&huge)]);
        fit(&mut t, &[], &[]);
        assert!(t.to_string().contains(&huge));
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
            ("run", AnyRecord::Latency(Box::new(fixture::run()))),
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
