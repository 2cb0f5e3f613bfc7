//! The depth pyramid: the frame's depth, reduced to ever coarser levels of
//! the farthest depth, against which the cull tests bounding spheres for
//! occlusion (two-phase Hi-Z culling as zeux/niagara does it; the test is
//! `shaders/occlusion.glsl`). Shaders `depth_pyramid_base.comp` (or
//! `depth_pyramid_base_ms.comp`, both from `depth_pyramid.glsl`) and
//! `depth_pyramid.comp`; CPU twin in [`crate::reference::depth_pyramid`].
//!
//! # Data layout
//! - Input: the depth attachment (D32_SFLOAT, reverse-Z with an infinite
//!   far plane: 1 at the near plane, 0 at infinity, cleared to 0), one
//!   sample per pixel or several, bound as a combined image sampler in
//!   `SHADER_READ_ONLY_OPTIMAL` and read with `texelFetch` only (the
//!   pass's own nearest, clamped sampler).
//! - The pyramid is built in one storage buffer of `f32` (the barrier
//!   tracker orders buffers, so the chain of reductions needs no image
//!   barriers), every level row by row, one after another. Level 0 (the
//!   base) is half the image's resolution, `ceil(width / 2)` x
//!   `ceil(height / 2)`; each further level is half the one before, rounded
//!   up, down to 1 x 1 ([`level_sizes`]); level k starts at the sum of the
//!   sizes of the levels before it.
//! - A texel holds the min of the depths under it, the farthest
//!   (reverse-Z): base texel (x, y) over the pixels (2x..2x+1, 2y..2y+1)
//!   inside the image and every sample of each, a level-k texel over the
//!   (up to) 2 x 2 texels of level k - 1 inside it. So a level-k texel
//!   covers exactly the pixels `[x * 2^(k+1), (x + 1) * 2^(k+1))` along
//!   each axis, clipped to the image: odd sizes need no rounding to a power
//!   of two, and a texel never claims a depth farther than a pixel under it
//!   has (conservative for occlusion). Min is exact: the twin agrees bit
//!   for bit.
//! - The buffer grows with the extent and never shrinks (the old one is
//!   released once the frame that may still read it completes); the levels
//!   of the extent last recorded are at its start, [`DepthPyramidPass::base_size`]
//!   says which. Before the first record it holds nothing and the base
//!   size is 0 x 0, for which `sphere_occluded` answers "not occluded".
//! - What the cull reads is the atlas ([`DepthPyramidPass::atlas`]): one
//!   2D `R32_SFLOAT` image, sampled, holding every level stacked
//!   vertically. Its width is the base level's, `w0`; its height is the
//!   sum of every level's height. Level k occupies rows `[r_k, r_k + h_k)`,
//!   `r_k` the sum of the heights of the levels before it, and columns
//!   `[0, w_k)`; the texels right of `w_k` in those rows are never read and
//!   hold anything. A 1 x 1 pixel depth gives a 1 x 1 atlas
//!   ([`atlas_size`]; the twin's `DepthPyramid::atlas`). Why not the
//!   buffer: the mobile tier allows 4 storage buffers per stage and the
//!   cull already binds 4. Why not a texel buffer: `maxTexelBufferElements`
//!   may be 65536 there. Why not a mip chain: Vulkan's mips halve rounding
//!   down, the pyramid rounds up (what keeps a texel's footprint exact and
//!   the test conservative). The atlas is recreated when the extent changes
//!   (the old one released once this frame completes); before the first
//!   record it is 1 x 1 and holds 0, the farthest depth, which hides
//!   nothing. It fits wherever the depth image does when the tier's
//!   `maxImageDimension2D` is a power of two `2^m` (4096 on the mobile
//!   tier; devices report powers of two): the levels' heights
//!   `ceil(H / 2^k)`, k = 1..=L, are `floor((H - 1) / 2^k) + 1`, and the
//!   floors sum to at most `H - 1 - popcount(H - 1)`, so the heights to at
//!   most `H - 1 - popcount(H - 1) + L`: with `H = 2^m - d` and `L <= m`,
//!   at most `2^m - d - 1 + popcount(d) <= 2^m`. Its width, `w0`, is half
//!   the image's.
//!
//! - With the far field, its visibility buffer is read too
//!   ([`FarFieldDepth`]): a pixel's depth is then the raster's farthest
//!   sample where the far field's nearest sample lies behind it, else the
//!   far field's farthest sample (its resolve shows every far sample once
//!   the nearest passes the depth test: `depth_pyramid.glsl`), so the far
//!   crowd drawn in the early phase hides what stands behind it from the
//!   late cull. Without it an 8-byte buffer stands in, never read.
//!
//! # Algorithm
//! One dispatch for the base level (the min over each texel's pixels and
//! samples), then one per level, each reading the level below it; one
//! thread per texel, over at most `MAX_GROUPS` workgroups of 64 whose
//! threads stride over larger levels (a 1-D grid of one thread per texel
//! would run out of workgroups at 8K). Push constants: the base reads
//! the image's `(width, height)` (8 bytes) and derives its size; a level
//! reads `(source_offset, source_width, source_height,
//! destination_offset)` (16 bytes) and derives its size from the source's.
//! A multisampled depth image takes `depth_pyramid_base_ms.comp`, whose
//! sample count is specialization constant 0. Last, one
//! `vkCmdCopyBufferToImage` copies the buffer into the atlas, a region per
//! level (its offset in the buffer, a row length of its width, its rows of
//! the atlas).
//!
//! The last levels are a handful of texels each, a dispatch of one
//! workgroup apiece; a single-pass downsampler (AMD's SPD) would save
//! those launches and barriers at the cost of a far more intricate shader.
//!
//! # Barriers
//! Every dispatch declares a compute write of the pyramid, so the tracker
//! orders each level after the one below it and the first after whatever
//! read the pyramid before (the atlas copy, last frame). The copy declares
//! a transfer read of it, after the last level's write. The tracker knows
//! buffers only, so the pass records the atlas's own barriers around the
//! copy: `UNDEFINED` to `TRANSFER_DST_OPTIMAL` after compute shaders (the
//! cull sampled the atlas last frame: a write after read; the old contents
//! are discarded), and `TRANSFER_DST_OPTIMAL` to `SHADER_READ_ONLY_OPTIMAL`
//! making the copy's writes visible to compute shader reads (the cull
//! after it). Whoever else touches the atlas (a test reading it back) puts
//! it back in `SHADER_READ_ONLY_OPTIMAL`, visible to compute shaders. The
//! depth image is not tracked: the render pass that writes it makes its
//! writes visible to compute shader reads through its outgoing dependency.

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::barriers::{uses, Access};
use crate::context::Context;
use crate::frame::{ComputePipeline, Frame};
use crate::frames::Descriptor;
use crate::memory::{full_range, submit_and_wait, Buffer, Image, ImageDesc, Released};
use crate::owned::Sampler;
use crate::reference::depth_pyramid::{atlas_size, level_sizes, pyramid_len};
use crate::sampler::create_sampler;
use crate::{shaders, Error};

