//! CPU descriptions of what to draw, and the built-in first scene.

use glam::Vec3;

use crate::camera::Camera;
use crate::gpu_types::Instance;
use crate::mesh::{capsule, ground, MeshData};

/// Static meshes, each drawn for a list of instances.
#[derive(Clone, Debug, Default)]
pub struct StaticScene {
    pub meshes: Vec<MeshData>,
    /// `instances[m]` are the instances of `meshes[m]`; their `type_index`
    /// is overwritten with `m` on upload.
    pub instances: Vec<Vec<Instance>>,
}

impl StaticScene {
    /// Total instances over all meshes.
    pub fn instance_count(&self) -> usize {
        self.instances.iter().map(Vec::len).sum()
    }
}

/// Linear RGB in 0..=1 to packed RGBA8 (alpha opaque), as `unpackUnorm4x8`
/// reads it.
pub fn rgba8(rgb: Vec3) -> u32 {
    let c = (rgb.clamp(Vec3::ZERO, Vec3::ONE) * 255.0).round();
    u32::from_le_bytes([c.x as u8, c.y as u8, c.z as u8, 255])
}

/// The first scene: a ground plane and `count` capsules in two facing
/// formations, red and blue, with a little deterministic variety.
pub fn first_scene(count: u32) -> StaticScene {
    let columns = (count as f32).sqrt().ceil().max(1.0) as u32;
    let spacing = 1.6;
    let mut capsules = Vec::with_capacity(count as usize);
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
        capsules.push(Instance {
            position: [x, 0.0, z],
            heading: if team_blue { -1.57 } else { 1.57 },
            scale: 0.9 + 0.2 * (jitter + 0.5),
            type_index: 0,
            tint: rgba8(base * (0.85 + 0.3 * (jitter + 0.5))),
            params: 0,
        });
    }
    let extent = columns as f32 * spacing + 40.0;
    let ground_instance = Instance {
        position: [0.0, 0.0, 0.0],
        heading: 0.0,
        scale: 1.0,
        type_index: 1,
        tint: rgba8(Vec3::new(0.32, 0.42, 0.22)),
        params: 0,
    };
    StaticScene {
        meshes: vec![capsule(0.3, 1.8, 16, 6), ground(extent, 8)],
        instances: vec![capsules, vec![ground_instance]],
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
