//! Submitting frames: into an offscreen target, as a replay, or to a
//! window's swapchain, and the wait at the end of a run. Each wraps
//! [`Renderer::record`] with the frame slot's begin, the submission and the
//! crash marker a fatal GPU error carries.

use ash::vk;

use super::{FrameKind, Renderer, Replay, Strategy};
use crate::camera::Camera;
use crate::config::FRAMES_IN_FLIGHT;
use crate::context::Context;
use crate::passes::statistics::DrawStats;
use crate::scene::Scene;
use crate::swapchain::{Acquired, Presented, Swapchain};
use crate::target::{Msaa, Offscreen, OFFSCREEN_FORMAT};
use crate::Error;

/// What happened to a window frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowFrame {
    /// Drawn and presented.
    Presented,
    /// Presented, but the swapchain must be recreated before the next frame.
    PresentedNeedsRecreate,
    /// Nothing drawn: the window is minimized or the swapchain is out of date.
    Skipped,
    /// The surface was lost (at acquire: nothing drawn; at present: drawn,
    /// not shown): the window must make a new one before the next frame.
    SurfaceLost,
}

impl Renderer {
    /// Renders one frame into `target`, advancing animation by `dt` seconds.
    /// With `capture`, the colour is copied to the readback buffer and the
    /// call waits for the GPU, so [`Offscreen::read_rgba`] returns this frame.
    pub fn render_offscreen(
        &mut self,
        ctx: &Context,
        target: &Offscreen,
        camera: &Camera,
        dt: f32,
        capture: bool,
    ) -> Result<(), Error> {
        self.submit_offscreen(ctx, target, camera, FrameKind::Step { dt }, capture)
    }

    /// Draws the state the last frame left again into `target`, as
    /// `replay` asks (`replay.rs`), and waits for it, so
    /// [`Offscreen::read_rgba`] returns the replay. Nothing the next frame
    /// reads changes: not the units' state, the routes, the statistics, the
    /// budget, the animation clock or the profiler's times. What the
    /// application queued since the last frame (spawns, orders) is not
    /// shown: the next frame uploads it. `target` may be of any size (the
    /// reference's is twice the frame's) but must be made for [`Renderer::readback_passes`].
    pub fn replay_offscreen(
        &mut self,
        ctx: &Context,
        target: &Offscreen,
        camera: &Camera,
        replay: Replay,
    ) -> Result<(), Error> {
        if self.settings.strategy == Strategy::Naive {
            return Err(Error::Config(
                "a replay draws the GPU's animation state, which the naive baseline \
                 (CPU animation) does not advance"
                    .to_owned(),
            ));
        }
        self.submit_offscreen(ctx, target, camera, FrameKind::Replay(replay), true)
    }

    /// Records a frame of `kind` into `target` and submits it; with
    /// `capture`, copies its colour to the readback buffer and waits for
    /// the GPU. Only a step is timed (profiler and [`Renderer::cpu_ms`]).
    fn submit_offscreen(
        &mut self,
        ctx: &Context,
        target: &Offscreen,
        camera: &Camera,
        kind: FrameKind,
        capture: bool,
    ) -> Result<(), Error> {
        let number = self.frames.number;
        let measured = matches!(kind, FrameKind::Step { .. });
        let rendered = (|| {
            self.check_strategy()?;
            let start = self.begin_frame(ctx, measured)?;
            let cpu_start = std::time::Instant::now();
            let framebuffers = target.framebuffers.handles();
            self.record(ctx, &start, framebuffers, target.extent, camera, kind)?;
            if capture {
                target.record_readback(ctx, start.cmd);
            }
            self.frames.submit(ctx, &start, &[], &[])?;
            if measured {
                self.cpu_ms = cpu_start.elapsed().as_secs_f64() * 1e3;
            }
            if capture {
                self.frames.wait_all(ctx)?;
            }
            Ok(())
        })();
        rendered.map_err(|error| self.with_crash_marker(error, number))
    }

