//! Horizontal stacked bars: one bar per row, split into parts, a legend of the parts above and
//! the figures written on the wider segments. [`stacked`] draws shares of a whole (0 to 1, as
//! percentages: the time-distribution chart and the profile's primitive shares);
//! [`stacked_values`] draws values on a linear axis from 0 (the tls section's CPU per
//! handshake and handshake rates).

use super::{
    err, label_column_width, label_style, legend_row, row_label, LegendEntry, Ticked, FONT, MEDIUM,
    SMALL,
};
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

/// Width of every stacked-bar chart.
const WIDTH: u32 = 1000;
/// Height of one bar's row.
const ROW: i32 = 22;
/// Segments at least this wide (in percent of the axis) get their figure written on them.
const LABELLED: f64 = 6.0;

/// What a stacked-bar chart shows.
#[derive(Debug, Clone)]
pub struct Stacked<'a> {
    /// The parts, in stacking order: their legend labels and colours (the shape is ignored).
    pub parts: Vec<LegendEntry>,
    /// One row per bar, top first: its label and one share per part.
    pub rows: Vec<(String, Vec<f64>)>,
    /// Indices of rows that start a new group (a thin line is drawn above them); empty for
    /// none.
    pub group_starts: Vec<usize>,
    /// The description of the x axis.
    pub x_desc: &'a str,
}

/// Draws `chart`, whose rows are shares (0 to 1), into an SVG string; the height grows with
/// the rows.
pub fn stacked(chart: &Stacked<'_>) -> anyhow::Result<String> {
    let pct = |x: f64| format!("{x:.0}%");
    draw(
        chart,
        &Axis {
            hi: 100.0,
            ticks: vec![0.0, 25.0, 50.0, 75.0, 100.0],
            scale: 100.0,
            tick: &pct,
            segment: &pct,
            margin_right: 14,
        },
    )
}

/// Draws `chart`, whose rows are values (not shares), into an SVG string: the axis runs from 0
/// to a round value above the longest bar, its ticks and the figures on the wider segments
/// written by `format`.
pub fn stacked_values(
    chart: &Stacked<'_>,
    format: &dyn Fn(f64) -> String,
) -> anyhow::Result<String> {
    let longest = chart
        .rows
        .iter()
        .map(|(_, v)| v.iter().filter(|x| x.is_finite() && **x > 0.0).sum::<f64>())
        .fold(0.0f64, f64::max);
    // Room after the longest bar, so that it does not end on the frame.
    let (hi, ticks) = round_axis(longest * 1.05);
    draw(
        chart,
        &Axis {
            hi,
            ticks,
            scale: 1.0,
            tick: format,
            segment: format,
            // The last tick's label (`150 µs`) is wider than a percentage.
            margin_right: 34,
        },
    )
}

/// A linear axis from 0 that holds `max`: its end (a 1, 2, 2.5 or 5 step times at most six)
/// and its ticks.
pub fn round_axis(max: f64) -> (f64, Vec<f64>) {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let raw = max / 5.0;
    let decade = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * decade)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * decade);
    let n = (max / step).ceil().max(1.0) as usize;
    let ticks: Vec<f64> = (0..=n).map(|i| i as f64 * step).collect();
    (n as f64 * step, ticks)
}

/// How the x axis of a stacked chart reads.
struct Axis<'a> {
    /// Its end (its start is 0).
    hi: f64,
    /// Tick positions.
    ticks: Vec<f64>,
    /// What a row's value is multiplied by to be placed on the axis.
    scale: f64,
    /// A tick's label.
    tick: &'a dyn Fn(f64) -> String,
    /// The figure on a segment, from its length on the axis.
    segment: &'a dyn Fn(f64) -> String,
    /// Room right of the plot, for the last tick's label.
    margin_right: u32,
}

