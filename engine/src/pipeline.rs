//! Pipeline creation with layouts checked against the shaders.
//!
//! A pass declares its descriptor sets (as `VkDescriptorSetLayoutBinding` lists)
//! and its push-constant size in a [`LayoutDesc`]. Before any Vulkan object is
//! made, [`check_layout`] reflects every stage's SPIR-V and fails with a clear
//! error when a shader uses a binding the pass did not declare, declares it with
//! another type, a smaller count or without the stage, or reads more push
//! constants than the pass provides. A mismatch is a bug in the pass, and this
//! turns it from undefined behaviour into a message naming shader and binding.
//!
//! A [`Pipeline`] owns its layout and set layouts and destroys them when
//! dropped (`Drop` over the shared device, see [`crate::context`]). It is
//! created empty and filled in, and shader modules are [`ShaderModule`]s
//! dropped right after pipeline creation, so a failure at any step leaves
//! nothing behind without unwinding code.

use std::sync::Arc;

use ash::vk;

use crate::context::{Context, Gpu};
use crate::owned::{Owned, ShaderModule};
use crate::reflect::reflect;
use crate::{Error, Spirv};

/// The descriptor sets and push constants a pipeline is created with.
pub struct LayoutDesc<'a> {
    /// One list of bindings per descriptor set, set 0 first.
    pub sets: &'a [&'a [vk::DescriptorSetLayoutBinding<'a>]],
    /// Push-constant bytes, visible to every stage of the pipeline.
    pub push_constant_size: u32,
}

/// A pipeline, its layout, and the descriptor set layouts it owns, destroyed
/// when dropped. A handle not made yet is null, which Vulkan ignores.
pub struct Pipeline {
    pub raw: vk::Pipeline,
    pub layout: vk::PipelineLayout,
    pub set_layouts: Vec<vk::DescriptorSetLayout>,
    pub name: String,
    gpu: Arc<Gpu>,
}

impl Pipeline {
    /// A pipeline with nothing made yet, to be filled in step by step.
    fn empty(ctx: &Context, name: &str) -> Pipeline {
        Pipeline {
            raw: vk::Pipeline::null(),
            layout: vk::PipelineLayout::null(),
            set_layouts: Vec::new(),
            name: name.to_owned(),
            gpu: ctx.gpu.clone(),
        }
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        // SAFETY: the owner drops a pipeline only once the GPU is done with
        // it; reverse creation order.
        unsafe {
            self.gpu.device.destroy_pipeline(self.raw, None);
            self.gpu.device.destroy_pipeline_layout(self.layout, None);
            for &set_layout in self.set_layouts.iter().rev() {
                self.gpu
                    .device
                    .destroy_descriptor_set_layout(set_layout, None);
            }
        }
        self.gpu.note_destroyed();
    }
}

/// Shorthand for one descriptor binding.
pub fn binding(
    index: u32,
    kind: vk::DescriptorType,
    stages: vk::ShaderStageFlags,
) -> vk::DescriptorSetLayoutBinding<'static> {
    vk::DescriptorSetLayoutBinding::default()
        .binding(index)
        .descriptor_type(kind)
        .descriptor_count(1)
        .stage_flags(stages)
}

/// Checks that `layout` covers everything `shader` uses in `stage`.
pub fn check_layout(
    shader: &Spirv,
    stage: vk::ShaderStageFlags,
    layout: &LayoutDesc,
) -> Result<(), Error> {
    let mismatch = |what: String| Error::Layout(format!("{}: {what}", shader.name));
    let reflection = reflect(shader.words).map_err(&mismatch)?;
    for used in &reflection.bindings {
        let declared = layout
            .sets
            .get(used.set as usize)
            .and_then(|set| set.iter().find(|b| b.binding == used.binding));
        let Some(declared) = declared else {
            return Err(mismatch(format!(
                "uses set {} binding {} ('{}', {:?}) which the pipeline layout does not declare",
                used.set, used.binding, used.name, used.kind
            )));
        };
        if declared.descriptor_type != used.kind {
            return Err(mismatch(format!(
                "set {} binding {} ('{}') is {:?} in the shader but {:?} in the layout",
                used.set, used.binding, used.name, used.kind, declared.descriptor_type
            )));
        }
        if declared.descriptor_count < used.count {
            return Err(mismatch(format!(
                "set {} binding {} ('{}') has {} descriptors in the shader but {} in the layout",
                used.set, used.binding, used.name, used.count, declared.descriptor_count
            )));
        }
        if !declared.stage_flags.contains(stage) {
            return Err(mismatch(format!(
                "set {} binding {} ('{}') is not visible to the {stage:?} stage",
                used.set, used.binding, used.name
            )));
        }
    }
    if reflection.push_constant_size > layout.push_constant_size {
        return Err(mismatch(format!(
            "reads {} bytes of push constants but the layout provides {}",
            reflection.push_constant_size, layout.push_constant_size
        )));
    }
    Ok(())
}

