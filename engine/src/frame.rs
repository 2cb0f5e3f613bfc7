//! The frame context every pass records through, and the checked dispatch.
//!
//! A [`Frame`] owns, for the duration of one frame's recording, the command
//! buffer, the frame slot's descriptor sets (`frames.rs`), the profiler and
//! the barrier tracker. A pass:
//! 1. opens itself with [`Frame::pass`]: one call starts a GPU timestamp
//!    scope and a debug label of the pass's name;
//! 2. declares the buffers it is about to use with [`Frame::uses`]; the
//!    tracker records the barriers those uses need after the earlier passes'
//!    (see `barriers.rs`), so no pass writes a barrier for its neighbour;
//! 3. records its work, compute through [`Frame::dispatch`], which checks the
//!    descriptors and push constants against the shader's reflection and
//!    derives the group count from the shader's workgroup size.

use ash::vk;

use crate::barriers::{self, BufferUse, Tracker};
use crate::context::Context;
use crate::frames::{Descriptor, DescriptorCache, FrameStart};
use crate::memory::{Buffer, DeferredRelease, Released};
use crate::pipeline::{binding, compute_pipeline, LayoutDesc, Pipeline};
use crate::profiler::Profiler;
use crate::reflect::{reflect, LocalSize};
use crate::{Error, Spirv};

/// The largest workgroup count in X every Vulkan device supports.
const MAX_WORKGROUPS_X: u32 = 65_535;

/// One frame being recorded.
pub struct Frame<'a> {
    pub ctx: &'a Context,
    pub cmd: vk::CommandBuffer,
    /// The frame slot (`number % FRAMES_IN_FLIGHT`).
    pub slot: usize,
    /// The frame's number, counting from 0.
    pub number: u64,
    descriptors: &'a mut DescriptorCache,
    profiler: &'a mut Profiler,
    tracker: &'a mut Tracker,
    /// Resources to release once this frame has completed.
    pub deferred: &'a mut DeferredRelease,
}

