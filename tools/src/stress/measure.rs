//! One sweep point measured: warm-up and timed frames, the medians and
//! percentiles of every pass's GPU time and of the CPU's recording, the
//! draw statistics, and with `quality` the image quality after them.

use std::time::Instant;

use anyhow::Result;
use horde::asset::BoneEncoding;
use horde::context::{Context, Tier};
use horde::profiler::{percentile, ScopeStats};
use horde::renderer::{Renderer, Strategy};
use horde::scene::Scene;
use horde::target::Offscreen;

use super::{
    camera_name, Efficiency, Memory, Point, SkipRule, Skipped, SweepOptions, CULL_READ_BYTES,
    CULL_WRITE_BYTES, DT,
};
use crate::crowd::{crowd_camera, CameraPreset};
use crate::quality::{measure_frame, measure_still, quality, Quality, STILL_FRAMES};

pub(super) fn median_of(stats: &[ScopeStats], name: &str) -> Option<f64> {
    stats.iter().find(|s| s.name == name).map(|s| s.median_ms)
}

/// The mean vertex count of LOD `l` over the unit types, per LOD.
pub(super) fn mean_lod_vertices(scene: &Scene) -> Vec<f64> {
    let lods = scene
        .unit_types
        .iter()
        .map(|t| t.lods.len())
        .max()
        .unwrap_or(0);
    (0..lods)
        .map(|lod| {
            let counts: Vec<f64> = scene
                .unit_types
                .iter()
                .filter_map(|t| t.lods.get(lod).or(t.lods.last()))
                .map(|l| l.vertices.len() as f64)
                .collect();
            counts.iter().sum::<f64>() / counts.len().max(1) as f64
        })
        .collect()
}

/// What one sweep point renders with.
pub(super) struct Bench<'a> {
    pub ctx: &'a Context,
    pub options: &'a SweepOptions,
    pub renderer: &'a mut Renderer,
    pub target: &'a Offscreen,
}

impl Bench<'_> {
    /// Renders the warm-up and measured frames from `camera`; returns the
    /// GPU pass statistics and the sorted CPU milliseconds, or why the point
    /// is skipped: its first frame (the first of the warm-up, rendered even
    /// without one) or the rest of its warm-up over the bound.
    fn frames(&mut self, camera: &horde::camera::Camera) -> Result<Result<Sampled, Skip>> {
        let rule = SkipRule {
            max_frame_ms: self.options.max_frame_ms,
        };
        let first_start = Instant::now();
        self.renderer
            .render_offscreen(self.ctx, self.target, camera, DT, false)?;
        self.renderer.finish(self.ctx)?;
        let first_ms = first_start.elapsed().as_secs_f64() * 1e3;
        if let Some(reason) = rule.after_frames("its first frame at this size", first_ms) {
            return Ok(Err(Skip {
                reason,
                frame_ms: first_ms,
            }));
        }
        let rest = self.options.warmup.saturating_sub(1);
        if rest > 0 {
            let warm_start = Instant::now();
            for _ in 0..rest {
                self.renderer
                    .render_offscreen(self.ctx, self.target, camera, DT, false)?;
            }
            self.renderer.finish(self.ctx)?;
            let warm_ms = warm_start.elapsed().as_secs_f64() * 1e3 / f64::from(rest);
            if let Some(reason) =
                rule.after_frames("its warm-up frames at this size (mean)", warm_ms)
            {
                return Ok(Err(Skip {
                    reason,
                    frame_ms: warm_ms,
                }));
            }
        }
        self.renderer.profiler.clear_history();
        let mut cpu_ms = Vec::with_capacity(self.options.frames as usize);
        for _ in 0..self.options.frames {
            self.renderer
                .render_offscreen(self.ctx, self.target, camera, DT, false)?;
            cpu_ms.push(self.renderer.cpu_ms);
        }
        self.renderer.finish(self.ctx)?;
        cpu_ms.sort_by(f64::total_cmp);
        Ok(Ok(Sampled {
            gpu_ms: self.renderer.profiler.stats(),
            cpu_ms,
        }))
    }
}

/// A point skipped after rendering: why, and the frame time that decided.
/// Why a point's own frames skipped it, and the frame that did.
pub(super) struct Skip {
    pub reason: String,
    pub frame_ms: f64,
}

struct Sampled {
    gpu_ms: Vec<ScopeStats>,
    cpu_ms: Vec<f64>,
}

/// Where a point sits in the sweep.
#[derive(Clone, Copy)]
pub(super) struct PointKey {
    pub strategy: Strategy,
    pub units: u32,
    pub camera: CameraPreset,
    pub encoding: BoneEncoding,
    pub tier: Tier,
}