/// Workgroups of a dispatch at most: enough to fill any GPU; threads
/// stride over larger levels.
const MAX_GROUPS: u32 = 16_384;

/// The pyramid's pipelines, its sampler, its buffer and its atlas. Fields
/// drop in declaration order, the reverse of creation order.
pub struct DepthPyramidPass {
    /// Every level of the extent last recorded, stacked; in
    /// `SHADER_READ_ONLY_OPTIMAL` between records.
    atlas: Image,
    /// Every level of the extent last recorded, at the start.
    pyramid: Buffer,
    /// The base level's size for that extent; [0, 0] before the first.
    base_size: [u32; 2],
    /// The base level from the depth image.
    base: ComputePipeline,
    /// One level from the level below.
    reduce: ComputePipeline,
    /// Nearest, clamped: reads the depth image and, in the cull, the atlas.
    sampler: Sampler,
    /// Bound in place of a far field's visibility buffer where there is
    /// none (never read).
    no_far_field: Buffer,
}

/// The far field's visibility buffer, as the base level reads it
/// (`passes/far_field/mod.rs` has its layout): `u64` keys, depth bits in
/// the high word, `samples_per_axis`² samples per pixel.
#[derive(Clone, Copy, Debug)]
pub struct FarFieldDepth {
    pub visibility: vk::Buffer,
    pub samples_per_axis: u32,
}

