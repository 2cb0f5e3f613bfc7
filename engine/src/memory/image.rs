//! Images: [`Image`] (a 2D image or array, its view and memory, destroyed
//! when dropped), the subresource helpers, and uploads of texels through a
//! staging buffer ([`upload_image`], [`upload_image_levels`]).

use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use super::{staging_with, submit_and_wait};
use crate::context::{Context, Gpu};
use crate::Error;

/// A 2D image (or array of them), its default view, and its memory,
/// destroyed when dropped.
pub struct Image {
    pub raw: vk::Image,
    pub view: vk::ImageView,
    pub allocation: Allocation,
    pub extent: vk::Extent2D,
    pub format: vk::Format,
    pub name: String,
    gpu: Arc<Gpu>,
}

/// What an image is: its size and format, what it is used for, samples per
/// pixel, mip levels (the view sees them all), and array layers (`Some`:
/// an array image with an array view, even of one layer).
#[derive(Clone, Copy, Debug)]
pub struct ImageDesc {
    pub extent: vk::Extent2D,
    pub format: vk::Format,
    pub usage: vk::ImageUsageFlags,
    pub samples: vk::SampleCountFlags,
    pub levels: u32,
    pub layers: Option<u32>,
}

impl ImageDesc {
    /// A single-sampled 2D image of one level and one layer.
    pub fn new(extent: vk::Extent2D, format: vk::Format, usage: vk::ImageUsageFlags) -> Self {
        ImageDesc {
            extent,
            format,
            usage,
            samples: vk::SampleCountFlags::TYPE_1,
            levels: 1,
            layers: None,
        }
    }
}

impl Image {
    /// Creates a device-local single-sampled 2D image of one level and a
    /// view of it.
    pub fn new(
        ctx: &Context,
        name: &str,
        extent: vk::Extent2D,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
    ) -> Result<Image, Error> {
        Image::create(ctx, name, &ImageDesc::new(extent, format, usage))
    }

