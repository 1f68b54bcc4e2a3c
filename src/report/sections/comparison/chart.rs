//! Comparison of a run with the baseline: for every (algorithm, implementation) present in
//! both, the ratio of medians (new / baseline) of each operation with its 95% bootstrap
//! interval, on a log scale centred on 1, the noise band shaded. Filled markers are significant
//! changes (verdict faster or slower), hollow ones within noise.

use crate::kem::Op;
use crate::record::latency::compare::Report;
use crate::report::charts::{
    self, err, label_style, legend_row, op_color, pair_label, truncate, LegendEntry, Shape, Ticked,
    FONT, MEDIUM, SMALL,
};
use crate::report::doc::{Chart, Embed};
use crate::stats::Verdict;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

const WIDTH: u32 = 1000;
/// Height of one (algorithm, implementation) row.
const ROW: i32 = 30;

/// Ratio ticks, chosen from these within the axis range.
const TICKS: [f64; 19] = [
    0.1, 0.2, 0.25, 0.33, 0.5, 0.67, 0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0,
    10.0,
];

/// Of [`TICKS`] within `[lo, hi]`, those at least `gap` (a fraction of the axis's log width)
/// from their neighbours, kept outward from 1.
fn spaced_ticks(lo: f64, hi: f64, gap: f64) -> Vec<f64> {
    let width = (hi / lo).ln();
    let inside: Vec<f64> = TICKS
        .iter()
        .copied()
        .filter(|t| *t >= lo && *t <= hi)
        .collect();
    let mut out = vec![1.0];
    for side in [
        inside
            .iter()
            .copied()
            .filter(|t| *t > 1.0)
            .collect::<Vec<f64>>(),
        inside.iter().rev().copied().filter(|t| *t < 1.0).collect(),
    ] {
        let mut last = 1.0f64;
        for t in side {
            if (t / last).ln().abs() / width >= gap {
                out.push(t);
                last = t;
            }
        }
    }
    out.sort_by(f64::total_cmp);
    out
}

/// The x range: the intervals, with room, and at least 0.8 to 1.25.
fn range(report: &Report) -> (f64, f64) {
    let (lo, hi) = report
        .rows
        .iter()
        .flat_map(|r| [r.comparison.ratio_ci_low, r.comparison.ratio_ci_high])
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((0.8f64, 1.25f64), |(a, b), v| (a.min(v), b.max(v)));
    (lo / 1.06, hi * 1.06)
}

/// The chart of one comparison, or `None` when the runs have nothing in common.
pub fn chart(
    number: usize,
    baseline: &str,
    label: &str,
    report: &Report,
) -> anyhow::Result<Option<Chart>> {
    let x_desc = format!(
        "{label} / {baseline}, median ratio with 95% interval (log scale; below 1 is faster)"
    );
    let Some(svg) = ratio_svg(report, &x_desc, 44)? else {
        return Ok(None);
    };
    Ok(Some(Chart {
        id: format!("chart-compare-{number}"),
        title: format!("{label} against {baseline}"),
        caption: format!(
            "Ratio of medians, {label} over {baseline}, per operation with its 95% bootstrap \
             interval (log scale): left of 1 is faster. Filled: a significant change beyond \
             ±{:.0}% (verdict faster or slower); hollow: within noise.",
            report.noise_threshold * 100.0
        ),
        svg,
        family: None,
        embed: Embed::Inline,
    }))
}

