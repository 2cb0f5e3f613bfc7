//! Render targets: the render passes every target shares, and the offscreen
//! target that reads its colour back to RGBA8 and PNG.
//!
//! Both the offscreen image and the swapchain are drawn by the same render pass
//! layout (one colour + one reverse-Z depth attachment), so one recorded frame
//! serves both. Only the colour attachment's final layout differs:
//! `TRANSFER_SRC_OPTIMAL` for readback, `PRESENT_SRC_KHR` for the window.
//!
//! Two render passes of that layout exist: the main one clears colour and
//! depth; the overlay one ([`create_overlay_render_pass`], for the HUD) loads
//! the colour the main pass left, in its final layout, and draws over it. They
//! are compatible, so one framebuffer serves both. Their external
//! dependencies order each after the previous attachment writes (the main
//! pass's final layout transition included) and the readback copy after both.
//!
//! Render passes, framebuffers and targets destroy themselves when dropped.

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::context::Context;
use crate::memory::{transfer_to_host_barrier, Buffer, Image};
use crate::owned::{Framebuffer, Owned, RenderPass};
use crate::Error;

/// Depth format: 32-bit float for reverse-Z; every Vulkan device supports it
/// as a depth attachment.
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;
/// Offscreen colour: sRGB so the shader writes linear colour.
pub const OFFSCREEN_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;
/// The clear colour: a hazy sky, linear.
pub const CLEAR_COLOR: [f32; 4] = [0.52, 0.62, 0.72, 1.0];

/// Creates the colour + depth render pass with the given colour final layout.
pub fn create_render_pass(
    ctx: &Context,
    color_format: vk::Format,
    color_final_layout: vk::ImageLayout,
) -> Result<RenderPass, Error> {
    render_pass(ctx, color_format, color_final_layout, false)
}

/// Creates the overlay render pass: compatible with [`create_render_pass`]'s,
/// it keeps the colour the main pass drew (loaded from, and returned to,
/// `color_final_layout`) and does not care about depth.
pub fn create_overlay_render_pass(
    ctx: &Context,
    color_format: vk::Format,
    color_final_layout: vk::ImageLayout,
) -> Result<RenderPass, Error> {
    render_pass(ctx, color_format, color_final_layout, true)
}

fn render_pass(
    ctx: &Context,
    color_format: vk::Format,
    color_final_layout: vk::ImageLayout,
    overlay: bool,
) -> Result<RenderPass, Error> {
    let (color_load, color_initial, depth_load, name) = if overlay {
        (
            vk::AttachmentLoadOp::LOAD,
            color_final_layout,
            vk::AttachmentLoadOp::DONT_CARE,
            "overlay render pass",
        )
    } else {
        (
            vk::AttachmentLoadOp::CLEAR,
            vk::ImageLayout::UNDEFINED,
            vk::AttachmentLoadOp::CLEAR,
            "main render pass",
        )
    };
    let attachments = [
        vk::AttachmentDescription::default()
            .format(color_format)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(color_load)
            .store_op(vk::AttachmentStoreOp::STORE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(color_initial)
            .final_layout(color_final_layout),
        vk::AttachmentDescription::default()
            .format(DEPTH_FORMAT)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(depth_load)
            .store_op(vk::AttachmentStoreOp::DONT_CARE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
    ];
    let color_refs = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let depth_ref = vk::AttachmentReference {
        attachment: 1,
        layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    };
    let subpasses = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&color_refs)
        .depth_stencil_attachment(&depth_ref)];
    let attachment_stages = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
        | vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS
        | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS;
    let attachment_writes =
        vk::AccessFlags::COLOR_ATTACHMENT_WRITE | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE;
    let dependencies = [
        // The previous frame's attachment writes and readback copy (or the
        // presentation engine's read, via the acquire semaphore) finish before
        // this frame clears the attachments. For the overlay: the main pass's
        // writes and final layout transition (ordered before TRANSFER by its
        // outgoing dependency) finish before the overlay loads them.
        vk::SubpassDependency::default()
            .src_subpass(vk::SUBPASS_EXTERNAL)
            .dst_subpass(0)
            .src_stage_mask(attachment_stages | vk::PipelineStageFlags::TRANSFER)
            .src_access_mask(attachment_writes)
            .dst_stage_mask(attachment_stages)
            .dst_access_mask(
                attachment_writes
                    | vk::AccessFlags::COLOR_ATTACHMENT_READ
                    | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ,
            ),
        // Colour writes finish before the readback copy.
        vk::SubpassDependency::default()
            .src_subpass(0)
            .dst_subpass(vk::SUBPASS_EXTERNAL)
            .src_stage_mask(vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT)
            .src_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags::TRANSFER)
            .dst_access_mask(vk::AccessFlags::TRANSFER_READ),
    ];
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&attachments)
        .subpasses(&subpasses)
        .dependencies(&dependencies);
    // SAFETY: valid create info.
    let render_pass = unsafe { ctx.device.create_render_pass(&info, None) }?;
    Ok(Owned::new(ctx, render_pass, name))
}

