//! The sun's shadows: cascaded shadow maps whose casters the GPU culls per
//! cascade from the same unit data, drawn at a LOD chosen for the cascade,
//! with the far field's compute rasterizer drawing the units a few texels
//! tall depth only. The cascades are fitted on the CPU (`shadow.rs`); the
//! receivers look them up in `shaders/shadow.glsl`.
//!
//! # Data layout
//! - The receivers' depths (`ShadowDepths`, a storage buffer): cascade
//!   after cascade, row after row ([`shadow_map_size`] texels a side: 2048
//!   on the desktop tier with three cascades, 1024 on the mobile tier with
//!   one; a quarter of that on a CPU rasterizer), the float bits of the
//!   nearest caster's reverse-Z depth (0 where nothing casts, nearer the
//!   sun is larger), raster and far field together. The receivers filter
//!   it in the shader (`shadow.glsl`: bilinear percentage-closer taps, what
//!   a comparison sampler's linear filter does), so the far field's depths
//!   join the raster's without a full-map draw. It exists with shadows off
//!   too (the receivers' pipelines bind it; `shadow_cascade_count` 0 reads
//!   nothing).
//! - Mobile tier only: the mesh casters' depth, one `D32_SFLOAT` 2D array
//!   image, a layer per cascade, cleared to 0, left in
//!   `SHADER_READ_ONLY_OPTIMAL` for the merge (`CasterDepths` says why
//!   the desktop tier has none).
//! - Per cascade: a draw-lists buffer in the layout of the world's (command
//!   head, then every (type, route) region, `passes/cull.rs`), the routes of
//!   its units and props (the cull's hysteresis, per cascade), its
//!   `FrameGlobals` per frame slot (the cascade's matrix as `view_proj`,
//!   which `unit.vert`, `mesh.vert` and `far_field.comp` project with), and
//!   where the far field runs its visibility buffer (`u64` per texel, as
//!   the far field's: depth bits << 32, payload 0).
//!
//! # Algorithm (the frame's `shadow cull`, `shadow splat`, `shadow far
//! field`, `shadow seed` and `shadow draw` passes on the desktop tier;
//! `shadow cull`, `shadow draw` and `shadow merge` on the mobile tier)
//! 0. Turns (`turns.rs`): cascade 0 is drawn every frame, the farther ones
//!    one a frame in turn; the steps below run for the drawn cascades, and
//!    a kept one's depths stay as its last frame drew them.
//! 1. Cull: `cull.comp` once per cascade with the cascade's box as the
//!    frustum, `orthographic` set (a unit's size is its diameter in texels),
//!    the LOD threshold in texels (`SHADOW_LOD_THRESHOLD_TEXELS`) and the
//!    far field's size in texels (`SHADOW_FAR_FIELD_TEXELS`): the same rule,
//!    the same code, the same CPU twin as the camera's cull.
//! 2. Splat (desktop tier, `splat.rs`): the cascade's visibility buffer
//!    cleared, then every far caster spanning at most
//!    `SHADOW_SPLAT_TEXELS` writes the line from its feet to its top, one
//!    thread a unit, and is struck out of the far-field list. At the 1M
//!    overview most far casters are this small: skinning them cost 5.6 ms a
//!    cascade on an H100, splatting them 0.05 ms.
//! 3. Far field (desktop tier, `RenderSettings::shadow_far_field`, whether
//!    or not the camera's far field is on): `far_field.comp` with
//!    `DEPTH_ONLY` set, once per cascade, into the same buffer: every other
//!    far caster skinned at its cascade LOD (at the type's coarsest LOD,
//!    one still pose for all), both faces, no shading. A caster it cannot
//!    take (crossing the box's sunward face) joins its LOD's mesh list.
//! 4. Seed (desktop tier, `shadow_seed.comp`): each texel of the receivers'
//!    buffer set to the far field's depth (0 without the far field).
//! 5. Draw (`casters.rs`), per cascade, a render pass: the mesh casters
//!    with the camera's indirect draws (`draw_commands`), no back-face
//!    culling (open meshes, capes and banners, cast from both sides). On the
//!    desktop tier it has no attachment, and each fragment raises its
//!    texel of the receivers' buffer with an atomic max
//!    (`shadow_caster.frag`: the depth test and write in one); on the mobile
//!    tier it draws depth only into the cascade's layer. The ground casts
//!    nothing (the scene's `ground_prop_types`).
//! 6. Merge (mobile tier, `shadow_merge.comp`): each layer's depths into the
//!    receivers' buffer.
//!
//! The receivers bias their lookup (normal offset and depth bias of about a
//! texel, `shadow.rs`), so casters need no depth bias, and the far field's
//! depths and the raster's agree.
//!
//! # Barriers
//! Buffers through the declared uses (the desktop tier's draw writes the
//! receivers' buffer from fragment shaders). The mobile tier's depth image
//! through its render pass: its incoming dependency waits for the last
//! frame's merge before the clear; its outgoing one makes the depth writes
//! visible to the merge.