/// Creates `pipeline`'s set layouts and layout after checking them against
/// the tier's limits.
fn create_layout(
    ctx: &Context,
    pipeline: &mut Pipeline,
    desc: &LayoutDesc,
    stages: vk::ShaderStageFlags,
) -> Result<(), Error> {
    let name = pipeline.name.as_str();
    if desc.push_constant_size > ctx.limits.max_push_constants_size {
        return Err(Error::Layout(format!(
            "{name}: {} bytes of push constants exceed the tier's {}",
            desc.push_constant_size, ctx.limits.max_push_constants_size
        )));
    }
    let storage_buffers = |stage: vk::ShaderStageFlags| {
        desc.sets
            .iter()
            .flat_map(|set| set.iter())
            .filter(|b| {
                b.descriptor_type == vk::DescriptorType::STORAGE_BUFFER
                    && b.stage_flags.contains(stage)
            })
            .map(|b| b.descriptor_count)
            .sum::<u32>()
    };
    for stage in [
        vk::ShaderStageFlags::VERTEX,
        vk::ShaderStageFlags::FRAGMENT,
        vk::ShaderStageFlags::COMPUTE,
    ] {
        let used = storage_buffers(stage);
        if used > ctx.limits.max_storage_buffers_per_stage {
            return Err(Error::Layout(format!(
                "{name}: {used} storage buffers in the {stage:?} stage exceed the tier's {}",
                ctx.limits.max_storage_buffers_per_stage
            )));
        }
    }
    for (index, bindings) in desc.sets.iter().enumerate() {
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings);
        // SAFETY: valid create info; `pipeline` owns the result.
        let set_layout = unsafe { ctx.device.create_descriptor_set_layout(&info, None) }?;
        pipeline.set_layouts.push(set_layout);
        ctx.set_name(set_layout, &format!("{name} set {index}"));
    }
    let ranges = [vk::PushConstantRange::default()
        .stage_flags(stages)
        .offset(0)
        .size(desc.push_constant_size)];
    let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&pipeline.set_layouts);
    if desc.push_constant_size > 0 {
        info = info.push_constant_ranges(&ranges);
    }
    // SAFETY: valid create info; `pipeline` owns the result.
    let layout = unsafe { ctx.device.create_pipeline_layout(&info, None) }?;
    pipeline.layout = layout;
    ctx.set_name(layout, name);
    Ok(())
}

fn shader_module(ctx: &Context, shader: &Spirv) -> Result<ShaderModule, Error> {
    let info = vk::ShaderModuleCreateInfo::default().code(shader.words);
    // SAFETY: the words are SPIR-V produced by shaderc at build time.
    let module = unsafe { ctx.device.create_shader_module(&info, None) }?;
    Ok(Owned::new(ctx, module, shader.name))
}

/// Specialization data: constant `id` i gets `values[i]`.
struct Specialization {
    entries: Vec<vk::SpecializationMapEntry>,
    data: Vec<u8>,
}

impl Specialization {
    fn new(values: &[u32]) -> Specialization {
        let entries = (0..values.len() as u32)
            .map(|i| vk::SpecializationMapEntry {
                constant_id: i,
                offset: i * 4,
                size: 4,
            })
            .collect();
        Specialization {
            entries,
            data: bytemuck::cast_slice(values).to_vec(),
        }
    }

    fn info(&self) -> vk::SpecializationInfo<'_> {
        vk::SpecializationInfo::default()
            .map_entries(&self.entries)
            .data(&self.data)
    }
}

/// Creates a compute pipeline. `specialization[i]` sets `constant_id = i`.
pub fn compute_pipeline(
    ctx: &Context,
    name: &str,
    shader: &Spirv,
    layout_desc: &LayoutDesc,
    specialization: &[u32],
) -> Result<Pipeline, Error> {
    check_layout(shader, vk::ShaderStageFlags::COMPUTE, layout_desc)?;
    let mut pipeline = Pipeline::empty(ctx, name);
    create_layout(
        ctx,
        &mut pipeline,
        layout_desc,
        vk::ShaderStageFlags::COMPUTE,
    )?;
    let module = shader_module(ctx, shader)?;
    let spec = Specialization::new(specialization);
    let spec_info = spec.info();
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(*module)
        .name(c"main")
        .specialization_info(&spec_info);
    let info = vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(pipeline.layout);
    // SAFETY: valid create info; the module may go once the pipeline exists.
    let created = unsafe {
        ctx.device
            .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
    };
    pipeline.raw = created.map_err(|(_, err)| err)?[0];
    ctx.set_name(pipeline.raw, name);
    Ok(pipeline)
}

/// The attributes among `offered` that the vertex shader reads: one shared
/// vertex format serves shaders that read only part of it. An input the
/// shader declares but nobody offers is an error.
fn used_attributes(
    vertex: &Spirv,
    offered: &[vk::VertexInputAttributeDescription],
) -> Result<Vec<vk::VertexInputAttributeDescription>, Error> {
    let reflection =
        reflect(vertex.words).map_err(|e| Error::Layout(format!("{}: {e}", vertex.name)))?;
    reflection
        .input_locations
        .iter()
        .map(|&location| {
            offered.iter().find(|a| a.location == location).copied().ok_or_else(|| {
                Error::Layout(format!(
                    "{}: reads vertex input location {location}, which the pipeline does not provide",
                    vertex.name
                ))
            })
        })
        .collect()
}

