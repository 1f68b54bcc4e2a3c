//! What the report's charts share: colours, marker shapes, legends, axes and logarithmic
//! ticks, and horizontal stacked bars ([`stacked`]). Each chart lives beside the section that
//! shows it (`sections/<name>/chart.rs`) and is drawn by plotters into an SVG string
//! (`SVGBackend::with_string`).
//!
//! plotters escapes the text it writes into SVG (`<`, `>`, `&`, quotes), so names from the data
//! can be drawn as they are; the tests check it.

pub mod stacked;

use crate::kem::Op;
use crate::units;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The drawing area of a whole chart.
pub type Root<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// The font family of every label.
pub const FONT: &str = "sans-serif";
/// Font size for tick labels and legends, in plotters' units (the SVG gets this / 1.24 px).
pub const SMALL: f64 = 15.0;
/// Font size of axis descriptions.
pub const MEDIUM: f64 = 16.0;

/// A linear axis with the ticks given (plotters' own `with_key_points` loses the default
/// formatting of `f64` ranges, which `configure_mesh` needs).
#[derive(Debug, Clone)]
pub struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ticked {
    /// The axis `lo..hi` with ticks (labels and grid lines) at `ticks`.
    pub fn new(lo: f64, hi: f64, ticks: Vec<f64>) -> Ticked {
        Ticked { lo, hi, ticks }
    }
}

impl Ranged for Ticked {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let t = (value - self.lo) / (self.hi - self.lo);
        limit.0 + (f64::from(limit.1 - limit.0) * t).round() as i32
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// Turns a plotters error into an error of the report.
pub fn err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing a chart: {e}")
}

/// Twelve distinguishable colours (Tableau 10 and two darker ones).
pub const PALETTE: [RGBColor; 12] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0x79, 0x70, 0x6e),
    RGBColor(0x1f, 0x3a, 0x60),
    RGBColor(0x8c, 0x5c, 0x00),
];

/// The colour of the `i`-th series; past the palette, the palette again, darker.
pub fn series_color(i: usize) -> RGBColor {
    let c = PALETTE[i % PALETTE.len()];
    if (i / PALETTE.len()) % 2 == 1 {
        RGBColor(c.0 / 2, c.1 / 2, c.2 / 2)
    } else {
        c
    }
}

/// The fixed colour of a family; unknown families get colours by their position in `known`.
pub fn family_color(family: &str, known: &[String]) -> RGBColor {
    use crate::kem::Family;
    match Family::parse(family) {
        Some(Family::ModuleLattice) => PALETTE[0],
        Some(Family::NtruLattice) => PALETTE[1],
        Some(Family::UnstructuredLattice) => PALETTE[4],
        Some(Family::CodeBased) => PALETTE[2],
        Some(Family::EllipticCurve) => PALETTE[6],
        Some(Family::FiniteField) => PALETTE[8],
        Some(Family::Hybrid) => PALETTE[3],
        Some(Family::Test) => PALETTE[9],
        Some(Family::Other) => PALETTE[5],
        // Families of records written by another kembench.
        None => {
            let i = known.iter().position(|k| k == family).unwrap_or(0);
            series_color(10 + i)
        }
    }
}

/// The fixed colour of an operation.
pub fn op_color(op: Op) -> RGBColor {
    match op {
        Op::Keygen => PALETTE[0],
        Op::Encaps => PALETTE[1],
        Op::Decaps => PALETTE[4],
        Op::Exchange => PALETTE[6],
        Op::SkImport => PALETTE[8],
        Op::PkImport => PALETTE[5],
    }
}

/// A marker or legend symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A circle.
    Circle,
    /// A square.
    Square,
    /// A triangle pointing up.
    Triangle,
    /// A diamond.
    Diamond,
    /// A triangle pointing down.
    TriangleDown,
    /// A cross (×).
    Cross,
    /// A filled block (bars).
    Block,
    /// A solid line.
    Line,
    /// A dashed line.
    Dashed,
}

/// The marker of a claimed NIST level: 1 circle, 2 diamond, 3 triangle, 4 triangle down,
/// 5 square, classical (none) a cross.
pub fn level_shape(level: Option<u8>) -> Shape {
    match level {
        Some(1) => Shape::Circle,
        Some(2) => Shape::Diamond,
        Some(3) => Shape::Triangle,
        Some(4) => Shape::TriangleDown,
        Some(5) => Shape::Square,
        Some(_) => Shape::Block,
        None => Shape::Cross,
    }
}