use std::ops::Range;

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::barriers::{uses, Access};
use crate::config::{FRAMES_IN_FLIGHT, MAX_SHADOW_CASCADES, ROUTE_FAR_FIELD};
use crate::context::{Context, Tier};
use crate::frame::{ComputePipeline, Frame};
use crate::frames::Descriptor;
use crate::gpu_types::FrameGlobals;
use crate::memory::{read_buffers, Buffer};
use crate::owned::{RenderPass, Sampler};
use crate::passes::cull::{CullBatch, CullPass, CullPhase, CullTargets};
use crate::passes::draw::set_layout;
use crate::passes::far_field::{CasterTarget, FarFieldPass};
use crate::pipeline::{depth_pipeline, GraphicsDesc, LayoutDesc, PassTarget, Pipeline};
use crate::sampler::{create_bone_sampler, create_sampler};
use crate::shadow::{
    cascade_cull, fit_cascades, Cascade, ShadowView, SHADOW_SPLAT_TEXELS, SHADOW_SPLAT_WIDTH,
};
use crate::world::buffers::DRAW_COMMANDS_BYTES;
use crate::world::World;
use crate::{shaders, Error};

mod casters;
mod depths;
mod splat;
mod turns;
use casters::{layered_depths, prop_casters, shadow_render_pass, CASTER_PUSH_BYTES};
use depths::CasterDepths;
pub use splat::{record_splats, splat_pipeline, SplatInputs, SplatPush};
pub use turns::CascadePlan;
use turns::CascadeTurns;

/// The map's format: depth, sampled with comparison.
pub const SHADOW_FORMAT: vk::Format = vk::Format::D32_SFLOAT;

/// Texels along a side of a cascade's map: by tier, and a quarter on a
/// device that rasterizes on the CPU (lavapipe fills a 2048² map in about
/// half a second).
pub fn shadow_map_size(ctx: &Context) -> u32 {
    let size = match ctx.tier {
        Tier::Desktop => 2048,
        Tier::Mobile => 1024,
    };
    if ctx.software_rasterizer {
        size / 4
    } else {
        size
    }
}

/// Cascades drawn, by tier: the mobile tier draws one near the camera.
pub fn shadow_cascades(tier: Tier) -> u32 {
    match tier {
        Tier::Desktop => MAX_SHADOW_CASCADES,
        Tier::Mobile => 1,
    }
}

/// The timestamp scope of each cascade's render pass.
const CASCADE_SCOPES: [&str; MAX_SHADOW_CASCADES as usize] = [
    "shadow draw: cascade 0",
    "shadow draw: cascade 1",
    "shadow draw: cascade 2",
];
/// The timestamp scope of each cascade's splat and far-field passes.
const SPLAT_SCOPES: [&str; MAX_SHADOW_CASCADES as usize] = [
    "shadow splat: cascade 0",
    "shadow splat: cascade 1",
    "shadow splat: cascade 2",
];
const FAR_FIELD_SCOPES: [&str; MAX_SHADOW_CASCADES as usize] = [
    "shadow far field: cascade 0",
    "shadow far field: cascade 1",
    "shadow far field: cascade 2",
];

