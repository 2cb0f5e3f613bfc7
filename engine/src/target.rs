//! Render targets: the render passes every target shares, and the offscreen
//! target that reads its colour back to RGBA8 and PNG.
//!
//! Both the offscreen image and the swapchain are drawn by the same render
//! passes, so one recorded frame serves both. Only the target image's final
//! layout differs: `TRANSFER_SRC_OPTIMAL` for readback, `PRESENT_SRC_KHR`
//! for the window.
//!
//! # Multisampling
//! The raster path can anti-alias with 4× MSAA ([`Msaa::X4`]; every
//! Vulkan device supports 4 samples for colour and depth attachments).
//! `battle --msaa auto`, the default, turns it on for battles of at most
//! 100k units, by measurement against the supersampled reference of the
//! quality measurement (`benches/results/quality/round4/`, H100,
//! 1920x1080): at 10k it lowers FLIP by a quarter to a third and the
//! still-camera shimmer from 1.2-1.5× the reference's to 1.03-1.07×,
//! within the frame budget. At 1M units (round 2): MSAA lowers FLIP at the overview (0.075 to
//! 0.051) and the ground preset (0.0115 to 0.0079) but not at the front
//! (0.132 to 0.135), where the error is the far field's, and it costs 0.7
//! to 3.7 ms of the draw pass on a GPU whose graphics part is small, which
//! the budget cannot win back (the overview went to 18.9 ms, over 16.6),
//! so it is off there. The quality measurement's reference is
//! single-sampled whatever the frame's MSAA (`Renderer::reference_passes`).
//! With MSAA the main pass draws into a multisampled colour and depth
//! image that every target of the renderer's size shares
//! ([`SampleImages`]) and resolves the colour into the target's image at
//! the end of its subpass; without it it draws into the target's image
//! directly.
//!
//! # The two render passes
//! The main one clears the depth and draws the frame, the sky included
//! (`passes/draw.rs`); the overlay one
//! ([`create_overlay_render_pass`], for the HUD) loads the target's image
//! in its final layout, single-sampled, and draws over it. So each target
//! image has two framebuffers ([`Framebuffers`]). The passes' external
//! dependencies order each after the previous attachment writes (the main
//! pass's resolve and final layout transition included) and the readback
//! copy after both.
//!
//! Render passes, framebuffers and targets destroy themselves when dropped.

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::context::Context;
use crate::memory::{transfer_to_host_barrier, Buffer, Image, ImageDesc};
use crate::owned::{Framebuffer, Owned, RenderPass};
use crate::Error;

/// Depth format: 32-bit float for reverse-Z; every Vulkan device supports it
/// as a depth attachment.
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;
/// Offscreen colour: sRGB so the shader writes linear colour.
pub const OFFSCREEN_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;
/// The sky's colour: a hazy blue, linear.
pub const SKY_COLOR: [f32; 4] = [0.52, 0.62, 0.72, 1.0];

/// Samples per pixel of the raster path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Msaa {
    /// One sample: aliased edges.
    #[default]
    Off,
    /// Four samples (the standard pattern), resolved by averaging.
    X4,
}

impl Msaa {
    /// The sample count of the main pass's attachments and pipelines.
    pub fn samples(self) -> vk::SampleCountFlags {
        match self {
            Msaa::Off => vk::SampleCountFlags::TYPE_1,
            Msaa::X4 => vk::SampleCountFlags::TYPE_4,
        }
    }
}

/// The render passes of a renderer's targets (raw handles, owned by the
/// renderer) and what targets need to match them.
#[derive(Clone, Copy, Debug)]
pub struct TargetPasses {
    /// Clears, draws the frame and leaves it in the target's image.
    pub main: vk::RenderPass,
    /// The main pass's early and late parts ([`MainPart`]).
    pub early: vk::RenderPass,
    pub late: vk::RenderPass,
    /// Loads the target's image and draws the HUD over it.
    pub overlay: vk::RenderPass,
    pub color_format: vk::Format,
    pub msaa: Msaa,
}

