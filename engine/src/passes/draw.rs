//! The draw pass: the main render pass, with every unit and prop in two
//! indirect draws.
//!
//! Inputs, all from the [`World`]: the shared vertex and index buffers, the
//! draw commands the cull pass filled (one per (type, route), units first, at
//! the head of the draw-list buffer), and the instance lists behind them. Each
//! instance-list entry (a per-instance vertex attribute) names a unit or prop
//! whose [`UnitInfo`](crate::gpu_types::UnitInfo) and
//! [`UnitPlacement`](crate::gpu_types::UnitPlacement) the vertex shader
//! fetches from storage buffers, with the route in its top bits for the LOD
//! colour view.
//!
//! - Units: `unit.vert` skins with two bones from the bone texture, sampling a
//!   second clip while crossfading; the bone encoding is a specialization
//!   constant. Props: `mesh.vert`, unskinned. Both use `mesh.frag`: atlas
//!   texture × material factor × tint, sun + ambient, fog.
//! - Desktop tier: one `vkCmdDrawIndexedIndirect` for all unit commands and
//!   one for all prop commands; each command's `firstInstance` selects its
//!   list region, and commands of unused routes draw nothing. Mobile tier: no
//!   multi-draw and `firstInstance` must be 0, so every mesh route is its own
//!   call, with the instance list bound at the region's byte offset.
//! - The far-field route's command has no indices: the raster never draws it.
//! - After the world's draws comes the sky (in occlusion culling's early
//!   part; the late part's draws cover it where they are nearer):
//!   `sky.frag` (`passes/sky.rs`) over the whole target at the far plane,
//!   tested GREATER_OR_EQUAL against the depth cleared to 0, writing none,
//!   so it colours only the samples nothing covered. The render pass leaves
//!   the colour undefined instead of clearing it: an H100's render pipeline
//!   writes memory at about 55 GB/s, and the clear of a 1080p 4x MSAA
//!   colour cost 0.6 ms (`benches/results/near_field/`, section 11).
//! - Then the [`ExtraDraw`]s the frame hands in, in order: the bounds view
//!   (`passes/bounds.rs`), a baseline's own draws, and the far field's
//!   resolve (`passes/far_field/mod.rs`), last because it tests against the
//!   depth the raster wrote and blends over the colour, sky included. This
//!   pass knows none of them.
//! - Types with a double-sided material are drawn by pipelines without
//!   back-face culling, in runs of consecutive types; `mesh.frag` discards
//!   the back faces of their single-sided materials and flips the normal of
//!   the double-sided ones. Every other type keeps back-face culling and
//!   early depth testing.
//! - With occlusion culling the frame records this pass twice: in the main
//!   render pass's early part, the lists of the cull's early phase, and in
//!   its late part, over them, the late phase's (`target.rs`'s `MainPart`,
//!   `passes/cull.rs`).
//! - The commands and lists come from [`DrawInputs::lists`]: the cull pass's
//!   for the GPU-driven frame, or a baseline's own in the same layout
//!   (`baselines/`). The `naive` baseline adds its per-unit draws of
//!   CPU-skinned vertices as an extra draw.

use std::ops::Range;

use ash::vk;

use crate::asset::BoneEncoding;
use crate::barriers::{uses, Access, BufferUse};
use crate::config::MAX_ROUTES;
use crate::context::Context;
use crate::frame::Frame;
use crate::frames::Descriptor;
use crate::gpu_types::{mesh_vertex_attributes, mesh_vertex_bindings, DrawCommand};
use crate::memory::Buffer;
use crate::owned::Sampler;
use crate::passes::sky::{draw_sky, sky_pipeline};
use crate::pipeline::{binding, graphics_pipeline, GraphicsDesc, LayoutDesc, PassTarget, Pipeline};
use crate::sampler::{create_bone_sampler, create_sampler, create_sampler_as, SamplerDesc};
use crate::world::buffers::DRAW_COMMANDS_BYTES;
use crate::world::{BoneShape, World};
use crate::{shaders, Error, Spirv};