impl DepthPyramidPass {
    /// The pass for a depth attachment of `samples` samples per pixel
    /// (`TYPE_1`, or a multisampled count such as `TYPE_4`).
    pub fn new(ctx: &Context, samples: vk::SampleCountFlags) -> Result<DepthPyramidPass, Error> {
        let count = samples.as_raw();
        if !count.is_power_of_two() || count > vk::SampleCountFlags::TYPE_64.as_raw() {
            return Err(Error::Config(format!(
                "depth pyramid: {samples:?} is not one sample count"
            )));
        }
        let sampler = create_sampler(ctx, vk::Filter::NEAREST, "depth pyramid sampler")?;
        let sampled = vk::DescriptorType::COMBINED_IMAGE_SAMPLER;
        let storage = vk::DescriptorType::STORAGE_BUFFER;
        let base = if count == 1 {
            ComputePipeline::new(
                ctx,
                "depth pyramid base",
                &shaders::DEPTH_PYRAMID_BASE_COMP,
                &[sampled, storage, storage],
                &[],
            )?
        } else {
            ComputePipeline::new(
                ctx,
                "depth pyramid base",
                &shaders::DEPTH_PYRAMID_BASE_MS_COMP,
                &[sampled, storage, storage],
                &[count],
            )?
        };
        let reduce = ComputePipeline::new(
            ctx,
            "depth pyramid level",
            &shaders::DEPTH_PYRAMID_COMP,
            &[storage],
            &[],
        )?;
        let pyramid = pyramid_buffer(ctx, 4)?;
        let atlas = zero_atlas(ctx)?;
        let no_far_field = Buffer::new(
            ctx,
            "depth pyramid: no far field",
            8,
            vk::BufferUsageFlags::STORAGE_BUFFER,
            MemoryLocation::GpuOnly,
        )?;
        Ok(DepthPyramidPass {
            atlas,
            pyramid,
            base_size: [0, 0],
            base,
            reduce,
            sampler,
            no_far_field,
        })
    }

    /// Records the build of the pyramid of `depth`, a view of the depth
    /// attachment of `extent` pixels in `SHADER_READ_ONLY_OPTIMAL`, whose
    /// writes the render pass before made visible to compute shaders, with
    /// the far field's depth over it where one is given (a visibility
    /// buffer for `extent`), and its copy into the atlas, left in
    /// `SHADER_READ_ONLY_OPTIMAL` for compute shaders. The buffer grows to
    /// the extent first, and the atlas is recreated if the extent changed.
    pub fn record(
        &mut self,
        frame: &mut Frame,
        depth: vk::ImageView,
        extent: vk::Extent2D,
        far_field: Option<FarFieldDepth>,
    ) -> Result<(), Error> {
        let levels = level_sizes(extent.width, extent.height);
        let Some(&base_size) = levels.first() else {
            return Err(Error::Config(format!(
                "depth pyramid: the depth image is {}x{}; it needs at least one pixel",
                extent.width, extent.height
            )));
        };
        let bytes = pyramid_len(&levels) * 4;
        let max = u64::from(frame.ctx.limits.max_storage_buffer_range);
        if bytes > max {
            return Err(Error::Config(format!(
                "depth pyramid: the pyramid of a {}x{} image needs {bytes} bytes, more than one \
                 storage buffer addresses on this device ({max})",
                extent.width, extent.height
            )));
        }
        let [atlas_width, atlas_height] = atlas_size(&levels);
        let atlas_extent = vk::Extent2D {
            width: atlas_width,
            height: atlas_height,
        };
        // Never taller than the limit where it is a power of two (the
        // module doc says why); this guards a device whose limit is not.
        let tallest = frame.ctx.limits.max_image_dimension_2d;
        if atlas_height > tallest {
            return Err(Error::Config(format!(
                "depth pyramid: the atlas of a {}x{} image is {atlas_width}x{atlas_height} \
                 texels, taller than this device and tier's images ({tallest})",
                extent.width, extent.height
            )));
        }
        if bytes > self.pyramid.size {
            let grown = pyramid_buffer(frame.ctx, bytes)?;
            let old = std::mem::replace(&mut self.pyramid, grown);
            frame.forget(old.raw);
            // A pass recorded earlier in this frame may have bound it: it
            // goes once this frame, not just the last one, completes.
            frame.deferred.push(frame.number, Released::Buffer(old));
        }
        if self.atlas.extent != atlas_extent {
            let resized = atlas_image(frame.ctx, atlas_extent)?;
            let old = std::mem::replace(&mut self.atlas, resized);
            // A cull recorded earlier in this frame may have bound it.
            frame.deferred.push(frame.number, Released::Image(old));
        }
        self.base_size = base_size;
        let pyramid = self.pyramid.raw;
        let atlas = self.atlas.raw;
        let (base, reduce, sampler) = (&self.base, &self.reduce, *self.sampler);
        let (far_visibility, far_samples_per_axis) = match far_field {
            Some(far) => (far.visibility, far.samples_per_axis),
            None => (self.no_far_field.raw, 0),
        };
        frame.pass("depth pyramid", |frame| {
            frame.uses(&[uses(pyramid, Access::ComputeWrite)]);
            if far_samples_per_axis > 0 {
                frame.uses(&[uses(far_visibility, Access::ComputeRead)]);
            }
            let push = [extent.width, extent.height, far_samples_per_axis];
            frame.dispatch(
                base,
                &[
                    Descriptor::Sampled(depth, sampler),
                    Descriptor::Storage(pyramid),
                    Descriptor::Storage(far_visibility),
                ],
                bytemuck::cast_slice(&push),
                threads(base, base_size),
            )?;
            let set = frame.bind_set(reduce, &[Descriptor::Storage(pyramid)])?;
            let mut source_offset = 0u32;
            for pair in levels.windows(2) {
                let ([source_width, source_height], destination) = (pair[0], pair[1]);
                let destination_offset = source_offset + source_width * source_height;
                let push = [
                    source_offset,
                    source_width,
                    source_height,
                    destination_offset,
                ];
                frame.uses(&[uses(pyramid, Access::ComputeWrite)]);
                frame.dispatch_with(
                    reduce,
                    set,
                    bytemuck::cast_slice(&push),
                    threads(reduce, destination),
                )?;
                source_offset = destination_offset;
            }
            frame.uses(&[uses(pyramid, Access::TransferRead)]);
            copy_to_atlas(frame, pyramid, atlas, &levels);
            Ok(())
        })
    }