impl<'a> Frame<'a> {
    /// A frame recording into `start`'s command buffer, with its slot's
    /// `descriptors`. Call after the frame's deferred releases.
    pub fn new(
        ctx: &'a Context,
        start: &FrameStart,
        descriptors: &'a mut DescriptorCache,
        profiler: &'a mut Profiler,
        tracker: &'a mut Tracker,
        deferred: &'a mut DeferredRelease,
    ) -> Result<Frame<'a>, Error> {
        descriptors.begin_frame(ctx)?;
        Ok(Frame {
            ctx,
            cmd: start.cmd,
            slot: start.slot,
            number: start.number,
            descriptors,
            profiler,
            tracker,
            deferred,
        })
    }

    /// Records the pass `name`: a timestamp scope and a debug label around
    /// whatever `record` records.
    pub fn pass<R>(
        &mut self,
        name: &'static str,
        record: impl FnOnce(&mut Frame<'a>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let scope = self.profiler.begin(self.ctx, self.cmd, name);
        self.tracker.enter(name);
        let result = record(self);
        self.tracker.leave();
        self.profiler.end(self.ctx, self.cmd, scope);
        result
    }

    /// Times what `record` records as the scope `name` within the current
    /// pass: a timestamp scope and a debug label, no pass of its own in the
    /// frame graph.
    pub fn timed<R>(
        &mut self,
        name: &'static str,
        record: impl FnOnce(&mut Frame<'a>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let scope = self.profiler.begin(self.ctx, self.cmd, name);
        let result = record(self);
        self.profiler.end(self.ctx, self.cmd, scope);
        result
    }

    /// Declares the next commands' uses of buffers, recording the barrier
    /// they need after everything recorded before.
    pub fn uses(&mut self, declared: &[BufferUse]) {
        let barrier = self.tracker.declare(declared);
        barriers::record(self.ctx, self.cmd, &barrier);
    }

    /// Forgets a buffer about to be released (it may be re-created with the
    /// same handle).
    pub fn forget(&mut self, buffer: vk::Buffer) {
        self.tracker.forget(buffer);
    }

    /// Releases `buffer`, replaced before this frame used it: the tracker
    /// forgets it (its handle may come back), and it is dropped once the
    /// frame before this one, its last user, has completed.
    pub fn retire_replaced(&mut self, buffer: Buffer) {
        self.forget(buffer.raw);
        self.deferred
            .push(self.number.saturating_sub(1), Released::Buffer(buffer));
    }

    /// A descriptor set of `layout` holding `descriptors` (binding `i` gets
    /// `descriptors[i]`), from the slot's cache.
    pub fn descriptor_set(
        &mut self,
        layout: vk::DescriptorSetLayout,
        descriptors: &[Descriptor],
    ) -> Result<vk::DescriptorSet, Error> {
        self.descriptors.set(self.ctx, layout, descriptors)
    }

    /// Dispatches `pipeline` over `invocations` threads (X only), with
    /// `descriptors` as set 0 and `push` as its push constants; checked
    /// against the shader (see [`ComputePipeline`]).
    pub fn dispatch(
        &mut self,
        pipeline: &ComputePipeline,
        descriptors: &[Descriptor],
        push: &[u8],
        invocations: u32,
    ) -> Result<(), Error> {
        let set = self.bind_set(pipeline, descriptors)?;
        self.dispatch_with(pipeline, set, push, invocations)
    }

    /// Set 0 of `pipeline` made of `descriptors`, checked against the shader,
    /// for several [`Frame::dispatch_with`] calls that differ only in their
    /// push constants (one set, however many dispatches).
    pub fn bind_set(
        &mut self,
        pipeline: &ComputePipeline,
        descriptors: &[Descriptor],
    ) -> Result<BoundSet, Error> {
        pipeline.check_descriptors(descriptors)?;
        let layout = pipeline.pipeline.set_layouts[0];
        Ok(BoundSet {
            set: self.descriptor_set(layout, descriptors)?,
            layout,
        })
    }

    /// Dispatches `pipeline` with a set from [`Frame::bind_set`] of the same
    /// pipeline and `push` as its push constants (checked).
    pub fn dispatch_with(
        &mut self,
        pipeline: &ComputePipeline,
        set: BoundSet,
        push: &[u8],
        invocations: u32,
    ) -> Result<(), Error> {
        pipeline.check_push(push)?;
        if set.layout != pipeline.pipeline.set_layouts[0] {
            return Err(Error::Layout(format!(
                "{}: a descriptor set made for another pipeline was given",
                pipeline.pipeline.name
            )));
        }
        let groups = invocations.div_ceil(pipeline.workgroup_size);
        if groups > MAX_WORKGROUPS_X {
            return Err(Error::Config(format!(
                "{}: {invocations} threads need {groups} workgroups of {}; at most \
                 {MAX_WORKGROUPS_X} are guaranteed",
                pipeline.pipeline.name, pipeline.workgroup_size
            )));
        }
        if groups == 0 {
            return Ok(());
        }
        let device = &self.ctx.device;
        let p = &pipeline.pipeline;
        // SAFETY: the command buffer is recording; the set was made with this
        // pipeline's layout (checked above) and every resource outlives the
        // frame.
        unsafe {
            device.cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::COMPUTE, p.raw);
            device.cmd_bind_descriptor_sets(
                self.cmd,
                vk::PipelineBindPoint::COMPUTE,
                p.layout,
                0,
                &[set.set],
                &[],
            );
            if !push.is_empty() {
                device.cmd_push_constants(
                    self.cmd,
                    p.layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    push,
                );
            }
            device.cmd_dispatch(self.cmd, groups, 1, 1);
        }
        Ok(())
    }
}

/// A descriptor set of this frame made for one compute pipeline
/// ([`Frame::bind_set`]), and the layout it was made with.
#[derive(Clone, Copy, Debug)]
pub struct BoundSet {
    set: vk::DescriptorSet,
    layout: vk::DescriptorSetLayout,
}

