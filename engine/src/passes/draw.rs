//! The draw pass: every unit and prop in two indirect draws.
//!
//! Inputs, all from the [`World`]: the shared vertex and index buffers, the
//! draw commands the cull pass filled (one per (type, LOD), units first), and
//! the instance lists those commands point into. Each instance-list entry (a
//! per-instance vertex attribute) names an [`Instance`](crate::gpu_types::Instance)
//! the vertex shader fetches from a storage buffer, with the LOD in its top
//! bits for the LOD colour view.
//!
//! - Units: `unit.vert` skins with two bones from the bone texture, sampling a
//!   second clip while crossfading; the bone encoding is a specialization
//!   constant. Props: `mesh.vert`, unskinned. Both use `mesh.frag`: atlas
//!   texture × material factor × instance tint, sun + ambient, fog.
//! - Desktop tier: one `vkCmdDrawIndexedIndirect` for all unit commands and
//!   one for all prop commands; each command's `firstInstance` selects its
//!   list region. Mobile tier: no multi-draw and `firstInstance` must be 0, so
//!   every command is its own call, with the instance list bound at the
//!   region's byte offset.

use std::mem::size_of;

use ash::vk;

use crate::asset::BoneEncoding;
use crate::config::LOD_COUNT;
use crate::context::Context;
use crate::frames::{allocate_set, write_set, Descriptor, FrameStart};
use crate::gpu_types::{mesh_vertex_attributes, mesh_vertex_bindings};
use crate::memory::Buffer;
use crate::owned::{Owned, Sampler};
use crate::pipeline::{binding, graphics_pipeline, GraphicsDesc, LayoutDesc, Pipeline};
use crate::world::World;
use crate::{shaders, Error};

const COMMAND_STRIDE: u32 = size_of::<vk::DrawIndexedIndirectCommand>() as u32;

/// The pipelines and their samplers, dropped in declaration order.
pub struct DrawPass {
    prop_pipeline: Pipeline,
    unit_pipeline: Pipeline,
    bounds_pipeline: Pipeline,
    atlas_sampler: Sampler,
    bone_sampler: Sampler,
}

/// Per-frame choices of the draw pass.
#[derive(Clone, Copy, Debug)]
pub struct DrawOptions {
    /// Also draw every visible instance's bounding sphere.
    pub show_bounds: bool,
    /// Skin units; when off they are drawn in their bind pose with the prop
    /// pipeline.
    pub skinning: bool,
}

/// Descriptor bindings. Props use 0..=4; units add 5..=7.
///
/// 0 `Globals` (uniform), 1 `Types` (uniform), 2 `Instances` (storage),
/// 3 `Materials` (uniform), 4 base colour atlas, 5 `AnimStates` (storage),
/// 6 `Clips` (uniform), 7 bone texture.
pub fn set_layout(skinned: bool) -> Vec<vk::DescriptorSetLayoutBinding<'static>> {
    let vertex = vk::ShaderStageFlags::VERTEX;
    let fragment = vk::ShaderStageFlags::FRAGMENT;
    let mut bindings = vec![
        binding(0, vk::DescriptorType::UNIFORM_BUFFER, vertex | fragment),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER, vertex),
        binding(2, vk::DescriptorType::STORAGE_BUFFER, vertex),
        binding(3, vk::DescriptorType::UNIFORM_BUFFER, fragment),
        binding(4, vk::DescriptorType::COMBINED_IMAGE_SAMPLER, fragment),
    ];
    if skinned {
        bindings.extend([
            binding(5, vk::DescriptorType::STORAGE_BUFFER, vertex),
            binding(6, vk::DescriptorType::UNIFORM_BUFFER, vertex),
            binding(7, vk::DescriptorType::COMBINED_IMAGE_SAMPLER, vertex),
        ]);
    }
    bindings
}

