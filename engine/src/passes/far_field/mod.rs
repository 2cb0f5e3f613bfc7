//! The far field: units from a few pixels up to mid-size (about 100 px)
//! skinned and rasterized by a compute shader into a 64-bit visibility
//! buffer (`shaders/far_field.comp`, its chunks of units in
//! `far_field_items.glsl`, rasterizer in `far_field_raster.glsl`, CPU twin in
//! [`crate::reference::far_field`]), then resolved into the colour target
//! against the raster's depth (`full_screen.vert`, `far_field_resolve.frag`).
//!
//! Why: the raster pipeline skins about 0.5 G vertices/s on an H100, a
//! compute shader about 55-60 G points/s (DESIGN.md, "What the hardware
//! allows"). A unit that covers a few pixels needs no triangle setup
//! hardware.
//!
//! # Data layout
//! - Input: the far-field route's instance list of each unit type, which the
//!   cull pass filled (region `types[t].routes[ROUTE_FAR_FIELD]`, count in
//!   that route's draw command, whose `index_count` stays 0 so the raster
//!   never draws it). Entries are `unit | (ROUTE_FAR_FIELD + lod) <<
//!   ENTRY_INDEX_BITS`: the cull picks each far unit's LOD by the rule it
//!   applies to meshes (projected error within the LOD threshold, with
//!   hysteresis), so a unit shows the same LOD on both sides of the
//!   transition, and the many units a few pixels tall draw the coarsest.
//! - `FarMeshes`: uniform [`FarFieldMesh`](crate::gpu_types::FarFieldMesh)
//!   per (type, LOD), `[type * MAX_LODS + lod]`, written once: what the far
//!   field draws for that LOD ([`meshes`] has the table).
//! - The visibility buffer: one `u64` per sample, row by row over the
//!   sample grid (the target's size × `samples_per_axis` along each axis:
//!   2 with `RenderSettings::far_field_supersampling`, else 1),
//!   `reverse-Z depth as f32 bits << 32 | colour`. Positive floats order as
//!   their bits, so `atomicMax` keeps the nearest (reverse-Z: nearer is
//!   larger). The payload is the triangle's colour, already lit: 10 bits per
//!   channel of sqrt(linear colour) (`far_pack_color` in `common.glsl`).
//!   The resolve then needs nothing but the buffer. Cleared to 0 (nothing)
//!   by `vkCmdFillBuffer` every frame, re-created when the target's size or
//!   the sample grid changes (the old one goes to the deferred-release
//!   queue).
//!
//! # Algorithm and organisation
//! Workgroups of `FAR_FIELD_WORKGROUP_SIZE` (256) threads over a fixed grid
//! of at most `MAX_GROUPS` that loops over all far-field units of all unit
//! types, `FAR_FIELD_BATCH_UNITS` (8) at a time (a prefix over the types'
//! counts in shared memory maps the flat index to a type and slot); no
//! indirect dispatch is needed and idle groups exit after one read. The
//! lanes first read the 8 entries and their meshes together into shared
//! memory, and a chunk of struck-out entries only (a shadow cascade's
//! splatted casters, `passes/shadow/`) is skipped; otherwise lane 0
//! gathers those units into batches whose vertices fit shared memory,
//! reading nothing but shared memory and the mesh table (lane 0 had read
//! the entries itself, one after the other while the other lanes waited:
//! the 1M overview's far field took 7.42 ms that way and 6.59 this way on
//! an H200, `benches/results/near_field/`, call 52).
//! Two pipelines of the same shader, which differ in the shared memory
//! they declare (specialization constants), each take the units whose mesh
//! falls in their range, one dispatch after the other:
//! - small units: meshes of up to `FAR_FIELD_MAX_VERTICES` (672), in
//!   batches (eight of the generated knight's coarsest LOD, the coarse box
//!   proxy of 80 vertices, share one, four of its box-per-bone LOD of 168;
//!   its LOD 3, 657, has one to itself). Eight a batch instead of four
//!   took the 1M overview's far field from 11.73 to 7.28 ms on an H100
//!   (`benches/results/near_field/`, call 11). Small shared memory
//!   keeps 16 workgroups resident per H100 SM, which the units a few pixels
//!   tall, latency-bound (below), need;
//! - mid-size units: larger meshes, up to [`mid_vertex_capacity`] (1,700
//!   on a device of 48 KiB of shared memory, an H100 or H200; the bake
//!   keeps every unit LOD the far field may draw within that,
//!   `horde_bake::lod::FAR_FIELD_LOD_MAX_VERTICES`: the generated units'
//!   LOD 2 has 1,567 to 1,682), one or two a batch. A unit of 30 to 100
//!   pixels drawn this way skips the raster, whose skinned vertex rate on
//!   these GPUs is a hundredth of compute's: the frame budget can give the
//!   far field units that size.
//!
//! Each batch:
//! 1. Skin: one thread per vertex of the batch; each is decoded and skinned
//!    by the same code as `unit.vert` (`skinning.glsl`, two bones, the
//!    crossfade) from its unit's pose, which the lane that read the unit's
//!    entry computed once (each clip's frame pair, the unit's state and
//!    placement, in shared memory: the 1M front's far field 7.64 -> 7.49
//!    ms, the ground's 8.77 -> 8.59, on an H200, call 56), projected,
//!    snapped to 1/256 pixel, and lit as `mesh.frag` lights (material,
//!    atlas texel at the vertex, tint, sun, ambient, fog; a second colour
//!    for the back of double-sided materials). All of it goes to shared
//!    memory: each vertex is skinned once per unit, not once
//!    per triangle, and triangles read their corners from shared memory.
//!    Shared atomics gather, per unit, on which sides of the near plane its
//!    vertices lie and their snapped box.
//! 2. Check, per unit: all vertices before the near plane draw nothing;
//!    some on each side (a triangle may cross the plane, which the compute
//!    rasterizer must not take) send the unit to the raster: it is
//!    appended to the instance list of its LOD, which the draw pass then
//!    draws. Only a box over `FAR_FIELD_MAX_TRIANGLE_PX` (a unit larger
//!    than the far-field size: a frozen cull camera, a wide lens, a large
//!    budget-chosen size) checks its triangles one by one, and one too
//!    large sends the unit to the raster. Nothing visible is dropped.
//! 3. Rasterize: one thread per triangle of the batch. Back faces are
//!    dropped (or lit with the flipped normal for double-sided materials,
//!    as the raster does); each triangle tests the pixel centres of its
//!    snapped box with integer edge functions and the top-left rule, and
//!    writes `atomicMax` (after a plain read) where it is nearer. Depth is
//!    interpolated from the corners' float bits with integer barycentric
//!    weights, exactly. A sample whose depth surely loses to the one its
//!    pixel holds (a multiplication tells, before the division) is not
//!    shaded: in a dense crowd most samples lie behind a nearer unit's (the
//!    1M ground's far field 10.34 -> 9.13 ms on an H200, call 52).
//!
//! Why batches of many threads: measured on an H100 (1M-unit battle,
//! overview), the pass is bound by the latency of each unit's chain of
//! dependent reads (entry, unit state, clip, bones, atlas), not by
//! rasterization (leaving it out saved 2 %) or shading (16 %). Before
//! batching, one unit per workgroup: 64 threads 33.0 ms, the same with
//! shared memory for 16 groups per SM instead of 11 24.9 ms, 128 threads
//! 17.2 ms, 256 threads 14.6 ms.
//!
//! The resolve (`resolve.rs`) is drawn last in the main render pass, over
//! the tiles of the target that hold a covered sample (a compute pass lists
//! them): it writes `gl_FragDepth` = the far field's nearest
//! depth in the pixel and the colour, with depth test GREATER against the
//! raster's depth, so meshes in front hide far units and far units hide
//! what is behind them. No depth sampling and no extra render pass. It
//! blends a partly covered pixel over what the raster drew there, so it
//! comes after every other draw: with occlusion culling, last in the render
//! pass's late part. Nothing draws after it, so it tests depth without
//! writing it: with 4× MSAA each write is four samples' through the few
//! ROPs of a compute GPU.
//!
//! # Occlusion culling
//! With occlusion culling the far field runs once per phase
//! (`passes/cull.rs`): [`FarFieldPass::record`] after the early cull, over
//! the units visible last frame, then [`FarFieldPass::record_late`] after
//! the late cull, over those the depth pyramid did not hide, into the same
//! buffer (`atomicMax` does not care in which order units arrive). The
//! pyramid between them reads the buffer beside the raster's depth
//! ([`FarFieldPass::depth`], `passes/depth_pyramid.rs`), so the crowd
//! hides the crowd behind it: at the ground preset most far units stand
//! behind nearer ones.
//!
//! # Supersampling
//! A unit a few pixels tall is a handful of triangles thinner than a pixel:
//! sampled once per pixel it aliases (a limb covers a pixel centre or not,
//! so the crowd is noise that shimmers as units move) and thins (parts
//! between centres vanish). With supersampling the rasterizer runs on a grid
//! twice as fine along each axis (the dispatch's target size is the sample
//! grid's: nothing else in the rasterizer changes, and the CPU twin holds
//! for it unchanged), and the resolve averages each pixel's four samples:
//! the covered samples' mean colour, blended with alpha = the covered
//! fraction over what the raster drew. That is 4× ordered-grid
//! supersampling of the far field alone, where aliasing is worst; the
//! meshes near the camera are large enough for their edges to matter less.
//! The cost: four times the visibility buffer (66 MB at 1920x1080, one fill)
//! and the rasterizer's per-sample tests (the pass is bound by its chain of
//! reads per unit, not by rasterization; see above). A triangle's box limit
//! (`FAR_FIELD_MAX_TRIANGLE_PX`) counts samples, so it is half as many
//! pixels when supersampling.
//!
//! # Stability (shimmer)
//! Coverage follows the same rules as raster hardware (pixel centres,
//! 1/256-pixel snapping, top-left fill rule), and the cull picks its LOD
//! by one rule with one hysteresis on both paths, so a unit crossing into
//! the far field keeps its silhouette and its LOD; the hysteresis on the
//! far-field size keeps units from flickering between the two paths.
//! Colours are Gouraud-shaded: each covered sample interpolates the
//! corners' lit colours with the integer barycentric weights that
//! interpolate its depth (`FAR_FIELD_PAYLOAD`), so a mid-size unit shows no
//! facets; lighting and the atlas texel are per vertex, which a unit of up
//! to about 100 pixels at its LOD 2 shows little of.
//! Sub-pixel triangles that cover no pixel centre draw nothing, as in the
//! raster (no point splats: they would fatten distant units).
//!
//! # Shadow casters
//! The sun's shadow cascades (`passes/shadow.rs`) run the same rasterizer
//! with `DEPTH_ONLY` set ([`FarFieldPass::record_casters`]): the cascade's
//! matrix as `view_proj`, its cull's lists, its own visibility buffer; no
//! shading, and both faces of every triangle cast.
//!
//! # Barriers
//! Declared uses: the fill (transfer write), the dispatch (compute reads of
//! the world's tables and unit state, compute writes of the draw lists,
//! which the fallback appends to, and of the visibility buffer); the tile
//! scan's (`resolve.rs`: the command's transfer write, a compute read of
//! the visibility buffer, a compute write of the tiles); the draw pass
//! declares the resolve's reads before its render pass (the visibility
//! buffer in the fragment stage, the tiles as its indirect command and in
//! the vertex stage).

