//! The stress test's plots, drawn with plotters and the embedded DejaVu
//! Sans: frame time against units per strategy, the baselines' frame time
//! over gpu-driven's, and GPU time per pass, each log-log.

use std::path::Path;

use anyhow::Result;
use horde::renderer::Strategy;
use plotters::prelude::*;

use super::measure::median_of;
use super::report::{ours, pass_names};
use super::{Point, Report};

/// DejaVu Sans, for the plots' text (licence in `assets/fonts/LICENSE`).
const FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// A tick label with three significant digits, without float noise.
fn tick(value: &f64) -> String {
    let magnitude = value.abs().log10().floor();
    let decimals = if magnitude.is_finite() {
        (2.0 - magnitude).clamp(0.0, 6.0) as usize
    } else {
        0
    };
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// A unit count as 500, 10k, 1M.
fn units_tick(value: &f64) -> String {
    if *value >= 1e6 {
        format!("{}M", tick(&(value / 1e6)))
    } else if *value >= 1e3 {
        format!("{}k", tick(&(value / 1e3)))
    } else {
        tick(value)
    }
}

/// The points of the plots: the sweep's first encoding and tier.
fn plotted(report: &Report) -> Vec<&Point> {
    let Some(first) = report.points.first() else {
        return Vec::new();
    };
    report
        .points
        .iter()
        .filter(|p| p.encoding == first.encoding && p.tier == first.tier)
        .collect()
}

fn strategy_color(name: &str) -> RGBColor {
    match name {
        "naive" => RGBColor(214, 39, 40),
        "instanced" => RGBColor(255, 127, 14),
        "cpu-culled" => RGBColor(44, 160, 44),
        _ => RGBColor(31, 119, 180),
    }
}

/// A named line of (units, value) points.
type Line = (String, Vec<(f64, f64)>);
/// A plot panel: its caption and lines.
type Panel = (String, Vec<Line>);

/// Draws `frame_time.png`, `ratio.png` and `passes.png` into `out`.
pub fn plot_all(report: &Report, out: &Path) -> Result<()> {
    // Registering the same font again is harmless.
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| anyhow::anyhow!("the embedded DejaVu Sans is not a usable font"))?;
    let points = plotted(report);
    let mut cameras: Vec<&str> = Vec::new();
    for p in &points {
        if !cameras.contains(&p.camera.as_str()) {
            cameras.push(&p.camera);
        }
    }
    let subtitle = points.first().map_or(String::new(), |p| {
        format!("{}, {}, {}", report.device, p.encoding, p.tier)
    });

    let series = |camera: &str, strategy: &str, value: &dyn Fn(&Point) -> Option<f64>| {
        let mut line: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.camera == camera && p.strategy == strategy)
            .filter_map(|p| {
                value(p)
                    .filter(|v| *v > 0.0)
                    .map(|v| (f64::from(p.units), v))
            })
            .collect();
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        line
    };
    let strategies = Strategy::ALL.map(Strategy::name);

    let frame = |p: &Point| Some(p.frame_ms_median);
    let panels: Vec<Panel> = cameras
        .iter()
        .map(|camera| {
            let lines = strategies
                .iter()
                .map(|s| (s.to_string(), series(camera, s, &frame)))
                .collect();
            (format!("frame ms, {camera} camera"), lines)
        })
        .collect();
    log_log_panels(
        &out.join("frame_time.png"),
        &format!("Frame time against units ({subtitle})"),
        "frame ms (median)",
        &panels,
    )?;

    let ratio = |p: &Point| {
        ours(report, p)
            .filter(|o| o.frame_ms_median > 0.0)
            .map(|o| p.frame_ms_median / o.frame_ms_median)
    };
    let panels: Vec<Panel> = cameras
        .iter()
        .map(|camera| {
            let lines = strategies
                .iter()
                .filter(|s| **s != Strategy::GpuDriven.name())
                .map(|s| (s.to_string(), series(camera, s, &ratio)))
                .collect();
            (format!("baseline / gpu-driven, {camera} camera"), lines)
        })
        .collect();
    log_log_panels(
        &out.join("ratio.png"),
        &format!("How many times faster gpu-driven is ({subtitle})"),
        "frame ms ratio",
        &panels,
    )?;

    let camera = cameras.first().copied().unwrap_or("overview");
    let passes: Vec<String> = pass_names(report);
    let panels: Vec<Panel> = strategies
        .iter()
        .map(|strategy| {
            let lines = passes
                .iter()
                .map(|pass| {
                    let value = |p: &Point| median_of(&p.gpu_ms, pass);
                    (pass.clone(), series(camera, strategy, &value))
                })
                .collect();
            (format!("{strategy}, {camera} camera"), lines)
        })
        .collect();
    log_log_panels(
        &out.join("passes.png"),
        &format!("GPU ms per pass ({subtitle})"),
        "GPU ms (median)",
        &panels,
    )
}

/// One PNG of side-by-side log-log panels, each a set of named lines over
/// units.
fn log_log_panels(path: &Path, title: &str, y_label: &str, panels: &[Panel]) -> Result<()> {
    let columns = panels.len().clamp(1, 2);
    let rows = panels.len().div_ceil(columns).max(1);
    let size = ((640 * columns as u32).max(960), 460 * rows as u32 + 40);
    let root = BitMapBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 22))?;
    let areas = root.split_evenly((rows, columns));
    for ((caption, lines), area) in panels.iter().zip(areas) {
        let all: Vec<(f64, f64)> = lines.iter().flat_map(|(_, l)| l.iter().copied()).collect();
        let (x_min, x_max) = all.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
            (lo.min(p.0), hi.max(p.0))
        });
        let (y_min, y_max) = all.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
            (lo.min(p.1), hi.max(p.1))
        });
        let (x_min, x_max) = if all.is_empty() {
            (1.0, 10.0)
        } else {
            (x_min * 0.8, x_max * 1.25)
        };
        let (y_min, y_max) = if all.is_empty() {
            (0.01, 1.0)
        } else {
            (y_min * 0.5, y_max * 2.0)
        };
        let mut chart = ChartBuilder::on(&area)
            .caption(caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d((x_min..x_max).log_scale(), (y_min..y_max).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("units")
            .y_desc(y_label)
            .x_label_formatter(&units_tick)
            .y_label_formatter(&tick)
            .draw()?;
        for (index, (name, points)) in lines.iter().enumerate() {
            if points.is_empty() {
                continue;
            }
            let color = if Strategy::ALL.iter().any(|s| s.name() == name) {
                strategy_color(name).to_rgba()
            } else {
                Palette99::pick(index).to_rgba()
            };
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
                .label(name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