fn create_sampler(ctx: &Context, filter: vk::Filter, name: &str) -> Result<Sampler, Error> {
    let info = vk::SamplerCreateInfo::default()
        .mag_filter(filter)
        .min_filter(filter)
        .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
        .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .max_lod(0.0);
    // SAFETY: valid create info.
    let sampler = unsafe { ctx.device.create_sampler(&info, None) }?;
    Ok(Owned::new(ctx, sampler, name))
}

/// A nearest-filter sampler: bone textures are read with `texelFetch` only.
pub fn create_bone_sampler(ctx: &Context) -> Result<Sampler, Error> {
    create_sampler(ctx, vk::Filter::NEAREST, "bone texture sampler")
}

/// Which of the three pipelines.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Props,
    Units,
    Bounds,
}

fn create_pipeline(
    ctx: &Context,
    render_pass: vk::RenderPass,
    kind: Kind,
    encoding: BoneEncoding,
) -> Result<Pipeline, Error> {
    let set0 = set_layout(kind == Kind::Units);
    let bindings = mesh_vertex_bindings();
    let attributes = mesh_vertex_attributes();
    let (name, vertex, fragment) = match kind {
        Kind::Units => ("draw units", &shaders::UNIT_VERT, &shaders::MESH_FRAG),
        Kind::Props => ("draw props", &shaders::MESH_VERT, &shaders::MESH_FRAG),
        Kind::Bounds => ("draw bounds", &shaders::BOUNDS_VERT, &shaders::BOUNDS_FRAG),
    };
    let bounds = kind == Kind::Bounds;
    let encoding_constant = u32::from(encoding != BoneEncoding::Mat3x4F32);
    graphics_pipeline(
        ctx,
        name,
        vertex,
        fragment,
        &LayoutDesc {
            sets: &[&set0],
            push_constant_size: 0,
        },
        &GraphicsDesc {
            vertex_bindings: &bindings,
            vertex_attributes: &attributes,
            render_pass,
            cull_mode: if bounds {
                vk::CullModeFlags::NONE
            } else {
                vk::CullModeFlags::BACK
            },
            depth_compare: vk::CompareOp::GREATER,
            depth_write: !bounds,
            alpha_blend: bounds,
        },
        &[encoding_constant],
    )
}

impl DrawPass {
    /// Creates both pipelines for `render_pass` and the world's bone encoding.
    pub fn new(
        ctx: &Context,
        render_pass: vk::RenderPass,
        encoding: BoneEncoding,
    ) -> Result<DrawPass, Error> {
        let atlas_sampler = create_sampler(ctx, vk::Filter::LINEAR, "atlas sampler")?;
        let bone_sampler = create_bone_sampler(ctx)?;
        Ok(DrawPass {
            prop_pipeline: create_pipeline(ctx, render_pass, Kind::Props, encoding)?,
            unit_pipeline: create_pipeline(ctx, render_pass, Kind::Units, encoding)?,
            bounds_pipeline: create_pipeline(ctx, render_pass, Kind::Bounds, encoding)?,
            atlas_sampler,
            bone_sampler,
        })
    }

