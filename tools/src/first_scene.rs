//! The built-in first scene: a ground plane and two facing formations of
//! capsules, red and blue, with a camera that overlooks them. Needs no baked
//! asset, so the viewer (`--first-scene`), the window test and the render
//! tests can draw something on any machine.

use glam::Vec3;
use horde::camera::Camera;
use horde::mesh::{capsule, ground};
use horde::scene::{rgba8, static_asset, Scene};
use horde::world::PropPlacement;

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
    props.push(PropPlacement::at_origin(1, Vec3::new(0.32, 0.42, 0.22)));
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