const COMMAND_STRIDE: u32 = std::mem::size_of::<DrawCommand>() as u32;

/// The mesh pipelines (props and units, each with and without back-face
/// culling) and their samplers.
pub struct DrawPass {
    prop_pipeline: Pipeline,
    unit_pipeline: Pipeline,
    double_sided_prop_pipeline: Pipeline,
    double_sided_unit_pipeline: Pipeline,
    sky_pipeline: Pipeline,
    atlas_sampler: Sampler,
    ground_sampler: Sampler,
    bone_sampler: Sampler,
}

/// Where the frame is drawn.
#[derive(Clone, Copy, Debug)]
pub struct DrawTarget {
    pub render_pass: vk::RenderPass,
    pub framebuffer: vk::Framebuffer,
    pub extent: vk::Extent2D,
    /// Uniform `FrameGlobals` of this frame.
    pub globals: vk::Buffer,
    /// Linear colour where nothing is drawn: the sky, or black for the unit
    /// mask (so a mask pixel's value is the units' coverage of it).
    pub sky_color: [f32; 4],
    /// Whether this part of the render pass draws the sky after the world:
    /// all but occlusion culling's late part (the early part did, before
    /// its extras, which may blend over it without writing depth).
    pub draws_sky: bool,
    /// The sun's shadow depths (`passes/shadow.rs`).
    pub shadow_depths: vk::Buffer,
}

/// Per-frame choices of the draw pass.
#[derive(Clone, Copy, Debug)]
pub struct DrawOptions {
    /// Skin units; when off they are drawn in their bind pose with the prop
    /// pipeline.
    pub skinning: bool,
}

/// What the draw pass draws from.
#[derive(Clone, Copy)]
pub struct DrawInputs<'a> {
    /// The pass's name in the frame list and the profiler: "draw", or
    /// "draw late" for occlusion culling's late part.
    pub name: &'static str,
    /// Draw commands at the head, then the instance lists (the layout of
    /// the world's draw lists).
    pub lists: &'a Buffer,
    /// Draws after the world's, in this order, inside the render pass.
    pub extras: &'a [&'a dyn ExtraDraw],
}

/// The descriptors the mesh pipelines bind (bindings 0..=7 of
/// [`set_layout`]), for the world's units and for its props.
#[derive(Clone, Copy, Debug)]
pub struct MeshDescriptors {
    pub units: [Descriptor; 8],
    pub props: [Descriptor; 8],
}

/// Draws that enter the main render pass after the world's indirect draws:
/// a debug view, a baseline's own draws, the far field's resolve.
pub trait ExtraDraw {
    /// The buffers the draws read, declared with the draw pass's uses.
    fn draw_uses(&self, frame: &Frame, world: &World) -> Result<Vec<BufferUse>, Error>;

    /// Records the draws inside the render pass, whose viewport and scissor
    /// cover the target.
    fn draw(&self, frame: &mut Frame, world: &World, mesh: &MeshDescriptors) -> Result<(), Error>;
}

/// Descriptor bindings. Props use 0..=7; units add 8..=11.
///
/// 0 `Globals` (uniform), 1 `Types` (uniform), 2 `Infos` (storage),
/// 3 `Placements` (storage), 4 `Materials` (uniform), 5 base colour atlas,
/// 6 `ShadowDepths` (storage: the sun's shadows), 7 the ground texture,
/// 8 `AnimStates` (storage), 9 `Clips` (uniform), 10 bone texture,
/// 11 `Marks` (storage).
pub fn set_layout(skinned: bool) -> Vec<vk::DescriptorSetLayoutBinding<'static>> {
    let vertex = vk::ShaderStageFlags::VERTEX;
    let fragment = vk::ShaderStageFlags::FRAGMENT;
    let mut bindings = vec![
        binding(0, vk::DescriptorType::UNIFORM_BUFFER, vertex | fragment),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER, vertex),
        binding(2, vk::DescriptorType::STORAGE_BUFFER, vertex),
        binding(3, vk::DescriptorType::STORAGE_BUFFER, vertex),
        binding(4, vk::DescriptorType::UNIFORM_BUFFER, fragment),
        binding(5, vk::DescriptorType::COMBINED_IMAGE_SAMPLER, fragment),
        binding(6, vk::DescriptorType::STORAGE_BUFFER, fragment),
        binding(7, vk::DescriptorType::COMBINED_IMAGE_SAMPLER, fragment),
    ];
    if skinned {
        bindings.extend([
            binding(8, vk::DescriptorType::STORAGE_BUFFER, vertex),
            binding(9, vk::DescriptorType::UNIFORM_BUFFER, vertex),
            binding(10, vk::DescriptorType::COMBINED_IMAGE_SAMPLER, vertex),
            binding(11, vk::DescriptorType::STORAGE_BUFFER, vertex),
        ]);
    }
    bindings
}

