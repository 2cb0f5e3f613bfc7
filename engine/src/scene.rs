//! What a renderer starts with: unit and prop types, the units and props
//! placed, and a camera. Includes the built-in first scene.

use glam::Vec3;

use crate::anim::Controller;
use crate::asset::{Asset, AssetKind, Bounds, ErrorReport, Material, MeshLod, Submesh};
use crate::camera::Camera;
use crate::mesh::{capsule, ground, quantize, MeshData};
use crate::world::{PropPlacement, UnitSpawn};

/// Types and initial contents of a world.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    pub unit_types: Vec<Asset>,
    /// One controller per unit type; `None` builds `Controller::humanoid`.
    pub controllers: Vec<Option<Controller>>,
    pub prop_types: Vec<Asset>,
    pub units: Vec<UnitSpawn>,
    pub props: Vec<PropPlacement>,
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
    }
}

/// The first scene: a ground plane and `count` capsules in two facing
/// formations, red and blue, with a little deterministic variety. Capsules
/// and ground are prop types.
pub fn first_scene(count: u32) -> Scene {
    let columns = (count as f32).sqrt().ceil().max(1.0) as u32;
    let spacing = 1.6;
    let mut props = Vec::with_capacity(count as usize + 1);
    for index in 0..count {
        let (row, column) = (index / columns, index % columns);
        let team_blue = column >= columns / 2;
        // A gap between the two armies, with a hash for per-unit jitter.
        let gap = if team_blue { 6.0 } else { -6.0 };
        let hash = index.wrapping_mul(2_654_435_761) >> 16;
        let jitter = (hash % 97) as f32 / 97.0 - 0.5;
        let x = (column as f32 - columns as f32 / 2.0) * spacing + gap + jitter * 0.4;
        let z = (row as f32 - columns as f32 / 2.0) * spacing - jitter * 0.3;
        let base = if team_blue {
            Vec3::new(0.15, 0.3, 0.85)
        } else {
            Vec3::new(0.8, 0.15, 0.12)
        };
        props.push(PropPlacement {
            prop_type: 0,
            position: Vec3::new(x, 0.0, z),
            heading: if team_blue { -1.57 } else { 1.57 },
            scale: 0.9 + 0.2 * (jitter + 0.5),
            tint: rgba8(base * (0.85 + 0.3 * (jitter + 0.5))),
        });
    }
    let extent = columns as f32 * spacing + 40.0;
    props.push(PropPlacement {
        prop_type: 1,
        position: Vec3::ZERO,
        heading: 0.0,
        scale: 1.0,
        tint: rgba8(Vec3::new(0.32, 0.42, 0.22)),
    });
    Scene {
        prop_types: vec![
            static_asset("capsule", &capsule(0.3, 1.8, 16, 6)),
            static_asset("ground", &ground(extent, 8)),
        ],
        props,
        ..Scene::default()
    }
}

/// A camera that overlooks `first_scene(count)` from one flank.
pub fn first_scene_camera(count: u32) -> Camera {
    let side = (count as f32).sqrt().max(4.0) * 1.6;
    Camera::look_at(
        Vec3::new(side * 0.35, side * 0.3, side * 0.75),
        Vec3::new(0.0, 0.0, 0.0),
    )
}
