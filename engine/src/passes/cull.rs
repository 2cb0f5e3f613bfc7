//! The cull + LOD pass: frustum culling, LOD selection with hysteresis, and
//! the instance lists and indirect draw commands the draw pass consumes, all on
//! the GPU (`shaders/cull.comp`; CPU twin in [`crate::reference::cull`]).
//!
//! # Data layout
//! - `infos`: [`UnitInfo`] (16 B) per unit or prop; `type_index ==
//!   INACTIVE_TYPE` marks an empty slot. The pass reads `type_index` and
//!   `scale`.
//! - `placements`: [`UnitPlacement`] (16 B): position and heading.
//! - `routes`: one u32 per instance, owned by this pass: the route code it
//!   took last frame, for hysteresis: its LOD, plus `ROUTE_FAR_FIELD` when
//!   the far field drew it (the far field draws a LOD too); with occlusion
//!   culling, plus `ROUTE_VISIBLE` (below).
//! - `pyramid` (late phase): the depth pyramid's atlas, an R32F image
//!   holding every level (`passes/depth_pyramid.rs`): sampled, not a
//!   storage buffer, as the mobile tier allows a stage four of those. The late phase counts the instances it
//!   hid in the instance counts of two commands that are never drawn
//!   (`World::occluded_commands`, units' and props').
//! - Posed (the camera's cull on the desktop tier, `cull_posed.comp`):
//!   `anim_states` ([`AnimState`], 16 B per unit, the clips it plays) and
//!   `clip_spheres` (uniform `vec4[MAX_CLIPS]`, per entry of the clip
//!   table the model-space sphere that holds the clip,
//!   `horde_asset::clip_bounds`), for the occlusion test below. The
//!   animation state is a fifth storage buffer: the mobile tier's cull and
//!   the shadow cascades', which test no occlusion, bind neither.
//! - `types`: uniform `TypeInfo types[MAX_TYPES]`. Per type: the model-space
//!   bounding sphere, `lod_count`, and per route `routes[r]`: the LOD's
//!   simplification error (a fraction of the model size; 0 for LOD 0), its
//!   draw command, and its instance-list region (`list_base`, `capacity`; a
//!   capacity of 0 closes the route).
//! - `draw_lists`: [`DrawCommand`]s (20 B each, `MAX_DRAW_COMMANDS` of them)
//!   at the head, then the instance lists. Only `instance_count` changes;
//!   `template_commands` holds the same commands with `instance_count = 0`
//!   and is copied over the head at the start of the pass. List entries are
//!   `source index | route code << ENTRY_INDEX_BITS`, each region filled from its
//!   start; the draw reads them as a per-instance vertex attribute.
//! - [`CullGlobals`] (uniform, one host-visible buffer per frame slot): six
//!   inward frustum planes (the sixth is the far plane at the max draw
//!   distance), camera position, pixels per unit at distance 1, LOD
//!   threshold, hysteresis and the far-field size; for the occlusion test,
//!   the view matrix's rows, the projection's scales, the near distance and
//!   the depth image's and pyramid's sizes. The instance count, the phase
//!   and the batch's counter are push constants, so units and props, and
//!   both phases, share one `CullGlobals` per frame.
//!
//! 36 bytes per unit are read (info, placement, route), and the posed late
//! phase's occlusion test reads 16 more (the animation state); the route
//! is written only when it changes.
//!
//! # Algorithm (one thread per instance)
//! 1. World sphere: model centre × scale, rotated about +Y by the heading,
//!    plus the position; radius × scale.
//! 2. Frustum: visible when `dot(n, c) + w >= -r` for all six planes.
//! 3. Route. The projected size is `2r * pixels_per_unit / max(distance,
//!    MIN_LOD_DISTANCE)` pixels and the projected error of LOD `l` is
//!    `error[l]` × that size. The error is a fraction of the model's size
//!    (the bake's), so projecting it over the sphere's diameter, 2.7 times
//!    the generated knight's model size, makes the rule that much stricter
//!    than a pixel of geometric error: projected over the model's size the
//!    default demo's frames lost FLIP at every preset, even at a threshold
//!    of half a pixel, the far units' box proxies most
//!    (`benches/results/near_field/`, section 19). The LOD, with
//!    hysteresis against last frame's LOD `p` (clamped to the type's LOD
//!    count): while `p` fits the threshold it stays, unless a coarser LOD
//!    fits `threshold * (1 - hysteresis)`, which is then taken (the
//!    coarsest such); once `p` no longer fits, the coarsest LOD that fits
//!    the threshold is taken. Then the path: where the type has a far
//!    field and `far_field_px > 0`, an instance whose projected size is at
//!    most `far_field_px` goes to the far field, which draws that LOD
//!    (entering only below `far_field_px * (1 - hysteresis)`); the rest are
//!    drawn as meshes.
//!    Every comparison is squared, so only additions and multiplications
//!    decide and the CPU reference matches bit for bit.
//!    An orthographic view (`orthographic`, a shadow cascade's: `shadow.rs`)
//!    compares at distance 1, its `pixels_per_unit` being texels per metre;
//!    a mesh-drawn instance within `min_size_px` is not drawn (a caster too
//!    small to cast a visible shadow).
//! 4. The new route code is stored back; invisible instances keep theirs.
//! 5. Append, per workgroup: the lanes of a subgroup with the same command
//!    elect a leader, which adds their count to the workgroup's counter of
//!    that command in shared memory (a table of `CULL_GROUP_COMMANDS`
//!    counters, open-addressed by command). After a barrier, one invocation
//!    per counter does one `atomicAdd` on the command's `instance_count` for
//!    the whole workgroup; after another, each lane writes its entry at
//!    `list_base + the workgroup's first slot + its offset in the
//!    workgroup`. A command that finds the table full takes its subgroup's
//!    room from `instance_count` at once. Past the region's capacity (or the
//!    buffer's end) nothing is written and the count is clamped back with
//!    `atomicMin`, so it ends at `min(appended, capacity)`. Atomics on one
//!    address serialize in the L2, and most visible units share a few
//!    commands: one atomic per workgroup instead of one per subgroup took
//!    the pass from 0.059 to 0.042 ms at 1M units and from 0.105 to 0.071
//!    ms at 4M on an H100 (`benches/results/frame/same/cull/`). The table
//!    takes `4 * CULL_GROUP_COMMANDS` words of shared memory.
//!
//! # Occlusion culling: two phases (in the manner of zeux/niagara)
//! With `RenderSettings::occlusion` the frame culls twice, around a depth
//! pyramid (`passes/depth_pyramid.rs`); the `phase` push constant says
//! which ([`CullPhase`]; a shadow cascade culls [`CullPhase::All`]). The
//! top bit of a stored route code, `ROUTE_VISIBLE`, says the instance was
//! visible at the end of its last frame.
//! - **Early**: the instances in the frustum that were visible last frame
//!   are routed and appended as above and marked visible; the others are
//!   left alone. The far field rasterizes its units among them, and the
//!   draw pass draws the rest in the main pass's early part.
//! - The pyramid is built from that depth, the far field's over the
//!   raster's: each texel the farthest depth of its pixels.
//! - **Late**: the commands are reset and every other instance in the
//!   frustum is routed, then tested against the pyramid
//!   (`shaders/occlusion.glsl`: the sphere's screen rectangle, at the
//!   finest level where it spans at most 8 x 8 texels,
//!   `OCCLUSION_FOOTPRINT_TEXELS`; hidden when its nearest point lies
//!   behind all of them). The sphere tested is the type's, or, posed, the
//!   sphere of the clip the unit plays (around the previous clip's too
//!   while that fades out) where that is smaller: the type's holds every
//!   clip, 2.48 m around the generated 1.85 m knight, and from the ground
//!   it reaches over the ranks in front; the clips' are 1.23 to 1.73 m.
//!   An impostor keeps the type's (its frames may be a stand-in clip's).
//!   Routing, LODs and the frustum test keep the type's sphere, so the
//!   frame is the same image either way. Those not hidden are appended,
//!   marked visible and drawn in the late part, over the early one
//!   (far-field units by the far field's second run, into the same
//!   visibility buffer); the hidden are counted per batch (one atomic per
//!   subgroup) and keep their new route, so LOD hysteresis runs as
//!   without occlusion culling. An instance the early phase drew is
//!   tested too, only to decide whether it stays marked visible; one
//!   outside the frustum is unmarked.
//!
//! So nothing visible is ever missing: an instance is drawn in the early
//! phase or tested against depth that only holds what was drawn this frame
//! (the pyramid is conservative: a texel holds the farthest depth of its
//! footprint). What a camera cut reveals is drawn a phase late, not a frame
//! late.
//!
//! Barriers follow from the uses the pass declares: the reset copy, then each
//! dispatch (units, then props; they share the counters).

