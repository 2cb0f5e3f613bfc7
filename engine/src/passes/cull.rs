//! The cull + LOD pass: frustum culling, LOD selection with hysteresis, and
//! the instance lists and indirect draw commands the draw pass consumes, all on
//! the GPU (`shaders/cull.comp`; CPU twin in [`crate::cull_reference`]).
//!
//! # Data layout
//! - `instances`: [`Instance`] records (32 B), storage buffer, one per unit or
//!   prop; `type_index == INACTIVE_TYPE` marks an empty slot.
//! - `anim_states` (units only): [`crate::gpu_types::AnimState`] (16 B), one per
//!   unit. The pass owns bits 24..26 of `blend`: the unit's LOD last frame.
//!   Props keep theirs in `Instance::params` bits 0..2.
//! - `types`: uniform `TypeInfo types[MAX_TYPES]`. Per type: the model-space
//!   bounding `sphere`, `lod_error[l]` (simplification error of LOD `l` as a
//!   fraction of the model size; LOD 0 has 0), `skeleton.w` = LOD count, and per
//!   LOD `command[l]` (its draw command) and `instance_base[l]` (first entry of
//!   its region in the instance lists), of capacity `materials.y` entries.
//! - `commands`: `VkDrawIndexedIndirectCommand`s (20 B each). Only
//!   `instanceCount` changes; `template_commands` holds the same commands with
//!   `instanceCount = 0` and is copied over `commands` at the start of the pass.
//! - `instance_lists`: u32 entries `source index | lod << 30`, each (type, LOD)
//!   region filled from its start; the draw reads them as a per-instance vertex
//!   attribute.
//! - [`CullGlobals`] (uniform, one host-visible buffer per frame slot): six
//!   inward frustum planes (the sixth is the far plane at the max draw
//!   distance), camera position, pixels per unit at distance 1, LOD threshold
//!   and hysteresis. Instance count and units/props mode are push constants,
//!   so units and props share one `CullGlobals` per frame.
//!
//! # Algorithm (one thread per instance)
//! 1. World sphere: model centre × scale, rotated about +Y by the heading,
//!    plus the position; radius × scale.
//! 2. Frustum: visible when `dot(n, c) + w >= -r` for all six planes.
//! 3. LOD: the projected error of LOD `l` is
//!    `lod_error[l] * 2r * pixels_per_unit / max(distance, MIN_LOD_DISTANCE)`
//!    pixels. It is compared with the threshold squared, so only additions and
//!    multiplications decide and the CPU reference matches bit for bit.
//!    Hysteresis against last frame's LOD `p` (clamped to the type's LOD
//!    count): while `p` fits the threshold it stays, unless a coarser LOD fits
//!    `threshold * (1 - hysteresis)`, which is then taken (the coarsest such);
//!    once `p` no longer fits, the coarsest LOD that fits the threshold is
//!    taken. An instance exactly at a threshold keeps its LOD.
//! 4. The new LOD is stored back; invisible instances keep their state.
//! 5. Append: lanes of a subgroup with the same command elect a leader, which
//!    does one `atomicAdd` on `instanceCount` for all of them; each lane writes
//!    its entry at `instance_base + first slot + its rank among them`. Past the
//!    region's capacity (or the buffer's end) nothing is written and the
//!    count is clamped back with `atomicMin`, so it ends at
//!    `min(appended, capacity)`.
//!
//! # Synchronization (recorded by [`CullPass::record`])
//! - Before the reset: last frame's indirect, vertex-attribute, vertex-shader
//!   and transfer (stats copy) reads, and every earlier compute and transfer
//!   write (animate pass, uploads), complete before the copy and the dispatch.
//! - The reset copy completes before the dispatch; dispatches of one frame are
//!   ordered one after the other (they share the counters).
//! - After the last dispatch, its writes are visible to indirect-command reads,
//!   vertex-attribute reads, vertex-shader reads and transfer reads.

use std::mem::size_of;

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::config::FRAMES_IN_FLIGHT;
use crate::context::Context;
use crate::cull_reference::MIN_LOD_DISTANCE;
use crate::frames::{allocate_set, write_set, Descriptor, FrameStart};
use crate::gpu_types::{AnimState, CullGlobals, Instance, TypeInfo, MAX_TYPES};
use crate::memory::Buffer;
use crate::pipeline::{binding, compute_pipeline, LayoutDesc, Pipeline};
use crate::{shaders, Error};

