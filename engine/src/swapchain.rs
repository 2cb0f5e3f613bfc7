//! The window target: surface, swapchain, per-image framebuffers and the
//! present semaphores.
//!
//! - The surface comes from the window's raw display and window handles
//!   (raw-window-handle, through ash-window), so the engine presents to any
//!   window system's window without depending on one: the application owns the
//!   window and its event loop (horde's is `horde_tools::window`).
//! - Format: `B8G8R8A8_SRGB` or `R8G8B8A8_SRGB` when offered, else the first.
//! - Present mode: the requested one when supported, else FIFO (always there).
//! - Recreated on resize, `OUT_OF_DATE` and `SUBOPTIMAL`. A 0×0 surface (a
//!   minimized window) is not an error: [`Swapchain::recreate`] leaves the
//!   swapchain empty and the renderer skips frames until the size is non-zero.
//! - "Render finished" semaphores are per swapchain image, not per frame slot:
//!   the presentation engine may hold an image's semaphore until that image is
//!   acquired again, so reusing it for another image would race.
//! - A lost surface (`VK_ERROR_SURFACE_LOST_KHR` from acquire, present or
//!   creation) is [`Error::SurfaceLost`] from acquire and creation and
//!   [`Presented::SurfaceLost`] from present; the window makes a new surface
//!   from its handles and hands it to [`Swapchain::replace_surface`].
//! - Every object is owned and destroyed when dropped, image objects before the
//!   swapchain, the swapchain before the surface. The caller waits for the
//!   device before recreating or dropping.

use std::ffi::CStr;

use ash::vk;
use raw_window_handle::{RawDisplayHandle, RawWindowHandle};

use crate::context::{Context, InjectedFailure};
use crate::owned::{ImageView, Owned, Semaphore, Surface, SwapchainKhr};
use crate::target::{Framebuffers, SampleImages, TargetPasses};
use crate::Error;

/// The surface functions, present when the instance has the window system's
/// extensions.
fn surface_loader(ctx: &Context) -> Result<&ash::khr::surface::Instance, Error> {
    ctx.gpu.surface_loader.as_ref().ok_or_else(|| {
        Error::Config("the context was created without surface extensions".to_owned())
    })
}

/// The instance extensions a surface on `display` needs, for
/// [`ContextDesc::surface_extensions`](crate::context::ContextDesc::surface_extensions).
pub fn surface_extensions(display: RawDisplayHandle) -> Result<Vec<&'static CStr>, Error> {
    let extensions = ash_window::enumerate_required_extensions(display)?;
    // SAFETY: the extension names are static strings from ash-window.
    Ok(extensions
        .iter()
        .map(|&p| unsafe { CStr::from_ptr(p) })
        .collect())
}

/// Creates the surface of a window from its raw handles.
///
/// # Safety
/// The window must outlive the surface: drop the [`Swapchain`] that takes
/// the surface (or the surface itself) before the window.
pub unsafe fn create_surface(
    ctx: &Context,
    display: RawDisplayHandle,
    window: RawWindowHandle,
) -> Result<Surface, Error> {
    // SAFETY: the handles are valid (the caller's window is alive) and the
    // caller keeps the window alive for the surface's lifetime.
    let surface =
        unsafe { ash_window::create_surface(&ctx.entry, &ctx.instance, display, window, None) }?;
    Ok(Owned::new(ctx, surface, "window surface"))
}

/// Picks the surface format for a window.
pub fn choose_format(
    ctx: &Context,
    surface: vk::SurfaceKHR,
) -> Result<vk::SurfaceFormatKHR, Error> {
    let loader = surface_loader(ctx)?;
    // SAFETY: valid surface and physical device.
    let formats =
        unsafe { loader.get_physical_device_surface_formats(ctx.physical_device, surface) }?;
    let preferred = [vk::Format::B8G8R8A8_SRGB, vk::Format::R8G8B8A8_SRGB];
    preferred
        .iter()
        .find_map(|want| formats.iter().find(|f| f.format == *want).copied())
        .or_else(|| formats.first().copied())
        .ok_or_else(|| Error::Config("the surface offers no formats".to_owned()))
}

