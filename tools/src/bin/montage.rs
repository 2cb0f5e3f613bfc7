//! The battle's camera presets at several army sizes, in one labelled
//! picture: for each unit count and camera, `battle --headless` renders the
//! battle 20 s in (600 steps, the last one drawn) into `OUT/CAMERA_UNITS.png`
//! with its report beside it; then the shots are scaled down and tiled, a row
//! per unit count and a column per camera, each labelled, into
//! `OUT/montage.png`.
//!
//! ```text
//! montage --out montage                      # 10k, 1M, 4M x overview, front, ground
//! montage --out montage --tile-only          # re-tile the shots already there
//! montage --out small --units 2000 --width 480 --height 270 --frames 300
//! ```
//!
//! The `battle` binary is the one beside this one unless `--battle` says
//! otherwise; it runs in the working directory (the repository root, where
//! `assets/` is).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context as _, Result};
use clap::Parser;
use horde_bake::output::OutputPath;
use horde_tools::battle::BattleCamera;
use image::imageops::FilterType;
use image::{Rgba, RgbaImage};
use plotters::prelude::*;
use plotters::style::FontStyle;

/// DejaVu Sans, for the labels (licence in `assets/fonts/LICENSE`).
const FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
/// Pixels between tiles and around the picture.
const GUTTER: u32 = 8;

#[derive(Debug, Parser)]
#[command(
    version,
    about = "Render the battle's camera presets at several army sizes and tile them into one labelled PNG"
)]
struct Args {
    /// Folder for the shots, their reports and `montage.png` (created).
    #[arg(long)]
    out: PathBuf,
    /// Unit counts, one row each.
    #[arg(long, value_delimiter = ',', default_values_t = [10_000u32, 1_000_000, 4_000_000],
          value_parser = clap::value_parser!(u32).range(2..=16_000_000))]
    units: Vec<u32>,
    /// Camera presets, one column each.
    #[arg(long, value_enum, value_delimiter = ',',
          default_values_t = [BattleCamera::Overview, BattleCamera::Front, BattleCamera::Ground])]
    cameras: Vec<BattleCamera>,
    /// Size of each shot in pixels.
    #[arg(long, default_value_t = 1920, value_parser = clap::value_parser!(u32).range(16..=16384))]
    width: u32,
    #[arg(long, default_value_t = 1080, value_parser = clap::value_parser!(u32).range(16..=16384))]
    height: u32,
    /// Battle steps (1/30 s each) before the shot; only the last is drawn.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    frames: u32,
    /// Width of a tile in the montage, pixels (its height follows the shots').
    #[arg(long, default_value_t = 640, value_parser = clap::value_parser!(u32).range(64..=4096))]
    tile_width: u32,
    /// The battle binary (default: `battle` beside this one).
    #[arg(long)]
    battle: Option<PathBuf>,
    /// Do not render: tile the shots already in `--out`.
    #[arg(long)]
    tile_only: bool,
}

/// The camera's name on the command line.
fn camera_name(camera: BattleCamera) -> &'static str {
    match camera {
        BattleCamera::Overview => "overview",
        BattleCamera::Front => "front",
        BattleCamera::Ground => "ground",
    }
}

/// `10k`, `1M`, `4M`, `2500`.
fn short_count(units: u32) -> String {
    if units >= 1_000_000 && units % 1_000_000 == 0 {
        format!("{}M", units / 1_000_000)
    } else if units >= 1000 && units % 1000 == 0 {
        format!("{}k", units / 1000)
    } else {
        units.to_string()
    }
}

fn shot_path(out: &Path, camera: BattleCamera, units: u32) -> PathBuf {
    out.join(format!(
        "{}_{}.png",
        camera_name(camera),
        short_count(units)
    ))
}

/// The battle binary: `--battle`, else the one beside this executable.
fn battle_binary(args: &Args) -> Result<PathBuf> {
    if let Some(path) = &args.battle {
        return Ok(path.clone());
    }
    let me = std::env::current_exe().context("where this binary is")?;
    let beside = me.with_file_name(format!("battle{}", std::env::consts::EXE_SUFFIX));
    if !beside.exists() {
        bail!(
            "no battle binary beside {} ({} is missing): build it or give --battle",
            me.display(),
            beside.display()
        );
    }
    Ok(beside)
}

