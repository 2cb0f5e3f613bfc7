//! The mesh pass: static meshes drawn instanced from indirect commands.
//!
//! Data layout (all device-local, uploaded once):
//! - `vertices`: every mesh's [`MeshVertex`]es back to back; `indices`: u32,
//!   each mesh's indices relative to its own first vertex.
//! - `meshes`: one [`MeshInfo`] (dequantization box) per mesh, storage buffer
//!   set 0 binding 1, indexed by the instance's `mesh` field.
//! - `instances`: [`DrawInstance`]s grouped by mesh, bound as per-instance
//!   vertex attributes.
//! - `commands`: one `VkDrawIndexedIndirectCommand` per mesh.
//!
//! Drawing: on the desktop tier one `vkCmdDrawIndexedIndirect` covers every
//! command, and each command's `firstInstance` selects its instance group. On
//! the mobile tier `firstInstance` must be 0, so each command is its own call
//! and the instance buffer is bound at the group's byte offset instead.

use std::mem::size_of;

use ash::vk;

use crate::context::Context;
use crate::gpu_types::{mesh_vertex_attributes, mesh_vertex_bindings, DrawInstance};
use crate::memory::{upload_buffer, Buffer};
use crate::mesh::quantize;
use crate::pipeline::{binding, graphics_pipeline, GraphicsDesc, LayoutDesc, Pipeline};
use crate::scene::StaticScene;
use crate::{shaders, Error};

const COMMAND_STRIDE: u32 = size_of::<vk::DrawIndexedIndirectCommand>() as u32;

/// GPU buffers and pipeline of the mesh pass.
pub struct MeshPass {
    pub pipeline: Pipeline,
    descriptor_pool: vk::DescriptorPool,
    descriptor_sets: Vec<vk::DescriptorSet>,
    vertices: Buffer,
    indices: Buffer,
    meshes: Buffer,
    instances: Buffer,
    commands: Buffer,
    /// First instance of each command, for binding on the mobile tier.
    first_instances: Vec<u32>,
}

/// The descriptor bindings of `mesh.vert` / `mesh.frag`.
pub fn set_layout() -> [vk::DescriptorSetLayoutBinding<'static>; 2] {
    let stages = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
    [
        binding(0, vk::DescriptorType::UNIFORM_BUFFER, stages),
        binding(
            1,
            vk::DescriptorType::STORAGE_BUFFER,
            vk::ShaderStageFlags::VERTEX,
        ),
    ]
}

