//! The impostor pass: distant units as animated impostors, the last LOD of
//! their type, for GPUs without the far field's 64-bit atomics (the mobile
//! tier) and as a choice on the desktop (`RenderSettings::impostors`).
//! Drawn inside the main render pass after the world's meshes, as an
//! [`ExtraDraw`] (`impostor.vert`, `impostor.frag`).
//!
//! # Data layout
//! - The cull pass routes a unit to its type's `ROUTE_IMPOSTOR` where the
//!   impostor's projected error (baked, a fraction of the sphere's
//!   diameter like a LOD's) fits `CullGlobals::impostor_threshold_px`, and
//!   stores `ROUTE_CODE_IMPOSTOR` as its route. Every type's impostor route
//!   names one command (`World::impostor_command`, after the types') and one
//!   instance-list region; its entries are `unit | lod << ENTRY_INDEX_BITS`.
//!   The command draws the impostor quad (four vertices, UVs at the
//!   corners, after the bounds sphere in the shared buffers): one indirect
//!   call for every impostor of every type, on both tiers (the mobile tier
//!   binds the region at its offset and keeps `firstInstance` 0).
//! - The atlas (`world/impostors.rs`): albedo (sRGB, coverage in alpha) and
//!   model-space normal cells of 32 × 32 texels, 128 per row; a type's cells
//!   are frame by frame, each frame's 8 × 8 hemi-octahedral views row by
//!   row (the bake, `tools/bake/src/impostor.rs`, explains the choice).
//! - `ImpostorClips` (uniform, [`crate::gpu_types::ImpostorClip`] per clip,
//!   indexed as the clip table): the first cell of the clip's frames, their
//!   count, the clip's duration and whether they loop. Clips the bake did
//!   not render point at a stand-in's frames.
//! - `ImpostorBoxes` (uniform, [`crate::gpu_types::ImpostorBox`] per type):
//!   the model-space box every cell of the type frames. View `v`'s cell is
//!   the box's orthographic projection along `v`: with the view's right `r`
//!   and up `u`, it spans `±dot(|r|, half)` by `±dot(|u|, half)` around the
//!   box's centre (tighter than the cull's sphere, which holds every clip);
//!   and the type's range of cells, which every lookup is clamped to.
//! - Bindings: 0 `Globals`, 1 `Types`, 2 `Infos`, 3 `Placements` (storage),
//!   4 `ImpostorClips`, 5 albedo, 6 `AnimStates` (storage), 7 normal, 8
//!   `ImpostorBoxes`, 9 `Marks` (storage): four storage buffers in the
//!   vertex stage, the mobile tier's four.
//!
//! # Algorithm
//! 1. Vertex: the quad faces the camera through the box's centre and spans
//!    the box's projection on the camera's right and up. The camera
//!    direction, in model space (the unit's
//!    heading undone) and clamped to the upper hemisphere, is mapped to the
//!    hemi-octahedral square; the four grid views around it get bilinear
//!    weights. Each view's cell is an orthographic projection along that
//!    view, so the quad point is projected into each view's own cell
//!    (four UVs, interpolated): neighbouring views line up at the sphere's
//!    centre instead of sliding. The current clip's frames around its time
//!    and the previous clip's (while crossfading) are picked as the bone
//!    texture's are, and the crossfade weight passed on.
//! 2. Fragment: one of the two clips per pixel by an ordered dither in
//!    proportion to the crossfade; for it, the four views × two frames of
//!    albedo and normal at the mip level of the quad's size on screen (the
//!    vertex shader's, trilinear; coverage-preserving levels, see
//!    `world/impostors.rs`), blended by view weight and frame blend, colour and
//!    normal weighted by coverage. Coverage under 0.5 is discarded (alpha
//!    test); the rest is tinted, lit with the normal turned by the heading
//!    and fogged by `shade`, as meshes are. Depth is the quad's, written.
//! 3. No pop at the switch: between `impostor_threshold_px` and
//!    `impostor_threshold_px * (1 + impostor_band)` of impostor error the
//!    cull draws a unit both as its mesh and as its impostor; both compute
//!    the impostor's share from the distance (`impostor_fade`) and keep
//!    complementary pixels of one 4 × 4 dither, so the unit dissolves from
//!    one into the other over the band.
//!
//! The pass declares what it reads; the barriers after the cull's writes
//! follow from the declarations.

use ash::vk;

use crate::barriers::{uses, Access, BufferUse};
use crate::context::Context;
use crate::frame::Frame;
use crate::frames::Descriptor;
use crate::gpu_types::{mesh_vertex_attributes, mesh_vertex_bindings, DrawCommand};
use crate::owned::Sampler;
use crate::passes::draw::{ExtraDraw, MeshDescriptors};
use crate::pipeline::{binding, graphics_pipeline, GraphicsDesc, LayoutDesc, PassTarget, Pipeline};
use crate::sampler::{create_sampler_as, SamplerDesc};
use crate::world::buffers::DRAW_COMMANDS_BYTES;
use crate::world::World;
use crate::{shaders, Error};

/// The crossfade band the renderer starts with: the impostor's share rises
/// over 30 % of its switch distance, long enough that a unit walking
/// through it dissolves over many frames.
pub const DEFAULT_IMPOSTOR_BAND: f32 = 0.3;

/// The impostor pipeline and its atlas sampler.
pub struct ImpostorPass {
    pipeline: Pipeline,
    sampler: Sampler,
}

