//! The tls section's charts, each of one tls run: handshakes per second of one core per
//! benchmark and kind of handshake; CPU per full handshake on each side split into the bare key
//! exchange and the rest; bytes per flight against TCP segments and the initial window; and
//! the median handshake time against the round-trip time and against packet loss.

use crate::record::tls::{Mode, NetPoint, TlsRecord, TlsResult, INITCWND, MSS};
use crate::report::charts::stacked::{round_axis, stacked_values, Stacked};
use crate::report::charts::{
    draw_shape, err, label_column_width, label_style, legend, legend_row, legend_width, ns_tick,
    row_label, series_color, tidy, truncate, LegendEntry, Shape, Ticked, FONT, MEDIUM, PALETTE,
    SMALL,
};
use crate::report::doc::{Chart, Embed};
use crate::units;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

/// Width of the flight and network charts.
const WIDTH: u32 = 1000;
/// Height of one flight's row.
const ROW: i32 = 22;

/// The label of a benchmark in the charts: `group · stack/cert`.
pub fn label(r: &TlsResult) -> String {
    truncate(&format!("{} · {}", r.group, r.implementation), 48)
}

/// The colour of a kind of handshake.
fn mode_color(m: Mode) -> RGBColor {
    match m {
        Mode::Full => PALETTE[0],
        Mode::Resumed => PALETTE[4],
        Mode::Hrr => PALETTE[1],
    }
}

/// The results with handshakes measured.
fn measured(r: &TlsRecord) -> impl Iterator<Item = &TlsResult> {
    r.results.iter().filter(|x| !x.modes.is_empty())
}

fn chart(id: &str, title: &str, caption: String, svg: String) -> Chart {
    Chart {
        id: id.into(),
        title: title.into(),
        caption,
        svg,
        family: None,
        embed: Embed::Inline,
    }
}