/// Renders one shot with `battle --headless`.
fn render(args: &Args, battle: &Path, camera: BattleCamera, units: u32) -> Result<()> {
    let shot = shot_path(&args.out, camera, units);
    let report = shot.with_extension("json");
    log::info!("rendering {} ({units} units)", shot.display());
    let status = Command::new(battle)
        .args(["--headless", "--units", &units.to_string()])
        .args(["--width", &args.width.to_string()])
        .args(["--height", &args.height.to_string()])
        .args(["--frames", &args.frames.to_string()])
        .args(["--render-every", &args.frames.to_string()])
        .args(["--camera", camera_name(camera)])
        .arg("--screenshot")
        .arg(&shot)
        .arg("--report")
        .arg(&report)
        .status()
        .with_context(|| format!("running {}", battle.display()))?;
    if !status.success() {
        bail!(
            "{} failed ({status}) for --camera {} --units {units}",
            battle.display(),
            camera_name(camera)
        );
    }
    Ok(())
}

/// Tiles the shots, rows by unit count and columns by camera, with labels.
fn tile(args: &Args) -> Result<RgbaImage> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| anyhow::anyhow!("the embedded DejaVu Sans is not a usable font"))?;
    let tile_w = args.tile_width;
    let tile_h = (u64::from(tile_w) * u64::from(args.height) / u64::from(args.width)).max(1) as u32;
    let (columns, rows) = (args.cameras.len() as u32, args.units.len() as u32);
    let width = columns * tile_w + (columns + 1) * GUTTER;
    let height = rows * tile_h + (rows + 1) * GUTTER;
    let mut canvas = RgbaImage::from_pixel(width, height, Rgba([24, 24, 24, 255]));
    let mut labels = Vec::new();
    for (row, &units) in args.units.iter().enumerate() {
        for (column, &camera) in args.cameras.iter().enumerate() {
            let path = shot_path(&args.out, camera, units);
            let shot = image::open(&path)
                .with_context(|| format!("reading {}", path.display()))?
                .to_rgba8();
            let scaled = image::imageops::resize(&shot, tile_w, tile_h, FilterType::Triangle);
            let x = GUTTER + column as u32 * (tile_w + GUTTER);
            let y = GUTTER + row as u32 * (tile_h + GUTTER);
            image::imageops::replace(&mut canvas, &scaled, i64::from(x), i64::from(y));
            labels.push((
                (x, y),
                format!("{} · {} units", camera_name(camera), short_count(units)),
            ));
        }
    }
    // Labels, drawn by plotters over an RGB copy.
    let mut rgb = image::DynamicImage::ImageRgba8(canvas).into_rgb8();
    {
        let backend = BitMapBackend::with_buffer(rgb.as_mut(), (width, height));
        let root = backend.into_drawing_area();
        let size = (tile_h / 14).clamp(12, 48);
        let style = ("sans-serif", size).into_font().color(&WHITE);
        for ((x, y), text) in &labels {
            let (x, y) = (*x as i32, *y as i32);
            let box_w = (text.chars().count() as u32 * size * 11 / 20 + size) as i32;
            let box_h = (size * 3 / 2) as i32;
            root.draw(&Rectangle::new(
                [(x, y), (x + box_w, y + box_h)],
                BLACK.mix(0.6).filled(),
            ))
            .map_err(|err| anyhow::anyhow!("drawing a label: {err}"))?;
            root.draw_text(text, &style, (x + size as i32 / 2, y + size as i32 / 4))
                .map_err(|err| anyhow::anyhow!("drawing a label: {err}"))?;
        }
        root.present()
            .map_err(|err| anyhow::anyhow!("drawing the labels: {err}"))?;
    }
    Ok(image::DynamicImage::ImageRgb8(rgb).into_rgba8())
}

fn main() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args = Args::parse();
    if args.units.is_empty() || args.cameras.is_empty() {
        bail!("--units and --cameras need at least one value each");
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let output = OutputPath::check_image(args.out.join("montage.png"))?;
    if !args.tile_only {
        let battle = battle_binary(&args)?;
        for &units in &args.units {
            for &camera in &args.cameras {
                render(&args, &battle, camera, units)?;
            }
        }
    }
    let montage = tile(&args)?;
    output.write_image(&montage)?;
    println!("wrote {output}");
    Ok(())
}