use std::mem::size_of;

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::barriers::{uses, Access};
use crate::config::{CULL_PHASE_ALL, CULL_PHASE_EARLY, CULL_PHASE_LATE, FRAMES_IN_FLIGHT};
use crate::context::{Context, Tier};
use crate::frame::{ComputePipeline, Frame};
use crate::frames::Descriptor;
#[cfg(doc)]
use crate::gpu_types::{AnimState, DrawCommand, UnitInfo, UnitPlacement};
use crate::gpu_types::{CullGlobals, TypeInfo, MAX_CLIPS, MAX_TYPES};
use crate::memory::{upload_image, Buffer, Image};
use crate::owned::Sampler;
use crate::passes::depth_pyramid;
use crate::reference::cull::MIN_LOD_DISTANCE;
use crate::sampler::create_sampler;
use crate::world::buffers::DRAW_COMMANDS_BYTES;
use crate::world::World;
use crate::{shaders, Error};

/// The cull pipeline and one `CullGlobals` uniform buffer per frame slot
/// and view.
pub struct CullPass {
    /// The pass's name in the frame list and the profiler.
    name: &'static str,
    pipeline: ComputePipeline,
    /// `[slot * views + view]`.
    globals: Vec<Buffer>,
    /// Views culled per frame: the camera's one, or one per shadow cascade.
    views: usize,
    /// Bound as the depth pyramid where a phase reads none: one texel.
    no_pyramid: Image,
    no_pyramid_sampler: Sampler,
    /// Whether the occlusion test takes each unit's sphere from the clips
    /// it plays (`cull_posed.comp`; module doc).
    posed: bool,
}

