//! Crowd benchmark: GPU milliseconds per pass and CPU milliseconds per frame
//! over a sweep of unit counts, plus side-by-side comparisons measured in
//! the same run: skinned against static drawing of the same instances, the
//! mat3x4 against the quat16 bone encoding, and (`--far-field both`, the
//! default where the device has it) the frame with the far field on against
//! off at every unit count of the sweep, in alternating blocks.
//!
//! Each measurement renders the viewer's crowd scene headless (overview
//! camera), discards warm-up frames, and reports the median and 95th
//! percentile of the GPU timestamps of every pass. Writes `crowd.json` and
//! `crowd.png` into `--out`.
//!
//! ```text
//! crowd_bench --units 10000,100000,1000000,4000000 --out benches/results/crowd
//! crowd_bench --units 1000000 --far-field both --skip-comparisons --out far
//! ```

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context as _, Result};
use ash::vk;
use clap::Parser;
use horde::asset::BoneEncoding;
use horde::context::{Context, ContextDesc};
use horde::profiler::{percentile, ScopeStats};
use horde::renderer::{DrawStats, Renderer};
use horde_bake::output::OutputPath;
use horde_tools::crowd::{crowd_camera, crowd_scene, CameraPreset, CrowdOptions};
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Parser)]
#[command(
    version,
    about = "GPU-driven crowd benchmark: per-pass GPU ms over unit counts, skinned vs static, mat3x4 vs quat16"
)]
struct Args {
    /// Unit counts of the sweep, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "10000,100000,1000000,4000000"
    )]
    units: Vec<u32>,
    /// Measured frames per configuration (after warm-up).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    frames: u32,
    /// Warm-up frames per configuration.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(3..=10_000))]
    warmup: u32,
    /// Units in the two comparisons.
    #[arg(long, default_value_t = 100_000)]
    compare_units: u32,
    #[arg(long, default_value_t = 1920, value_parser = clap::value_parser!(u32).range(16..=16384))]
    width: u32,
    #[arg(long, default_value_t = 1080, value_parser = clap::value_parser!(u32).range(16..=16384))]
    height: u32,
    /// GPU by index or name substring (also HORDE_DEVICE).
    #[arg(long)]
    device: Option<String>,
    /// The bake's LOD error bound for the unit types (its default when
    /// absent): LOD n may stray this times 2^(n-1) of the model's size. For
    /// comparing against binaries whose bake built other LODs. The bake
    /// checks it.
    #[arg(long)]
    lod_error: Option<f32>,
    /// Output folder for crowd.json (and crowd.png).
    #[arg(long, default_value = "benches/results/crowd")]
    out: PathBuf,
    /// Only draw crowd.png from an existing crowd.json (a machine without
    /// fonts, such as the GPU machine, skips the plot).
    #[arg(long)]
    plot: Option<PathBuf>,
    /// The far field in the sweep: on, off, or both in alternating blocks
    /// (compared frame by frame). Off where the device lacks it.
    #[arg(long, value_enum, default_value_t = FarField::Both)]
    far_field: FarField,
    /// Far-field size in pixels when on (the renderer's default otherwise).
    #[arg(long)]
    far_field_px: Option<f32>,
    /// Measure only the sweep (and its far-field comparison), not the
    /// skinned/static and encoding comparisons.
    #[arg(long)]
    skip_comparisons: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum FarField {
    On,
    Off,
    Both,
}

/// One block of measured frames: skinning and the far field on or off.
#[derive(Clone, Copy, Debug)]
struct Block {
    skinning: bool,
    far_field: bool,
}

/// One measured configuration.
#[derive(Serialize, Deserialize)]
struct Measurement {
    units: u32,
    props: u32,
    encoding: String,
    skinning: bool,
    /// Far-field size in pixels (0: off).
    #[serde(default)]
    far_field_px: f32,
    gpu_ms: Vec<ScopeStats>,
    cpu_ms_median: f64,
    cpu_ms_p95: f64,
    visible: DrawStats,
    /// Units culled per second: units / median cull ms.
    cull_units_per_second: f64,
}

#[derive(Serialize, Deserialize)]
struct Comparison {
    units: u32,
    what: String,
    baseline: String,
    /// Median draw ms of the measured variant over the baseline's.
    draw_ratio: f64,
    measured_draw_ms: f64,
    baseline_draw_ms: f64,
}

