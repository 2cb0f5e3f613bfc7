//! The stress test's written report: `report.json`, `summary.json` and the
//! Markdown tables of `report.md`.

use std::path::Path;

use anyhow::{Context as _, Result};
use horde::renderer::Strategy;

use super::measure::median_of;
use super::plot::plot_all;
use super::{Point, Report, SummaryRow, CULL_READ_BYTES, CULL_WRITE_BYTES};

/// The rows of `summary.json`.
pub fn summary(report: &Report) -> Vec<SummaryRow> {
    report
        .points
        .iter()
        .map(|p| SummaryRow {
            device: report.device.clone(),
            strategy: p.strategy.clone(),
            units: p.units,
            camera: p.camera.clone(),
            encoding: p.encoding.clone(),
            tier: p.tier.clone(),
            gpu_frame_ms_median: p.gpu_frame_ms_median,
            cpu_frame_ms_median: p.cpu_frame_ms_median,
            frame_ms_median: p.frame_ms_median,
            flip_mean: p.quality.map(|q| q.flip_mean),
            flip_p95: p.quality.map(|q| q.flip_p95),
            coverage_ratio: p.quality.and_then(|q| q.coverage_ratio),
            still_flip_ratio: p.quality.and_then(|q| q.still_flip_ratio),
        })
        .collect()
}

/// The GPU-driven point of the same configuration as `point`.
pub(super) fn ours<'a>(report: &'a Report, point: &Point) -> Option<&'a Point> {
    report.points.iter().find(|p| {
        p.strategy == Strategy::GpuDriven.name()
            && p.units == point.units
            && p.camera == point.camera
            && p.encoding == point.encoding
            && p.tier == point.tier
    })
}

