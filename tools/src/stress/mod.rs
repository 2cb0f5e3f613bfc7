//! The stress test: horde's GPU-driven frame against the baselines users
//! would otherwise pick (`naive`, `instanced`, `cpu-culled`; see
//! `horde::renderer::Strategy`), over unit counts, cameras, bone encodings
//! and feature tiers, all measured in one run on one device.
//!
//! Each point renders the crowd scene (`crowd.rs`) headless with one
//! strategy and one camera, discards warm-up frames, and keeps the median
//! and 95th percentile of every pass's GPU timestamps and of the CPU's
//! recording time. A point's frame time is the larger of the GPU's and the
//! CPU's: whichever is the bottleneck sets the frame rate.
//!
//! A point is skipped where its frame takes longer than `max_frame_ms`
//! ([`SkipRule`]): every point renders one frame first, timed to the end of
//! the GPU's work, and is skipped when that frame, or the mean of the rest
//! of its warm-up, was over the bound. Only the baselines whose frame grows
//! linearly in units by construction (`naive` and `instanced` draw every
//! unit at full detail) are also skipped without rendering, where the size
//! before, scaled linearly, predicts a frame over the bound or failed. The
//! GPU-driven frame and `cpu-culled` are never skipped by prediction:
//! culling, LOD and the far field exist to break that linear model. The
//! report lists every skip and why, as it lists points that failed (a
//! baseline out of memory).
//!
//! With [`SweepOptions::quality`], each point that animates on the GPU
//! (every strategy but `naive`) also measures its image quality after its
//! timings (`quality.rs`): one more frame, its FLIP and unit coverage
//! against a reference replayed from the same GPU state (every unit a mesh
//! at LOD 0, no far field, 2×2 supersampled), and the shimmer of
//! consecutive frames of the still camera against the reference's.
//!
//! Outputs ([`write_outputs`], in `report.rs`; the plots in `plot.rs`):
//! `report.json` (everything), `summary.json`
//! (one row per point: device, strategy, units, camera, GPU, CPU and frame
//! medians), `report.md` (tables) and three plots drawn with plotters and
//! the embedded DejaVu Sans (`assets/fonts/`), so machines without system
//! fonts draw text too: `frame_time.png`, `ratio.png`, `passes.png`. The
//! plots show the first encoding and tier of the sweep.

use std::collections::HashMap;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, Result};
use ash::vk;
use horde::asset::BoneEncoding;
use horde::context::{Context, ContextDesc, Tier};
use horde::profiler::{percentile, ScopeStats};
use horde::renderer::{DrawStats, Renderer, Strategy};
use horde::scene::Scene;
use horde::target::Msaa;
use horde::target::Offscreen;
use horde_bake::cache::CacheOptions;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::crowd::{crowd_camera, crowd_scene, CameraPreset, CrowdOptions};
use crate::headless::unit_capacity;
use crate::quality::{measure_frame, measure_still, quality, Quality, STILL_FRAMES};

mod plot;
mod report;

pub use plot::plot_all;
pub use report::{markdown, summary, write_outputs};

/// Animation time per frame, seconds.
const DT: f32 = 1.0 / 60.0;

/// Bytes the cull pass reads per instance: its info (16), placement (16)
/// and last route (4), as `passes/cull.rs` documents.
const CULL_READ_BYTES: f64 = 36.0;
/// Bytes the cull pass writes per visible instance: its list entry.
const CULL_WRITE_BYTES: f64 = 4.0;

/// What a sweep measures.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    pub units: Vec<u32>,
    pub strategies: Vec<Strategy>,
    pub cameras: Vec<CameraPreset>,
    pub encodings: Vec<BoneEncoding>,
    pub tiers: Vec<Tier>,
    /// Measured frames per point, after `warmup`.
    pub frames: u32,
    pub warmup: u32,
    pub width: u32,
    pub height: u32,
    /// Frames predicted or measured slower than this skip the point.
    pub max_frame_ms: f64,
    /// The device's memory bandwidth, for the cull pass's share of it.
    pub bandwidth_tb_per_s: f64,
    /// Also draw the GPU-driven points unskinned (the skinned/static ratio).
    pub static_compare: bool,
    /// Measure each point's image quality against its reference.
    pub quality: bool,
    /// Let the GPU-driven frame send distant units to the far field (the
    /// baselines have none and draw every unit as a mesh).
    pub far_field: bool,
    /// The GPU-driven frame's impostors (`None`: the renderer's default).
    pub impostors: Option<bool>,
    /// GPU by index or name substring.
    pub device: Option<String>,
    /// Validation layers (slow; for tests).
    pub validation: bool,
    pub cache: CacheOptions,
    pub progress: bool,
}

