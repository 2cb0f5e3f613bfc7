//! The viewer: two armies of baked, animated units on a field of props, in a
//! window or rendered headless to a PNG and a JSON report.
//!
//! ```text
//! viewer                                        # window: WASD, drag, scroll; H for the HUD
//! viewer --headless --frames 60 --screenshot out.png --report out.json
//! viewer --units 100000 --samples --camera overview
//! ```

use horde_bake::cache::CacheOptions;
use horde_bake::output::OutputPath;
use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};
use ash::vk;
use clap::Parser;
use horde::context::{Context, ContextDesc, Tier};
use horde::profiler::percentile;
use horde::renderer::{DrawStats, Renderer};
use horde::target::Msaa;
use horde_tools::cli::{close_context, Encoding, OnOff, PresentMode};
use horde_tools::crowd::{crowd_camera, crowd_scene, Battle, CameraPreset, CrowdOptions};
use horde_tools::first_scene::{first_scene, first_scene_camera};
use horde_tools::presets::SceneBounds;
use horde_tools::stage::Stage;
use horde_tools::window::{run_window, window_verdict, HudLine, WindowOptions};

#[derive(Debug, Parser)]
#[command(
    version,
    about = "horde viewer: a GPU-driven crowd in a window, or headless to PNG and JSON",
    allow_negative_numbers = true
)]
struct Args {
    /// Render offscreen instead of opening a window.
    #[arg(long)]
    headless: bool,
    /// Frames to render headless (animation advances 1/30 s per frame).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    frames: u32,
    /// Where to write the last headless frame: .png, .jpg or .jpeg.
    #[arg(long)]
    screenshot: Option<PathBuf>,
    /// Where to write the headless run's report (GPU ms per pass, CPU ms, visible units) as JSON.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Width in pixels.
    #[arg(long, default_value_t = 1280, value_parser = clap::value_parser!(u32).range(16..=16384))]
    width: u32,
    /// Height in pixels.
    #[arg(long, default_value_t = 720, value_parser = clap::value_parser!(u32).range(16..=16384))]
    height: u32,
    /// Units in the two armies.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(0..=16_000_000))]
    units: u32,
    /// Bone texture encoding the unit types are baked with.
    #[arg(long, value_enum, default_value_t = Encoding::Mat3x4)]
    encoding: Encoding,
    /// Use the third-party samples in ../shared/gltf-samples (Knight, skeletons, CesiumMan, Fox).
    #[arg(long)]
    samples: bool,
    /// Bake every glTF anew instead of using the baked-asset cache
    /// (`HORDE_CACHE_DIR`, else ~/.cache/horde).
    #[arg(long)]
    no_cache: bool,
    /// Camera preset.
    #[arg(long, value_enum, default_value_t = CameraPreset::Overview)]
    camera: CameraPreset,
    /// Show the foundation's first scene (instanced capsules) instead of the crowd.
    #[arg(long)]
    first_scene: bool,
    /// Colour units and props by LOD.
    #[arg(long)]
    color_by_lod: bool,
    /// LOD bias (as in Unity): above 1 finer LODs reach farther, below 1 coarser LODs come nearer.
    #[arg(long, default_value_t = 1.0)]
    lod_bias: f32,
    /// Nothing farther is drawn (metres).
    #[arg(long, default_value_t = 2000.0)]
    max_distance: f32,
    /// Seed of the army layout and the battle script.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// GPU by index or name substring (also HORDE_DEVICE).
    #[arg(long)]
    device: Option<String>,
    /// Force a feature tier: desktop or mobile (also HORDE_TIER).
    #[arg(long)]
    tier: Option<String>,
    /// Swapchain present mode.
    #[arg(long, value_enum, default_value_t = PresentMode::Fifo)]
    present_mode: PresentMode,
    /// Enable the Khronos validation layer (also HORDE_VALIDATION=1).
    #[arg(long)]
    validation: bool,
    /// The far field (distant units rasterized by a compute shader), where
    /// the device has 64-bit atomics; headless runs (the window uses the
    /// renderer's default, on where supported).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    far_field: OnOff,
    /// Far-field size: units whose bounding sphere spans fewer pixels go to
    /// the far field (default: the renderer's, 12).
    #[arg(long)]
    far_field_px: Option<f32>,
    /// GPU frame budget in milliseconds: the far-field size adapts to it
    /// every frame (headless runs).
    #[arg(long)]
    budget_ms: Option<f32>,
}

