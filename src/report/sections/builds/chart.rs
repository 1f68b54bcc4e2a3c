//! The builds section's heat map: one algorithm's matrix ([`crate::record::latency::matrix`]), a
//! column per flag set and a row per source × compiler, each cell one build's fastest-round
//! median and its ratio to the baseline, coloured by that ratio on a diverging log scale (blue
//! faster, red slower, white the same), the fastest build starred and outlined, and the colour
//! scale beside the grid.
//!
//! The grid is laid out in pixels on the root area rather than on plotters' cartesian axes: a
//! heat map's axes are categories, and its cells carry text, so plotters' ticks and meshes
//! would only have to be switched off.

use crate::kem::flags_unoptimised;
use crate::record::latency::matrix::{Cell as MatrixCell, Matrix};
use crate::report::charts::{err, label_column_width, label_style, text_width, SMALL};
use crate::report::doc::{slug, Chart, Embed};
use crate::units;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

/// Height of one row of cells (two lines of text).
const ROW: i32 = 52;
/// Height of the column headers (two lines: the flag set, and `unoptimised` under it).
const HEADER: i32 = 52;
/// Space above the headers, for the axes' names.
const TOP: i32 = 34;
/// Narrowest cell: room for `188 µs ★` and `×1.00 baseline`.
const CELL_MIN: i32 = 130;
/// Widest cell: a long flag set makes a wider column, up to this.
const CELL_MAX: i32 = 220;
/// Width of the colour scale, its tick labels included.
const SCALE_W: i32 = 120;
/// Height of the colour bar at least (a matrix of one or two rows would squash it).
const BAR_MIN: i32 = 180;
/// Outer margin.
const MARGIN: i32 = 14;

/// The diverging scale's stops, from fastest (t = -1) to slowest (t = 1): ColorBrewer's RdBu
/// without its two palest classes, so that a cell a little off the baseline is already tinted
/// and the scale reads the same to red-green colour-blind readers.
const STOPS: [RGBColor; 7] = [
    RGBColor(0x21, 0x66, 0xac),
    RGBColor(0x43, 0x93, 0xc3),
    RGBColor(0x92, 0xc5, 0xde),
    RGBColor(0xf7, 0xf7, 0xf7),
    RGBColor(0xf4, 0xa5, 0x82),
    RGBColor(0xd6, 0x60, 0x4d),
    RGBColor(0xb2, 0x18, 0x2b),
];
/// The fill of a cell that was not measured.
const MISSING: RGBColor = RGBColor(0xee, 0xee, 0xee);
/// Secondary text: axis names, notes.
const GREY: RGBColor = RGBColor(0x55, 0x55, 0x55);

/// Where `ratio` sits on a scale that spans `2^-extent` to `2^extent`: -1 (fastest) to 1.
fn position(ratio: f64, extent: f64) -> f64 {
    (ratio.log2() / extent).clamp(-1.0, 1.0)
}

/// How far from white `ratio` is coloured, -1 (the fastest colour) to 1: the square root of
/// its [`position`], so that a build 10% either side of the baseline is already tinted when
/// the scale has to reach ×1/8 for the vectorised sources.
fn tint(ratio: f64, extent: f64) -> f64 {
    let t = position(ratio, extent);
    t.signum() * t.abs().sqrt()
}

