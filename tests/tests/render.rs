//! Offscreen rendering: the first scene against its reference image on both
//! tiers, exact readback of known colours, the GPU profiler, and teardown
//! without leaks.

use glam::Vec3;
use horde::camera::Camera;
use horde::context::Tier;
use horde::mesh::ground;
use horde::renderer::Environment;
use horde::scene::{rgba8, static_asset, Scene};
use horde::target::SKY_COLOR;
use horde::world::PropPlacement;
use horde_tests::{
    compare_with_reference, compare_with_reference_as, finish, gpu_context, offscreen_renderer,
    render_scene, Tolerance,
};
use horde_tools::first_scene::{first_scene, first_scene_camera};

const UNITS: u32 = 1024;

fn srgb_encode(linear: f32) -> u8 {
    let s = if linear <= 0.003_130_8 {
        linear * 12.92
    } else {
        1.055 * linear.powf(1.0 / 2.4) - 0.055
    };
    (s.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// The first scene, 3 frames at 480x270, on `tier`.
fn render_first_scene(tier: Option<Tier>) -> image::RgbaImage {
    let mut ctx = gpu_context(tier);
    let image = render_scene(
        &mut ctx,
        &first_scene(UNITS),
        &first_scene_camera(UNITS),
        |_| {},
        480,
        270,
        3,
        1.0 / 60.0,
    );
    finish(ctx);
    image
}

#[test]
fn first_scene_matches_reference() {
    compare_with_reference("first_scene", &render_first_scene(None), Tolerance::RENDER);
}

#[test]
fn mobile_tier_matches_the_desktop_reference() {
    let image = render_first_scene(Some(Tier::Mobile));
    compare_with_reference_as(
        "first_scene",
        "first_scene_mobile",
        &image,
        Tolerance::RENDER,
    );
}

#[test]
fn empty_scene_reads_back_the_sky_colour() {
    let mut ctx = gpu_context(None);
    let camera = Camera::look_at(Vec3::new(0.0, 5.0, 10.0), Vec3::ZERO);
    let image = render_scene(&mut ctx, &Scene::default(), &camera, |_| {}, 64, 32, 1, 0.0);
    finish(ctx);
    let expected = [
        srgb_encode(SKY_COLOR[0]),
        srgb_encode(SKY_COLOR[1]),
        srgb_encode(SKY_COLOR[2]),
        255,
    ];
    for (x, y, pixel) in image.enumerate_pixels() {
        assert_eq!(pixel.0, expected, "pixel ({x}, {y})");
    }
}

/// Sun straight down, sun + ambient = 1 and no fog: the shaded colour of an
/// upward face equals its albedo exactly.
fn exact_light() -> Environment {
    Environment {
        sun_direction: Vec3::Y,
        sun_color: Vec3::splat(0.5),
        ambient: 0.5,
        fog_color: Vec3::ZERO,
        fog_density: 0.0,
        ground_bottom: 0.0,
        ground_top: 0.0,
    }
}

#[test]
fn lit_ground_reads_back_its_albedo() {
    let environment = exact_light();
    let albedo = [0.8, 0.4, 0.2];
    let scene = Scene {
        prop_types: vec![static_asset("ground", &ground(100.0, 1))],
        props: vec![PropPlacement::at_origin(0, Vec3::from_array(albedo))],
        ..Scene::default()
    };
    let camera = Camera::look_at(Vec3::new(0.0, 10.0, 0.01), Vec3::ZERO);
    let mut ctx = gpu_context(None);
    let image = render_scene(
        &mut ctx,
        &scene,
        &camera,
        |r| r.environment = environment,
        64,
        64,
        1,
        0.0,
    );
    finish(ctx);
    // The tint is stored as unorm8, so the expected value goes through it too.
    let tint = rgba8(Vec3::from_array(albedo)).to_le_bytes();
    let expected: Vec<u8> = tint[..3]
        .iter()
        .map(|&c| srgb_encode(f32::from(c) / 255.0))
        .collect();
    for (x, y, pixel) in image.enumerate_pixels() {
        for c in 0..3 {
            assert!(
                pixel[c].abs_diff(expected[c]) <= 1,
                "pixel ({x}, {y}) is {:?}, expected {expected:?}",
                pixel.0
            );
        }
    }
}

#[test]
fn profiler_reports_the_draw_pass() {
    let mut ctx = gpu_context(None);
    let (mut renderer, target) = offscreen_renderer(&mut ctx, &first_scene(64), 64, 64);
    for _ in 0..4 {
        renderer
            .render_offscreen(&ctx, &target, &first_scene_camera(64), 0.016, false)
            .expect("frame");
    }
    let available = renderer.profiler.available();
    let draw = renderer.profiler.format_ms("draw");
    let stats = renderer.profiler.stats();
    drop((renderer, target));
    finish(ctx);
    if available {
        let ms: f64 = draw.parse().expect("a number of milliseconds");
        assert!(ms >= 0.0);
        let names: Vec<&str> = stats.iter().map(|s| s.name.as_str()).collect();
        // Nothing in the first scene moves, so the simulate pass records
        // nothing; occlusion culling (the default) runs the cull, the
        // statistics and the draw twice, around the depth pyramid.
        assert_eq!(
            names,
            [
                "animate",
                "cull",
                "cull late",
                "depth pyramid",
                "draw",
                "draw late",
                "frame",
                "statistics",
                "statistics late",
                "upload"
            ]
        );
        assert!(stats.iter().all(|s| s.samples >= 2));
    } else {
        assert_eq!(draw, "n/a");
    }
}

/// A flat 100 m plane with one material, seen from `camera_y` (above or
/// below), with light only from the sun straight down and no fog; the
/// centre pixel of a 64x64 render.
fn plane_pixel(
    tier: Option<Tier>,
    camera_y: f32,
    edit: impl Fn(&mut horde::asset::Material),
) -> [u8; 3] {
    let mut plane = static_asset("plane", &ground(100.0, 1));
    plane.materials[0].base_color_factor = [0.5, 0.5, 0.5, 1.0];
    edit(&mut plane.materials[0]);
    let scene = Scene {
        prop_types: vec![plane],
        props: vec![PropPlacement::at_origin(0, Vec3::ONE)],
        ..Scene::default()
    };
    let environment = Environment {
        sun_direction: Vec3::Y,
        sun_color: Vec3::splat(0.5),
        ambient: 0.0,
        fog_color: Vec3::ZERO,
        fog_density: 0.0,
        ground_bottom: 0.0,
        ground_top: 0.0,
    };
    let camera = Camera::look_at(Vec3::new(0.0, camera_y, 0.01), Vec3::ZERO);
    let mut ctx = gpu_context(tier);
    let image = render_scene(
        &mut ctx,
        &scene,
        &camera,
        |r| r.environment = environment,
        64,
        64,
        1,
        0.0,
    );
    finish(ctx);
    let pixel = image.get_pixel(32, 32);
    [pixel[0], pixel[1], pixel[2]]
}

/// glTF `doubleSided` and emission on both tiers: a single-sided plane seen
/// from below is culled (the clear colour shows), a double-sided one is drawn
/// and lit with its flipped normal (facing away from the sun: black), and an
/// emissive material adds its light on top of the lit colour.
#[test]
fn double_sided_and_emissive_materials() {
    let clear: Vec<u8> = SKY_COLOR[..3].iter().map(|&c| srgb_encode(c)).collect();
    for tier in [None, Some(Tier::Mobile)] {
        let below_single = plane_pixel(tier, -10.0, |_| {});
        assert_eq!(
            &below_single[..],
            &clear[..],
            "{tier:?}: a single-sided back face is culled"
        );
        let below_double = plane_pixel(tier, -10.0, |m| m.double_sided = true);
        assert_eq!(
            below_double,
            [0, 0, 0],
            "{tier:?}: the back face is lit with the flipped normal"
        );
        let above_double = plane_pixel(tier, 10.0, |m| m.double_sided = true);
        let lit = srgb_encode(0.25);
        assert_eq!(
            above_double,
            [lit, lit, lit],
            "{tier:?}: the front face as usual"
        );
        let glowing = plane_pixel(tier, 10.0, |m| m.emissive_factor = [0.5, 0.0, 0.0]);
        assert_eq!(
            glowing,
            [srgb_encode(0.75), lit, lit],
            "{tier:?}: emission adds to the lit colour"
        );
    }
}

/// 4× MSAA resolves a slanted edge into the blends between the colours
/// either side, where one sample per pixel gives only the two colours; the
/// rest of the picture is the same. A lit plane's corner seen from above,
/// exact colours (no fog, sun + ambient = 1), on both tiers.
#[test]
fn msaa_blends_edges_and_only_edges() {
    use horde::renderer::Renderer;
    use horde::target::Msaa;
    let environment = exact_light();
    let scene = Scene {
        prop_types: vec![static_asset("ground", &ground(10.0, 1))],
        props: vec![PropPlacement {
            prop_type: 0,
            position: Vec3::ZERO,
            heading: 0.3,
            scale: 1.0,
            tint: rgba8(Vec3::new(0.8, 0.1, 0.1)),
        }],
        ..Scene::default()
    };
    let camera = Camera::look_at(Vec3::new(6.0, 12.0, 6.5), Vec3::new(4.0, 0.0, 4.5));
    let sky = [0, 1, 2].map(|c| srgb_encode(SKY_COLOR[c]));
    for tier in [None, Some(Tier::Mobile)] {
        let ctx = gpu_context(tier);
        let render = |msaa: Msaa| {
            let extent = ash::vk::Extent2D {
                width: 96,
                height: 64,
            };
            let (mut renderer, target) =
                Renderer::new_offscreen(&ctx, &scene, extent, msaa).expect("renderer");
            renderer.environment = environment;
            renderer
                .render_offscreen(&ctx, &target, &camera, 0.0, true)
                .expect("render");
            target.read_rgba().expect("read back")
        };
        let single = render(Msaa::Off);
        let multi = render(Msaa::X4);
        finish(ctx);
        let plane = single
            .pixels()
            .map(|p| [p[0], p[1], p[2]])
            .find(|&p| p != sky)
            .expect("the plane is in view");
        let blends = |image: &image::RgbaImage| {
            image
                .pixels()
                .filter(|p| {
                    let rgb = [p[0], p[1], p[2]];
                    rgb.iter().zip(&sky).any(|(a, b)| a.abs_diff(*b) > 1)
                        && rgb.iter().zip(&plane).any(|(a, b)| a.abs_diff(*b) > 1)
                })
                .count()
        };
        assert_eq!(blends(&single), 0, "{tier:?}: one sample, two colours");
        assert!(
            blends(&multi) > 20,
            "{tier:?}: {} edge blends",
            blends(&multi)
        );
        let flip = horde_tools::quality::flip(&single, &multi).expect("flip");
        assert!(flip.mean < 0.05, "{tier:?}: {}", flip.mean);
        let differing = single
            .pixels()
            .zip(multi.pixels())
            .filter(|(a, b)| a != b)
            .count();
        assert!(
            differing < single.len() / 4 / 10,
            "{tier:?}: {differing} pixels differ"
        );
    }
}
