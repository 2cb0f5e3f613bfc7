//! The shadow cascades past the first drawn in turn
//! (`engine/src/passes/shadow/turns.rs`), on the desktop tier's three
//! cascades: a cascade kept from the frame before holds that frame's
//! depths, and the receivers look it up with the matrix it was drawn with,
//! so its shadows stay where the CPU predicts while the camera moves; on a
//! still scene the frames are those of every cascade drawn every frame.
//! Validation clean.

use glam::Vec3;
use horde::camera::Camera;
use horde::context::{Context, Tier};
use horde::mesh::{ground, sphere};
use horde::renderer::{Environment, Renderer};
use horde::scene::{rgba8, static_asset, PropPlacement, Scene};
use horde::shadow::{shadow_on_ground, Cascade};
use horde_tests::{brightness, finish, gpu_context, offscreen_renderer, pixel_of};

const WIDTH: u32 = 240;
const HEIGHT: u32 = 160;
/// Towards the sun: to the side, so each ball's shadow falls two of its
/// radii beside it.
const SUN: Vec3 = Vec3::new(0.8, 0.6, 0.0);
/// Metres of view distance the cascades cover: short, so that each
/// cascade's ball is large on screen.
const SHADOW_DISTANCE: f32 = 60.0;
/// A ball's radius per metre of its distance from the camera; it floats
/// one and a half radii above the ground.
const BALL_SIZE: f32 = 0.08;
/// How far the camera moves ahead, without turning, between frames:
/// across the balls' shadows, which the sun casts along x.
const STEP: f32 = 3.0;

/// The camera `ahead` metres along -z, above the ground, looking ahead
/// and down.
fn camera(ahead: f32) -> Camera {
    Camera::look_at(
        Vec3::new(0.0, 10.0, -ahead),
        Vec3::new(0.0, 0.0, -30.0 - ahead),
    )
}

fn extent() -> ash::vk::Extent2D {
    ash::vk::Extent2D {
        width: WIDTH,
        height: HEIGHT,
    }
}

/// The sun, no fog, shadows as short as `SHADOW_DISTANCE`.
fn set_up(renderer: &mut Renderer) {
    renderer.environment = Environment {
        sun_direction: SUN.normalize(),
        sun_color: Vec3::splat(0.8),
        ambient: 0.2,
        fog_density: 0.0,
        ..Environment::default()
    };
    renderer.settings.shadow_distance = SHADOW_DISTANCE;
}

/// The ground (it casts nothing) and a ball above the middle of each
/// cascade's range of view distances, on the camera's line of sight.
fn scene(cascades: &[Cascade]) -> Scene {
    let ball = |cascade: &Cascade| PropPlacement {
        prop_type: 1,
        position: ball_position(cascade),
        heading: 0.0,
        scale: ball_radius(cascade),
        tint: rgba8(Vec3::splat(0.8)),
    };
    let mut props = vec![PropPlacement {
        prop_type: 0,
        position: Vec3::ZERO,
        heading: 0.0,
        scale: 1.0,
        tint: rgba8(Vec3::splat(0.8)),
    }];
    props.extend(cascades.iter().map(ball));
    Scene {
        prop_types: vec![
            static_asset("ground", &ground(1000.0, 8)),
            static_asset("ball", &sphere(24, 16)),
        ],
        props,
        ground_prop_types: vec![0],
        ..Scene::default()
    }
}

/// How far ahead of the camera cascade's ball floats: well within its
/// range of view distances, and on screen.
fn ball_distance(cascade: &Cascade) -> f32 {
    cascade.near + 0.7 * (cascade.far - cascade.near)
}

fn ball_radius(cascade: &Cascade) -> f32 {
    BALL_SIZE * ball_distance(cascade)
}

fn ball_position(cascade: &Cascade) -> Vec3 {
    let ahead = Vec3::new(0.0, 0.0, -ball_distance(cascade));
    (camera(STEP).position + ahead).with_y(1.5 * ball_radius(cascade))
}

/// The cascades of camera `ahead`'s view.
fn cascades_from(ctx: &mut Context, ahead: f32) -> Vec<Cascade> {
    let (mut renderer, target) = offscreen_renderer(ctx, &scene(&[]), WIDTH, HEIGHT);
    set_up(&mut renderer);
    let cascades = renderer.shadow_cascades(&camera(ahead), extent());
    drop((renderer, target));
    cascades
}

/// The last frame and the receivers' depths after it.
struct Shot {
    image: image::RgbaImage,
    depths: Vec<f32>,
}