/// GPU memory when a point was measured.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Memory {
    pub allocated_bytes: u64,
    pub reserved_bytes: u64,
    /// This process's use of the device-local heaps, where the driver says.
    pub device_local_usage_bytes: u64,
}

/// Throughput figures of a point.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Efficiency {
    /// Bytes the cull pass moves per instance (GPU-driven only).
    pub cull_bytes_per_unit: Option<f64>,
    /// The cull pass's bytes over its median time, as a fraction of
    /// `bandwidth_tb_per_s`.
    pub cull_bandwidth_share: Option<f64>,
    /// Unit vertices drawn (per LOD: visible units × the unit types' mean
    /// vertex count) per second of the draw pass's median.
    pub skinned_vertices_per_second: Option<f64>,
    /// The draw pass's median with skinning off (GPU-driven, with
    /// `static_compare`).
    pub static_draw_ms: Option<f64>,
    /// Skinned draw median over the static one.
    pub skinned_static_ratio: Option<f64>,
}

/// One measured point.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Point {
    pub strategy: String,
    pub units: u32,
    pub camera: String,
    pub encoding: String,
    pub tier: String,
    pub props: u32,
    /// GPU milliseconds per pass (the `frame` scope spans them all).
    pub gpu_ms: Vec<ScopeStats>,
    pub gpu_frame_ms_median: f64,
    pub gpu_frame_ms_p95: f64,
    pub cpu_frame_ms_median: f64,
    pub cpu_frame_ms_p95: f64,
    /// The larger of the GPU and CPU medians.
    pub frame_ms_median: f64,
    /// Visible units and props per LOD in the last frame.
    pub visible: DrawStats,
    pub memory: Memory,
    pub efficiency: Efficiency,
    /// Image quality against the LOD 0 reference (with
    /// [`SweepOptions::quality`], every strategy but `naive`).
    #[serde(default)]
    pub quality: Option<Quality>,
}

/// A point not measured, and why.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Skipped {
    pub strategy: String,
    pub units: u32,
    pub camera: String,
    pub encoding: String,
    pub tier: String,
    pub reason: String,
}

/// Everything a sweep found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub command: String,
    pub device: String,
    pub driver: String,
    /// UTC, ISO 8601.
    pub date: String,
    pub width: u32,
    pub height: u32,
    pub frames: u32,
    pub warmup: u32,
    pub max_frame_ms: f64,
    pub bandwidth_tb_per_s: f64,
    pub points: Vec<Point>,
    pub skipped: Vec<Skipped>,
}

/// One row of `summary.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SummaryRow {
    pub device: String,
    pub strategy: String,
    pub units: u32,
    pub camera: String,
    pub encoding: String,
    pub tier: String,
    pub gpu_frame_ms_median: f64,
    pub cpu_frame_ms_median: f64,
    pub frame_ms_median: f64,
    /// The point's [`Quality`] figures, where measured.
    pub flip_mean: Option<f64>,
    pub flip_p95: Option<f64>,
    pub coverage_ratio: Option<f64>,
    pub still_flip_ratio: Option<f64>,
}

/// The camera preset's name in reports.
pub fn camera_name(camera: CameraPreset) -> &'static str {
    match camera {
        CameraPreset::Overview => "overview",
        CameraPreset::Close => "front-line",
    }
}

/// `unix` seconds as an ISO 8601 UTC date and time.
pub fn utc_date(unix: u64) -> String {
    let days = (unix / 86_400) as i64;
    let seconds = unix % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

fn median_of(stats: &[ScopeStats], name: &str) -> Option<f64> {
    stats.iter().find(|s| s.name == name).map(|s| s.median_ms)
}

/// The mean vertex count of LOD `l` over the unit types, per LOD.
fn mean_lod_vertices(scene: &Scene) -> Vec<f64> {
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

/// Whether `strategy`'s frame grows linearly in the unit count by
/// construction: the baselines that draw every unit at full detail. Only
/// these may be skipped by prediction from a smaller size.
pub fn linear_in_units(strategy: Strategy) -> bool {
    matches!(strategy, Strategy::Naive | Strategy::Instanced)
}

/// What the sweep learned of a (strategy, camera) at a smaller size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeBefore {
    /// A frame took `frame_ms` at `units` (measured, or for a point skipped
    /// by prediction, predicted).
    Frame { units: u32, frame_ms: f64 },
    /// The point at `units` failed (a renderer or frame error).
    Failed { units: u32 },
}

/// When the sweep skips a point; see the module doc.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkipRule {
    pub max_frame_ms: f64,
}