/// The render pass a graphics pipeline draws in, and its samples per pixel.
#[derive(Clone, Copy, Debug)]
pub struct PassTarget {
    pub render_pass: vk::RenderPass,
    pub samples: vk::SampleCountFlags,
}

/// Fixed-function state of a graphics pipeline. Viewport and scissor are dynamic.
pub struct GraphicsDesc<'a> {
    pub vertex_bindings: &'a [vk::VertexInputBindingDescription],
    pub vertex_attributes: &'a [vk::VertexInputAttributeDescription],
    pub target: PassTarget,
    pub cull_mode: vk::CullModeFlags,
    /// Reverse-Z: GREATER passes nearer fragments.
    pub depth_compare: vk::CompareOp,
    pub depth_write: bool,
    pub alpha_blend: bool,
}

/// Creates a graphics pipeline from a vertex and a fragment shader, drawing
/// into one colour attachment and the depth.
pub fn graphics_pipeline(
    ctx: &Context,
    name: &str,
    vertex: &Spirv,
    fragment: &Spirv,
    layout_desc: &LayoutDesc,
    state: &GraphicsDesc,
    specialization: &[u32],
) -> Result<Pipeline, Error> {
    create_graphics(
        ctx,
        name,
        (vertex, Some(fragment)),
        1,
        layout_desc,
        state,
        specialization,
    )
}

/// Creates a graphics pipeline that draws depth only (a shadow map): no
/// colour attachment, and no fragment shader unless one writes the depth.
pub fn depth_pipeline(
    ctx: &Context,
    name: &str,
    (vertex, fragment): (&Spirv, Option<&Spirv>),
    layout_desc: &LayoutDesc,
    state: &GraphicsDesc,
    specialization: &[u32],
) -> Result<Pipeline, Error> {
    create_graphics(
        ctx,
        name,
        (vertex, fragment),
        0,
        layout_desc,
        state,
        specialization,
    )
}

fn create_graphics(
    ctx: &Context,
    name: &str,
    (vertex, fragment): (&Spirv, Option<&Spirv>),
    color_attachments: usize,
    layout_desc: &LayoutDesc,
    state: &GraphicsDesc,
    specialization: &[u32],
) -> Result<Pipeline, Error> {
    check_layout(vertex, vk::ShaderStageFlags::VERTEX, layout_desc)?;
    if let Some(fragment) = fragment {
        check_layout(fragment, vk::ShaderStageFlags::FRAGMENT, layout_desc)?;
    }
    let attributes = used_attributes(vertex, state.vertex_attributes)?;
    let stages = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
    let mut pipeline = Pipeline::empty(ctx, name);
    create_layout(ctx, &mut pipeline, layout_desc, stages)?;
    let vs = shader_module(ctx, vertex)?;
    let fs = fragment
        .map(|fragment| shader_module(ctx, fragment))
        .transpose()?;
    let spec = Specialization::new(specialization);
    let spec_info = spec.info();
    let mut stage_infos = vec![vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::VERTEX)
        .module(*vs)
        .name(c"main")
        .specialization_info(&spec_info)];
    if let Some(fs) = &fs {
        stage_infos.push(
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(**fs)
                .name(c"main")
                .specialization_info(&spec_info),
        );
    }
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(state.vertex_bindings)
        .vertex_attribute_descriptions(&attributes);
    let input_assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewport_count(1)
        .scissor_count(1);
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(state.cull_mode)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .line_width(1.0);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(state.target.samples);
    let depth = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(true)
        .depth_write_enable(state.depth_write)
        .depth_compare_op(state.depth_compare);
    let attachment = vk::PipelineColorBlendAttachmentState::default()
        .blend_enable(state.alpha_blend)
        .src_color_blend_factor(vk::BlendFactor::SRC_ALPHA)
        .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .color_blend_op(vk::BlendOp::ADD)
        .src_alpha_blend_factor(vk::BlendFactor::ONE)
        .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .alpha_blend_op(vk::BlendOp::ADD)
        .color_write_mask(vk::ColorComponentFlags::RGBA);
    let attachments = vec![attachment; color_attachments];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
    let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stage_infos)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&input_assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .depth_stencil_state(&depth)
        .color_blend_state(&blend)
        .dynamic_state(&dynamic)
        .layout(pipeline.layout)
        .render_pass(state.target.render_pass)
        .subpass(0);
    // SAFETY: valid create info; the modules may go once the pipeline
    // exists.
    let created = unsafe {
        ctx.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
    };
    pipeline.raw = created.map_err(|(_, err)| err)?[0];
    ctx.set_name(pipeline.raw, name);
    Ok(pipeline)
}