impl PointKey {
    pub(super) fn skipped(&self, reason: String) -> Skipped {
        log::info!(
            "skipping {} at {} units ({}): {reason}",
            self.strategy,
            self.units,
            camera_name(self.camera)
        );
        Skipped {
            strategy: self.strategy.name().to_owned(),
            units: self.units,
            camera: camera_name(self.camera).to_owned(),
            encoding: self.encoding.name().to_owned(),
            tier: self.tier.name().to_owned(),
            reason,
        }
    }
}

/// Measures one point; `Err` inside when it was skipped.
pub(super) fn measure(
    bench: &mut Bench,
    key: PointKey,
    lod_vertices: &[f64],
) -> Result<std::result::Result<Point, Skip>> {
    let camera = crowd_camera(key.camera, key.units);
    bench.renderer.settings.skinning = true;
    let sampled = match bench.frames(&camera)? {
        Ok(sampled) => sampled,
        Err(skip) => return Ok(Err(skip)),
    };
    let renderer = &*bench.renderer;
    let gpu_frame = sampled.gpu_ms.iter().find(|s| s.name == "frame");
    let gpu_frame_ms_median = gpu_frame.map_or(0.0, |s| s.median_ms);
    let cpu_frame_ms_median = percentile(&sampled.cpu_ms, 0.5);
    let visible = renderer.stats.clone();
    let usage = bench.ctx.memory_usage();
    let memory = Memory {
        allocated_bytes: usage.allocated_bytes,
        reserved_bytes: usage.reserved_bytes,
        device_local_usage_bytes: usage.heaps.iter().map(|h| h.usage_bytes).sum(),
    };
    let mut efficiency = Efficiency::default();
    let draw_ms = median_of(&sampled.gpu_ms, "draw");
    let drawn_vertices: f64 = visible
        .units_per_lod
        .iter()
        .zip(lod_vertices)
        .map(|(&units, &vertices)| f64::from(units) * vertices)
        .sum();
    if let Some(draw_ms) = draw_ms.filter(|&ms| ms > 0.0) {
        efficiency.skinned_vertices_per_second = Some(drawn_vertices / (draw_ms / 1e3));
    }
    if key.strategy == Strategy::GpuDriven {
        let instances =
            f64::from(renderer.world.unit_count()) + f64::from(renderer.world.prop_count());
        let visible_instances = f64::from(visible.units_visible() + visible.props_visible());
        let bytes = instances * CULL_READ_BYTES + visible_instances * CULL_WRITE_BYTES;
        if instances > 0.0 {
            efficiency.cull_bytes_per_unit = Some(bytes / instances);
        }
        if let Some(cull_ms) = median_of(&sampled.gpu_ms, "cull").filter(|&ms| ms > 0.0) {
            let bytes_per_second = bytes / (cull_ms / 1e3);
            efficiency.cull_bandwidth_share =
                Some(bytes_per_second / (bench.options.bandwidth_tb_per_s * 1e12));
        }
        if bench.options.static_compare {
            bench.renderer.settings.skinning = false;
            let unskinned = bench.frames(&camera)?;
            bench.renderer.settings.skinning = true;
            if let Ok(unskinned) = unskinned {
                let static_ms = median_of(&unskinned.gpu_ms, "draw");
                efficiency.static_draw_ms = static_ms;
                if let (Some(skinned), Some(unskinned)) = (draw_ms, static_ms) {
                    if unskinned > 0.0 {
                        efficiency.skinned_static_ratio = Some(skinned / unskinned);
                    }
                }
            }
        }
    }
    let quality = match key.strategy {
        Strategy::Naive => None,
        _ if bench.options.quality => Some(measure_quality(bench, &camera)?),
        _ => None,
    };
    let renderer = &*bench.renderer;
    Ok(Ok(Point {
        strategy: key.strategy.name().to_owned(),
        units: key.units,
        camera: camera_name(key.camera).to_owned(),
        encoding: key.encoding.name().to_owned(),
        tier: key.tier.name().to_owned(),
        props: renderer.world.prop_count(),
        gpu_frame_ms_p95: gpu_frame.map_or(0.0, |s| s.p95_ms),
        gpu_frame_ms_median,
        cpu_frame_ms_p95: percentile(&sampled.cpu_ms, 0.95),
        cpu_frame_ms_median,
        frame_ms_median: gpu_frame_ms_median.max(cpu_frame_ms_median),
        gpu_ms: sampled.gpu_ms,
        visible,
        memory,
        efficiency,
        quality,
    }))
}

/// One more frame from `camera`, measured against its reference, then the
/// still-camera sequence (the crowd stands in place: only animation time
/// advances).
fn measure_quality(bench: &mut Bench, camera: &horde::camera::Camera) -> Result<Quality> {
    let (ctx, target) = (bench.ctx, bench.target);
    bench
        .renderer
        .render_offscreen(ctx, target, camera, DT, true)?;
    let image = target.read_rgba()?;
    let frame = measure_frame(ctx, bench.renderer, target, camera, &image)?;
    let still = measure_still(ctx, bench.renderer, target, camera, STILL_FRAMES)?;
    Ok(quality(&frame, still))
}