/// Which part of the frame a main render pass draws. Occlusion culling
/// (`passes/depth_pyramid.rs`) splits the frame in two around the depth
/// pyramid's build: the early part draws what was visible last frame and
/// leaves its depth for the pyramid, the late part draws what the pyramid
/// found newly visible over it. All three are compatible (the same
/// attachments and one subpass; with MSAA the early part resolves
/// nothing), so one framebuffer and one set of pipelines serve them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MainPart {
    /// Clears, draws the whole frame and leaves it in the target's image.
    Whole,
    /// Clears and draws; keeps the colour, and leaves the depth in
    /// `SHADER_READ_ONLY_OPTIMAL` for the pyramid's build to sample.
    Early,
    /// Loads what the early part left, draws over it, and leaves the frame
    /// in the target's image.
    Late,
}

/// The main render pass in its three parts ([`MainPart`]).
pub struct MainPasses {
    pub whole: RenderPass,
    pub early: RenderPass,
    pub late: RenderPass,
}

impl MainPasses {
    /// Creates the three parts, drawing with `msaa`'s samples and leaving
    /// the frame (resolved, with MSAA) in the target's image in
    /// `color_final_layout`.
    pub fn new(
        ctx: &Context,
        color_format: vk::Format,
        color_final_layout: vk::ImageLayout,
        msaa: Msaa,
    ) -> Result<MainPasses, Error> {
        let part = |part| create_render_pass(ctx, color_format, color_final_layout, msaa, part);
        Ok(MainPasses {
            whole: part(MainPart::Whole)?,
            early: part(MainPart::Early)?,
            late: part(MainPart::Late)?,
        })
    }

    /// The raw handle of `part`.
    pub fn get(&self, part: MainPart) -> vk::RenderPass {
        match part {
            MainPart::Whole => *self.whole,
            MainPart::Early => *self.early,
            MainPart::Late => *self.late,
        }
    }
}