use ash::vk;

use crate::barriers::{uses, Access};
use crate::config::{
    FAR_FIELD_BATCH_UNITS, FAR_FIELD_MAX_VERTICES, FAR_FIELD_WORKGROUP_SIZE, ROUTE_FAR_FIELD,
};
use crate::context::Context;
use crate::frame::{ComputePipeline, Frame};
use crate::frames::Descriptor;
use crate::memory::Buffer;
use crate::owned::Sampler;
use crate::passes::depth_pyramid::FarFieldDepth;
use crate::passes::draw::skinning_reads;
use crate::pipeline::{PassTarget, Pipeline};
use crate::sampler::{create_bone_sampler, create_sampler};
use crate::world::World;
use crate::{shaders, Error};

pub mod meshes;
mod resolve;
use meshes::{far_field_meshes, mid_vertex_capacity};

/// Workgroups of the far field's grid: enough to fill any GPU (an H100
/// holds about 2,000 such groups at once); each loops over batches.
const MAX_GROUPS: u32 = 16_384;

/// Workgroups of occlusion culling's late rasterization, which usually
/// finds a few units (those that came into view), and whose empty groups
/// still cost their launch: 16,384 of them took 0.15 ms on an H100 with
/// nothing to draw (`benches/results/near_field/`, call 16). After a
/// camera cut, when every unit is late, a GPU's worth still loops over
/// them all.
const LATE_MAX_GROUPS: u32 = 2_048;