impl MeshPass {
    /// Uploads the scene and creates the pipeline for `render_pass`.
    /// `globals[slot]` is each frame slot's `FrameGlobals` uniform buffer.
    pub fn new(
        ctx: &mut Context,
        render_pass: vk::RenderPass,
        globals: &[&Buffer],
        scene: &StaticScene,
    ) -> Result<MeshPass, Error> {
        let mut vertices = Vec::new();
        let mut indices = Vec::new();
        let mut infos = Vec::new();
        let mut instances = Vec::new();
        let mut commands = Vec::new();
        let mut first_instances = Vec::new();
        for (mesh_index, mesh) in scene.meshes.iter().enumerate() {
            let (quantized, info) = quantize(mesh);
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
            infos.push(info);
            instances.extend(group.iter().map(|i| DrawInstance {
                mesh: mesh_index as u32,
                ..*i
            }));
        }
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

        let mut created: Vec<Buffer> = Vec::new();
        let uploads: [(&str, vk::BufferUsageFlags, &[u8]); 5] = [
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
                "mesh infos",
                vk::BufferUsageFlags::STORAGE_BUFFER,
                bytemuck::cast_slice(&infos),
            ),
            (
                "mesh instances",
                vk::BufferUsageFlags::VERTEX_BUFFER,
                bytemuck::cast_slice(&instances),
            ),
            (
                "mesh draw commands",
                vk::BufferUsageFlags::INDIRECT_BUFFER,
                &command_bytes,
            ),
        ];
        for (name, usage, data) in uploads {
            match upload_buffer(ctx, name, usage, data) {
                Ok(buffer) => created.push(buffer),
                Err(err) => {
                    created.into_iter().for_each(|b| b.destroy(ctx));
                    return Err(err);
                }
            }
        }
        let pipeline = match create_pipeline(ctx, render_pass) {
            Ok(pipeline) => pipeline,
            Err(err) => {
                created.into_iter().for_each(|b| b.destroy(ctx));
                return Err(err);
            }
        };
        let mut buffers = created.into_iter();
        let mut next = || buffers.next().expect("five buffers were created");
        let mut pass = MeshPass {
            pipeline,
            descriptor_pool: vk::DescriptorPool::null(),
            descriptor_sets: Vec::new(),
            vertices: next(),
            indices: next(),
            meshes: next(),
            instances: next(),
            commands: next(),
            first_instances,
        };
        if let Err(err) = pass.create_descriptors(ctx, globals) {
            pass.destroy(ctx);
            return Err(err);
        }
        Ok(pass)
    }

    fn create_descriptors(&mut self, ctx: &Context, globals: &[&Buffer]) -> Result<(), Error> {
        let count = globals.len() as u32;
        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::UNIFORM_BUFFER,
                descriptor_count: count,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: count,
            },
        ];
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(count)
            .pool_sizes(&sizes);
        // SAFETY: valid create info.
        self.descriptor_pool = unsafe { ctx.device.create_descriptor_pool(&info, None) }?;
        ctx.set_name(self.descriptor_pool, "mesh pass descriptors");
        let layouts = vec![self.pipeline.set_layouts[0]; globals.len()];
        let alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.descriptor_pool)
            .set_layouts(&layouts);
        // SAFETY: the pool has room for exactly these sets.
        self.descriptor_sets = unsafe { ctx.device.allocate_descriptor_sets(&alloc) }?;
        for (set, global) in self.descriptor_sets.iter().zip(globals) {
            let uniform = [vk::DescriptorBufferInfo {
                buffer: global.raw,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }];
            let storage = [vk::DescriptorBufferInfo {
                buffer: self.meshes.raw,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }];
            let writes = [
                vk::WriteDescriptorSet::default()
                    .dst_set(*set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .buffer_info(&uniform),
                vk::WriteDescriptorSet::default()
                    .dst_set(*set)
                    .dst_binding(1)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&storage),
            ];
            // SAFETY: the buffers outlive the sets.
            unsafe { ctx.device.update_descriptor_sets(&writes, &[]) };
        }
        Ok(())
    }

    /// Records the draws. Must be inside the main render pass.
    pub fn record(&self, ctx: &Context, cmd: vk::CommandBuffer, slot: usize) {
        let device = &ctx.device;
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
                &[self.descriptor_sets[slot]],
                &[],
            );
            device.cmd_bind_index_buffer(cmd, self.indices.raw, 0, vk::IndexType::UINT32);
            if ctx.limits.multi_draw_indirect {
                device.cmd_bind_vertex_buffers(
                    cmd,
                    0,
                    &[self.vertices.raw, self.instances.raw],
                    &[0, 0],
                );
                device.cmd_draw_indexed_indirect(
                    cmd,
                    self.commands.raw,
                    0,
                    command_count,
                    COMMAND_STRIDE,
                );
            } else {
                for (index, &first) in self.first_instances.iter().enumerate() {
                    let instance_offset = u64::from(first) * size_of::<DrawInstance>() as u64;
                    device.cmd_bind_vertex_buffers(
                        cmd,
                        0,
                        &[self.vertices.raw, self.instances.raw],
                        &[0, instance_offset],
                    );
                    let offset = index as u64 * u64::from(COMMAND_STRIDE);
                    device.cmd_draw_indexed_indirect(
                        cmd,
                        self.commands.raw,
                        offset,
                        1,
                        COMMAND_STRIDE,
                    );
                }
            }
        }
    }

    /// Destroys everything in reverse creation order.
    pub fn destroy(self, ctx: &mut Context) {
        // SAFETY: the device is idle; destroying the pool frees its sets.
        unsafe {
            ctx.device
                .destroy_descriptor_pool(self.descriptor_pool, None)
        };
        self.pipeline.destroy(ctx);
        self.commands.destroy(ctx);
        self.instances.destroy(ctx);
        self.meshes.destroy(ctx);
        self.indices.destroy(ctx);
        self.vertices.destroy(ctx);
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
