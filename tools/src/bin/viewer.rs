//! The viewer: opens a window on the scene, or renders it headless to a PNG.
//!
//! ```text
//! viewer                                   # window; drag to orbit, scroll to zoom
//! viewer --headless --frames 8 --screenshot out.png
//! ```

use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};
use ash::vk;
use clap::{Parser, ValueEnum};
use horde::context::{Context, ContextDesc, Tier};
use horde::renderer::Renderer;
use horde::scene::{first_scene, first_scene_camera};
use horde::target::{write_png_atomic, Offscreen, OFFSCREEN_FORMAT};
use horde::window::{run_window, WindowOptions};

#[derive(Clone, Copy, Debug, ValueEnum)]
enum PresentMode {
    Fifo,
    Mailbox,
    Immediate,
}

#[derive(Debug, Parser)]
#[command(
    version,
    about = "horde viewer: a window on the scene, or a headless render to PNG"
)]
struct Args {
    /// Render offscreen instead of opening a window.
    #[arg(long)]
    headless: bool,
    /// Frames to render headless before the screenshot.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    frames: u32,
    /// Where to write the last headless frame as PNG.
    #[arg(long)]
    screenshot: Option<PathBuf>,
    /// Width in pixels.
    #[arg(long, default_value_t = 1280, value_parser = clap::value_parser!(u32).range(1..=16384))]
    width: u32,
    /// Height in pixels.
    #[arg(long, default_value_t = 720, value_parser = clap::value_parser!(u32).range(1..=16384))]
    height: u32,
    /// Instances in the scene.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..=4_000_000))]
    units: u32,
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

fn run_headless(args: &Args) -> Result<()> {
    let mut ctx = Context::new(&context_desc(args)?)?;
    let scene = first_scene(args.units);
    let camera = first_scene_camera(args.units);
    let extent = vk::Extent2D {
        width: args.width,
        height: args.height,
    };
    let result = (|| -> Result<()> {
        let mut renderer = Renderer::new(
            &mut ctx,
            OFFSCREEN_FORMAT,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            &scene,
        )?;
        let target = match Offscreen::new(&mut ctx, renderer.render_pass, extent) {
            Ok(target) => target,
            Err(err) => {
                renderer.destroy(&mut ctx);
                return Err(err.into());
            }
        };
        let rendered = (|| -> Result<()> {
            for frame in 0..args.frames {
                let last = frame + 1 == args.frames;
                renderer.render_offscreen(&mut ctx, &target, &camera, last)?;
            }
            for (name, ms) in renderer.profiler.last_frame() {
                log::info!("gpu {name}: {ms:.3} ms");
            }
            if let Some(path) = &args.screenshot {
                let image = target.read_rgba()?;
                write_png_atomic(&image, path)?;
                println!(
                    "wrote {} ({}x{}, {} frames)",
                    path.display(),
                    extent.width,
                    extent.height,
                    args.frames
                );
            }
            Ok(())
        })();
        renderer.destroy(&mut ctx);
        target.destroy(&mut ctx);
        rendered
    })();
    let leaks = ctx.live_allocations();
    let validation = ctx.validation_counts();
    ctx.destroy();
    result?;
    if !leaks.is_empty() {
        bail!("leaked GPU allocations: {leaks:?}");
    }
    if validation.errors() > 0 {
        bail!(
            "{} validation errors: {:?}",
            validation.errors(),
            validation.messages()
        );
    }
    Ok(())
}

fn main() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args = Args::parse();
    if args.headless {
        return run_headless(&args).context("headless render failed");
    }
    let present_mode = match args.present_mode {
        PresentMode::Fifo => vk::PresentModeKHR::FIFO,
        PresentMode::Mailbox => vk::PresentModeKHR::MAILBOX,
        PresentMode::Immediate => vk::PresentModeKHR::IMMEDIATE,
    };
    let report = run_window(WindowOptions {
        title: "horde".to_owned(),
        width: args.width,
        height: args.height,
        present_mode,
        context: context_desc(&args)?,
        scene: first_scene(args.units),
        camera: first_scene_camera(args.units),
        script: Vec::new(),
    })
    .context("window run failed")?;
    log::info!(
        "presented {} frames on {}",
        report.frames_presented,
        report.device_name
    );
    Ok(())
}
