//! Honest baselines: the four strategies (`naive`, `instanced`, `cpu-culled`,
//! `gpu-driven`) draw the same image of the same scene at the same frame,
//! and the CPU cull finds what the GPU cull finds, on the detected tier
//! and on the mobile tier.
//!
//! `naive` and `instanced` draw every unit at LOD 0, so the comparison
//! forces LOD 0 on the culled strategies too (a LOD bias of 10^6: no
//! coarser LOD's projected error ever fits). Culling then changes nothing
//! on screen, since what the culled strategies drop lies outside the view.
//!
//! Tolerance: a pixel differs when a channel differs by more than 12, and
//! at most 1.5 % of pixels may differ. The naive baseline skins on the CPU
//! with its own rounding (and blends normals through the palette, not per
//! bone), which moves silhouette pixels and shading by a little; a wrong
//! pose, a missing unit or a wrong LOD moves far more.

use glam::Vec3;
use horde::camera::Camera;
use horde::context::{Context, Tier};
use horde::renderer::{DrawStats, Renderer, Strategy};
use horde::scene::Scene;
use horde_bake::cache::CacheOptions;
use horde_tests::{finish, gpu_context, offscreen_renderer, output_dir};
use horde_tools::crowd::{crowd_scene, CrowdOptions};

const WIDTH: u32 = 192;
const HEIGHT: u32 = 128;
/// Frames rendered before the capture, `DT` apart: the animation runs, and
/// some units are mid-crossfade.
const FRAMES: u32 = 4;
const DT: f32 = 0.1;
/// A pixel differs when a channel differs by more than this.
const CHANNEL_TOLERANCE: u8 = 12;
/// The fraction of pixels allowed to differ.
const MAX_DIFFERING: f64 = 0.015;

/// The crowd scene of the stress test, small: 96 generated units facing
/// each other and the props around them.
fn scene() -> Scene {
    crowd_scene(&CrowdOptions {
        units: 96,
        encoding: horde::asset::BoneEncoding::Mat3x4F32,
        lod_error: None,
        samples: false,
        seed: 7,
        cache: CacheOptions {
            enabled: true,
            dir: Some(output_dir().join("bake-cache")),
        },
    })
    .expect("build the crowd scene")
}

/// Near the front line, looking along it: near and far units, some out of
/// view to the sides and behind.
fn camera() -> Camera {
    Camera::look_at(Vec3::new(-9.0, 3.0, 10.0), Vec3::new(2.0, 0.8, -2.0))
}

/// Renders the scene with `strategy` and LOD 0 forced; returns the image and
/// the draw statistics of the captured frame.
fn render(ctx: &mut Context, scene: &Scene, strategy: Strategy) -> (image::RgbaImage, DrawStats) {
    let (mut renderer, target) = offscreen_renderer(ctx, scene, WIDTH, HEIGHT);
    renderer.settings.strategy = strategy;
    renderer.settings.lod_bias = 1e6;
    // The baselines draw every unit as a mesh: so does the GPU-driven
    // frame here (the far field would take the units under 100 px).
    renderer.settings.far_field_px = 0.0;
    for frame in 0..FRAMES {
        renderer
            .render_offscreen(ctx, &target, &camera(), DT, frame + 1 == FRAMES)
            .unwrap_or_else(|err| panic!("{strategy}: render frame {frame}: {err}"));
    }
    renderer.finish(ctx).expect("wait for the last frames");
    let image = target.read_rgba().expect("read back");
    let stats = renderer.stats.clone();
    drop((renderer, target));
    (image, stats)
}

/// The fraction of pixels of `a` and `b` differing by more than the
/// channel tolerance; writes both and a diff image when over the limit.
fn differing_fraction(name: &str, a: &image::RgbaImage, b: &image::RgbaImage) -> f64 {
    let mut diff = image::RgbaImage::new(a.width(), a.height());
    let mut differing = 0usize;
    for (x, y, pixel) in a.enumerate_pixels() {
        let other = b.get_pixel(x, y);
        let delta = (0..4).map(|c| pixel[c].abs_diff(other[c])).max();
        if delta.unwrap_or(0) > CHANNEL_TOLERANCE {
            differing += 1;
            diff.put_pixel(x, y, image::Rgba([255, 0, 255, 255]));
        }
    }
    let fraction = differing as f64 / f64::from(a.width() * a.height());
    if fraction > MAX_DIFFERING {
        let dir = output_dir();
        a.save(dir.join(format!("baselines_{name}.png")))
            .expect("write image");
        b.save(dir.join(format!("baselines_{name}.gpu-driven.png")))
            .expect("write image");
        diff.save(dir.join(format!("baselines_{name}.diff.png")))
            .expect("write diff");
    }
    fraction
}

