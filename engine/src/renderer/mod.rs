//! The renderer: records one frame, the same way for the offscreen target and
//! the window. The CPU records a constant number of commands whatever the
//! unit count; every per-unit step runs on the GPU.
//!
//! The frame is one list, in `Renderer::record`:
//! 1. `upload`: the world's pending commands (spawns, orders, teleports) and
//!    buffer growth;
//! 2. the simulation slot (`simulation.rs`): an application's GPU
//!    simulation, when the scene names one (the battle demo's fixed steps
//!    move units, make them fight and fall, and set their animation
//!    inputs: the `horde-battle` crate);
//! 3. `simulate`: without a simulation, units move by their velocity;
//! 4. `animate`: the animation state machine of every unit;
//! 5. `shadow cull`, `shadow splat`, `shadow far field`, `shadow seed`,
//!    `shadow draw` (with `RenderSettings::shadows`; the mobile tier:
//!    `shadow cull`, `shadow draw`, `shadow merge`): the sun's cascaded
//!    shadow maps, their casters culled per cascade by the cull's shader,
//!    the smallest far ones splatted, the others rasterized by the far
//!    field's, depth only, into the receivers' depths, the rest drawn into
//!    them (on the mobile tier into a depth image, then merged)
//!    (`passes/shadow/`);
//! 6. `cull`: frustum, route (mesh LOD or far field), instance lists and
//!    draw commands, for units and props; with occlusion culling
//!    (`RenderSettings::occlusion`), its early phase: only the instances
//!    visible last frame;
//! 7. `far field` (where the device has 64-bit atomics and
//!    `far_field_px > 0`): far units skinned and rasterized by a compute
//!    shader into a visibility buffer; a unit it cannot take joins the
//!    instance list of the mesh LOD the far field draws;
//! 8. `statistics`: the draw commands copied for the CPU to read later;
//! 9. `bounds` (debug view): the sphere commands' instance counts;
//! 10. `draw`: the main render pass, two indirect draws, then the
//!     impostors' one (`impostors` on, where the unit types have them) and
//!     the far field's resolve, over the tiles holding a far-field sample
//!     (listed by `far field tiles` just before); with occlusion culling,
//!     the render pass's early part (without the resolve), and then:
//!     - `depth pyramid`: the min-depth pyramid of what it and the far
//!       field drew;
//!     - `cull late`: the cull's late phase, every other instance in the
//!       frustum tested against the pyramid, and whether each drawn one is
//!       still visible (for the next frame's early phase);
//!     - `far field late`: the far-field units the late phase listed,
//!       into the same visibility buffer; `far field tiles` after it;
//!     - `statistics late`: its commands and counts of hidden instances;
//!     - `draw late`: the render pass's late part, over the early one,
//!       and the far field's resolve last;
//! 11. `hud` (when the application set one with [`Renderer::set_hud`]):
//!     egui's texture uploads, then its triangles in the overlay render pass,
//!     over the finished image (`passes/hud.rs`).
//!
//! [`Strategy`] swaps steps 6 and 7 for a baseline's, whose lists the
//! statistics and draw passes then read (the bounds view and the far field
//! are the GPU-driven frame's alone): `instanced` draws every unit at LOD 0
//! from lists written when the units change (`baselines/instanced.rs`),
//! `cpu-culled` culls on the CPU and uploads the lists each frame
//! (`baselines/cpu_cull.rs`), and `naive` replaces steps 4 to 8 too: it
//! animates and skins on the CPU, counts what it draws, and draws each unit
//! on its own (`baselines/naive.rs`). The GPU-driven list is unchanged.
//!
//! Each pass declares the buffers it uses; the barriers between them follow
//! (`barriers.rs`), so passes without a dependency (animate and cull) may
//! overlap on the GPU. The `frame` timestamp scope spans all of them.
//! Adding a pass means its file in `passes/`, its shader, and one line
//! here. Before recording, the frame slot's fence is waited on,
//! its timestamps and statistics (from `FRAMES_IN_FLIGHT` frames ago) are
//! read without stalling, and resources whose last user has completed are
//! released. Offscreen, the colour image is then copied to the readback
//! buffer; in a window the frame is submitted with the acquire and present
//! semaphores and presented. [`Renderer::finish`] waits for the frames in
//! flight and reads what they left, for reports at the end of a run.
//!
//! A fatal GPU error (device lost, out of memory) from any call of a frame
//! comes back as [`Error::InFrame`], naming the frame and the last pass
//! recorded (the profiler's crash marker).
//!
//! Creating the renderer lives in `setup.rs`. What a frame is asked to do
//! (lighting, strategy, LOD and far-field settings, debug views) lives in
//! `settings.rs`; how the frame budget sets
//! them before each frame, in `budget.rs`; the submissions (offscreen, replay,
//! window) and the wait at the end of a run, in `submit.rs`.
//!
//! [`Renderer::replay_offscreen`] records the same list as a replay of the
//! last frame's state with other settings, for the quality measurement: no
//! upload, simulation, animate or statistics, and the cull's routes kept
//! (`replay.rs`).