/// The largest workgroup count in X every Vulkan device supports.
const MAX_WORKGROUPS_X: u32 = 65_535;

/// Push constants of `cull.comp`: instances to cull and units (1) / props (0).
const PUSH_CONSTANT_SIZE: u32 = 8;

/// The cull pipeline and one `CullGlobals` uniform buffer per frame slot.
pub struct CullPass {
    pub pipeline: Pipeline,
    globals: Vec<Buffer>,
    workgroup_size: u32,
}

/// The buffers every dispatch of a frame shares.
#[derive(Clone, Copy)]
pub struct CullTargets<'a> {
    /// Uniform `TypeInfo[MAX_TYPES]`.
    pub types: &'a Buffer,
    /// The draw commands with `instanceCount = 0` (TRANSFER_SRC).
    pub template_commands: &'a Buffer,
    /// The live draw commands (STORAGE, INDIRECT, TRANSFER_DST).
    pub commands: &'a Buffer,
    /// Instance-list entries of every region (STORAGE, VERTEX).
    pub instance_lists: &'a Buffer,
}

/// One dispatch: the first `count` instances of a buffer.
#[derive(Clone, Copy)]
pub enum CullBatch<'a> {
    /// Units, whose LOD state lives in their animation states.
    Units {
        instances: &'a Buffer,
        anim_states: &'a Buffer,
        count: u32,
    },
    /// Props, whose LOD state lives in `Instance::params`.
    Props { instances: &'a Buffer, count: u32 },
}

/// The descriptor bindings of `cull.comp`, in `write_set` order.
fn set_layout() -> [vk::DescriptorSetLayoutBinding<'static>; 6] {
    let compute = vk::ShaderStageFlags::COMPUTE;
    [
        binding(0, vk::DescriptorType::UNIFORM_BUFFER, compute),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER, compute),
        binding(2, vk::DescriptorType::STORAGE_BUFFER, compute),
        binding(3, vk::DescriptorType::STORAGE_BUFFER, compute),
        binding(4, vk::DescriptorType::STORAGE_BUFFER, compute),
        binding(5, vk::DescriptorType::STORAGE_BUFFER, compute),
    ]
}

/// Fails unless compute shaders have the subgroup ballot operations.
fn check_subgroup_support(ctx: &Context) -> Result<(), Error> {
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut properties = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
    // SAFETY: a physical device of this instance, which is Vulkan 1.1.
    unsafe {
        ctx.instance
            .get_physical_device_properties2(ctx.physical_device, &mut properties)
    };
    let needed = vk::SubgroupFeatureFlags::BASIC | vk::SubgroupFeatureFlags::BALLOT;
    if !subgroup
        .supported_stages
        .contains(vk::ShaderStageFlags::COMPUTE)
        || !subgroup.supported_operations.contains(needed)
    {
        return Err(Error::Config(format!(
            "{}: the cull pass needs subgroup basic and ballot operations in compute \
             shaders (the device offers {:?} in {:?})",
            ctx.device_name, subgroup.supported_operations, subgroup.supported_stages
        )));
    }
    Ok(())
}

impl CullPass {
    /// Creates the pipeline (workgroup size by tier) and the uniform buffers.
    pub fn new(ctx: &Context) -> Result<CullPass, Error> {
        check_subgroup_support(ctx)?;
        let workgroup_size = ctx.unit_workgroup_size();
        if workgroup_size > ctx.limits.max_compute_invocations {
            return Err(Error::Config(format!(
                "cull workgroup of {workgroup_size} exceeds the device's {} invocations",
                ctx.limits.max_compute_invocations
            )));
        }
        let set0 = set_layout();
        let pipeline = compute_pipeline(
            ctx,
            "cull",
            &shaders::CULL_COMP,
            &LayoutDesc {
                sets: &[&set0],
                push_constant_size: PUSH_CONSTANT_SIZE,
            },
            &[workgroup_size, MIN_LOD_DISTANCE.to_bits()],
        )?;
        let mut pass = CullPass {
            pipeline,
            globals: Vec::new(),
            workgroup_size,
        };
        for slot in 0..FRAMES_IN_FLIGHT {
            pass.globals.push(Buffer::new(
                ctx,
                &format!("cull globals {slot}"),
                size_of::<CullGlobals>() as u64,
                vk::BufferUsageFlags::UNIFORM_BUFFER,
                MemoryLocation::CpuToGpu,
            )?);
        }
        Ok(pass)
    }

