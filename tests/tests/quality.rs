//! The quality measurement (`horde_tools::quality`, `renderer/replay.rs`):
//! FLIP itself, the replay's promise to share the frame's state and leave
//! the next frame alone, the reference's LOD 0 mesh-only route, the
//! headless battle's quality report, a reference that ignores the frame's
//! MSAA, and a golden image compared by FLIP.

use horde::asset::BoneEncoding;
use horde::config::MAX_ROUTES;
use horde::gpu_types::DrawCommand;
use horde::memory::read_buffers;
use horde::renderer::{Renderer, Replay, ReplayPath, ReplayView};
use horde::target::Offscreen;
use horde::world::buffers::DRAW_COMMANDS_BYTES;
use horde_battle::reference::grid::GridLayout;
use horde_battle::{Battle, BattleRules};
use horde_tests::{compare_with_reference_by_flip, finish, gpu_context};
use horde_tools::battle::{battle_scene, BattleCamera, BattleOptions, BattleScene};
use horde_tools::headless::{run_headless, HeadlessOptions};
use horde_tools::quality::{box_downsample_2x2, flip};
use image::{Rgba, RgbaImage};

const WIDTH: u32 = 160;
const HEIGHT: u32 = 90;

fn small_battle(units: u32) -> BattleScene {
    battle_scene(&BattleOptions {
        units,
        props: units / 10,
        seed: 7,
        encoding: BoneEncoding::Mat3x4F32,
        models: Vec::new(),
        cache: horde_bake::cache::CacheOptions::default(),
        rules: BattleRules::default(),
        clip_map: Vec::new(),
    })
    .expect("battle scene")
}

/// An image with some structure: a gradient and a few edges.
fn pattern(width: u32, height: u32) -> RgbaImage {
    RgbaImage::from_fn(width, height, |x, y| {
        let edge = if (x / 5 + y / 7) % 2 == 0 { 40 } else { 0 };
        Rgba([
            (x * 7 % 200) as u8 + edge,
            (y * 11 % 200) as u8,
            90 + edge,
            255,
        ])
    })
}

#[test]
fn flip_of_identical_images_is_zero() {
    let image = pattern(64, 48);
    let result = flip(&image, &image).expect("flip");
    assert_eq!((result.mean, result.p95), (0.0, 0.0));
    assert_eq!(result.error_map.dimensions(), (64, 48));
    assert!(flip(&image, &pattern(64, 40)).is_err(), "sizes differ");
}