/// A rasterizer pipeline: the small units' (batches of meshes up to
/// `FAR_FIELD_MAX_VERTICES`) or the mid-size units' (larger meshes, up to
/// the device's capacity), each for the colour target and for shadow
/// casters.
struct Rasterizers {
    color: ComputePipeline,
    casters: ComputePipeline,
}

/// The far field's rasterizer and resolve, and its visibility buffer.
/// Fields drop in declaration order, the reverse of creation order.
pub struct FarFieldPass {
    visibility: Option<Buffer>,
    /// The count and the items the small pipeline hands the mid-size one:
    /// room for every far-field unit of the world's capacity.
    mid_items: Option<Buffer>,
    /// The target's size in pixels.
    extent: vk::Extent2D,
    /// Samples per pixel along each axis: the visibility buffer holds
    /// `extent × samples_per_axis` samples along each axis.
    samples_per_axis: u32,
    /// Uniform `FarFieldMesh[MAX_TYPES * MAX_LODS]`, written once.
    meshes: Buffer,
    /// The resolve's draw command and tiles (`resolve.rs`), made with the
    /// visibility buffer.
    tiles: Option<Buffer>,
    tile_scan: ComputePipeline,
    resolve: Pipeline,
    /// Small units in batches; mid-size units (where the device's shared
    /// memory holds more than the small batches), one or two a batch.
    small: Rasterizers,
    mid: Option<Rasterizers>,
    bone_sampler: Sampler,
    atlas_sampler: Sampler,
}

