//! The crowd scene the viewer shows: two armies of baked units facing each
//! other on a field of props, and a battle script that gives a few units new
//! orders every frame.
//!
//! Unit and prop types are baked from glTF on first use and then loaded from
//! the bake cache (`horde_bake::cache`), exactly as `bake` would write them:
//! by default the project's own
//! generated content in `assets/`, or with `samples` the third-party models in
//! `../shared/gltf-samples` (Knight, skeletons, CesiumMan, Fox).
//!
//! The battle script changes only the units it picks, so its CPU cost per
//! frame is proportional to the orders given, not to the army size.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use glam::Vec3;
use horde::asset::{Asset, BoneEncoding};
use horde::camera::Camera;
use horde::gpu_types::AnimParams;
use horde::mesh::ground;
use horde::scene::{rgba8, static_asset, Scene};
use horde::world::{PropPlacement, UnitId, UnitSpawn, World};

use horde_bake::cache::{self, CacheOptions};
use horde_bake::BakeOptions;

/// What the crowd scene contains.
#[derive(Clone, Debug)]
pub struct CrowdOptions {
    pub units: u32,
    pub encoding: BoneEncoding,
    /// The bake's LOD error bound (`BakeOptions::lod_target_error`) for the
    /// unit types; the bake's default when `None`.
    pub lod_error: Option<f32>,
    /// Use the third-party sample models instead of the generated content.
    pub samples: bool,
    pub seed: u64,
    /// Where baked glTF files are cached, or not at all (`--no-cache`).
    pub cache: CacheOptions,
}

/// A small deterministic generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0.0..1.0`.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }
}

