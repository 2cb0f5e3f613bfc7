//! The ground texture (`Scene::ground_texture`, `world/ground.rs`): tiled in
//! world X and Z at its scale and sampled where the CPU twin says near the
//! camera, and averaged by its mips far away, where a pixel covers many
//! tiles (no aliasing); filtered anisotropically where the ground is seen
//! at a grazing angle (`GROUND_ANISOTROPY`); on both tiers, validation
//! clean.

use glam::{Vec2, Vec3, Vec3Swizzles, Vec4Swizzles};
use horde::asset::Texture;
use horde::camera::Camera;
use horde::context::{Context, ContextDesc, Tier};
use horde::mesh::ground;
use horde::passes::draw::GROUND_ANISOTROPY;
use horde::renderer::Environment;
use horde::scene::{static_asset, GroundTexture, Scene};
use horde::world::ground::ground_detail_samples;
use horde::world::PropPlacement;
use horde_tests::{finish, gpu_context, gpu_context_as, render_scene, test_context_desc};

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

/// Where the ray through pixel (x, y) of a `SIZE`² frame meets the ground
/// (y = 0), if ahead.
fn ground_point(camera: &Camera, (x, y): (u32, u32)) -> Option<Vec3> {
    ground_point_at(camera, Vec2::new(x as f32, y as f32) + 0.5, SIZE)
}

/// Where the ray through `pixel` (in pixels from the top left corner of a
/// `size`² frame) meets the ground (y = 0), if ahead.
fn ground_point_at(camera: &Camera, pixel: Vec2, size: u32) -> Option<Vec3> {
    let inverse = camera.view_projection(1.0).inverse();
    let ndc = pixel / size as f32 * 2.0 - 1.0;
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
    render_ground(gpu_context(Some(tier)), checker(), &camera(), SIZE)
}

