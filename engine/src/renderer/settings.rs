//! What a frame is asked to do: the scene's lighting and fog, the strategy
//! that draws the crowd (ours or a baseline), and the runtime settings of
//! culling, LOD, the far field and the debug views.

use glam::Vec3;

use crate::camera::Camera;
use crate::shadow::SHADOW_LOD_THRESHOLD_TEXELS;
use crate::target::SKY_COLOR;
use crate::Error;

/// Lighting and fog of the scene.
#[derive(Clone, Copy, Debug)]
pub struct Environment {
    /// Direction towards the sun.
    pub sun_direction: Vec3,
    pub sun_color: Vec3,
    pub ambient: f32,
    pub fog_color: Vec3,
    pub fog_density: f32,
    /// The lowest and the highest ground (world Y): shadow cascades start
    /// at the camera's height above the highest, the nearest ground it can
    /// see, and cover what stands between the two (`shadow.rs`).
    pub ground_bottom: f32,
    pub ground_top: f32,
}

impl Default for Environment {
    fn default() -> Self {
        Environment {
            sun_direction: Vec3::new(0.4, 0.8, 0.3).normalize(),
            sun_color: Vec3::new(1.0, 0.95, 0.85),
            ambient: 0.35,
            fog_color: Vec3::new(SKY_COLOR[0], SKY_COLOR[1], SKY_COLOR[2]),
            fog_density: 0.0015,
            ground_bottom: 0.0,
            ground_top: 0.0,
        }
    }
}

/// How a frame draws the crowd: horde's GPU-driven frame, or one of the
/// baselines it is measured against (DESIGN.md, "Baselines"). All draw the
/// same scene with the same animation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// CPU animation and skinning into a dynamic vertex buffer, one draw per
    /// unit, LOD 0, no culling (a skinned mesh renderer).
    Naive,
    /// Bone-texture skinning, one instanced draw per type of every unit at
    /// LOD 0, no culling (GPU Gems 3 ch. 2).
    Instanced,
    /// Culling and LOD on CPU worker threads, the instance lists uploaded
    /// per frame, an indirect draw per LOD (Unite Austin 2017).
    CpuCulled,
    /// Animation, culling, LOD and draw commands on the GPU: horde's frame.
    #[default]
    GpuDriven,
}

impl Strategy {
    /// Every strategy, baselines first.
    pub const ALL: [Strategy; 4] = [
        Strategy::Naive,
        Strategy::Instanced,
        Strategy::CpuCulled,
        Strategy::GpuDriven,
    ];

    /// The name the command lines and reports use.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Naive => "naive",
            Strategy::Instanced => "instanced",
            Strategy::CpuCulled => "cpu-culled",
            Strategy::GpuDriven => "gpu-driven",
        }
    }
}

impl std::str::FromStr for Strategy {
    type Err = Error;