/// One cascade's buffers, sized for the world as it grows.
struct CascadeBuffers {
    lists: Option<Buffer>,
    unit_routes: Option<Buffer>,
    prop_routes: Option<Buffer>,
    /// The far field's depths (desktop tier).
    visibility: Option<Buffer>,
    /// `FrameGlobals` of the cascade's view, per frame slot.
    globals: Vec<Buffer>,
}

/// The shadow maps, their passes and their cascades' buffers. Fields drop
/// in declaration order: framebuffers and views before the image.
pub struct ShadowPass {
    cascades: Vec<CascadeBuffers>,
    caster_depths: CasterDepths,
    /// What the receivers read: every cascade's depths, merged.
    pub depths: Buffer,
    /// Bound as the far field's visibility where there is none.
    no_far_field: Buffer,
    render_pass: RenderPass,
    unit_pipeline: Pipeline,
    prop_pipeline: Pipeline,
    /// The smallest far casters' lines (desktop tier).
    splat: Option<ComputePipeline>,
    cull: CullPass,
    atlas_sampler: Sampler,
    bone_sampler: Sampler,
    /// The prop commands that cast: every prop type's but the ground's,
    /// in runs of consecutive types.
    prop_casters: Vec<Range<u32>>,
    /// Which cascades the receivers' depths hold, and whose turn it is:
    /// each frame's [`CascadePlan`] of the cascades [`ShadowPass::cascades`]
    /// fits.
    pub(crate) turns: CascadeTurns,
    /// Texels along a side.
    pub map_size: u32,
    /// Cascades this tier draws.
    pub cascade_count: u32,
}