/// A compute pipeline with what its dispatches are checked against: the
/// descriptor type of each binding of set 0, the push-constant bytes and the
/// workgroup size, all from the shader's reflection.
pub struct ComputePipeline {
    pub pipeline: Pipeline,
    /// Descriptor type of binding `i` of set 0.
    pub bindings: Vec<vk::DescriptorType>,
    /// Push-constant bytes the shader reads.
    pub push_constant_size: u32,
    /// Threads per workgroup in X.
    pub workgroup_size: u32,
}

impl ComputePipeline {
    /// Creates the pipeline of `shader` with set 0 made of `bindings` (binding
    /// `i` of type `bindings[i]`). `specialization[i]` sets `constant_id = i`;
    /// the workgroup size is read from the shader, or from the
    /// specialization constant its `local_size_x_id` names.
    pub fn new(
        ctx: &Context,
        name: &str,
        shader: &Spirv,
        bindings: &[vk::DescriptorType],
        specialization: &[u32],
    ) -> Result<ComputePipeline, Error> {
        let reflection =
            reflect(shader.words).map_err(|e| Error::Layout(format!("{}: {e}", shader.name)))?;
        let workgroup_size = match reflection.local_size[0] {
            LocalSize::Literal(size) => size,
            LocalSize::SpecConstant(id) => *specialization.get(id as usize).ok_or_else(|| {
                Error::Layout(format!(
                    "{}: the workgroup size is specialization constant {id}, which is not given",
                    shader.name
                ))
            })?,
            LocalSize::None => {
                return Err(Error::Layout(format!(
                    "{}: no workgroup size (not a compute shader?)",
                    shader.name
                )))
            }
        };
        if workgroup_size == 0 || workgroup_size > ctx.limits.max_compute_invocations {
            return Err(Error::Config(format!(
                "{name}: a workgroup of {workgroup_size} threads is outside 1..={} on this \
                 device and tier",
                ctx.limits.max_compute_invocations
            )));
        }
        let set0: Vec<vk::DescriptorSetLayoutBinding> = bindings
            .iter()
            .enumerate()
            .map(|(index, &kind)| binding(index as u32, kind, vk::ShaderStageFlags::COMPUTE))
            .collect();
        let pipeline = compute_pipeline(
            ctx,
            name,
            shader,
            &LayoutDesc {
                sets: &[&set0],
                push_constant_size: reflection.push_constant_size,
            },
            specialization,
        )?;
        Ok(ComputePipeline {
            pipeline,
            bindings: bindings.to_vec(),
            push_constant_size: reflection.push_constant_size,
            workgroup_size,
        })
    }

    /// Fails unless `descriptors` and `push` fit the shader.
    pub fn check(&self, descriptors: &[Descriptor], push: &[u8]) -> Result<(), Error> {
        self.check_descriptors(descriptors)?;
        self.check_push(push)
    }

    /// Fails unless `descriptors` fit the shader's set 0.
    pub fn check_descriptors(&self, descriptors: &[Descriptor]) -> Result<(), Error> {
        let name = &self.pipeline.name;
        if descriptors.len() != self.bindings.len() {
            return Err(Error::Layout(format!(
                "{name}: {} descriptors given for {} bindings",
                descriptors.len(),
                self.bindings.len()
            )));
        }
        for (index, (descriptor, &kind)) in descriptors.iter().zip(&self.bindings).enumerate() {
            let given = match descriptor {
                Descriptor::Uniform(_) => vk::DescriptorType::UNIFORM_BUFFER,
                Descriptor::Storage(_) => vk::DescriptorType::STORAGE_BUFFER,
                Descriptor::Sampled(..) => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            };
            if given != kind {
                return Err(Error::Layout(format!(
                    "{name}: binding {index} is {kind:?} but a {given:?} was given"
                )));
            }
        }
        Ok(())
    }

    /// Fails unless `push` is as many bytes as the shader reads.
    pub fn check_push(&self, push: &[u8]) -> Result<(), Error> {
        let name = &self.pipeline.name;
        if push.len() as u32 != self.push_constant_size {
            return Err(Error::Layout(format!(
                "{name}: the shader reads {} bytes of push constants but {} were given",
                self.push_constant_size,
                push.len()
            )));
        }
        Ok(())
    }
}
