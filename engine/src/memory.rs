//! GPU memory: thin buffer and image wrappers over gpu-allocator, staging
//! uploads, and a deferred-release queue.
//!
//! - [`Buffer`] and [`Image`] hold the raw handle, the allocation, the size and a
//!   debug name, and an `Arc` of the shared [`Gpu`]. We chose `Drop` over a
//!   shared device (see [`crate::context`]): dropping a buffer or image
//!   destroys it and frees its memory, so constructors are straight `?` chains
//!   and owners tear down by field order, without unwinding code. The GPU must
//!   be done with a resource when it drops: in-flight ones go through
//!   [`DeferredRelease`].
//! - Leaks still show: an allocation alive when the tests' `finish` runs is
//!   named by [`Context::live_allocations`] and fails the test.
//! - Uploads at load time go through a staging buffer and a one-shot command
//!   buffer that the CPU waits for ([`upload_buffer`], [`upload_image`]). Per-frame
//!   updates use host-visible buffers owned by the frame slot instead.
//! - A resource replaced while frames that use it are still in flight (a buffer
//!   that grew) goes to [`DeferredRelease`], keyed by the frame number that last
//!   used it, and is dropped once that frame's fence has signalled.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use crate::context::{Context, Gpu};
use crate::owned::{CommandPool, Fence, Owned};
use crate::Error;

/// A buffer and its memory, destroyed when dropped.
pub struct Buffer {
    pub raw: vk::Buffer,
    pub allocation: Allocation,
    pub size: u64,
    pub name: String,
    gpu: Arc<Gpu>,
}