    fn from_str(name: &str) -> Result<Strategy, Error> {
        Strategy::ALL
            .into_iter()
            .find(|strategy| strategy.name() == name)
            .ok_or_else(|| {
                Error::Config(format!(
                    "unknown strategy '{name}' (naive, instanced, cpu-culled, gpu-driven)"
                ))
            })
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Runtime settings of culling, LOD and the debug views.
#[derive(Clone, Copy, Debug)]
pub struct RenderSettings {
    /// Screen-space error, in pixels, a LOD may show before a finer one is used.
    pub lod_threshold_px: f32,
    /// Divides the threshold, as Unity's LOD bias: above 1 finer LODs reach
    /// farther, below 1 coarser LODs come nearer.
    pub lod_bias: f32,
    /// Fraction by which a coarser LOD must beat the threshold to be taken.
    pub lod_hysteresis: f32,
    /// Nothing farther than this is drawn.
    pub max_draw_distance: f32,
    /// Units projecting smaller than this many pixels (bounding-sphere
    /// diameter) go to the far field (0: every visible unit is drawn as a
    /// mesh). [`Renderer::new`](super::Renderer::new) sets [`DEFAULT_FAR_FIELD_PX`] where the
    /// device has the far field; elsewhere any value acts as 0.
    pub far_field_px: f32,
    /// The far field samples each pixel on a 2×2 grid and the resolve
    /// averages the samples, so units a few pixels tall are antialiased
    /// and sub-pixel parts still cover their share of a pixel
    /// (`passes/far_field/mod.rs`, "Supersampling"); off: one sample at each
    /// pixel's centre.
    pub far_field_supersampling: bool,
    /// Draw distant units as animated impostors, their type's last LOD
    /// (`passes/impostor.rs`), where the types have one. [`Renderer::new`](super::Renderer::new)
    /// turns them on where the device has no far field (the mobile tier).
    pub impostors: bool,
    /// The impostor is taken where its projected error is at most this many
    /// pixels (the LOD rule with its own threshold, which the frame budget
    /// moves on a device without the far field).
    pub impostor_threshold_px: f32,
    /// The mesh ↔ impostor crossfade band, a fraction of the threshold.
    pub impostor_band: f32,
    /// Colour every unit and prop by its LOD.
    pub color_by_lod: bool,
    /// Colour every unit by the mark its simulation gave it (the battle:
    /// its regiment's state); under `color_by_lod`.
    pub color_by_mark: bool,
    /// Cull from this camera instead of the view camera (freeze culling).
    pub cull_camera: Option<Camera>,
    /// Draw every visible instance's bounding sphere.
    pub show_bounds: bool,
    /// Skin units; when off they are drawn static in their bind pose through
    /// the prop pipeline (the benchmark's skinned-versus-static comparison).
    pub skinning: bool,
    /// The GPU-driven frame or a baseline.
    pub strategy: Strategy,
    /// A GPU frame-time budget in milliseconds: where set, `far_field_px`
    /// (where the device has the far field; else `impostor_threshold_px`,
    /// with impostors on) and the LOD threshold follow it, adapted every
    /// frame from the frame time (see `far_field_budget`).
    pub budget_ms: Option<f32>,
    /// The largest far-field size the budget may choose, pixels
    /// ([`BUDGET_MAX_FAR_FIELD_PX`] unless set; at least the size it starts
    /// from).
    pub budget_max_far_field_px: f32,
    /// Where the budget's frame time comes from.
    pub budget_source: BudgetSource,
    /// The sun casts shadows (`passes/shadow.rs`): units and props onto the
    /// ground and each other, in the GPU-driven frame. Off by default; the
    /// battle demo turns them on.
    pub shadows: bool,
    /// Metres of view distance the shadows cover past the nearest ground
    /// the camera sees.
    pub shadow_distance: f32,
    /// The casters' LOD threshold: each cascade draws a caster at the
    /// coarsest LOD whose error stays within this many texels (divided by
    /// `lod_bias`, as the camera's threshold is).
    pub shadow_lod_texels: f32,
    /// The far field's compute rasterizer draws the shadow casters spanning
    /// up to `shadow::SHADOW_FAR_FIELD_TEXELS` (where the device has the
    /// far field), whatever `far_field_px` is: a camera with every unit a
    /// mesh keeps the far crowd's shadows cheap. Off: every caster a mesh
    /// (the reference's).
    pub shadow_far_field: bool,
    /// The shadow cascades past the first take turns, one drawn a frame;
    /// the others keep their last frame's depths, looked up as they were
    /// drawn (`passes/shadow/turns.rs`). Off: every cascade every frame
    /// (the reference's).
    pub shadow_cascades_in_turn: bool,
    /// Two-phase occlusion culling (`passes/cull.rs`): units and props
    /// hidden behind what was drawn are not drawn. The GPU-driven frame's,
    /// and only where the cull's camera is the view's (not with
    /// `cull_camera`).
    pub occlusion: bool,
}

/// The frame time the budget controller acts on.
#[derive(Clone, Copy, Debug, Default)]
pub enum BudgetSource {
    /// The profiler's GPU timestamps of the last measured frame.
    #[default]
    GpuTimestamps,
    /// A cost model over the last frame's statistics (visible units per
    /// LOD, far-field units), for a reproducible run: the headless test of
    /// the controller, or a budget study on a device without timestamps.
    Model(fn(&crate::passes::statistics::DrawStats) -> f32),
}

/// What the budget controller is doing, for a HUD or a report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BudgetStatus {
    pub budget_ms: f32,
    /// The averaged frame time of its last decision, once there was one.
    pub measured_ms: Option<f32>,
    /// The far-field size (or, steering impostors, the impostor threshold)
    /// and the LOD threshold it chose, pixels.
    pub far_field_px: f32,
    pub lod_threshold_px: f32,
    /// Over budget at its largest far field, it took the far field's
    /// supersampling off (`renderer/budget.rs`).
    pub far_field_supersampling_dropped: bool,
}

/// The far-field size the renderer starts with where the device has the far
/// field: units whose bounding sphere spans at most 100 pixels (about 37 px
/// tall), which the far field draws at their LOD 3 or LOD 2, the latter by
/// its mid-size pipeline (`passes/far_field/mod.rs`). The frame budget's steps
/// towards detail stop there. On an H100 the 10k front preset's frame fell
/// from 16.6 ms (12 px) to 10.4 ms (48 px) and 6.9 ms (100 px)
/// (`benches/results/near_field/`).
pub const DEFAULT_FAR_FIELD_PX: f32 = 100.0;
/// The same on a CPU device (lavapipe), where the compute rasterizer is no
/// faster than the raster: units up to 12 pixels, the far field's size
/// before it took mid-size units. There the frame budget never grows it
/// (`renderer/budget.rs`).
pub const SOFTWARE_DEFAULT_FAR_FIELD_PX: f32 = 12.0;

/// The impostor threshold the renderer starts with: the mesh LODs' 1 pixel.
pub const DEFAULT_IMPOSTOR_THRESHOLD_PX: f32 = 1.0;
/// Bounds of the impostor threshold the frame budget may choose, pixels.
pub const BUDGET_MIN_IMPOSTOR_THRESHOLD_PX: f32 = 0.25;
pub const BUDGET_MAX_IMPOSTOR_THRESHOLD_PX: f32 = 32.0;

/// Bounds of the far-field size the frame budget may choose, pixels. It
/// starts from `RenderSettings::far_field_px` (at least the lower bound)
/// and goes below it only over budget where the far field is the slower
/// (`BudgetController::with_detail_floor`); on a CPU device the upper
/// bound is the start size. 192 rather than 128: at the 1M ground preset,
/// over budget at 128 px even with the far field's supersampling dropped
/// (18.05 ms), the far field drawing the units up to 192 px (their 0.3 LOD
/// in its mid-size pipeline, the LOD threshold following to 1.39 px) held
/// the frame at 14.95 ms, FLIP 0.0126 → 0.0128 against the reference
/// (H100, side by side, `benches/results/near_field/`, call 15).
pub const BUDGET_MIN_FAR_FIELD_PX: f32 = 2.0;
pub const BUDGET_MAX_FAR_FIELD_PX: f32 = 192.0;

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            lod_threshold_px: 1.0,
            lod_bias: 1.0,
            lod_hysteresis: 0.25,
            max_draw_distance: 2000.0,
            far_field_px: 0.0,
            far_field_supersampling: true,
            impostors: false,
            impostor_threshold_px: DEFAULT_IMPOSTOR_THRESHOLD_PX,
            impostor_band: crate::passes::impostor::DEFAULT_IMPOSTOR_BAND,
            color_by_lod: false,
            color_by_mark: false,
            cull_camera: None,
            show_bounds: false,
            skinning: true,
            strategy: Strategy::GpuDriven,
            budget_ms: None,
            budget_max_far_field_px: BUDGET_MAX_FAR_FIELD_PX,
            budget_source: BudgetSource::GpuTimestamps,
            shadows: false,
            shadow_distance: 300.0,
            shadow_lod_texels: SHADOW_LOD_THRESHOLD_TEXELS,
            shadow_far_field: true,
            shadow_cascades_in_turn: true,
            occlusion: true,
        }
    }
}