/// Which part of the frame's culling a dispatch does (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CullPhase {
    /// Every visible instance, with no occlusion test.
    All,
    /// Occlusion culling's first half: the instances visible last frame,
    /// and the far field's.
    Early,
    /// The second half: the rest, tested against the depth pyramid
    /// (`pyramid`: its atlas image and sampler,
    /// `DepthPyramidPass::atlas`), and whether each is still visible.
    Late {
        pyramid: (vk::ImageView, vk::Sampler),
    },
}

impl CullPhase {
    fn code(self) -> u32 {
        match self {
            CullPhase::All => CULL_PHASE_ALL,
            CullPhase::Early => CULL_PHASE_EARLY,
            CullPhase::Late { .. } => CULL_PHASE_LATE,
        }
    }
}

/// The cull's push constants.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct CullDispatch {
    instance_count: u32,
    phase: u32,
    /// The batch's [`CullBatch::occluded_command`].
    occluded_command: u32,
}

/// The buffers every dispatch of a frame shares.
#[derive(Clone, Copy)]
pub struct CullTargets<'a> {
    /// Uniform `TypeInfo[MAX_TYPES]`.
    pub types: &'a Buffer,
    /// The draw commands with `instance_count = 0` (TRANSFER_SRC).
    pub template_commands: &'a Buffer,
    /// The live draw commands, then the instance lists (STORAGE, INDIRECT,
    /// VERTEX, TRANSFER_DST).
    pub draw_lists: &'a Buffer,
    /// Uniform `vec4[MAX_CLIPS]`, the clips' spheres (read where the pass
    /// is posed).
    pub clip_spheres: &'a Buffer,
}

/// One dispatch: the first `count` instances of a set of buffers.
#[derive(Clone, Copy)]
pub struct CullBatch<'a> {
    pub infos: &'a Buffer,
    pub placements: &'a Buffer,
    pub routes: &'a Buffer,
    /// The units' animation states (read where the pass is posed; the
    /// props' batch names the units' too, and reads none: a prop type has
    /// no clips).
    pub anim_states: &'a Buffer,
    pub count: u32,
    /// The command whose instance count counts the instances the late
    /// phase hid (`World::occluded_commands`).
    pub occluded_command: u32,
}

impl CullTargets<'_> {
    /// The world's type table, command templates and draw lists.
    pub fn of(world: &World) -> CullTargets<'_> {
        CullTargets {
            types: &world.buffers.type_table,
            template_commands: &world.buffers.command_template,
            draw_lists: &world.buffers.draw_lists.buffer,
            clip_spheres: &world.buffers.clip_spheres,
        }
    }
}