/// Creates `part` of the main render pass, drawing with `msaa`'s samples;
/// the whole and late parts leave the frame (resolved, with MSAA) in the
/// target's image, in `color_final_layout`.
fn create_render_pass(
    ctx: &Context,
    color_format: vk::Format,
    color_final_layout: vk::ImageLayout,
    msaa: Msaa,
    part: MainPart,
) -> Result<RenderPass, Error> {
    let samples = msaa.samples();
    let color_attachment = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
    let depth_attachment = vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    let depth_sampled = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
    // What an attachment the part draws into starts from, and how: from
    // nothing (the depth cleared, the colour undefined until the sky fills
    // what no draw covered, `passes/draw.rs`), or loaded from the early
    // part's layout.
    let (color_load, depth_load, color_initial, depth_initial) = match part {
        MainPart::Whole | MainPart::Early => (
            vk::AttachmentLoadOp::DONT_CARE,
            vk::AttachmentLoadOp::CLEAR,
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::UNDEFINED,
        ),
        MainPart::Late => (
            vk::AttachmentLoadOp::LOAD,
            vk::AttachmentLoadOp::LOAD,
            color_attachment,
            depth_sampled,
        ),
    };
    let (drawn_store, drawn_final, depth_store, depth_final) = match part {
        MainPart::Early => (
            vk::AttachmentStoreOp::STORE,
            color_attachment,
            vk::AttachmentStoreOp::STORE,
            depth_sampled,
        ),
        MainPart::Whole | MainPart::Late => (
            vk::AttachmentStoreOp::DONT_CARE,
            color_attachment,
            vk::AttachmentStoreOp::DONT_CARE,
            depth_attachment,
        ),
    };
    let color = |samples: vk::SampleCountFlags| {
        vk::AttachmentDescription::default()
            .format(color_format)
            .samples(samples)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
    };
    // Attachment 0 is always the target's image, 1 the depth, 2 (with MSAA)
    // the multisampled colour. Without MSAA the target's image is the one
    // drawn into; with it, the resolve overwrites all of it, the late
    // part's alone: the early part leaves the target's image unused (only
    // its layout changes), and render passes of one subpass stay
    // compatible whatever their resolve attachments (the spec's "Render
    // Pass Compatibility").
    let target_final = match part {
        MainPart::Early => color_attachment,
        MainPart::Whole | MainPart::Late => color_final_layout,
    };
    let target = if msaa == Msaa::Off {
        color(samples)
            .load_op(color_load)
            .initial_layout(color_initial)
    } else {
        color(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::DONT_CARE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
    }
    .store_op(vk::AttachmentStoreOp::STORE)
    .final_layout(target_final);
    let depth = vk::AttachmentDescription::default()
        .format(DEPTH_FORMAT)
        .samples(samples)
        .load_op(depth_load)
        .store_op(depth_store)
        .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
        .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
        .initial_layout(depth_initial)
        .final_layout(depth_final);
    let multisampled = color(samples)
        .load_op(color_load)
        .initial_layout(color_initial)
        .store_op(drawn_store)
        .final_layout(drawn_final);
    let attachment = |index: u32| vk::AttachmentReference {
        attachment: index,
        layout: color_attachment,
    };
    let depth_ref = vk::AttachmentReference {
        attachment: 1,
        layout: depth_attachment,
    };
    let (attachments, color_refs, resolve_refs) = match (msaa, part) {
        (Msaa::Off, _) => (vec![target, depth], [attachment(0)], None),
        (Msaa::X4, MainPart::Early) => (vec![target, depth, multisampled], [attachment(2)], None),
        (Msaa::X4, MainPart::Whole | MainPart::Late) => (
            vec![target, depth, multisampled],
            [attachment(2)],
            Some([attachment(0)]),
        ),
    };
    let mut subpass = vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&color_refs)
        .depth_stencil_attachment(&depth_ref);
    if let Some(resolve_refs) = &resolve_refs {
        subpass = subpass.resolve_attachments(resolve_refs);
    }
    let name = match part {
        MainPart::Whole => "main render pass",
        MainPart::Early => "main render pass, early part",
        MainPart::Late => "main render pass, late part",
    };
    render_pass(ctx, &attachments, subpass, name)
}

/// Creates the overlay render pass: it keeps the frame the main pass left
/// in the target's image (loaded from, and returned to,
/// `color_final_layout`), single-sampled, without depth.
pub fn create_overlay_render_pass(
    ctx: &Context,
    color_format: vk::Format,
    color_final_layout: vk::ImageLayout,
) -> Result<RenderPass, Error> {
    let attachments = [vk::AttachmentDescription::default()
        .format(color_format)
        .samples(vk::SampleCountFlags::TYPE_1)
        .load_op(vk::AttachmentLoadOp::LOAD)
        .store_op(vk::AttachmentStoreOp::STORE)
        .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
        .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
        .initial_layout(color_final_layout)
        .final_layout(color_final_layout)];
    let color_refs = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let subpass = vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&color_refs);
    render_pass(ctx, &attachments, subpass, "overlay render pass")
}