use ash::vk;

use crate::barriers::Tracker;
use crate::baselines::cpu_cull::CpuCullPass;
use crate::baselines::instanced::InstancedPass;
use crate::baselines::naive::NaivePass;
use crate::camera::Camera;
use crate::config::{
    DEBUG_VIEW_LOD, DEBUG_VIEW_MARKS, DEBUG_VIEW_SHADED, DEBUG_VIEW_UNIT_MASK,
    FAR_FIELD_SAMPLES_PER_AXIS,
};
use crate::context::{Context, Gpu};
use crate::far_field_budget::BudgetController;
use crate::frame::Frame;
use crate::frame_graph::{FrameGraph, GraphRecorder};
use crate::frames::{FrameStart, Frames};
use crate::memory::{Buffer, DeferredRelease};
use crate::owned::RenderPass;
use crate::passes::animate::{AnimateBuffers, AnimatePass};
use crate::passes::bounds::BoundsPass;
use crate::passes::cull::{
    cull_globals, set_occlusion_target, CullBatch, CullPass, CullPhase, CullTargets,
};
use crate::passes::depth_pyramid::DepthPyramidPass;
use crate::passes::draw::{DrawInputs, DrawOptions, DrawPass, DrawTarget, ExtraDraw};
use crate::passes::far_field::FarFieldPass;
use crate::passes::hud::{HudDraw, HudPass, HudTarget};
use crate::passes::impostor::ImpostorPass;
use crate::passes::shadow::ShadowPass;
use crate::passes::simulate::SimulatePass;
use crate::passes::statistics::StatisticsPass;
use crate::passes::upload::UploadPass;
use crate::profiler::Profiler;
use crate::simulation::{Simulation, SimulationUnits};
use crate::target::{FramebufferHandles, MainPasses, Msaa, SKY_COLOR};
use crate::world::World;
use crate::Error;
use std::sync::Arc;

pub use crate::passes::statistics::DrawStats;

mod budget;
mod globals;
mod replay;
mod settings;
mod setup;
mod submit;
mod targets;
use replay::{reference_settings, RouteSnapshot};
pub use replay::{Replay, ReplayPath, ReplayView};
pub use settings::{
    BudgetSource, BudgetStatus, Environment, RenderSettings, Strategy, BUDGET_MAX_FAR_FIELD_PX,
    BUDGET_MAX_IMPOSTOR_THRESHOLD_PX, BUDGET_MIN_FAR_FIELD_PX, BUDGET_MIN_IMPOSTOR_THRESHOLD_PX,
    DEFAULT_FAR_FIELD_PX, DEFAULT_IMPOSTOR_THRESHOLD_PX, SOFTWARE_DEFAULT_FAR_FIELD_PX,
};
pub use submit::WindowFrame;
use targets::SingleSampled;

/// What a recorded frame does: a step of the world, or a replay of the last
/// one's state.
#[derive(Clone, Copy, Debug)]
enum FrameKind {
    /// Upload, simulate and animate by `dt` seconds, then draw.
    Step { dt: f32 },
    /// Draw the state the last frame left again (`replay.rs`).
    Replay(Replay),
}

