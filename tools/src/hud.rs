//! The window's heads-up display: an egui panel of statistics and controls.
//!
//! This module is the application side of the HUD. It feeds winit events to
//! egui (`egui-winit`), builds the panel each frame and tessellates it into
//! a [`HudDraw`], which the engine's HUD pass (`horde::passes::hud`) draws
//! over the scene. The engine sees triangles and textures only, never winit.
//!
//! The panel shows the frame rate and frame time, GPU milliseconds per
//! profiler scope, the units visible per LOD (and far field) and props, the
//! device tier and bone encoding, the camera mode and any lines the
//! application adds ([`HudLine`]). Its controls edit the renderer's
//! [`RenderSettings`] (LOD colours, bounds, shadows, freeze culling, LOD bias) and the
//! [`SimulationClock`] (pause, simulation speed) in place, so a key press
//! and a click change the same state.

use egui::{Color32, RichText};
use horde::camera::Camera;
use horde::passes::hud::HudDraw;
use horde::renderer::{BudgetStatus, DrawStats, RenderSettings};
use winit::event::WindowEvent;
use winit::window::Window;

use crate::window::HudLine;

/// Slowest and fastest simulation speed the slider offers.
pub const SIMULATION_SPEEDS: std::ops::RangeInclusive<f32> = 0.1..=4.0;
/// Smallest and largest LOD bias.
pub const LOD_BIASES: std::ops::RangeInclusive<f32> = (1.0 / 64.0)..=64.0;

/// Pause and speed of simulated time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimulationClock {
    pub paused: bool,
    /// Simulated seconds per wall-clock second, within [`SIMULATION_SPEEDS`].
    pub speed: f32,
}

impl Default for SimulationClock {
    fn default() -> Self {
        SimulationClock {
            paused: false,
            speed: 1.0,
        }
    }
}

impl SimulationClock {
    /// The simulation's dt for a frame of `wall_dt` wall-clock seconds: scaled
    /// by the speed, 0 while paused (or for a dt that is not a duration).
    pub fn simulation_dt(&self, wall_dt: f32) -> f32 {
        if self.paused || !wall_dt.is_finite() || wall_dt <= 0.0 {
            return 0.0;
        }
        let speed = if self.speed.is_finite() {
            self.speed
                .clamp(*SIMULATION_SPEEDS.start(), *SIMULATION_SPEEDS.end())
        } else {
            1.0
        };
        wall_dt * speed
    }
}

/// What the panel reports this frame.
#[derive(Clone, Copy, Debug)]
pub struct HudStats<'a> {
    /// Frames per second and milliseconds per frame, averaged recently.
    pub fps: f64,
    pub frame_ms: f64,
    /// GPU milliseconds per profiler scope (`Profiler::last_frame`).
    pub gpu_ms: &'a [(&'static str, f64)],
    pub draw: &'a DrawStats,
    /// The frame budget's target, its measured cost and the thresholds it
    /// chose, while one steers the frame.
    pub budget: Option<BudgetStatus>,
    /// Device tier and bone encoding, as words.
    pub tier: &'a str,
    pub encoding: &'a str,
    pub cinematic: bool,
    pub lines: &'a [HudLine],
}

/// egui and its winit input state.
pub struct Hud {
    egui: egui::Context,
    input: egui_winit::State,
    /// Drawn and taking input; H toggles it.
    pub visible: bool,
}

impl Hud {
    /// A HUD for `window`; egui's textures stay within `max_texture_side`.
    pub fn new(window: &Window, max_texture_side: u32) -> Hud {
        let egui = new_context();
        let input = egui_winit::State::new(
            egui.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            None,
            Some(max_texture_side as usize),
        );
        Hud {
            egui,
            input,
            visible: true,
        }
    }

    /// Gives egui a window event; true when egui consumed it (a click on the
    /// panel), so the camera should not also act on it.
    pub fn on_window_event(&mut self, window: &Window, event: &WindowEvent) -> bool {
        self.visible && self.input.on_window_event(window, event).consumed
    }

    /// True while the pointer is over the panel or dragging one of its
    /// widgets.
    pub fn wants_pointer(&self) -> bool {
        self.visible && (self.egui.wants_pointer_input() || self.egui.is_pointer_over_area())
    }

