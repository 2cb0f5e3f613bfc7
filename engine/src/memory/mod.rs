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

mod image;
pub use image::{aspect_of, full_range, upload_image, upload_image_levels, Image, ImageDesc};

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
