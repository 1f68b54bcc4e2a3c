//! Memory per operation: peak heap (C libraries included where the interposer was active) and
//! deepest stack of one call, side by side, one row per (algorithm, implementation) with a bar
//! per operation, log scale. Zero is written as `0` and an unmeasured value as `n/a`.

use crate::kem::Op;
use crate::record::latency::{BenchResult, LatencyRecord, OperationResult};
use crate::report::charts::{
    self, binary_bounds, binary_ticks, bytes_tick, err, label_style, legend_row, op_color,
    pair_label, truncate, LegendEntry, Shape, Ticked, FONT, MEDIUM, SMALL,
};
use crate::report::doc::{Chart, Embed};
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

const WIDTH: u32 = 1000;
/// Height of one result's row.
const ROW: i32 = 26;
/// The operations drawn (an exchange's figures are those of its parts).
pub const OPS: [Op; 3] = [Op::Keygen, Op::Encaps, Op::Decaps];

type Metric = fn(&OperationResult) -> Option<u64>;

/// The chart, or `None` when nothing was measured.
pub fn chart(run: &LatencyRecord) -> anyhow::Result<Option<Chart>> {
    let rows: Vec<&BenchResult> = run
        .results
        .iter()
        .filter(|r| !r.correctness.failed() && OPS.iter().any(|op| r.op(*op).is_some()))
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let labels: Vec<String> = rows
        .iter()
        .map(|r| truncate(&pair_label(&r.algorithm, &r.implementation), 40))
        .collect();
    let label_w = charts::label_column_width(&labels);
    let n = rows.len();
    let height = (110 + n as i32 * ROW) as u32;
    let panel_w = (WIDTH as i32 - label_w) / 2;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let keys: Vec<LegendEntry> = charts::op_legend(&OPS, Shape::Block);
        legend_row(&root, (label_w + 14, 16), &keys)?;
        let (_, body) = root.split_vertically(30);
        let (left, right) = body.split_horizontally(label_w + panel_w);
        let panels: [(&Root, Metric, &str, i32); 2] = [
            (
                &left,
                |o| o.peak_heap_bytes,
                "peak heap of one call",
                label_w,
            ),
            (
                &right,
                |o| o.max_stack_bytes,
                "deepest stack of one call",
                0,
            ),
        ];
        for (area, metric, desc, y_area) in panels {
            panel(&root, area, &rows, &labels, metric, desc, y_area)?;
        }
        root.present().map_err(err)?;
    }
    Ok(Some(Chart {
        id: "chart-memory".into(),
        title: "Memory per operation".into(),
        caption: "Peak heap above the baseline during one call (C libraries' allocations \
                  included when the malloc interposer was active) and the deepest stack of one \
                  call (stack painting), log scale; `0` is no allocation, `n/a` not measured."
            .into(),
        svg,
        family: None,
        embed: Embed::Inline,
    }))
}

type Root<'a> = charts::Root<'a>;

fn panel(
    root: &Root,
    area: &Root,
    rows: &[&BenchResult],
    labels: &[String],
    metric: Metric,
    desc: &str,
    y_area: i32,
) -> anyhow::Result<()> {
    let n = rows.len();
    let values = rows
        .iter()
        .flat_map(|r| OPS.iter().filter_map(|op| r.op(*op).and_then(metric)))
        .filter(|v| *v > 0)
        .map(|v| v as f64);
    let (min, max) = values.fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let (lo, hi) = if max > 0.0 {
        binary_bounds(min, max)
    } else {
        (1.0, 4.0)
    };
    let centres: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
    // Room between the panels so that their tick labels do not meet.
    let mut chart = ChartBuilder::on(area)
        .margin(14)
        .margin_top(4)
        .margin_left(if y_area > 0 { 14 } else { 34 })
        .margin_right(if y_area > 0 { 34 } else { 24 })
        .x_label_area_size(40)
        .y_label_area_size(y_area)
        .build_cartesian_2d(
            (lo..hi)
                .log_scale()
                .with_key_points(binary_ticks(lo, hi, 7)),
            Ticked::new(0.0, n as f64, centres),
        )
        .map_err(err)?;
    let row_label = |y: &f64| charts::row_label(labels, *y);
    let bytes = |v: &f64| bytes_tick(*v);
    let mut mesh = chart.configure_mesh();
    mesh.disable_y_mesh()
        .x_label_formatter(&bytes)
        .x_desc(format!("{desc} (log scale)"))
        .label_style((FONT, SMALL))
        .axis_desc_style((FONT, MEDIUM))
        .bold_line_style(RGBColor(0xe4, 0xe4, 0xe4));
    if y_area > 0 {
        mesh.y_label_formatter(&row_label);
    } else {
        mesh.y_labels(0);
    }
    mesh.draw().map_err(err)?;
    let note = RGBColor(0x77, 0x77, 0x77);
    for (i, r) in rows.iter().enumerate() {
        let y = (n - 1 - i) as f64;
        for (k, op) in OPS.iter().enumerate() {
            // The first operation on top, as in the legend.
            let slot = (OPS.len() - 1 - k) as f64;
            let (y0, y1) = (y + 0.08 + slot * 0.28, y + 0.08 + slot * 0.28 + 0.24);
            let value = r.op(*op).map(metric);
            match value {
                Some(Some(v)) if v > 0 => {
                    chart
                        .draw_series(std::iter::once(Rectangle::new(
                            [(lo, y1), (v as f64, y0)],
                            op_color(*op).filled(),
                        )))
                        .map_err(err)?;
                }
                Some(Some(_)) | Some(None) => {
                    let text = if value == Some(Some(0)) { "0" } else { "n/a" };
                    let (px, py) = chart.backend_coord(&(lo, (y0 + y1) / 2.0));
                    root.draw(&Text::new(
                        text,
                        (px + 3, py),
                        label_style(SMALL * 0.75, HPos::Left).color(&note),
                    ))
                    .map_err(err)?;
                }
                None => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    #[test]
    fn unmeasured_values_say_n_a() {
        let mut run = fixture::run();
        run.results[0].operations[0].peak_heap_bytes = None;
        run.results[0].operations[1].peak_heap_bytes = Some(0);
        let c = chart(&run).unwrap().unwrap();
        assert!(
            c.svg.contains(">\nn/a\n<") || c.svg.contains("n/a"),
            "{}",
            c.svg
        );
        assert!(
            c.svg.contains("16 KiB"),
            "the stack axis is in bytes: {}",
            c.svg
        );
    }
}