/// Creates a framebuffer of a colour view and a depth view.
pub fn create_framebuffer(
    ctx: &Context,
    render_pass: vk::RenderPass,
    color: vk::ImageView,
    depth: vk::ImageView,
    extent: vk::Extent2D,
    name: &str,
) -> Result<Framebuffer, Error> {
    let views = [color, depth];
    let info = vk::FramebufferCreateInfo::default()
        .render_pass(render_pass)
        .attachments(&views)
        .width(extent.width)
        .height(extent.height)
        .layers(1);
    // SAFETY: the views are alive and match the render pass formats.
    let framebuffer = unsafe { ctx.device.create_framebuffer(&info, None) }?;
    Ok(Owned::new(ctx, framebuffer, name))
}

/// An offscreen colour + depth target with a host-visible readback buffer.
/// Fields are declared in reverse creation order, which is the order they
/// drop in.
pub struct Offscreen {
    pub framebuffer: Framebuffer,
    pub readback: Buffer,
    pub depth: Image,
    pub color: Image,
    pub extent: vk::Extent2D,
}

impl Offscreen {
    /// Creates a target of any size the device allows.
    pub fn new(
        ctx: &Context,
        render_pass: vk::RenderPass,
        extent: vk::Extent2D,
    ) -> Result<Offscreen, Error> {
        let color = Image::new(
            ctx,
            "offscreen colour",
            extent,
            OFFSCREEN_FORMAT,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
        )?;
        let depth = Image::new(
            ctx,
            "offscreen depth",
            extent,
            DEPTH_FORMAT,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        )?;
        let bytes = u64::from(extent.width) * u64::from(extent.height) * 4;
        let readback = Buffer::new(
            ctx,
            "offscreen readback",
            bytes,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let framebuffer = create_framebuffer(
            ctx,
            render_pass,
            color.view,
            depth.view,
            extent,
            "offscreen",
        )?;
        Ok(Offscreen {
            framebuffer,
            readback,
            depth,
            color,
            extent,
        })
    }

    /// Records the copy of the colour image (in `TRANSFER_SRC_OPTIMAL` after the
    /// render pass) into the readback buffer, made visible to the host.
    pub fn record_readback(&self, ctx: &Context, cmd: vk::CommandBuffer) {
        let region = vk::BufferImageCopy::default()
            .image_subresource(vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            })
            .image_extent(vk::Extent3D {
                width: self.extent.width,
                height: self.extent.height,
                depth: 1,
            });
        // SAFETY: the render pass's outgoing dependency orders the copy after
        // the colour writes.
        unsafe {
            ctx.device.cmd_copy_image_to_buffer(
                cmd,
                self.color.raw,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                self.readback.raw,
                &[region],
            );
        }
        transfer_to_host_barrier(ctx, cmd);
    }

    /// The read-back pixels as an RGBA8 image (sRGB-encoded, as displayed).
    /// Valid once the frame that recorded the readback has completed.
    pub fn read_rgba(&self) -> Result<image::RgbaImage, Error> {
        let bytes = self
            .readback
            .mapped()
            .ok_or_else(|| Error::Config("readback buffer is not mapped".to_owned()))?;
        let len = self.extent.width as usize * self.extent.height as usize * 4;
        image::RgbaImage::from_raw(self.extent.width, self.extent.height, bytes[..len].to_vec())
            .ok_or_else(|| Error::Config("readback buffer is too small".to_owned()))
    }
}
