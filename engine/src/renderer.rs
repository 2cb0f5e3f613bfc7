//! The renderer: records one frame, the same way for the offscreen target and
//! the window. The CPU records a constant number of commands whatever the
//! unit count; every per-unit step runs on the GPU.
//!
//! Per frame:
//! 1. Wait for the frame slot's fence; read its timestamps and draw statistics
//!    (from `FRAMES_IN_FLIGHT` frames ago, so nothing stalls); release
//!    resources whose last user has completed.
//! 2. `upload`: the world's dirty records, through the slot's staging buffer.
//! 3. `animate`: the animation state machine of every unit.
//! 4. `cull`: reset the draw commands, cull units and props, pick LODs, fill
//!    the instance lists; then copy the instance counts to the slot's
//!    statistics buffer.
//! 5. `draw`: the main render pass with two indirect draws (units, props).
//! 6. Offscreen: copy the colour image to the readback buffer. Window: submit
//!    with the acquire and present semaphores, then present.
//!
//! Teardown is by `Drop`: the renderer waits for the device to go idle, then
//! its fields drop in declaration order, the reverse of creation order.

use std::sync::Arc;

use ash::vk;
use glam::Vec3;
use gpu_allocator::MemoryLocation;

use crate::anim::Controller;
use crate::camera::Camera;
use crate::config::{FRAMES_IN_FLIGHT, LOD_COUNT};
use crate::context::{Context, Gpu};
use crate::frames::{FrameStart, Frames};
use crate::gpu_types::FrameGlobals;
use crate::memory::{transfer_to_host_barrier, Buffer, DeferredRelease};
use crate::owned::RenderPass;
use crate::passes::animate::{AnimateInputs, AnimatePass};
use crate::passes::cull::{cull_globals, CullBatch, CullPass, CullTargets};
use crate::passes::draw::{DrawOptions, DrawPass};
use crate::passes::upload::UploadPass;
use crate::profiler::Profiler;
use crate::scene::Scene;
use crate::swapchain::{Acquired, Swapchain};
use crate::target::{create_render_pass, Offscreen, CLEAR_COLOR, OFFSCREEN_FORMAT};
use crate::world::World;
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
}

impl Default for Environment {
    fn default() -> Self {
        Environment {
            sun_direction: Vec3::new(0.4, 0.8, 0.3).normalize(),
            sun_color: Vec3::new(1.0, 0.95, 0.85),
            ambient: 0.35,
            fog_color: Vec3::new(CLEAR_COLOR[0], CLEAR_COLOR[1], CLEAR_COLOR[2]),
            fog_density: 0.0015,
        }
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
    /// Colour every unit and prop by its LOD.
    pub color_by_lod: bool,
    /// Cull from this camera instead of the view camera (freeze culling).
    pub cull_camera: Option<Camera>,
    /// Draw every visible instance's bounding sphere.
    pub show_bounds: bool,
    /// Skin units; when off they are drawn static in their bind pose through
    /// the prop pipeline (the benchmark's skinned-versus-static comparison).
    pub skinning: bool,
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            lod_threshold_px: 1.0,
            lod_bias: 1.0,
            lod_hysteresis: 0.25,
            max_draw_distance: 2000.0,
            color_by_lod: false,
            cull_camera: None,
            show_bounds: false,
            skinning: true,
        }
    }
}

/// Units and props the GPU drew in one frame, read back a few frames late.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DrawStats {
    /// Frame number the counts belong to.
    pub frame: u64,
    pub units_per_lod: [u32; LOD_COUNT as usize],
    pub props_per_lod: [u32; LOD_COUNT as usize],
}

impl DrawStats {
    pub fn units_visible(&self) -> u32 {
        self.units_per_lod.iter().sum()
    }
    pub fn props_visible(&self) -> u32 {
        self.props_per_lod.iter().sum()
    }
}

/// What happened to a window frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowFrame {
    /// Drawn and presented.
    Presented,
    /// Presented, but the swapchain must be recreated before the next frame.
    PresentedNeedsRecreate,
    /// Nothing drawn: the window is minimized or the swapchain is out of date.
    Skipped,
}

