//! Throughput against thread (or process) count, one small chart per (algorithm,
//! implementation) of each throughput file: total operations per second of each operation,
//! measured (solid) and ideal (dashed: the one-thread rate times the count, up to the logical
//! CPUs, then flat).

use crate::record::throughput::{OpThroughput, ThroughputRecord, ThroughputResult};
use crate::report::charts::{
    draw_shape, err, label_style, legend, legend_width, op_color, tidy, LegendEntry, Shape, Ticked,
    FONT, MEDIUM, SMALL,
};
use crate::report::data::Input;
use crate::report::doc::{slug, Chart, Embed};
use crate::units;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

const WIDTH: u32 = 490;
const HEIGHT: u32 = 310;

/// The ideal total rate at `threads`: the one-thread rate times `threads`, up to `cpus`.
pub fn ideal(one_thread: f64, threads: usize, cpus: usize) -> f64 {
    one_thread * threads.min(cpus.max(1)) as f64
}

/// The one-thread rate of an operation: the point at one thread, or the lowest count's rate per
/// thread.
pub fn one_thread_rate(o: &OpThroughput) -> Option<f64> {
    o.points
        .iter()
        .find(|p| p.threads == 1)
        .or_else(|| o.points.iter().min_by_key(|p| p.threads))
        .map(|p| p.total_ops_per_sec / p.threads.max(1) as f64)
}

/// Every chart of every throughput file.
pub fn charts(records: &[Input<ThroughputRecord>]) -> anyhow::Result<Vec<Chart>> {
    let mut out = Vec::new();
    for (i, input) in records.iter().enumerate() {
        for r in &input.record.results {
            if let Some(c) = chart(i, input, r)? {
                out.push(c);
            }
        }
    }
    Ok(out)
}

/// The chart of one (algorithm, implementation) of the `index`-th throughput file.
pub fn chart(
    index: usize,
    input: &Input<ThroughputRecord>,
    r: &ThroughputResult,
) -> anyhow::Result<Option<Chart>> {
    let rec = &input.record;
    let ops: Vec<&OpThroughput> = r
        .operations
        .iter()
        .filter(|o| !o.points.is_empty())
        .collect();
    if ops.is_empty() {
        return Ok(None);
    }
    let cpus = rec.environment.cpu.logical_cpus.max(1);
    let unit = if rec.config.processes {
        "processes"
    } else {
        "threads"
    };
    let max_t = ops
        .iter()
        .flat_map(|o| o.points.iter().map(|p| p.threads))
        .max()
        .unwrap_or(1);
    let mut counts: Vec<usize> = ops
        .iter()
        .flat_map(|o| o.points.iter().map(|p| p.threads))
        .collect();
    counts.sort_unstable();
    counts.dedup();
    let mut ideal_at = counts.clone();
    if cpus < max_t {
        ideal_at.push(cpus);
        ideal_at.sort_unstable();
        ideal_at.dedup();
    }
    let y_max = ops
        .iter()
        .flat_map(|o| {
            let base = one_thread_rate(o).unwrap_or(0.0);
            o.points
                .iter()
                .map(move |p| p.total_ops_per_sec.max(ideal(base, p.threads, cpus)))
        })
        .fold(0.0f64, f64::max)
        .max(1.0)
        * 1.08;
    let mut keys: Vec<LegendEntry> = ops
        .iter()
        .map(|o| LegendEntry::new(o.operation.as_str(), op_color(o.operation), Shape::Line))
        .collect();
    let grey = RGBColor(0x55, 0x55, 0x55);
    keys.push(LegendEntry::new("measured", grey, Shape::Line));
    keys.push(LegendEntry::new("ideal", grey, Shape::Dashed));
    let lw = legend_width(None, &keys);

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, _) = root.split_horizontally(WIDTH as i32 - lw);
        let x_hi = max_t as f64 + (max_t as f64 * 0.06).max(0.3);
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(62)
            .build_cartesian_2d(
                Ticked::new(0.0, x_hi, counts.iter().map(|&c| c as f64).collect()),
                0f64..y_max,
            )
            .map_err(err)?;
        let count = |v: &f64| tidy(units::count(*v));
        let whole = |v: &f64| format!("{v:.0}");
        chart
            .configure_mesh()
            .x_label_formatter(&whole)
            .y_label_formatter(&count)
            .y_labels(6)
            .x_desc(unit)
            .y_desc("operations/s, all together")
            .label_style((FONT, SMALL))
            .axis_desc_style((FONT, MEDIUM))
            .bold_line_style(RGBColor(0xe4, 0xe4, 0xe4))
            .light_line_style(WHITE)
            .draw()
            .map_err(err)?;
        if cpus < max_t {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(cpus as f64, 0.0), (cpus as f64, y_max)],
                    3,
                    4,
                    RGBColor(0xaa, 0xaa, 0xaa).stroke_width(1),
                ))
                .map_err(err)?;
            let (px, py) = chart.backend_coord(&(cpus as f64, y_max));
            root.draw(&Text::new(
                format!("{cpus} logical CPUs"),
                (px + 4, py + 9),
                label_style(SMALL * 0.8, HPos::Left).color(&grey),
            ))
            .map_err(err)?;
        }
        for o in &ops {
            let color = op_color(o.operation);
            if let Some(base) = one_thread_rate(o) {
                chart
                    .draw_series(DashedLineSeries::new(
                        ideal_at
                            .iter()
                            .map(|&t| (t as f64, ideal(base, t, cpus)))
                            .collect::<Vec<_>>(),
                        5,
                        4,
                        color.mix(0.8).stroke_width(1),
                    ))
                    .map_err(err)?;
            }
            let mut pts: Vec<(f64, f64)> = o
                .points
                .iter()
                .map(|p| (p.threads as f64, p.total_ops_per_sec))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(err)?;
            for p in pts {
                draw_shape(
                    &root,
                    chart.backend_coord(&p),
                    Shape::Circle,
                    3,
                    color,
                    true,
                )?;
            }
        }
        legend(&root, (WIDTH as i32 - lw, 14), None, &keys)?;
        root.present().map_err(err)?;
    }
    Ok(Some(Chart {
        id: format!(
            "chart-throughput-{}-{}-{}",
            index + 1,
            slug(&r.algorithm),
            slug(&r.implementation)
        ),
        title: format!(
            "{} · {} ({unit}, {})",
            r.algorithm, r.implementation, input.label
        ),
        caption: format!(
            "Total operations per second against the number of {unit} (median of {} repeats \
             of {} each); dashed: ideal scaling, the one-thread rate times the count up to the \
             {cpus} logical CPUs, then flat.",
            rec.config.repeats.max(1),
            units::ns(rec.config.duration_s * 1e9)
        ),
        svg,
        family: Some(r.family.clone()),
        embed: Embed::Inline,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ideal_is_linear_up_to_the_logical_cpus_then_flat() {
        assert_eq!(ideal(100.0, 1, 4), 100.0);
        assert_eq!(ideal(100.0, 4, 4), 400.0);
        assert_eq!(ideal(100.0, 8, 4), 400.0);
        assert_eq!(ideal(100.0, 3, 0), 100.0);
    }
}
