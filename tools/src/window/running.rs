//! The window's presentation state, and what happens when its Vulkan
//! surface is lost: a new surface from the window's raw handles and a
//! swapchain on it, or, where the window system no longer presents to the
//! window, an error saying so.

use ash::vk;
use horde::context::Context;
use horde::renderer::Renderer;
use horde::swapchain::{create_surface, Swapchain};
use horde::Error;
use winit::raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::window::Window;

use super::WindowReport;
use crate::hud::Hud;
use crate::quality::QualityTargets;

/// Fields drop in declaration order: the HUD, the renderer (after waiting for
/// the device), the swapchain and its surface, the context, and last the
/// window the surface was made for. `shutdown` drops them in the same order.
pub(super) struct Running {
    /// The quality measurement's targets, once it has measured.
    pub(super) quality_targets: Option<QualityTargets>,
    pub(super) hud: Hud,
    pub(super) renderer: Renderer,
    pub(super) swapchain: Swapchain,
    pub(super) ctx: Context,
    pub(super) window: Window,
    pub(super) window_extent: vk::Extent2D,
    pub(super) needs_recreate: bool,
    /// The surface was lost: make a new one before the next frame.
    pub(super) surface_lost: bool,
    /// A surface was recreated and no frame presented on it yet: losing it
    /// again means the window system no longer presents to this window.
    pub(super) surface_unproven: bool,
}

/// Records a swapchain just (re)created, unless it is empty (minimized).
pub(super) fn note_swapchain(report: &mut WindowReport, swapchain: &Swapchain) {
    if !swapchain.is_empty() {
        let extent = swapchain.extent;
        report.swapchain_extents.push((extent.width, extent.height));
    }
}

/// Marks the surface for recreation before the next frame, or fails when the
/// surface made last time was lost before it presented anything.
pub(super) fn surface_lost(running: &mut Running) -> Result<(), Error> {
    if running.surface_unproven {
        return Err(Error::Window(
            "the window's Vulkan surface was lost again right after it was recreated: \
             the window system no longer presents to this window"
                .to_owned(),
        ));
    }
    log::warn!("the window's Vulkan surface was lost; recreating it");
    running.surface_lost = true;
    Ok(())
}

/// Makes a new surface from the window's handles and a swapchain on it, after
/// the old surface was lost. Its swapchain goes first; the old surface is
/// destroyed once the new one exists (X11, Wayland and Win32 allow two
/// surfaces on one window).
pub(super) fn recreate_surface(running: &mut Running) -> Result<(), Error> {
    let cannot = |err: &dyn std::fmt::Display| {
        Error::Window(format!(
            "the window's Vulkan surface was lost and cannot be recreated: {err}"
        ))
    };
    // SAFETY: waiting for idle before the swapchain's images go away.
    unsafe { running.ctx.device.device_wait_idle() }?;
    let display = running
        .window
        .display_handle()
        .map_err(|err| cannot(&err))?
        .as_raw();
    let window_handle = running
        .window
        .window_handle()
        .map_err(|err| cannot(&err))?
        .as_raw();
    // SAFETY: the window outlives the surface, as in `App::start`.
    let surface = unsafe { create_surface(&running.ctx, display, window_handle) }
        .map_err(|err| cannot(&err))?;
    running.surface_lost = false;
    running.needs_recreate = false;
    running.surface_unproven = true;
    match running
        .swapchain
        .replace_surface(&running.ctx, surface, running.window_extent)
    {
        Err(Error::SurfaceLost) => surface_lost(running),
        other => other,
    }
}
