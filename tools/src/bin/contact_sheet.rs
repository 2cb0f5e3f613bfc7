//! Renders a contact sheet of the generated unit types through the engine's
//! offscreen path: one tile per (unit type, clip), each showing the unit at
//! 0 %, 25 %, 50 % and 75 % of the clip, side by side. Columns are unit types
//! (knight, skeleton), each as its mesh and, beside it where the type has
//! one, as its animated impostor (every unit forced to the impostor LOD);
//! rows are clips in their baked order.
//!
//! ```text
//! contact-sheet -o contact_sheet.png
//! ```

use horde_bake::cache::CacheOptions;
use horde_bake::output::OutputPath;
use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};
use ash::vk;
use clap::Parser;
use glam::Vec3;
use horde::anim::{AnimFields, Controller};
use horde::asset::BoneEncoding;
use horde::camera::Camera;
use horde::context::{Context, ContextDesc};
use horde::gpu_types::{AnimParams, AnimStateDef};
use horde::renderer::Renderer;
use horde::scene::{rgba8, Scene};
use horde::target::Msaa;
use horde::world::UnitSpawn;
use horde_tools::crowd::{unit_types, CrowdOptions};

#[derive(Debug, Parser)]
#[command(
    version,
    about = "Render a contact sheet of every generated unit type in every clip",
    allow_negative_numbers = true
)]
struct Args {
    /// Output image (.png, .jpg or .jpeg).
    #[arg(short, long, default_value = "contact_sheet.png")]
    output: PathBuf,
    /// Width of one tile in pixels.
    #[arg(long, default_value_t = 640, value_parser = clap::value_parser!(u32).range(64..=4096))]
    tile_width: u32,
    /// Height of one tile in pixels.
    #[arg(long, default_value_t = 240, value_parser = clap::value_parser!(u32).range(32..=4096))]
    tile_height: u32,
    /// Use the third-party samples instead of the generated content.
    #[arg(long)]
    samples: bool,
    /// Bake every glTF anew instead of using the baked-asset cache
    /// (`HORDE_CACHE_DIR`, else ~/.cache/horde).
    #[arg(long)]
    no_cache: bool,
    /// Enable the Khronos validation layer.
    #[arg(long)]
    validation: bool,
}

/// Poses shown per clip, as fractions of its duration.
const PHASES: [f32; 4] = [0.0, 0.25, 0.5, 0.75];
/// Metres between the units of a tile.
const SPACING: f32 = 2.2;
/// Metres between tiles: far beyond the draw distance, so a tile's camera
/// sees only its own units.
const TILE_DISTANCE: f32 = 60.0;
/// Draw distance of every tile's camera.
const DRAW_DISTANCE: f32 = 20.0;

