//! The HTML report: one self-contained file (inline CSS, inline JS, inline SVG, flame graphs as
//! `data:` images; a Content Security Policy forbids loading anything else), tables sortable by
//! clicking a header and filterable by family, level and implementation. Every string from the
//! data is escaped.

use super::doc::{Block, Cell, Chart, Document, Embed, Para, Span, Table};
use base64::Engine as _;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Escapes text for HTML element content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes `s` and shows its `backticked` parts as code (for kembench's own prose).
fn prose(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", esc(part));
        } else {
            out.push_str(&esc(part));
        }
    }
    out
}

fn spans(p: &Para) -> String {
    p.iter()
        .map(|s| match s {
            Span::Text(t) => prose(t),
            Span::Code(t) => format!("<code>{}</code>", esc(t)),
            Span::Strong(t) => format!("<strong>{}</strong>", prose(t)),
        })
        .collect()
}

const CSS: &str = r#"
:root { --fg: #1d2327; --muted: #5f6b73; --line: #d9dee2; --head: #f3f5f7; --good: #1b7f3b; --bad: #b3261e; --warn: #8a5a00; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); margin: 0; background: #fff; }
header, main, nav, .filters { max-width: 1360px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 18px; }
h1 { font-size: 26px; margin: 8px 0 6px; }
h2, h3 { scroll-margin-top: 56px; }
h2 { font-size: 21px; margin: 34px 0 8px; padding-top: 10px; border-top: 2px solid var(--line); }
h3 { font-size: 16px; margin: 22px 0 6px; }
p { margin: 6px 0 10px; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f1f3f5; padding: 0 3px; border-radius: 3px; }
nav.toc { margin-top: 6px; }
nav.toc a { margin-right: 14px; color: #2b5f8f; text-decoration: none; }
nav.toc a:hover { text-decoration: underline; }
.filters { position: sticky; top: 0; z-index: 5; background: rgba(255,255,255,.96); padding-top: 8px; padding-bottom: 8px; border-bottom: 1px solid var(--line); display: flex; gap: 14px; align-items: center; flex-wrap: wrap; }
.filters label { color: var(--muted); }
.filters select { margin-left: 4px; max-width: 220px; }
#f-count { color: var(--muted); }
.table-wrap { overflow-x: auto; margin: 8px 0 16px; }
table.data { border-collapse: collapse; font-size: 13px; min-width: 50%; }
table.data th, table.data td { border-bottom: 1px solid var(--line); padding: 4px 9px; text-align: left; vertical-align: top; white-space: nowrap; }
table.data td.wrap { white-space: normal; min-width: 260px; max-width: 520px; }
table.data th { background: var(--head); position: relative; cursor: pointer; user-select: none; white-space: nowrap; }
table.data th::after { content: "\2195"; color: #a4adb3; margin-left: 4px; font-size: 11px; }
table.data th[aria-sort="ascending"]::after { content: "\2191"; color: var(--fg); }
table.data th[aria-sort="descending"]::after { content: "\2193"; color: var(--fg); }
table.data td.num, table.data th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
table.data tbody tr:hover { background: #f7fafc; }
td.good { color: var(--good); font-weight: 600; }
td.bad { color: var(--bad); font-weight: 700; background: #fdecea; }
td.warn { color: var(--warn); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 6px 0 14px; font-size: 13px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.charts { display: block; }
.charts.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(490px, 1fr)); gap: 10px 18px; }
figure.chart { margin: 12px 0 18px; }
figure.chart figcaption { font-weight: 600; margin-bottom: 4px; }
figure.chart svg { display: block; max-width: 100%; height: auto; border: 1px solid #eceff1; }
figure.chart img { display: block; max-width: 100%; height: auto; border: 1px solid #eceff1; }
figure.chart p.caption { color: var(--muted); font-size: 12.5px; margin: 4px 0 0; max-width: 1000px; }
details.table { margin: 6px 0 16px; }
details.table > summary { cursor: pointer; color: #2b5f8f; }
p.table-title { font-weight: 600; margin: 14px 0 2px; }
[hidden] { display: none !important; }
@media print { .filters { display: none; } }
"#;

const JS: &str = r#"
(function () {
  'use strict';
  function sortValue(td) {
    var s = td.getAttribute('data-sort');
    if (s === null) { return null; }
    var v = parseFloat(s);
    return isNaN(v) ? null : v;
  }
  function makeSortable(table) {
    var head = table.tHead && table.tHead.rows[0];
    if (!head) { return; }
    var ths = head.cells;
    Array.prototype.forEach.call(ths, function (th, col) {
      th.tabIndex = 0;
      function sort() {
        var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
        Array.prototype.forEach.call(ths, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', dir === 1 ? 'ascending' : 'descending');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col], y = b.cells[col];
          if (!x || !y) { return 0; }
          var vx = sortValue(x), vy = sortValue(y), c;
          if (vx !== null && vy !== null) { c = vx - vy; }
          else if (vx !== null) { c = -1; }
          else if (vy !== null) { c = 1; }
          else { c = x.textContent.localeCompare(y.textContent, undefined, { numeric: true }); }
          return c * dir;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); }
      });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), makeSortable);

  var family = document.getElementById('f-family');
  var level = document.getElementById('f-level');
  var impl = document.getElementById('f-impl');
  var count = document.getElementById('f-count');
  var reset = document.getElementById('f-reset');
  if (!family || !level || !impl) { return; }
  function apply() {
    var f = family.value, l = level.value, i = impl.value, shown = 0, total = 0;
    Array.prototype.forEach.call(document.querySelectorAll('tr[data-family]'), function (tr) {
      var ok = (!f || tr.getAttribute('data-family') === f) &&
               (!l || tr.getAttribute('data-level') === l) &&
               (!i || tr.getAttribute('data-impl') === i);
      tr.hidden = !ok;
      total += 1;
      if (ok) { shown += 1; }
    });
    Array.prototype.forEach.call(document.querySelectorAll('figure[data-family]'), function (fig) {
      fig.hidden = !!f && fig.getAttribute('data-family') !== f;
    });
    count.textContent = (f || l || i) ? shown + ' of ' + total + ' table rows shown' : '';
  }
  [family, level, impl].forEach(function (s) { s.addEventListener('change', apply); });
  reset.addEventListener('click', function () {
    family.value = ''; level.value = ''; impl.value = ''; apply();
  });
})();
"#;

fn cell(out: &mut String, c: &Cell, numeric: bool) {
    let mut class: Vec<&str> = Vec::new();
    if numeric {
        class.push("num");
    }
    if let Some(m) = c.mark {
        class.push(m.class());
    }
    if c.text.chars().count() > 40 {
        class.push("wrap");
    }
    out.push_str("<td");
    if !class.is_empty() {
        let _ = write!(out, " class=\"{}\"", class.join(" "));
    }
    if let Some(v) = c.sort {
        let _ = write!(out, " data-sort=\"{v}\"");
    }
    let _ = write!(out, ">{}</td>", esc(&c.text));
}

fn table(out: &mut String, t: &Table) {
    if t.folded {
        let _ = writeln!(
            out,
            "<details class=\"table\"><summary>{} ({} row{}; click a header to sort)</summary>",
            t.title.as_deref().map_or("The table".into(), esc),
            t.rows.len(),
            if t.rows.len() == 1 { "" } else { "s" }
        );
    } else if let Some(title) = &t.title {
        let _ = writeln!(out, "<p class=\"table-title\">{}</p>", esc(title));
    }
    let _ = write!(
        out,
        "<div class=\"table-wrap\"><table class=\"data sortable\" id=\"{}\"><thead><tr>",
        esc(&t.id)
    );
    for (name, numeric) in &t.columns {
        let _ = write!(
            out,
            "<th scope=\"col\"{}>{}</th>",
            if *numeric { " class=\"num\"" } else { "" },
            esc(name)
        );
    }
    out.push_str("</tr></thead><tbody>\n");
    for row in &t.rows {
        match &row.tags {
            Some(tags) => {
                let _ = write!(
                    out,
                    "<tr data-family=\"{}\" data-level=\"{}\" data-impl=\"{}\">",
                    esc(&tags.family),
                    esc(&tags.level),
                    esc(&tags.implementation)
                );
            }
            None => out.push_str("<tr>"),
        }
        for (i, c) in row.cells.iter().enumerate() {
            cell(out, c, t.columns.get(i).is_some_and(|c| c.1));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    if t.folded {
        out.push_str("</details>\n");
    }
}

fn chart(out: &mut String, c: &Chart) {
    let _ = write!(out, "<figure class=\"chart\" id=\"{}\"", esc(&c.id));
    if let Some(f) = &c.family {
        let _ = write!(out, " data-family=\"{}\"", esc(f));
    }
    let _ = writeln!(out, "><figcaption>{}</figcaption>", esc(&c.title));
    match c.embed {
        Embed::Inline => {
            // plotters' SVG: its text is escaped by plotters (see charts' tests); strip the
            // XML declaration if any, as it is not allowed inside HTML.
            let svg = c.svg.trim_start();
            let svg = if svg.starts_with("<?xml") {
                svg.split_once("?>")
                    .map_or(svg, |(_, rest)| rest.trim_start())
            } else {
                svg
            };
            out.push_str(svg);
        }
        Embed::Image => {
            // Base64: nothing in the SVG can end the attribute, and an image's scripts never
            // run (the Content-Security-Policy allows `data:` images).
            let _ = write!(
                out,
                "<img alt=\"{}\" src=\"data:image/svg+xml;base64,{}\">",
                esc(&c.title),
                base64::engine::general_purpose::STANDARD.encode(&c.svg)
            );
        }
    }
    let _ = writeln!(
        out,
        "\n<p class=\"caption\">{}</p></figure>",
        prose(&c.caption)
    );
}

/// The options of the filter bar: every family, level and implementation tagged in a table.
fn filter_options(doc: &Document) -> [BTreeSet<String>; 3] {
    let mut sets: [BTreeSet<String>; 3] = Default::default();
    for b in &doc.blocks {
        if let Block::Table(t) = b {
            for tags in t.rows.iter().filter_map(|r| r.tags.as_ref()) {
                sets[0].insert(tags.family.clone());
                if !tags.level.is_empty() {
                    sets[1].insert(tags.level.clone());
                }
                sets[2].insert(tags.implementation.clone());
            }
        }
    }
    sets
}

fn select(out: &mut String, id: &str, label: &str, options: &BTreeSet<String>) {
    let _ = write!(
        out,
        "<label>{label} <select id=\"{id}\"><option value=\"\">all</option>"
    );
    for o in options {
        let _ = write!(out, "<option value=\"{0}\">{0}</option>", esc(o));
    }
    out.push_str("</select></label>\n");
}

/// Renders the document as one self-contained HTML page.
pub fn render(doc: &Document) -> String {
    let mut out = String::with_capacity(1 << 20);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n",
    );
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>{}</title>", esc(&doc.title));
    let _ = writeln!(out, "<style>{CSS}</style>\n</head>\n<body>");
    let _ = writeln!(out, "<header>\n<h1>{}</h1>", esc(&doc.title));
    for p in &doc.intro {
        let _ = writeln!(out, "<p>{}</p>", spans(p));
    }
    out.push_str("</header>\n<nav class=\"toc\">");
    for (id, text) in doc.sections() {
        let _ = write!(out, "<a href=\"#{}\">{}</a>", esc(id), esc(text));
    }
    out.push_str("</nav>\n<div class=\"filters\" id=\"filters\"><strong>Filter tables</strong>\n");
    let [families, levels, impls] = filter_options(doc);
    select(&mut out, "f-family", "family", &families);
    select(&mut out, "f-level", "NIST level", &levels);
    select(&mut out, "f-impl", "implementation", &impls);
    out.push_str(
        "<button type=\"button\" id=\"f-reset\">reset</button> <span id=\"f-count\"></span></div>\n<main>\n",
    );
    for b in &doc.blocks {
        match b {
            Block::Heading { level, id, text } => {
                let _ = writeln!(out, "<h{level} id=\"{}\">{}</h{level}>", esc(id), esc(text));
            }
            Block::Para(p) => {
                let _ = writeln!(out, "<p>{}</p>", spans(p));
            }
            Block::List(items) => {
                out.push_str("<ul>\n");
                for p in items {
                    let _ = writeln!(out, "<li>{}</li>", spans(p));
                }
                out.push_str("</ul>\n");
            }
            Block::Table(t) => table(&mut out, t),
            Block::Charts { id, charts } => {
                let grid = id == "chart-throughput";
                out.push_str("<div class=\"charts");
                if grid {
                    out.push_str(" grid");
                }
                out.push('"');
                if !id.is_empty() {
                    let _ = write!(out, " id=\"{}\"", esc(id));
                }
                out.push_str(">\n");
                for c in charts {
                    chart(&mut out, c);
                }
                out.push_str("</div>\n");
            }
            Block::Facts(facts) => {
                out.push_str("<dl class=\"facts\">\n");
                for (k, v) in facts {
                    let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
                }
                out.push_str("</dl>\n");
            }
        }
    }
    let _ = write!(out, "</main>\n<script>{JS}</script>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::report::data::{AnyRecord, Dataset};

    fn hostile() -> crate::record::latency::LatencyRecord {
        let mut run = fixture::run();
        run.results[0].implementation = "<script>alert(1)</script>".into();
        run.results[0].algorithm = "Alg\"'&<b>".into();
        run.environment.hostname = "<script>alert(2)</script>".into();
        run.environment.providers[0].version = "<img src=x onerror=alert(3)>".into();
        run
    }

    #[test]
    fn escapes_everything() {
        assert_eq!(
            esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(prose("use `a<b` here"), "use <code>a&lt;b</code> here");
    }

    #[test]
    fn names_from_the_data_render_as_text() {
        let data = Dataset::from_records(vec![
            ("a.json".into(), AnyRecord::from(hostile())),
            ("<b>.json".into(), AnyRecord::from(hostile())),
        ]);
        let doc = crate::report::sections::build(&data, 0.02).unwrap();
        let html = render(&doc);
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("&lt;script&gt;alert(2)&lt;/script&gt;"));
        assert!(html.contains("&lt;img src=x onerror=alert(3)&gt;"));
        assert!(!html.contains("<script>alert"), "raw script from the data");
        assert!(!html.contains("<img"), "raw tag from the data");
        assert!(!html.contains("<b>"), "raw tag from the data");
        assert_eq!(
            html.matches("<script>").count(),
            1,
            "only the report's own script"
        );
        // Self-contained: nothing is fetched.
        for needle in ["http://", "https://", "src=\"", "<link"] {
            let outside_svg_ns: Vec<&str> = html
                .match_indices(needle)
                .map(|(i, _)| &html[i.saturating_sub(20)..(i + 40).min(html.len())])
                .filter(|ctx| !ctx.contains("xmlns"))
                .collect();
            assert!(outside_svg_ns.is_empty(), "{needle}: {outside_svg_ns:?}");
        }
    }
}