/// Everything that draws a frame. GPU objects are declared in reverse
/// creation order, the order they drop in after [`Renderer`]'s `Drop` has
/// waited for the device.
pub struct Renderer {
    pub profiler: Profiler,
    pub frames: Frames,
    /// Resources replaced while frames that used them were in flight.
    pub deferred: DeferredRelease,
    draw: DrawPass,
    cull: CullPass,
    animate: AnimatePass,
    upload: UploadPass,
    stats_readback: Vec<Buffer>,
    globals: Vec<Buffer>,
    pub render_pass: RenderPass,
    pub world: World,
    /// Frame number whose statistics each slot's buffer holds.
    stats_frame: Vec<Option<u64>>,
    pub environment: Environment,
    pub settings: RenderSettings,
    /// The latest statistics read back.
    pub stats: DrawStats,
    /// CPU milliseconds the last frame spent recording and submitting, fence
    /// waits excluded.
    pub cpu_ms: f64,
    /// For the idle wait in `drop`.
    gpu: Arc<Gpu>,
}

impl Renderer {
    /// Creates the renderer for targets of `color_format` whose colour ends in
    /// `color_final_layout` (`TRANSFER_SRC_OPTIMAL` offscreen, `PRESENT_SRC_KHR`
    /// for a window), loads the scene's types and places its units and props.
    pub fn new(
        ctx: &mut Context,
        color_format: vk::Format,
        color_final_layout: vk::ImageLayout,
        scene: &Scene,
    ) -> Result<Renderer, Error> {
        let unit_types: Vec<&crate::asset::Asset> = scene.unit_types.iter().collect();
        let prop_types: Vec<&crate::asset::Asset> = scene.prop_types.iter().collect();
        let controllers: Vec<Controller> = scene
            .unit_types
            .iter()
            .enumerate()
            .map(|(index, asset)| match scene.controllers.get(index) {
                Some(Some(controller)) => controller.clone(),
                _ => Controller::humanoid(
                    asset
                        .animation
                        .as_ref()
                        .map(|a| a.clips.as_slice())
                        .unwrap_or(&[]),
                ),
            })
            .collect();
        let mut world = World::new(ctx, &unit_types, &prop_types, &controllers)?;
        world.spawn_units(&scene.units)?;
        world.place_props(&scene.props)?;
        let render_pass = create_render_pass(ctx, color_format, color_final_layout)?;
        let globals = (0..FRAMES_IN_FLIGHT)
            .map(|slot| {
                Buffer::new(
                    ctx,
                    &format!("frame {slot} globals"),
                    std::mem::size_of::<FrameGlobals>() as u64,
                    vk::BufferUsageFlags::UNIFORM_BUFFER,
                    MemoryLocation::CpuToGpu,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let stats_readback = (0..FRAMES_IN_FLIGHT)
            .map(|slot| {
                Buffer::new(
                    ctx,
                    &format!("frame {slot} draw statistics"),
                    world.commands.size,
                    vk::BufferUsageFlags::TRANSFER_DST,
                    MemoryLocation::GpuToCpu,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let upload = UploadPass::new(ctx)?;
        let animate = AnimatePass::new(ctx)?;
        let cull = CullPass::new(ctx)?;
        let draw = DrawPass::new(ctx, *render_pass, world.encoding)?;
        let frames = Frames::new(ctx)?;
        let profiler = Profiler::new(ctx)?;
        Ok(Renderer {
            profiler,
            frames,
            deferred: DeferredRelease::default(),
            draw,
            cull,
            animate,
            upload,
            stats_readback,
            globals,
            render_pass,
            world,
            stats_frame: vec![None; FRAMES_IN_FLIGHT as usize],
            environment: Environment::default(),
            settings: RenderSettings::default(),
            stats: DrawStats::default(),
            cpu_ms: 0.0,
            gpu: ctx.gpu.clone(),
        })
    }

    fn begin_frame(&mut self, ctx: &mut Context) -> Result<FrameStart, Error> {
        let start = self.frames.begin(ctx)?;
        if let Some(completed) = start.completed {
            self.deferred.collect(ctx, completed);
        }
        self.profiler.begin_frame(ctx, start.cmd, start.slot);
        if let Some(frame) = self.stats_frame[start.slot].take() {
            self.stats = self.read_stats(start.slot, frame);
        }
        Ok(start)
    }

    fn read_stats(&self, slot: usize, frame: u64) -> DrawStats {
        let mut stats = DrawStats {
            frame,
            ..DrawStats::default()
        };
        let Some(bytes) = self.stats_readback[slot].mapped() else {
            return stats;
        };
        let words: &[u32] = bytemuck::cast_slice(&bytes[..bytes.len() / 4 * 4]);
        let units = self.world.unit_commands();
        for (command, chunk) in words.chunks_exact(5).enumerate() {
            let command = command as u32;
            let lod = (command % LOD_COUNT) as usize;
            if units.contains(&command) {
                stats.units_per_lod[lod] += chunk[1];
            } else if self.world.prop_commands().contains(&command) {
                stats.props_per_lod[lod] += chunk[1];
            }
        }
        stats
    }

    fn write_globals(
        &mut self,
        slot: usize,
        camera: &Camera,
        extent: vk::Extent2D,
    ) -> Result<(), Error> {
        let (w, h) = (extent.width.max(1) as f32, extent.height.max(1) as f32);
        let env = &self.environment;
        let globals = FrameGlobals {
            view_proj: camera.view_projection(w / h).to_cols_array_2d(),
            camera_position: camera.position.extend(1.0).to_array(),
            light_direction: env.sun_direction.normalize().extend(env.ambient).to_array(),
            light_color: env.sun_color.extend(0.0).to_array(),
            fog_color: env.fog_color.extend(env.fog_density).to_array(),
            viewport: [w, h, 1.0 / w, 1.0 / h],
            debug: [u32::from(self.settings.color_by_lod), 0, 0, 0],
        };
        self.globals[slot].write(0, &[globals])
    }

    /// The one render path: every pass, into `framebuffer`.
    fn record(
        &mut self,
        ctx: &mut Context,
        start: &FrameStart,
        framebuffer: vk::Framebuffer,
        extent: vk::Extent2D,
        camera: &Camera,
        dt: f32,
    ) -> Result<(), Error> {
        let cmd = start.cmd;
        self.write_globals(start.slot, camera, extent)?;

        let scope = self.profiler.begin(ctx, cmd, "upload");
        let uploaded = self
            .world
            .record_uploads(ctx, start, &mut self.deferred, &self.upload);
        self.profiler.end(ctx, cmd, scope);
        uploaded?;

        let world = &self.world;
        let scope = self.profiler.begin(ctx, cmd, "animate");
        let inputs = AnimateInputs {
            instances: world.units_buffer().raw,
            anim_states: world.anim_states_buffer().raw,
            types: world.type_table.raw,
            clips: world.clip_table.raw,
            controller_states: world.controller_states.raw,
            transitions: world.controller_transitions.raw,
        };
        let animated = self
            .animate
            .record(ctx, start, &inputs, world.unit_count(), dt);
        self.profiler.end(ctx, cmd, scope);
        animated?;

        let settings = &self.settings;
        let cull_camera = settings.cull_camera.as_ref().unwrap_or(camera);
        let aspect = extent.width.max(1) as f32 / extent.height.max(1) as f32;
        let globals = cull_globals(
            cull_camera,
            aspect,
            extent.height.max(1) as f32,
            settings.lod_threshold_px,
            settings.lod_bias,
            settings.lod_hysteresis,
            settings.max_draw_distance,
        );
        let targets = CullTargets {
            types: &world.type_table,
            template_commands: &world.command_template,
            commands: &world.commands,
            instance_lists: world.lists_buffer(),
        };
        let scope = self.profiler.begin(ctx, cmd, "cull");
        let culled = self.cull.record(
            ctx,
            start,
            &globals,
            &targets,
            &[
                CullBatch::Units {
                    instances: world.units_buffer(),
                    anim_states: world.anim_states_buffer(),
                    count: world.unit_count(),
                },
                CullBatch::Props {
                    instances: world.props_buffer(),
                    count: world.prop_count(),
                },
            ],
        );
        self.profiler.end(ctx, cmd, scope);
        culled?;

        let region = vk::BufferCopy::default().size(world.commands.size);
        // SAFETY: the cull pass's closing barrier orders this copy after its
        // writes.
        unsafe {
            ctx.device.cmd_copy_buffer(
                cmd,
                world.commands.raw,
                self.stats_readback[start.slot].raw,
                &[region],
            );
        }
        transfer_to_host_barrier(ctx, cmd);
        self.stats_frame[start.slot] = Some(start.number);
        if self.settings.show_bounds {
            world.record_bounds_counts(ctx, cmd);
        }

        let clear = [
            vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: CLEAR_COLOR,
                },
            },
            // Reverse-Z: far is 0.
            vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue {
                    depth: 0.0,
                    stencil: 0,
                },
            },
        ];
        let area = vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent,
        };
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(*self.render_pass)
            .framebuffer(framebuffer)
            .render_area(area)
            .clear_values(&clear);
        let viewport = vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: extent.width as f32,
            height: extent.height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        let scope = self.profiler.begin(ctx, cmd, "draw");
        // SAFETY: the command buffer is recording; the framebuffer matches the
        // render pass.
        unsafe {
            ctx.device
                .cmd_begin_render_pass(cmd, &begin, vk::SubpassContents::INLINE);
            ctx.device.cmd_set_viewport(cmd, 0, &[viewport]);
            ctx.device.cmd_set_scissor(cmd, 0, &[area]);
        }
        let drawn = self.draw.record(
            ctx,
            start,
            world,
            &self.globals[start.slot],
            &DrawOptions {
                show_bounds: self.settings.show_bounds,
                skinning: self.settings.skinning,
            },
        );
        // SAFETY: matches the begin above.
        unsafe { ctx.device.cmd_end_render_pass(cmd) };
        self.profiler.end(ctx, cmd, scope);
        drawn
    }

    /// Renders one frame into `target`, advancing animation by `dt` seconds.
    /// With `capture`, the colour is copied to the readback buffer and the
    /// call waits for the GPU, so [`Offscreen::read_rgba`] returns this frame.
    pub fn render_offscreen(
        &mut self,
        ctx: &mut Context,
        target: &Offscreen,
        camera: &Camera,
        dt: f32,
        capture: bool,
    ) -> Result<(), Error> {
        let start = self.begin_frame(ctx)?;
        let cpu_start = std::time::Instant::now();
        self.record(ctx, &start, *target.framebuffer, target.extent, camera, dt)?;
        if capture {
            target.record_readback(ctx, start.cmd);
        }
        self.frames.submit(ctx, &start, &[], &[])?;
        self.cpu_ms = cpu_start.elapsed().as_secs_f64() * 1e3;
        if capture {
            self.frames.wait_all(ctx)?;
        }
        Ok(())
    }

    /// Renders and presents one frame to the window.
    pub fn render_window(
        &mut self,
        ctx: &mut Context,
        swapchain: &Swapchain,
        camera: &Camera,
        dt: f32,
    ) -> Result<WindowFrame, Error> {
        if swapchain.is_empty() {
            return Ok(WindowFrame::Skipped);
        }
        let start = self.begin_frame(ctx)?;
        let acquire_semaphore = *self.frames.slots[start.slot].image_available;
        let index = match swapchain.acquire(acquire_semaphore)? {
            Acquired::Image(index) => index,
            Acquired::Skip => {
                // Nothing waits on this slot's work: close the command buffer
                // and submit it so the slot's fence is signalled again.
                self.frames.submit(ctx, &start, &[], &[])?;
                return Ok(WindowFrame::Skipped);
            }
        };
        let framebuffer = *swapchain.framebuffers[index as usize];
        let cpu_start = std::time::Instant::now();
        self.record(ctx, &start, framebuffer, swapchain.extent, camera, dt)?;
        let signal = [*swapchain.render_finished[index as usize]];
        self.frames
            .submit(ctx, &start, &[acquire_semaphore], &signal)?;
        self.cpu_ms = cpu_start.elapsed().as_secs_f64() * 1e3;
        Ok(if swapchain.present(ctx, index)? {
            WindowFrame::PresentedNeedsRecreate
        } else {
            WindowFrame::Presented
        })
    }

    /// A renderer for `scene` and an offscreen target of `extent` to draw it
    /// into; on failure nothing is left behind.
    pub fn new_offscreen(
        ctx: &mut Context,
        scene: &Scene,
        extent: vk::Extent2D,
    ) -> Result<(Renderer, Offscreen), Error> {
        let renderer = Renderer::new(
            ctx,
            OFFSCREEN_FORMAT,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            scene,
        )?;
        let target = Offscreen::new(ctx, *renderer.render_pass, extent)?;
        Ok((renderer, target))
    }

    /// Drops the renderer. Kept until callers drop the value directly.
    pub fn destroy(self, _ctx: &Context) {
        drop(self)
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