    /// The pyramid (STORAGE_BUFFER | TRANSFER_SRC): every level of the
    /// extent last recorded, at its start; the buffer may be larger.
    pub fn buffer(&self) -> &Buffer {
        &self.pyramid
    }

    /// The base level's size (width, height) for the extent last recorded;
    /// [0, 0] before the first.
    pub fn base_size(&self) -> [u32; 2] {
        self.base_size
    }

    /// The atlas's view and the pass's nearest, clamp-to-edge sampler, for
    /// `Descriptor::Sampled`: every level of the extent last recorded (the
    /// module doc has the layout), in `SHADER_READ_ONLY_OPTIMAL` and visible
    /// to compute shaders once the pass is recorded; before the first
    /// record, a 1 x 1 atlas of 0. Valid until the next record.
    pub fn atlas(&self) -> (vk::ImageView, vk::Sampler) {
        (self.atlas.view, *self.sampler)
    }

    /// The atlas image itself (SAMPLED | TRANSFER_DST | TRANSFER_SRC), for
    /// reading it back; whoever copies from it returns it to
    /// `SHADER_READ_ONLY_OPTIMAL` visible to compute shaders.
    pub fn atlas_image(&self) -> &Image {
        &self.atlas
    }
}

/// The base level's size (width, height) for a depth image of `extent`:
/// `ceil(width / 2)` x `ceil(height / 2)`.
pub fn base_size(extent: vk::Extent2D) -> [u32; 2] {
    [extent.width.div_ceil(2), extent.height.div_ceil(2)]
}

/// The pyramid's buffer, of `bytes` bytes.
fn pyramid_buffer(ctx: &Context, bytes: u64) -> Result<Buffer, Error> {
    Buffer::new(
        ctx,
        "depth pyramid",
        bytes,
        vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
        MemoryLocation::GpuOnly,
    )
}

/// An atlas image of `extent` texels, its contents undefined.
fn atlas_image(ctx: &Context, extent: vk::Extent2D) -> Result<Image, Error> {
    let usage = vk::ImageUsageFlags::SAMPLED
        | vk::ImageUsageFlags::TRANSFER_DST
        | vk::ImageUsageFlags::TRANSFER_SRC;
    let desc = ImageDesc::new(extent, vk::Format::R32_SFLOAT, usage);
    Image::create(ctx, "depth pyramid atlas", &desc)
}

/// The atlas before the first record: 1 x 1, cleared to 0 (the farthest
/// depth, which hides nothing) and in `SHADER_READ_ONLY_OPTIMAL`, so that
/// a cull may bind it before any pyramid exists. It takes the same usage
/// as any atlas: a first extent of one atlas texel reuses it.
fn zero_atlas(ctx: &Context) -> Result<Image, Error> {
    let one = vk::Extent2D {
        width: 1,
        height: 1,
    };
    let atlas = atlas_image(ctx, one)?;
    let transfer = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
    submit_and_wait(ctx, |cmd| {
        atlas_barrier(
            ctx,
            cmd,
            atlas.raw,
            (
                vk::ImageLayout::UNDEFINED,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::AccessFlags::empty(),
            ),
            (
                transfer,
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
            ),
        );
        let zero = vk::ClearColorValue::default();
        let range = full_range(vk::ImageAspectFlags::COLOR);
        // SAFETY: the image is alive and in TRANSFER_DST_OPTIMAL.
        unsafe {
            ctx.device
                .cmd_clear_color_image(cmd, atlas.raw, transfer, &zero, &[range])
        };
        atlas_barrier(ctx, cmd, atlas.raw, TRANSFER_WRITTEN, SAMPLED_BY_COMPUTE);
    })?;
    Ok(atlas)
}