fn render_pass(
    ctx: &Context,
    attachments: &[vk::AttachmentDescription],
    subpass: vk::SubpassDescription,
    name: &str,
) -> Result<RenderPass, Error> {
    let subpasses = [subpass];
    let attachment_stages = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
        | vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS
        | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS;
    let attachment_writes =
        vk::AccessFlags::COLOR_ATTACHMENT_WRITE | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE;
    let dependencies = [
        // The previous frame's attachment writes and readback copy (or the
        // presentation engine's read, via the acquire semaphore) finish before
        // this frame clears the attachments. For the overlay: the main pass's
        // writes, resolve and final layout transition (ordered before
        // TRANSFER by its outgoing dependency) finish before the overlay
        // loads them. The depth pyramid's reads of the depth (compute)
        // finish before the late part, or the next frame, writes it.
        vk::SubpassDependency::default()
            .src_subpass(vk::SUBPASS_EXTERNAL)
            .dst_subpass(0)
            .src_stage_mask(
                attachment_stages
                    | vk::PipelineStageFlags::TRANSFER
                    | vk::PipelineStageFlags::COMPUTE_SHADER,
            )
            .src_access_mask(attachment_writes)
            .dst_stage_mask(attachment_stages)
            .dst_access_mask(
                attachment_writes
                    | vk::AccessFlags::COLOR_ATTACHMENT_READ
                    | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ,
            ),
        // Colour writes (the resolve's included) finish before the
        // readback copy; the early part's depth writes before the depth
        // pyramid samples them.
        vk::SubpassDependency::default()
            .src_subpass(0)
            .dst_subpass(vk::SUBPASS_EXTERNAL)
            .src_stage_mask(attachment_stages)
            .src_access_mask(attachment_writes)
            .dst_stage_mask(
                vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::COMPUTE_SHADER,
            )
            .dst_access_mask(vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::SHADER_READ),
    ];
    let info = vk::RenderPassCreateInfo::default()
        .attachments(attachments)
        .subpasses(&subpasses)
        .dependencies(&dependencies);
    // SAFETY: valid create info.
    let render_pass = unsafe { ctx.device.create_render_pass(&info, None) }?;
    Ok(Owned::new(ctx, render_pass, name))
}

/// The images the main pass draws into besides the target's own: the
/// depth, and with MSAA the multisampled colour. Targets drawn one after
/// another (the swapchain's images) share them: the render pass's incoming
/// dependency orders each frame's clear after the previous frame's writes.
pub struct SampleImages {
    pub depth: Image,
    pub multisampled_color: Option<Image>,
}

impl SampleImages {
    pub fn new(
        ctx: &Context,
        passes: &TargetPasses,
        extent: vk::Extent2D,
    ) -> Result<SampleImages, Error> {
        let sampled = |format, usage| ImageDesc {
            samples: passes.msaa.samples(),
            ..ImageDesc::new(extent, format, usage)
        };
        let multisampled_color = match passes.msaa {
            Msaa::Off => None,
            Msaa::X4 => {
                // Not transient: the early part stores it for the late.
                let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT;
                let desc = sampled(passes.color_format, usage);
                Some(Image::create(ctx, "multisampled colour", &desc)?)
            }
        };
        // Sampled by the depth pyramid's build between the early and
        // late parts.
        let depth_usage =
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::SAMPLED;
        let depth = Image::create(ctx, "depth", &sampled(DEPTH_FORMAT, depth_usage))?;
        Ok(SampleImages {
            depth,
            multisampled_color,
        })
    }
}

/// A target image's framebuffers: one of the main pass (with the shared
/// [`SampleImages`]) and one of the overlay pass, and the passes they are
/// begun with.
pub struct Framebuffers {
    pub main: Framebuffer,
    pub overlay: Framebuffer,
    pub passes: TargetPasses,
    /// The shared depth image's view (owned by the [`SampleImages`]).
    pub depth: vk::ImageView,
}

/// The raw handles of a target image's [`Framebuffers`] and their passes.
#[derive(Clone, Copy, Debug)]
pub struct FramebufferHandles {
    /// The main pass's framebuffer, which its early and late parts share.
    pub main: vk::Framebuffer,
    pub overlay: vk::Framebuffer,
    pub main_pass: vk::RenderPass,
    pub early_pass: vk::RenderPass,
    pub late_pass: vk::RenderPass,
    pub overlay_pass: vk::RenderPass,
    /// The main pass's depth, which the depth pyramid samples.
    pub depth: vk::ImageView,
}

