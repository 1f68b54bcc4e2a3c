//! Horizontal stacked bars: one bar per row, split into parts that are shares of the whole
//! (0 to 1), a legend of the parts above and percentages written on the wider segments. The
//! time-distribution chart and the profile's primitive shares are drawn with it.

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
/// Segments at least this wide (in percent) get their percentage written on them.
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

/// Draws `chart` into an SVG string; the height grows with the rows.
pub fn stacked(chart: &Stacked<'_>) -> anyhow::Result<String> {
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
            .x_label_area_size(40)
            .y_label_area_size(label_w)
            .build_cartesian_2d(
                Ticked::new(0.0, 100.0, vec![0.0, 25.0, 50.0, 75.0, 100.0]),
                Ticked::new(0.0, n as f64, centres),
            )
            .map_err(err)?;
        // Row i is drawn at n - 1 - i so that the first row is on top.
        let label = |y: &f64| row_label(&labels, *y);
        let pct = |x: &f64| format!("{x:.0}%");
        c.configure_mesh()
            .disable_y_mesh()
            .x_label_formatter(&pct)
            .y_label_formatter(&label)
            .x_desc(chart.x_desc)
            .label_style((FONT, SMALL))
            .axis_desc_style((FONT, MEDIUM))
            .bold_line_style(RGBColor(0xe4, 0xe4, 0xe4))
            .draw()
            .map_err(err)?;
        // Group lines run under the labels too, so that each group reads as a block.
        for &g in chart.group_starts.iter().filter(|&&g| g > 0 && g < n) {
            let (right, y) = c.backend_coord(&(100.0, (n - g) as f64));
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
                let w = share * 100.0;
                if w <= 0.0 {
                    continue;
                }
                c.draw_series(std::iter::once(Rectangle::new(
                    [(x, y + 0.15), (x + w, y + 0.85)],
                    part.color.filled(),
                )))
                .map_err(err)?;
                if w >= LABELLED {
                    let (px, py) = c.backend_coord(&(x + w / 2.0, y + 0.5));
                    root.draw(&Text::new(
                        format!("{w:.0}%"),
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
}