/// Everything that draws a frame. Fields drop in declaration order, the
/// reverse of creation order, after [`Drop`] has idled the device.
pub struct Renderer {
    pub profiler: Profiler,
    pub frames: Frames,
    /// Resources replaced while frames that used them were in flight.
    pub deferred: DeferredRelease,
    hud: HudPass,
    /// The HUD frame to draw next, if the application set one.
    hud_draw: Option<HudDraw>,
    draw: DrawPass,
    /// The sun's shadow map and its passes.
    shadow: ShadowPass,
    naive: NaivePass,
    cpu_cull: CpuCullPass,
    instanced: InstancedPass,
    far_field: Option<FarFieldPass>,
    /// Where some unit type has an impostor.
    impostor: Option<ImpostorPass>,
    bounds: BoundsPass,
    statistics: StatisticsPass,
    depth_pyramid: DepthPyramidPass,
    cull: CullPass,
    animate: AnimatePass,
    simulate: SimulatePass,
    /// The application's simulation, if the scene named one.
    simulation: Option<Box<dyn Simulation>>,
    upload: UploadPass,
    globals: Vec<Buffer>,
    /// The main render pass, whole and in its early and late parts.
    pub render_passes: MainPasses,
    /// Draws the HUD over what the main pass left in the target's image.
    pub overlay_render_pass: RenderPass,
    /// The same two passes leaving the image ready for a readback copy
    /// (`TRANSFER_SRC_OPTIMAL`), for the offscreen targets of a renderer
    /// that draws into a window (the quality measurement's replays); the
    /// pipelines serve both, as the passes differ only in final layouts.
    readback_render_passes: Option<(MainPasses, RenderPass)>,
    /// With MSAA on: what a reference replay draws with instead
    /// ([`SingleSampled`]).
    single_sampled: Option<SingleSampled>,
    color_format: vk::Format,
    /// The raster path's samples per pixel, fixed for the renderer's life.
    pub msaa: Msaa,
    pub world: World,
    tracker: Tracker,
    pub environment: Environment,
    pub settings: RenderSettings,
    /// The latest statistics read back.
    pub stats: DrawStats,
    /// CPU milliseconds the last frame spent recording and submitting, fence
    /// waits excluded.
    pub cpu_ms: f64,
    /// Seconds of animation since the start.
    time: f32,
    /// Adapts `settings.far_field_px` to `settings.budget_ms`.
    budget: Option<BudgetController>,
    /// The device's compute rasterizer outruns its raster (a GPU, not a
    /// CPU device): the budget may grow the far field past its start.
    far_field_outruns_raster: bool,
    /// The cull's routes, kept across a replay.
    replay_routes: RouteSnapshot,
    /// For the idle wait in `drop`.
    gpu: Arc<Gpu>,
}

impl Renderer {
    /// The scene's simulation, as the application's own type `S` (`None`
    /// without one, or when it is of another type).
    pub fn simulation<S: Simulation>(&self) -> Option<&S> {
        self.simulation.as_deref()?.as_any().downcast_ref()
    }

    /// As [`Renderer::simulation`], mutably.
    pub fn simulation_mut<S: Simulation>(&mut self) -> Option<&mut S> {
        self.simulation.as_deref_mut()?.as_any_mut().downcast_mut()
    }

    /// Records the next frame's passes and uses for the frame graph
    /// (`frame_graph.rs`); [`Renderer::take_frame_graph`] returns it.
    pub fn capture_frame_graph(&mut self) {
        self.tracker.graph = Some(GraphRecorder::default());
    }

    /// The graph of the frame recorded since
    /// [`Renderer::capture_frame_graph`], once that frame is recorded.
    pub fn take_frame_graph(&mut self, ctx: &Context) -> Option<FrameGraph> {
        let recorder = self.tracker.graph.take()?;
        Some(recorder.finish(|buffer| ctx.buffer_name(buffer)))
    }

    /// Whether this renderer has the far field (the device's features and
    /// tier allow it); without it `settings.far_field_px` has no effect.
    pub fn has_far_field(&self) -> bool {
        self.far_field.is_some()
    }

    /// Waits for the next frame slot and takes what its last frame left;
    /// `measured`: whether the profiler times the frame (replays are not).
    fn begin_frame(&mut self, ctx: &Context, measured: bool) -> Result<FrameStart, Error> {
        let start = self.frames.begin(ctx)?;
        if let Some(completed) = start.completed {
            self.deferred.collect(completed);
        }
        if measured {
            self.profiler.begin_frame(ctx, start.cmd, start.slot);
        } else {
            self.profiler.begin_unmeasured_frame(ctx, start.slot);
        }
        if let Some(stats) = self.statistics.take(start.slot, &self.world) {
            self.stats = stats;
        }
        if let Some(simulation) = &mut self.simulation {
            simulation.frame_completed(start.slot);
        }
        Ok(start)
    }