/// The ground sampler's anisotropy. Seen from eye height the ground lies at
/// a grazing angle, where a pixel's footprint is many times longer than wide
/// and the isotropic mip for its length blurs it across: half of the 10k
/// ground preset's FLIP against the supersampled reference was the ground
/// itself. On an H200 (benches/results/near_field, section 17) 2 taps took
/// the default demo's FLIP from 0.0125 to 0.0115 (ground) and 0.0201 to
/// 0.0184 (front) for 0.01-0.1 ms of draw; 4, 8 and 16 gained 0.0004-0.0009
/// more and cost the front 0.35-0.8 ms more.
pub const GROUND_ANISOTROPY: f32 = 2.0;

/// How a mesh pipeline treats faces, depth and blending.
#[derive(Clone, Copy, Debug)]
pub struct MeshState {
    pub cull_mode: vk::CullModeFlags,
    pub depth_write: bool,
    pub alpha_blend: bool,
}

/// Opaque, back faces culled, depth written.
const OPAQUE: MeshState = MeshState {
    cull_mode: vk::CullModeFlags::BACK,
    depth_write: true,
    alpha_blend: false,
};

/// A pipeline over the shared mesh vertex format and reverse-Z depth, with
/// the draw pass's set layout (`skinned` adds the animation bindings).
#[allow(clippy::too_many_arguments)]
pub fn mesh_pipeline(
    ctx: &Context,
    name: &str,
    target: PassTarget,
    (vertex, fragment): (&Spirv, &Spirv),
    skinned: bool,
    state: MeshState,
    specialization: &[u32],
) -> Result<Pipeline, Error> {
    let set0 = set_layout(skinned);
    let bindings = mesh_vertex_bindings();
    let attributes = mesh_vertex_attributes();
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
            target,
            cull_mode: state.cull_mode,
            depth_compare: vk::CompareOp::GREATER,
            depth_write: state.depth_write,
            alpha_blend: state.alpha_blend,
        },
        specialization,
    )
}

