//! The renderer: records one frame, the same way for the offscreen target and
//! the window.
//!
//! Per frame:
//! 1. Wait for the frame slot's fence; read its timestamps; release resources
//!    whose last user has completed.
//! 2. Write the slot's `FrameGlobals` (camera, light, fog).
//! 3. Record the passes inside the main render pass, each in a profiler scope.
//! 4. Offscreen: copy the colour image to the readback buffer. Window: submit
//!    with the acquire and present semaphores, then present.
//!
//! The CPU does a constant amount of work per frame, whatever the scene holds.

use ash::vk;
use glam::Vec3;
use gpu_allocator::MemoryLocation;

use crate::camera::Camera;
use crate::config::FRAMES_IN_FLIGHT;
use crate::context::Context;
use crate::frames::{FrameStart, Frames};
use crate::gpu_types::FrameGlobals;
use crate::memory::{Buffer, DeferredRelease};
use crate::passes::mesh::MeshPass;
use crate::profiler::Profiler;
use crate::scene::StaticScene;
use crate::swapchain::{Acquired, Swapchain};
use crate::target::{create_render_pass, Offscreen, CLEAR_COLOR};
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

/// Everything that draws a frame.
pub struct Renderer {
    pub render_pass: vk::RenderPass,
    pub frames: Frames,
    pub profiler: Profiler,
    globals: Vec<Buffer>,
    pub mesh_pass: MeshPass,
    pub deferred: DeferredRelease,
    pub environment: Environment,
}

impl Renderer {
    /// Creates the renderer for targets of `color_format` whose colour ends in
    /// `color_final_layout` (`TRANSFER_SRC_OPTIMAL` offscreen, `PRESENT_SRC_KHR`
    /// for a window).
    pub fn new(
        ctx: &mut Context,
        color_format: vk::Format,
        color_final_layout: vk::ImageLayout,
        scene: &StaticScene,
    ) -> Result<Renderer, Error> {
        let render_pass = create_render_pass(ctx, color_format, color_final_layout)?;
        let mut globals = Vec::new();
        let fail = |ctx: &mut Context, globals: Vec<Buffer>, err: Error| {
            globals
                .into_iter()
                .rev()
                .for_each(|b: Buffer| b.destroy(ctx));
            // SAFETY: nothing uses the render pass yet.
            unsafe { ctx.device.destroy_render_pass(render_pass, None) };
            Err(err)
        };
        for slot in 0..FRAMES_IN_FLIGHT {
            match Buffer::new(
                ctx,
                &format!("frame {slot} globals"),
                std::mem::size_of::<FrameGlobals>() as u64,
                vk::BufferUsageFlags::UNIFORM_BUFFER,
                MemoryLocation::CpuToGpu,
            ) {
                Ok(buffer) => globals.push(buffer),
                Err(err) => return fail(ctx, globals, err),
            }
        }
        let mesh_pass = match MeshPass::new(ctx, render_pass, scene) {
            Ok(pass) => pass,
            Err(err) => return fail(ctx, globals, err),
        };
        let frames = match Frames::new(ctx) {
            Ok(frames) => frames,
            Err(err) => {
                mesh_pass.destroy(ctx);
                return fail(ctx, globals, err);
            }
        };
        let profiler = match Profiler::new(ctx) {
            Ok(profiler) => profiler,
            Err(err) => {
                frames.destroy(ctx);
                mesh_pass.destroy(ctx);
                return fail(ctx, globals, err);
            }
        };
        Ok(Renderer {
            render_pass,
            frames,
            profiler,
            globals,
            mesh_pass,
            deferred: DeferredRelease::default(),
            environment: Environment::default(),
        })
    }

    fn begin_frame(&mut self, ctx: &mut Context) -> Result<FrameStart, Error> {
        let start = self.frames.begin(ctx)?;
        if let Some(completed) = start.completed {
            self.deferred.collect(ctx, completed);
        }
        self.profiler.begin_frame(ctx, start.cmd, start.slot);
        Ok(start)
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
            debug: [0; 4],
        };
        self.globals[slot].write(0, &[globals])
    }

    /// The one render path: every pass, into `framebuffer`.
    fn record(
        &mut self,
        ctx: &Context,
        start: &FrameStart,
        framebuffer: vk::Framebuffer,
        extent: vk::Extent2D,
    ) -> Result<(), Error> {
        let cmd = start.cmd;
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
            .render_pass(self.render_pass)
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
        let drawn = self.mesh_pass.record(ctx, start, &self.globals[start.slot]);
        // SAFETY: matches the begin above.
        unsafe { ctx.device.cmd_end_render_pass(cmd) };
        self.profiler.end(ctx, cmd, scope);
        drawn
    }

    /// Renders one frame into `target`. With `capture`, the colour is copied to
    /// the readback buffer and the call waits for the GPU, so
    /// [`Offscreen::read_rgba`] returns this frame.
    pub fn render_offscreen(
        &mut self,
        ctx: &mut Context,
        target: &Offscreen,
        camera: &Camera,
        capture: bool,
    ) -> Result<(), Error> {
        let start = self.begin_frame(ctx)?;
        self.write_globals(start.slot, camera, target.extent)?;
        self.record(ctx, &start, target.framebuffer, target.extent)?;
        if capture {
            target.record_readback(ctx, start.cmd);
        }
        self.frames.submit(ctx, &start, &[], &[])?;
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
    ) -> Result<WindowFrame, Error> {
        if swapchain.is_empty() {
            return Ok(WindowFrame::Skipped);
        }
        let start = self.begin_frame(ctx)?;
        let acquire_semaphore = self.frames.slots[start.slot].image_available;
        let index = match swapchain.acquire(acquire_semaphore)? {
            Acquired::Image(index) => index,
            Acquired::Skip => {
                // Nothing waits on this slot's work: close the command buffer
                // empty and submit it so the slot's fence is signalled again.
                self.frames.submit(ctx, &start, &[], &[])?;
                return Ok(WindowFrame::Skipped);
            }
        };
        self.write_globals(start.slot, camera, swapchain.extent)?;
        self.record(
            ctx,
            &start,
            swapchain.framebuffers[index as usize],
            swapchain.extent,
        )?;
        let signal = [swapchain.render_finished[index as usize]];
        self.frames
            .submit(ctx, &start, &[acquire_semaphore], &signal)?;
        Ok(if swapchain.present(ctx, index)? {
            WindowFrame::PresentedNeedsRecreate
        } else {
            WindowFrame::Presented
        })
    }

    /// Waits for the GPU and destroys everything in reverse creation order.
    pub fn destroy(self, ctx: &mut Context) {
        if let Err(err) = self.frames.wait_all(ctx) {
            log::error!("waiting for the last frames: {err}");
        }
        self.profiler.destroy(ctx);
        self.frames.destroy(ctx);
        self.deferred.destroy(ctx);
        self.mesh_pass.destroy(ctx);
        for buffer in self.globals.into_iter().rev() {
            buffer.destroy(ctx);
        }
        // SAFETY: nothing uses the render pass any more.
        unsafe { ctx.device.destroy_render_pass(self.render_pass, None) };
    }
}