/// Descriptor bindings (see the module doc).
fn set_layout() -> Vec<vk::DescriptorSetLayoutBinding<'static>> {
    let vertex = vk::ShaderStageFlags::VERTEX;
    let fragment = vk::ShaderStageFlags::FRAGMENT;
    vec![
        binding(0, vk::DescriptorType::UNIFORM_BUFFER, vertex | fragment),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER, vertex),
        binding(2, vk::DescriptorType::STORAGE_BUFFER, vertex),
        binding(3, vk::DescriptorType::STORAGE_BUFFER, vertex),
        binding(4, vk::DescriptorType::UNIFORM_BUFFER, vertex),
        binding(5, vk::DescriptorType::COMBINED_IMAGE_SAMPLER, fragment),
        binding(6, vk::DescriptorType::STORAGE_BUFFER, vertex),
        binding(7, vk::DescriptorType::COMBINED_IMAGE_SAMPLER, fragment),
        binding(8, vk::DescriptorType::UNIFORM_BUFFER, vertex),
        binding(9, vk::DescriptorType::STORAGE_BUFFER, vertex),
        binding(10, vk::DescriptorType::STORAGE_BUFFER, fragment),
    ]
}

impl ImpostorPass {
    pub fn new(ctx: &Context, target: PassTarget) -> Result<ImpostorPass, Error> {
        let set0 = set_layout();
        let bindings = mesh_vertex_bindings();
        let attributes = mesh_vertex_attributes();
        let pipeline = graphics_pipeline(
            ctx,
            "draw impostors",
            &shaders::IMPOSTOR_VERT,
            &shaders::IMPOSTOR_FRAG,
            &LayoutDesc {
                sets: &[&set0],
                push_constant_size: 0,
            },
            &GraphicsDesc {
                vertex_bindings: &bindings,
                vertex_attributes: &attributes,
                target,
                cull_mode: vk::CullModeFlags::NONE,
                depth_compare: vk::CompareOp::GREATER,
                depth_write: true,
                alpha_blend: false,
            },
            &[],
        )?;
        let trilinear = SamplerDesc {
            filter: vk::Filter::LINEAR,
            mipmaps: true,
            repeat: false,
            max_anisotropy: 1.0,
        };
        let sampler = create_sampler_as(ctx, trilinear, "impostor atlas sampler")?;
        Ok(ImpostorPass { pipeline, sampler })
    }
}

impl ExtraDraw for ImpostorPass {
    fn draw_uses(&self, _frame: &Frame, world: &World) -> Result<Vec<BufferUse>, Error> {
        let b = &world.buffers;
        Ok(vec![
            uses(b.impostor_clips.raw, Access::VertexRead),
            uses(b.impostor_boxes.raw, Access::VertexRead),
            uses(b.draw_lists.buffer.raw, Access::IndirectRead),
            uses(b.draw_lists.buffer.raw, Access::VertexInput),
        ])
    }

    /// One indirect draw of the impostor command.
    fn draw(&self, frame: &mut Frame, world: &World, mesh: &MeshDescriptors) -> Result<(), Error> {
        let Some(impostor_type) = world.types.iter().find(|t| t.has_impostor) else {
            return Ok(());
        };
        let b = &world.buffers;
        let descriptors = [
            mesh.units[0],
            mesh.units[1],
            mesh.units[2],
            mesh.units[3],
            Descriptor::Uniform(b.impostor_clips.raw),
            Descriptor::Sampled(b.impostor_albedo.view, *self.sampler),
            Descriptor::Storage(b.anim_states.buffer.raw),
            Descriptor::Sampled(b.impostor_normal.view, *self.sampler),
            Descriptor::Uniform(b.impostor_boxes.raw),
            Descriptor::Storage(b.unit_marks.buffer.raw),
            mesh.units[6],
        ];
        let set = frame.descriptor_set(self.pipeline.set_layouts[0], &descriptors)?;
        let stride = std::mem::size_of::<DrawCommand>() as u64;
        let command_offset = u64::from(world.impostor_command()) * stride;
        // The mobile tier keeps `firstInstance` 0: the region is bound at
        // its offset instead.
        let list_offset = if frame.ctx.limits.draw_indirect_first_instance {
            DRAW_COMMANDS_BYTES
        } else {
            let region = impostor_type.info.routes[crate::config::ROUTE_IMPOSTOR as usize];
            DRAW_COMMANDS_BYTES + u64::from(region.list_base) * 4
        };
        let lists = b.draw_lists.buffer.raw;
        let device = &frame.ctx.device;
        // SAFETY: every bound object lives as long as the world; the command
        // buffer is recording inside the main render pass.
        unsafe {
            device.cmd_bind_pipeline(
                frame.cmd,
                vk::PipelineBindPoint::GRAPHICS,
                self.pipeline.raw,
            );
            device.cmd_bind_descriptor_sets(
                frame.cmd,
                vk::PipelineBindPoint::GRAPHICS,
                self.pipeline.layout,
                0,
                &[set],
                &[],
            );
            device.cmd_bind_vertex_buffers(
                frame.cmd,
                0,
                &[b.vertices.raw, lists],
                &[0, list_offset],
            );
            device.cmd_bind_index_buffer(frame.cmd, b.indices.raw, 0, vk::IndexType::UINT32);
            device.cmd_draw_indexed_indirect(frame.cmd, lists, command_offset, 1, stride as u32);
        }
        Ok(())
    }
}
