//! The `shadow splat` pass of `passes/shadow`: a cascade's smallest far
//! casters, one thread each (`shaders/shadow_splat.comp`, CPU twin
//! [`crate::reference::shadow`]).

use ash::vk;

use crate::barriers::{uses, Access};
use crate::context::Context;
use crate::frame::{ComputePipeline, Frame};
use crate::frames::Descriptor;
use crate::{shaders, Error};

/// The splat pipeline (`shadow_splat.comp`): desktop tier, 64-bit atomics.
pub fn splat_pipeline(ctx: &Context) -> Result<ComputePipeline, Error> {
    let uniform = vk::DescriptorType::UNIFORM_BUFFER;
    let storage = vk::DescriptorType::STORAGE_BUFFER;
    ComputePipeline::new(
        ctx,
        "shadow splat",
        &shaders::SHADOW_SPLAT_COMP,
        &[uniform, uniform, storage, storage, storage, storage],
        &[ctx.unit_workgroup_size()],
    )
}

/// What a cascade's splats read and write.
#[derive(Clone, Copy, Debug)]
pub struct SplatInputs {
    /// The cascade's `FrameGlobals` (its matrix as `view_proj`).
    pub globals: vk::Buffer,
    /// Uniform `TypeInfo[MAX_TYPES]`.
    pub types: vk::Buffer,
    pub infos: vk::Buffer,
    pub placements: vk::Buffer,
    /// The cascade's draw lists: its far-field entries are read, and the
    /// splatted ones struck out.
    pub lists: vk::Buffer,
    /// The cascade's visibility buffer, cleared here.
    pub visibility: vk::Buffer,
}

/// The splat's push constants.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SplatPush {
    /// Texels along a side of the map.
    pub size: u32,
    pub unit_type_count: u32,
    /// Units spanning at most this many texels are splatted.
    pub splat_texels: f32,
    /// Texels per metre of the cascade.
    pub texels_per_metre: f32,
    /// A splat's width in texels per texel of its sphere's span, rounded
    /// (at least one).
    pub width_per_span: f32,
}

/// Records the `shadow splat` pass: `inputs.visibility` cleared, then the
/// far-field entries of `far_capacity` items (the unit types' far-field
/// regions) whose units span at most `push.splat_texels` splatted and
/// struck out of their list.
pub fn record_splats(
    frame: &mut Frame,
    splat: &ComputePipeline,
    inputs: &SplatInputs,
    push: &SplatPush,
    far_capacity: u32,
) -> Result<(), Error> {
    frame.pass("shadow splat", |frame| {
        frame.uses(&[uses(inputs.visibility, Access::TransferWrite)]);
        // SAFETY: the buffer lives until the frames using it complete.
        unsafe {
            frame
                .ctx
                .device
                .cmd_fill_buffer(frame.cmd, inputs.visibility, 0, vk::WHOLE_SIZE, 0)
        };
        frame.uses(&[
            uses(inputs.types, Access::ComputeRead),
            uses(inputs.infos, Access::ComputeRead),
            uses(inputs.placements, Access::ComputeRead),
            uses(inputs.lists, Access::ComputeWrite),
            uses(inputs.visibility, Access::ComputeWrite),
        ]);
        frame.dispatch(
            splat,
            &[
                Descriptor::Uniform(inputs.globals),
                Descriptor::Uniform(inputs.types),
                Descriptor::Storage(inputs.infos),
                Descriptor::Storage(inputs.placements),
                Descriptor::Storage(inputs.lists),
                Descriptor::Storage(inputs.visibility),
            ],
            bytemuck::bytes_of(push),
            far_capacity,
        )
    })
}