/// Renders every strategy on `tier` and checks them against gpu-driven.
fn check_strategies(tier: Option<Tier>) {
    let scene = scene();
    let mut ctx = gpu_context(tier);
    let (reference, gpu_stats) = render(&mut ctx, &scene, Strategy::GpuDriven);
    let units = scene.units.len() as u32;
    let visible = gpu_stats.units_visible();
    assert!(
        visible > 10 && visible < units,
        "the view should show some units and cull others: {gpu_stats:?}"
    );
    assert_eq!(
        gpu_stats.units_per_lod.iter().skip(1).sum::<u32>(),
        0,
        "LOD 0 is forced: {gpu_stats:?}"
    );
    let background = reference
        .pixels()
        .filter(|p| *p == reference.get_pixel(0, 0))
        .count();
    assert!(
        background < (WIDTH * HEIGHT) as usize / 2,
        "the view should be mostly crowd and props"
    );
    for strategy in [Strategy::Naive, Strategy::Instanced, Strategy::CpuCulled] {
        let (image, stats) = render(&mut ctx, &scene, strategy);
        let tier_name = tier.map_or("detected", Tier::name);
        let name = format!("{}_{tier_name}", strategy.name());
        let fraction = differing_fraction(&name, &image, &reference);
        assert!(
            fraction <= MAX_DIFFERING,
            "{strategy}: {:.2} % of pixels differ from gpu-driven by more than \
             {CHANNEL_TOLERANCE} (allowed {:.2} %); images in target/test-output",
            fraction * 100.0,
            MAX_DIFFERING * 100.0
        );
        match strategy {
            // The CPU twin of the cull shader finds exactly what it finds.
            Strategy::CpuCulled => assert_eq!(
                (&stats.units_per_lod, &stats.props_per_lod),
                (&gpu_stats.units_per_lod, &gpu_stats.props_per_lod),
                "cpu-culled against gpu-driven"
            ),
            // No culling: every unit is drawn.
            _ => assert_eq!(stats.units_per_lod[0], units, "{strategy}: {stats:?}"),
        }
    }
    finish(ctx);
}

#[test]
fn every_strategy_draws_the_same_image() {
    check_strategies(None);
}

/// The mobile tier draws one indirect command per call with the lists bound
/// at an offset: the baselines' lists must work that way too.
#[test]
fn every_strategy_draws_the_same_image_on_mobile() {
    check_strategies(Some(Tier::Mobile));
}

#[test]
fn strategies_parse_by_name_and_refuse_others() {
    for strategy in Strategy::ALL {
        assert_eq!(strategy.name().parse::<Strategy>().ok(), Some(strategy));
    }
    assert!("fastest".parse::<Strategy>().is_err());
}

#[test]
fn cpu_baselines_refuse_units_the_gpu_moves() {
    let scene = scene();
    let mut ctx = gpu_context(None);
    let (mut renderer, target): (Renderer, _) = offscreen_renderer(&mut ctx, &scene, 32, 32);
    renderer
        .world
        .set_velocities(&[(horde::world::UnitId(0), glam::Vec2::new(1.0, 0.0))]);
    for strategy in [Strategy::Naive, Strategy::CpuCulled] {
        renderer.settings.strategy = strategy;
        let result = renderer.render_offscreen(&ctx, &target, &camera(), DT, false);
        let message = result.expect_err("moving units refused").to_string();
        assert!(message.contains("cannot follow"), "{strategy}: {message}");
    }
    // The GPU-driven frame and the instanced baseline follow them.
    for strategy in [Strategy::Instanced, Strategy::GpuDriven] {
        renderer.settings.strategy = strategy;
        renderer
            .render_offscreen(&ctx, &target, &camera(), DT, true)
            .unwrap_or_else(|err| panic!("{strategy}: {err}"));
    }
    drop((renderer, target));
    finish(ctx);
}