/// Draws `chart` on `axis`.
fn draw(chart: &Stacked<'_>, axis: &Axis<'_>) -> anyhow::Result<String> {
    let labels: Vec<String> = chart.rows.iter().map(|(l, _)| l.clone()).collect();
    let label_w = label_column_width(&labels);
    let n = chart.rows.len();
    let height = (96 + n as i32 * ROW) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        legend_row(&root, (label_w + 14, 16), &chart.parts)?;
        let (_, plot) = root.split_vertically(30);
        let centres: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
        let mut c = ChartBuilder::on(&plot)
            .margin(14)
            .margin_top(4)
            .margin_right(axis.margin_right)
            .x_label_area_size(40)
            .y_label_area_size(label_w)
            .build_cartesian_2d(
                Ticked::new(0.0, axis.hi, axis.ticks.clone()),
                Ticked::new(0.0, n as f64, centres),
            )
            .map_err(err)?;
        // Row i is drawn at n - 1 - i so that the first row is on top.
        let label = |y: &f64| row_label(&labels, *y);
        let tick = |x: &f64| (axis.tick)(*x);
        c.configure_mesh()
            .disable_y_mesh()
            .x_label_formatter(&tick)
            .y_label_formatter(&label)
            .x_desc(chart.x_desc)
            .label_style((FONT, SMALL))
            .axis_desc_style((FONT, MEDIUM))
            .bold_line_style(RGBColor(0xe4, 0xe4, 0xe4))
            .draw()
            .map_err(err)?;
        // Group lines run under the labels too, so that each group reads as a block.
        for &g in chart.group_starts.iter().filter(|&&g| g > 0 && g < n) {
            let (right, y) = c.backend_coord(&(axis.hi, (n - g) as f64));
            root.draw(&PathElement::new(
                vec![(8, y), (right, y)],
                RGBColor(0x9a, 0xa3, 0xa9).stroke_width(1),
            ))
            .map_err(err)?;
        }
        for (i, (_, shares)) in chart.rows.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            let mut x = 0.0;
            for (part, share) in chart.parts.iter().zip(shares) {
                let w = share * axis.scale;
                if w.is_nan() || w <= 0.0 {
                    continue;
                }
                c.draw_series(std::iter::once(Rectangle::new(
                    [(x, y + 0.15), (x + w, y + 0.85)],
                    part.color.filled(),
                )))
                .map_err(err)?;
                if w / axis.hi * 100.0 >= LABELLED {
                    let (px, py) = c.backend_coord(&(x + w / 2.0, y + 0.5));
                    root.draw(&Text::new(
                        (axis.segment)(w),
                        (px, py),
                        label_style(SMALL * 0.85, HPos::Center).color(&WHITE),
                    ))
                    .map_err(err)?;
                }
                x += w;
            }
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::charts::{Shape, PALETTE};

    #[test]
    fn taller_with_more_rows_and_labels_on_wide_segments() {
        let parts = vec![
            LegendEntry::new("a<b", PALETTE[0], Shape::Block),
            LegendEntry::new("c", PALETTE[1], Shape::Block),
        ];
        let chart = |rows: usize| Stacked {
            parts: parts.clone(),
            rows: (0..rows)
                .map(|i| (format!("row {i}"), vec![0.97, 0.03]))
                .collect(),
            group_starts: vec![1],
            x_desc: "share",
        };
        let height = |svg: &str| {
            let h = svg.split("height=\"").nth(1).unwrap();
            h[..h.find('"').unwrap()].parse::<u32>().unwrap()
        };
        let (two, ten) = (stacked(&chart(2)).unwrap(), stacked(&chart(10)).unwrap());
        assert_eq!(height(&ten) - height(&two), 8 * ROW as u32);
        assert!(two.contains("a&lt;b") && two.contains("row 1"), "{two}");
        assert!(two.contains(">\n97%\n<"), "the wide segment is labelled");
        assert!(!two.contains(">\n3%\n<"), "the narrow one is not");
    }

    #[test]
    fn value_axes_end_on_a_round_figure_above_the_longest_bar() {
        assert_eq!(
            round_axis(95.0),
            (100.0, vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0])
        );
        assert_eq!(round_axis(130_000.0).0, 150_000.0);
        assert_eq!(round_axis(0.0).0, 1.0);
        let chart = Stacked {
            parts: vec![LegendEntry::new("kex", PALETTE[0], Shape::Block)],
            rows: vec![("a".into(), vec![80.0]), ("b".into(), vec![2.0])],
            group_starts: vec![],
            x_desc: "ns",
        };
        let svg = stacked_values(&chart, &|v| format!("{v:.0} ns")).unwrap();
        assert!(
            svg.contains(">\n80 ns\n<"),
            "the long bar is labelled: {svg}"
        );
        assert!(svg.contains(">\n100 ns\n<"), "the axis ends at 100: {svg}");
    }
}