impl DrawPass {
    /// Creates the pipelines for `target` and the world's bone encoding.
    pub fn new(
        ctx: &Context,
        target: PassTarget,
        encoding: BoneEncoding,
        bone_shape: BoneShape,
    ) -> Result<DrawPass, Error> {
        let atlas_sampler = create_sampler(ctx, vk::Filter::LINEAR, "atlas sampler")?;
        // The ground texture repeats over the ground, read at every level,
        // anisotropically (GROUND_ANISOTROPY says why).
        let tiling = SamplerDesc {
            filter: vk::Filter::LINEAR,
            mipmaps: true,
            repeat: true,
            max_anisotropy: GROUND_ANISOTROPY,
        };
        let ground_sampler = create_sampler_as(ctx, tiling, "ground texture sampler")?;
        let bone_sampler = create_bone_sampler(ctx)?;
        // Constant 0: the bone encoding (vertex); 1: back faces are
        // rasterized (fragment); 2: the bones' shape (vertex); 3: the
        // pipeline draws units (fragment: white in the unit mask view).
        let shape = bone_shape.shader_constant();
        let encoding = encoding.shader_constant();
        let single_props = [encoding, 0, shape, 0];
        let double_props = [encoding, 1, shape, 0];
        let single_units = [encoding, 0, shape, 1];
        let double_units = [encoding, 1, shape, 1];
        let both_faces = MeshState {
            cull_mode: vk::CullModeFlags::NONE,
            ..OPAQUE
        };
        let props = (&shaders::MESH_VERT, &shaders::MESH_FRAG);
        let units = (&shaders::UNIT_VERT, &shaders::MESH_FRAG);
        let pipeline = |name, shaders, skinned, state, constants: &[u32]| {
            mesh_pipeline(ctx, name, target, shaders, skinned, state, constants)
        };
        let prop_pipeline = pipeline("draw props", props, false, OPAQUE, &single_props)?;
        let unit_pipeline = pipeline("draw units", units, true, OPAQUE, &single_units)?;
        let double_sided_prop_pipeline = pipeline(
            "draw double-sided props",
            props,
            false,
            both_faces,
            &double_props,
        )?;
        let double_sided_unit_pipeline = pipeline(
            "draw double-sided units",
            units,
            true,
            both_faces,
            &double_units,
        )?;
        let sky_pipeline = sky_pipeline(ctx, target)?;
        Ok(DrawPass {
            prop_pipeline,
            unit_pipeline,
            double_sided_prop_pipeline,
            double_sided_unit_pipeline,
            sky_pipeline,
            atlas_sampler,
            ground_sampler,
            bone_sampler,
        })
    }

    /// Records the main render pass into `target`: units, props, and the
    /// extras `inputs` asks for.
    pub fn record(
        &self,
        frame: &mut Frame,
        world: &World,
        target: &DrawTarget,
        options: &DrawOptions,
        inputs: &DrawInputs,
    ) -> Result<(), Error> {
        let b = &world.buffers;
        frame.pass(inputs.name, |frame| {
            let mut declared = mesh_vertex_uses(world);
            declared.extend([
                uses(inputs.lists.raw, Access::IndirectRead),
                uses(inputs.lists.raw, Access::VertexInput),
                uses(b.material_table.raw, Access::FragmentRead),
                uses(target.shadow_depths, Access::FragmentRead),
            ]);
            for extra in inputs.extras {
                declared.extend(extra.draw_uses(frame, world)?);
            }
            frame.uses(&declared);
            begin_render_pass(frame, target);
            let samplers = (*self.atlas_sampler, *self.ground_sampler);
            let mesh = mesh_descriptors(world, target, samplers);
            let drawn = self
                .draw_world(frame, world, options, inputs.lists, &mesh)
                .map(|()| {
                    if target.draws_sky {
                        draw_sky(frame, &self.sky_pipeline, target.sky_color);
                    }
                })
                .and_then(|()| {
                    inputs
                        .extras
                        .iter()
                        .try_for_each(|extra| extra.draw(frame, world, &mesh))
                });
            // SAFETY: matches the begin above.
            unsafe { frame.ctx.device.cmd_end_render_pass(frame.cmd) };
            drawn
        })
    }

    fn draw_world(
        &self,
        frame: &mut Frame,
        world: &World,
        options: &DrawOptions,
        commands: &Buffer,
        mesh: &MeshDescriptors,
    ) -> Result<(), Error> {
        let b = &world.buffers;
        let mut units = mesh.units.to_vec();
        if options.skinning {
            units.extend([
                Descriptor::Storage(b.anim_states.buffer.raw),
                Descriptor::Uniform(b.clip_table.raw),
                Descriptor::Sampled(b.bone_texture.view, *self.bone_sampler),
                Descriptor::Storage(b.unit_marks.buffer.raw),
            ]);
        }
        // SAFETY: the index buffer lives as long as the world.
        unsafe {
            frame.ctx.device.cmd_bind_index_buffer(
                frame.cmd,
                b.indices.raw,
                0,
                vk::IndexType::UINT32,
            )
        };
        let draws = DrawnCommands {
            commands,
            lists: commands,
        };
        if world.unit_count() > 0 {
            let set =
                frame.descriptor_set(self.unit_pipeline(options, false).set_layouts[0], &units)?;
            for (range, double_sided) in sided_runs(world, true) {
                let pipeline = self.unit_pipeline(options, double_sided);
                draw_commands(frame, pipeline, set, world, draws, range);
            }
        }
        if world.prop_count() > 0 {
            let set = frame.descriptor_set(self.prop_pipeline.set_layouts[0], &mesh.props)?;
            for (range, double_sided) in sided_runs(world, false) {
                let pipeline = if double_sided {
                    &self.double_sided_prop_pipeline
                } else {
                    &self.prop_pipeline
                };
                draw_commands(frame, pipeline, set, world, draws, range);
            }
        }
        Ok(())
    }

