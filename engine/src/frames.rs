//! Frames in flight: per-slot command buffers, fences and acquire semaphores.
//!
//! `FRAMES_IN_FLIGHT` slots rotate. Frame number `n` uses slot `n % N`. Before
//! slot `s` is recorded again, its fence is waited on, which proves that frame
//! `n - N` and every frame before it have completed on the GPU; that number is
//! what the deferred-release queue and the profiler read back against. Command
//! buffers are re-recorded every frame from a pool reset as a whole.
//!
//! Each slot also has a descriptor pool, reset with it: passes allocate and
//! write their descriptor sets every frame ([`allocate_set`]), so a buffer that
//! grew or was replaced is picked up without any bookkeeping.
//!
//! Every object is an [`Owned`] handle, destroyed when its slot is dropped;
//! the owner (the renderer) waits for the device first.

use ash::vk;

use crate::config::FRAMES_IN_FLIGHT;
use crate::context::{Context, InjectedFailure};
use crate::owned::{CommandPool, DescriptorPool, Fence, Owned, Semaphore};
use crate::Error;

/// One frame's worth of command recording and synchronization. Fields are
/// declared in reverse creation order, which is the order they drop in.
pub struct FrameSlot {
    /// Descriptor sets of this frame, reset when the slot is reused.
    pub descriptor_pool: DescriptorPool,
    /// Signalled by swapchain acquire; waited on by the submission.
    pub image_available: Semaphore,
    /// Signalled when this slot's last submission finished.
    pub fence: Fence,
    /// Freed with `pool`.
    pub cmd: vk::CommandBuffer,
    pub pool: CommandPool,
}

/// The rotating frame slots.
pub struct Frames {
    pub slots: Vec<FrameSlot>,
    /// Number of the frame being recorded (or next to be).
    pub number: u64,
}

/// What `Frames::begin` hands the renderer.
#[derive(Clone, Copy, Debug)]
pub struct FrameStart {
    pub slot: usize,
    pub cmd: vk::CommandBuffer,
    /// Allocate this frame's descriptor sets here.
    pub descriptor_pool: vk::DescriptorPool,
    pub number: u64,
    /// Every frame up to and including this number has completed, if any.
    pub completed: Option<u64>,
}

impl Frames {
    /// Creates the slots; fences start signalled so the first wait passes.
    pub fn new(ctx: &Context) -> Result<Frames, Error> {
        let slots = (0..FRAMES_IN_FLIGHT)
            .map(|index| create_slot(ctx, index))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Frames { slots, number: 0 })
    }

    /// Waits for the slot of the next frame, resets it and begins recording.
    pub fn begin(&mut self, ctx: &Context) -> Result<FrameStart, Error> {
        let slot_index = (self.number % FRAMES_IN_FLIGHT as u64) as usize;
        let slot = &self.slots[slot_index];
        // SAFETY: the fence and pool belong to this device; after the wait the
        // GPU no longer uses the pool's command buffer.
        unsafe {
            ctx.device.wait_for_fences(&[*slot.fence], true, u64::MAX)?;
            ctx.device
                .reset_command_pool(*slot.pool, vk::CommandPoolResetFlags::empty())?;
            ctx.device.reset_descriptor_pool(
                *slot.descriptor_pool,
                vk::DescriptorPoolResetFlags::empty(),
            )?;
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            ctx.device.begin_command_buffer(slot.cmd, &begin)?;
        }
        Ok(FrameStart {
            slot: slot_index,
            cmd: slot.cmd,
            descriptor_pool: *slot.descriptor_pool,
            number: self.number,
            completed: self.number.checked_sub(FRAMES_IN_FLIGHT as u64),
        })
    }

    /// Ends recording and submits, signalling the slot's fence. `wait` and
    /// `signal` are the swapchain semaphores, empty for offscreen frames.
    pub fn submit(
        &mut self,
        ctx: &Context,
        start: &FrameStart,
        wait: &[vk::Semaphore],
        signal: &[vk::Semaphore],
    ) -> Result<(), Error> {
        let slot = &self.slots[start.slot];
        let wait_stages = vec![vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT; wait.len()];
        let cmds = [slot.cmd];
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(wait)
            .wait_dst_stage_mask(&wait_stages)
            .command_buffers(&cmds)
            .signal_semaphores(signal);
        // SAFETY: the command buffer is fully recorded.
        unsafe { ctx.device.end_command_buffer(slot.cmd) }?;
        if ctx.gpu.take_injected(InjectedFailure::Submit) {
            // As a lost device would answer; the fence stays signalled, so
            // nothing waits for a submission that never happened.
            return Err(Error::DeviceLost);
        }
        // SAFETY: the fence was waited on in `begin`, so it is unsignalled
        // only between reset and submit.
        unsafe {
            ctx.device.reset_fences(&[*slot.fence])?;
            ctx.device.queue_submit(ctx.queue, &[submit], *slot.fence)?;
        }
        self.number += 1;
        Ok(())
    }

    /// Waits until every submitted frame has completed.
    pub fn wait_all(&self, ctx: &Context) -> Result<(), Error> {
        let fences: Vec<vk::Fence> = self.slots.iter().map(|s| *s.fence).collect();
        // SAFETY: fences of this device.
        unsafe { ctx.device.wait_for_fences(&fences, true, u64::MAX) }?;
        Ok(())
    }
}

