//! The ground texture (`Scene::ground_texture`, `world/ground.rs`): tiled in
//! world X and Z at its scale and sampled where the CPU twin says near the
//! camera, and averaged by its mips far away, where a pixel covers many
//! tiles (no aliasing); on both tiers, validation clean.

use glam::{Vec3, Vec3Swizzles, Vec4Swizzles};
use horde::asset::Texture;
use horde::camera::Camera;
use horde::context::Tier;
use horde::mesh::ground;
use horde::renderer::Environment;
use horde::scene::{static_asset, GroundTexture, Scene};
use horde::world::ground::ground_detail_samples;
use horde::world::PropPlacement;
use horde_tests::{finish, gpu_context, render_scene};

const SIZE: u32 = 128;
/// Checker squares of this many metres: the texture holds 2 × 2 of them.
const SQUARE_METRES: f32 = 1.0;

/// A 64² black and white checker of 32-texel squares, one tile every
/// `2 * SQUARE_METRES`.
fn checker() -> GroundTexture {
    let rgba8 = (0..64 * 64)
        .flat_map(|i| {
            let (x, y) = (i % 64 / 32, i / 64 / 32);
            let c = if (x + y) % 2 == 0 { 255 } else { 0 };
            [c, c, c, 255]
        })
        .collect();
    GroundTexture {
        texture: Texture {
            width: 64,
            height: 64,
            rgba8,
        },
        tile_metres: 2.0 * SQUARE_METRES,
    }
}

fn camera() -> Camera {
    Camera::look_at(Vec3::new(0.3, 2.0, 0.1), Vec3::new(0.3, 0.0, 12.0))
}

/// Where the ray through pixel (x, y) meets the ground (y = 0), if ahead.
fn ground_point(camera: &Camera, (x, y): (u32, u32)) -> Option<Vec3> {
    let inverse = camera.view_projection(1.0).inverse();
    let ndc = (glam::Vec2::new(x as f32, y as f32) + 0.5) / SIZE as f32 * 2.0 - 1.0;
    let at = |depth: f32| {
        let p = inverse * ndc.extend(depth).extend(1.0);
        p.xyz() / p.w
    };
    let (near, farther) = (at(1.0), at(0.5));
    let direction = farther - near;
    let t = -near.y / direction.y;
    (direction.y < 0.0 && t > 0.0).then(|| near + direction * t)
}

fn render(tier: Tier) -> image::RgbaImage {
    let scene = Scene {
        prop_types: vec![static_asset("ground", &ground(2000.0, 4))],
        props: vec![PropPlacement::at_origin(0, Vec3::ONE)],
        ground_prop_types: vec![0],
        ground_texture: Some(checker()),
        ..Scene::default()
    };
    let mut ctx = gpu_context(Some(tier));
    let image = render_scene(
        &mut ctx,
        &scene,
        &camera(),
        |renderer| {
            // Unlit albedo: ambient 1 on an upward normal, no sun, no fog.
            renderer.environment = Environment {
                sun_color: Vec3::ZERO,
                ambient: 1.0,
                fog_density: 0.0,
                ..Environment::default()
            };
        },
        SIZE,
        SIZE,
        1,
        1.0 / 30.0,
    );
    finish(ctx);
    image
}

fn the_ground_texture_tiles_near_and_averages_far(tier: Tier) {
    let image = render(tier);
    let camera = camera();
    let (mut near, mut near_right) = (0, 0);
    let mut far = Vec::new();
    for y in 0..SIZE {
        for x in 0..SIZE {
            let Some(point) = ground_point(&camera, (x, y)) else {
                continue;
            };
            let value = image.get_pixel(x, y)[1];
            let distance = point.distance(camera.position);
            let tile = point.xz() / (2.0 * SQUARE_METRES);
            // The checker's squares at both samples, in halves of a tile.
            let squares = ground_detail_samples(tile).map(|t| t * 2.0);
            let off_edges = squares
                .iter()
                .all(|s| (s - s.round()).abs().min_element() > 0.15);
            if distance < 6.0 && off_edges {
                let white = squares
                    .iter()
                    .filter(|s| (s.x.floor() + s.y.floor()).rem_euclid(2.0) == 0.0)
                    .count();
                let right = match white {
                    0 => value < 60,
                    1 => (150..=225).contains(&value),
                    _ => value > 200,
                };
                near += 1;
                near_right += usize::from(right);
            } else if (150.0..900.0).contains(&distance) {
                far.push(f32::from(value));
            }
        }
    }
    assert!(near > 200, "{tier:?}: only {near} near pixels");
    assert!(
        near_right as f32 >= 0.95 * near as f32,
        "{tier:?}: {near_right} of {near} near pixels show the checker squares under them"
    );
    // Half the light of white is sRGB 188; without mips these pixels
    // would each show one texel, black or white.
    assert!(far.len() > 50, "{tier:?}: only {} far pixels", far.len());
    let mean = far.iter().sum::<f32>() / far.len() as f32;
    let spread = far.iter().map(|v| (v - mean).abs()).fold(0.0, f32::max);
    assert!(
        (170.0..=205.0).contains(&mean) && spread < 30.0,
        "{tier:?}: far ground mean {mean}, largest departure {spread}"
    );
}

#[test]
fn the_ground_texture_tiles_near_and_averages_far_on_desktop() {
    the_ground_texture_tiles_near_and_averages_far(Tier::Desktop);
}

#[test]
fn the_ground_texture_tiles_near_and_averages_far_on_mobile() {
    the_ground_texture_tiles_near_and_averages_far(Tier::Mobile);
}