fn main() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args = Args::parse();
    let output = OutputPath::check_image(&args.output)?;
    let types = unit_types(&CrowdOptions {
        units: 0,
        encoding: BoneEncoding::Mat3x4F32,
        lod_error: None,
        samples: args.samples,
        seed: 0,
        cache: CacheOptions {
            enabled: !args.no_cache,
            dir: None,
        },
    })?;
    // One frozen state per clip: speed 0 holds the pose the unit is given.
    let controllers: Vec<Option<Controller>> = types
        .iter()
        .map(|asset| {
            let clips = asset.animation.as_ref().map(|a| a.clips.len()).unwrap_or(0);
            Some(Controller {
                states: (0..clips as u32)
                    .map(|clip| AnimStateDef {
                        clip,
                        speed: 0.0,
                        ..AnimStateDef::default()
                    })
                    .collect(),
                transitions: Vec::new(),
                any_state: Vec::new(),
                state_names: (0..clips).map(|clip| format!("clip {clip}")).collect(),
            })
        })
        .collect();
    let rows = types
        .iter()
        .map(|t| t.animation.as_ref().map(|a| a.clips.len()).unwrap_or(0))
        .max()
        .unwrap_or(0);
    if rows == 0 {
        bail!("the unit types have no clips");
    }
    // Unit (type t, clip c, phase p) stands at x = t * tile + p * spacing,
    // z = -c * tile.
    let mut units = Vec::new();
    let mut poses = Vec::new();
    for (type_index, asset) in types.iter().enumerate() {
        let animation = asset
            .animation
            .as_ref()
            .context("a unit type without animation")?;
        for (clip_index, clip) in animation.clips.iter().enumerate() {
            for (phase_index, phase) in PHASES.iter().enumerate() {
                let x = type_index as f32 * TILE_DISTANCE + phase_index as f32 * SPACING;
                units.push(UnitSpawn {
                    unit_type: type_index as u32,
                    team: 0,
                    position: Vec3::new(x, 0.0, -(clip_index as f32) * TILE_DISTANCE),
                    heading: 0.6,
                    scale: 1.8 / asset.bounds.height.max(1e-3),
                    tint: rgba8(Vec3::ONE),
                    params: AnimParams::default(),
                });
                poses.push(AnimFields {
                    state: clip_index as u32,
                    current_clip: clip_index as u32,
                    previous_clip: clip_index as u32,
                    attack_seen: 0,
                    hit_seen: 0,
                    time_current: clip.duration * phase,
                    time_previous: 0.0,
                    blend: 1.0,
                    fade_steps: 0,
                    previous_loops: false,
                });
            }
        }
    }
    let scene = Scene {
        controllers,
        unit_types: types.clone(),
        units,
        ..Scene::default()
    };
    let desc = ContextDesc {
        validation: args.validation || ContextDesc::default().validation,
        ..ContextDesc::default()
    };
    let ctx = Context::new(&desc)?;
    let tile = vk::Extent2D {
        width: args.tile_width,
        height: args.tile_height,
    };
    // The mesh and the impostor of each type.
    let variants = 2;
    let sheet_width = tile.width * types.len() as u32 * variants;
    let sheet_height = tile.height * rows as u32;
    let mut sheet = image::RgbaImage::new(sheet_width, sheet_height);
    let result = (|| -> Result<()> {
        let (mut renderer, target) = Renderer::new_offscreen(&ctx, &scene, tile, Msaa::default())?;
        let ids: Vec<_> = (0..renderer.world.unit_count())
            .map(horde::world::UnitId)
            .collect();
        let states: Vec<_> = ids
            .iter()
            .zip(&poses)
            .map(|(id, pose)| (*id, pose.encode()))
            .collect();
        renderer.world.set_anim_states(&states);
        // Full detail in every tile, and nothing of the neighbouring tiles.
        renderer.settings.lod_bias = 64.0;
        renderer.settings.max_draw_distance = DRAW_DISTANCE;
        let rendered = (|| -> Result<()> {
            for (type_index, asset) in types.iter().enumerate() {
                let clips = asset.animation.as_ref().map(|a| a.clips.len()).unwrap_or(0);
                for clip_index in 0..clips {
                    let center_x = type_index as f32 * TILE_DISTANCE
                        + (PHASES.len() - 1) as f32 * SPACING / 2.0;
                    let z = -(clip_index as f32) * TILE_DISTANCE;
                    let mut camera = Camera::look_at(
                        Vec3::new(center_x, 1.5, z + 4.4),
                        Vec3::new(center_x, 0.8, z),
                    );
                    camera.fov_y = 40f32.to_radians();
                    for variant in 0..variants {
                        let impostor = variant == 1;
                        if impostor && !renderer.has_impostors() {
                            continue;
                        }
                        renderer.settings.impostors = impostor;
                        renderer.settings.far_field_px = 0.0;
                        renderer.settings.impostor_threshold_px = if impostor {
                            1.0e6
                        } else {
                            horde::renderer::DEFAULT_IMPOSTOR_THRESHOLD_PX
                        };
                        renderer.render_offscreen(&ctx, &target, &camera, 0.0, true)?;
                        let image = target.read_rgba()?;
                        image::imageops::replace(
                            &mut sheet,
                            &image,
                            i64::from((type_index as u32 * variants + variant) * tile.width),
                            i64::from(clip_index as u32 * tile.height),
                        );
                    }
                }
            }
            Ok(())
        })();
        drop((renderer, target));
        rendered
    })();
    let validation = ctx.validation_counts();
    drop(ctx);
    result?;
    if validation.errors() > 0 {
        bail!(
            "{} validation errors: {:?}",
            validation.errors(),
            validation.messages()
        );
    }
    output.write_image(&sheet)?;
    let names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
    println!(
        "wrote {} ({}x{}): columns {names:?}, each as mesh then impostor, rows = clips in baked \
         order, poses at {PHASES:?} of each clip",
        args.output.display(),
        sheet_width,
        sheet_height
    );
    Ok(())
}