/// Draws `shape` of half-size `r` centred at backend pixel `(x, y)` on `root`.
pub fn draw_shape(
    root: &Root,
    (x, y): (i32, i32),
    shape: Shape,
    r: i32,
    color: RGBColor,
    filled: bool,
) -> anyhow::Result<()> {
    let style = if filled {
        color.filled()
    } else {
        color.stroke_width(2)
    };
    let outline = color.stroke_width(2);
    let poly = |pts: Vec<(i32, i32)>| -> anyhow::Result<()> {
        if filled {
            root.draw(&Polygon::new(pts, style)).map_err(err)
        } else {
            let mut closed = pts.clone();
            closed.push(pts[0]);
            root.draw(&PathElement::new(closed, outline)).map_err(err)
        }
    };
    match shape {
        Shape::Circle => root.draw(&Circle::new((x, y), r, style)).map_err(err),
        Shape::Square => root
            .draw(&Rectangle::new([(x - r, y - r), (x + r, y + r)], style))
            .map_err(err),
        Shape::Block => root
            .draw(&Rectangle::new(
                [(x - r - 1, y - r + 1), (x + r + 1, y + r - 1)],
                color.filled(),
            ))
            .map_err(err),
        Shape::Triangle => poly(vec![(x, y - r - 1), (x + r + 1, y + r), (x - r - 1, y + r)]),
        Shape::TriangleDown => poly(vec![(x, y + r + 1), (x + r + 1, y - r), (x - r - 1, y - r)]),
        Shape::Diamond => poly(vec![
            (x, y - r - 1),
            (x + r + 1, y),
            (x, y + r + 1),
            (x - r - 1, y),
        ]),
        Shape::Cross => {
            root.draw(&PathElement::new(
                vec![(x - r, y - r), (x + r, y + r)],
                color.stroke_width(2),
            ))
            .map_err(err)?;
            root.draw(&PathElement::new(
                vec![(x - r, y + r), (x + r, y - r)],
                color.stroke_width(2),
            ))
            .map_err(err)
        }
        Shape::Line => root
            .draw(&PathElement::new(
                vec![(x - 2 * r, y), (x + 2 * r, y)],
                color.stroke_width(2),
            ))
            .map_err(err),
        Shape::Dashed => {
            for dx in [-2 * r, -r / 2 + 1, r + 2] {
                root.draw(&PathElement::new(
                    vec![(x + dx, y), (x + dx + r - 1, y)],
                    color.stroke_width(2),
                ))
                .map_err(err)?;
            }
            Ok(())
        }
    }
}

/// One line of a legend.
#[derive(Debug, Clone)]
pub struct LegendEntry {
    /// Text.
    pub label: String,
    /// Colour of the symbol.
    pub color: RGBColor,
    /// Symbol.
    pub shape: Shape,
    /// Whether the symbol is filled.
    pub filled: bool,
}

impl LegendEntry {
    /// A filled symbol.
    pub fn new(label: impl Into<String>, color: RGBColor, shape: Shape) -> LegendEntry {
        LegendEntry {
            label: label.into(),
            color,
            shape,
            filled: true,
        }
    }
}

/// Height of one legend line, in pixels.
pub const LEGEND_LINE: i32 = 19;

/// A text style of `size` anchored at `h`, vertically centred.
pub fn label_style(size: f64, h: HPos) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font())
        .color(&BLACK)
        .pos(Pos::new(h, VPos::Center))
}

/// Estimated width in pixels of `s` in a browser's sans-serif at plotters size `size` (a
/// generous average of 0.6 em per character, so that layouts err on the roomy side).
pub fn text_width(s: &str, size: f64) -> i32 {
    (s.chars().count() as f64 * size / 1.24 * 0.6).ceil() as i32
}

/// The width a legend of `entries` (and `title`) needs.
pub fn legend_width(title: Option<&str>, entries: &[LegendEntry]) -> i32 {
    let widest = entries
        .iter()
        .map(|e| text_width(&e.label, SMALL))
        .chain(title.map(|t| text_width(t, SMALL)))
        .max()
        .unwrap_or(0);
    widest + 40
}