impl ShadowPass {
    /// Creates the maps, their render pass and pipelines, for the world's
    /// bone encoding; `ground_prop_types` (the scene's) cast no shadow.
    pub fn new(
        ctx: &Context,
        world: &World,
        ground_prop_types: &[u32],
    ) -> Result<ShadowPass, Error> {
        let map_size = shadow_map_size(ctx);
        let cascade_count = shadow_cascades(ctx.tier);
        log::info!(
            "shadows: {cascade_count} cascade(s) of {map_size}² texels ({} tier{}{})",
            ctx.tier.name(),
            if ctx.far_field_supported {
                ", far casters by the far field's compute rasterizer"
            } else {
                ", every caster a mesh"
            },
            if ctx.software_rasterizer {
                ", a quarter size on a CPU rasterizer"
            } else {
                ""
            }
        );
        let extent = vk::Extent2D {
            width: map_size,
            height: map_size,
        };
        let texels = u64::from(map_size).pow(2);
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        // Read back by the tests (`read_depths`).
        let depths = Buffer::new(
            ctx,
            "shadow depths",
            u64::from(cascade_count) * texels * 4,
            storage | vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::GpuOnly,
        )?;
        let no_far_field = Buffer::new(
            ctx,
            "shadow without far field",
            8,
            storage,
            MemoryLocation::GpuOnly,
        )?;
        let atomic = ctx.tier == Tier::Desktop;
        let render_pass = shadow_render_pass(ctx, atomic)?;
        let caster_depths = if atomic {
            CasterDepths::Atomic {
                seed: ComputePipeline::new(
                    ctx,
                    "shadow seed",
                    &shaders::SHADOW_SEED_COMP,
                    &[vk::DescriptorType::STORAGE_BUFFER; 2],
                    &[ctx.unit_workgroup_size()],
                )?,
                framebuffer: crate::target::framebuffer(
                    ctx,
                    *render_pass,
                    &[],
                    extent,
                    "shadow cascades",
                )?,
            }
        } else {
            layered_depths(ctx, *render_pass, extent, cascade_count)?
        };
        let target = PassTarget {
            render_pass: *render_pass,
            samples: vk::SampleCountFlags::TYPE_1,
        };
        let casters = GraphicsDesc {
            vertex_bindings: &crate::gpu_types::mesh_vertex_bindings(),
            vertex_attributes: &crate::gpu_types::mesh_vertex_attributes(),
            target,
            cull_mode: vk::CullModeFlags::NONE,
            depth_compare: vk::CompareOp::GREATER,
            depth_write: true,
            alpha_blend: false,
        };
        let constants = [
            world.encoding.shader_constant(),
            0,
            world.bone_shape.shader_constant(),
            0,
        ];
        let (fragment, push_constant_size) = if atomic {
            (Some(&shaders::SHADOW_CASTER_FRAG), CASTER_PUSH_BYTES)
        } else {
            (None, 0)
        };
        let mesh_layout = |skinned| set_layout(skinned);
        let unit_set = mesh_layout(true);
        let prop_set = mesh_layout(false);
        let unit_pipeline = depth_pipeline(
            ctx,
            "shadow units",
            (&shaders::UNIT_VERT, fragment),
            &LayoutDesc {
                sets: &[&unit_set],
                push_constant_size,
            },
            &casters,
            &constants,
        )?;
        let prop_pipeline = depth_pipeline(
            ctx,
            "shadow props",
            (&shaders::MESH_VERT, fragment),
            &LayoutDesc {
                sets: &[&prop_set],
                push_constant_size,
            },
            &casters,
            &constants,
        )?;
        let splat = if ctx.far_field_supported {
            Some(splat_pipeline(ctx)?)
        } else {
            None
        };
        let cascades = (0..cascade_count)
            .map(|cascade| {
                let globals = (0..FRAMES_IN_FLIGHT)
                    .map(|slot| {
                        Buffer::new(
                            ctx,
                            &format!("shadow cascade {cascade} globals {slot}"),
                            std::mem::size_of::<FrameGlobals>() as u64,
                            vk::BufferUsageFlags::UNIFORM_BUFFER,
                            MemoryLocation::CpuToGpu,
                        )
                    })
                    .collect::<Result<Vec<_>, Error>>()?;
                Ok(CascadeBuffers {
                    lists: None,
                    unit_routes: None,
                    prop_routes: None,
                    visibility: None,
                    globals,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(ShadowPass {
            cascades,
            caster_depths,
            depths,
            no_far_field,
            render_pass,
            unit_pipeline,
            prop_pipeline,
            splat,
            cull: CullPass::with_views(ctx, "shadow cull", cascade_count as usize)?,
            atlas_sampler: create_sampler(ctx, vk::Filter::LINEAR, "shadow atlas sampler")?,
            bone_sampler: create_bone_sampler(ctx)?,
            prop_casters: prop_casters(world, ground_prop_types),
            turns: CascadeTurns::default(),
            map_size,
            cascade_count,
        })
    }

    /// The merged depths, as the receivers bind them.
    pub fn depths_descriptor(&self) -> Descriptor {
        Descriptor::Storage(self.depths.raw)
    }

    /// The merged depths of the last frame, cascade after cascade, row
    /// after row (reverse-Z: 0 where nothing casts). Waits for the GPU: for
    /// tests, never per frame.
    pub fn read_depths(&self, ctx: &Context) -> Result<Vec<f32>, Error> {
        let texels = u64::from(self.cascade_count) * u64::from(self.map_size).pow(2);
        let [bytes] = read_buffers(ctx, [(&self.depths, texels * 4)])?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    /// The cascades of `view` this pass draws: at most this tier's count,
    /// at this tier's map size.
    pub fn cascades(&self, view: &ShadowView) -> Vec<Cascade> {
        fit_cascades(&ShadowView {
            cascade_count: view.cascade_count.min(self.cascade_count),
            map_size: self.map_size,
            ..*view
        })
    }

    /// Culls the casters of the cascades `plan` draws (the `turns`' plan
    /// for `view`), rasterizes the far ones with
    /// `far_field` where given, and draws the others, all into the
    /// receivers' depths. All of it is timed as the scope `shadows`.
    pub fn record(
        &mut self,
        frame: &mut Frame,
        world: &World,
        view: (&ShadowView, &CascadePlan),
        lod_threshold_texels: f32,
        far_field: Option<&FarFieldPass>,
    ) -> Result<(), Error> {
        frame.timed("shadows", |frame| {
            self.record_cascades(frame, world, view, lod_threshold_texels, far_field)
        })
    }

    fn record_cascades(
        &mut self,
        frame: &mut Frame,
        world: &World,
        (view, plan): (&ShadowView, &CascadePlan),
        lod_threshold_texels: f32,
        far_field: Option<&FarFieldPass>,
    ) -> Result<(), Error> {
        let count = self.cascades.len();
        let draws: Vec<(usize, &Cascade)> =
            plan.draws().filter(|(index, _)| *index < count).collect();
        let drawn: Vec<usize> = draws.iter().map(|(index, _)| *index).collect();
        if draws.is_empty() || world.unit_count() + world.prop_count() == 0 {
            return Ok(());
        }
        let mut new_routes = Vec::new();
        for &(index, cascade) in &draws {
            let globals = FrameGlobals {
                view_proj: cascade.view_proj.to_cols_array_2d(),
                camera_position: view.camera.position.to_array(),
                light_direction: view.sun_direction.normalize_or(glam::Vec3::Y).to_array(),
                ..FrameGlobals::default()
            };
            self.cascades[index].globals[frame.slot].write(0, &[globals])?;
            self.ensure_buffers(frame, world, (index, far_field.is_some()), &mut new_routes)?;
        }
        ShadowPass::clear_routes(frame, &new_routes)?;
        for &(index, cascade) in &draws {
            let buffers = &self.cascades[index];
            let (Some(lists), Some(unit_routes), Some(prop_routes)) =
                (&buffers.lists, &buffers.unit_routes, &buffers.prop_routes)
            else {
                continue;
            };
            let b = &world.buffers;
            let targets = CullTargets {
                types: &b.type_table,
                template_commands: &b.command_template,
                draw_lists: lists,
                clip_spheres: &b.clip_spheres,
            };
            let batches = [
                CullBatch {
                    infos: &b.unit_infos.buffer,
                    placements: &b.unit_placements.buffer,
                    routes: unit_routes,
                    anim_states: &b.anim_states.buffer,
                    count: world.unit_count(),
                    occluded_command: world.occluded_commands()[0],
                },
                CullBatch {
                    infos: &b.prop_infos.buffer,
                    placements: &b.prop_placements.buffer,
                    routes: prop_routes,
                    anim_states: &b.anim_states.buffer,
                    count: world.prop_count(),
                    occluded_command: world.occluded_commands()[1],
                },
            ];
            let globals = cascade_cull(cascade, lod_threshold_texels, far_field.is_some());
            self.cull
                .record_view(frame, (index, CullPhase::All), &globals, &targets, &batches)?;
        }
        if let (Some(far_field), Some(splat)) = (far_field, &self.splat) {
            for &(index, cascade) in &draws {
                let buffers = &self.cascades[index];
                frame.timed(SPLAT_SCOPES[index], |frame| {
                    self.splat_casters(frame, world, splat, buffers, cascade)
                })?;
            }
            for &index in &drawn {
                let buffers = &self.cascades[index];
                let (Some(lists), Some(visibility)) = (&buffers.lists, &buffers.visibility) else {
                    continue;
                };
                let target = CasterTarget {
                    globals: buffers.globals[frame.slot].raw,
                    lists,
                    visibility: visibility.raw,
                    size: self.map_size,
                    shadow_depths: self.depths.raw,
                };
                frame.timed(FAR_FIELD_SCOPES[index], |frame| {
                    far_field.record_casters(frame, world, &target)
                })?;
            }
        }
        match &self.caster_depths {
            CasterDepths::Atomic { seed, .. } => {
                self.seed(frame, seed, &drawn, far_field.is_some())?;
                self.draw(frame, world, &drawn)
            }
            CasterDepths::Layers {
                image,
                sampler,
                merge,
                ..
            } => {
                self.draw(frame, world, &drawn)?;
                self.merge(frame, merge, (image, sampler), &drawn)
            }
        }
    }

    /// The `shadow splat` pass of one cascade ([`record_splats`]).
    fn splat_casters(
        &self,
        frame: &mut Frame,
        world: &World,
        splat: &ComputePipeline,
        buffers: &CascadeBuffers,
        cascade: &Cascade,
    ) -> Result<(), Error> {
        let (Some(lists), Some(visibility)) = (&buffers.lists, &buffers.visibility) else {
            return Ok(());
        };
        let b = &world.buffers;
        let inputs = SplatInputs {
            globals: buffers.globals[frame.slot].raw,
            types: b.type_table.raw,
            infos: b.unit_infos.buffer.raw,
            placements: b.unit_placements.buffer.raw,
            lists: lists.raw,
            visibility: visibility.raw,
        };
        let far_capacity: u32 = world.types[..world.unit_type_count as usize]
            .iter()
            .map(|t| t.info.routes[ROUTE_FAR_FIELD as usize].capacity)
            .sum();
        let push = SplatPush {
            size: self.map_size,
            unit_type_count: world.unit_type_count,
            splat_texels: SHADOW_SPLAT_TEXELS,
            width_per_span: SHADOW_SPLAT_WIDTH,
            texels_per_metre: self.map_size as f32 / (2.0 * cascade.half_width),
        };
        record_splats(frame, splat, &inputs, &push, far_capacity)
    }

    /// Sizes cascade `index`'s lists and routes for the world (and its
    /// visibility buffer where `far_field`); the route buffers it creates
    /// join `new_routes`.
    fn ensure_buffers(
        &mut self,
        frame: &mut Frame,
        world: &World,
        (index, far_field): (usize, bool),
        new_routes: &mut Vec<vk::Buffer>,
    ) -> Result<(), Error> {
        let b = &world.buffers;
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST;
        let lists_usage =
            storage | vk::BufferUsageFlags::INDIRECT_BUFFER | vk::BufferUsageFlags::VERTEX_BUFFER;
        let lists_bytes = DRAW_COMMANDS_BYTES + u64::from(world.needed().list_entries) * 4;
        let texels = u64::from(self.map_size).pow(2);
        let wanted = [
            (lists_bytes, lists_usage, "lists"),
            (b.unit_routes.buffer.size, storage, "unit routes"),
            (b.prop_routes.buffer.size, storage, "prop routes"),
            (if far_field { texels * 8 } else { 0 }, storage, "far field"),
        ];
        let buffers = &mut self.cascades[index];
        let slots = [
            &mut buffers.lists,
            &mut buffers.unit_routes,
            &mut buffers.prop_routes,
            &mut buffers.visibility,
        ];
        for (slot, (bytes, usage, what)) in slots.into_iter().zip(wanted) {
            if bytes == 0 || slot.as_ref().is_some_and(|buffer| buffer.size == bytes) {
                continue;
            }
            if let Some(old) = slot.take() {
                frame.retire_replaced(old);
            }
            let name = format!("shadow cascade {index} {what}");
            let buffer = Buffer::new(frame.ctx, &name, bytes, usage, MemoryLocation::GpuOnly)?;
            if what.ends_with("routes") {
                new_routes.push(buffer.raw);
            }
            *slot = Some(buffer);
        }
        Ok(())
    }

    /// The `shadow buffers` pass, on frames that created route buffers:
    /// each filled with 0 (LOD 0, as the world's units spawn).
    fn clear_routes(frame: &mut Frame, new_routes: &[vk::Buffer]) -> Result<(), Error> {
        if new_routes.is_empty() {
            return Ok(());
        }
        frame.pass("shadow buffers", |frame| {
            let declared: Vec<_> = new_routes
                .iter()
                .map(|&buffer| uses(buffer, Access::TransferWrite))
                .collect();
            frame.uses(&declared);
            for &buffer in new_routes {
                // SAFETY: the buffer lives until the frames using it complete.
                unsafe {
                    frame
                        .ctx
                        .device
                        .cmd_fill_buffer(frame.cmd, buffer, 0, vk::WHOLE_SIZE, 0)
                };
            }
            Ok(())
        })
    }
}
