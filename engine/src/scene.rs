//! What a renderer starts with: unit and prop types, the units and props
//! placed, and the simulation that moves them, if any; plus two helpers for
//! building scenes in code: packed RGBA8 tints and one-LOD static prop assets
//! from procedural meshes. Scene content (horde's demo scenes) is application
//! code and lives in `horde_tools`.

use glam::Vec3;

use crate::anim::Controller;
use crate::asset::{Asset, AssetKind, Bounds, ErrorReport, Material, MeshLod, Submesh, Texture};
use crate::gpu_types::AnimParams;
use crate::mesh::{quantize, MeshData};
use crate::simulation::SimulationStart;

/// Types and initial contents of a world.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    pub unit_types: Vec<Asset>,
    /// One controller per unit type; `None` builds `Controller::humanoid`.
    pub controllers: Vec<Option<Controller>>,
    pub prop_types: Vec<Asset>,
    pub units: Vec<UnitSpawn>,
    pub props: Vec<PropPlacement>,
    /// The GPU simulation that moves the units, started once they have
    /// spawned (the battle demo's); `None`: units move by their velocities.
    pub simulation: Option<SimulationStart>,
    /// Prop types that are the ground (indices into `prop_types`): they
    /// receive the sun's shadows and cast none (they would cover every
    /// shadow cascade's map, and gentle hills under a high sun shadow
    /// nothing).
    pub ground_prop_types: Vec<u32>,
    /// A texture tiled over the ground prop types' base colour in world X
    /// and Z, with its mips (`world/ground.rs`); `None`: their own textures
    /// alone.
    pub ground_texture: Option<GroundTexture>,
}

/// A texture repeated over the ground: square, its side a power of two,
/// sRGB RGBA8, one tile every `tile_metres` along world X and Z.
#[derive(Clone, Debug)]
pub struct GroundTexture {
    pub texture: Texture,
    pub tile_metres: f32,
}

/// A unit to spawn.
#[derive(Clone, Copy, Debug)]
pub struct UnitSpawn {
    /// Index among the world's unit types.
    pub unit_type: u32,
    /// Army the unit fights for.
    pub team: u32,
    pub position: Vec3,
    pub heading: f32,
    pub scale: f32,
    /// Packed RGBA8 tint (see `scene::rgba8`).
    pub tint: u32,
    pub params: AnimParams,
}

/// A prop to place.
#[derive(Clone, Copy, Debug)]
pub struct PropPlacement {
    /// Index among the world's prop types.
    pub prop_type: u32,
    pub position: Vec3,
    pub heading: f32,
    pub scale: f32,
    pub tint: u32,
}

impl PropPlacement {
    /// A prop of `prop_type` at the origin, unturned, at scale 1, tinted
    /// `tint` (linear RGB): a scene's ground plane.
    pub fn at_origin(prop_type: u32, tint: Vec3) -> PropPlacement {
        PropPlacement {
            prop_type,
            position: Vec3::ZERO,
            heading: 0.0,
            scale: 1.0,
            tint: rgba8(tint),
        }
    }
}

/// Linear RGB in 0..=1 to packed RGBA8 (alpha opaque), as `unpackUnorm4x8`
/// reads it.
pub fn rgba8(rgb: Vec3) -> u32 {
    let c = (rgb.clamp(Vec3::ZERO, Vec3::ONE) * 255.0).round();
    u32::from_le_bytes([c.x as u8, c.y as u8, c.z as u8, 255])
}

/// A one-LOD static prop asset from a procedural mesh, white material.
pub fn static_asset(name: &str, mesh: &MeshData) -> Asset {
    let (vertices, quant) = quantize(mesh);
    let max = quant.min + quant.extent;
    let center = quant.min + quant.extent * 0.5;
    let radius = mesh
        .positions
        .iter()
        .map(|p| p.distance(center))
        .fold(0.0f32, f32::max);
    Asset {
        name: name.to_owned(),
        kind: AssetKind::Prop,
        bone_names: Vec::new(),
        animation: None,
        lods: vec![MeshLod {
            vertices,
            indices: mesh.indices.clone(),
            submeshes: vec![Submesh {
                first_index: 0,
                index_count: mesh.indices.len() as u32,
                material: 0,
            }],
            error: 0.0,
            box_proxy: false,
            raster_only: false,
        }],
        materials: vec![Material {
            name: "white".to_owned(),
            base_color_factor: [1.0; 4],
            base_color_texture: None,
            ..Material::default()
        }],
        textures: Vec::new(),
        bounds: Bounds {
            quant_min: quant.min.to_array(),
            quant_max: max.to_array(),
            sphere_center: center.to_array(),
            sphere_radius: radius,
            height: quant.extent.y,
        },
        report: ErrorReport::default(),
        impostor: None,
    }
}