impl CullBatch<'_> {
    /// The world's two dispatches: units, then props.
    pub fn of(world: &World) -> [CullBatch<'_>; 2] {
        let b = &world.buffers;
        [
            CullBatch {
                infos: &b.unit_infos.buffer,
                placements: &b.unit_placements.buffer,
                routes: &b.unit_routes.buffer,
                anim_states: &b.anim_states.buffer,
                count: world.unit_count(),
                occluded_command: world.occluded_commands()[0],
            },
            CullBatch {
                infos: &b.prop_infos.buffer,
                placements: &b.prop_placements.buffer,
                routes: &b.prop_routes.buffer,
                anim_states: &b.anim_states.buffer,
                count: world.prop_count(),
                occluded_command: world.occluded_commands()[1],
            },
        ]
    }
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
    /// The camera's cull: one view a frame, posed on the desktop tier
    /// (module doc).
    pub fn new(ctx: &Context) -> Result<CullPass, Error> {
        CullPass::create(ctx, "cull", 1, ctx.tier == Tier::Desktop)
    }

    /// A pass `name` that culls `views` views a frame (shadow cascades,
    /// which test no occlusion, so take no clip spheres).
    pub fn with_views(ctx: &Context, name: &'static str, views: usize) -> Result<CullPass, Error> {
        CullPass::create(ctx, name, views, false)
    }

    /// Creates the pipeline (workgroup size by tier; `posed`: the one with
    /// the clips' spheres) and the uniform buffers.
    fn create(
        ctx: &Context,
        name: &'static str,
        views: usize,
        posed: bool,
    ) -> Result<CullPass, Error> {
        check_subgroup_support(ctx)?;
        let storage = vk::DescriptorType::STORAGE_BUFFER;
        let uniform = vk::DescriptorType::UNIFORM_BUFFER;
        let mut bindings = vec![
            uniform,
            uniform,
            storage,
            storage,
            storage,
            storage,
            vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        ];
        let shader = if posed {
            bindings.extend([storage, uniform]);
            &shaders::CULL_POSED_COMP
        } else {
            &shaders::CULL_COMP
        };
        let pipeline = ComputePipeline::new(
            ctx,
            "cull",
            shader,
            &bindings,
            &[ctx.unit_workgroup_size(), MIN_LOD_DISTANCE.to_bits()],
        )?;
        let no_pyramid = upload_image(
            ctx,
            &format!("{name} placeholder depth pyramid"),
            vk::Extent2D {
                width: 1,
                height: 1,
            },
            vk::Format::R32_SFLOAT,
            &0f32.to_le_bytes(),
        )?;
        let no_pyramid_sampler = create_sampler(
            ctx,
            vk::Filter::NEAREST,
            &format!("{name} placeholder depth pyramid sampler"),
        )?;
        let mut pass = CullPass {
            name,
            pipeline,
            globals: Vec::new(),
            views,
            no_pyramid,
            no_pyramid_sampler,
            posed,
        };
        for slot in 0..FRAMES_IN_FLIGHT {
            for view in 0..views {
                pass.globals.push(Buffer::new(
                    ctx,
                    &format!("{name} globals {slot}.{view}"),
                    size_of::<CullGlobals>() as u64,
                    vk::BufferUsageFlags::UNIFORM_BUFFER,
                    MemoryLocation::CpuToGpu,
                )?);
            }
        }
        Ok(pass)
    }

    /// Records the command reset and one dispatch per batch, in order, of
    /// the camera's view, for `phase`.
    pub fn record(
        &mut self,
        frame: &mut Frame,
        globals: &CullGlobals,
        targets: &CullTargets,
        batches: &[CullBatch],
        phase: CullPhase,
    ) -> Result<(), Error> {
        self.record_view(frame, (0, phase), globals, targets, batches)
    }

    /// As [`CullPass::record`], for view `view` of the pass's views.
    pub fn record_view(
        &mut self,
        frame: &mut Frame,
        (view, phase): (usize, CullPhase),
        globals: &CullGlobals,
        targets: &CullTargets,
        batches: &[CullBatch],
    ) -> Result<(), Error> {
        check_targets(targets, self.posed)?;
        for batch in batches {
            check_batch(batch)?;
        }
        let index = frame.slot * self.views + view;
        let uniform = self
            .globals
            .get_mut(index)
            .filter(|_| view < self.views)
            .ok_or_else(|| {
                Error::Config(format!(
                    "{}: frame slot {} view {view} out of range",
                    self.name, frame.slot
                ))
            })?;
        uniform.write(0, std::slice::from_ref(globals))?;
        let uniform = uniform.raw;
        let pipeline = &self.pipeline;
        let posed = self.posed;
        let (pyramid, pyramid_sampler) = match phase {
            CullPhase::Late { pyramid } => pyramid,
            CullPhase::All | CullPhase::Early => (self.no_pyramid.view, *self.no_pyramid_sampler),
        };
        let name = match phase {
            CullPhase::Late { .. } => "cull late",
            CullPhase::All | CullPhase::Early => self.name,
        };
        frame.pass(name, |frame| {
            frame.uses(&[
                uses(targets.template_commands.raw, Access::TransferRead),
                uses(targets.draw_lists.raw, Access::TransferWrite),
            ]);
            let reset = vk::BufferCopy::default().size(targets.template_commands.size);
            // SAFETY: the sizes were checked above; both buffers outlive the frame.
            unsafe {
                frame.ctx.device.cmd_copy_buffer(
                    frame.cmd,
                    targets.template_commands.raw,
                    targets.draw_lists.raw,
                    &[reset],
                )
            };
            for batch in batches {
                frame.uses(&[
                    uses(targets.types.raw, Access::ComputeRead),
                    uses(batch.infos.raw, Access::ComputeRead),
                    uses(batch.placements.raw, Access::ComputeRead),
                    uses(batch.routes.raw, Access::ComputeWrite),
                    uses(targets.draw_lists.raw, Access::ComputeWrite),
                ]);
                if posed {
                    frame.uses(&[
                        uses(targets.clip_spheres.raw, Access::ComputeRead),
                        uses(batch.anim_states.raw, Access::ComputeRead),
                    ]);
                }
                let push = CullDispatch {
                    instance_count: batch.count,
                    phase: phase.code(),
                    occluded_command: batch.occluded_command,
                };
                let mut descriptors = vec![
                    Descriptor::Uniform(uniform),
                    Descriptor::Uniform(targets.types.raw),
                    Descriptor::Storage(batch.infos.raw),
                    Descriptor::Storage(batch.placements.raw),
                    Descriptor::Storage(batch.routes.raw),
                    Descriptor::Storage(targets.draw_lists.raw),
                    Descriptor::Sampled(pyramid, pyramid_sampler),
                ];
                if posed {
                    descriptors.extend([
                        Descriptor::Storage(batch.anim_states.raw),
                        Descriptor::Uniform(targets.clip_spheres.raw),
                    ]);
                }
                frame.dispatch(
                    pipeline,
                    &descriptors,
                    bytemuck::bytes_of(&push),
                    batch.count,
                )?;
            }
            Ok(())
        })
    }
}