    /// Records the command reset, one dispatch per batch, and the barriers
    /// around them (see the module doc). Batches run in order.
    pub fn record(
        &mut self,
        ctx: &Context,
        frame: &FrameStart,
        globals: &CullGlobals,
        targets: &CullTargets,
        batches: &[CullBatch],
    ) -> Result<(), Error> {
        check_targets(targets)?;
        for batch in batches {
            check_batch(batch, self.workgroup_size)?;
        }
        let uniform = self
            .globals
            .get_mut(frame.slot)
            .ok_or_else(|| Error::Config(format!("frame slot {} out of range", frame.slot)))?;
        uniform.write(0, std::slice::from_ref(globals))?;
        let uniform = uniform.raw;
        let mut sets = Vec::with_capacity(batches.len());
        for batch in batches {
            let (instances, anim_states) = match *batch {
                CullBatch::Units {
                    instances,
                    anim_states,
                    ..
                } => (instances, anim_states),
                // Props never read binding 3; any storage buffer fills it.
                CullBatch::Props { instances, .. } => (instances, instances),
            };
            let set = allocate_set(ctx, frame, self.pipeline.set_layouts[0])?;
            write_set(
                ctx,
                set,
                &[
                    Descriptor::Uniform(uniform),
                    Descriptor::Uniform(targets.types.raw),
                    Descriptor::Storage(instances.raw),
                    Descriptor::Storage(anim_states.raw),
                    Descriptor::Storage(targets.commands.raw),
                    Descriptor::Storage(targets.instance_lists.raw),
                ],
            );
            sets.push(set);
        }

        let device = &ctx.device;
        let cmd = frame.cmd;
        ctx.begin_label(cmd, "cull");
        let before_reset = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(
                vk::AccessFlags::TRANSFER_WRITE
                    | vk::AccessFlags::UNIFORM_READ
                    | vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE,
            );
        let after_reset = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE);
        let between_dispatches = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE);
        let to_draw = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(
                vk::AccessFlags::INDIRECT_COMMAND_READ
                    | vk::AccessFlags::VERTEX_ATTRIBUTE_READ
                    | vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::TRANSFER_READ,
            );
        let readers = vk::PipelineStageFlags::DRAW_INDIRECT
            | vk::PipelineStageFlags::VERTEX_INPUT
            | vk::PipelineStageFlags::VERTEX_SHADER
            | vk::PipelineStageFlags::TRANSFER;
        let compute = vk::PipelineStageFlags::COMPUTE_SHADER;
        let reset = vk::BufferCopy::default().size(targets.commands.size);
        // SAFETY: every buffer outlives the frame (the caller's contract); the
        // sizes were checked above, and the sets were written for this layout.
        unsafe {
            device.cmd_pipeline_barrier(
                cmd,
                readers | compute,
                vk::PipelineStageFlags::TRANSFER | compute,
                vk::DependencyFlags::empty(),
                &[before_reset],
                &[],
                &[],
            );
            device.cmd_copy_buffer(
                cmd,
                targets.template_commands.raw,
                targets.commands.raw,
                &[reset],
            );
            device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::TRANSFER,
                compute,
                vk::DependencyFlags::empty(),
                &[after_reset],
                &[],
                &[],
            );
            device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline.raw);
            for (index, (batch, set)) in batches.iter().zip(&sets).enumerate() {
                let (count, units) = match *batch {
                    CullBatch::Units { count, .. } => (count, 1u32),
                    CullBatch::Props { count, .. } => (count, 0u32),
                };
                if index > 0 {
                    device.cmd_pipeline_barrier(
                        cmd,
                        compute,
                        compute,
                        vk::DependencyFlags::empty(),
                        &[between_dispatches],
                        &[],
                        &[],
                    );
                }
                device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    self.pipeline.layout,
                    0,
                    &[*set],
                    &[],
                );
                device.cmd_push_constants(
                    cmd,
                    self.pipeline.layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    bytemuck::cast_slice(&[count, units]),
                );
                device.cmd_dispatch(cmd, count.div_ceil(self.workgroup_size), 1, 1);
            }
            device.cmd_pipeline_barrier(
                cmd,
                compute,
                readers,
                vk::DependencyFlags::empty(),
                &[to_draw],
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

fn check_targets(targets: &CullTargets) -> Result<(), Error> {
    let types_size = (MAX_TYPES * size_of::<TypeInfo>()) as u64;
    if targets.types.size < types_size {
        return Err(Error::Config(format!(
            "cull: type table '{}' has {} bytes, the shader reads {types_size}",
            targets.types.name, targets.types.size
        )));
    }
    if targets.template_commands.size < targets.commands.size {
        return Err(Error::Config(format!(
            "cull: template commands '{}' ({} bytes) are smaller than the commands '{}' ({} bytes)",
            targets.template_commands.name,
            targets.template_commands.size,
            targets.commands.name,
            targets.commands.size
        )));
    }
    Ok(())
}

fn check_batch(batch: &CullBatch, workgroup_size: u32) -> Result<(), Error> {
    let (count, buffers) = match *batch {
        CullBatch::Units {
            instances,
            anim_states,
            count,
        } => (
            count,
            [
                Some((instances, size_of::<Instance>())),
                Some((anim_states, size_of::<AnimState>())),
            ],
        ),
        CullBatch::Props { instances, count } => {
            (count, [Some((instances, size_of::<Instance>())), None])
        }
    };
    for (buffer, stride) in buffers.into_iter().flatten() {
        if u64::from(count) * stride as u64 > buffer.size {
            return Err(Error::Config(format!(
                "cull: {count} instances need {} bytes but '{}' has {}",
                u64::from(count) * stride as u64,
                buffer.name,
                buffer.size
            )));
        }
    }
    if count.div_ceil(workgroup_size) > MAX_WORKGROUPS_X {
        return Err(Error::Config(format!(
            "cull: {count} instances need more than {MAX_WORKGROUPS_X} workgroups of {workgroup_size}"
        )));
    }
    Ok(())
}

/// The cull inputs for a camera: normalized frustum planes from the
/// view-projection (reverse-Z, infinite far, Vulkan clip space), a far plane
/// `max_distance` ahead of the camera, pixels per unit at distance 1, and the
/// LOD threshold already divided by the bias.
pub fn cull_globals(
    camera: &crate::camera::Camera,
    aspect: f32,
    viewport_height: f32,
    lod_threshold_px: f32,
    lod_bias: f32,
    hysteresis: f32,
    max_distance: f32,
) -> CullGlobals {
    let matrix = camera.view_projection(aspect);
    let row = |i: usize| matrix.row(i);
    let normalized = |plane: glam::Vec4| {
        let length = plane.truncate().length();
        if length > 0.0 {
            plane / length
        } else {
            plane
        }
    };
    let forward = (camera.target - camera.position).normalize_or(glam::Vec3::NEG_Z);
    // Clip x and y within ±w; reverse-Z puts the near plane at z = w (the far
    // plane, z = 0, is at infinity). Vulkan's y points down: -w is the top.
    let planes = [
        row(3) + row(0),
        row(3) - row(0),
        row(3) - row(1),
        row(3) + row(1),
        row(3) - row(2),
        (-forward).extend(forward.dot(camera.position) + max_distance),
    ]
    .map(|plane| normalized(plane).to_array());
    let pixels_per_unit = viewport_height / (2.0 * (camera.fov_y * 0.5).tan());
    CullGlobals {
        planes,
        camera: camera.position.extend(pixels_per_unit).to_array(),
        lod: [
            lod_threshold_px / lod_bias.max(f32::MIN_POSITIVE),
            hysteresis.clamp(0.0, 1.0),
            max_distance,
            0.0,
        ],
        counts: [0; 4],
    }
}