impl FarFieldPass {
    /// Creates the pipelines for `target` and the world's types and bone
    /// encoding. Only on devices with the far field's features.
    pub fn new(ctx: &Context, target: PassTarget, world: &World) -> Result<FarFieldPass, Error> {
        if !ctx.far_field_supported {
            return Err(Error::Config(format!(
                "{}: the far field needs the desktop tier, shaderInt64 and \
                 shaderBufferInt64Atomics",
                ctx.device_name
            )));
        }
        let atlas_sampler = create_sampler(ctx, vk::Filter::LINEAR, "far field atlas sampler")?;
        let bone_sampler = create_bone_sampler(ctx)?;
        let uniform = vk::DescriptorType::UNIFORM_BUFFER;
        let storage = vk::DescriptorType::STORAGE_BUFFER;
        let sampled = vk::DescriptorType::COMBINED_IMAGE_SAMPLER;
        let mut bindings = vec![uniform; 5];
        bindings.extend([storage; 7]);
        bindings.extend([sampled; 2]);
        bindings.extend([storage; 3]);
        // Constant 0: bone encoding; 1: depth only (shadow casters); 2: the
        // bones' shape; 3: the workgroup size; 4: the vertices in shared
        // memory; 5: the fewest a mesh it draws has, less one.
        let rasterizers = |name: &str, capacity: u32, min_vertices: u32| {
            let raster_of = |name: &str, depth_only| {
                ComputePipeline::new(
                    ctx,
                    name,
                    &shaders::FAR_FIELD_COMP,
                    &bindings,
                    &[
                        world.encoding.shader_constant(),
                        depth_only,
                        world.bone_shape.shader_constant(),
                        FAR_FIELD_WORKGROUP_SIZE,
                        capacity,
                        min_vertices,
                    ],
                )
            };
            Ok::<_, Error>(Rasterizers {
                color: raster_of(name, 0)?,
                casters: raster_of(&format!("{name} shadow casters"), 1)?,
            })
        };
        let small = rasterizers("far field", FAR_FIELD_MAX_VERTICES, 0)?;
        let mid_capacity = mid_vertex_capacity(ctx.limits.max_compute_shared_memory);
        let mid = (mid_capacity > FAR_FIELD_MAX_VERTICES)
            .then(|| rasterizers("far field mid-size", mid_capacity, FAR_FIELD_MAX_VERTICES))
            .transpose()?;
        let (tile_scan, resolve) = resolve::resolve_pipelines(ctx, target)?;
        let table = far_field_meshes(world, mid_capacity);
        let mut meshes = Buffer::new(
            ctx,
            "far field meshes",
            std::mem::size_of_val(table.as_slice()) as u64,
            vk::BufferUsageFlags::UNIFORM_BUFFER,
            gpu_allocator::MemoryLocation::CpuToGpu,
        )?;
        meshes.write(0, &table)?;
        Ok(FarFieldPass {
            visibility: None,
            mid_items: None,
            extent: vk::Extent2D::default(),
            samples_per_axis: 1,
            meshes,
            tiles: None,
            tile_scan,
            resolve,
            small,
            mid,
            bone_sampler,
            atlas_sampler,
        })
    }