impl SkipRule {
    /// Why `strategy` is skipped at `units` without rendering, or `None` to
    /// render it (and let its own frames decide): only a strategy
    /// [`linear_in_units`] is skipped here.
    pub fn before_rendering(
        &self,
        strategy: Strategy,
        units: u32,
        before: Option<SizeBefore>,
    ) -> Option<String> {
        if !linear_in_units(strategy) {
            return None;
        }
        match before? {
            SizeBefore::Frame {
                units: before_units,
                frame_ms,
            } => {
                let predicted = frame_ms * f64::from(units) / f64::from(before_units.max(1));
                (predicted > self.max_frame_ms).then(|| {
                    format!(
                        "predicted {predicted:.0} ms per frame, over the {:.0} ms bound \
                         ({strategy} draws every unit, so its frame grows linearly in units \
                         from {frame_ms:.0} ms at {before_units})",
                        self.max_frame_ms
                    )
                })
            }
            SizeBefore::Failed {
                units: before_units,
            } => Some(format!(
                "failed at {before_units} units, and {strategy} draws every unit"
            )),
        }
    }

    /// Why a point is skipped after `what` took `frame_ms` there, or `None`
    /// to go on measuring it.
    pub fn after_frames(&self, what: &str, frame_ms: f64) -> Option<String> {
        (frame_ms > self.max_frame_ms).then(|| {
            format!(
                "{what} took {frame_ms:.0} ms, over the {:.0} ms bound",
                self.max_frame_ms
            )
        })
    }
}

/// What one sweep point renders with.
struct Bench<'a> {
    ctx: &'a Context,
    options: &'a SweepOptions,
    renderer: &'a mut Renderer,
    target: &'a Offscreen,
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
struct Skip {
    reason: String,
    frame_ms: f64,
}

struct Sampled {
    gpu_ms: Vec<ScopeStats>,
    cpu_ms: Vec<f64>,
}

/// Where a point sits in the sweep.
#[derive(Clone, Copy)]
struct PointKey {
    strategy: Strategy,
    units: u32,
    camera: CameraPreset,
    encoding: BoneEncoding,
    tier: Tier,
}