    /// Whether this renderer can draw impostors (some unit type has one);
    /// without them `settings.impostors` has no effect.
    pub fn has_impostors(&self) -> bool {
        self.impostor.is_some()
    }

    /// The frame: every pass, in order, into `framebuffers`.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        ctx: &Context,
        start: &FrameStart,
        framebuffers: FramebufferHandles,
        extent: vk::Extent2D,
        camera: &Camera,
        kind: FrameKind,
    ) -> Result<(), Error> {
        let (dt, replay) = match kind {
            FrameKind::Step { dt } => (dt, None),
            FrameKind::Replay(replay) => (0.0, Some(replay)),
        };
        let reference = replay.is_some_and(|r| r.path == ReplayPath::Reference);
        if replay.is_none() {
            self.time += dt;
            self.follow_budget();
        }
        let settings = if reference {
            reference_settings(&self.settings)
        } else {
            self.settings
        };
        let debug_view = if replay.is_some_and(|r| r.view == ReplayView::UnitMask) {
            DEBUG_VIEW_UNIT_MASK
        } else if settings.color_by_lod {
            DEBUG_VIEW_LOD
        } else if settings.color_by_mark {
            DEBUG_VIEW_MARKS
        } else {
            DEBUG_VIEW_SHADED
        };
        // The reference's far field is off: this is the frame's.
        let supersampling_dropped = self.far_field_supersampling_dropped();
        // The reference allows no LOD error, whatever the budget chose.
        let lod_threshold_scale = match &self.budget {
            Some(budget) if !reference => budget.lod_threshold_scale(),
            _ => 1.0,
        };
        let mut cull = cull_globals(
            settings.cull_camera.as_ref().unwrap_or(camera),
            extent.width.max(1) as f32 / extent.height.max(1) as f32,
            extent.height.max(1) as f32,
            settings.lod_threshold_px * lod_threshold_scale,
            settings.lod_bias,
            settings.lod_hysteresis,
            settings.max_draw_distance,
        );
        // Without the far field's pass (mobile tier, no 64-bit atomics) far
        // units stay meshes, at the LOD their projected error picks.
        // A world without units records no far field at all, and the
        // baselines have none: their cull keeps every unit a mesh.
        let has_units = self.world.unit_count() > 0;
        let far_field_on =
            settings.far_field_px > 0.0 && has_units && settings.strategy == Strategy::GpuDriven;
        // Occlusion culling tests against the view's depth: not with a
        // frozen cull camera.
        let occlusion_on = settings.occlusion
            && settings.strategy == Strategy::GpuDriven
            && settings.cull_camera.is_none();
        // Impostors: the GPU-driven frame's alone (the baselines' lists
        // have no impostor command), as the LOD rule's last step.
        let impostors_on = self.impostor.is_some()
            && settings.impostors
            && has_units
            && settings.strategy == Strategy::GpuDriven;
        if impostors_on {
            cull.impostor_threshold_px =
                settings.impostor_threshold_px / settings.lod_bias.max(f32::MIN_POSITIVE);
            cull.impostor_band = settings.impostor_band.max(0.0);
        }
        if far_field_on && self.far_field.is_some() {
            cull.far_field_px = settings.far_field_px;
        }
        if occlusion_on {
            set_occlusion_target(&mut cull, extent);
        }
        // The sun's shadows: the GPU-driven frame's, as the far field, and
        // not the unit mask's, which is unlit.
        let shadow_view = self.shadow_view(camera, extent);
        let fitted = if settings.shadows
            && settings.strategy == Strategy::GpuDriven
            && debug_view != DEBUG_VIEW_UNIT_MASK
        {
            self.shadow.cascades(&shadow_view)
        } else {
            Vec::new()
        };
        let shadow_plan = self.shadow.turns.plan(
            fitted,
            dt,
            settings.shadow_cascades_in_turn,
            replay.is_some(),
        );
        let target = DrawTarget {
            render_pass: framebuffers.main_pass,
            framebuffer: framebuffers.main,
            extent,
            globals: self.write_globals(
                start.slot,
                camera,
                extent,
                debug_view,
                (&cull, &shadow_plan.receivers),
            )?,
            draws_sky: true,
            sky_color: if debug_view == DEBUG_VIEW_UNIT_MASK {
                [0.0, 0.0, 0.0, 1.0]
            } else {
                SKY_COLOR
            },
            shadow_depths: self.shadow.depths.raw,
        };
        // The shadows' far field follows its own setting, not the camera's:
        // with every unit a mesh on screen, the far crowd's casters are still
        // the compute rasterizer's (skinning them in the raster took half of
        // a 1M frame). Cascades exist only in the GPU-driven frame.
        let shadow_far_field_on =
            settings.shadow_far_field && has_units && !shadow_plan.drawn.is_empty();
        let mut far_field_pass = self
            .far_field
            .as_mut()
            .filter(|_| far_field_on || shadow_far_field_on);
        let impostor = self.impostor.as_ref().filter(|_| impostors_on);
        let samples_per_axis = if settings.far_field_supersampling && !supersampling_dropped {
            FAR_FIELD_SAMPLES_PER_AXIS
        } else {
            1
        };

        let draw = DrawOptions {
            skinning: settings.skinning,
        };
        let world = &mut self.world;
        let hud_target = HudTarget {
            render_pass: framebuffers.overlay_pass,
            framebuffer: framebuffers.overlay,
            extent,
        };
        // A replay leaves the HUD for the next frame.
        let hud_draw = match replay {
            None => self.hud_draw.take(),
            Some(_) => None,
        };
        let replay_routes = &mut self.replay_routes;
        // The naive baseline counts on the CPU what it draws.
        let naive_stats = &mut None;
        let mut frame = Frame::new(
            ctx,
            start,
            &mut self.frames.slots[start.slot].descriptors,
            &mut self.profiler,
            &mut self.tracker,
            &mut self.deferred,
        )?;
        let scope = if replay.is_some() { "replay" } else { "frame" };
        let recorded = frame.pass(scope, |frame| {
            // A replay draws the state the last frame left: it neither
            // uploads nor steps nor animates.
            if replay.is_none() {
                self.upload.record(frame, world)?;
                match self.simulation.as_deref_mut() {
                    Some(simulation) => {
                        let units = SimulationUnits {
                            marks_shown: debug_view == DEBUG_VIEW_MARKS,
                            ..world.simulation_units()
                        };
                        simulation.record(frame, &units)?
                    }
                    None => self.simulate.record(frame, world, dt)?,
                }
                if settings.strategy != Strategy::Naive {
                    self.animate.record(
                        frame,
                        &AnimateBuffers::of(world),
                        world.unit_count(),
                        dt,
                    )?;
                }
            }
            if let Some(far_field) = far_field_pass.as_deref_mut() {
                far_field.prepare(frame, world)?;
            }
            if !shadow_plan.drawn.is_empty() {
                self.shadow.record(
                    frame,
                    world,
                    (&shadow_view, &shadow_plan),
                    settings.shadow_lod_texels / settings.lod_bias.max(f32::MIN_POSITIVE),
                    far_field_pass.as_deref().filter(|_| shadow_far_field_on),
                )?;
            }
            let mut far_field = far_field_pass.filter(|_| far_field_on);
            // The bounds view, a baseline's own draws and the far field's
            // resolve (last) enter the draw pass's render pass after the
            // world's draws.
            let mut extras: Vec<&dyn ExtraDraw> = Vec::new();
            let lists = match settings.strategy {
                Strategy::GpuDriven => {
                    // A replay's cull must not move the routes the next
                    // frame's hysteresis starts from.
                    if replay.is_some() {
                        replay_routes.save(frame, world)?;
                    }
                    let phase = if occlusion_on {
                        CullPhase::Early
                    } else {
                        CullPhase::All
                    };
                    self.cull.record(
                        frame,
                        &cull,
                        &CullTargets::of(world),
                        &CullBatch::of(world),
                        phase,
                    )?;
                    if let Some(far_field) = far_field.as_deref_mut() {
                        far_field.record(
                            frame,
                            world,
                            extent,
                            (target.globals, target.shadow_depths),
                            samples_per_axis,
                        )?;
                    }
                    &world.buffers.draw_lists.buffer
                }
                Strategy::Instanced => self.instanced.record(frame, world)?,
                Strategy::CpuCulled => self.cpu_cull.record(frame, world, &cull)?,
                Strategy::Naive => {
                    *naive_stats = Some(self.naive.record(frame, world, dt)?);
                    extras.push(&self.naive);
                    self.naive.prop_lists()?
                }
            };
            if settings.strategy != Strategy::Naive && replay.is_none() {
                self.statistics.record(frame, lists.raw, false)?;
            }
            let bounds_shown = settings.strategy == Strategy::GpuDriven && settings.show_bounds;
            if bounds_shown {
                self.bounds.prepare(frame, world)?;
                extras.push(&self.bounds);
            }
            if let Some(impostor) = impostor {
                extras.push(impostor);
            }
            // The far field's resolve is the last draw of the render pass
            // (of its late part with occlusion culling): it blends its
            // partly covered pixels over what lies behind them, which must
            // be drawn by then.
            if let (Some(far_field), false) = (far_field.as_deref(), occlusion_on) {
                extras.push(far_field);
            }
            // A reference of a multisampled frame is single-sampled: its
            // draws are the single-sampled pass's (it has no extras).
            let draw_pass = match &self.single_sampled {
                Some(single) if reference => &single.draw,
                _ => &self.draw,
            };
            let inputs = DrawInputs {
                name: "draw",
                lists,
                extras: &extras,
            };
            if !occlusion_on {
                if let Some(far_field) = far_field.as_deref() {
                    far_field.record_tiles(frame)?;
                }
                draw_pass.record(frame, world, &target, &draw, &inputs)?;
            } else {
                // Two-phase occlusion culling: what was visible last frame,
                // then the pyramid of its depth (the far field's too), then
                // the rest it does not hide.
                let early = DrawTarget {
                    render_pass: framebuffers.early_pass,
                    ..target
                };
                draw_pass.record(frame, world, &early, &draw, &inputs)?;
                let far_field_depth = far_field.as_deref().and_then(FarFieldPass::depth);
                self.depth_pyramid
                    .record(frame, framebuffers.depth, extent, far_field_depth)?;
                let late = CullPhase::Late {
                    pyramid: self.depth_pyramid.atlas(),
                };
                self.cull.record(
                    frame,
                    &cull,
                    &CullTargets::of(world),
                    &CullBatch::of(world),
                    late,
                )?;
                if let Some(far_field) = far_field.as_deref() {
                    far_field.record_late(frame, world, (target.globals, target.shadow_depths))?;
                    far_field.record_tiles(frame)?;
                }
                if replay.is_none() {
                    self.statistics.record(frame, lists.raw, true)?;
                }
                let mut late_extras: Vec<&dyn ExtraDraw> = Vec::new();
                if bounds_shown {
                    self.bounds.prepare(frame, world)?;
                    late_extras.push(&self.bounds);
                }
                if let Some(impostor) = impostor {
                    late_extras.push(impostor);
                }
                if let Some(far_field) = far_field.as_deref() {
                    late_extras.push(far_field);
                }
                // The early part drew the sky, before its extras: the bounds
                // view blends over it and writes no depth.
                let late_target = DrawTarget {
                    render_pass: framebuffers.late_pass,
                    draws_sky: false,
                    ..target
                };
                let late_inputs = DrawInputs {
                    name: "draw late",
                    lists,
                    extras: &late_extras,
                };
                draw_pass.record(frame, world, &late_target, &draw, &late_inputs)?;
            }
            if replay.is_some() && settings.strategy == Strategy::GpuDriven {
                replay_routes.restore(frame, world);
            }
            match &hud_draw {
                Some(hud_draw) => self.hud.record(frame, &hud_target, hud_draw),
                None => Ok(()),
            }
        });
        if recorded.is_err() {
            // The frame is never submitted: its uses did not happen.
            self.tracker.reset_to_unknown();
        } else if let Some(stats) = naive_stats.take() {
            self.stats = stats;
        }
        recorded
    }

    /// Sets the HUD the next rendered frame draws over the scene (once; set
    /// it again for the frame after). Texture changes of a HUD frame that was
    /// never drawn carry over to the next.
    pub fn set_hud(&mut self, draw: HudDraw) {
        match &mut self.hud_draw {
            Some(pending) => pending.replace_with(draw),
            None => self.hud_draw = Some(draw),
        }
    }
}

impl Drop for Renderer {
    /// Waits for the GPU; the fields then drop in reverse creation order.
    fn drop(&mut self) {
        // Idle the whole device, not just the frame fences: presentation may
        // still hold a frame's "render finished" semaphore.
        // SAFETY: waiting has no preconditions.
        if let Err(err) = unsafe { self.gpu.device.device_wait_idle() } {
            log::error!("waiting for the last frames: {err}");
        }
    }
}