/// Renders `scene` from the cameras `aheads`, a frame each, with the
/// cascades in turn or not; `shadows` off draws the unshadowed picture.
fn shoot(ctx: &mut Context, scene: &Scene, aheads: &[f32], in_turn: bool, shadows: bool) -> Shot {
    let (mut renderer, target) = offscreen_renderer(ctx, scene, WIDTH, HEIGHT);
    set_up(&mut renderer);
    renderer.settings.shadows = shadows;
    renderer.settings.shadow_cascades_in_turn = in_turn;
    for (frame, &ahead) in aheads.iter().enumerate() {
        renderer
            .render_offscreen(ctx, &target, &camera(ahead), 0.0, frame + 1 == aheads.len())
            .expect("render frame");
    }
    let shot = Shot {
        image: target.read_rgba().expect("read back"),
        depths: renderer.read_shadow_depths(ctx).expect("read depths"),
    };
    drop((renderer, target));
    shot
}

/// Cascade `index`'s depths in `depths`.
fn cascade_depths(depths: &[f32], index: usize) -> &[f32] {
    let texels = depths.len() / 3;
    &depths[index * texels..(index + 1) * texels]
}

/// Pixels that differ by more than 2 in some channel.
fn differing_pixels(a: &image::RgbaImage, b: &image::RgbaImage) -> usize {
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0.iter().zip(q.0).any(|(&u, v)| u.abs_diff(v) > 2))
        .count()
}

#[test]
fn a_kept_cascade_is_looked_up_as_it_was_drawn() {
    let mut ctx = gpu_context(Some(Tier::Desktop));
    let cascades = cascades_from(&mut ctx, STEP);
    assert_eq!(cascades.len(), 3, "the desktop tier draws three cascades");
    let scene = scene(&cascades);
    // Frame 1 draws every cascade (none is kept yet); frame 2, STEP ahead,
    // draws cascade 0 and cascade 1 (its turn) and keeps cascade 2.
    let in_turn = shoot(&mut ctx, &scene, &[0.0, STEP], true, true);
    let every = shoot(&mut ctx, &scene, &[STEP], false, true);
    let before = shoot(&mut ctx, &scene, &[0.0], false, true);
    let lit = shoot(&mut ctx, &scene, &[STEP], false, false);
    finish(ctx);

    // The premise: cascade 2 holds the first frame's depths, which differ
    // from the second view's; cascades 0 and 1 hold the second view's.
    assert!(cascade_depths(&in_turn.depths, 2) == cascade_depths(&before.depths, 2));
    assert!(cascade_depths(&in_turn.depths, 2) != cascade_depths(&every.depths, 2));
    for index in 0..2 {
        assert!(
            cascade_depths(&in_turn.depths, index) == cascade_depths(&every.depths, index),
            "cascade {index} was not drawn from the second view"
        );
    }

    // Each ball's shadow lies where the CPU predicts, in every cascade.
    let view = camera(STEP);
    for (index, cascade) in cascades.iter().enumerate() {
        let ball = ball_position(cascade);
        let at = pixel_of(
            &view,
            shadow_on_ground(ball, SUN.normalize(), 0.0),
            (WIDTH, HEIGHT),
        );
        let ratio = brightness(&in_turn.image, at) / brightness(&lit.image, at);
        println!("cascade {index}: the ball's shadow at {at:?} keeps {ratio} of the light");
        assert!(
            ratio < 0.7,
            "cascade {index}: the ball's shadow at pixel {at:?} keeps {ratio} of the light"
        );
    }
    // And the picture is the one every cascade drawn from the second view
    // gives: the kept cascade's texels lie on the same grid.
    let differing = differing_pixels(&in_turn.image, &every.image);
    println!("{differing} pixels differ from every cascade drawn");
    assert!(
        differing <= (WIDTH * HEIGHT / 2000) as usize,
        "{differing} pixels differ from every cascade drawn"
    );
}

#[test]
fn cascades_in_turn_draw_a_still_scene_as_every_cascade_does() {
    let mut ctx = gpu_context(Some(Tier::Desktop));
    let cascades = cascades_from(&mut ctx, STEP);
    let scene = scene(&cascades);
    let in_turn = shoot(&mut ctx, &scene, &[STEP; 4], true, true);
    let every = shoot(&mut ctx, &scene, &[STEP; 4], false, true);
    finish(ctx);
    assert!(in_turn.depths == every.depths);
    assert_eq!(differing_pixels(&in_turn.image, &every.image), 0);
}
