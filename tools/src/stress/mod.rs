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
//! ([`SkipRule`], `skip.rs`; a point is measured in `measure.rs`): every
//! point renders one frame first, timed to the end of the GPU's work, and
//! is skipped when that frame, or the mean of the rest of its warm-up, was
//! over the bound. Only the baselines whose frame grows linearly in units
//! by construction (`naive` and `instanced` draw every unit at full
//! detail) are also skipped without rendering, where the size before,
//! scaled linearly, predicts a frame over the bound or failed. The
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
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, Result};
use ash::vk;
use horde::asset::BoneEncoding;
use horde::context::{Context, ContextDesc, Tier};
use horde::profiler::ScopeStats;
use horde::renderer::{DrawStats, Renderer, Strategy};
use horde::target::Msaa;
use horde_bake::cache::CacheOptions;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::crowd::{crowd_scene, CameraPreset, CrowdOptions};
use crate::headless::unit_capacity;
use crate::quality::Quality;

mod measure;
mod plot;
mod report;
mod skip;

pub use plot::plot_all;
pub use report::{markdown, summary, write_outputs};
pub use skip::{linear_in_units, SizeBefore, SkipRule};

use measure::{mean_lod_vertices, measure, Bench, PointKey};

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