    /// The pipeline drawing units: skinned, or static when skinning is off;
    /// without back-face culling for types with double-sided materials.
    fn unit_pipeline(&self, options: &DrawOptions, double_sided: bool) -> &Pipeline {
        match (options.skinning, double_sided) {
            (true, false) => &self.unit_pipeline,
            (true, true) => &self.double_sided_unit_pipeline,
            (false, false) => &self.prop_pipeline,
            (false, true) => &self.double_sided_prop_pipeline,
        }
    }
}

/// What the mesh pipelines' vertex stages read of the world: the vertex and
/// index buffers, the tables, the unit and prop state.
pub fn mesh_vertex_uses(world: &World) -> Vec<BufferUse> {
    let b = &world.buffers;
    let mut declared = vec![
        uses(b.vertices.raw, Access::VertexInput),
        uses(b.indices.raw, Access::VertexInput),
        uses(b.prop_infos.buffer.raw, Access::VertexRead),
        uses(b.prop_placements.buffer.raw, Access::VertexRead),
    ];
    declared.extend(skinning_reads(world, Access::VertexRead));
    declared
}

/// What skinning a unit reads of the world, in the stage `access` says:
/// the type and clip tables, the unit's instance data, animation state and
/// marks (the mesh pipelines' vertex stages, the far field's rasterizer).
pub fn skinning_reads(world: &World, access: Access) -> [BufferUse; 6] {
    let b = &world.buffers;
    [
        uses(b.type_table.raw, access),
        uses(b.clip_table.raw, access),
        uses(b.unit_infos.buffer.raw, access),
        uses(b.unit_placements.buffer.raw, access),
        uses(b.anim_states.buffer.raw, access),
        uses(b.unit_marks.buffer.raw, access),
    ]
}

/// The mesh pipelines' bindings 0..=7 for the world's units and props.
fn mesh_descriptors(
    world: &World,
    target: &DrawTarget,
    (atlas_sampler, ground_sampler): (vk::Sampler, vk::Sampler),
) -> MeshDescriptors {
    let b = &world.buffers;
    let units = [
        Descriptor::Uniform(target.globals),
        Descriptor::Uniform(b.type_table.raw),
        Descriptor::Storage(b.unit_infos.buffer.raw),
        Descriptor::Storage(b.unit_placements.buffer.raw),
        Descriptor::Uniform(b.material_table.raw),
        Descriptor::Sampled(b.atlas.view, atlas_sampler),
        Descriptor::Storage(target.shadow_depths),
        Descriptor::Sampled(b.ground_texture.view, ground_sampler),
    ];
    let mut props = units;
    props[2] = Descriptor::Storage(b.prop_infos.buffer.raw);
    props[3] = Descriptor::Storage(b.prop_placements.buffer.raw);
    MeshDescriptors { units, props }
}

/// Begins the main render pass: reverse-Z depth cleared (far is 0; the
/// colour is the sky's to fill), full-target viewport and scissor.
fn begin_render_pass(frame: &Frame, target: &DrawTarget) {
    let depth = vk::ClearValue {
        depth_stencil: vk::ClearDepthStencilValue {
            depth: 0.0,
            stencil: 0,
        },
    };
    // Indexed by attachment: the target's image (not cleared), the depth
    // (`target.rs`).
    let clear = [vk::ClearValue::default(), depth];
    begin_pass(
        frame,
        (target.render_pass, target.framebuffer),
        target.extent,
        &clear,
    );
}

