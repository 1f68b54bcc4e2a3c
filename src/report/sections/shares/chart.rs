//! Where the time of an exchange goes: one stacked bar per (algorithm, implementation), the
//! shares of keygen, encaps and decaps in keygen + encaps + decaps (`share_of_exchange`).

use crate::measure::sampler::Op;
use crate::record::run::{BenchResult, RunRecord};
use crate::report::charts::{
    self, err, label_style, legend_row, op_color, pair_label, truncate, LegendEntry, Shape, Ticked,
    FONT, MEDIUM, SMALL,
};
use crate::report::doc::Chart;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

const WIDTH: u32 = 1000;
/// Height of one bar's row.
const ROW: i32 = 22;
/// The operations whose shares are stacked.
pub const PARTS: [Op; 3] = [Op::Keygen, Op::Encaps, Op::Decaps];

/// The chart, or `None` when no result has shares.
pub fn chart(run: &RunRecord) -> anyhow::Result<Option<Chart>> {
    let rows: Vec<(&BenchResult, [f64; 3])> = run
        .results
        .iter()
        .filter(|r| !r.correctness.failed())
        .filter_map(|r| {
            let mut s = [0.0; 3];
            for (i, op) in PARTS.iter().enumerate() {
                s[i] = r.op(*op)?.share_of_exchange?;
            }
            Some((r, s))
        })
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let labels: Vec<String> = rows
        .iter()
        .map(|(r, _)| truncate(&pair_label(&r.algorithm, &r.implementation), 44))
        .collect();
    let label_w = charts::label_column_width(&labels);
    let n = rows.len();
    let height = (96 + n as i32 * ROW) as u32;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let keys: Vec<LegendEntry> = charts::op_legend(&PARTS, Shape::Block);
        legend_row(&root, (label_w + 14, 16), &keys)?;
        let (_, plot) = root.split_vertically(30);
        let centres: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
        let mut chart = ChartBuilder::on(&plot)
            .margin(14)
            .margin_top(4)
            .x_label_area_size(40)
            .y_label_area_size(label_w)
            .build_cartesian_2d(
                Ticked::new(0.0, 100.0, vec![0.0, 25.0, 50.0, 75.0, 100.0]),
                Ticked::new(0.0, n as f64, centres),
            )
            .map_err(err)?;
        // Row i is drawn at n - 1 - i so that the first result is on top.
        let row_label = |y: &f64| charts::row_label(&labels, *y);
        let pct = |x: &f64| format!("{x:.0}%");
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_label_formatter(&pct)
            .y_label_formatter(&row_label)
            .x_desc("share of keygen + encaps + decaps (medians)")
            .label_style((FONT, SMALL))
            .axis_desc_style((FONT, MEDIUM))
            .bold_line_style(RGBColor(0xe4, 0xe4, 0xe4))
            .draw()
            .map_err(err)?;
        for (i, (_, shares)) in rows.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            let mut x = 0.0;
            for (k, op) in PARTS.iter().enumerate() {
                let w = shares[k] * 100.0;
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x, y + 0.15), (x + w, y + 0.85)],
                        op_color(*op).filled(),
                    )))
                    .map_err(err)?;
                if w >= 6.0 {
                    let (px, py) = chart.backend_coord(&(x + w / 2.0, y + 0.5));
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
    Ok(Some(Chart {
        id: "chart-shares".into(),
        title: "Where an exchange's time goes".into(),
        caption: "Each operation's median as a share of keygen + encaps + decaps \
                  (`share_of_exchange`): for key exchange in TLS 1.3 the client pays keygen and \
                  decaps, the server encaps."
            .into(),
        svg,
        family: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    #[test]
    fn one_bar_per_result_with_shares() {
        let c = chart(&fixture::run()).unwrap().unwrap();
        assert!(c.svg.contains("MockKEM · mock/correct"));
        assert!(!c.svg.contains("broken"));
        let mut run = fixture::run();
        for r in &mut run.results {
            for o in &mut r.operations {
                o.share_of_exchange = None;
            }
        }
        assert!(chart(&run).unwrap().is_none());
    }
}
