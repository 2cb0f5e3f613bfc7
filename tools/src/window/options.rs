//! What an application gives the window and gets back: its options (scene,
//! camera, frame hook, test script) and the report of the run.

use ash::vk;
use horde::camera::Camera;
use horde::context::ContextDesc;
use horde::renderer::RenderSettings;
use horde::renderer::Renderer;
use horde::scene::Scene;
use horde::target::Msaa;

use super::{KeyCode, MouseButton};
use crate::hud::SimulationClock;
use crate::presets::SceneBounds;
use crate::stage::Stage;

/// One line the application adds to the HUD.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HudLine {
    pub label: String,
    pub value: String,
}

/// Called once per frame before recording with the simulation dt in seconds:
/// the frame's wall-clock dt × the HUD's simulation speed, or 0 while paused.
pub type FrameHook = Box<dyn FnMut(&mut Renderer, f32) -> Vec<HudLine>>;

/// Something a script does to the window at a given frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowAction {
    /// Request a new inner size.
    Resize(u32, u32),
    /// Minimize. Without a window manager (Xvfb) the window system ignores the
    /// request, so the 0×0 size a minimized window reports is also fed to the
    /// resize handler directly.
    Minimize,
    /// Restore from minimized, back to the current inner size.
    Restore,
    /// Close the window and end the loop: the frame of that number is still
    /// drawn and submitted, so the run ends with frames in flight.
    Close,
    /// Gain (`true`) or lose the keyboard focus, as the window system's
    /// focus event would.
    Focus(bool),
    /// Make the next swapchain image acquisition fail as
    /// `VK_ERROR_SURFACE_LOST_KHR` (the test-only hook
    /// `Context::fail_next`), as when the window system drops the surface.
    LoseSurface,
    /// Press a key, as a key event would; movement keys stay held until
    /// [`WindowAction::Release`].
    Press(KeyCode),
    /// Release a key.
    Release(KeyCode),
    /// Drag the mouse with `button` by (`dx`, `dy`) pixels from where the
    /// cursor is (the window's centre if it never was inside): press, move,
    /// release.
    Drag {
        button: MouseButton,
        dx: i32,
        dy: i32,
    },
    /// Scroll by lines; positive zooms in.
    Scroll(i32),
}

/// Actions keyed by frame number (counting skipped frames too).
pub type WindowScript = Vec<(u64, WindowAction)>;

/// How to run the window.
pub struct WindowOptions {
    pub title: String,
    pub width: u32,
    pub height: u32,
    pub present_mode: vk::PresentModeKHR,
    pub context: ContextDesc,
    pub scene: Scene,
    /// The camera to start with.
    pub camera: Camera,
    /// Where the scene is: the camera presets and the cinematic path are
    /// built from it (`presets.rs`).
    pub scene_bounds: SceneBounds,
    /// Fog, sky and draw distance for the scene's size (`stage.rs`);
    /// `Stage::default()` for the renderer's own.
    pub stage: Stage,
    pub script: WindowScript,
    pub on_frame: Option<FrameHook>,
    /// A GPU frame budget (ms) the far field and LOD threshold adapt to
    /// (`RenderSettings::budget_ms`); the HUD shows what it chose.
    pub budget_ms: Option<f32>,
    /// The raster path's anti-aliasing.
    pub msaa: Msaa,
    /// Measure the presented frame against its supersampled reference
    /// every this many seconds (`quality::measure_presented`) and show the
    /// figures in the HUD; each measurement stalls the window while the
    /// reference is drawn.
    pub quality_every_s: Option<f32>,
}

/// What a window run did, for tests and logs.
#[derive(Clone, Debug, Default)]
pub struct WindowReport {
    pub frames_presented: u64,
    pub frames_skipped: u64,
    /// Swapchains created with a non-zero size, the first included.
    pub swapchains_created: u32,
    /// The size of each of those swapchains, in creation order.
    pub swapchain_extents: Vec<(u32, u32)>,
    /// Surfaces made again after the window's was lost.
    pub surfaces_recreated: u32,
    /// Focus gained or lost events, real or scripted.
    pub focus_changes: u32,
    pub validation_errors: u32,
    pub validation_warnings: u32,
    pub validation_messages: Vec<String>,
    /// gpu-allocator allocations still alive at shutdown (should be none).
    pub leaked_allocations: Vec<String>,
    /// GPU objects still holding the device at shutdown (should be none).
    pub leaked_objects: usize,
    pub device_name: String,
    pub gpu_ms: Vec<(String, f64)>,
    /// The camera of the last frame.
    pub camera: Option<Camera>,
    /// Frames whose camera differed from the frame before's.
    pub camera_changes: u64,
    /// The render settings at the end (debug views, LOD bias).
    pub settings: RenderSettings,
    /// Pause and simulation speed at the end.
    pub clock: SimulationClock,
    /// Whether the HUD was shown at the end, and frames it was drawn in.
    pub hud_visible: bool,
    pub hud_frames: u64,
    /// Whether the cinematic camera ran at the end.
    pub cinematic: bool,
    /// The quality measurements (FLIP mean, p95 and the units' coverage
    /// ratio), in order, with `WindowOptions::quality_every_s`.
    pub quality: Vec<(f64, f64, Option<f64>)>,
}

/// Fails when the window run saw validation errors or leaked GPU memory or
/// objects, so a window run exits non-zero as a headless one does.
pub fn window_verdict(report: &WindowReport) -> anyhow::Result<()> {
    if report.validation_errors > 0 {
        anyhow::bail!(
            "{} validation errors: {:?}",
            report.validation_errors,
            report.validation_messages
        );
    }
    if !report.leaked_allocations.is_empty() || report.leaked_objects > 0 {
        anyhow::bail!(
            "leaked GPU allocations {:?} and {} objects at exit",
            report.leaked_allocations,
            report.leaked_objects
        );
    }
    Ok(())
}