/// FLIP's colour error of two uniform sRGB colours, computed here from the
/// FLIP paper's formulas (Andersson et al. 2020): linear RGB, CIE L*a*b*
/// (D65) with the Hunt adjustment (a* and b* scaled by L*/100), the HyAB
/// distance, raised to 0.7 and compressed against the distance between
/// pure green and pure blue (the largest): linearly to 0.95 below 0.4 of
/// it, then linearly to 1. A uniform image has no edges or points, so the
/// feature error is 0 and the colour error is the pixel's FLIP.
fn uniform_flip(a: [u8; 3], b: [u8; 3]) -> f64 {
    fn lab(rgb: [f64; 3]) -> [f64; 3] {
        let [r, g, b] = rgb;
        let x = 0.412_390_8 * r + 0.357_584_3 * g + 0.180_480_8 * b;
        let y = 0.212_639_0 * r + 0.715_168_7 * g + 0.072_192_3 * b;
        let z = 0.019_330_8 * r + 0.119_194_8 * g + 0.950_532_2 * b;
        let white = [0.950_428_5, 1.0, 1.088_900_0];
        let f = |t: f64| {
            let delta: f64 = 6.0 / 29.0;
            if t > delta.powi(3) {
                t.cbrt()
            } else {
                t / (3.0 * delta * delta) + 4.0 / 29.0
            }
        };
        let (fx, fy, fz) = (f(x / white[0]), f(y / white[1]), f(z / white[2]));
        let l = 116.0 * fy - 16.0;
        let hunt = 0.01 * l;
        [l, hunt * 500.0 * (fx - fy), hunt * 200.0 * (fy - fz)]
    }
    fn hyab(p: [f64; 3], q: [f64; 3]) -> f64 {
        (p[0] - q[0]).abs() + ((p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
    }
    let linear = |c: [u8; 3]| {
        c.map(|v| {
            let v = f64::from(v) / 255.0;
            if v <= 0.04045 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        })
    };
    let cmax = hyab(lab([0.0, 1.0, 0.0]), lab([0.0, 0.0, 1.0])).powf(0.7);
    let error = hyab(lab(linear(a)), lab(linear(b))).powf(0.7);
    let (pc, pt) = (0.4, 0.95);
    if error < pc * cmax {
        error * pt / (pc * cmax)
    } else {
        pt + (error - pc * cmax) / (cmax - pc * cmax) * (1.0 - pt)
    }
}

#[test]
fn flip_of_a_known_difference_is_its_value() {
    for (a, b) in [
        ([0, 0, 0], [255, 255, 255]),
        ([128, 128, 128], [140, 120, 128]),
    ] {
        let expected = uniform_flip(a, b);
        let reference = RgbaImage::from_pixel(32, 24, Rgba([a[0], a[1], a[2], 255]));
        let test = RgbaImage::from_pixel(32, 24, Rgba([b[0], b[1], b[2], 255]));
        let result = flip(&reference, &test).expect("flip");
        // FLIP computes in f32.
        assert!(
            (result.mean - expected).abs() < 2e-3 && (result.p95 - expected).abs() < 2e-3,
            "{a:?} against {b:?}: mean {}, p95 {}, expected {expected}",
            result.mean,
            result.p95
        );
    }
    // Black against white is near FLIP's maximum.
    assert!(uniform_flip([0, 0, 0], [255, 255, 255]) > 0.95);
}

/// The draw commands the last recorded frame or replay left.
fn draw_commands(ctx: &horde::context::Context, renderer: &Renderer) -> Vec<DrawCommand> {
    let [bytes] = read_buffers(
        ctx,
        [(
            &renderer.world.buffers.draw_lists.buffer,
            DRAW_COMMANDS_BYTES,
        )],
    )
    .expect("read the draw commands");
    bytemuck::pod_collect_to_vec(&bytes)
}

/// Visible units per route of the unit types' commands.
fn units_per_route(renderer: &Renderer, commands: &[DrawCommand]) -> Vec<u32> {
    let mut routes = vec![0; MAX_ROUTES as usize];
    for index in renderer.world.unit_commands() {
        routes[(index % MAX_ROUTES) as usize] += commands[index as usize].instance_count;
    }
    routes
}

/// Everything the next frame starts from: the units' GPU state (routes
/// included), the battle's, and the CPU's statistics.
#[derive(Debug, PartialEq)]
struct FrameState {
    units: horde::world::UnitStateReadback,
    battle: horde_battle::BattleReadback,
}

/// The state a replay must leave alone. The order of the units within a
/// grid cell follows the GPU's atomics, not the state: each cell's entries
/// are sorted.
fn frame_state(ctx: &horde::context::Context, renderer: &Renderer) -> FrameState {
    let mut battle = renderer
        .simulation::<Battle>()
        .expect("a battle")
        .read_state(ctx)
        .expect("battle state");
    GridLayout::new(battle.combat.len() as u32).sort_cells(&mut battle.grid);
    FrameState {
        units: renderer.world.read_unit_state(ctx).expect("unit state"),
        battle,
    }
}

/// Runs `frames` frames of two steps each; with `replays`, every frame is
/// followed by the three replays the quality measurement records (the
/// reference, then both unit masks), each checked to leave the state as
/// it found it. Returns the last frame's image, state and statistics.
fn run_battle(
    battle: &BattleScene,
    frames: u32,
    replays: bool,
    occlusion: bool,
) -> (RgbaImage, FrameState, horde::renderer::DrawStats, usize) {
    let mut ctx = gpu_context(None);
    let camera = battle.camera(BattleCamera::Front, WIDTH, HEIGHT);
    let (mut renderer, target) =
        horde_tests::offscreen_renderer(&mut ctx, &battle.scene, WIDTH, HEIGHT);
    renderer.settings.occlusion = occlusion;
    let reference_target = Offscreen::new(
        &ctx,
        &renderer.reference_passes(),
        ash::vk::Extent2D {
            width: 2 * WIDTH,
            height: 2 * HEIGHT,
        },
    )
    .expect("reference target");
    let far_field = renderer.has_far_field();
    for _ in 0..frames {
        renderer
            .simulation_mut::<Battle>()
            .expect("a battle")
            .queue_steps(2);
        renderer
            .render_offscreen(&ctx, &target, &camera, 2.0 / 30.0, replays)
            .expect("render");
        if !replays {
            continue;
        }
        let before = frame_state(&ctx, &renderer);
        let frame_commands = draw_commands(&ctx, &renderer);
        for (path, view, into) in [
            (ReplayPath::Reference, ReplayView::Shaded, &reference_target),
            (ReplayPath::Frame, ReplayView::UnitMask, &target),
            (
                ReplayPath::Reference,
                ReplayView::UnitMask,
                &reference_target,
            ),
        ] {
            renderer
                .replay_offscreen(&ctx, into, &camera, Replay { path, view })
                .expect("replay");
            let commands = draw_commands(&ctx, &renderer);
            match path {
                // The reference draws every visible unit as a LOD 0 mesh.
                ReplayPath::Reference => {
                    let routes = units_per_route(&renderer, &commands);
                    assert!(routes[0] > 0, "{routes:?}");
                    assert!(routes[1..].iter().all(|&count| count == 0), "{routes:?}");
                }
                // The frame's replay culls exactly as the frame did
                // (before the far field's hand-backs, which it repeats).
                // With occlusion culling the commands hold the late phase
                // alone, and the replay starts from the visible bits the
                // frame left, so it draws in the early phase what the
                // frame drew late: only the state is compared.
                ReplayPath::Frame if !occlusion => assert_eq!(
                    units_per_route(&renderer, &commands),
                    units_per_route(&renderer, &frame_commands)
                ),
                ReplayPath::Frame => {}
            }
            assert_eq!(frame_state(&ctx, &renderer), before, "{path:?} {view:?}");
        }
    }
    let stats = renderer.finish(&ctx).expect("finish");
    let image = {
        // One more captured frame with nothing queued, so both runs end on
        // an image; replays or not, it must be the same.
        renderer
            .render_offscreen(&ctx, &target, &camera, 0.0, true)
            .expect("render");
        target.read_rgba().expect("read back")
    };
    let state = frame_state(&ctx, &renderer);
    let timed_frames = renderer
        .profiler
        .stats()
        .iter()
        .find(|scope| scope.name == "frame")
        .map_or(0, |scope| scope.samples);
    assert!(
        renderer
            .profiler
            .stats()
            .iter()
            .all(|scope| scope.name != "replay"),
        "replays are not timed"
    );
    log::info!("far field: {far_field}");
    drop((reference_target, renderer, target));
    finish(ctx);
    (image, state, stats, timed_frames)
}

/// A frame's state, replayed with only the rendering path changed, keeps
/// its poses (and every other piece of state), and the run goes on as if
/// nothing had been replayed: two runs of one seed, one with the replays
/// after every frame and one without, end on the same image, the same
/// state and the same statistics. Without occlusion culling the frame's
/// replay also culls exactly as the frame did.
#[test]
fn replays_share_the_frame_state_and_leave_the_next_frame_alone() {
    replays_leave_the_next_frame_alone(false);
}

/// The same with two-phase occlusion culling, whose visible bits are part
/// of the state a replay must leave alone.
#[test]
fn replays_leave_occlusion_cullings_visible_bits_alone() {
    replays_leave_the_next_frame_alone(true);
}

fn replays_leave_the_next_frame_alone(occlusion: bool) {
    let battle = small_battle(400);
    let frames = 6;
    let (plain_image, plain_state, plain_stats, plain_timed) =
        run_battle(&battle, frames, false, occlusion);
    let (replayed_image, replayed_state, replayed_stats, replayed_timed) =
        run_battle(&battle, frames, true, occlusion);
    assert!(plain_image == replayed_image, "the last frames differ");
    assert_eq!(plain_state, replayed_state);
    // The frame numbers differ (replays take frame slots); the counts not.
    assert_eq!(
        (plain_stats.units_per_lod, plain_stats.units_far_field),
        (replayed_stats.units_per_lod, replayed_stats.units_far_field)
    );
    assert_eq!(plain_stats.props_per_lod, replayed_stats.props_per_lod);
    assert_eq!(
        plain_timed, replayed_timed,
        "replays stay out of the profiler"
    );
}

/// `battle --headless --quality`: the report's figures and images, and a
/// golden image of the reference compared by FLIP. Rasterizers differ in
/// edge coverage and rounding between drivers, so the reference image is
/// accepted within a FLIP mean of 0.05 (a tenth of the pixels off by
/// half the scale, or all of them by a barely visible 0.05), not byte for byte.
#[test]
fn headless_quality_reports_flip_coverage_and_shimmer() {
    let battle = small_battle(400);
    let ctx = gpu_context(None);
    let options = HeadlessOptions {
        steps: 60,
        render_every: 6,
        // The regiments stand along a front wider than the front preset's
        // 140 m: at 160x90 its units would be a pixel tall.
        width: 4 * WIDTH,
        height: 4 * HEIGHT,
        camera: BattleCamera::Front,
        quality: true,
        ..HeadlessOptions::default()
    };
    let result = run_headless(&ctx, &battle, &options);
    finish(ctx);
    let (report, image) = result.expect("headless battle");
    let quality = report.quality.expect("quality figures");
    let images = report.quality_images.expect("quality images");
    assert_eq!(images.reference.dimensions(), image.dimensions());
    assert_eq!(images.flip_error.dimensions(), image.dimensions());
    assert!(
        quality.flip_mean > 0.0 && quality.flip_mean < 0.2,
        "{quality:?}"
    );
    assert!(quality.flip_p95 >= quality.flip_mean * 0.5 && quality.flip_p95 <= 1.0);
    // The front camera's units are meshes in both: their pixels agree to
    // the edges' supersampling.
    let coverage = quality.coverage_ratio.expect("units in the reference");
    assert!((0.8..1.25).contains(&coverage), "{quality:?}");
    assert!(quality.still_flip_mean > 0.0, "the units move: {quality:?}");
    assert!(quality.still_flip_reference_mean > 0.0, "{quality:?}");
    assert!(quality.still_flip_ratio.is_some_and(|r| r > 0.0));
    let json = serde_json::to_value(quality).expect("json");
    for field in [
        "flip_mean",
        "flip_p95",
        "coverage_ratio",
        "still_flip_mean",
        "still_flip_reference_mean",
        "still_flip_ratio",
    ] {
        assert!(json.get(field).is_some(), "{field} in {json}");
    }
    compare_with_reference_by_flip("quality_battle_front_reference", &images.reference, 0.05);
}

/// The box filter of a uniform image is the image, halved.
#[test]
fn box_filter_keeps_uniform_colours() {
    let image = RgbaImage::from_pixel(8, 6, Rgba([17, 120, 240, 255]));
    let half = box_downsample_2x2(&image).expect("even size");
    assert_eq!(half, RgbaImage::from_pixel(4, 3, Rgba([17, 120, 240, 255])));
}

/// A window renderer (BGRA, images left for presentation) measures its
/// presented frame through a replay into a readback target: the replay's
/// pixels are the frame's (read back in RGBA order), so the figures are
/// those of the frame itself.
#[test]
fn a_window_renderers_frame_is_measured_through_its_replay() {
    use ash::vk;
    use horde::target::{Msaa, OFFSCREEN_FORMAT};
    let battle = small_battle(200);
    let ctx = gpu_context(None);
    let camera = battle.camera(BattleCamera::Front, WIDTH, HEIGHT);
    let extent = vk::Extent2D {
        width: WIDTH,
        height: HEIGHT,
    };
    let frame = |format: vk::Format, layout: vk::ImageLayout| {
        let mut renderer =
            Renderer::new(&ctx, format, layout, Msaa::Off, &battle.scene).expect("renderer");
        let target = Offscreen::new(&ctx, &renderer.readback_passes(), extent).expect("target");
        for _ in 0..3 {
            renderer
                .render_offscreen(&ctx, &target, &camera, 1.0 / 30.0, true)
                .expect("render");
        }
        let image = target.read_rgba().expect("read back");
        let measured =
            horde_tools::quality::measure_frame(&ctx, &mut renderer, &target, &camera, &image)
                .expect("measure the frame");
        // Twice: the second measurement replays into the targets the first
        // made.
        let mut targets = None;
        let mut presented = || {
            horde_tools::quality::measure_presented(
                &ctx,
                &mut renderer,
                &camera,
                &mut targets,
                extent,
            )
            .expect("measure through the replay")
        };
        let (first, again) = (presented(), presented());
        assert_eq!(first.flip.mean, again.flip.mean, "the kept targets");
        (image, measured, first)
    };
    let (window_image, measured, presented) =
        frame(vk::Format::B8G8R8A8_SRGB, vk::ImageLayout::PRESENT_SRC_KHR);
    let (offscreen_image, ..) = frame(OFFSCREEN_FORMAT, vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
    finish(ctx);
    assert!(
        window_image == offscreen_image,
        "BGRA read back in RGBA order"
    );
    assert_eq!(measured.flip.mean, presented.flip.mean);
    assert_eq!(measured.coverage_ratio, presented.coverage_ratio);
    assert!(presented.flip.mean > 0.0);
}

/// The reference is one picture whatever the frame's MSAA: a multisampled
/// renderer's reference (drawn by its single-sampled pipelines) equals a
/// single-sampled renderer's, pixel for pixel, on the same battle state,
/// while the frames themselves differ (MSAA blends the edges).
#[test]
fn the_reference_is_single_sampled_whatever_the_frames_msaa() {
    use ash::vk;
    use horde::target::Msaa;
    let battle = small_battle(400);
    let ctx = gpu_context(None);
    let camera = battle.camera(BattleCamera::Front, WIDTH, HEIGHT);
    let extent = vk::Extent2D {
        width: WIDTH,
        height: HEIGHT,
    };
    let pictures: Vec<(RgbaImage, RgbaImage)> = [Msaa::Off, Msaa::X4]
        .into_iter()
        .map(|msaa| {
            let (mut renderer, target) =
                Renderer::new_offscreen(&ctx, &battle.scene, extent, msaa).expect("renderer");
            let doubled = vk::Extent2D {
                width: 2 * WIDTH,
                height: 2 * HEIGHT,
            };
            let reference_target =
                Offscreen::new(&ctx, &renderer.reference_passes(), doubled).expect("target");
            renderer
                .simulation_mut::<Battle>()
                .expect("a battle")
                .queue_steps(30);
            renderer
                .render_offscreen(&ctx, &target, &camera, 1.0, true)
                .expect("render");
            let frame = target.read_rgba().expect("read back");
            let path = ReplayPath::Reference;
            let view = ReplayView::Shaded;
            renderer
                .replay_offscreen(&ctx, &reference_target, &camera, Replay { path, view })
                .expect("reference");
            let reference = reference_target.read_rgba().expect("read back");
            renderer.finish(&ctx).expect("finish");
            (frame, reference)
        })
        .collect();
    finish(ctx);
    let (single, multi) = (&pictures[0], &pictures[1]);
    assert!(single.0 != multi.0, "MSAA changed nothing in the frame");
    assert!(single.1 == multi.1, "the references differ");
}