#[derive(Serialize, Deserialize)]
struct Results {
    command: String,
    device: String,
    driver: String,
    tier: String,
    unix_time: u64,
    width: u32,
    height: u32,
    frames: u32,
    sweep: Vec<Measurement>,
    comparisons: Vec<Comparison>,
}

fn results(
    ctx: &Context,
    args: &Args,
    sweep: Vec<Measurement>,
    comparisons: Vec<Comparison>,
) -> Results {
    Results {
        command: std::env::args().collect::<Vec<_>>().join(" "),
        device: ctx.device_name.clone(),
        driver: ctx.driver_info.clone(),
        tier: ctx.tier.name().to_owned(),
        unix_time: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        width: args.width,
        height: args.height,
        frames: args.frames,
        sweep,
        comparisons,
    }
}

fn median_of(stats: &[ScopeStats], name: &str) -> f64 {
    stats
        .iter()
        .find(|s| s.name == name)
        .map_or(0.0, |s| s.median_ms)
}

/// Renders `frames` measured frames of a crowd of `units` and reports.
fn measure(
    ctx: &mut Context,
    args: &Args,
    units: u32,
    encoding: BoneEncoding,
    blocks: &[Block],
) -> Result<Vec<Measurement>> {
    log::info!("measuring {units} units, {}", encoding.name());
    let scene = crowd_scene(&CrowdOptions {
        units,
        encoding,
        lod_error: args.lod_error,
        samples: false,
        seed: 1,
        cache: horde_bake::cache::CacheOptions::default(),
    })?;
    let camera = crowd_camera(CameraPreset::Overview, units);
    let extent = vk::Extent2D {
        width: args.width,
        height: args.height,
    };
    let (mut renderer, target) = Renderer::new_offscreen(ctx, &scene, extent, Default::default())?;
    let result = (|| -> Result<Vec<Measurement>> {
        let dt = 1.0 / 60.0;
        let mut measurements = Vec::new();
        let far_field_px = match args.far_field_px {
            Some(px) => px,
            None => renderer.settings.far_field_px,
        };
        for &Block {
            skinning,
            far_field,
        } in blocks
        {
            renderer.settings.skinning = skinning;
            renderer.settings.far_field_px = if far_field && renderer.has_far_field() {
                far_field_px
            } else {
                0.0
            };
            for _ in 0..args.warmup {
                renderer.render_offscreen(ctx, &target, &camera, dt, false)?;
            }
            // Forget the warm-up frames' times, those in flight too.
            renderer.finish(ctx)?;
            renderer.profiler.clear_history();
            let mut cpu_ms = Vec::with_capacity(args.frames as usize);
            for frame in 0..args.frames {
                let last = frame + 1 == args.frames;
                renderer.render_offscreen(ctx, &target, &camera, dt, last)?;
                cpu_ms.push(renderer.cpu_ms);
            }
            // Statistics and GPU times arrive frames late: wait for them.
            let visible = renderer.finish(ctx)?;
            cpu_ms.sort_by(f64::total_cmp);
            let gpu_ms = renderer.profiler.stats();
            let cull_ms = median_of(&gpu_ms, "cull");
            measurements.push(Measurement {
                units: renderer.world.live_units(),
                props: renderer.world.prop_count(),
                encoding: encoding.name().to_owned(),
                skinning,
                far_field_px: renderer.settings.far_field_px,
                cull_units_per_second: if cull_ms > 0.0 {
                    f64::from(units) / (cull_ms / 1e3)
                } else {
                    0.0
                },
                gpu_ms,
                cpu_ms_median: percentile(&cpu_ms, 0.5),
                cpu_ms_p95: percentile(&cpu_ms, 0.95),
                visible,
            });
        }
        Ok(measurements)
    })();
    drop((renderer, target));
    result
}

/// A font for the plot's text, from the usual place on Debian and Ubuntu.
const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// The plot's size in pixels.
const PLOT_SIZE: (u32, u32) = (1200, 520);

/// Draws the plot of `results` and writes it to `output`.
fn plot(results: &Results, output: &OutputPath) -> Result<()> {
    let mut pixels = vec![0u8; (PLOT_SIZE.0 * PLOT_SIZE.1 * 3) as usize];
    draw_plot(results, &mut pixels)?;
    let image = image::RgbImage::from_raw(PLOT_SIZE.0, PLOT_SIZE.1, pixels)
        .ok_or_else(|| anyhow::anyhow!("the plot buffer does not match its size"))?;
    output.write_image(&image::DynamicImage::ImageRgb8(image).into_rgba8())?;
    Ok(())
}

