//! The `shadow draw` pass of `passes/shadow`: each cascade's render pass,
//! its mesh casters drawn with the camera's indirect draws. On the desktop
//! tier the render pass has no attachment and the fragments raise the
//! receivers' depths with an atomic max (`shadow_caster.frag`); on the
//! mobile tier it draws depth only into the cascade's layer of a depth
//! image. Also the render pass, the mobile tier's layers and the prop
//! commands that cast.

use std::ops::Range;

use ash::vk;

use super::{CascadeBuffers, CasterDepths, ShadowPass, CASCADE_SCOPES, SHADOW_FORMAT};
use crate::barriers::{uses, Access};
use crate::config::MAX_ROUTES;
use crate::context::Context;
use crate::frame::{ComputePipeline, Frame};
use crate::frames::Descriptor;
use crate::memory::{Buffer, Image, ImageDesc};
use crate::owned::{ImageView, Owned, RenderPass};
use crate::passes::draw::{begin_pass, draw_commands, mesh_vertex_uses, DrawnCommands};
use crate::pipeline::Pipeline;
use crate::sampler::create_sampler;
use crate::world::{World, WorldType};
use crate::{shaders, Error};

impl ShadowPass {
    /// The `shadow draw` pass: each `drawn` cascade's render pass and its
    /// mesh casters.
    pub(super) fn draw(
        &self,
        frame: &mut Frame,
        world: &World,
        drawn: &[usize],
    ) -> Result<(), Error> {
        frame.pass("shadow draw", |frame| {
            let mut declared = mesh_vertex_uses(world);
            if let CasterDepths::Atomic { .. } = self.caster_depths {
                declared.push(uses(self.depths.raw, Access::FragmentWrite));
            }
            for &index in drawn {
                if let Some(lists) = &self.cascades[index].lists {
                    declared.push(uses(lists.raw, Access::IndirectRead));
                    declared.push(uses(lists.raw, Access::VertexInput));
                }
            }
            frame.uses(&declared);
            for &index in drawn {
                let buffers = &self.cascades[index];
                let Some(lists) = &buffers.lists else {
                    continue;
                };
                frame.timed(CASCADE_SCOPES[index], |frame| {
                    self.begin(frame, index);
                    let drawn = self.draw_cascade(frame, world, (index, buffers), lists);
                    // SAFETY: matches the begin above.
                    unsafe { frame.ctx.device.cmd_end_render_pass(frame.cmd) };
                    drawn
                })?;
            }
            Ok(())
        })
    }

    /// Begins cascade `index`'s render pass (on the mobile tier its layer's
    /// depth cleared to 0, far), viewport and scissor over the whole map.
    fn begin(&self, frame: &Frame, index: usize) {
        let extent = vk::Extent2D {
            width: self.map_size,
            height: self.map_size,
        };
        match &self.caster_depths {
            CasterDepths::Atomic { framebuffer, .. } => {
                begin_pass(frame, (*self.render_pass, **framebuffer), extent, &[]);
            }
            CasterDepths::Layers { layers, .. } => {
                let clear = [vk::ClearValue {
                    depth_stencil: vk::ClearDepthStencilValue {
                        depth: 0.0,
                        stencil: 0,
                    },
                }];
                let pass = (*self.render_pass, *layers[index].0);
                begin_pass(frame, pass, extent, &clear);
            }
        }
    }

    /// On the desktop tier, tells `pipeline`'s fragments where cascade
    /// `index` starts in the receivers' buffer (`shadow_caster.frag`).
    fn push_cascade(&self, frame: &Frame, pipeline: &Pipeline, index: usize) {
        if let CasterDepths::Atomic { .. } = self.caster_depths {
            let push = [index as u32 * self.map_size * self.map_size, self.map_size];
            // SAFETY: the layout has CASTER_PUSH_BYTES of push constants for
            // both stages.
            unsafe {
                frame.ctx.device.cmd_push_constants(
                    frame.cmd,
                    pipeline.layout,
                    vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                    0,
                    bytemuck::cast_slice(&push),
                );
            }
        }
    }