/// `report.md`: the tables of the report.
pub fn markdown(report: &Report) -> String {
    let mut md = String::new();
    let line = |md: &mut String, text: String| {
        md.push_str(&text);
        md.push('\n');
    };
    line(&mut md, "# horde stress test\n".to_owned());
    line(
        &mut md,
        format!(
            "{} ({}), {}, {} x {}, {} measured frames after {} warm-up frames per point.\n",
            report.device,
            report.driver,
            report.date,
            report.width,
            report.height,
            report.frames,
            report.warmup
        ),
    );
    line(&mut md, format!("Command: `{}`\n", report.command));
    line(
        &mut md,
        "Frame time is the larger of the GPU time (the `frame` timestamp scope) and the CPU \
         time (recording and submission); `ratio` is the strategy's frame time over \
         gpu-driven's at the same point (how many times faster ours is).\n"
            .to_owned(),
    );
    line(&mut md, "## Frame time\n".to_owned());
    line(
        &mut md,
        "| strategy | units | camera | encoding | tier | GPU ms (median / p95) | CPU ms (median / p95) | frame ms | ratio | visible units per LOD | memory MiB |".to_owned(),
    );
    line(
        &mut md,
        "|---|---|---|---|---|---|---|---|---|---|---|".to_owned(),
    );
    for p in &report.points {
        let ratio = ours(report, p)
            .filter(|o| o.frame_ms_median > 0.0)
            .map_or("-".to_owned(), |o| {
                format!("{:.2}", p.frame_ms_median / o.frame_ms_median)
            });
        line(
            &mut md,
            format!(
                "| {} | {} | {} | {} | {} | {:.3} / {:.3} | {:.3} / {:.3} | {:.3} | {} | {:?} | {:.0} |",
                p.strategy,
                p.units,
                p.camera,
                p.encoding,
                p.tier,
                p.gpu_frame_ms_median,
                p.gpu_frame_ms_p95,
                p.cpu_frame_ms_median,
                p.cpu_frame_ms_p95,
                p.frame_ms_median,
                ratio,
                p.visible.units_per_lod,
                p.memory.allocated_bytes as f64 / (1024.0 * 1024.0)
            ),
        );
    }
    let passes = pass_names(report);
    line(&mut md, "\n## GPU ms per pass (median)\n".to_owned());
    line(
        &mut md,
        format!(
            "| strategy | units | camera | encoding | tier | {} |",
            passes.join(" | ")
        ),
    );
    line(
        &mut md,
        format!("|---|---|---|---|---|{}", "---|".repeat(passes.len())),
    );
    for p in &report.points {
        let cells: Vec<String> = passes
            .iter()
            .map(|name| median_of(&p.gpu_ms, name).map_or("-".to_owned(), |ms| format!("{ms:.3}")))
            .collect();
        line(
            &mut md,
            format!(
                "| {} | {} | {} | {} | {} | {} |",
                p.strategy,
                p.units,
                p.camera,
                p.encoding,
                p.tier,
                cells.join(" | ")
            ),
        );
    }
    line(&mut md, "\n## Efficiency\n".to_owned());
    line(
        &mut md,
        format!(
            "Cull bytes per instance: {CULL_READ_BYTES} read, plus {CULL_WRITE_BYTES} written per \
             visible one; bandwidth share against {} TB/s. Vertices per second: visible units per \
             LOD × the unit types' mean vertex count at that LOD, over the draw pass's median. \
             Skinned/static: the GPU-driven draw with and without skinning, same instances.\n",
            report.bandwidth_tb_per_s
        ),
    );
    line(
        &mut md,
        "| strategy | units | camera | encoding | tier | cull bytes per instance | cull share of bandwidth | vertices per second (G) | skinned / static draw |".to_owned(),
    );
    line(&mut md, "|---|---|---|---|---|---|---|---|---|".to_owned());
    let optional = |value: Option<f64>, scale: f64, digits: usize| {
        value.map_or("-".to_owned(), |v| format!("{:.*}", digits, v * scale))
    };
    for p in &report.points {
        let e = &p.efficiency;
        line(
            &mut md,
            format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                p.strategy,
                p.units,
                p.camera,
                p.encoding,
                p.tier,
                optional(e.cull_bytes_per_unit, 1.0, 1),
                e.cull_bandwidth_share
                    .map_or("-".to_owned(), |share| format!("{:.2} %", share * 100.0)),
                optional(e.skinned_vertices_per_second, 1e-9, 3),
                optional(e.skinned_static_ratio, 1.0, 2)
            ),
        );
    }
    if report.points.iter().any(|p| p.quality.is_some()) {
        line(&mut md, "\n## Image quality\n".to_owned());
        line(
            &mut md,
            "Against a reference of the same GPU state: every unit a mesh at LOD 0, no far \
             field, 2×2 supersampled. FLIP (LDR, 67 pixels per degree) mean and 95th \
             percentile; coverage: the frame's unit pixels over the reference's; still: mean \
             FLIP between consecutive frames of a still camera, the frame's over the \
             reference's.\n"
                .to_owned(),
        );
        line(
            &mut md,
            "| strategy | units | camera | encoding | tier | FLIP mean | FLIP p95 | coverage | still FLIP (frame / reference) | still ratio |".to_owned(),
        );
        line(
            &mut md,
            "|---|---|---|---|---|---|---|---|---|---|".to_owned(),
        );
        for p in &report.points {
            let Some(q) = &p.quality else { continue };
            line(
                &mut md,
                format!(
                    "| {} | {} | {} | {} | {} | {:.4} | {:.4} | {} | {:.4} / {:.4} | {} |",
                    p.strategy,
                    p.units,
                    p.camera,
                    p.encoding,
                    p.tier,
                    q.flip_mean,
                    q.flip_p95,
                    optional(q.coverage_ratio, 1.0, 3),
                    q.still_flip_mean,
                    q.still_flip_reference_mean,
                    optional(q.still_flip_ratio, 1.0, 3)
                ),
            );
        }
    }
    if !report.skipped.is_empty() {
        line(&mut md, "\n## Skipped\n".to_owned());
        line(
            &mut md,
            "| strategy | units | camera | encoding | tier | why |".to_owned(),
        );
        line(&mut md, "|---|---|---|---|---|---|".to_owned());
        for s in &report.skipped {
            line(
                &mut md,
                format!(
                    "| {} | {} | {} | {} | {} | {} |",
                    s.strategy,
                    s.units,
                    s.camera,
                    s.encoding,
                    s.tier,
                    s.reason.replace('|', "/")
                ),
            );
        }
    }
    md
}

/// The frame's passes in recording order (`Renderer::record`).
const PASS_ORDER: [&str; 9] = [
    "upload",
    "battle",
    "simulate",
    "animate",
    "cull",
    "statistics",
    "bounds",
    "draw",
    "frame",
];

/// Every pass name the points' GPU timings have, in recording order
/// (unknown ones before `frame`, which spans them all).
pub(super) fn pass_names(report: &Report) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for p in &report.points {
        for s in &p.gpu_ms {
            if !names.contains(&s.name) {
                names.push(s.name.clone());
            }
        }
    }
    let rank = |name: &String| {
        PASS_ORDER
            .iter()
            .position(|known| known == name)
            .unwrap_or(PASS_ORDER.len() - 1)
    };
    names.sort_by_key(|name| (rank(name), name == "frame"));
    names
}

/// Writes `report.json`, `summary.json`, `report.md` and the plots into
/// `out`.
pub fn write_outputs(report: &Report, out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let write = |name: &str, text: String| {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
    };
    write("report.json", serde_json::to_string_pretty(report)?)?;
    write(
        "summary.json",
        serde_json::to_string_pretty(&summary(report))?,
    )?;
    write("report.md", markdown(report))?;
    plot_all(report, out)
}