/// Draws a vertical legend with its top-left corner at `(x, y)`; returns the y below it.
pub fn legend(
    root: &Root,
    (x, mut y): (i32, i32),
    title: Option<&str>,
    entries: &[LegendEntry],
) -> anyhow::Result<i32> {
    if let Some(t) = title {
        root.draw(&Text::new(
            t.to_string(),
            (x, y + LEGEND_LINE / 2),
            label_style(SMALL, HPos::Left).color(&RGBColor(0x44, 0x44, 0x44)),
        ))
        .map_err(err)?;
        y += LEGEND_LINE;
    }
    for e in entries {
        draw_shape(
            root,
            (x + 10, y + LEGEND_LINE / 2),
            e.shape,
            5,
            e.color,
            e.filled,
        )?;
        root.draw(&Text::new(
            e.label.clone(),
            (x + 26, y + LEGEND_LINE / 2),
            label_style(SMALL, HPos::Left),
        ))
        .map_err(err)?;
        y += LEGEND_LINE;
    }
    Ok(y)
}

/// Draws a horizontal legend starting at `(x, y)` (one line); returns the x after it.
pub fn legend_row(
    root: &Root,
    (mut x, y): (i32, i32),
    entries: &[LegendEntry],
) -> anyhow::Result<i32> {
    for e in entries {
        draw_shape(root, (x + 10, y), e.shape, 5, e.color, e.filled)?;
        root.draw(&Text::new(
            e.label.clone(),
            (x + 24, y),
            label_style(SMALL, HPos::Left),
        ))
        .map_err(err)?;
        x += 24 + text_width(&e.label, SMALL) + 18;
    }
    Ok(x)
}

/// The width [`legend_row`] draws `entries` in.
pub fn legend_row_width(entries: &[LegendEntry]) -> i32 {
    entries
        .iter()
        .map(|e| 24 + text_width(&e.label, SMALL) + 18)
        .sum()
}

/// Width of a column of row labels: the widest label plus padding.
pub fn label_column_width(labels: &[String]) -> i32 {
    labels
        .iter()
        .map(|l| text_width(l, SMALL))
        .max()
        .unwrap_or(0)
        + 16
}

/// The label of the row drawn at `y` on a horizontal-bar chart whose row `i` is drawn at
/// `n - 1 - i`, so that the first row is on top.
pub fn row_label(labels: &[String], y: f64) -> String {
    let i = labels.len() as i64 - 1 - y.floor() as i64;
    usize::try_from(i)
        .ok()
        .and_then(|i| labels.get(i).cloned())
        .unwrap_or_default()
}

/// One legend key per operation, in the operations' colours.
pub fn op_legend(ops: &[Op], shape: Shape) -> Vec<LegendEntry> {
    ops.iter()
        .map(|op| LegendEntry::new(op.as_str(), op_color(*op), shape))
        .collect()
}

/// Decade bounds around `[min, max]` (both positive): the powers of ten at or below `min` and
/// at or above `max`, at least one decade apart.
pub fn decades(min: f64, max: f64) -> (f64, f64) {
    let min = if min > 0.0 && min.is_finite() {
        min
    } else {
        1.0
    };
    let max = if max.is_finite() && max > min {
        max
    } else {
        min
    };
    let lo = 10f64.powf(min.log10().floor());
    let mut hi = 10f64.powf(max.log10().ceil());
    if hi <= lo * 1.000_001 {
        hi = lo * 10.0;
    }
    (lo, hi)
}

/// Tick values for a logarithmic axis over `[lo, hi]`: 1-2-5 steps across up to three decades,
/// powers of ten beyond.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi / lo).log10();
    let steps: &[f64] = if span <= 3.01 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let every = if span > 8.0 { 2 } else { 1 };
    let mut out = Vec::new();
    let mut e = lo.log10().floor() as i32;
    while 10f64.powi(e) <= hi * 1.000_001 {
        if (e - lo.log10().floor() as i32) % every == 0 {
            for s in steps {
                let v = s * 10f64.powi(e);
                if v >= lo * 0.999_999 && v <= hi * 1.000_001 {
                    out.push(v);
                }
            }
        }
        e += 1;
    }
    out
}

/// Power-of-two bounds around `[min, max]` (both positive), for byte axes: at least a factor
/// of four apart.
pub fn binary_bounds(min: f64, max: f64) -> (f64, f64) {
    let min = if min >= 1.0 && min.is_finite() {
        min
    } else {
        1.0
    };
    let max = if max.is_finite() && max > min {
        max
    } else {
        min
    };
    let lo = 2f64.powf(min.log2().floor());
    let hi = 2f64.powf(max.log2().ceil()).max(lo * 4.0);
    (lo, hi)
}