impl Buffer {
    /// Creates a buffer of `size` bytes (at least 4) in `location`.
    pub fn new(
        ctx: &Context,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<Buffer, Error> {
        let size = size.max(4);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info.
        let raw = unsafe { ctx.device.create_buffer(&info, None) }?;
        // Owns the buffer from here: a failure below drops it.
        let mut buffer = Buffer {
            raw,
            allocation: Allocation::default(),
            size,
            name: name.to_owned(),
            gpu: ctx.gpu.clone(),
        };
        // SAFETY: a valid buffer of this device.
        let requirements = unsafe { ctx.device.get_buffer_memory_requirements(raw) };
        buffer.allocation = ctx
            .gpu
            .allocate(&AllocationCreateDesc {
                name,
                requirements,
                location,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .map_err(|err| Error::OutOfMemory(format!("buffer '{name}' ({size} bytes): {err}")))?;
        // SAFETY: the allocation satisfies the buffer's requirements.
        unsafe {
            ctx.device.bind_buffer_memory(
                raw,
                buffer.allocation.memory(),
                buffer.allocation.offset(),
            )
        }?;
        ctx.set_name(raw, name);
        Ok(buffer)
    }

    /// Copies `data` into a host-visible buffer at byte `offset`.
    pub fn write<T: bytemuck::Pod>(&mut self, offset: u64, data: &[T]) -> Result<(), Error> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let name = self.name.clone();
        let mapped = self
            .allocation
            .mapped_slice_mut()
            .ok_or_else(|| Error::Config(format!("buffer '{name}' is not host-visible")))?;
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let end = start
            .checked_add(bytes.len())
            .filter(|&end| end <= mapped.len());
        let Some(end) = end else {
            return Err(Error::Config(format!(
                "write of {} bytes at {offset} overruns buffer '{name}' of {} bytes",
                bytes.len(),
                mapped.len()
            )));
        };
        mapped[start..end].copy_from_slice(bytes);
        Ok(())
    }

    /// The mapped contents of a host-visible buffer.
    pub fn mapped(&self) -> Option<&[u8]> {
        self.allocation.mapped_slice()
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: the owner drops a buffer only once the GPU is done with it.
        unsafe { self.gpu.device.destroy_buffer(self.raw, None) };
        self.gpu.note_destroyed();
        self.gpu.free(std::mem::take(&mut self.allocation));
    }
}

/// A 2D image with one mip level, its default view, and its memory,
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

impl Image {
    /// Creates a device-local 2D image and a view of it.
    pub fn new(
        ctx: &Context,
        name: &str,
        extent: vk::Extent2D,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
    ) -> Result<Image, Error> {
        Image::create(
            ctx,
            name,
            extent,
            format,
            usage,
            vk::SampleCountFlags::TYPE_1,
            1,
        )
    }

    /// Creates a device-local 2D image of `samples` samples per pixel and a
    /// view of it.
    pub fn multisampled(
        ctx: &Context,
        name: &str,
        extent: vk::Extent2D,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        samples: vk::SampleCountFlags,
    ) -> Result<Image, Error> {
        Image::create(ctx, name, extent, format, usage, samples, 1)
    }

    /// As [`Image::new`], with `levels` mip levels (the view sees them all).
    pub fn with_levels(
        ctx: &Context,
        name: &str,
        extent: vk::Extent2D,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        levels: u32,
    ) -> Result<Image, Error> {
        Image::create(
            ctx,
            name,
            extent,
            format,
            usage,
            vk::SampleCountFlags::TYPE_1,
            levels,
        )
    }

    /// A device-local 2D array image of `layers` layers and an array view of
    /// them all (an array view even of one layer).
    pub fn array(
        ctx: &Context,
        name: &str,
        extent: vk::Extent2D,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        layers: u32,
    ) -> Result<Image, Error> {
        Image::create_layers(
            ctx,
            name,
            extent,
            format,
            usage,
            vk::SampleCountFlags::TYPE_1,
            (1, Some(layers.max(1))),
        )
    }

    /// A single-layer image with a 2D view.
    fn create(
        ctx: &Context,
        name: &str,
        extent: vk::Extent2D,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        samples: vk::SampleCountFlags,
        levels: u32,
    ) -> Result<Image, Error> {
        Image::create_layers(ctx, name, extent, format, usage, samples, (levels, None))
    }

    /// The one constructor behind those above: `(levels, layers)`, where
    /// `Some` layers makes an array image with an array view.
    fn create_layers(
        ctx: &Context,
        name: &str,
        extent: vk::Extent2D,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        samples: vk::SampleCountFlags,
        (levels, layers): (u32, Option<u32>),
    ) -> Result<Image, Error> {
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

/// Records a global memory barrier: writes of `src_access` in `src_stage`
/// become visible to `dst_access` in `dst_stage`.
pub fn memory_barrier(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    (src_stage, src_access): (vk::PipelineStageFlags, vk::AccessFlags),
    (dst_stage, dst_access): (vk::PipelineStageFlags, vk::AccessFlags),
) {
    let barrier = vk::MemoryBarrier::default()
        .src_access_mask(src_access)
        .dst_access_mask(dst_access);
    // SAFETY: a plain global barrier on a command buffer in the recording state.
    unsafe {
        ctx.device.cmd_pipeline_barrier(
            cmd,
            src_stage,
            dst_stage,
            vk::DependencyFlags::empty(),
            &[barrier],
            &[],
            &[],
        );
    }
}

/// The barrier after a copy whose result the host reads.
pub fn transfer_to_host_barrier(ctx: &Context, cmd: vk::CommandBuffer) {
    memory_barrier(
        ctx,
        cmd,
        (
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::TRANSFER_WRITE,
        ),
        (vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ),
    );
}

/// Records commands into a one-shot command buffer, submits it and waits.
/// For load-time work only: it stalls the queue.
pub fn submit_and_wait(ctx: &Context, record: impl FnOnce(vk::CommandBuffer)) -> Result<(), Error> {
    let pool_info = vk::CommandPoolCreateInfo::default()
        .queue_family_index(ctx.queue_family)
        .flags(vk::CommandPoolCreateFlags::TRANSIENT);
    // SAFETY: valid create info.
    let pool = unsafe { ctx.device.create_command_pool(&pool_info, None) }?;
    let pool: CommandPool = Owned::new(ctx, pool, "one-shot commands");
    // SAFETY: valid create info.
    let fence = unsafe {
        ctx.device
            .create_fence(&vk::FenceCreateInfo::default(), None)
    }?;
    let fence: Fence = Owned::new(ctx, fence, "one-shot fence");
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(*pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    let begin =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: the command buffer comes from `pool`, which is dropped (freeing
    // it) only after the wait, or after a failure before the submission.
    unsafe {
        let cmd = ctx.device.allocate_command_buffers(&alloc)?[0];
        ctx.device.begin_command_buffer(cmd, &begin)?;
        record(cmd);
        ctx.device.end_command_buffer(cmd)?;
        let cmds = [cmd];
        let submit = vk::SubmitInfo::default().command_buffers(&cmds);
        ctx.device.queue_submit(ctx.queue, &[submit], *fence)?;
        ctx.device.wait_for_fences(&[*fence], true, u64::MAX)?;
    }
    Ok(())
}

/// Creates a device-local buffer holding `data`, through a staging buffer.
pub fn upload_buffer(
    ctx: &Context,
    name: &str,
    usage: vk::BufferUsageFlags,
    data: &[u8],
) -> Result<Buffer, Error> {
    let buffer = Buffer::new(
        ctx,
        name,
        data.len() as u64,
        usage | vk::BufferUsageFlags::TRANSFER_DST,
        MemoryLocation::GpuOnly,
    )?;
    if data.is_empty() {
        return Ok(buffer);
    }
    let staging = staging_with(ctx, name, data)?;
    let region = vk::BufferCopy::default().size(data.len() as u64);
    submit_and_wait(ctx, |cmd| {
        // SAFETY: both buffers are alive and large enough.
        unsafe {
            ctx.device
                .cmd_copy_buffer(cmd, staging.raw, buffer.raw, &[region])
        };
    })?;
    Ok(buffer)
}

fn staging_with(ctx: &Context, name: &str, data: &[u8]) -> Result<Buffer, Error> {
    let mut staging = Buffer::new(
        ctx,
        &format!("{name} staging"),
        data.len() as u64,
        vk::BufferUsageFlags::TRANSFER_SRC,
        MemoryLocation::CpuToGpu,
    )?;
    staging.write(0, data)?;
    Ok(staging)
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
    let image = Image::with_levels(
        ctx,
        name,
        extent,
        format,
        vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
        level_count,
    )?;
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

/// A GPU resource waiting for the frames that use it to finish.
pub enum Released {
    Buffer(Buffer),
    Image(Image),
}

/// Resources to drop once the frame that last used them has completed.
#[derive(Default)]
pub struct DeferredRelease {
    pending: Vec<(u64, Released)>,
}

impl DeferredRelease {
    /// Queues `resource`, last used by frame number `frame`.
    pub fn push(&mut self, frame: u64, resource: Released) {
        self.pending.push((frame, resource));
    }

    /// Drops everything last used by a frame up to `completed_frame`. `_ctx`
    /// is unused (resources destroy themselves); kept until callers change.
    pub fn collect(&mut self, completed_frame: u64) {
        self.pending.retain(|(frame, _)| *frame > completed_frame);
    }

    /// Resources still waiting.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// True when nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
}

/// Copies the first `bytes` of each buffer into host memory, after every
/// earlier submission's writes. Waits for the GPU.
pub fn read_buffers<const N: usize>(
    ctx: &Context,
    sources: [(&Buffer, u64); N],
) -> Result<[Vec<u8>; N], Error> {
    let total: u64 = sources.iter().map(|(_, bytes)| bytes).sum();
    let readback = Buffer::new(
        ctx,
        "state readback",
        total.max(4),
        vk::BufferUsageFlags::TRANSFER_DST,
        MemoryLocation::GpuToCpu,
    )?;
    submit_and_wait(ctx, |cmd| {
        // Every earlier frame's writes come before the copies.
        let all = (
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::AccessFlags::MEMORY_WRITE,
        );
        let copy = (
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::TRANSFER_READ,
        );
        memory_barrier(ctx, cmd, all, copy);
        let mut offset = 0;
        for (source, size) in sources {
            if size > 0 {
                let region = vk::BufferCopy::default().dst_offset(offset).size(size);
                // SAFETY: the source holds `size` bytes and the readback
                // buffer `offset + size`.
                unsafe {
                    ctx.device
                        .cmd_copy_buffer(cmd, source.raw, readback.raw, &[region])
                };
            }
            offset += size;
        }
        transfer_to_host_barrier(ctx, cmd);
    })?;
    let bytes = readback
        .mapped()
        .ok_or_else(|| Error::Config("the readback buffer is not mapped".to_owned()))?;
    let mut at = 0usize;
    Ok(sources.map(|(_, size)| {
        let part = bytes[at..at + size as usize].to_vec();
        at += size as usize;
        part
    }))
}