    /// Records the unit and prop draws, and with `show_bounds` their bounding
    /// spheres (after [`World::record_bounds_counts`]). Must be inside the
    /// main render pass, after the cull pass's barrier.
    pub fn record(
        &self,
        ctx: &Context,
        start: &FrameStart,
        world: &World,
        globals: &Buffer,
        options: &DrawOptions,
    ) -> Result<(), Error> {
        let shared = [
            Descriptor::Uniform(globals.raw),
            Descriptor::Uniform(world.type_table.raw),
            Descriptor::Storage(world.units_buffer().raw),
            Descriptor::Uniform(world.material_table.raw),
            Descriptor::Sampled(world.atlas.view, *self.atlas_sampler),
            Descriptor::Storage(world.anim_states_buffer().raw),
            Descriptor::Uniform(world.clip_table.raw),
            Descriptor::Sampled(world.bone_texture.view, *self.bone_sampler),
        ];
        // SAFETY: the index buffer lives as long as the world.
        unsafe {
            ctx.device
                .cmd_bind_index_buffer(start.cmd, world.indices.raw, 0, vk::IndexType::UINT32)
        };
        if world.unit_count() > 0 && !options.skinning {
            let set = allocate_set(ctx, start, self.prop_pipeline.set_layouts[0])?;
            write_set(ctx, set, &shared[..5]);
            let pipeline = &self.prop_pipeline;
            self.draw(ctx, start.cmd, pipeline, set, world, &world.commands, true);
        } else if world.unit_count() > 0 {
            let set = allocate_set(ctx, start, self.unit_pipeline.set_layouts[0])?;
            write_set(ctx, set, &shared);
            self.draw(
                ctx,
                start.cmd,
                &self.unit_pipeline,
                set,
                world,
                &world.commands,
                true,
            );
        }
        if world.prop_count() > 0 {
            let set = allocate_set(ctx, start, self.prop_pipeline.set_layouts[0])?;
            let mut props = shared;
            props[2] = Descriptor::Storage(world.props_buffer().raw);
            write_set(ctx, set, &props[..5]);
            self.draw(
                ctx,
                start.cmd,
                &self.prop_pipeline,
                set,
                world,
                &world.commands,
                false,
            );
        }
        if options.show_bounds {
            for (units, instances) in [(true, world.units_buffer()), (false, world.props_buffer())]
            {
                let set = allocate_set(ctx, start, self.bounds_pipeline.set_layouts[0])?;
                let mut descriptors = shared;
                descriptors[2] = Descriptor::Storage(instances.raw);
                write_set(ctx, set, &descriptors[..5]);
                let pipeline = &self.bounds_pipeline;
                self.draw(
                    ctx,
                    start.cmd,
                    pipeline,
                    set,
                    world,
                    &world.bounds_commands,
                    units,
                );
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn draw(
        &self,
        ctx: &Context,
        cmd: vk::CommandBuffer,
        pipeline: &Pipeline,
        set: vk::DescriptorSet,
        world: &World,
        command_buffer: &Buffer,
        units: bool,
    ) {
        let list = world.lists_buffer();
        let commands = if units {
            world.unit_commands()
        } else {
            world.prop_commands()
        };
        let device = &ctx.device;
        // SAFETY: every bound object lives as long as the world; the command
        // buffer is recording inside a compatible render pass.
        unsafe {
            device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline.raw);
            device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                pipeline.layout,
                0,
                &[set],
                &[],
            );
            if ctx.limits.multi_draw_indirect {
                device.cmd_bind_vertex_buffers(cmd, 0, &[world.vertices.raw, list.raw], &[0, 0]);
                device.cmd_draw_indexed_indirect(
                    cmd,
                    command_buffer.raw,
                    u64::from(commands.start) * u64::from(COMMAND_STRIDE),
                    commands.end - commands.start,
                    COMMAND_STRIDE,
                );
            } else {
                for command in commands {
                    let world_type = &world.types[(command / LOD_COUNT) as usize];
                    let lod = (command % LOD_COUNT) as usize;
                    if lod >= world_type.lods.len() {
                        continue;
                    }
                    let list_offset = u64::from(world_type.info.instance_base[lod]) * 4;
                    device.cmd_bind_vertex_buffers(
                        cmd,
                        0,
                        &[world.vertices.raw, list.raw],
                        &[0, list_offset],
                    );
                    device.cmd_draw_indexed_indirect(
                        cmd,
                        command_buffer.raw,
                        u64::from(command) * u64::from(COMMAND_STRIDE),
                        1,
                        COMMAND_STRIDE,
                    );
                }
            }
        }
    }

    /// Drops the pass. Kept until callers drop the value directly.
    pub fn destroy(self, _ctx: &Context) {
        drop(self)
    }
}