    /// True while a widget has keyboard focus.
    pub fn wants_keyboard(&self) -> bool {
        self.visible && self.egui.wants_keyboard_input()
    }

    /// Builds this frame's panel, applying its controls to `settings` and
    /// `clock` (`camera` is where freezing culling freezes it), and returns
    /// what to draw.
    pub fn run(
        &mut self,
        window: &Window,
        stats: &HudStats,
        settings: &mut RenderSettings,
        clock: &mut SimulationClock,
        camera: &Camera,
    ) -> HudDraw {
        let raw_input = self.input.take_egui_input(window);
        let (draw, platform_output) =
            run_panel(&self.egui, raw_input, stats, settings, clock, camera);
        self.input.handle_platform_output(window, platform_output);
        draw
    }
}

/// An egui context styled for the HUD: bright text, so it reads over any
/// scene. (The target blends in linear space, which makes egui's dark
/// translucent fills lighter than egui intends; brighter text and a more
/// opaque panel keep the contrast.)
pub fn new_context() -> egui::Context {
    let egui = egui::Context::default();
    egui.style_mut(|style| {
        style.visuals.override_text_color = Some(Color32::from_gray(235));
    });
    egui
}

/// Runs egui over `raw_input` with the panel and tessellates the result:
/// what [`Hud::run`] does without a window (tests render it offscreen).
pub fn run_panel(
    egui: &egui::Context,
    raw_input: egui::RawInput,
    stats: &HudStats,
    settings: &mut RenderSettings,
    clock: &mut SimulationClock,
    camera: &Camera,
) -> (HudDraw, egui::PlatformOutput) {
    let output = egui.run(raw_input, |ctx| {
        panel(ctx, stats, settings, clock, camera);
    });
    let draw = HudDraw {
        primitives: egui.tessellate(output.shapes, output.pixels_per_point),
        textures: output.textures_delta,
        pixels_per_point: output.pixels_per_point,
    };
    (draw, output.platform_output)
}

/// The panel: statistics, controls and key help in sections that fold, and
/// a scroll bar when the window is too short for them.
fn panel(
    ctx: &egui::Context,
    stats: &HudStats,
    settings: &mut RenderSettings,
    clock: &mut SimulationClock,
    camera: &Camera,
) {
    let frame = egui::Frame::window(&ctx.style()).fill(Color32::from_black_alpha(235));
    egui::Window::new("horde  (H hides)")
        .id(egui::Id::new("horde hud"))
        .frame(frame)
        .anchor(egui::Align2::LEFT_TOP, [8.0, 8.0])
        .resizable(false)
        .collapsible(true)
        .show(ctx, |ui| {
            // Room for the title bar and margins; the rest scrolls.
            let max_height = (ctx.screen_rect().height() - 64.0).max(48.0);
            // Content up to `max_height` is shown whole (egui's default
            // would scroll anything taller than 64 points).
            egui::ScrollArea::vertical()
                .max_height(max_height)
                .min_scrolled_height(max_height)
                .show(ui, |ui| sections(ui, stats, settings, clock, camera));
        });
}

fn sections(
    ui: &mut egui::Ui,
    stats: &HudStats,
    settings: &mut RenderSettings,
    clock: &mut SimulationClock,
    camera: &Camera,
) {
    ui.label(
        RichText::new(format!(
            "{:.0} fps, {:.2} ms per frame",
            stats.fps, stats.frame_ms
        ))
        .strong(),
    );
    egui::CollapsingHeader::new("statistics")
        .default_open(true)
        .show(ui, |ui| statistics(ui, stats));
    egui::CollapsingHeader::new("controls")
        .default_open(true)
        .show(ui, |ui| controls(ui, settings, clock, camera));
    egui::CollapsingHeader::new("keys")
        .default_open(false)
        .show(ui, |ui| {
            ui.label(
                "W/A/S/D or arrows: move; E/PgUp, Q/PgDn: up, down\n\
                         Shift: faster; left drag: orbit; right drag: look\n\
                         scroll: zoom; 1, 2, 3: overview, front line, ground\n\
                         C: cinematic; L, B, F: LOD colours, bounds, freeze\n\
                         +/-: LOD bias; P: pause; H: HUD; Esc: quit",
            );
        });
}

