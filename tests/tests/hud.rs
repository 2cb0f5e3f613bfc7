//! The HUD pass offscreen: the window's egui panel (`horde_tools::hud`),
//! built without a window and drawn over the first scene by the renderer's
//! HUD pass into the offscreen target. Checks that the panel shows (its
//! corner differs from the scene drawn without it, the rest does not), that
//! font-atlas uploads, a texture update and a 0×0-sized frame work, and that
//! validation (synchronization included) stays silent. The image is written
//! to `target/test-output/hud.png` for a look.

use horde::renderer::{BudgetStatus, DrawStats};
use horde_tests::{finish, gpu_context, offscreen_renderer, output_dir};
use horde_tools::first_scene::{first_scene, first_scene_camera};
use horde_tools::hud::{new_context, run_panel, HudStats, SimulationClock};
use horde_tools::window::HudLine;

const UNITS: u32 = 256;
const WIDTH: u32 = 640;
const HEIGHT: u32 = 400;

/// Input for one egui frame of a `width` × `height` pixel screen.
fn raw_input(width: u32, height: u32, time: f64) -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(width as f32, height as f32),
        )),
        time: Some(time),
        ..egui::RawInput::default()
    }
}

#[test]
fn hud_draws_over_the_scene_with_clean_validation() {
    let mut ctx = gpu_context(None);
    let scene = first_scene(UNITS);
    let camera = first_scene_camera(UNITS);
    let (mut renderer, target) = offscreen_renderer(&mut ctx, &scene, WIDTH, HEIGHT);
    let dt = 1.0 / 60.0;
    renderer
        .render_offscreen(&ctx, &target, &camera, dt, true)
        .expect("render without the HUD");
    let without = target.read_rgba().expect("read back");

    let egui = new_context();
    let mut clock = SimulationClock::default();
    let lines = vec![HudLine {
        label: "battle".to_owned(),
        value: "red 128, blue 128".to_owned(),
    }];
    let stats_draw = DrawStats {
        units_per_lod: vec![100, 50, 25],
        units_far_field: 3,
        ..DrawStats::default()
    };
    let gpu_ms = [
        ("frame", 1.234),
        ("cull", 0.05),
        ("draw", 0.9),
        ("hud", 0.02),
    ];
    let frames = 12;
    for frame in 0..frames {
        let stats = HudStats {
            fps: 60.0,
            frame_ms: 16.7,
            gpu_ms: &gpu_ms,
            draw: &stats_draw,
            budget: Some(BudgetStatus {
                budget_ms: 16.6,
                measured_ms: Some(15.2),
                far_field_px: 24.0,
                lod_threshold_px: 1.4,
                far_field_supersampling_dropped: frame % 2 == 1,
            }),
            tier: "desktop",
            encoding: "mat3x4",
            cinematic: false,
            lines: &lines,
        };
        // Frame 3 is 0×0 (a minimized window): nothing to draw, still valid.
        let (width, height) = if frame == 3 { (0, 0) } else { (WIDTH, HEIGHT) };
        let (draw, _) = run_panel(
            &egui,
            raw_input(width, height, frame as f64 * f64::from(dt)),
            &stats,
            &mut renderer.settings,
            &mut clock,
            &camera,
        );
        if frame == 0 {
            assert!(
                !draw.textures.set.is_empty(),
                "the first frame uploads the font atlas"
            );
        }
        renderer.set_hud(draw);
        if frame != 3 {
            renderer
                .render_offscreen(&ctx, &target, &camera, 0.0, frame + 1 == frames)
                .expect("render with the HUD");
        }
    }
    let with = target.read_rgba().expect("read back");
    with.save(output_dir().join("hud.png"))
        .expect("write hud.png");

    // The panel sits in the top-left corner; the far corner is the scene.
    let differing = |x0: u32, y0: u32, x1: u32, y1: u32| {
        let mut count = 0;
        for y in y0..y1 {
            for x in x0..x1 {
                if with.get_pixel(x, y) != without.get_pixel(x, y) {
                    count += 1;
                }
            }
        }
        count as f64 / f64::from((x1 - x0) * (y1 - y0))
    };
    let panel = differing(10, 10, 150, 150);
    let far_corner = differing(WIDTH - 60, HEIGHT - 60, WIDTH, HEIGHT);
    assert!(panel > 0.5, "the HUD covers its corner ({panel})");
    assert!(
        far_corner < 0.01,
        "the scene elsewhere is untouched ({far_corner})"
    );
    drop((renderer, target));
    finish(ctx);
}