/// Tick values for a logarithmic byte axis over power-of-two bounds: powers of two, every
/// second or more so that there are at most `max` (at least two).
pub fn binary_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    let (a, b) = (lo.log2().round() as i32, hi.log2().round() as i32);
    let step = ((b - a) as f64 / (max.max(2) - 1) as f64).ceil().max(1.0) as i32;
    (a..=b)
        .filter(|e| e.rem_euclid(step) == 0)
        .map(|e| 2f64.powi(e))
        .collect()
}

/// A tick label without trailing zeros: `50.0 µs` → `50 µs`, `1.00 ms` → `1 ms`.
pub fn tidy(label: String) -> String {
    let Some((number, unit)) = label.split_once(' ') else {
        return label;
    };
    if number.contains('.') {
        let n = number.trim_end_matches('0').trim_end_matches('.');
        format!("{n} {unit}")
    } else {
        label
    }
}

/// A duration for an axis tick (`20 µs`).
pub fn ns_tick(v: f64) -> String {
    tidy(units::ns(v))
}

/// A byte count for an axis tick: [`units::bytes`] without trailing zeros (`8 KiB`).
pub fn bytes_tick(v: f64) -> String {
    tidy(units::bytes(v.round().max(0.0) as u64))
}

/// `s` cut to `max` characters with an ellipsis.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The `(algorithm, implementation)` label used in legends and row labels.
pub fn pair_label(algorithm: &str, implementation: &str) -> String {
    format!("{algorithm} · {implementation}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decades_and_ticks() {
        assert_eq!(decades(12_000.0, 95_000.0), (10_000.0, 100_000.0));
        assert_eq!(decades(100.0, 100.0), (100.0, 1000.0));
        assert_eq!(
            log_ticks(10.0, 1000.0),
            [10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
        );
        assert_eq!(log_ticks(1.0, 1e5), [1.0, 10.0, 100.0, 1e3, 1e4, 1e5]);
        assert_eq!(log_ticks(1.0, 1e10), [1.0, 100.0, 1e4, 1e6, 1e8, 1e10]);
    }

    #[test]
    fn binary_bounds_and_ticks() {
        assert_eq!(binary_bounds(64.0, 1_045_200.0), (64.0, 1_048_576.0));
        assert_eq!(binary_bounds(100.0, 100.0), (64.0, 256.0));
        assert_eq!(
            binary_ticks(64.0, 1024.0, 9),
            [64.0, 128.0, 256.0, 512.0, 1024.0]
        );
        assert_eq!(binary_ticks(64.0, 1024.0, 3), [64.0, 256.0, 1024.0]);
        assert_eq!(
            binary_ticks(64.0, 1_048_576.0, 9),
            [
                64.0,
                256.0,
                1024.0,
                4096.0,
                16384.0,
                65536.0,
                262_144.0,
                1_048_576.0
            ]
        );
    }

    #[test]
    fn tick_labels_drop_trailing_zeros() {
        assert_eq!(ns_tick(50_000.0), "50 µs");
        assert_eq!(ns_tick(1e6), "1 ms");
        assert_eq!(ns_tick(2.5e6), "2.5 ms");
        assert_eq!(bytes_tick(8192.0), "8 KiB");
        assert_eq!(tidy("100 k".into()), "100 k");
        assert_eq!(tidy("50.0 k".into()), "50 k");
    }

    #[test]
    fn truncation_keeps_short_labels() {
        assert_eq!(truncate("abc", 5), "abc");
        assert_eq!(truncate("abcdef", 4), "abc…");
    }

    #[test]
    fn plotters_escapes_text_in_svg() {
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (200, 100)).into_drawing_area();
            legend(
                &root,
                (0, 0),
                Some("<b>&"),
                &[LegendEntry::new(
                    "<script>alert(1)</script>",
                    PALETTE[0],
                    Shape::Circle,
                )],
            )
            .unwrap();
            root.present().unwrap();
        }
        assert!(
            svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{svg}"
        );
        assert!(svg.contains("&lt;b&gt;&amp;"), "{svg}");
        assert!(!svg.contains("<script"), "{svg}");
    }
}