/// Draws the plot of `results` into RGB8 `pixels` of [`PLOT_SIZE`].
fn draw_plot(results: &Results, pixels: &mut [u8]) -> Result<()> {
    let font = std::fs::read(FONT).with_context(|| {
        format!("reading the plot font {FONT} (apt-get install fonts-dejavu-core)")
    })?;
    let font: &'static [u8] = Box::leak(font.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, font)
        .map_err(|_| anyhow::anyhow!("{FONT} is not a usable font"))?;
    let root = BitMapBackend::with_buffer(pixels, PLOT_SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(640);
    // One point per unit count: the first block measured (far field off
    // when both were measured).
    let mut sweep: Vec<&Measurement> = Vec::new();
    for m in &results.sweep {
        if !sweep.iter().any(|s| s.units == m.units) {
            sweep.push(m);
        }
    }
    let max_units = sweep.iter().map(|m| m.units).max().unwrap_or(10).max(10) as f64;
    let min_units = sweep.iter().map(|m| m.units).min().unwrap_or(1).max(1) as f64;
    let passes = ["upload", "animate", "cull", "draw"];
    let max_ms = sweep
        .iter()
        .flat_map(|m| m.gpu_ms.iter().map(|s| s.median_ms))
        .fold(0.01f64, f64::max);
    let mut chart = ChartBuilder::on(&left)
        .caption(
            format!("GPU ms per pass ({})", results.device),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (min_units * 0.8..max_units * 1.25).log_scale(),
            (0.001f64..max_ms * 2.0).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("units")
        .y_desc("median ms")
        .draw()?;
    for (index, pass) in passes.iter().enumerate() {
        let color = Palette99::pick(index).to_rgba();
        let points: Vec<(f64, f64)> = sweep
            .iter()
            .map(|m| (f64::from(m.units), median_of(&m.gpu_ms, pass).max(0.001)))
            .collect();
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
            .label(*pass)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;

    let max_cpu = sweep.iter().map(|m| m.cpu_ms_p95).fold(0.1f64, f64::max);
    let mut cpu = ChartBuilder::on(&right)
        .caption("CPU ms per frame (median, p95)", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(
            (min_units * 0.8..max_units * 1.25).log_scale(),
            0f64..max_cpu * 1.3,
        )?;
    cpu.configure_mesh().x_desc("units").y_desc("ms").draw()?;
    let median: Vec<(f64, f64)> = sweep
        .iter()
        .map(|m| (f64::from(m.units), m.cpu_ms_median))
        .collect();
    let p95: Vec<(f64, f64)> = sweep
        .iter()
        .map(|m| (f64::from(m.units), m.cpu_ms_p95))
        .collect();
    cpu.draw_series(LineSeries::new(median, BLUE.stroke_width(2)))?
        .label("median")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
    cpu.draw_series(LineSeries::new(p95, RED.stroke_width(2)))?
        .label("p95")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    cpu.configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

fn main() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args = Args::parse();
    if let Some(json) = &args.plot {
        let text =
            std::fs::read_to_string(json).with_context(|| format!("reading {}", json.display()))?;
        let results: Results =
            serde_json::from_str(&text).with_context(|| format!("parsing {}", json.display()))?;
        let png = OutputPath::check_image(json.with_extension("png"))?;
        plot(&results, &png)?;
        println!("wrote {png}");
        return Ok(());
    }
    if args.units.is_empty() || args.units.iter().any(|&n| n == 0 || n > 16_000_000) {
        bail!("--units must list counts in 1..=16000000");
    }
    let mut desc = ContextDesc::default();
    if let Some(device) = &args.device {
        desc.device = Some(device.clone());
    }
    // Checked before the sweep, so a bad folder fails now, not after it.
    let json_output = OutputPath::check(args.out.join("crowd.json"))?;
    let plot_output = OutputPath::check_image(args.out.join("crowd.png"))?;
    let mut ctx = Context::new(&desc)?;
    let result = (|| -> Result<Results> {
        let mut sweep = Vec::new();
        let mut comparisons = Vec::new();
        let block = |far_field| Block {
            skinning: true,
            far_field,
        };
        let far_blocks = match args.far_field {
            FarField::On => vec![block(true)],
            FarField::Off => vec![block(false)],
            FarField::Both => vec![block(false), block(true), block(false), block(true)],
        };
        for &units in &args.units {
            let measured = measure(&mut ctx, &args, units, BoneEncoding::Mat3x4F32, &far_blocks)?;
            let frame = |on: bool| {
                let values: Vec<f64> = measured
                    .iter()
                    .filter(|m| (m.far_field_px > 0.0) == on)
                    .map(|m| median_of(&m.gpu_ms, "frame"))
                    .collect();
                values.iter().sum::<f64>() / values.len().max(1) as f64
            };
            if args.far_field == FarField::Both && measured.iter().any(|m| m.far_field_px > 0.0) {
                let (on, off) = (frame(true), frame(false));
                comparisons.push(Comparison {
                    units,
                    what: "frame GPU ms, far field on".to_owned(),
                    baseline: "frame GPU ms, far field off (all units meshes)".to_owned(),
                    draw_ratio: on / off.max(1e-9),
                    measured_draw_ms: on,
                    baseline_draw_ms: off,
                });
            }
            sweep.extend(measured);
        }
        if args.skip_comparisons {
            return Ok(results(&ctx, &args, sweep, comparisons));
        }
        // The same instances drawn skinned and static, alternating blocks.
        let blocks = measure(
            &mut ctx,
            &args,
            args.compare_units,
            BoneEncoding::Mat3x4F32,
            &[false, true, false, true].map(|static_draw| Block {
                skinning: !static_draw,
                far_field: false,
            }),
        )?;
        let draw = |skinning: bool| {
            let values: Vec<f64> = blocks
                .iter()
                .filter(|m| m.skinning == skinning)
                .map(|m| median_of(&m.gpu_ms, "draw"))
                .collect();
            values.iter().sum::<f64>() / values.len().max(1) as f64
        };
        let (skinned, static_ms) = (draw(true), draw(false));
        comparisons.push(Comparison {
            units: args.compare_units,
            what: "skinned draw (mat3x4)".to_owned(),
            baseline: "static draw of the same instances".to_owned(),
            draw_ratio: skinned / static_ms.max(1e-9),
            measured_draw_ms: skinned,
            baseline_draw_ms: static_ms,
        });
        let quat = measure(
            &mut ctx,
            &args,
            args.compare_units,
            BoneEncoding::QuatF16,
            &[block(false)],
        )?;
        let quat_ms = median_of(&quat[0].gpu_ms, "draw");
        comparisons.push(Comparison {
            units: args.compare_units,
            what: "skinned draw (quat16)".to_owned(),
            baseline: "skinned draw (mat3x4)".to_owned(),
            draw_ratio: quat_ms / skinned.max(1e-9),
            measured_draw_ms: quat_ms,
            baseline_draw_ms: skinned,
        });
        Ok(results(&ctx, &args, sweep, comparisons))
    })();
    drop(ctx);
    let results = result?;
    json_output.write(serde_json::to_string_pretty(&results)?.as_bytes())?;
    if let Err(err) = plot(&results, &plot_output) {
        log::warn!("plot not written: {err}");
    }
    for m in &results.sweep {
        println!(
            "{:>8} units, far field {} px: {} | cpu {:.3} ms (p95 {:.3}; recording per pass {}) | \
             visible per LOD {:?}, far field {}",
            m.units,
            m.far_field_px,
            m.gpu_ms
                .iter()
                .map(|s| format!("{} {:.3}/{:.3}", s.name, s.median_ms, s.p95_ms))
                .collect::<Vec<_>>()
                .join(", "),
            m.cpu_ms_median,
            m.cpu_ms_p95,
            m.gpu_ms
                .iter()
                .map(|s| format!("{} {:.4}", s.name, s.cpu_median_ms))
                .collect::<Vec<_>>()
                .join(", "),
            m.visible.units_per_lod,
            m.visible.units_far_field
        );
    }
    for c in &results.comparisons {
        println!(
            "{} units: {} / {} = {:.3} ({:.3} ms / {:.3} ms)",
            c.units, c.what, c.baseline, c.draw_ratio, c.measured_draw_ms, c.baseline_draw_ms
        );
    }
    println!("wrote {json_output} and {plot_output}");
    Ok(())
}
