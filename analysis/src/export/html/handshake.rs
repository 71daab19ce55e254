//! The handshake section of the HTML report (`certbench handshake --format json` output):
//! handshakes per second per configuration and client stack, latency percentiles, CPU per
//! handshake and memory per idle connection, each as a chart and a table.

use std::fmt::Write;

use plotters::prelude::*;

use super::{band_label, esc, html_table};
use crate::handshake::{
    HandshakeRun, MemoryRun, Results, Table, label, latency_table, memory_table, rows,
    throughput_table,
};

/// Appends the section for `results` to `h` (nothing when there are none).
pub(super) fn section(h: &mut String, results: &Results) {
    if results.is_empty() {
        return;
    }
    h.push_str("<h2>Handshakes</h2>\n");
    h.push_str(
        "<p class=\"note\">Loopback handshakes (TCP connect, TLS handshake with the client verifying the chain, close). \
         Throughput counts handshakes over the run's wall time; latency is one handshake's, from its HDR histogram; \
         CPU is user + system time of each side's process or thread divided by the handshakes.</p>\n",
    );
    if !results.runs.is_empty() {
        throughput(h, &results.runs);
        latency(h, &results.runs);
    }
    if !results.memory.is_empty() {
        memory(h, &results.memory);
    }
}

fn chart(h: &mut String, svg: Option<String>) {
    if let Some(svg) = svg {
        let _ = writeln!(h, "<div class=\"chart\">{svg}</div>");
    }
}

fn throughput(h: &mut String, runs: &[HandshakeRun]) {
    let rows = rows(runs);
    let labels: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
    let values: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|r| {
            vec![
                r.openssl.map(|x| x.per_second),
                r.rustls.map(|x| x.per_second),
            ]
        })
        .collect();
    chart(
        h,
        hbars(
            "Handshakes per second, per client stack (higher is better)",
            "handshakes/s",
            &labels,
            &["OpenSSL".into(), "rustls".into()],
            &values,
        ),
    );
    h.push_str("<h3>Handshakes per second</h3>\n");
    table(h, throughput_table(runs));
}

fn latency(h: &mut String, runs: &[HandshakeRun]) {
    let labels: Vec<String> = runs
        .iter()
        .map(|r| format!("{} · {}", label(runs, r), r.client))
        .collect();
    let pct: Vec<Vec<Option<f64>>> = runs
        .iter()
        .map(|r| vec![Some(r.p50_us), Some(r.p90_us), Some(r.p99_us)])
        .collect();
    chart(
        h,
        hbars(
            "Latency of one handshake: p50, p90, p99 (µs, lower is better)",
            "µs",
            &labels,
            &["p50".into(), "p90".into(), "p99".into()],
            &pct,
        ),
    );
    let cpu: Vec<Vec<Option<f64>>> = runs
        .iter()
        .map(|r| vec![Some(r.client_cpu_us), Some(r.server_cpu_us)])
        .collect();
    chart(
        h,
        hbars(
            "CPU time per handshake, client and server side (µs, lower is better)",
            "µs",
            &labels,
            &["client CPU".into(), "server CPU".into()],
            &cpu,
        ),
    );
    h.push_str("<h3>Latency and CPU per handshake (µs)</h3>\n");
    table(h, latency_table(runs));
    for r in runs
        .iter()
        .filter(|r| r.resumption != "none" && r.resumed < r.handshakes)
    {
        let _ = writeln!(
            h,
            "<p class=\"note\"><strong>Warning:</strong> {} with the {} client: only {} of {} handshakes were resumed; its figures are not those of resumed handshakes.</p>",
            esc(&label(runs, r)),
            esc(&r.client),
            r.resumed,
            r.handshakes
        );
    }
}

fn memory(h: &mut String, runs: &[MemoryRun]) {
    let labels: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{} ↔ {}, {} TLS {}, {} conns, {}",
                r.client, r.server, r.key, r.tls, r.connections, r.allocator
            )
        })
        .collect();
    let values: Vec<Vec<Option<f64>>> = runs
        .iter()
        .map(|r| {
            vec![
                Some(r.client_kib_per_connection),
                Some(r.server_kib_per_connection),
            ]
        })
        .collect();
    chart(
        h,
        hbars(
            "Resident memory per idle connection (KiB, lower is better)",
            "KiB",
            &labels,
            &["client".into(), "server".into()],
            &values,
        ),
    );
    h.push_str("<h3>Memory per idle connection (RSS growth ÷ connections, KiB)</h3>\n");
    table(h, memory_table(runs));
}

fn table(h: &mut String, t: Table) {
    html_table(h, t.header, &t.rows, t.right_from);
}

/// Horizontal grouped bars: one group per row label, one bar per series; a missing value
/// leaves its bar out. The value is written at the end of each bar.
pub(super) fn hbars(
    title: &str,
    unit: &str,
    labels: &[String],
    series: &[String],
    values: &[Vec<Option<f64>>],
) -> Option<String> {
    let xmax = values
        .iter()
        .flatten()
        .flatten()
        .copied()
        .fold(0.0, f64::max)
        * 1.15;
    if labels.is_empty() || xmax <= 0.0 {
        return None;
    }
    let m = series.len();
    let n = labels.len();
    // One empty row's height below the bars holds the legend, so that it hides no bar.
    let rows = n as f64 + 1.0;
    let height = (110 + (n + 1) * (m * 16 + 12)).min(6000) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1100, height)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(330)
            .build_cartesian_2d(0f64..xmax, -1f64..n as f64)
            .ok()?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels((rows as usize) * 2 + 1)
            .y_label_formatter(&|y| band_label(n as f64 - y - 0.5, labels))
            .x_label_formatter(&|x| {
                if xmax >= 100.0 {
                    format!("{x:.0}")
                } else {
                    format!("{x:.1}")
                }
            })
            .x_desc(unit)
            .draw()
            .ok()?;
        let band = 0.8 / m as f64;
        for (j, name) in series.iter().enumerate() {
            let color = Palette99::pick(j).to_rgba();
            let bar = |i: usize| {
                let v = values[i].get(j).copied().flatten()?;
                let top = n as f64 - i as f64 - 0.1 - band * j as f64;
                Some((v, top))
            };
            chart
                .draw_series((0..n).filter_map(bar).map(|(v, top)| {
                    Rectangle::new([(0.0, top), (v, top - band * 0.9)], color.filled())
                }))
                .ok()?
                .label(name.clone())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
            chart
                .draw_series((0..n).filter_map(bar).map(|(v, top)| {
                    let text = if v < 100.0 {
                        format!(" {v:.1}")
                    } else {
                        format!(" {v:.0}")
                    };
                    Text::new(text, (v, top - band * 0.1), ("sans-serif", 11).into_font())
                }))
                .ok()?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .ok()?;
        root.present().ok()?;
    }
    Some(svg)
}
