//! Speed against size: the full exchange's median against the bytes a key exchange puts on the
//! wire (public key + ciphertext), log-log, one point per implementation, colour by family and
//! marker shape by claimed NIST level. Each algorithm is labelled once, at its fastest
//! implementation, where the label does not collide with another label or a point.

use crate::kem::Op;
use crate::record::latency::{BenchResult, LatencyRecord};
use crate::report::charts::{
    binary_bounds, binary_ticks, bytes_tick, decades, draw_shape, err, family_color, label_style,
    legend, legend_width, level_shape, log_ticks, ns_tick, text_width, LegendEntry, Shape, FONT,
    LEGEND_LINE, MEDIUM, SMALL,
};
use crate::report::doc::{Chart, Embed};
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 600;

/// A pixel rectangle: left, top, right, bottom.
type Boxed = (i32, i32, i32, i32);

fn overlaps(a: Boxed, b: Boxed) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// The chart, or `None` when no implementation has an exchange median.
pub fn chart(run: &LatencyRecord) -> anyhow::Result<Option<Chart>> {
    let points: Vec<(&BenchResult, f64)> = run
        .results
        .iter()
        .filter(|r| !r.correctness.failed() && r.wire_bytes > 0)
        .filter_map(|r| {
            r.op(Op::Exchange)
                .map(|o| (r, o.median_ns))
                .filter(|(_, m)| m.is_finite() && *m > 0.0)
        })
        .collect();
    if points.is_empty() {
        return Ok(None);
    }
    let mut families: Vec<String> = Vec::new();
    let mut levels: Vec<Option<u8>> = Vec::new();
    for (r, _) in &points {
        if !families.contains(&r.family) {
            families.push(r.family.clone());
        }
        if !levels.contains(&r.nist_level) {
            levels.push(r.nist_level);
        }
    }
    levels.sort_by_key(|l| l.map_or(u8::MAX, |v| v));
    let family_keys: Vec<LegendEntry> = families
        .iter()
        .map(|f| LegendEntry::new(f.clone(), family_color(f, &families), Shape::Block))
        .collect();
    let level_keys: Vec<LegendEntry> = levels
        .iter()
        .map(|l| {
            let label = l.map_or("classical".to_string(), |v| format!("level {v}"));
            LegendEntry::new(label, RGBColor(0x55, 0x55, 0x55), level_shape(*l))
        })
        .collect();
    let lw = legend_width(Some("NIST level"), &family_keys)
        .max(legend_width(Some("NIST level"), &level_keys));
    let (xmin, xmax) = points
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), (r, _)| {
            (a.min(r.wire_bytes as f64), b.max(r.wire_bytes as f64))
        });
    let (ymin, ymax) = points
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), (_, m)| {
            (a.min(*m), b.max(*m))
        });
    // Room around the extreme points so that their markers and labels fit.
    let (x_lo, x_hi) = binary_bounds(xmin / 1.5, xmax * 1.5);
    let (y_lo, y_hi) = decades(ymin / 1.3, ymax * 1.3);

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, _) = root.split_horizontally(WIDTH as i32 - lw - 8);
        let mut chart = ChartBuilder::on(&plot)
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(84)
            .build_cartesian_2d(
                (x_lo..x_hi)
                    .log_scale()
                    .with_key_points(binary_ticks(x_lo, x_hi, 10)),
                (y_lo..y_hi)
                    .log_scale()
                    .with_key_points(log_ticks(y_lo, y_hi)),
            )
            .map_err(err)?;
        let bytes = |v: &f64| bytes_tick(*v);
        let ns = |v: &f64| ns_tick(*v);
        chart
            .configure_mesh()
            .x_label_formatter(&bytes)
            .y_label_formatter(&ns)
            .x_desc("bytes on the wire: public key + ciphertext (log scale)")
            .y_desc("full exchange, median (log scale)")
            .label_style((FONT, SMALL))
            .axis_desc_style((FONT, MEDIUM))
            .bold_line_style(RGBColor(0xe4, 0xe4, 0xe4))
            .draw()
            .map_err(err)?;
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        let pixel: Vec<(i32, i32)> = points
            .iter()
            .map(|(r, m)| chart.backend_coord(&(r.wire_bytes as f64, *m)))
            .collect();
        for ((r, _), &p) in points.iter().zip(&pixel) {
            draw_shape(
                &root,
                p,
                level_shape(r.nist_level),
                5,
                family_color(&r.family, &families),
                true,
            )?;
        }
        // Labels: one per algorithm, at its fastest implementation, greedy placement.
        let mut taken: Vec<Boxed> = pixel
            .iter()
            .map(|&(x, y)| (x - 7, y - 7, x + 7, y + 7))
            .collect();
        let mut labelled: Vec<&str> = Vec::new();
        let mut order: Vec<usize> = (0..points.len()).collect();
        order.sort_by(|&a, &b| points[a].1.total_cmp(&points[b].1));
        let h = 16;
        for i in order {
            let (r, _) = points[i];
            if labelled.contains(&r.algorithm.as_str()) {
                continue;
            }
            let (x, y) = pixel[i];
            let w = text_width(&r.algorithm, SMALL);
            let candidates = [
                (x + 9, y, HPos::Left),
                (x - 9, y, HPos::Right),
                (x + 6, y - 13, HPos::Left),
                (x + 6, y + 13, HPos::Left),
                (x - 6, y - 13, HPos::Right),
                (x - 6, y + 13, HPos::Right),
                (x, y - 16, HPos::Center),
                (x, y + 16, HPos::Center),
            ];
            let place = candidates.into_iter().find_map(|(tx, ty, anchor)| {
                let left = match anchor {
                    HPos::Left => tx,
                    HPos::Right => tx - w,
                    HPos::Center => tx - w / 2,
                };
                let b = (left, ty - h / 2, left + w, ty + h / 2);
                let inside = b.0 >= xr.start && b.2 <= xr.end && b.1 >= yr.start && b.3 <= yr.end;
                (inside && !taken.iter().any(|t| overlaps(*t, b))).then_some((tx, ty, anchor, b))
            });
            if let Some((tx, ty, anchor, b)) = place {
                taken.push(b);
                labelled.push(&r.algorithm);
                root.draw(&Text::new(
                    r.algorithm.clone(),
                    (tx, ty),
                    label_style(SMALL, anchor).color(&RGBColor(0x33, 0x33, 0x33)),
                ))
                .map_err(err)?;
            }
        }
        let x = WIDTH as i32 - lw;
        let y = legend(&root, (x, 16), Some("family"), &family_keys)?;
        legend(&root, (x, y + LEGEND_LINE), Some("NIST level"), &level_keys)?;
        root.present().map_err(err)?;
    }
    Ok(Some(Chart {
        id: "chart-size".into(),
        title: "Speed against size".into(),
        caption: "Full exchange (keygen + encaps + decaps) median against bytes on the wire \
                  (public key + ciphertext), both log scale: lower left is better. Colour: \
                  family; marker: claimed NIST level (× classical). Each algorithm is labelled \
                  at its fastest implementation where the label fits."
            .into(),
        svg,
        family: None,
        embed: Embed::Inline,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    #[test]
    fn draws_the_timed_implementations_and_skips_empty_runs() {
        let run = fixture::run();
        let c = chart(&run).unwrap().unwrap();
        assert_eq!(c.id, "chart-size");
        assert!(c.svg.contains("MockKEM"));
        let mut empty = fixture::run();
        empty.results.clear();
        assert!(chart(&empty).unwrap().is_none());
    }
}
