//! Latency per operation, one chart per family: for each operation a group of bars, one per
//! (algorithm, implementation), the median per call on a logarithmic axis, with whiskers from
//! the median's 95% bootstrap confidence interval.

use crate::kem::Op;
use crate::record::latency::{BenchResult, LatencyRecord};
use crate::report::charts::{
    decades, err, legend, legend_width, log_ticks, ns_tick, pair_label, series_color, truncate,
    LegendEntry, Shape, Ticked, FONT, LEGEND_LINE, MEDIUM, SMALL,
};
use crate::report::doc::{slug, Chart, Embed};
use crate::report::sections::common::timed;
use plotters::prelude::*;

/// Width of every latency chart, in pixels.
const WIDTH: u32 = 1000;

/// The families of a run's timed results, in the order first measured.
pub fn families(run: &LatencyRecord) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in timed(run) {
        if !out.contains(&r.family) {
            out.push(r.family.clone());
        }
    }
    out
}

/// One chart per family of the run (none for a run with nothing timed).
pub fn charts(run: &LatencyRecord) -> anyhow::Result<Vec<Chart>> {
    families(run)
        .into_iter()
        .map(|family| {
            let entries: Vec<&BenchResult> = timed(run).filter(|r| r.family == family).collect();
            chart(&family, &entries)
        })
        .collect()
}

/// The chart of one family's results.
pub fn chart(family: &str, entries: &[&BenchResult]) -> anyhow::Result<Chart> {
    let ops: Vec<Op> = Op::ALL
        .into_iter()
        .filter(|&op| entries.iter().any(|r| r.op(op).is_some()))
        .collect();
    let keys: Vec<LegendEntry> = entries
        .iter()
        .enumerate()
        .map(|(i, r)| {
            LegendEntry::new(
                truncate(&pair_label(&r.algorithm, &r.implementation), 44),
                series_color(i),
                Shape::Block,
            )
        })
        .collect();
    let lw = legend_width(None, &keys);
    let height = (110 + entries.len() as i32 * LEGEND_LINE).max(380) as u32;
    let values = entries
        .iter()
        .flat_map(|r| r.operations.iter())
        .flat_map(|o| [o.median_ci95_low_ns, o.median_ns, o.median_ci95_high_ns])
        .filter(|v| v.is_finite() && *v > 0.0);
    let (min, max) = values.fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    // Room below the shortest bar, so that it is still a bar.
    let (lo, hi) = decades(min / 1.5, max);
    let groups = ops.len().max(1);
    let n = entries.len().max(1) as f64;
    // Bars share 84% of a group, but a lone bar is not a slab.
    let bar = (0.84 / n).min(0.16);
    let pad = (1.0 - bar * n) / 2.0;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, _) = root.split_horizontally(WIDTH as i32 - lw - 8);
        let centres: Vec<f64> = (0..groups).map(|g| g as f64 + 0.5).collect();
        let mut chart = ChartBuilder::on(&plot)
            .margin(14)
            .x_label_area_size(34)
            .y_label_area_size(84)
            .build_cartesian_2d(
                Ticked::new(0.0, groups as f64, centres),
                (lo..hi).log_scale().with_key_points(log_ticks(lo, hi)),
            )
            .map_err(err)?;
        let op_name = |x: &f64| {
            ops.get(x.floor() as usize)
                .map(|o| o.as_str().to_string())
                .unwrap_or_default()
        };
        let ns = |v: &f64| ns_tick(*v);
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_label_formatter(&op_name)
            .y_label_formatter(&ns)
            .y_desc("median per call (log scale)")
            .label_style((FONT, SMALL))
            .axis_desc_style((FONT, MEDIUM))
            .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
            .draw()
            .map_err(err)?;
        for g in 1..groups {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(g as f64, lo), (g as f64, hi)],
                    RGBColor(0x99, 0x99, 0x99),
                )))
                .map_err(err)?;
        }
        for (j, r) in entries.iter().enumerate() {
            let color = series_color(j);
            for (g, &op) in ops.iter().enumerate() {
                let Some(o) = r.op(op) else { continue };
                let x0 = g as f64 + pad + j as f64 * bar;
                let (x1, xc) = (x0 + bar * 0.86, x0 + bar * 0.43);
                let top = o.median_ns.max(lo);
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x0, lo), (x1, top)],
                        color.filled(),
                    )))
                    .map_err(err)?;
                let (wl, wh) = (o.median_ci95_low_ns.max(lo), o.median_ci95_high_ns.min(hi));
                let cap = bar * 0.25;
                let whisker = BLACK.stroke_width(1);
                for path in [
                    vec![(xc, wl), (xc, wh)],
                    vec![(xc - cap, wl), (xc + cap, wl)],
                    vec![(xc - cap, wh), (xc + cap, wh)],
                ] {
                    chart
                        .draw_series(std::iter::once(PathElement::new(path, whisker)))
                        .map_err(err)?;
                }
            }
        }
        legend(&root, (WIDTH as i32 - lw, 16), None, &keys)?;
        root.present().map_err(err)?;
    }
    Ok(Chart {
        id: format!("chart-latency-{}", slug(family)),
        title: format!("Latency: {family}"),
        caption: "Median time per call of each operation (log scale), one bar per \
                  implementation in the legend's order; whiskers: the median's 95% bootstrap \
                  confidence interval. `exchange` is keygen + encaps + decaps of a fresh key."
            .into(),
        svg,
        family: Some(family.to_string()),
        embed: Embed::Inline,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    #[test]
    fn one_chart_per_family_without_failed_implementations() {
        let mut run = fixture::run();
        let mut other = run.results[0].clone();
        other.family = "code-based".into();
        other.implementation = "<script>alert(1)</script>".into();
        run.results.push(other);
        let charts = charts(&run).unwrap();
        let ids: Vec<&str> = charts.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["chart-latency-test", "chart-latency-code-based"]);
        assert!(
            !charts[0].svg.contains("broken"),
            "failed implementations are not drawn"
        );
        assert!(charts[0].svg.starts_with("<svg"));
        assert!(charts[1].svg.contains("&lt;script&gt;"));
        assert!(!charts[1].svg.contains("<script"));
    }
}