    /// A visibility buffer for `extent` sampled `samples_per_axis` times
    /// along each axis; a buffer of another size is released once the
    /// frames using it are done.
    fn visibility_for(
        &mut self,
        frame: &mut Frame,
        extent: vk::Extent2D,
        samples_per_axis: u32,
    ) -> Result<vk::Buffer, Error> {
        let same = self.extent == extent && self.samples_per_axis == samples_per_axis;
        if let (Some(buffer), true) = (&self.visibility, same) {
            return Ok(buffer.raw);
        }
        let samples = u64::from(samples_per_axis).pow(2);
        let bytes = u64::from(extent.width.max(1)) * u64::from(extent.height.max(1)) * samples * 8;
        let max = u64::from(frame.ctx.limits.max_storage_buffer_range);
        if bytes > max {
            return Err(Error::Config(format!(
                "far field: a {}x{} visibility buffer of {samples} samples per pixel needs \
                 {bytes} bytes, more than one storage buffer addresses on this device ({max})",
                extent.width, extent.height
            )));
        }
        let raw = replace_storage(
            frame,
            &mut self.visibility,
            ("far field visibility", bytes),
            vk::BufferUsageFlags::empty(),
        )?;
        self.replace_tiles(frame, extent)?;
        self.extent = extent;
        self.samples_per_axis = samples_per_axis;
        Ok(raw)
    }

    /// Sizes the mid-size pipeline's item list for the world's far-field
    /// capacity (a list of another size is released once the frames using
    /// it are done). Called before the frame's first rasterization (the
    /// shadow casters').
    pub fn prepare(&mut self, frame: &mut Frame, world: &World) -> Result<(), Error> {
        let bytes = 4 * (u64::from(far_capacity(world)) + 1);
        if self.mid_items.as_ref().is_some_and(|b| b.size == bytes) {
            return Ok(());
        }
        replace_storage(
            frame,
            &mut self.mid_items,
            ("far field mid-size items", bytes),
            vk::BufferUsageFlags::empty(),
        )?;
        Ok(())
    }

    /// Records the clear of the visibility buffer and the rasterization of
    /// every far-field unit into it, after the cull pass, at
    /// `samples_per_axis`² samples per pixel. `globals` is this frame's
    /// `FrameGlobals` (camera, light, fog), `shadow_depths` the sun's
    /// shadows (`passes/shadow.rs`).
    pub fn record(
        &mut self,
        frame: &mut Frame,
        world: &World,
        extent: vk::Extent2D,
        (globals, shadow_depths): (vk::Buffer, vk::Buffer),
        samples_per_axis: u32,
    ) -> Result<(), Error> {
        let samples_per_axis = samples_per_axis.max(1);
        let visibility = self.visibility_for(frame, extent, samples_per_axis)?;
        let target = RasterTarget {
            globals,
            lists: &world.buffers.draw_lists.buffer,
            visibility,
            width: extent.width * samples_per_axis,
            height: extent.height * samples_per_axis,
            shadow_depths,
            clear: true,
            max_groups: MAX_GROUPS,
        };
        frame.pass("far field", |frame| {
            self.rasterize(frame, world, |r| &r.color, &target)
        })
    }