/// A swapchain and what each of its images needs. Fields that own objects are
/// declared in the order they must drop: per-image objects, the shared
/// depth (and multisampled colour), the swapchain, the surface.
pub struct Swapchain {
    pub render_finished: Vec<Semaphore>,
    pub framebuffers: Vec<Framebuffers>,
    pub views: Vec<ImageView>,
    pub images: Vec<vk::Image>,
    pub sample_images: Option<SampleImages>,
    /// `None` while the window is minimized.
    raw: Option<SwapchainKhr>,
    pub surface: Surface,
    surface_loader: ash::khr::surface::Instance,
    pub loader: ash::khr::swapchain::Device,
    pub format: vk::SurfaceFormatKHR,
    pub present_mode: vk::PresentModeKHR,
    pub extent: vk::Extent2D,
    passes: TargetPasses,
    /// Times the swapchain was (re)created with a non-zero size.
    pub generation: u32,
}

/// What presenting an image gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presented {
    /// Shown; the swapchain still fits the surface.
    Done,
    /// Shown or not, the swapchain must be recreated (out of date,
    /// suboptimal).
    NeedsRecreate,
    /// The surface is gone: it must be recreated from the window.
    SurfaceLost,
}

/// What acquiring an image gave.
pub enum Acquired {
    /// Draw into image `index`.
    Image(u32),
    /// The surface is 0×0 or out of date: skip this frame.
    Skip,
}

impl Swapchain {
    /// Creates the swapchain for `surface` at `extent` (the window's size).
    /// The swapchain owns the surface from here on.
    pub fn new(
        ctx: &Context,
        surface: Surface,
        format: vk::SurfaceFormatKHR,
        passes: TargetPasses,
        present_mode: vk::PresentModeKHR,
        extent: vk::Extent2D,
    ) -> Result<Swapchain, Error> {
        let loader = ctx.gpu.swapchain_loader.clone().ok_or_else(|| {
            Error::Config("the device cannot present (no VK_KHR_swapchain)".to_owned())
        })?;
        let surface_loader = surface_loader(ctx)?.clone();
        // SAFETY: valid surface and physical device.
        let modes = unsafe {
            surface_loader.get_physical_device_surface_present_modes(ctx.physical_device, *surface)
        }?;
        let present_mode = if modes.contains(&present_mode) {
            present_mode
        } else {
            log::warn!("present mode {present_mode:?} is not supported; using FIFO");
            vk::PresentModeKHR::FIFO
        };
        let mut swapchain = Swapchain {
            render_finished: Vec::new(),
            framebuffers: Vec::new(),
            views: Vec::new(),
            images: Vec::new(),
            sample_images: None,
            raw: None,
            surface,
            surface_loader,
            loader,
            format,
            present_mode,
            extent: vk::Extent2D::default(),
            passes,
            generation: 0,
        };
        swapchain.recreate(ctx, extent)?;
        Ok(swapchain)
    }

    /// True when there is nothing to draw into (minimized window).
    pub fn is_empty(&self) -> bool {
        self.raw.is_none()
    }