impl PointKey {
    fn skipped(&self, reason: String) -> Skipped {
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
fn measure(
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

/// A progress bar over `total` points, hidden without `progress`.
fn progress_bar(total: u64, progress: bool) -> ProgressBar {
    if !progress {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} points {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Runs the sweep; `command` is recorded in the report.
pub fn run_sweep(options: &SweepOptions, command: String) -> Result<Report> {
    let mut units = options.units.clone();
    units.sort_unstable();
    units.dedup();
    let total = options.tiers.len()
        * options.encodings.len()
        * units.len()
        * options.strategies.len()
        * options.cameras.len();
    let bar = progress_bar(total as u64, options.progress);
    let mut points = Vec::new();
    let mut skipped = Vec::new();
    let (mut device, mut driver) = (String::new(), String::new());
    for &tier in &options.tiers {
        let desc = ContextDesc {
            app_name: "horde-stress".to_owned(),
            validation: options.validation,
            tier: Some(tier),
            device: options.device.clone(),
            ..ContextDesc::default()
        };
        let ctx = Context::new(&desc).context("creating the Vulkan context")?;
        device.clone_from(&ctx.device_name);
        driver.clone_from(&ctx.driver_info);
        let capacity = unit_capacity(&ctx);
        for &encoding in &options.encodings {
            let rule = SkipRule {
                max_frame_ms: options.max_frame_ms,
            };
            // Per (strategy, camera): what the last size found.
            let mut last: HashMap<(Strategy, &str), SizeBefore> = HashMap::new();
            for &count in &units {
                let key = |strategy, camera| PointKey {
                    strategy,
                    units: count,
                    camera,
                    encoding,
                    tier,
                };
                let every = || {
                    options.strategies.iter().flat_map(|&strategy| {
                        options
                            .cameras
                            .iter()
                            .map(move |&camera| (strategy, camera))
                    })
                };
                if u64::from(count) > capacity {
                    for (strategy, camera) in every() {
                        let reason = format!("{device} holds at most {capacity} units");
                        skipped.push(key(strategy, camera).skipped(reason));
                        bar.inc(1);
                    }
                    continue;
                }
                bar.set_message(format!(
                    "{count} units, {}, {}",
                    encoding.name(),
                    tier.name()
                ));
                let scene = crowd_scene(&CrowdOptions {
                    units: count,
                    encoding,
                    lod_error: None,
                    samples: false,
                    seed: 1,
                    cache: options.cache.clone(),
                })?;
                let lod_vertices = mean_lod_vertices(&scene);
                for &strategy in &options.strategies {
                    let mut cameras = Vec::new();
                    for &camera in &options.cameras {
                        let before = last.get(&(strategy, camera_name(camera))).copied();
                        match rule.before_rendering(strategy, count, before) {
                            Some(reason) => {
                                // Larger sizes extrapolate from this size: its
                                // prediction, or the failure it follows.
                                if let Some(SizeBefore::Frame { units, frame_ms }) = before {
                                    let frame_ms =
                                        frame_ms * f64::from(count) / f64::from(units.max(1));
                                    last.insert(
                                        (strategy, camera_name(camera)),
                                        SizeBefore::Frame {
                                            units: count,
                                            frame_ms,
                                        },
                                    );
                                }
                                skipped.push(key(strategy, camera).skipped(reason));
                                bar.inc(1);
                            }
                            None => cameras.push(camera),
                        }
                    }
                    if cameras.is_empty() {
                        continue;
                    }
                    let extent = vk::Extent2D {
                        width: options.width,
                        height: options.height,
                    };
                    let (mut renderer, target) =
                        match Renderer::new_offscreen(&ctx, &scene, extent, Msaa::default()) {
                            Ok(created) => created,
                            Err(err) => {
                                for camera in cameras {
                                    let reason = format!("renderer not created: {err}");
                                    skipped.push(key(strategy, camera).skipped(reason));
                                    bar.inc(1);
                                }
                                continue;
                            }
                        };
                    renderer.settings.strategy = strategy;
                    if !options.far_field {
                        renderer.settings.far_field_px = 0.0;
                    }
                    if let Some(impostors) = options.impostors {
                        renderer.settings.impostors = impostors;
                    }
                    for camera in cameras {
                        let mut bench = Bench {
                            ctx: &ctx,
                            options,
                            renderer: &mut renderer,
                            target: &target,
                        };
                        match measure(&mut bench, key(strategy, camera), &lod_vertices) {
                            Ok(Ok(point)) => {
                                log::info!(
                                    "{strategy} {count} units {}: frame {:.3} ms (GPU {:.3}, \
                                     CPU {:.3})",
                                    camera_name(camera),
                                    point.frame_ms_median,
                                    point.gpu_frame_ms_median,
                                    point.cpu_frame_ms_median
                                );
                                last.insert(
                                    (strategy, camera_name(camera)),
                                    SizeBefore::Frame {
                                        units: count,
                                        frame_ms: point.frame_ms_median,
                                    },
                                );
                                points.push(point);
                            }
                            Ok(Err(skip)) => {
                                last.insert(
                                    (strategy, camera_name(camera)),
                                    SizeBefore::Frame {
                                        units: count,
                                        frame_ms: skip.frame_ms,
                                    },
                                );
                                skipped.push(key(strategy, camera).skipped(skip.reason));
                            }
                            Err(err) => {
                                last.insert(
                                    (strategy, camera_name(camera)),
                                    SizeBefore::Failed { units: count },
                                );
                                let reason = format!("failed: {err:#}");
                                skipped.push(key(strategy, camera).skipped(reason));
                            }
                        }
                        bar.inc(1);
                    }
                    drop((renderer, target));
                }
            }
        }
        drop(ctx);
    }
    bar.finish_and_clear();
    let unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Ok(Report {
        command,
        device,
        driver,
        date: utc_date(unix),
        width: options.width,
        height: options.height,
        frames: options.frames,
        warmup: options.warmup,
        max_frame_ms: options.max_frame_ms,
        bandwidth_tb_per_s: options.bandwidth_tb_per_s,
        points,
        skipped,
    })
}