    /// Records the rasterization of occlusion culling's late phase: the
    /// far-field units its cull listed, into the visibility buffer the
    /// early phase's [`FarFieldPass::record`] drew (same target, same
    /// samples), over what it holds.
    pub fn record_late(
        &self,
        frame: &mut Frame,
        world: &World,
        (globals, shadow_depths): (vk::Buffer, vk::Buffer),
    ) -> Result<(), Error> {
        let Some(visibility) = &self.visibility else {
            return Err(Error::Config(
                "far field: the late phase recorded before the early one".to_owned(),
            ));
        };
        let target = RasterTarget {
            globals,
            lists: &world.buffers.draw_lists.buffer,
            visibility: visibility.raw,
            width: self.extent.width * self.samples_per_axis,
            height: self.extent.height * self.samples_per_axis,
            shadow_depths,
            clear: false,
            max_groups: LATE_MAX_GROUPS,
        };
        frame.pass("far field late", |frame| {
            self.rasterize(frame, world, |r| &r.color, &target)
        })
    }

    /// The visibility buffer as the depth pyramid reads it, once
    /// [`FarFieldPass::record`] has made it.
    pub fn depth(&self) -> Option<FarFieldDepth> {
        self.visibility.as_ref().map(|buffer| FarFieldDepth {
            visibility: buffer.raw,
            samples_per_axis: self.samples_per_axis,
        })
    }

    /// Records the far-field casters of a shadow cascade (listed by its
    /// cull in `target.lists`) into its visibility buffer, depth only,
    /// over what the cascade's splats left there.
    pub fn record_casters(
        &self,
        frame: &mut Frame,
        world: &World,
        target: &CasterTarget,
    ) -> Result<(), Error> {
        let raster = RasterTarget {
            globals: target.globals,
            lists: target.lists,
            visibility: target.visibility,
            width: target.size,
            height: target.size,
            shadow_depths: target.shadow_depths,
            clear: false,
            max_groups: MAX_GROUPS,
        };
        frame.pass("shadow far field", |frame| {
            self.rasterize(frame, world, |r| &r.casters, &raster)
        })
    }