fn check_targets(targets: &CullTargets, posed: bool) -> Result<(), Error> {
    let tables = [
        (targets.types, (MAX_TYPES * size_of::<TypeInfo>()) as u64),
        (
            targets.clip_spheres,
            (MAX_CLIPS * size_of::<[f32; 4]>()) as u64,
        ),
    ];
    // Only the posed cull reads the clips' spheres.
    let read = if posed { &tables[..] } else { &tables[..1] };
    for &(table, size) in read {
        if table.size < size {
            return Err(Error::Config(format!(
                "cull: table '{}' has {} bytes, the shader reads {size}",
                table.name, table.size
            )));
        }
    }
    if targets.template_commands.size > DRAW_COMMANDS_BYTES
        || targets.draw_lists.size < DRAW_COMMANDS_BYTES
    {
        return Err(Error::Config(format!(
            "cull: template commands '{}' ({} bytes) must fit the {DRAW_COMMANDS_BYTES}-byte \
             head of the draw lists '{}' ({} bytes)",
            targets.template_commands.name,
            targets.template_commands.size,
            targets.draw_lists.name,
            targets.draw_lists.size
        )));
    }
    Ok(())
}

fn check_batch(batch: &CullBatch) -> Result<(), Error> {
    let count = u64::from(batch.count);
    for (buffer, stride) in [
        (batch.infos, 16u64),
        (batch.placements, 16),
        (batch.routes, 4),
    ] {
        if count * stride > buffer.size {
            return Err(Error::Config(format!(
                "cull: {count} instances need {} bytes but '{}' has {}",
                count * stride,
                buffer.name,
                buffer.size
            )));
        }
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
    let view = camera.view();
    let projection = camera.projection(aspect);
    CullGlobals {
        planes,
        camera_position: camera.position.to_array(),
        pixels_per_unit,
        lod_threshold_px: lod_threshold_px / lod_bias.max(f32::MIN_POSITIVE),
        lod_hysteresis: hysteresis.clamp(0.0, 1.0),
        max_draw_distance: max_distance,
        far_field_px: 0.0,
        impostor_threshold_px: 0.0,
        impostor_band: 0.0,
        orthographic: 0,
        min_size_px: 0.0,
        view_rows: [0, 1, 2].map(|i| view.row(i).to_array()),
        projection_scale: [projection.x_axis.x, projection.y_axis.y],
        near: camera.near,
        ..CullGlobals::default()
    }
}

/// Sets the size of the depth image (`extent`) and of its depth pyramid,
/// which the late phase's occlusion test reads.
pub fn set_occlusion_target(globals: &mut CullGlobals, extent: vk::Extent2D) {
    globals.viewport = [extent.width, extent.height];
    globals.pyramid_size = depth_pyramid::base_size(extent);
}