    /// Renders and presents one frame to the window.
    pub fn render_window(
        &mut self,
        ctx: &Context,
        swapchain: &Swapchain,
        camera: &Camera,
        dt: f32,
    ) -> Result<WindowFrame, Error> {
        let number = self.frames.number;
        let rendered = (|| {
            if swapchain.is_empty() {
                return Ok(WindowFrame::Skipped);
            }
            self.check_strategy()?;
            let start = self.begin_frame(ctx, true)?;
            let acquire_semaphore = *self.frames.slots[start.slot].image_available;
            let skipped = match swapchain.acquire(ctx, acquire_semaphore) {
                Ok(Acquired::Image(index)) => Ok(index),
                Ok(Acquired::Skip) => Err(WindowFrame::Skipped),
                Err(Error::SurfaceLost) => Err(WindowFrame::SurfaceLost),
                Err(error) => return Err(error),
            };
            let index = match skipped {
                Ok(index) => index,
                Err(outcome) => {
                    // Nothing waits on this slot's work: close the command buffer
                    // and submit it so the slot's fence is signalled again.
                    self.frames.submit(ctx, &start, &[], &[])?;
                    return Ok(outcome);
                }
            };
            let framebuffers = swapchain.framebuffers[index as usize].handles();
            let cpu_start = std::time::Instant::now();
            let step = FrameKind::Step { dt };
            self.record(ctx, &start, framebuffers, swapchain.extent, camera, step)?;
            let signal = [*swapchain.render_finished[index as usize]];
            self.frames
                .submit(ctx, &start, &[acquire_semaphore], &signal)?;
            self.cpu_ms = cpu_start.elapsed().as_secs_f64() * 1e3;
            Ok(match swapchain.present(ctx, index)? {
                Presented::Done => WindowFrame::Presented,
                Presented::NeedsRecreate => WindowFrame::PresentedNeedsRecreate,
                Presented::SurfaceLost => WindowFrame::SurfaceLost,
            })
        })();
        rendered.map_err(|error| self.with_crash_marker(error, number))
    }

    /// Waits for every submitted frame and reads what they left: the draw
    /// statistics ([`Renderer::stats`]), the simulation's read-backs and the GPU times
    /// of the profiler. All otherwise arrive `FRAMES_IN_FLIGHT` frames late,
    /// so a run that stops without this describes frames before its last, or
    /// none. Returns the statistics of the last frame rendered; rendering may
    /// go on after.
    pub fn finish(&mut self, ctx: &Context) -> Result<DrawStats, Error> {
        let number = self.frames.number;
        self.frames
            .wait_all(ctx)
            .map_err(|error| self.with_crash_marker(error, number))?;
        // Oldest slot first, so the newest frame's results are read last.
        for age in 0..u64::from(FRAMES_IN_FLIGHT) {
            let slot = ((number + age) % u64::from(FRAMES_IN_FLIGHT)) as usize;
            self.profiler.read_slot(ctx, slot);
            if let Some(stats) = self.statistics.take(slot, &self.world) {
                self.stats = stats;
            }
            if let Some(simulation) = &mut self.simulation {
                simulation.frame_completed(slot);
            }
        }
        Ok(self.stats.clone())
    }

    /// Adds the crash marker (the last pass recorded) to a fatal GPU error;
    /// other errors pass unchanged.
    fn with_crash_marker(&self, error: Error, frame: u64) -> Error {
        if !error.is_fatal_gpu() || matches!(error, Error::InFrame { .. }) {
            return error;
        }
        Error::InFrame {
            source: Box::new(error),
            frame,
            pass: self.profiler.last_opened().unwrap_or("none"),
        }
    }

    /// A renderer for `scene` drawn with `msaa` and an offscreen target of
    /// `extent` to draw it into; on failure nothing is left behind.
    pub fn new_offscreen(
        ctx: &Context,
        scene: &Scene,
        extent: vk::Extent2D,
        msaa: Msaa,
    ) -> Result<(Renderer, Offscreen), Error> {
        let renderer = Renderer::new(
            ctx,
            OFFSCREEN_FORMAT,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            msaa,
            scene,
        )?;
        let target = Offscreen::new(ctx, &renderer.readback_passes(), extent)?;
        Ok((renderer, target))
    }
}