fn context_desc(args: &Args) -> Result<ContextDesc> {
    let mut desc = ContextDesc::default();
    desc.validation |= args.validation;
    if let Some(device) = &args.device {
        desc.device = Some(device.clone());
    }
    if let Some(tier) = &args.tier {
        desc.tier = Some(Tier::parse(tier)?);
    }
    Ok(desc)
}

fn check_args(args: &Args) -> Result<()> {
    if !args.headless && (args.screenshot.is_some() || args.report.is_some()) {
        bail!("--screenshot and --report are written by headless runs: add --headless");
    }
    if !(args.lod_bias.is_finite() && args.lod_bias > 0.0) {
        bail!(
            "--lod-bias must be a positive number, not {}",
            args.lod_bias
        );
    }
    if let Some(px) = args.far_field_px {
        if !(px.is_finite() && px >= 0.0) {
            bail!("--far-field-px must be a non-negative number, not {px}");
        }
    }
    if let Some(ms) = args.budget_ms {
        if !(ms.is_finite() && ms > 0.0) {
            bail!("--budget-ms must be a positive number, not {ms}");
        }
    }
    if !(args.max_distance.is_finite() && args.max_distance > 0.0) {
        bail!(
            "--max-distance must be a positive number, not {}",
            args.max_distance
        );
    }
    Ok(())
}

fn scene_and_camera(args: &Args) -> Result<(horde::scene::Scene, horde::camera::Camera)> {
    if args.first_scene {
        return Ok((first_scene(args.units), first_scene_camera(args.units)));
    }
    let encoding = args.encoding.bone_encoding();
    let scene = crowd_scene(&CrowdOptions {
        units: args.units,
        encoding,
        lod_error: None,
        samples: args.samples,
        seed: args.seed,
        cache: CacheOptions {
            enabled: !args.no_cache,
            dir: None,
        },
    })?;
    Ok((scene, crowd_camera(args.camera, args.units)))
}

/// The headless run's report.
#[derive(serde::Serialize)]
struct Report {
    device: String,
    driver: String,
    tier: String,
    units: u32,
    props: u32,
    encoding: String,
    frames: u32,
    width: u32,
    height: u32,
    gpu_ms: Vec<horde::profiler::ScopeStats>,
    cpu_ms_median: f64,
    cpu_ms_p95: f64,
    /// Far-field size in pixels (0: off).
    far_field_px: f32,
    visible: DrawStats,
}

