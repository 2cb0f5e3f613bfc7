//! The mesh pass: static meshes drawn instanced from indirect commands.
//!
//! Data layout (all device-local, uploaded once):
//! - `vertices`: every mesh's [`PackedVertex`]es back to back; `indices`: u32,
//!   each mesh's indices relative to its own first vertex.
//! - `types`: one [`TypeInfo`] per mesh (dequantization box), uniform buffer.
//! - `instances`: [`Instance`] records, storage buffer, read by index.
//! - `instance_list`: u32 entries naming instances, grouped by mesh, bound as a
//!   per-instance vertex attribute.
//! - `commands`: one `VkDrawIndexedIndirectCommand` per mesh.
//!
//! Drawing: on the desktop tier one `vkCmdDrawIndexedIndirect` covers every
//! command, and each command's `firstInstance` selects its list region. On
//! the mobile tier `firstInstance` must be 0, so each command is its own call
//! and the instance list is bound at the region's byte offset instead.

use std::mem::size_of;

use ash::vk;

use crate::context::Context;
use crate::frames::{allocate_set, write_set, Descriptor, FrameStart};
use crate::gpu_types::{
    mesh_vertex_attributes, mesh_vertex_bindings, Instance, MaterialInfo, TypeInfo, MAX_MATERIALS,
    MAX_TYPES,
};
use crate::memory::{upload_buffer, upload_image, Buffer, Image};
use crate::mesh::quantize;
use crate::pipeline::{binding, graphics_pipeline, GraphicsDesc, LayoutDesc, Pipeline};
use crate::scene::StaticScene;
use crate::{shaders, Error};

const COMMAND_STRIDE: u32 = size_of::<vk::DrawIndexedIndirectCommand>() as u32;

/// GPU buffers and pipeline of the mesh pass.
pub struct MeshPass {
    pub pipeline: Pipeline,
    buffers: Vec<Buffer>,
    atlas: Image,
    sampler: vk::Sampler,
    /// First instance-list entry of each command, for the mobile tier.
    first_instances: Vec<u32>,
}

const VERTICES: usize = 0;
const INDICES: usize = 1;
const TYPES: usize = 2;
const MATERIALS: usize = 3;
const INSTANCES: usize = 4;
const INSTANCE_LIST: usize = 5;
const COMMANDS: usize = 6;

/// The descriptor bindings of `mesh.vert` / `mesh.frag`.
pub fn set_layout() -> [vk::DescriptorSetLayoutBinding<'static>; 5] {
    let both = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
    [
        binding(0, vk::DescriptorType::UNIFORM_BUFFER, both),
        binding(
            1,
            vk::DescriptorType::UNIFORM_BUFFER,
            vk::ShaderStageFlags::VERTEX,
        ),
        binding(
            2,
            vk::DescriptorType::STORAGE_BUFFER,
            vk::ShaderStageFlags::VERTEX,
        ),
        binding(
            3,
            vk::DescriptorType::UNIFORM_BUFFER,
            vk::ShaderStageFlags::FRAGMENT,
        ),
        binding(
            4,
            vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            vk::ShaderStageFlags::FRAGMENT,
        ),
    ]
}

/// Creates the linear, clamped sampler of base colour atlases.
pub fn create_atlas_sampler(ctx: &Context) -> Result<vk::Sampler, Error> {
    let info = vk::SamplerCreateInfo::default()
        .mag_filter(vk::Filter::LINEAR)
        .min_filter(vk::Filter::LINEAR)
        .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
        .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .max_lod(0.0);
    // SAFETY: valid create info.
    let sampler = unsafe { ctx.device.create_sampler(&info, None) }?;
    ctx.set_name(sampler, "atlas sampler");
    Ok(sampler)
}