    /// Inside a cascade's render pass: the units, then the props.
    fn draw_cascade(
        &self,
        frame: &mut Frame,
        world: &World,
        (index, buffers): (usize, &CascadeBuffers),
        lists: &Buffer,
    ) -> Result<(), Error> {
        let device = &frame.ctx.device;
        let b = &world.buffers;
        // SAFETY: the index buffer lives as long as the world.
        unsafe { device.cmd_bind_index_buffer(frame.cmd, b.indices.raw, 0, vk::IndexType::UINT32) };
        let globals = Descriptor::Uniform(buffers.globals[frame.slot].raw);
        let atlas = Descriptor::Sampled(b.atlas.view, *self.atlas_sampler);
        let draws = DrawnCommands {
            commands: lists,
            lists,
        };
        // Bindings 4 to 7 (materials, atlas, the receivers' depths, the
        // ground texture) are the fragment shader's: the desktop tier's
        // casters write the depths, the rest no caster reads.
        let common = |infos: &Buffer, placements: &Buffer| {
            [
                globals,
                Descriptor::Uniform(b.type_table.raw),
                Descriptor::Storage(infos.raw),
                Descriptor::Storage(placements.raw),
                Descriptor::Uniform(b.material_table.raw),
                atlas,
                self.depths_descriptor(),
                Descriptor::Sampled(b.ground_texture.view, *self.atlas_sampler),
            ]
        };
        if world.unit_count() > 0 {
            let mut descriptors = common(&b.unit_infos.buffer, &b.unit_placements.buffer).to_vec();
            descriptors.extend([
                Descriptor::Storage(b.anim_states.buffer.raw),
                Descriptor::Uniform(b.clip_table.raw),
                Descriptor::Sampled(b.bone_texture.view, *self.bone_sampler),
                Descriptor::Storage(b.unit_marks.buffer.raw),
            ]);
            let set = frame.descriptor_set(self.unit_pipeline.set_layouts[0], &descriptors)?;
            self.push_cascade(frame, &self.unit_pipeline, index);
            draw_commands(
                frame,
                &self.unit_pipeline,
                set,
                world,
                draws,
                world.unit_commands(),
            );
        }
        if world.prop_count() > 0 {
            let descriptors = common(&b.prop_infos.buffer, &b.prop_placements.buffer);
            let set = frame.descriptor_set(self.prop_pipeline.set_layouts[0], &descriptors)?;
            self.push_cascade(frame, &self.prop_pipeline, index);
            for run in &self.prop_casters {
                draw_commands(frame, &self.prop_pipeline, set, world, draws, run.clone());
            }
        }
        Ok(())
    }
}

/// The commands of every prop type but `ground_prop_types`, in runs of
/// consecutive types.
pub(super) fn prop_casters(world: &World, ground_prop_types: &[u32]) -> Vec<Range<u32>> {
    let mut runs: Vec<Range<u32>> = Vec::new();
    let prop_types = world.types.len() as u32 - world.unit_type_count;
    for prop_type in (0..prop_types).filter(|t| !ground_prop_types.contains(t)) {
        let first = WorldType::command((world.unit_type_count + prop_type) as usize, 0);
        match runs.last_mut() {
            Some(run) if run.end == first => run.end = first + MAX_ROUTES,
            _ => runs.push(first..first + MAX_ROUTES),
        }
    }
    runs
}

/// Push-constant bytes of the desktop tier's caster pipelines: the
/// cascade's first texel and the map's size.
pub(super) const CASTER_PUSH_BYTES: u32 = 8;