fn statistics(ui: &mut egui::Ui, stats: &HudStats) {
    egui::Grid::new("hud statistics")
        .num_columns(2)
        .spacing([16.0, 2.0])
        .show(ui, |ui| {
            let row = |ui: &mut egui::Ui, label: &str, value: String| {
                ui.label(label);
                ui.monospace(value);
                ui.end_row();
            };
            for (name, ms) in stats.gpu_ms {
                row(ui, &format!("GPU {name}"), format!("{ms:8.3} ms"));
            }
            if let Some(budget) = stats.budget {
                let measured = budget
                    .measured_ms
                    .map_or("-".to_owned(), |ms| format!("{ms:.1}"));
                row(
                    ui,
                    "frame budget",
                    format!("{measured} of {:.1} ms", budget.budget_ms),
                );
                row(
                    ui,
                    "far field below",
                    format!("{:8.1} px", budget.far_field_px),
                );
                row(
                    ui,
                    "LOD error",
                    format!("{:8.2} px", budget.lod_threshold_px),
                );
                if budget.far_field_supersampling_dropped {
                    row(ui, "far field", "1 sample/px".to_owned());
                }
            }
            for (lod, count) in stats.draw.units_per_lod.iter().enumerate() {
                row(ui, &format!("units LOD {lod}"), format!("{count:>11}"));
            }
            row(
                ui,
                "units far field",
                format!("{:>11}", stats.draw.units_far_field),
            );
            row(
                ui,
                "units occluded",
                format!("{:>11}", stats.draw.units_occluded),
            );
            row(ui, "props", format!("{:>11}", stats.draw.props_visible()));
            row(
                ui,
                "props occluded",
                format!("{:>11}", stats.draw.props_occluded),
            );
            row(ui, "tier", stats.tier.to_owned());
            row(ui, "encoding", stats.encoding.to_owned());
            let mode = if stats.cinematic { "cinematic" } else { "free" };
            row(ui, "camera", mode.to_owned());
            for line in stats.lines {
                row(ui, &line.label, line.value.clone());
            }
        });
}

fn controls(
    ui: &mut egui::Ui,
    settings: &mut RenderSettings,
    clock: &mut SimulationClock,
    camera: &Camera,
) {
    ui.horizontal(|ui| {
        ui.checkbox(&mut settings.color_by_lod, "LOD colours (L)");
        ui.checkbox(&mut settings.color_by_mark, "marks (M)");
        ui.checkbox(&mut settings.show_bounds, "bounds (B)");
        ui.checkbox(&mut settings.shadows, "shadows (O)");
    });
    ui.horizontal(|ui| {
        let mut frozen = settings.cull_camera.is_some();
        if ui.checkbox(&mut frozen, "freeze culling (F)").changed() {
            settings.cull_camera = frozen.then_some(*camera);
        }
        ui.checkbox(&mut clock.paused, "pause (P)");
    });
    ui.add(
        egui::Slider::new(&mut settings.lod_bias, LOD_BIASES)
            .logarithmic(true)
            .text("LOD bias (+/-)"),
    );
    ui.add(
        egui::Slider::new(&mut clock.speed, SIMULATION_SPEEDS)
            .logarithmic(true)
            .text("simulation speed")
            .suffix("×"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulation_dt_scales_pauses_and_rejects_bad_input() {
        let mut clock = SimulationClock::default();
        assert_eq!(clock.simulation_dt(0.02), 0.02);
        clock.speed = 2.0;
        assert!((clock.simulation_dt(0.02) - 0.04).abs() < 1e-6);
        clock.speed = 100.0;
        assert!(
            (clock.simulation_dt(0.02) - 0.08).abs() < 1e-6,
            "clamped to 4×"
        );
        clock.speed = f32::NAN;
        assert_eq!(clock.simulation_dt(0.02), 0.02);
        clock.paused = true;
        assert_eq!(clock.simulation_dt(0.02), 0.0);
        clock.paused = false;
        assert_eq!(clock.simulation_dt(f32::NAN), 0.0);
        assert_eq!(clock.simulation_dt(-1.0), 0.0);
    }
}