/// The ground alone under `texture`, unlit, seen by `camera` in a `size`²
/// frame, on `ctx` (finished after).
fn render_ground(
    mut ctx: Context,
    texture: GroundTexture,
    camera: &Camera,
    size: u32,
) -> image::RgbaImage {
    let scene = Scene {
        prop_types: vec![static_asset("ground", &ground(2000.0, 4))],
        props: vec![PropPlacement::at_origin(0, Vec3::ONE)],
        ground_prop_types: vec![0],
        ground_texture: Some(texture),
        ..Scene::default()
    };
    let image = render_scene(
        &mut ctx,
        &scene,
        camera,
        |renderer| {
            // Unlit albedo: ambient 1 on an upward normal, no sun, no fog.
            renderer.environment = Environment {
                sun_color: Vec3::ZERO,
                ambient: 1.0,
                fog_density: 0.0,
                ..Environment::default()
            };
        },
        size,
        size,
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

/// Texels of the stripes' texture a side; the stripes run along its V.
const STRIPES_SIDE: u32 = 64;
/// Texels a stripe is wide: black and white stripes of four, so mip level
/// 2 (a texel per four) keeps them and level 3 averages them to grey.
const STRIPE_TEXELS: f32 = 4.0;

/// Black and white stripes across U, one tile every 2 m.
fn stripes() -> GroundTexture {
    let rgba8 = (0..STRIPES_SIDE * STRIPES_SIDE)
        .flat_map(|i| {
            let c = if (i % STRIPES_SIDE) as f32 / STRIPE_TEXELS % 2.0 < 1.0 {
                255
            } else {
                0
            };
            [c, c, c, 255]
        })
        .collect();
    GroundTexture {
        texture: Texture {
            width: STRIPES_SIDE,
            height: STRIPES_SIDE,
            rgba8,
        },
        tile_metres: 2.0,
    }
}

/// The mip level a sampler reads for a footprint of `long` by `short`
/// texels with at most `anisotropy` taps (the Vulkan spec's rule, without
/// the device's freedom to round the ratio).
fn mip_level(long: f32, short: f32, anisotropy: f32) -> f32 {
    let taps = (long / short).min(anisotropy).max(1.0);
    (long / taps).log2()
}

/// How much lighter the pixels over white stripes are than those over
/// black ones (sRGB), where stripes run straight away from a camera at eye
/// height and the isotropic mip for a pixel's footprint averages them to
/// grey: a pixel's footprint on them is many times longer (along them)
/// than wide (across them), and the anisotropic filter reads a level that
/// still holds them. The second of `ground_detail`'s samples (turned, 3.4
/// times larger) is uncorrelated with the first's stripes and averages out
/// of the comparison.
fn stripe_contrast(ctx: Context) -> f32 {
    const FRAME: u32 = 256;
    let tier = ctx.tier;
    let camera = Camera::look_at(Vec3::new(0.0, 1.6, 0.0), Vec3::new(0.0, 1.0, 40.0));
    let image = render_ground(ctx, stripes(), &camera, FRAME);
    let texels_per_metre = STRIPES_SIDE as f32 / 2.0;
    let (mut white, mut black) = (Vec::new(), Vec::new());
    for y in 0..FRAME - 1 {
        for x in 0..FRAME - 1 {
            let at = |dx: f32, dy: f32| {
                ground_point_at(&camera, Vec2::new(x as f32 + dx, y as f32 + dy), FRAME)
            };
            let (Some(p), Some(right), Some(below)) = (at(0.5, 0.5), at(1.5, 0.5), at(0.5, 1.5))
            else {
                continue;
            };
            let across = right.distance(p) * texels_per_metre;
            let along = below.distance(p) * texels_per_metre;
            let (long, short) = (across.max(along), across.min(along));
            // Where the isotropic filter reads levels 3 and up (no stripes)
            // and the anisotropic one levels 2 and 3 (stripes), and a pixel
            // spans less than a stripe across them.
            let isotropic = mip_level(long, short, 1.0);
            let anisotropic = mip_level(long, short, GROUND_ANISOTROPY);
            if !(isotropic > 3.2 && anisotropic < 2.8 && short < STRIPE_TEXELS) {
                continue;
            }
            // The stripe under the pixel's centre, away from its edges.
            let stripe = p.x * texels_per_metre / STRIPE_TEXELS;
            if !(0.3..0.7).contains(&stripe.rem_euclid(1.0)) {
                continue;
            }
            let value = f32::from(image.get_pixel(x, y)[1]);
            if stripe.floor().rem_euclid(2.0) == 0.0 {
                white.push(value);
            } else {
                black.push(value);
            }
        }
    }
    assert!(
        white.len() > 100 && black.len() > 100,
        "{tier:?}: only {} and {} pixels over white and black stripes at a grazing angle",
        white.len(),
        black.len()
    );
    let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len() as f32;
    mean(&white) - mean(&black)
}

/// The context of `tier`, filtering anisotropically on a CPU device as
/// asked.
fn context(tier: Tier, anisotropy_on_cpu: bool) -> Context {
    gpu_context_as(ContextDesc {
        anisotropy_on_cpu,
        ..test_context_desc(Some(tier))
    })
}

/// The ground's sampler filters anisotropically where the device has
/// `samplerAnisotropy` (every device the tests run on: lavapipe and the
/// desktop GPUs), on a CPU device only when asked
/// (`ContextDesc::anisotropy_on_cpu`).
fn the_ground_is_filtered_anisotropically(tier: Tier) {
    let asked = context(tier, true);
    assert!(
        asked.limits.max_sampler_anisotropy >= GROUND_ANISOTROPY,
        "{tier:?}: the device allows anisotropy {}, asked for on a CPU device too",
        asked.limits.max_sampler_anisotropy
    );
    let contrast = stripe_contrast(asked);
    // The stripes' share of `ground_detail` is half, at a level partly
    // blended with the next (64 on lavapipe).
    assert!(
        contrast > 25.0,
        "{tier:?}: pixels over white stripes are only {contrast} (sRGB) lighter than over \
         black ones, at a grazing angle: the ground is not filtered anisotropically"
    );
    let default = context(tier, false);
    let isotropic = default.limits.max_sampler_anisotropy == 1.0;
    assert_eq!(
        isotropic, default.software_rasterizer,
        "{tier:?}: anisotropic filtering is off on a CPU device unless asked, on elsewhere"
    );
    let contrast = stripe_contrast(default);
    // Isotropic mips leave none: the levels read hold grey (0.03 on
    // lavapipe).
    assert!(
        if isotropic {
            contrast.abs() < 3.0
        } else {
            contrast > 25.0
        },
        "{tier:?}: {contrast} (sRGB) between white and black stripes, filtered \
         {}",
        if isotropic {
            "isotropically"
        } else {
            "anisotropically"
        }
    );
}

#[test]
fn the_ground_is_filtered_anisotropically_on_desktop() {
    the_ground_is_filtered_anisotropically(Tier::Desktop);
}

#[test]
fn the_ground_is_filtered_anisotropically_on_mobile() {
    the_ground_is_filtered_anisotropically(Tier::Mobile);
}