/// The SVG of ratio rows: one row per (algorithm, implementation) of `report`, labelled with
/// at most `label_chars` characters, each operation's ratio with its interval on a log axis
/// described by `x_desc`; `None` when there are no rows. The comparison of two runs and the
/// versions of a library side by side draw with it.
pub fn ratio_svg(
    report: &Report,
    x_desc: &str,
    label_chars: usize,
) -> anyhow::Result<Option<String>> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for r in &report.rows {
        if !pairs.contains(&(r.algorithm.as_str(), r.implementation.as_str())) {
            pairs.push((&r.algorithm, &r.implementation));
        }
    }
    if pairs.is_empty() {
        return Ok(None);
    }
    let labels: Vec<String> = pairs
        .iter()
        .map(|(a, i)| truncate(&pair_label(a, i), label_chars))
        .collect();
    let label_w = charts::label_column_width(&labels);
    let n = pairs.len();
    let height = (110 + n as i32 * ROW) as u32;
    let (lo, hi) = range(report);
    let ticks = spaced_ticks(lo, hi, 0.075);
    let ops: Vec<Op> = Op::ALL
        .into_iter()
        .filter(|op| report.rows.iter().any(|r| r.operation == *op))
        .collect();

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut keys: Vec<LegendEntry> = charts::op_legend(&ops, Shape::Circle);
        let grey = RGBColor(0x55, 0x55, 0x55);
        keys.push(LegendEntry::new("significant change", grey, Shape::Circle));
        keys.push(LegendEntry {
            filled: false,
            ..LegendEntry::new("within noise", grey, Shape::Circle)
        });
        // Above the plot, moved left where wide row labels would push it off the chart.
        let x = (label_w + 14)
            .min(WIDTH as i32 - charts::legend_row_width(&keys))
            .max(4);
        legend_row(&root, (x, 16), &keys)?;
        let (_, plot) = root.split_vertically(30);
        let centres: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
        let mut chart = ChartBuilder::on(&plot)
            .margin(14)
            .margin_top(4)
            .x_label_area_size(40)
            .y_label_area_size(label_w)
            .build_cartesian_2d(
                (lo..hi).log_scale().with_key_points(ticks),
                Ticked::new(0.0, n as f64, centres),
            )
            .map_err(err)?;
        let row_label = |y: &f64| charts::row_label(&labels, *y);
        let times = |x: &f64| format!("{x}×");
        chart
            .configure_mesh()
            .x_label_formatter(&times)
            .y_label_formatter(&row_label)
            .x_desc(x_desc)
            .label_style((FONT, SMALL))
            .axis_desc_style((FONT, MEDIUM))
            .bold_line_style(RGBColor(0xec, 0xec, 0xec))
            .draw()
            .map_err(err)?;
        // Every other row shaded, so that a point's row is plain.
        for i in (0..n).step_by(2) {
            let y = (n - 1 - i) as f64;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(lo, y), (hi, y + 1.0)],
                    RGBColor(0xf3, 0xf5, 0xf7).filled(),
                )))
                .map_err(err)?;
        }
        let noise = report.noise_threshold;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(1.0 - noise, 0.0), (1.0 + noise, n as f64)],
                RGBColor(0xdd, 0xdd, 0xdd).mix(0.6).filled(),
            )))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(1.0, 0.0), (1.0, n as f64)],
                grey.stroke_width(1),
            )))
            .map_err(err)?;
        for row in &report.rows {
            let Some(i) = pairs
                .iter()
                .position(|p| *p == (row.algorithm.as_str(), row.implementation.as_str()))
            else {
                continue;
            };
            let k = ops.iter().position(|o| *o == row.operation).unwrap_or(0);
            // The first operation on top, as in the legend.
            let slot = (ops.len() - 1 - k) as f64;
            let y = (n - 1 - i) as f64 + 0.18 + slot * 0.64 / (ops.len().max(2) - 1) as f64;
            let c = &row.comparison;
            let color = op_color(row.operation);
            let significant = c.verdict != Verdict::WithinNoise;
            let style = if significant {
                color.filled().stroke_width(2)
            } else {
                color.stroke_width(2)
            };
            let clamp = |v: f64| v.clamp(lo, hi);
            chart
                .draw_series(std::iter::once(ErrorBar::new_horizontal(
                    y,
                    clamp(c.ratio_ci_low),
                    clamp(c.ratio),
                    clamp(c.ratio_ci_high),
                    style,
                    8,
                )))
                .map_err(err)?;
        }
        let (px, py) = chart.backend_coord(&(hi, 0.0));
        root.draw(&Text::new(
            format!("grey band: within ±{:.0}% noise", noise * 100.0),
            (px - 4, py - 10),
            label_style(SMALL * 0.8, HPos::Right).color(&grey),
        ))
        .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(Some(svg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    #[test]
    fn ticks_keep_one_and_their_distance() {
        assert_eq!(
            spaced_ticks(0.5, 2.0, 0.075),
            [0.5, 0.67, 0.8, 0.9, 1.0, 1.25, 1.5, 2.0]
        );
        let t = spaced_ticks(0.6, 1.6, 0.075);
        assert!(
            t.contains(&1.0) && !t.contains(&0.95) && !t.contains(&1.05),
            "{t:?}"
        );
    }

    #[test]
    fn draws_a_row_per_common_implementation() {
        let a = fixture::run();
        let report = crate::record::latency::compare::compare(&a, &a, 0.02);
        let c = chart(2, "a.json", "b.json", &report).unwrap().unwrap();
        assert_eq!(c.id, "chart-compare-2");
        assert!(c.svg.contains("MockKEM · mock/correct"));
        let mut empty = fixture::run();
        empty.results.clear();
        let none = crate::record::latency::compare::compare(&a, &empty, 0.02);
        assert!(chart(2, "a", "b", &none).unwrap().is_none());
    }
}
