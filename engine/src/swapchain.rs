//! The window target: surface, swapchain, per-image framebuffers and the
//! present semaphores.
//!
//! - Format: `B8G8R8A8_SRGB` or `R8G8B8A8_SRGB` when offered, else the first.
//! - Present mode: the requested one when supported, else FIFO (always there).
//! - Recreated on resize, `OUT_OF_DATE` and `SUBOPTIMAL`. A 0×0 surface (a
//!   minimized window) is not an error: [`Swapchain::recreate`] leaves the
//!   swapchain empty and the renderer skips frames until the size is non-zero.
//! - "Render finished" semaphores are per swapchain image, not per frame slot:
//!   the presentation engine may hold an image's semaphore until that image is
//!   acquired again, so reusing it for another image would race.

use ash::vk;

use crate::context::Context;
use crate::memory::Image;
use crate::target::{create_framebuffer, DEPTH_FORMAT};
use crate::Error;

/// Picks the surface format for a window.
pub fn choose_format(
    ctx: &Context,
    surface: vk::SurfaceKHR,
) -> Result<vk::SurfaceFormatKHR, Error> {
    let loader = ash::khr::surface::Instance::new(&ctx.entry, &ctx.instance);
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

/// A swapchain and what each of its images needs.
pub struct Swapchain {
    surface_loader: ash::khr::surface::Instance,
    pub loader: ash::khr::swapchain::Device,
    pub surface: vk::SurfaceKHR,
    pub raw: vk::SwapchainKHR,
    pub format: vk::SurfaceFormatKHR,
    pub present_mode: vk::PresentModeKHR,
    pub extent: vk::Extent2D,
    pub images: Vec<vk::Image>,
    pub views: Vec<vk::ImageView>,
    pub framebuffers: Vec<vk::Framebuffer>,
    pub render_finished: Vec<vk::Semaphore>,
    pub depth: Option<Image>,
    render_pass: vk::RenderPass,
    /// Times the swapchain was (re)created with a non-zero size.
    pub generation: u32,
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
    pub fn new(
        ctx: &mut Context,
        surface: vk::SurfaceKHR,
        format: vk::SurfaceFormatKHR,
        render_pass: vk::RenderPass,
        present_mode: vk::PresentModeKHR,
        extent: vk::Extent2D,
    ) -> Result<Swapchain, Error> {
        let mut swapchain = Swapchain {
            surface_loader: ash::khr::surface::Instance::new(&ctx.entry, &ctx.instance),
            loader: ash::khr::swapchain::Device::new(&ctx.instance, &ctx.device),
            surface,
            raw: vk::SwapchainKHR::null(),
            format,
            present_mode: vk::PresentModeKHR::FIFO,
            extent: vk::Extent2D::default(),
            images: Vec::new(),
            views: Vec::new(),
            framebuffers: Vec::new(),
            render_finished: Vec::new(),
            depth: None,
            render_pass,
            generation: 0,
        };
        // SAFETY: valid surface and physical device.
        let modes = unsafe {
            swapchain
                .surface_loader
                .get_physical_device_surface_present_modes(ctx.physical_device, surface)
        }?;
        if modes.contains(&present_mode) {
            swapchain.present_mode = present_mode;
        } else {
            log::warn!("present mode {present_mode:?} is not supported; using FIFO");
        }
        swapchain.recreate(ctx, extent)?;
        Ok(swapchain)
    }

    /// True when there is nothing to draw into (minimized window).
    pub fn is_empty(&self) -> bool {
        self.raw == vk::SwapchainKHR::null()
    }

    /// Rebuilds the swapchain for the window's current size. The device must
    /// have finished with the old images (the caller waits for idle).
    pub fn recreate(
        &mut self,
        ctx: &mut Context,
        window_extent: vk::Extent2D,
    ) -> Result<(), Error> {
        // SAFETY: valid surface and physical device.
        let caps = unsafe {
            self.surface_loader
                .get_physical_device_surface_capabilities(ctx.physical_device, self.surface)
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
        let old = std::mem::replace(&mut self.raw, vk::SwapchainKHR::null());
        self.destroy_images(ctx);
        let minimized = window_extent.width == 0 || window_extent.height == 0;
        if minimized || extent.width == 0 || extent.height == 0 {
            // Minimized: keep nothing; `old` is retired now.
            // SAFETY: the device is idle with respect to the old swapchain.
            unsafe { self.loader.destroy_swapchain(old, None) };
            self.extent = extent;
            return Ok(());
        }
        let mut image_count = caps.min_image_count + 1;
        if caps.max_image_count > 0 {
            image_count = image_count.min(caps.max_image_count);
        }
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(self.surface)
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
            .old_swapchain(old);
        // SAFETY: valid create info; the old swapchain is retired by this call
        // and destroyed right after.
        let created = unsafe { self.loader.create_swapchain(&info, None) };
        unsafe { self.loader.destroy_swapchain(old, None) };
        self.raw = created?;
        self.extent = extent;
        self.generation += 1;
        ctx.set_name(self.raw, &format!("swapchain #{}", self.generation));
        self.create_images(ctx)
    }

    fn create_images(&mut self, ctx: &mut Context) -> Result<(), Error> {
        // SAFETY: the swapchain was just created.
        self.images = unsafe { self.loader.get_swapchain_images(self.raw) }?;
        self.depth = Some(Image::new(
            ctx,
            "swapchain depth",
            self.extent,
            DEPTH_FORMAT,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        )?);
        let depth_view = self.depth.as_ref().map(|d| d.view).unwrap_or_default();
        for (index, &image) in self.images.iter().enumerate() {
            let view_info = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(self.format.format)
                .subresource_range(crate::memory::full_range(vk::ImageAspectFlags::COLOR));
            // SAFETY: the image belongs to the swapchain.
            let view = unsafe { ctx.device.create_image_view(&view_info, None) }?;
            self.views.push(view);
            ctx.set_name(view, &format!("swapchain image {index}"));
            let name = format!("swapchain framebuffer {index}");
            let framebuffer =
                create_framebuffer(ctx, self.render_pass, view, depth_view, self.extent, &name)?;
            self.framebuffers.push(framebuffer);
            // SAFETY: plain creation.
            let semaphore = unsafe {
                ctx.device
                    .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            }?;
            ctx.set_name(semaphore, &format!("render finished {index}"));
            self.render_finished.push(semaphore);
        }
        Ok(())
    }

    fn destroy_images(&mut self, ctx: &mut Context) {
        // SAFETY: the caller made sure the GPU is done with these.
        unsafe {
            for semaphore in self.render_finished.drain(..) {
                ctx.device.destroy_semaphore(semaphore, None);
            }
            for framebuffer in self.framebuffers.drain(..) {
                ctx.device.destroy_framebuffer(framebuffer, None);
            }
            for view in self.views.drain(..) {
                ctx.device.destroy_image_view(view, None);
            }
        }
        self.images.clear();
        if let Some(depth) = self.depth.take() {
            depth.destroy(ctx);
        }
    }

    /// Acquires the next image, signalling `semaphore` when it is ready.
    pub fn acquire(&self, semaphore: vk::Semaphore) -> Result<Acquired, Error> {
        if self.is_empty() {
            return Ok(Acquired::Skip);
        }
        // SAFETY: valid swapchain and unsignalled semaphore.
        let result = unsafe {
            self.loader
                .acquire_next_image(self.raw, u64::MAX, semaphore, vk::Fence::null())
        };
        match result {
            // A suboptimal image is still drawn and presented; presenting then
            // reports SUBOPTIMAL again and the caller recreates.
            Ok((index, _suboptimal)) => Ok(Acquired::Image(index)),
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(Acquired::Skip),
            Err(err) => Err(err.into()),
        }
    }

    /// Presents image `index`; returns true when the swapchain needs recreating.
    pub fn present(&self, ctx: &Context, index: u32) -> Result<bool, Error> {
        let waits = [self.render_finished[index as usize]];
        let swapchains = [self.raw];
        let indices = [index];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        // SAFETY: the image was acquired and rendered by the submission that
        // signals `waits`.
        match unsafe { self.loader.queue_present(ctx.queue, &info) } {
            Ok(suboptimal) => Ok(suboptimal),
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(true),
            Err(err) => Err(err.into()),
        }
    }

    /// Destroys the images, the swapchain and the surface.
    pub fn destroy(mut self, ctx: &mut Context) {
        self.destroy_images(ctx);
        // SAFETY: the device is idle.
        unsafe {
            self.loader.destroy_swapchain(self.raw, None);
            self.surface_loader.destroy_surface(self.surface, None);
        }
    }
}