/// The colour of `ratio` on a scale that spans `2^-extent` to `2^extent` (a log scale, so that
/// twice as fast and twice as slow are equally far from white; see [`tint`]).
pub fn ratio_color(ratio: f64, extent: f64) -> RGBColor {
    let t = tint(ratio, extent);
    let x = (t + 1.0) / 2.0 * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |p: u8, q: u8| (f64::from(p) + (f64::from(q) - f64::from(p)) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// The text colour that reads on `fill`: white on the darker ends of the scale.
fn ink(ratio: f64, extent: f64) -> RGBColor {
    if tint(ratio, extent).abs() > 0.7 {
        WHITE
    } else {
        BLACK
    }
}

/// The scale's half-span in powers of two: the farthest ratio from 1, rounded up, at least
/// one (×1/2 to ×2), so that small differences are not stretched across the whole scale.
pub fn extent(m: &Matrix) -> f64 {
    cells(m)
        .filter_map(|c| c.ratio)
        .filter(|r| r.is_finite() && *r > 0.0)
        .map(|r| r.log2().abs())
        .fold(1.0f64, f64::max)
        .ceil()
}

/// Every measured cell of `m`.
fn cells(m: &Matrix) -> impl Iterator<Item = &MatrixCell> {
    m.rows.iter().flat_map(|r| r.cells.iter().flatten())
}

/// A ratio as the cells write it: `×0.85`.
pub fn ratio_text(r: f64) -> String {
    format!("×{r:.2}")
}

/// A power of two as the scale writes it: `×4`, `×1`, `×1/8`.
fn power_text(k: i32) -> String {
    if k >= 0 {
        format!("×{}", 1u64 << k)
    } else {
        format!("×1/{}", 1u64 << -k)
    }
}

/// A flag set as a column header: `(no flags)` for none.
pub fn flags_label(flags: &str) -> String {
    if flags.is_empty() {
        "(no flags)".into()
    } else {
        flags.to_string()
    }
}

/// The row label of a source built by a compiler.
pub fn row_label(source: &str, compiler: &str) -> String {
    format!("{source} / {compiler}")
}

/// The heat map of `m`; `family` is the algorithm's, for the report's family filter.
pub fn heat_map(m: &Matrix, family: Option<&str>) -> anyhow::Result<Chart> {
    let op = m.operation.as_str();
    let labels: Vec<String> = m
        .rows
        .iter()
        .map(|r| row_label(&r.source, &r.compiler))
        .collect();
    let headers: Vec<String> = m.flag_sets.iter().map(|f| flags_label(f)).collect();
    let label_w = label_column_width(&labels).max(text_width("source / compiler", SMALL) + 16);
    let widest = headers
        .iter()
        .map(|h| text_width(h, SMALL))
        .max()
        .unwrap_or(0);
    let cell_w = (widest + 24).clamp(CELL_MIN, CELL_MAX);
    let (ncols, nrows) = (m.flag_sets.len() as i32, m.rows.len() as i32);
    let grid_x = MARGIN + label_w;
    let grid_y = TOP + HEADER;
    let grid_w = ncols * cell_w;
    let bar_h = (nrows * ROW).max(BAR_MIN);
    let width = (grid_x + grid_w + 30 + SCALE_W + MARGIN) as u32;
    let height = (grid_y + bar_h + 40) as u32;
    let e = extent(m);

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let text = |s: String, at: (i32, i32), size: f64, h: HPos, color: &RGBColor| {
            root.draw(&Text::new(s, at, label_style(size, h).color(color)))
                .map_err(err)
        };
        // The axes' names.
        text(
            "flag set".into(),
            (grid_x + grid_w / 2, TOP / 2),
            SMALL,
            HPos::Center,
            &GREY,
        )?;
        text(
            "source / compiler".into(),
            (grid_x - 8, grid_y - 14),
            SMALL,
            HPos::Right,
            &GREY,
        )?;
        for (j, (h, flags)) in headers.iter().zip(&m.flag_sets).enumerate() {
            let cx = grid_x + j as i32 * cell_w + cell_w / 2;
            let unoptimised = flags_unoptimised(flags);
            let y = if unoptimised {
                TOP + HEADER / 2 - 9
            } else {
                TOP + HEADER / 2
            };
            text(h.clone(), (cx, y), SMALL, HPos::Center, &BLACK)?;
            if unoptimised {
                text(
                    "(unoptimised)".into(),
                    (cx, y + 18),
                    SMALL * 0.85,
                    HPos::Center,
                    &GREY,
                )?;
            }
        }
        for (i, (row, label)) in m.rows.iter().zip(&labels).enumerate() {
            let y0 = grid_y + i as i32 * ROW;
            text(
                label.clone(),
                (grid_x - 8, y0 + ROW / 2),
                SMALL,
                HPos::Right,
                &BLACK,
            )?;
            for (j, c) in row.cells.iter().enumerate() {
                let x0 = grid_x + j as i32 * cell_w;
                let (cx, cy) = (x0 + cell_w / 2, y0 + ROW / 2);
                let rect = [(x0, y0), (x0 + cell_w, y0 + ROW)];
                let Some(c) = c else {
                    root.draw(&Rectangle::new(rect, MISSING.filled()))
                        .map_err(err)?;
                    text(
                        "not measured".into(),
                        (cx, cy),
                        SMALL * 0.85,
                        HPos::Center,
                        &GREY,
                    )?;
                    continue;
                };
                let (fill, color) = match c.ratio {
                    Some(r) => (ratio_color(r, e), ink(r, e)),
                    None => (MISSING, BLACK),
                };
                root.draw(&Rectangle::new(rect, fill.filled()))
                    .map_err(err)?;
                let star = if c.fastest { " ★" } else { "" };
                text(
                    format!("{}{star}", units::ns(c.median_ns)),
                    (cx, cy - 9),
                    SMALL,
                    HPos::Center,
                    &color,
                )?;
                let below = match c.ratio {
                    Some(r) if m.baseline.as_deref() == Some(c.implementation.as_str()) => {
                        format!("{} baseline", ratio_text(r))
                    }
                    Some(r) => ratio_text(r),
                    None => "no baseline".into(),
                };
                text(below, (cx, cy + 10), SMALL * 0.85, HPos::Center, &color)?;
            }
        }
        // Thin white lines between the cells, then the fastest outlined on top of them.
        for j in 1..ncols {
            let x = grid_x + j * cell_w;
            root.draw(&PathElement::new(
                vec![(x, grid_y), (x, grid_y + nrows * ROW)],
                WHITE.stroke_width(2),
            ))
            .map_err(err)?;
        }
        for i in 1..nrows {
            let y = grid_y + i * ROW;
            root.draw(&PathElement::new(
                vec![(grid_x, y), (grid_x + grid_w, y)],
                WHITE.stroke_width(2),
            ))
            .map_err(err)?;
        }
        for (i, row) in m.rows.iter().enumerate() {
            for (j, c) in row.cells.iter().enumerate() {
                if c.as_ref().is_some_and(|c| c.fastest) {
                    let (x0, y0) = (grid_x + j as i32 * cell_w, grid_y + i as i32 * ROW);
                    root.draw(&Rectangle::new(
                        [(x0 + 1, y0 + 1), (x0 + cell_w - 1, y0 + ROW - 1)],
                        BLACK.stroke_width(3),
                    ))
                    .map_err(err)?;
                }
            }
        }
        scale(&root, (grid_x + grid_w + 30, grid_y), bar_h, e)?;
        root.present().map_err(err)?;
    }
    let baseline = m.baseline.as_deref().unwrap_or("none");
    let missing = m.rows.iter().any(|r| r.cells.iter().any(Option::is_none));
    Ok(Chart {
        id: format!("chart-builds-{}", slug(&m.algorithm)),
        title: format!("{}: {op} per build", m.algorithm),
        caption: format!(
            "Each cell is one build: the fastest round's median per {op} (above) and its ratio \
             to the baseline build, {baseline} (below). The colour is that ratio on a log \
             scale (stretched near ×1, so that small differences show): blue faster than the \
             baseline, red slower, white the same. ★ and the \
             outline mark the fastest build.{}",
            if missing {
                " A grey cell was not measured."
            } else {
                ""
            }
        ),
        svg,
        family: family.map(str::to_string),
        embed: Embed::Inline,
    })
}

/// Draws the colour scale with its top-left corner at `(x, y)`, `h` pixels tall: slower (red)
/// on top, faster (blue) at the bottom, a tick at every power of two.
fn scale(
    root: &crate::report::charts::Root,
    (x, y): (i32, i32),
    h: i32,
    e: f64,
) -> anyhow::Result<()> {
    const BAR: i32 = 18;
    let steps = 64;
    for s in 0..steps {
        let (top, bottom) = (y + h * s / steps, y + h * (s + 1) / steps);
        // Top is 2^e (slowest), bottom 2^-e (fastest).
        let mid = 1.0 - (f64::from(s) + 0.5) / f64::from(steps) * 2.0;
        let ratio = (mid * e).exp2();
        root.draw(&Rectangle::new(
            [(x, top), (x + BAR, bottom)],
            ratio_color(ratio, e).filled(),
        ))
        .map_err(err)?;
    }
    root.draw(&Rectangle::new(
        [(x, y), (x + BAR, y + h)],
        GREY.stroke_width(1),
    ))
    .map_err(err)?;
    let k = e as i32;
    for p in -k..=k {
        let ty = y + ((1.0 - (f64::from(p) / e + 1.0) / 2.0) * f64::from(h)).round() as i32;
        root.draw(&PathElement::new(
            vec![(x + BAR, ty), (x + BAR + 5, ty)],
            GREY,
        ))
        .map_err(err)?;
        root.draw(&Text::new(
            power_text(p),
            (x + BAR + 8, ty),
            label_style(SMALL * 0.85, HPos::Left),
        ))
        .map_err(err)?;
    }
    let note = |s: &str, ty: i32| {
        root.draw(&Text::new(
            s.to_string(),
            (x, ty),
            label_style(SMALL * 0.85, HPos::Left).color(&GREY),
        ))
        .map_err(err)
    };
    note("slower", y - 12)?;
    note("faster", y + h + 12)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture::{self, build_id};
    use crate::kem::Op;
    use crate::record::latency::matrix::matrices;

    fn fixture_map() -> Matrix {
        matrices(&fixture::run_with_builds(), Op::Exchange).remove(0)
    }

    #[test]
    fn the_scale_is_white_at_the_baseline_blue_when_faster_red_when_slower() {
        assert_eq!(ratio_color(1.0, 2.0), STOPS[3]);
        assert_eq!(ratio_color(0.25, 2.0), STOPS[0]);
        assert_eq!(ratio_color(4.0, 2.0), STOPS[6]);
        assert_eq!(ratio_color(100.0, 2.0), STOPS[6], "clamped");
        let fast = ratio_color(0.8, 2.0);
        let slow = ratio_color(1.25, 2.0);
        assert!(fast.2 > fast.0, "blue: {fast:?}");
        assert!(slow.0 > slow.2, "red: {slow:?}");
        // Twice as fast and twice as slow are equally far from white.
        assert_eq!(tint(0.5, 2.0), -tint(2.0, 2.0));
        // 10% off the baseline on a scale to ×1/8 and ×8: a fifth of the way to the end, not
        // the twentieth a plain log scale would give.
        assert!((tint(1.1, 3.0) - 0.21).abs() < 0.01, "{}", tint(1.1, 3.0));
    }

    #[test]
    fn the_extent_covers_the_farthest_ratio() {
        let m = fixture_map();
        // The fastest build is about ×0.14: 2^-3 = ×1/8 holds it.
        assert_eq!(extent(&m), 3.0);
        assert_eq!(power_text(-3), "×1/8");
        assert_eq!(power_text(0), "×1");
        assert_eq!(power_text(2), "×4");
    }

    #[test]
    fn every_cell_is_labelled() {
        let m = fixture_map();
        let c = heat_map(&m, Some("module-lattice")).unwrap();
        assert_eq!(c.id, "chart-builds-ml-kem-768");
        assert_eq!(c.family.as_deref(), Some("module-lattice"));
        for label in [
            "flag set",
            "-O2",
            "-O3 -march=native",
            "pqclean/clean / gcc-12",
            "pqclean/avx2 / clang-14",
            "×1.00 baseline",
            "slower",
            "faster",
            "×1/8",
        ] {
            assert!(c.svg.contains(label), "{label}: {}", c.svg);
        }
        for cell in m.rows.iter().flat_map(|r| r.cells.iter().flatten()) {
            assert!(c.svg.contains(&units::ns(cell.median_ns)), "{cell:?}");
            assert!(c.svg.contains(&ratio_text(cell.ratio.unwrap())), "{cell:?}");
        }
        assert_eq!(c.svg.matches('★').count(), 1);
        assert!(c
            .caption
            .contains(&build_id("pqclean/clean", "gcc-12", "-O2")));
        assert!(!c.caption.contains("grey"), "every build measured");
        assert!(!c.svg.contains("unoptimised"));
    }

    #[test]
    fn missing_and_unoptimised_cells_say_so() {
        let mut rec = fixture::run_with_builds();
        let gone = build_id("pqclean/avx2", "gcc-12", "-O2");
        rec.results.retain(|r| r.implementation != gone);
        for b in &mut rec.environment.builds {
            if b.flags == "-O2" {
                b.flags = "-O0".into();
            }
        }
        let m = matrices(&rec, Op::Exchange).remove(0);
        let c = heat_map(&m, None).unwrap();
        assert!(c.svg.contains("not measured"), "{}", c.svg);
        assert!(c.svg.contains("(unoptimised)"), "{}", c.svg);
        assert!(c.caption.contains("grey"));
    }

    #[test]
    fn names_from_the_data_are_escaped() {
        let mut m = fixture_map();
        m.rows[0].source = "<script>x</script>".into();
        m.flag_sets[0] = "-O2 & <b>".into();
        let c = heat_map(&m, None).unwrap();
        assert!(
            !c.svg.contains("<script") && !c.svg.contains("<b>"),
            "{}",
            c.svg
        );
    }
}