    /// Creates a device-local image as `desc` says, and a view of it.
    pub fn create(ctx: &Context, name: &str, desc: &ImageDesc) -> Result<Image, Error> {
        let &ImageDesc {
            extent,
            format,
            usage,
            samples,
            levels,
            layers,
        } = desc;
        let max = ctx.limits.max_image_dimension_2d;
        if extent.width == 0 || extent.height == 0 || extent.width > max || extent.height > max {
            return Err(Error::Config(format!(
                "image '{name}' of {}x{} is outside 1..={max} for this device and tier",
                extent.width, extent.height
            )));
        }
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: extent.width,
                height: extent.height,
                depth: 1,
            })
            .mip_levels(levels.max(1))
            .array_layers(layers.unwrap_or(1))
            .samples(samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid create info.
        let raw = unsafe { ctx.device.create_image(&info, None) }?;
        // Owns the image from here: a failure below drops it.
        let mut image = Image {
            raw,
            view: vk::ImageView::null(),
            allocation: Allocation::default(),
            extent,
            format,
            name: name.to_owned(),
            gpu: ctx.gpu.clone(),
        };
        // SAFETY: a valid image of this device.
        let requirements = unsafe { ctx.device.get_image_memory_requirements(raw) };
        image.allocation = ctx
            .gpu
            .allocate(&AllocationCreateDesc {
                name,
                requirements,
                location: MemoryLocation::GpuOnly,
                linear: false,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .map_err(|err| Error::OutOfMemory(format!("image '{name}': {err}")))?;
        // SAFETY: the allocation satisfies the image's requirements.
        unsafe {
            ctx.device
                .bind_image_memory(raw, image.allocation.memory(), image.allocation.offset())
        }?;
        let view_info = vk::ImageViewCreateInfo::default()
            .image(raw)
            .view_type(if layers.is_some() {
                vk::ImageViewType::TYPE_2D_ARRAY
            } else {
                vk::ImageViewType::TYPE_2D
            })
            .format(format)
            .subresource_range(vk::ImageSubresourceRange {
                level_count: levels.max(1),
                layer_count: layers.unwrap_or(1),
                ..full_range(aspect_of(format))
            });
        // SAFETY: the image is bound to memory.
        image.view = unsafe { ctx.device.create_image_view(&view_info, None) }?;
        ctx.set_name(raw, name);
        ctx.set_name(image.view, name);
        Ok(image)
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: the owner drops an image only once the GPU is done with it;
        // a view not made yet is null, which Vulkan ignores.
        unsafe {
            self.gpu.device.destroy_image_view(self.view, None);
            self.gpu.device.destroy_image(self.raw, None);
        }
        self.gpu.note_destroyed();
        self.gpu.free(std::mem::take(&mut self.allocation));
    }
}

/// The aspect a format's view and barriers use.
pub fn aspect_of(format: vk::Format) -> vk::ImageAspectFlags {
    match format {
        vk::Format::D16_UNORM | vk::Format::D32_SFLOAT | vk::Format::X8_D24_UNORM_PACK32 => {
            vk::ImageAspectFlags::DEPTH
        }
        vk::Format::D24_UNORM_S8_UINT | vk::Format::D32_SFLOAT_S8_UINT => {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        }
        _ => vk::ImageAspectFlags::COLOR,
    }
}

/// The whole single-mip, single-layer subresource of `aspect`.
pub fn full_range(aspect: vk::ImageAspectFlags) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: aspect,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// Creates a sampled 2D image holding tightly packed `data` (one texel after
/// another, rows top to bottom), left in `SHADER_READ_ONLY_OPTIMAL`.
pub fn upload_image(
    ctx: &Context,
    name: &str,
    extent: vk::Extent2D,
    format: vk::Format,
    data: &[u8],
) -> Result<Image, Error> {
    upload_image_levels(ctx, name, extent, format, &[data])
}

/// As [`upload_image`], with mip levels: `levels[0]` is the image, each
/// further one half the size of the one before (rounded down, at least 1).
pub fn upload_image_levels(
    ctx: &Context,
    name: &str,
    extent: vk::Extent2D,
    format: vk::Format,
    levels: &[&[u8]],
) -> Result<Image, Error> {
    let level_count = levels.len().max(1) as u32;
    let usage = vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST;
    let desc = ImageDesc {
        levels: level_count,
        ..ImageDesc::new(extent, format, usage)
    };
    let image = Image::create(ctx, name, &desc)?;
    let staging = staging_with(ctx, name, &levels.concat())?;
    let range = vk::ImageSubresourceRange {
        level_count,
        ..full_range(vk::ImageAspectFlags::COLOR)
    };
    let mut offset = 0u64;
    let regions: Vec<vk::BufferImageCopy> = levels
        .iter()
        .enumerate()
        .map(|(level, data)| {
            let region = vk::BufferImageCopy::default()
                .buffer_offset(offset)
                .image_subresource(vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: level as u32,
                    base_array_layer: 0,
                    layer_count: 1,
                })
                .image_extent(vk::Extent3D {
                    width: (extent.width >> level).max(1),
                    height: (extent.height >> level).max(1),
                    depth: 1,
                });
            offset += data.len() as u64;
            region
        })
        .collect();
    submit_and_wait(ctx, |cmd| {
        let to_transfer = vk::ImageMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::empty())
            .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image.raw)
            .subresource_range(range);
        let to_shader = vk::ImageMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::SHADER_READ)
            .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .new_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image.raw)
            .subresource_range(range);
        // SAFETY: image and staging buffer are alive; barriers cover the copy.
        unsafe {
            ctx.device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_transfer],
            );
            ctx.device.cmd_copy_buffer_to_image(
                cmd,
                staging.raw,
                image.raw,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &regions,
            );
            ctx.device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::VERTEX_SHADER
                    | vk::PipelineStageFlags::FRAGMENT_SHADER
                    | vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_shader],
            );
        }
    })?;
    Ok(image)
}