fn run_headless(args: &Args) -> Result<()> {
    // Checked before any work, so a bad path fails now, not after the frames.
    let screenshot = args
        .screenshot
        .as_ref()
        .map(OutputPath::check_image)
        .transpose()?;
    let report_output = args.report.as_ref().map(OutputPath::check).transpose()?;
    let (scene, camera) = scene_and_camera(args)?;
    let ctx = Context::new(&context_desc(args)?)?;
    let extent = vk::Extent2D {
        width: args.width,
        height: args.height,
    };
    let result = (|| -> Result<()> {
        let (mut renderer, target) =
            Renderer::new_offscreen(&ctx, &scene, extent, Msaa::default())?;
        renderer.settings.color_by_lod = args.color_by_lod;
        renderer.settings.lod_bias = args.lod_bias;
        renderer.settings.max_draw_distance = args.max_distance;
        if let Some(px) = args.far_field_px {
            renderer.settings.far_field_px = px;
        }
        if args.far_field == OnOff::Off {
            renderer.settings.far_field_px = 0.0;
        } else {
            renderer.settings.budget_ms = args.budget_ms;
        }
        log::info!(
            "far field: {}",
            if renderer.settings.far_field_px > 0.0 && renderer.has_far_field() {
                format!("on, below {} px", renderer.settings.far_field_px)
            } else if renderer.has_far_field() {
                "off (--far-field off)".to_owned()
            } else {
                "off (the device or tier lacks 64-bit atomics)".to_owned()
            }
        );
        let rendered = (|| -> Result<()> {
            let mut battle = Battle::new(args.seed, &scene);
            let dt = 1.0 / 30.0;
            let mut cpu_ms = Vec::new();
            let warmup = (args.frames / 4).min(30);
            for frame in 0..args.frames {
                if frame == warmup {
                    // Forget the warm-up frames' times, those in flight too.
                    renderer.finish(&ctx)?;
                    renderer.profiler.clear_history();
                }
                battle.step(&mut renderer.world, dt);
                let last = frame + 1 == args.frames;
                renderer.render_offscreen(&ctx, &target, &camera, dt, last)?;
                if frame >= warmup {
                    cpu_ms.push(renderer.cpu_ms);
                }
            }
            // Statistics and GPU times arrive frames late: wait for them, so
            // the report describes the frames that were rendered.
            let stats = renderer.finish(&ctx)?;
            for (name, ms) in renderer.profiler.last_frame() {
                log::info!("gpu {name}: {ms:.3} ms");
            }
            log::info!(
                "visible units per LOD {:?}, props {}",
                stats.units_per_lod,
                stats.props_visible()
            );
            if let Some(output) = &screenshot {
                let image = target.read_rgba()?;
                output.write_image(&image)?;
                println!(
                    "wrote {output} ({}x{}, {} frames)",
                    extent.width, extent.height, args.frames
                );
            }
            if let Some(output) = &report_output {
                cpu_ms.sort_by(f64::total_cmp);
                let report = Report {
                    device: ctx.device_name.clone(),
                    driver: ctx.driver_info.clone(),
                    tier: ctx.tier.name().to_owned(),
                    units: renderer.world.live_units(),
                    props: renderer.world.prop_count(),
                    encoding: renderer.world.encoding.name().to_owned(),
                    frames: args.frames,
                    width: args.width,
                    height: args.height,
                    gpu_ms: renderer.profiler.stats(),
                    cpu_ms_median: percentile(&cpu_ms, 0.5),
                    cpu_ms_p95: percentile(&cpu_ms, 0.95),
                    far_field_px: if renderer.has_far_field() {
                        renderer.settings.far_field_px
                    } else {
                        0.0
                    },
                    visible: stats,
                };
                let json = serde_json::to_string_pretty(&report)?;
                output.write(json.as_bytes())?;
                println!("wrote {output}");
            }
            Ok(())
        })();
        drop((renderer, target));
        rendered
    })();
    let closed = close_context(ctx);
    result?;
    closed
}

fn main() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args = Args::parse();
    check_args(&args)?;
    if args.headless {
        return run_headless(&args).context("headless render failed");
    }
    let present_mode = args.present_mode.vk();
    let (scene, camera) = scene_and_camera(&args)?;
    let scene_bounds = SceneBounds::of_scene(&scene);
    let mut battle = Battle::new(args.seed, &scene);
    let report = run_window(WindowOptions {
        msaa: Msaa::default(),
        quality_every_s: None,
        title: "horde".to_owned(),
        width: args.width,
        height: args.height,
        present_mode,
        context: context_desc(&args)?,
        scene,
        camera,
        scene_bounds,
        stage: Stage::default(),
        script: Vec::new(),
        on_frame: Some(Box::new(move |renderer, dt| {
            battle.step(&mut renderer.world, dt);
            vec![HudLine {
                label: "units alive".to_owned(),
                value: renderer.world.live_units().to_string(),
            }]
        })),
        budget_ms: None,
    })
    .context("window run failed")?;
    log::info!(
        "presented {} frames on {}",
        report.frames_presented,
        report.device_name
    );
    window_verdict(&report)
}