/// Handshakes per second of one thread doing both sides: one bar per benchmark and kind of
/// handshake, coloured by kind.
pub fn rate(record: &TlsRecord) -> anyhow::Result<Option<Chart>> {
    let modes: Vec<Mode> = Mode::ALL
        .into_iter()
        .filter(|m| measured(record).any(|r| r.mode(*m).is_some()))
        .collect();
    let mut rows = Vec::new();
    let mut group_starts = Vec::new();
    for r in measured(record) {
        group_starts.push(rows.len());
        for m in &r.modes {
            let values = modes
                .iter()
                .map(|x| {
                    if *x == m.mode {
                        m.handshakes_per_sec
                    } else {
                        0.0
                    }
                })
                .collect();
            rows.push((format!("{} · {}", label(r), m.mode.as_str()), values));
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let svg = stacked_values(
        &Stacked {
            parts: modes
                .iter()
                .map(|m| LegendEntry::new(m.as_str(), mode_color(*m), Shape::Block))
                .collect(),
            rows,
            group_starts,
            x_desc: "handshakes per second, one thread doing both sides",
        },
        &|v| tidy(units::count(v)),
    )?;
    Ok(Some(chart(
        "chart-tls-rate",
        "Handshakes per second on one core",
        "Real TLS 1.3 handshakes over an in-memory transport, one thread running client and \
         server: full handshakes, resumed ones (a session ticket, PSK with (EC)DHE) and those \
         after a HelloRetryRequest."
            .into(),
        svg,
    )))
}

/// The server's and the client's CPU per full handshake, split into the bare key exchange
/// (server: encaps; client: keygen + decaps, measured alone in the same run) and the rest.
pub fn cpu(record: &TlsRecord) -> anyhow::Result<Option<Chart>> {
    let mut rows = Vec::new();
    let mut group_starts = Vec::new();
    for r in measured(record) {
        let (Some(k), Some(full)) = (&r.kem, r.mode(Mode::Full)) else {
            continue;
        };
        group_starts.push(rows.len());
        let server_kex = k.encaps_ns;
        let client_kex = k.keygen_ns + k.decaps_ns;
        rows.push((
            format!("{} · server", label(r)),
            vec![server_kex, (full.server_ns.median - server_kex).max(0.0)],
        ));
        rows.push((
            format!("{} · client", label(r)),
            vec![client_kex, (full.client_ns.median - client_kex).max(0.0)],
        ));
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let svg = stacked_values(
        &Stacked {
            parts: vec![
                LegendEntry::new("key exchange (bare KEM)", PALETTE[1], Shape::Block),
                LegendEntry::new("rest of the handshake", PALETTE[0], Shape::Block),
            ],
            rows,
            group_starts,
            x_desc: "CPU time per full handshake (median)",
        },
        &ns_tick,
    )?;
    Ok(Some(chart(
        "chart-tls-cpu",
        "CPU per full handshake, and the key exchange's part",
        "Each side's median time in its own calls per full handshake. Key exchange: the \
         group's bare operations measured alone in the same run (server: encaps; client: \
         keygen + decaps); the rest is signatures, certificate checks, key schedule, record \
         layer and the stack's own work."
            .into(),
        svg,
    )))
}

/// Bytes of each flight of a full handshake against TCP segments: one bar per flight, dashed
/// lines at every [`MSS`] bytes, a red line at the initial window ([`INITCWND`] segments)
/// when a flight comes near it.
pub fn flights(record: &TlsRecord) -> anyhow::Result<Option<Chart>> {
    let mut rows: Vec<(String, usize, bool)> = Vec::new();
    let mut group_starts = Vec::new();
    for r in measured(record) {
        let Some(full) = r.mode(Mode::Full) else {
            continue;
        };
        group_starts.push(rows.len());
        for f in &full.flights {
            rows.push((
                format!("{} · {}", label(r), f.name),
                f.bytes,
                f.from == "server",
            ));
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let max = rows.iter().map(|r| r.1).max().unwrap_or(0) as f64;
    let segments = (max / MSS as f64).ceil().max(1.0) as usize;
    let hi = (segments as f64 + 0.3) * MSS as f64;
    // A line per segment while they can be told apart, every few beyond.
    let every = segments.div_ceil(12).max(1);
    let ticks: Vec<f64> = (0..=segments)
        .filter(|k| k % every == 0)
        .map(|k| (k * MSS) as f64)
        .collect();
    let labels: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let label_w = label_column_width(&labels);
    let n = rows.len();
    let height = (110 + n as i32 * ROW) as u32;
    let (client, server) = (PALETTE[0], PALETTE[1]);
    let grey = RGBColor(0xaa, 0xaa, 0xaa);
    let red = PALETTE[2];
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut keys = vec![
            LegendEntry::new("client", client, Shape::Block),
            LegendEntry::new("server", server, Shape::Block),
            LegendEntry::new(format!("{MSS}-byte segments"), grey, Shape::Dashed),
        ];
        if hi > (INITCWND * MSS) as f64 {
            keys.push(LegendEntry::new(
                format!("initial window ({INITCWND} segments)"),
                red,
                Shape::Line,
            ));
        }
        legend_row(&root, (label_w + 14, 16), &keys)?;
        let (_, plot) = root.split_vertically(30);
        let centres: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
        let mut c = ChartBuilder::on(&plot)
            .margin(14)
            .margin_top(4)
            .x_label_area_size(40)
            .y_label_area_size(label_w)
            .build_cartesian_2d(
                Ticked::new(0.0, hi, ticks.clone()),
                Ticked::new(0.0, n as f64, centres),
            )
            .map_err(err)?;
        let row = |y: &f64| row_label(&labels, *y);
        let bytes = |x: &f64| units::thousands(*x as u64);
        c.configure_mesh()
            .disable_mesh()
            .x_label_formatter(&bytes)
            .y_label_formatter(&row)
            .x_desc("bytes on the wire (TLS records)")
            .label_style((FONT, SMALL))
            .axis_desc_style((FONT, MEDIUM))
            .draw()
            .map_err(err)?;
        for t in ticks.iter().filter(|t| **t > 0.0) {
            c.draw_series(DashedLineSeries::new(
                vec![(*t, 0.0), (*t, n as f64)],
                3,
                3,
                grey.stroke_width(1),
            ))
            .map_err(err)?;
        }
        for &g in group_starts.iter().filter(|&&g| g > 0) {
            let (right, y) = c.backend_coord(&(hi, (n - g) as f64));
            root.draw(&PathElement::new(
                vec![(8, y), (right, y)],
                RGBColor(0x9a, 0xa3, 0xa9).stroke_width(1),
            ))
            .map_err(err)?;
        }
        for (i, (_, b, from_server)) in rows.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            let color = if *from_server { server } else { client };
            c.draw_series(std::iter::once(Rectangle::new(
                [(0.0, y + 0.15), (*b as f64, y + 0.85)],
                color.filled(),
            )))
            .map_err(err)?;
            let (px, py) = c.backend_coord(&(*b as f64, y + 0.5));
            root.draw(&Text::new(
                format!("{} B", units::thousands(*b as u64)),
                (px + 4, py),
                label_style(SMALL * 0.8, HPos::Left),
            ))
            .map_err(err)?;
        }
        let window = (INITCWND * MSS) as f64;
        if window < hi {
            c.draw_series(std::iter::once(PathElement::new(
                vec![(window, 0.0), (window, n as f64)],
                red.stroke_width(2),
            )))
            .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(Some(chart(
        "chart-tls-flights",
        "Bytes per flight of a full handshake",
        format!(
            "What each side sends before it waits for the other, TLS record headers included; \
             dashed: every {MSS} bytes, one TCP segment at an MTU of 1500. A flight of more \
             than {INITCWND} segments (TCP's initial window) waits a round trip for \
             acknowledgements before the rest is sent."
        ),
        svg,
    )))
}

/// What a network chart puts on its x axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// The round-trip time asked for.
    Rtt,
    /// The packet loss asked for.
    Loss,
}

impl Against {
    /// The point's value on this axis, and on the one held fixed.
    fn values(self, n: &NetPoint) -> (f64, f64) {
        match self {
            Against::Rtt => (n.rtt_ms, n.loss_pct),
            Against::Loss => (n.loss_pct, n.rtt_ms),
        }
    }
}

/// The value of the other variable the points of a network chart share: the most frequent
/// across the run (the smallest of equally frequent ones), so that one line varies one thing.
pub fn held(record: &TlsRecord, against: Against) -> Option<f64> {
    let mut counts: Vec<(f64, usize)> = Vec::new();
    for n in record.results.iter().flat_map(|r| &r.network) {
        let (_, other) = against.values(n);
        match counts.iter_mut().find(|(v, _)| *v == other) {
            Some((_, c)) => *c += 1,
            None => counts.push((other, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.total_cmp(&b.0)));
    counts.first().map(|(v, _)| *v)
}

/// The median handshake time against the RTT (at the most common loss) or the loss (at the
/// most common RTT): one line per benchmark with two or more such points.
pub fn network(record: &TlsRecord, against: Against) -> anyhow::Result<Option<Chart>> {
    let Some(fixed) = held(record, against) else {
        return Ok(None);
    };
    let mut lines: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for r in &record.results {
        let mut pts: Vec<(f64, f64)> = r
            .network
            .iter()
            .filter_map(|n| {
                let (x, other) = against.values(n);
                let t = n.time_ms.as_ref()?;
                (other == fixed).then_some((x, t.median))
            })
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts.dedup_by(|a, b| a.0 == b.0);
        if pts.len() >= 2 {
            lines.push((label(r), pts));
        }
    }
    if lines.is_empty() {
        return Ok(None);
    }
    let xs: Vec<f64> = {
        let mut v: Vec<f64> = lines
            .iter()
            .flat_map(|(_, p)| p.iter().map(|x| x.0))
            .collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    };
    let x_max = xs.last().copied().unwrap_or(1.0).max(1e-9);
    let y_max = lines
        .iter()
        .flat_map(|(_, p)| p.iter().map(|x| x.1))
        .fold(0.0f64, f64::max);
    let (y_hi, y_ticks) = round_axis(y_max * 1.08);
    let keys: Vec<LegendEntry> = lines
        .iter()
        .enumerate()
        .map(|(i, (l, _))| LegendEntry::new(l.clone(), series_color(i), Shape::Line))
        .collect();
    let lw = legend_width(None, &keys);
    let (x_desc, id, title, unit) = match against {
        Against::Rtt => (
            "round-trip time asked for (ms)",
            "chart-tls-rtt",
            "Handshake time against round-trip time",
            format!("at {fixed}% loss"),
        ),
        Against::Loss => (
            "packet loss asked for, each direction (%)",
            "chart-tls-loss",
            "Handshake time against packet loss",
            format!("at an RTT of {fixed} ms"),
        ),
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 380)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, _) = root.split_horizontally(WIDTH as i32 - lw - 8);
        let mut c = ChartBuilder::on(&plot)
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(
                Ticked::new(0.0, x_max * 1.06, {
                    let mut t = vec![0.0];
                    t.extend(xs.iter().copied().filter(|x| *x > 0.0));
                    t
                }),
                Ticked::new(0.0, y_hi, y_ticks),
            )
            .map_err(err)?;
        let ms = |v: &f64| {
            if *v == 0.0 {
                "0".to_string()
            } else {
                ns_tick(*v * 1e6)
            }
        };
        let plain = |v: &f64| format!("{v}");
        c.configure_mesh()
            .x_label_formatter(&plain)
            .y_label_formatter(&ms)
            .x_desc(x_desc)
            .y_desc("median handshake time")
            .label_style((FONT, SMALL))
            .axis_desc_style((FONT, MEDIUM))
            .bold_line_style(RGBColor(0xe4, 0xe4, 0xe4))
            .light_line_style(WHITE)
            .draw()
            .map_err(err)?;
        for (i, (_, pts)) in lines.iter().enumerate() {
            let color = series_color(i);
            c.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(err)?;
            for p in pts {
                draw_shape(&root, c.backend_coord(p), Shape::Circle, 3, color, true)?;
            }
        }
        legend(&root, (WIDTH as i32 - lw, 16), None, &keys)?;
        root.present().map_err(err)?;
    }
    Ok(Some(chart(
        id,
        title,
        format!(
            "Median time from TCP connect to the client's Finished over loopback between \
             network namespaces ({unit}), one line per benchmark; failed handshakes are not in \
             the times (the table below counts them)."
        ),
        svg,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    #[test]
    fn every_chart_of_the_fixture_is_drawn() {
        let r = fixture::tls();
        let rate = rate(&r).unwrap().unwrap();
        assert!(rate
            .svg
            .contains("X25519MLKEM768 · rustls/ecdsa-p256 · hrr"));
        assert!(!rate.svg.contains("MLKEM1024"), "the unavailable group");
        let cpu = cpu(&r).unwrap().unwrap();
        assert!(cpu.svg.contains("· server") && cpu.svg.contains("· client"));
        assert!(
            !cpu.svg.contains("secp256r1"),
            "no bare KEM measured for it"
        );
        let f = flights(&r).unwrap().unwrap();
        assert!(f.svg.contains("15,000 B"), "{}", f.svg);
        assert!(f.svg.contains("initial window (10 segments)"));
        let rtt = network(&r, Against::Rtt).unwrap().unwrap();
        assert!(rtt.caption.contains("at 0% loss"), "{}", rtt.caption);
        let loss = network(&r, Against::Loss).unwrap().unwrap();
        assert!(
            loss.caption.contains("at an RTT of 30 ms"),
            "{}",
            loss.caption
        );
    }

    #[test]
    fn charts_need_something_to_draw() {
        let mut r = fixture::tls();
        r.results.retain(|x| x.unavailable.is_some());
        assert!(rate(&r).unwrap().is_none());
        assert!(cpu(&r).unwrap().is_none());
        assert!(flights(&r).unwrap().is_none());
        assert!(network(&r, Against::Rtt).unwrap().is_none());
        // One point per line is no line.
        let mut one = fixture::tls();
        one.results[0].network.truncate(1);
        assert!(network(&one, Against::Rtt).unwrap().is_none());
    }

    #[test]
    fn the_held_value_is_the_most_common_then_the_smallest() {
        let r = fixture::tls();
        assert_eq!(held(&r, Against::Rtt), Some(0.0));
        assert_eq!(held(&r, Against::Loss), Some(30.0));
    }
}