/// The repository root (where `assets/` is): `HORDE_ROOT`, else the
/// working directory when it holds `assets/`, else the checkout this binary
/// was built in.
pub fn repo_root() -> PathBuf {
    if let Some(root) = std::env::var_os("HORDE_ROOT") {
        return PathBuf::from(root);
    }
    if Path::new("assets/knight.glb").exists() {
        return PathBuf::from(".");
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn bake_unit(path: &Path, libraries: &[&Path], crowd: &CrowdOptions) -> Result<Asset> {
    let default = BakeOptions::default();
    let options = BakeOptions {
        encoding: crowd.encoding,
        lod_target_error: crowd.lod_error.unwrap_or(default.lod_target_error),
        ..default
    };
    let loaded = cache::load_unit(path, libraries, &options, &crowd.cache)
        .with_context(|| format!("baking {}", path.display()))?;
    Ok(loaded.asset)
}

fn bake_prop(path: &Path, cache: &CacheOptions) -> Result<Asset> {
    let loaded = cache::load_prop(path, &BakeOptions::default(), cache)
        .with_context(|| format!("baking {}", path.display()))?;
    Ok(loaded.asset)
}

/// Generated unit types from `assets/`, by file stem.
pub fn generated_unit_types(names: &[&str], options: &CrowdOptions) -> Result<Vec<Asset>> {
    let root = repo_root();
    names
        .iter()
        .map(|name| bake_unit(&root.join(format!("assets/{name}.glb")), &[], options))
        .collect()
}

/// The unit types: the generated knight and skeleton, or the samples.
pub fn unit_types(options: &CrowdOptions) -> Result<Vec<Asset>> {
    let root = repo_root();
    if !options.samples {
        return generated_unit_types(&["knight", "skeleton"], options);
    }
    let samples = root.join("../shared/gltf-samples");
    let knight = samples.join("KayKit_Knight/Knight.glb");
    Ok(vec![
        bake_unit(&knight, &[], options)?,
        bake_unit(
            &samples.join("KayKit_Skeleton_Warrior/Skeleton_Warrior.glb"),
            &[&knight],
            options,
        )?,
        bake_unit(
            &samples.join("KayKit_Skeleton_Minion/skeleton_minion.glb"),
            &[&knight],
            options,
        )?,
        bake_unit(&samples.join("CesiumMan/CesiumMan.glb"), &[], options)?,
        bake_unit(&samples.join("Fox/Fox.glb"), &[], options)?,
    ])
}

/// Unit types from the user's files, through the bake cache. A file without
/// clips of its own takes the others' clips (bound by node name), as the
/// KayKit skeletons take the Knight's.
pub fn models(
    paths: &[PathBuf],
    encoding: BoneEncoding,
    cache: &CacheOptions,
) -> Result<Vec<Asset>> {
    let crowd = CrowdOptions {
        units: 0,
        encoding,
        lod_error: None,
        samples: false,
        seed: 0,
        cache: cache.clone(),
    };
    paths
        .iter()
        .map(|path| {
            let others: Vec<&Path> = paths
                .iter()
                .filter(|other| *other != path)
                .map(PathBuf::as_path)
                .collect();
            // A file without clips of its own fails to bake alone (or bakes
            // without clips): then it takes the others' clips.
            match bake_unit(path, &[], &crowd) {
                Ok(asset)
                    if asset
                        .animation
                        .as_ref()
                        .is_some_and(|a| !a.clips.is_empty()) =>
                {
                    Ok(asset)
                }
                _ if !others.is_empty() => bake_unit(path, &others, &crowd),
                Ok(_) => bail!(
                    "{} has no animation clips, and no other --model to take them from",
                    path.display()
                ),
                Err(err) => Err(err),
            }
        })
        .collect()
}

/// The prop types generated by `gen` in `assets/`.
pub fn prop_types(cache: &CacheOptions) -> Result<Vec<Asset>> {
    let root = repo_root();
    ["rock", "pillar", "banner", "tree", "fence"]
        .iter()
        .map(|name| bake_prop(&root.join(format!("assets/{name}.glb")), cache))
        .collect()
}

/// Spacing between neighbouring units, in metres.
const SPACING: f32 = 1.6;
/// Everything is scaled so that units stand this tall.
const UNIT_HEIGHT: f32 = 1.8;

/// Builds the two armies and the props around them.
pub fn crowd_scene(options: &CrowdOptions) -> Result<Scene> {
    let unit_types = unit_types(options)?;
    let mut prop_types = prop_types(&options.cache)?;
    let scattered_types = prop_types.len() as u32;
    let mut rng = Rng::new(options.seed);
    let per_army = options.units.div_ceil(2).max(1);
    let columns = (per_army as f32).sqrt().ceil().max(1.0) as u32;
    let depth = per_army.div_ceil(columns);
    let half_types = (unit_types.len() as u32).div_ceil(2).max(1);
    let mut units = Vec::with_capacity(options.units as usize);
    for index in 0..options.units {
        let army = index % 2;
        let slot = index / 2;
        let (row, column) = (slot / columns, slot % columns);
        // Army 0 stands at -x facing +x, army 1 at +x facing -x; the front
        // rows are nearest the centre line.
        let side = if army == 0 { -1.0 } else { 1.0 };
        let x = side * (3.0 + row as f32 * SPACING) + (rng.unit() - 0.5) * 0.5;
        let z = (column as f32 - columns as f32 / 2.0) * SPACING + (rng.unit() - 0.5) * 0.5;
        let type_count = unit_types.len() as u32;
        let unit_type = if type_count >= 2 {
            (army * half_types + rng.below(half_types)).min(type_count - 1)
        } else {
            0
        };
        let height = unit_types[unit_type as usize].bounds.height.max(1e-3);
        let front = row < 3;
        let params = if front {
            AnimParams {
                attack_serial: rng.below(16) as u8,
                attack_variant: rng.below(2) as u8,
                ..AnimParams::default()
            }
        } else if row < depth / 3 {
            AnimParams {
                speed: 1.4,
                ..AnimParams::default()
            }
        } else {
            AnimParams::default()
        };
        let team = if army == 0 {
            Vec3::new(0.55, 0.7, 1.0)
        } else {
            Vec3::new(1.0, 0.6, 0.5)
        };
        units.push(UnitSpawn {
            unit_type,
            team: army,
            position: Vec3::new(x, 0.0, z),
            heading: if army == 0 {
                std::f32::consts::FRAC_PI_2
            } else {
                -std::f32::consts::FRAC_PI_2
            },
            scale: UNIT_HEIGHT / height * (0.92 + 0.16 * rng.unit()),
            tint: rgba8(team * (0.85 + 0.15 * rng.unit())),
            params,
        });
    }
    let extent_x = 3.0 + depth as f32 * SPACING + 30.0;
    let extent_z = columns as f32 * SPACING / 2.0 + 30.0;
    let prop_count = (options.units / 25).clamp(40, 40_000);
    let mut props = Vec::with_capacity(prop_count as usize);
    for _ in 0..prop_count {
        let prop_type = rng.below(scattered_types);
        // Props stand around the armies, not inside the formations.
        let mut position = Vec3::new(
            (rng.unit() * 2.0 - 1.0) * extent_x,
            0.0,
            (rng.unit() * 2.0 - 1.0) * extent_z,
        );
        if position.x.abs() < extent_x - 30.0 && position.z.abs() < extent_z - 30.0 {
            position.z = position.z.signum() * (extent_z - 30.0 + rng.unit() * 30.0);
        }
        props.push(scattered_prop(&mut rng, &prop_types, prop_type, position));
    }
    // The field: one flat prop under everything.
    let (ground_texture, tint) = crate::ground_texture::tinted_meadow(options.seed, FIELD_TINT);
    let field = field_prop(&mut prop_types, (extent_x.max(extent_z) + 60.0) * 2.0, tint);
    let ground_prop_types = vec![field.prop_type];
    props.push(field);
    Ok(Scene {
        controllers: vec![None; unit_types.len()],
        unit_types,
        prop_types,
        units,
        props,
        simulation: None,
        ground_prop_types,
        ground_texture: Some(ground_texture),
    })
}

/// A scattered prop of `prop_type` at `position`: trees are made about 6 m
/// tall, every prop gets a random size (±20 %), heading and shade.
pub fn scattered_prop(
    rng: &mut Rng,
    prop_types: &[Asset],
    prop_type: u32,
    position: Vec3,
) -> PropPlacement {
    let height = prop_types[prop_type as usize].bounds.height.max(1e-3);
    let scale = match prop_type {
        3 => 6.0 / height,
        _ => 1.0,
    } * (0.8 + 0.4 * rng.unit());
    PropPlacement {
        prop_type,
        position,
        heading: rng.unit() * std::f32::consts::TAU,
        scale,
        tint: rgba8(Vec3::splat(0.85 + 0.15 * rng.unit())),
    }
}

/// The grass field, `size` metres square, tinted `tint` (packed RGBA8),
/// under everything: its type is appended to `prop_types`.
pub fn field_prop(prop_types: &mut Vec<Asset>, size: f32, tint: u32) -> PropPlacement {
    prop_types.push(static_asset("field", &ground(size, 16)));
    PropPlacement {
        tint,
        ..PropPlacement::at_origin(prop_types.len() as u32 - 1, Vec3::ONE)
    }
}

/// The grass field's colour (linear).
const FIELD_TINT: Vec3 = Vec3::new(0.36, 0.45, 0.24);

/// Camera presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CameraPreset {
    /// High above one flank, looking over both armies.
    Overview,
    /// At head height near the front line.
    Close,
}

/// A camera for `units` units.
pub fn crowd_camera(preset: CameraPreset, units: u32) -> Camera {
    let half_width = ((units as f32 / 2.0).sqrt() * SPACING / 2.0).max(8.0);
    match preset {
        CameraPreset::Overview => Camera::look_at(
            Vec3::new(-half_width * 0.3, half_width * 0.55, half_width * 1.25),
            Vec3::new(0.0, 0.0, half_width * 0.1),
        ),
        CameraPreset::Close => Camera::look_at(Vec3::new(-2.0, 2.2, 9.0), Vec3::new(2.0, 1.0, 0.0)),
    }
}

/// Gives a few random units new orders every frame: attack, take a hit, die,
/// rise again, change pace. It remembers the orders it gave: the units'
/// animation inputs belong to the GPU, so it never reads them back.
#[derive(Clone, Debug)]
pub struct Battle {
    rng: Rng,
    /// Orders per second, per unit.
    pub rate: f32,
    owed: f32,
    /// The last order each unit was given, by unit id.
    orders: Vec<AnimParams>,
}

impl Battle {
    /// A script for the units of `scene`, as spawned.
    pub fn new(seed: u64, scene: &Scene) -> Battle {
        Battle {
            rng: Rng::new(seed ^ 0x00ba_771e),
            rate: 0.25,
            owed: 0.0,
            orders: scene.units.iter().map(|unit| unit.params).collect(),
        }
    }

    /// Issues this frame's orders.
    pub fn step(&mut self, world: &mut World, dt: f32) {
        let count = world.unit_count().min(self.orders.len() as u32);
        if count == 0 {
            return;
        }
        self.owed += self.rate * dt * count as f32;
        let orders = self.owed.floor();
        self.owed -= orders;
        let mut updates = Vec::with_capacity(orders as usize);
        for _ in 0..orders as u32 {
            let id = UnitId(self.rng.below(count));
            let params = &mut self.orders[id.0 as usize];
            let roll = self.rng.unit();
            if params.dead {
                if roll < 0.3 {
                    params.dead = false;
                }
            } else if roll < 0.5 {
                params.attack_serial = params.attack_serial.wrapping_add(1) & 15;
                params.attack_variant = self.rng.below(2) as u8;
            } else if roll < 0.7 {
                params.hit_serial = params.hit_serial.wrapping_add(1) & 15;
            } else if roll < 0.8 {
                params.dead = true;
            } else {
                params.speed = [0.0, 1.4, 3.5][self.rng.below(3) as usize];
            }
            updates.push((id, *params));
        }
        world.set_params(&updates);
    }
}