/// One side of an atlas barrier: the layout, and the stages and accesses
/// that wait or are waited for.
type AtlasUse = (vk::ImageLayout, vk::PipelineStageFlags, vk::AccessFlags);

/// The atlas written by a copy or a clear.
const TRANSFER_WRITTEN: AtlasUse = (
    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
    vk::PipelineStageFlags::TRANSFER,
    vk::AccessFlags::TRANSFER_WRITE,
);

/// The atlas as the cull reads it.
const SAMPLED_BY_COMPUTE: AtlasUse = (
    vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
    vk::PipelineStageFlags::COMPUTE_SHADER,
    vk::AccessFlags::SHADER_READ,
);

/// Records the copy of the levels in `pyramid` into `atlas`, between the
/// atlas's barriers (the module doc says why these).
fn copy_to_atlas(frame: &Frame, pyramid: vk::Buffer, atlas: vk::Image, levels: &[[u32; 2]]) {
    let (ctx, cmd) = (frame.ctx, frame.cmd);
    // Compute shaders sampled the atlas last (the cull, last frame): the
    // copy's writes wait for those reads. Its contents are all rewritten.
    let before = (
        vk::ImageLayout::UNDEFINED,
        vk::PipelineStageFlags::COMPUTE_SHADER,
        vk::AccessFlags::empty(),
    );
    let (transfer, _, _) = TRANSFER_WRITTEN;
    atlas_barrier(ctx, cmd, atlas, before, TRANSFER_WRITTEN);
    let (mut offset, mut row) = (0u64, 0u32);
    let regions: Vec<vk::BufferImageCopy> = levels
        .iter()
        .map(|&[width, height]| {
            let region = vk::BufferImageCopy::default()
                .buffer_offset(offset * 4)
                .buffer_row_length(width)
                .buffer_image_height(height)
                .image_subresource(vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: 0,
                    base_array_layer: 0,
                    layer_count: 1,
                })
                .image_offset(vk::Offset3D {
                    x: 0,
                    y: row as i32,
                    z: 0,
                })
                .image_extent(vk::Extent3D {
                    width,
                    height,
                    depth: 1,
                });
            offset += u64::from(width) * u64::from(height);
            row += height;
            region
        })
        .collect();
    // SAFETY: the buffer holds every level (the regions stay inside it), the
    // atlas is `atlas_size(levels)` and in TRANSFER_DST_OPTIMAL; both
    // outlive the frame (released through the deferred queue).
    unsafe {
        ctx.device
            .cmd_copy_buffer_to_image(cmd, pyramid, atlas, transfer, &regions)
    };
    atlas_barrier(ctx, cmd, atlas, TRANSFER_WRITTEN, SAMPLED_BY_COMPUTE);
}

/// Records a barrier of the whole atlas from `from` to `to`.
fn atlas_barrier(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    atlas: vk::Image,
    from: AtlasUse,
    to: AtlasUse,
) {
    let ((old_layout, src_stage, src_access), (new_layout, dst_stage, dst_access)) = (from, to);
    let barrier = vk::ImageMemoryBarrier::default()
        .src_access_mask(src_access)
        .dst_access_mask(dst_access)
        .old_layout(old_layout)
        .new_layout(new_layout)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(atlas)
        .subresource_range(full_range(vk::ImageAspectFlags::COLOR));
    let none = vk::DependencyFlags::empty();
    // SAFETY: a recording command buffer and a live image of this device.
    unsafe {
        ctx.device
            .cmd_pipeline_barrier(cmd, src_stage, dst_stage, none, &[], &[], &[barrier])
    };
}

/// Threads of a dispatch over a level of `size` texels: one per texel, at
/// most `MAX_GROUPS` workgroups' worth (the shaders stride over the rest).
fn threads(pipeline: &ComputePipeline, [width, height]: [u32; 2]) -> u32 {
    (width * height).min(MAX_GROUPS * pipeline.workgroup_size)
}