    /// Rebuilds the swapchain for the window's current size. The device must
    /// have finished with the old images (the caller waits for idle).
    pub fn recreate(&mut self, ctx: &Context, window_extent: vk::Extent2D) -> Result<(), Error> {
        // SAFETY: valid surface and physical device.
        let caps = unsafe {
            self.surface_loader
                .get_physical_device_surface_capabilities(ctx.physical_device, *self.surface)
        }?;
        let extent = if caps.current_extent.width != u32::MAX {
            caps.current_extent
        } else {
            vk::Extent2D {
                width: window_extent
                    .width
                    .clamp(caps.min_image_extent.width, caps.max_image_extent.width),
                height: window_extent
                    .height
                    .clamp(caps.min_image_extent.height, caps.max_image_extent.height),
            }
        };
        // The old images' objects go first; the old swapchain is retired by
        // the creation below and dropped after it.
        self.release_images();
        let old = self.raw.take();
        self.extent = extent;
        let minimized = window_extent.width == 0 || window_extent.height == 0;
        if minimized || extent.width == 0 || extent.height == 0 {
            // Minimized: keep nothing until the window has a size again.
            return Ok(());
        }
        let mut image_count = caps.min_image_count + 1;
        if caps.max_image_count > 0 {
            image_count = image_count.min(caps.max_image_count);
        }
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(*self.surface)
            .min_image_count(image_count)
            .image_format(self.format.format)
            .image_color_space(self.format.color_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            .present_mode(self.present_mode)
            .clipped(true)
            .old_swapchain(old.as_deref().copied().unwrap_or_default());
        // SAFETY: valid create info; the old swapchain is retired by this call.
        let raw = unsafe { self.loader.create_swapchain(&info, None) }?;
        drop(old);
        self.generation += 1;
        let name = format!("swapchain #{}", self.generation);
        let raw = self.raw.insert(Owned::new(ctx, raw, &name));
        // SAFETY: the swapchain was just created.
        self.images = unsafe { self.loader.get_swapchain_images(**raw) }?;
        self.create_image_objects(ctx)
    }

    /// Swaps in a new surface for the same window after the old one was
    /// lost, and builds a swapchain on it at `window_extent`. The device must
    /// be idle. The new surface must offer the format the render pass was
    /// made for.
    pub fn replace_surface(
        &mut self,
        ctx: &Context,
        surface: Surface,
        window_extent: vk::Extent2D,
    ) -> Result<(), Error> {
        // A swapchain cannot be retired into one on another surface: the old
        // one and its images go before the surface they were made for.
        self.release_images();
        self.raw = None;
        self.surface = surface;
        // SAFETY: valid surface and physical device.
        let formats = unsafe {
            self.surface_loader
                .get_physical_device_surface_formats(ctx.physical_device, *self.surface)
        }?;
        if !formats.contains(&self.format) {
            return Err(Error::Config(format!(
                "the recreated surface no longer offers {:?}",
                self.format
            )));
        }
        self.recreate(ctx, window_extent)
    }

    fn create_image_objects(&mut self, ctx: &Context) -> Result<(), Error> {
        let sample_images =
            self.sample_images
                .insert(SampleImages::new(ctx, &self.passes, self.extent)?);
        for (index, &image) in self.images.iter().enumerate() {
            let view_info = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(self.format.format)
                .subresource_range(crate::memory::full_range(vk::ImageAspectFlags::COLOR));
            // SAFETY: the image belongs to the swapchain.
            let view = unsafe { ctx.device.create_image_view(&view_info, None) }?;
            let view = Owned::new(ctx, view, &format!("swapchain image {index}"));
            let name = format!("swapchain framebuffer {index}");
            let framebuffer =
                Framebuffers::new(ctx, &self.passes, sample_images, *view, self.extent, &name)?;
            self.views.push(view);
            self.framebuffers.push(framebuffer);
            // SAFETY: valid create info.
            let semaphore = unsafe {
                ctx.device
                    .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            }?;
            let name = format!("render finished {index}");
            self.render_finished.push(Owned::new(ctx, semaphore, &name));
        }
        Ok(())
    }

    /// Drops the per-image objects, in reverse creation order.
    fn release_images(&mut self) {
        self.render_finished.clear();
        self.framebuffers.clear();
        self.views.clear();
        self.images.clear();
        self.sample_images = None;
    }

    /// Acquires the next image, signalling `semaphore` when it is ready.
    pub fn acquire(&self, ctx: &Context, semaphore: vk::Semaphore) -> Result<Acquired, Error> {
        let Some(raw) = self.raw.as_deref().copied() else {
            return Ok(Acquired::Skip);
        };
        if ctx.gpu.take_injected(InjectedFailure::AcquireSurfaceLost) {
            return Err(Error::SurfaceLost);
        }
        // SAFETY: valid swapchain and unsignalled semaphore.
        let result = unsafe {
            self.loader
                .acquire_next_image(raw, u64::MAX, semaphore, vk::Fence::null())
        };
        match result {
            // A suboptimal image is still drawn and presented; presenting then
            // reports SUBOPTIMAL again and the caller recreates.
            Ok((index, _suboptimal)) => Ok(Acquired::Image(index)),
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(Acquired::Skip),
            Err(err) => Err(err.into()),
        }
    }

    /// Presents image `index`.
    pub fn present(&self, ctx: &Context, index: u32) -> Result<Presented, Error> {
        let waits = [*self.render_finished[index as usize]];
        let swapchains = [self.raw.as_deref().copied().unwrap_or_default()];
        let indices = [index];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        // SAFETY: the image was acquired and rendered by the submission that
        // signals `waits`.
        // A failed present still waits on `waits` (the spec counts it as
        // enqueued), so the semaphore is free for reuse either way.
        match unsafe { self.loader.queue_present(ctx.queue, &info) } {
            Ok(false) => Ok(Presented::Done),
            Ok(true) | Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(Presented::NeedsRecreate),
            Err(vk::Result::ERROR_SURFACE_LOST_KHR) => Ok(Presented::SurfaceLost),
            Err(err) => Err(err.into()),
        }
    }
}