    /// The clear and the dispatches of the small and mid-size pipelines
    /// (`pick` chooses colour or casters) into `target`.
    fn rasterize(
        &self,
        frame: &mut Frame,
        world: &World,
        pick: impl Fn(&Rasterizers) -> &ComputePipeline,
        target: &RasterTarget,
    ) -> Result<(), Error> {
        let meshes = self.meshes.raw;
        let b = &world.buffers;
        let visibility = target.visibility;
        let groups = far_capacity(world)
            .div_ceil(FAR_FIELD_BATCH_UNITS)
            .min(target.max_groups);
        let mid_items = self
            .mid_items
            .as_ref()
            .ok_or_else(|| Error::Config("far field: rasterized before prepare".to_owned()))?
            .raw;
        let push = [target.width, target.height, world.unit_type_count];
        let lists = target.lists.raw;
        let descriptors = [
            Descriptor::Uniform(target.globals),
            Descriptor::Uniform(b.type_table.raw),
            Descriptor::Uniform(meshes),
            Descriptor::Uniform(b.clip_table.raw),
            Descriptor::Uniform(b.material_table.raw),
            Descriptor::Storage(b.unit_infos.buffer.raw),
            Descriptor::Storage(b.unit_placements.buffer.raw),
            Descriptor::Storage(b.anim_states.buffer.raw),
            Descriptor::Storage(b.vertices.raw),
            Descriptor::Storage(b.indices.raw),
            Descriptor::Storage(lists),
            Descriptor::Storage(visibility),
            Descriptor::Sampled(b.bone_texture.view, *self.bone_sampler),
            Descriptor::Sampled(b.atlas.view, *self.atlas_sampler),
            Descriptor::Storage(b.unit_marks.buffer.raw),
            Descriptor::Storage(target.shadow_depths),
            Descriptor::Storage(mid_items),
        ];
        if target.clear {
            frame.uses(&[uses(visibility, Access::TransferWrite)]);
            // SAFETY: the buffer lives until the frames using it complete.
            unsafe {
                frame
                    .ctx
                    .device
                    .cmd_fill_buffer(frame.cmd, visibility, 0, vk::WHOLE_SIZE, 0)
            };
        }
        {
            if groups == 0 || world.unit_count() == 0 {
                return Ok(());
            }
            // The small pipeline draws the small units and lists the
            // others for the mid-size one, which then draws them; both write
            // the visibility buffer and the fallback lists (with atomics:
            // the uses declared again order the second after the first, as
            // synchronization validation asks).
            frame.uses(&[uses(mid_items, Access::TransferWrite)]);
            // SAFETY: the buffer lives until the frames using it complete.
            unsafe {
                frame
                    .ctx
                    .device
                    .cmd_fill_buffer(frame.cmd, mid_items, 0, 4, 0)
            };
            for rasterizers in std::iter::once(&self.small).chain(&self.mid) {
                let raster = pick(rasterizers);
                let mut declared = skinning_reads(world, Access::ComputeRead).to_vec();
                declared.extend([
                    uses(mid_items, Access::ComputeWrite),
                    uses(b.material_table.raw, Access::ComputeRead),
                    uses(b.vertices.raw, Access::ComputeRead),
                    uses(b.indices.raw, Access::ComputeRead),
                    uses(lists, Access::ComputeWrite),
                    uses(visibility, Access::ComputeWrite),
                    uses(target.shadow_depths, Access::ComputeRead),
                ]);
                frame.uses(&declared);
                frame.dispatch(
                    raster,
                    &descriptors,
                    bytemuck::cast_slice(&push),
                    groups * raster.workgroup_size,
                )?;
            }
            Ok(())
        }
    }
}

/// A new device-local storage buffer of `bytes` (fillable, and `usage`
/// besides) in `slot`; the one it replaces is released once the frames
/// using it are done.
fn replace_storage(
    frame: &mut Frame,
    slot: &mut Option<Buffer>,
    (name, bytes): (&str, u64),
    usage: vk::BufferUsageFlags,
) -> Result<vk::Buffer, Error> {
    if let Some(old) = slot.take() {
        frame.retire_replaced(old);
    }
    let buffer = Buffer::new(
        frame.ctx,
        name,
        bytes,
        vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST | usage,
        gpu_allocator::MemoryLocation::GpuOnly,
    )?;
    let raw = buffer.raw;
    *slot = Some(buffer);
    Ok(raw)
}

/// Far-field units the world has room for: the far-field regions' sum.
fn far_capacity(world: &World) -> u32 {
    world.types[..world.unit_type_count as usize]
        .iter()
        .map(|t| t.info.routes[ROUTE_FAR_FIELD as usize].capacity)
        .sum()
}

/// Where a shadow cascade's far casters are rasterized.
pub struct CasterTarget<'a> {
    /// The cascade's `FrameGlobals` (its matrix as `view_proj`).
    pub globals: vk::Buffer,
    /// The cascade's draw lists: its far-field lists are read, the
    /// fallback appends to its mesh lists.
    pub lists: &'a Buffer,
    /// `size`² `u64` keys.
    pub visibility: vk::Buffer,
    /// Texels along a side of the map.
    pub size: u32,
    /// The receivers' shadow depths (bound, not read, depth only).
    pub shadow_depths: vk::Buffer,
}

/// One rasterization: the view, the lists, the visibility buffer.
struct RasterTarget<'a> {
    globals: vk::Buffer,
    lists: &'a Buffer,
    visibility: vk::Buffer,
    width: u32,
    height: u32,
    shadow_depths: vk::Buffer,
    /// Fill the visibility buffer with 0 first (the shadow pass's splats
    /// have cleared and written it for casters).
    clear: bool,
    /// The grid's workgroups at most.
    max_groups: u32,
}
