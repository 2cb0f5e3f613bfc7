//! Frames in flight: per-slot command buffers, fences and acquire semaphores.
//!
//! `FRAMES_IN_FLIGHT` slots rotate. Frame number `n` uses slot `n % N`. Before
//! slot `s` is recorded again, its fence is waited on, which proves that frame
//! `n - N` and every frame before it have completed on the GPU; that number is
//! what the deferred-release queue and the profiler read back against. Command
//! buffers are re-recorded every frame from a pool reset as a whole.
//!
//! Each slot also keeps the descriptor sets its frames asked for
//! ([`DescriptorCache`]): a pass names the buffers it binds every frame, and
//! gets back the set it had last time when they are the same, without an
//! allocation or a write (most of a frame's CPU time is driver calls). A
//! buffer that grew or was replaced has a new handle and so a new set; the
//! cache empties once any GPU object has been destroyed since its last frame,
//! because a new object may take a destroyed one's handle.
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
    /// Descriptor sets of this slot's frames.
    pub descriptors: DescriptorCache,
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
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            ctx.device.begin_command_buffer(slot.cmd, &begin)?;
        }
        Ok(FrameStart {
            slot: slot_index,
            cmd: slot.cmd,
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
    let descriptors = DescriptorCache {
        pool: Owned::new(ctx, descriptor_pool, &format!("frame {index} descriptors")),
        sets: Vec::new(),
        held: [0; 3],
        destroyed: ctx.gpu.destroyed(),
    };
    Ok(FrameSlot {
        descriptors,
        image_available,
        fence,
        cmd,
        pool,
    })
}

/// Descriptor sets one frame may allocate, and descriptors of each type. A
/// slot's pool holds twice as many: the cache keeps at most one frame's
/// worth from earlier frames.
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
        descriptor_count: 2 * DESCRIPTORS_PER_TYPE,
    });
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(2 * SETS_PER_FRAME)
        .pool_sizes(&sizes);
    // SAFETY: valid create info.
    unsafe { ctx.device.create_descriptor_pool(&info, None) }
}

/// A frame slot's descriptor sets, kept from frame to frame and found again
/// by layout and contents (see the module doc). Sets are never written
/// again once made, so a set bound by a frame still in flight never changes.
pub struct DescriptorCache {
    pool: DescriptorPool,
    sets: Vec<CachedSet>,
    /// Uniform, storage and sampled-image descriptors the sets hold.
    held: [u32; 3],
    /// [`Gpu::destroyed`](crate::context::Gpu) when the cache last emptied.
    destroyed: u64,
}

struct CachedSet {
    layout: vk::DescriptorSetLayout,
    descriptors: Vec<Descriptor>,
    set: vk::DescriptorSet,
}

impl DescriptorCache {
    /// Empties the cache if a GPU object was destroyed since its last frame,
    /// or if it holds more than one frame's worth. Call when the slot's
    /// frame begins, after its fence has signalled and after the frame's
    /// deferred releases: nothing is destroyed while a frame records.
    pub fn begin_frame(&mut self, ctx: &Context) -> Result<(), Error> {
        let destroyed = ctx.gpu.destroyed();
        let full = self.sets.len() > SETS_PER_FRAME as usize
            || self.held.iter().any(|&held| held > DESCRIPTORS_PER_TYPE);
        if destroyed == self.destroyed && !full {
            return Ok(());
        }
        // SAFETY: the slot's fence has signalled, so no pending command
        // buffer uses the pool's sets.
        unsafe {
            ctx.device
                .reset_descriptor_pool(*self.pool, vk::DescriptorPoolResetFlags::empty())?;
        }
        self.sets.clear();
        self.held = [0; 3];
        self.destroyed = destroyed;
        Ok(())
    }

    /// The set of `layout` holding `descriptors` (binding `i` gets
    /// `descriptors[i]`): the cached one, or a new one allocated and written.
    pub fn set(
        &mut self,
        ctx: &Context,
        layout: vk::DescriptorSetLayout,
        descriptors: &[Descriptor],
    ) -> Result<vk::DescriptorSet, Error> {
        if let Some(cached) = self
            .sets
            .iter()
            .find(|cached| cached.layout == layout && cached.descriptors == descriptors)
        {
            return Ok(cached.set);
        }
        let layouts = [layout];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(*self.pool)
            .set_layouts(&layouts);
        // SAFETY: a pool of this device; sets are only freed by the reset in
        // `begin_frame`.
        let set = unsafe { ctx.device.allocate_descriptor_sets(&info) }?[0];
        write_set(ctx, set, descriptors);
        for descriptor in descriptors {
            self.held[descriptor.kind_index()] += 1;
        }
        self.sets.push(CachedSet {
            layout,
            descriptors: descriptors.to_vec(),
            set,
        });
        Ok(set)
    }

    /// Sets held.
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }
}

/// One descriptor to write with [`write_set`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Descriptor {
    /// A whole buffer as a uniform buffer.
    Uniform(vk::Buffer),
    /// A whole buffer as a storage buffer.
    Storage(vk::Buffer),
    /// An image view in `SHADER_READ_ONLY_OPTIMAL` with a sampler.
    Sampled(vk::ImageView, vk::Sampler),
}

impl Descriptor {
    /// 0 for a uniform buffer, 1 for a storage buffer, 2 for a sampled image.
    fn kind_index(&self) -> usize {
        match self {
            Descriptor::Uniform(_) => 0,
            Descriptor::Storage(_) => 1,
            Descriptor::Sampled(..) => 2,
        }
    }
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
