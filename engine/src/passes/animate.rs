//! The animate pass: every unit's animation state machine, one frame per
//! dispatch (frame step 2, between simulate and cull).
//!
//! Data layout (set 0; `shaders/animate.comp`):
//! - binding 0 `Instances` (storage, read): [`Instance`] records. The pass reads
//!   `type_index` and `params`, the packed [`AnimParams`](crate::gpu_types::AnimParams)
//!   the simulation (or the CPU) writes: speed, dead, attack and hit command
//!   serials, attack variant.
//! - binding 1 `AnimStates` (storage, read-write): one 16-byte [`AnimState`] per
//!   unit, owned by the GPU: controller state, current and previous clip,
//!   consumed command serials, both clip times, crossfade progress and fade
//!   duration. Bits 24..26 of `blend` are the cull pass's LOD and are kept.
//! - binding 2 `Types` (uniform): [`TypeInfo`] per type; `controller` gives the
//!   type's range of states and any-state transitions, `skeleton.y/z` its
//!   clips.
//! - binding 3 `Clips` (uniform): [`ClipInfo`] of every type's clips (duration,
//!   loop flag).
//! - binding 4 `Controllers` (storage, read): [`AnimStateDef`] of every type.
//! - binding 5 `Transitions` (storage, read): [`AnimTransitionDef`] of every
//!   type. [`pack`](crate::anim::pack) builds bindings 4 and 5 from the controllers.
//! - push constants: `dt` (seconds, f32), unit count (u32).
//!
//! Four storage buffers: the mobile tier's limit. Types and clips are uniform
//! buffers (16 KiB of clips is the mobile uniform-range limit).
//!
//! Algorithm: one thread per unit advances its clip times and crossfade, then
//! checks the any-state and the state's transitions in order and fires the
//! first whose condition holds; [`crate::anim`] states the rules in full and holds
//! the CPU reference that the tests compare with this pass.
//!
//! Why every unit every frame, rather than a compacted list of units whose
//! state can change: each unit's time advances every frame anyway, so every
//! state is read and written regardless. At 16 bytes per state plus the
//! 32-byte instance, a thread per unit is one coalesced read of each and one
//! coalesced write: a pass over 48 bytes per unit, the cost of a bare cull. A
//! work list would add an append pass, an indirect dispatch and scattered
//! accesses to save nothing. The benchmark measures it.
//!
//! Barriers: before the dispatch, transfer writes (uploads of instances and
//! tables), last frame's compute writes (the cull pass's LOD bits) and
//! vertex-shader reads (the draw reads the states) are made available to this
//! compute pass; after it, the states are made visible to the cull pass
//! (compute read-write) and the vertex shader.

use std::mem::size_of;

use ash::vk;

use crate::context::Context;
use crate::frames::{allocate_set, write_set, Descriptor, FrameStart};
#[cfg(doc)]
use crate::gpu_types::{AnimState, AnimStateDef, AnimTransitionDef, ClipInfo, Instance, TypeInfo};
use crate::pipeline::{binding, compute_pipeline, LayoutDesc, Pipeline};
use crate::{shaders, Error};

/// Most workgroups one dispatch dimension is guaranteed to allow.
const MAX_WORKGROUPS: u32 = 65_535;

/// The push constants of `animate.comp`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Push {
    dt: f32,
    unit_count: u32,
}

/// The buffers one dispatch reads and writes (see the module doc).
#[derive(Clone, Copy, Debug)]
pub struct AnimateInputs {
    /// Storage: [`Instance`] per unit.
    pub instances: vk::Buffer,
    /// Storage: [`AnimState`] per unit, updated in place.
    pub anim_states: vk::Buffer,
    /// Uniform: `MAX_TYPES` [`TypeInfo`].
    pub types: vk::Buffer,
    /// Uniform: `MAX_CLIPS` [`ClipInfo`].
    pub clips: vk::Buffer,
    /// Storage: [`AnimStateDef`] of every controller.
    pub controller_states: vk::Buffer,
    /// Storage: [`AnimTransitionDef`] of every controller.
    pub transitions: vk::Buffer,
}