impl MeshPass {
    /// Uploads the scene and creates the pipeline for `render_pass`.
    pub fn new(
        ctx: &mut Context,
        render_pass: vk::RenderPass,
        scene: &StaticScene,
    ) -> Result<MeshPass, Error> {
        if scene.meshes.len() > MAX_TYPES {
            return Err(Error::Config(format!(
                "{} meshes exceed the {MAX_TYPES} types the renderer holds",
                scene.meshes.len()
            )));
        }
        let mut vertices = Vec::new();
        let mut indices = Vec::new();
        let mut types = vec![TypeInfo::default(); MAX_TYPES];
        let mut instances = Vec::new();
        let mut commands = Vec::new();
        let mut first_instances = Vec::new();
        for (mesh_index, mesh) in scene.meshes.iter().enumerate() {
            let (quantized, quant) = quantize(mesh);
            let group = scene
                .instances
                .get(mesh_index)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let first_instance = instances.len() as u32;
            commands.push(vk::DrawIndexedIndirectCommand {
                index_count: mesh.indices.len() as u32,
                instance_count: group.len() as u32,
                first_index: indices.len() as u32,
                vertex_offset: vertices.len() as i32,
                first_instance: if ctx.limits.draw_indirect_first_instance {
                    first_instance
                } else {
                    0
                },
            });
            first_instances.push(first_instance);
            vertices.extend_from_slice(&quantized);
            indices.extend_from_slice(&mesh.indices);
            types[mesh_index].quant_min = quant.min.extend(0.0).to_array();
            types[mesh_index].quant_extent = quant.extent.extend(0.0).to_array();
            instances.extend(group.iter().map(|i| Instance {
                type_index: mesh_index as u32,
                ..*i
            }));
        }
        let mut materials = vec![MaterialInfo::default(); MAX_MATERIALS];
        materials[0].base_color = [1.0; 4];
        let instance_list: Vec<u32> = (0..instances.len() as u32).collect();
        let command_bytes: Vec<u8> = commands
            .iter()
            .flat_map(|c| {
                [
                    c.index_count,
                    c.instance_count,
                    c.first_index,
                    c.vertex_offset as u32,
                    c.first_instance,
                ]
            })
            .flat_map(u32::to_le_bytes)
            .collect();

        let uploads: [(&str, vk::BufferUsageFlags, &[u8]); 7] = [
            (
                "mesh vertices",
                vk::BufferUsageFlags::VERTEX_BUFFER,
                bytemuck::cast_slice(&vertices),
            ),
            (
                "mesh indices",
                vk::BufferUsageFlags::INDEX_BUFFER,
                bytemuck::cast_slice(&indices),
            ),
            (
                "mesh types",
                vk::BufferUsageFlags::UNIFORM_BUFFER,
                bytemuck::cast_slice(&types),
            ),
            (
                "mesh materials",
                vk::BufferUsageFlags::UNIFORM_BUFFER,
                bytemuck::cast_slice(&materials),
            ),
            (
                "mesh instances",
                vk::BufferUsageFlags::STORAGE_BUFFER,
                bytemuck::cast_slice(&instances),
            ),
            (
                "mesh instance list",
                vk::BufferUsageFlags::VERTEX_BUFFER,
                bytemuck::cast_slice(&instance_list),
            ),
            (
                "mesh draw commands",
                vk::BufferUsageFlags::INDIRECT_BUFFER,
                &command_bytes,
            ),
        ];
        let mut buffers: Vec<Buffer> = Vec::new();
        let cleanup = |ctx: &mut Context, buffers: Vec<Buffer>| {
            buffers.into_iter().rev().for_each(|b| b.destroy(ctx));
        };
        for (name, usage, data) in uploads {
            match upload_buffer(ctx, name, usage, data) {
                Ok(buffer) => buffers.push(buffer),
                Err(err) => {
                    cleanup(ctx, buffers);
                    return Err(err);
                }
            }
        }
        let white = vk::Extent2D {
            width: 1,
            height: 1,
        };
        let atlas = match upload_image(
            ctx,
            "white atlas",
            white,
            vk::Format::R8G8B8A8_SRGB,
            &[255; 4],
        ) {
            Ok(atlas) => atlas,
            Err(err) => {
                cleanup(ctx, buffers);
                return Err(err);
            }
        };
        let sampler = create_atlas_sampler(ctx);
        let pipeline = sampler.and_then(|sampler| match create_pipeline(ctx, render_pass) {
            Ok(pipeline) => Ok((sampler, pipeline)),
            Err(err) => {
                // SAFETY: unused sampler.
                unsafe { ctx.device.destroy_sampler(sampler, None) };
                Err(err)
            }
        });
        match pipeline {
            Ok((sampler, pipeline)) => Ok(MeshPass {
                pipeline,
                buffers,
                atlas,
                sampler,
                first_instances,
            }),
            Err(err) => {
                atlas.destroy(ctx);
                cleanup(ctx, buffers);
                Err(err)
            }
        }
    }