/// The mobile tier's depth layers: the image, a framebuffer per layer, and
/// the merge that reads them.
pub(super) fn layered_depths(
    ctx: &Context,
    render_pass: vk::RenderPass,
    extent: vk::Extent2D,
    cascade_count: u32,
) -> Result<CasterDepths, Error> {
    let usage = vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::SAMPLED;
    let desc = ImageDesc {
        layers: Some(cascade_count.max(1)),
        ..ImageDesc::new(extent, SHADOW_FORMAT, usage)
    };
    let image = Image::create(ctx, "shadow casters depth", &desc)?;
    let layers = (0..cascade_count)
        .map(|layer| {
            let view = layer_view(ctx, &image, layer)?;
            let name = format!("shadow cascade {layer}");
            let framebuffer =
                crate::target::framebuffer(ctx, render_pass, &[*view], extent, &name)?;
            Ok((framebuffer, view))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let merge = ComputePipeline::new(
        ctx,
        "shadow merge",
        &shaders::SHADOW_MERGE_COMP,
        &[
            vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            vk::DescriptorType::STORAGE_BUFFER,
        ],
        &[ctx.unit_workgroup_size()],
    )?;
    Ok(CasterDepths::Layers {
        image,
        layers,
        sampler: create_sampler(ctx, vk::Filter::NEAREST, "shadow casters sampler")?,
        merge,
    })
}

/// A 2D view of one layer of the map, for its framebuffer.
fn layer_view(ctx: &Context, map: &Image, layer: u32) -> Result<ImageView, Error> {
    let info = vk::ImageViewCreateInfo::default()
        .image(map.raw)
        .view_type(vk::ImageViewType::TYPE_2D)
        .format(SHADOW_FORMAT)
        .subresource_range(vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::DEPTH,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: layer,
            layer_count: 1,
        });
    // SAFETY: the image is alive and bound to memory.
    let view = unsafe { ctx.device.create_image_view(&info, None) }?;
    Ok(Owned::new(ctx, view, &format!("shadow map layer {layer}")))
}

/// The casters' render pass. With `atomic` (desktop tier) it has no
/// attachment: the fragments write the receivers' buffer, whose barriers
/// the pass declares. Otherwise depth only: cleared, stored, left for
/// sampling; its dependencies order it after the last frame's merge and
/// before this frame's.
pub(super) fn shadow_render_pass(ctx: &Context, atomic: bool) -> Result<RenderPass, Error> {
    if atomic {
        let subpasses =
            [vk::SubpassDescription::default()
                .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)];
        let info = vk::RenderPassCreateInfo::default().subpasses(&subpasses);
        // SAFETY: valid create info.
        let render_pass = unsafe { ctx.device.create_render_pass(&info, None) }?;
        return Ok(Owned::new(ctx, render_pass, "shadow render pass"));
    }
    let attachments = [vk::AttachmentDescription::default()
        .format(SHADOW_FORMAT)
        .samples(vk::SampleCountFlags::TYPE_1)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::STORE)
        .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
        .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
        .initial_layout(vk::ImageLayout::UNDEFINED)
        .final_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
    let depth_ref = vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    };
    let subpasses = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .depth_stencil_attachment(&depth_ref)];
    let tests =
        vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS;
    let readers = vk::PipelineStageFlags::COMPUTE_SHADER;
    let depth_access = vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ
        | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE;
    let dependencies = [
        vk::SubpassDependency::default()
            .src_subpass(vk::SUBPASS_EXTERNAL)
            .dst_subpass(0)
            .src_stage_mask(readers | tests)
            .src_access_mask(vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE)
            .dst_stage_mask(tests)
            .dst_access_mask(depth_access),
        vk::SubpassDependency::default()
            .src_subpass(0)
            .dst_subpass(vk::SUBPASS_EXTERNAL)
            .src_stage_mask(tests)
            .src_access_mask(vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE)
            .dst_stage_mask(readers)
            .dst_access_mask(vk::AccessFlags::SHADER_READ),
    ];
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&attachments)
        .subpasses(&subpasses)
        .dependencies(&dependencies);
    // SAFETY: valid create info.
    let render_pass = unsafe { ctx.device.create_render_pass(&info, None) }?;
    Ok(Owned::new(ctx, render_pass, "shadow render pass"))
}