/// Begins `render_pass` on `framebuffer` (the whole of `extent`) with
/// `clear`, and sets the viewport and scissor to the whole target.
pub fn begin_pass(
    frame: &Frame,
    (render_pass, framebuffer): (vk::RenderPass, vk::Framebuffer),
    extent: vk::Extent2D,
    clear: &[vk::ClearValue],
) {
    let area = vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent,
    };
    let begin = vk::RenderPassBeginInfo::default()
        .render_pass(render_pass)
        .framebuffer(framebuffer)
        .render_area(area)
        .clear_values(clear);
    let viewport = vk::Viewport {
        x: 0.0,
        y: 0.0,
        width: extent.width as f32,
        height: extent.height as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    };
    let device = &frame.ctx.device;
    // SAFETY: the command buffer is recording outside a render pass; the
    // framebuffer matches the render pass.
    unsafe {
        device.cmd_begin_render_pass(frame.cmd, &begin, vk::SubpassContents::INLINE);
        device.cmd_set_viewport(frame.cmd, 0, &[viewport]);
        device.cmd_set_scissor(frame.cmd, 0, &[area]);
    }
}

/// The draw commands of the unit types (`units`) or the prop types, in runs
/// of consecutive types that agree on back-face culling, with whether the run
/// is double-sided.
fn sided_runs(world: &World, units: bool) -> Vec<(Range<u32>, bool)> {
    let types = if units {
        0..world.unit_type_count as usize
    } else {
        world.unit_type_count as usize..world.types.len()
    };
    let mut runs: Vec<(Range<u32>, bool)> = Vec::new();
    for type_index in types {
        let double_sided = world.types[type_index].double_sided;
        let first = type_index as u32 * MAX_ROUTES;
        match runs.last_mut() {
            Some((range, sided)) if *sided == double_sided => range.end = first + MAX_ROUTES,
            _ => runs.push((first..first + MAX_ROUTES, double_sided)),
        }
    }
    runs
}

/// Where indirect draws read their commands and instance lists.
#[derive(Clone, Copy)]
pub struct DrawnCommands<'a> {
    /// The commands (a draw lists' head, or the bounds view's commands).
    pub commands: &'a Buffer,
    /// The draw lists whose instance lists the commands name.
    pub lists: &'a Buffer,
}

/// Draws `commands` (whole types' commands) with `pipeline` and `set`, from
/// `source`.
pub fn draw_commands(
    frame: &Frame,
    pipeline: &Pipeline,
    set: vk::DescriptorSet,
    world: &World,
    source: DrawnCommands,
    commands: Range<u32>,
) {
    let lists = source.lists.raw;
    let command_buffer = source.commands;
    let vertices = world.buffers.vertices.raw;
    let device = &frame.ctx.device;
    let cmd = frame.cmd;
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
        if frame.ctx.limits.multi_draw_indirect {
            device.cmd_bind_vertex_buffers(cmd, 0, &[vertices, lists], &[0, DRAW_COMMANDS_BYTES]);
            device.cmd_draw_indexed_indirect(
                cmd,
                command_buffer.raw,
                u64::from(commands.start) * u64::from(COMMAND_STRIDE),
                commands.end - commands.start,
                COMMAND_STRIDE,
            );
        } else {
            for command in commands {
                let world_type = &world.types[(command / MAX_ROUTES) as usize];
                let route = (command % MAX_ROUTES) as usize;
                if route >= world_type.lods.len() {
                    continue;
                }
                let list_base = world_type.info.routes[route].list_base;
                let list_offset = DRAW_COMMANDS_BYTES + u64::from(list_base) * 4;
                device.cmd_bind_vertex_buffers(cmd, 0, &[vertices, lists], &[0, list_offset]);
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