    /// Records the draws. Must be inside the main render pass.
    pub fn record(&self, ctx: &Context, start: &FrameStart, globals: &Buffer) -> Result<(), Error> {
        let set = allocate_set(ctx, start, self.pipeline.set_layouts[0])?;
        write_set(
            ctx,
            set,
            &[
                Descriptor::Uniform(globals.raw),
                Descriptor::Uniform(self.buffers[TYPES].raw),
                Descriptor::Storage(self.buffers[INSTANCES].raw),
                Descriptor::Uniform(self.buffers[MATERIALS].raw),
                Descriptor::Sampled(self.atlas.view, self.sampler),
            ],
        );
        let device = &ctx.device;
        let cmd = start.cmd;
        let vertices = self.buffers[VERTICES].raw;
        let list = self.buffers[INSTANCE_LIST].raw;
        let commands = self.buffers[COMMANDS].raw;
        let command_count = self.first_instances.len() as u32;
        // SAFETY: every bound object lives as long as the pass; the command
        // buffer is recording inside a compatible render pass.
        unsafe {
            device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline.raw);
            device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                self.pipeline.layout,
                0,
                &[set],
                &[],
            );
            device.cmd_bind_index_buffer(cmd, self.buffers[INDICES].raw, 0, vk::IndexType::UINT32);
            if ctx.limits.multi_draw_indirect {
                device.cmd_bind_vertex_buffers(cmd, 0, &[vertices, list], &[0, 0]);
                device.cmd_draw_indexed_indirect(cmd, commands, 0, command_count, COMMAND_STRIDE);
            } else {
                for (index, &first) in self.first_instances.iter().enumerate() {
                    device.cmd_bind_vertex_buffers(
                        cmd,
                        0,
                        &[vertices, list],
                        &[0, u64::from(first) * 4],
                    );
                    let offset = index as u64 * u64::from(COMMAND_STRIDE);
                    device.cmd_draw_indexed_indirect(cmd, commands, offset, 1, COMMAND_STRIDE);
                }
            }
        }
        Ok(())
    }

    /// Destroys everything in reverse creation order.
    pub fn destroy(self, ctx: &mut Context) {
        self.pipeline.destroy(ctx);
        // SAFETY: the device is idle.
        unsafe { ctx.device.destroy_sampler(self.sampler, None) };
        self.atlas.destroy(ctx);
        for buffer in self.buffers.into_iter().rev() {
            buffer.destroy(ctx);
        }
    }
}

fn create_pipeline(ctx: &Context, render_pass: vk::RenderPass) -> Result<Pipeline, Error> {
    let set0 = set_layout();
    let bindings = mesh_vertex_bindings();
    let attributes = mesh_vertex_attributes();
    graphics_pipeline(
        ctx,
        "mesh",
        &shaders::MESH_VERT,
        &shaders::MESH_FRAG,
        &LayoutDesc {
            sets: &[&set0],
            push_constant_size: 0,
        },
        &GraphicsDesc {
            vertex_bindings: &bindings,
            vertex_attributes: &attributes,
            render_pass,
            cull_mode: vk::CullModeFlags::BACK,
            depth_compare: vk::CompareOp::GREATER,
            depth_write: true,
            alpha_blend: false,
        },
        &[],
    )
}