/// The animate pass's pipeline.
pub struct AnimatePass {
    pub pipeline: Pipeline,
    /// Threads per workgroup (specialization constant 0).
    workgroup_size: u32,
}

/// The descriptor bindings of `animate.comp`.
fn set_layout() -> [vk::DescriptorSetLayoutBinding<'static>; 6] {
    let compute = vk::ShaderStageFlags::COMPUTE;
    [
        binding(0, vk::DescriptorType::STORAGE_BUFFER, compute),
        binding(1, vk::DescriptorType::STORAGE_BUFFER, compute),
        binding(2, vk::DescriptorType::UNIFORM_BUFFER, compute),
        binding(3, vk::DescriptorType::UNIFORM_BUFFER, compute),
        binding(4, vk::DescriptorType::STORAGE_BUFFER, compute),
        binding(5, vk::DescriptorType::STORAGE_BUFFER, compute),
    ]
}

impl AnimatePass {
    /// Creates the pipeline with the tier's workgroup size.
    pub fn new(ctx: &Context) -> Result<AnimatePass, Error> {
        let workgroup_size = ctx.unit_workgroup_size();
        let bindings = set_layout();
        let layout = LayoutDesc {
            sets: &[&bindings],
            push_constant_size: size_of::<Push>() as u32,
        };
        let pipeline = compute_pipeline(
            ctx,
            "animate",
            &shaders::ANIMATE_COMP,
            &layout,
            &[workgroup_size],
        )?;
        Ok(AnimatePass {
            pipeline,
            workgroup_size,
        })
    }

    /// Records the barrier before, the dispatch over `unit_count` units
    /// advancing them by `dt` seconds, and the barrier after. `inputs` must
    /// hold at least `unit_count` instances and states.
    pub fn record(
        &self,
        ctx: &Context,
        start: &FrameStart,
        inputs: &AnimateInputs,
        unit_count: u32,
        dt: f32,
    ) -> Result<(), Error> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(Error::Config(format!(
                "animate: frame time {dt} s is not a finite number ≥ 0"
            )));
        }
        let groups = unit_count.div_ceil(self.workgroup_size);
        if groups > MAX_WORKGROUPS {
            return Err(Error::Config(format!(
                "animate: {unit_count} units need {groups} workgroups of {}; at most \
                 {MAX_WORKGROUPS} are guaranteed",
                self.workgroup_size
            )));
        }
        let set = allocate_set(ctx, start, self.pipeline.set_layouts[0])?;
        write_set(
            ctx,
            set,
            &[
                Descriptor::Storage(inputs.instances),
                Descriptor::Storage(inputs.anim_states),
                Descriptor::Uniform(inputs.types),
                Descriptor::Uniform(inputs.clips),
                Descriptor::Storage(inputs.controller_states),
                Descriptor::Storage(inputs.transitions),
            ],
        );
        let push = Push { dt, unit_count };
        let before = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::UNIFORM_READ,
            );
        let after = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE);
        let cmd = start.cmd;
        ctx.begin_label(cmd, "animate");
        // SAFETY: `cmd` is recording; the set, pipeline and buffers outlive the
        // frame; the barriers order every access to the buffers around the
        // dispatch.
        unsafe {
            ctx.device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::TRANSFER
                    | vk::PipelineStageFlags::COMPUTE_SHADER
                    | vk::PipelineStageFlags::VERTEX_SHADER,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::DependencyFlags::empty(),
                &[before],
                &[],
                &[],
            );
            ctx.device
                .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline.raw);
            ctx.device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.pipeline.layout,
                0,
                &[set],
                &[],
            );
            ctx.device.cmd_push_constants(
                cmd,
                self.pipeline.layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                bytemuck::bytes_of(&push),
            );
            if groups > 0 {
                ctx.device.cmd_dispatch(cmd, groups, 1, 1);
            }
            ctx.device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::VERTEX_SHADER,
                vk::DependencyFlags::empty(),
                &[after],
                &[],
                &[],
            );
        }
        ctx.end_label(cmd);
        Ok(())
    }

    /// Drops the pass. Kept until callers drop the value directly.
    pub fn destroy(self, _ctx: &Context) {
        drop(self)
    }
}
