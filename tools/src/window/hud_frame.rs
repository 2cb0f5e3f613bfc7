//! The HUD of a window frame: the renderer's figures and the application's
//! lines, laid out by egui (`crate::hud`) and handed to the renderer to draw
//! over the frame.

use horde::camera::Camera;

use super::running::Running;
use super::HudLine;
use crate::hud::{HudStats, SimulationClock};

/// What the window knows of this frame, for the HUD.
pub(super) struct HudFrame<'a> {
    /// Milliseconds per frame, smoothed.
    pub frame_ms: f64,
    pub cinematic: bool,
    /// The application's lines and the quality figures.
    pub lines: &'a [HudLine],
    pub camera: &'a Camera,
}

/// Builds the HUD of this frame, if it is shown and the window is not
/// minimized, and sets it on the renderer; true if it did.
pub(super) fn show_hud(
    running: &mut Running,
    frame: &HudFrame,
    clock: &mut SimulationClock,
) -> bool {
    let extent = running.window_extent;
    if !running.hud.visible || extent.width == 0 || extent.height == 0 {
        return false;
    }
    let renderer = &mut running.renderer;
    let (tier, encoding) = (running.ctx.tier.name(), renderer.world.encoding.name());
    let stats = HudStats {
        fps: if frame.frame_ms > 0.0 {
            1e3 / frame.frame_ms
        } else {
            0.0
        },
        frame_ms: frame.frame_ms,
        gpu_ms: renderer.profiler.last_frame(),
        draw: &renderer.stats,
        budget: renderer.budget(),
        tier,
        encoding,
        cinematic: frame.cinematic,
        lines: frame.lines,
    };
    let draw = running.hud.run(
        &running.window,
        &stats,
        &mut renderer.settings,
        clock,
        frame.camera,
    );
    renderer.set_hud(draw);
    true
}
