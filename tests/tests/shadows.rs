//! The sun's shadows on both tiers: a prop's and a unit's shadow fall on
//! the ground where the CPU predicts (along the sun's rays,
//! `horde::shadow::shadow_on_ground`), and nowhere else; validation clean.

use glam::{Vec3, Vec4Swizzles};
use horde::camera::Camera;
use horde::context::Tier;
use horde::gpu_types::AnimParams;
use horde::mesh::{ground, sphere};
use horde::renderer::Environment;
use horde::scene::{rgba8, static_asset, Scene, UnitSpawn};
use horde::shadow::shadow_on_ground;
use horde::world::PropPlacement;
use horde_tests::{baked_knight, finish, gpu_context, render_scene};

const SIZE: u32 = 160;
/// Towards the sun: low in the +x sky, so shadows fall a few metres to -x.
const SUN: Vec3 = Vec3::new(0.6, 0.8, 0.0);
/// The floating ball's centre, and the knight's chest (scale 2).
const BALL: Vec3 = Vec3::new(-2.0, 4.0, 3.0);
const KNIGHT: Vec3 = Vec3::new(4.0, 0.0, -3.0);
const KNIGHT_SCALE: f32 = 2.0;
const CHEST_HEIGHT: f32 = 1.1 * KNIGHT_SCALE;

/// Ground (type 0, the scene's ground: it casts nothing), a ball floating
/// above it (type 1) and a knight standing on it.
fn scene() -> Scene {
    let prop = |prop_type, position, scale| PropPlacement {
        prop_type,
        position,
        heading: 0.0,
        scale,
        tint: rgba8(Vec3::splat(0.8)),
    };
    Scene {
        unit_types: vec![baked_knight()],
        controllers: vec![None],
        prop_types: vec![
            static_asset("ground", &ground(100.0, 4)),
            static_asset("ball", &sphere(24, 16)),
        ],
        units: vec![UnitSpawn {
            unit_type: 0,
            team: 0,
            position: KNIGHT,
            heading: 0.0,
            scale: KNIGHT_SCALE,
            tint: rgba8(Vec3::ONE),
            params: AnimParams::default(),
        }],
        props: vec![prop(0, Vec3::ZERO, 1.0), prop(1, BALL, 2.0)],
        ground_prop_types: vec![0],
        ..Scene::default()
    }
}

/// The camera high above, looking down.
fn camera() -> Camera {
    Camera::look_at(Vec3::new(0.0, 30.0, 0.01), Vec3::ZERO)
}

/// The pixel a world point lands on.
fn pixel_of(camera: &Camera, world: Vec3) -> (u32, u32) {
    let clip = camera.view_projection(1.0) * world.extend(1.0);
    let ndc = clip.xy() / clip.w;
    let pixel = (ndc * 0.5 + 0.5) * SIZE as f32;
    (pixel.x as u32, pixel.y as u32)
}

fn render(tier: Tier, shadows: bool) -> image::RgbaImage {
    let mut ctx = gpu_context(Some(tier));
    let image = render_scene(
        &mut ctx,
        &scene(),
        &camera(),
        |renderer| {
            renderer.environment = Environment {
                sun_direction: SUN,
                sun_color: Vec3::splat(0.8),
                ambient: 0.2,
                fog_density: 0.0,
                ..Environment::default()
            };
            renderer.settings.shadows = shadows;
        },
        SIZE,
        SIZE,
        2,
        1.0 / 30.0,
    );
    finish(ctx);
    image
}

/// The mean green of the 3x3 pixels around `at`.
fn brightness(image: &image::RgbaImage, (x, y): (u32, u32)) -> f32 {
    let mut sum = 0.0;
    for dy in 0..3 {
        for dx in 0..3 {
            sum += f32::from(image.get_pixel(x + dx - 1, y + dy - 1)[1]);
        }
    }
    sum / 9.0
}

fn shadows_land_where_predicted(tier: Tier) {
    let lit = render(tier, false);
    let shadowed = render(tier, true);
    let camera = camera();
    let chest = KNIGHT + Vec3::Y * CHEST_HEIGHT;
    // Each caster's shadow, and the point as far the other way (towards
    // the sun: lit in both images).
    for (what, caster, ground_level) in [("ball", BALL, 0.0), ("knight", chest, KNIGHT.y)] {
        let shade = shadow_on_ground(caster, SUN, ground_level);
        let sunward = Vec3::new(2.0 * caster.x - shade.x, 0.0, 2.0 * caster.z - shade.z);
        let (at_shade, at_sunward) = (pixel_of(&camera, shade), pixel_of(&camera, sunward));
        let ratio = brightness(&shadowed, at_shade) / brightness(&lit, at_shade);
        assert!(
            ratio < 0.6,
            "{tier:?}: the {what}'s shadow at {shade} (pixel {at_shade:?}) keeps {ratio} of the light"
        );
        let ratio = brightness(&shadowed, at_sunward) / brightness(&lit, at_sunward);
        assert!(
            ratio > 0.97,
            "{tier:?}: the ground sunward of the {what} at {sunward} (pixel {at_sunward:?}) \
             keeps only {ratio} of the light"
        );
    }
    // Far from every caster the ground is as lit as without shadows.
    let open = pixel_of(&camera, Vec3::new(-8.0, 0.0, -8.0));
    assert!(brightness(&shadowed, open) >= brightness(&lit, open) - 1.0);
}

#[test]
fn shadows_land_where_predicted_on_desktop() {
    shadows_land_where_predicted(Tier::Desktop);
}

#[test]
fn shadows_land_where_predicted_on_mobile() {
    shadows_land_where_predicted(Tier::Mobile);
}