fn create_slot(ctx: &Context, index: u32) -> Result<FrameSlot, Error> {
    let pool_info = vk::CommandPoolCreateInfo::default()
        .queue_family_index(ctx.queue_family)
        .flags(vk::CommandPoolCreateFlags::TRANSIENT);
    // SAFETY: valid create info.
    let pool = unsafe { ctx.device.create_command_pool(&pool_info, None) }?;
    let pool: CommandPool = Owned::new(ctx, pool, &format!("frame {index} command pool"));
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(*pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: a valid pool of this device.
    let cmd = unsafe { ctx.device.allocate_command_buffers(&alloc) }?[0];
    ctx.set_name(cmd, &format!("frame {index} commands"));
    let fence_info = vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED);
    // SAFETY: valid create info.
    let fence = unsafe { ctx.device.create_fence(&fence_info, None) }?;
    let fence = Owned::new(ctx, fence, &format!("frame {index} fence"));
    // SAFETY: valid create info.
    let semaphore = unsafe {
        ctx.device
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
    }?;
    let image_available = Owned::new(ctx, semaphore, &format!("frame {index} image available"));
    let descriptor_pool = create_descriptor_pool(ctx)?;
    let descriptor_pool = Owned::new(ctx, descriptor_pool, &format!("frame {index} descriptors"));
    Ok(FrameSlot {
        descriptor_pool,
        image_available,
        fence,
        cmd,
        pool,
    })
}

/// Descriptor sets one frame may allocate, and descriptors of each type.
const SETS_PER_FRAME: u32 = 64;
const DESCRIPTORS_PER_TYPE: u32 = 256;

fn create_descriptor_pool(ctx: &Context) -> Result<vk::DescriptorPool, vk::Result> {
    let sizes = [
        vk::DescriptorType::UNIFORM_BUFFER,
        vk::DescriptorType::STORAGE_BUFFER,
        vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        vk::DescriptorType::SAMPLED_IMAGE,
        vk::DescriptorType::STORAGE_IMAGE,
    ]
    .map(|ty| vk::DescriptorPoolSize {
        ty,
        descriptor_count: DESCRIPTORS_PER_TYPE,
    });
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(SETS_PER_FRAME)
        .pool_sizes(&sizes);
    // SAFETY: valid create info.
    unsafe { ctx.device.create_descriptor_pool(&info, None) }
}

/// Allocates one descriptor set of `layout` from this frame's pool.
pub fn allocate_set(
    ctx: &Context,
    start: &FrameStart,
    layout: vk::DescriptorSetLayout,
) -> Result<vk::DescriptorSet, Error> {
    let layouts = [layout];
    let info = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(start.descriptor_pool)
        .set_layouts(&layouts);
    // SAFETY: the pool is this frame's and was reset when the slot came round.
    let sets = unsafe { ctx.device.allocate_descriptor_sets(&info) }?;
    Ok(sets[0])
}

/// One descriptor to write with [`write_set`].
#[derive(Clone, Copy, Debug)]
pub enum Descriptor {
    /// A whole buffer as a uniform buffer.
    Uniform(vk::Buffer),
    /// A whole buffer as a storage buffer.
    Storage(vk::Buffer),
    /// An image view in `SHADER_READ_ONLY_OPTIMAL` with a sampler.
    Sampled(vk::ImageView, vk::Sampler),
}

/// Writes `descriptors[i]` to binding `i` of `set`.
pub fn write_set(ctx: &Context, set: vk::DescriptorSet, descriptors: &[Descriptor]) {
    let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = descriptors
        .iter()
        .map(|d| match d {
            Descriptor::Uniform(buffer) | Descriptor::Storage(buffer) => {
                [vk::DescriptorBufferInfo {
                    buffer: *buffer,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                }]
            }
            Descriptor::Sampled(..) => [vk::DescriptorBufferInfo::default()],
        })
        .collect();
    let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = descriptors
        .iter()
        .map(|d| match d {
            Descriptor::Sampled(view, sampler) => [vk::DescriptorImageInfo {
                sampler: *sampler,
                image_view: *view,
                image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            }],
            _ => [vk::DescriptorImageInfo::default()],
        })
        .collect();
    let writes: Vec<vk::WriteDescriptorSet> = descriptors
        .iter()
        .enumerate()
        .map(|(binding, d)| {
            let write = vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(binding as u32);
            match d {
                Descriptor::Uniform(_) => write
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .buffer_info(&buffer_infos[binding]),
                Descriptor::Storage(_) => write
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&buffer_infos[binding]),
                Descriptor::Sampled(..) => write
                    .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                    .image_info(&image_infos[binding]),
            }
        })
        .collect();
    // SAFETY: every resource outlives the frame that uses the set.
    unsafe { ctx.device.update_descriptor_sets(&writes, &[]) };
}