impl Framebuffers {
    /// The framebuffers of the target image `view`, of `extent`.
    pub fn new(
        ctx: &Context,
        passes: &TargetPasses,
        images: &SampleImages,
        view: vk::ImageView,
        extent: vk::Extent2D,
        name: &str,
    ) -> Result<Framebuffers, Error> {
        let mut main_views = vec![view, images.depth.view];
        main_views.extend(images.multisampled_color.as_ref().map(|image| image.view));
        let main = framebuffer(ctx, passes.main, &main_views, extent, name)?;
        let overlay = framebuffer(
            ctx,
            passes.overlay,
            &[view],
            extent,
            &format!("{name} overlay"),
        )?;
        Ok(Framebuffers {
            main,
            overlay,
            passes: *passes,
            depth: images.depth.view,
        })
    }

    pub fn handles(&self) -> FramebufferHandles {
        FramebufferHandles {
            main: *self.main,
            overlay: *self.overlay,
            main_pass: self.passes.main,
            early_pass: self.passes.early,
            late_pass: self.passes.late,
            overlay_pass: self.passes.overlay,
            depth: self.depth,
        }
    }
}

pub(crate) fn framebuffer(
    ctx: &Context,
    render_pass: vk::RenderPass,
    views: &[vk::ImageView],
    extent: vk::Extent2D,
    name: &str,
) -> Result<Framebuffer, Error> {
    let info = vk::FramebufferCreateInfo::default()
        .render_pass(render_pass)
        .attachments(views)
        .width(extent.width)
        .height(extent.height)
        .layers(1);
    // SAFETY: the views are alive and match the render pass's attachments.
    let framebuffer = unsafe { ctx.device.create_framebuffer(&info, None) }?;
    Ok(Owned::new(ctx, framebuffer, name))
}

/// An offscreen target with a host-visible readback buffer. Fields are
/// declared in reverse creation order, which is the order they drop in.
pub struct Offscreen {
    pub framebuffers: Framebuffers,
    pub readback: Buffer,
    pub samples: SampleImages,
    pub color: Image,
    pub extent: vk::Extent2D,
}

impl Offscreen {
    /// Creates a target of any size the device allows for `passes`.
    pub fn new(
        ctx: &Context,
        passes: &TargetPasses,
        extent: vk::Extent2D,
    ) -> Result<Offscreen, Error> {
        let color = Image::new(
            ctx,
            "offscreen colour",
            extent,
            passes.color_format,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
        )?;
        let samples = SampleImages::new(ctx, passes, extent)?;
        let bytes = u64::from(extent.width) * u64::from(extent.height) * 4;
        let readback = Buffer::new(
            ctx,
            "offscreen readback",
            bytes,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let framebuffers =
            Framebuffers::new(ctx, passes, &samples, color.view, extent, "offscreen")?;
        Ok(Offscreen {
            framebuffers,
            readback,
            samples,
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

    /// The read-back pixels as an RGBA8 image (sRGB-encoded, as displayed;
    /// a BGRA target, a window renderer's, swapped into RGBA). Valid once
    /// the frame that recorded the readback has completed.
    pub fn read_rgba(&self) -> Result<image::RgbaImage, Error> {
        let bytes = self
            .readback
            .mapped()
            .ok_or_else(|| Error::Config("readback buffer is not mapped".to_owned()))?;
        let len = self.extent.width as usize * self.extent.height as usize * 4;
        let mut pixels = bytes[..len].to_vec();
        if matches!(
            self.color.format,
            vk::Format::B8G8R8A8_SRGB | vk::Format::B8G8R8A8_UNORM
        ) {
            pixels
                .chunks_exact_mut(4)
                .for_each(|pixel| pixel.swap(0, 2));
        }
        image::RgbaImage::from_raw(self.extent.width, self.extent.height, pixels)
            .ok_or_else(|| Error::Config("readback buffer is too small".to_owned()))
    }
}
