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
//! - The pyramid: one storage buffer of `f32` (not an image: the barrier
//!   tracker orders buffers), every level row by row, one after another.
//!   Level 0 (the base) is half the image's resolution, `ceil(width / 2)` x
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
//! sample count is specialization constant 0.
//!
//! The last levels are a handful of texels each, a dispatch of one
//! workgroup apiece; a single-pass downsampler (AMD's SPD) would save
//! those launches and barriers at the cost of a far more intricate shader.
//!
//! # Barriers
//! Every dispatch declares a compute write of the pyramid, so the tracker
//! orders each level after the one below it and the first after whatever
//! read the pyramid before (the cull, last frame or earlier in this one). The depth image is not
//! tracked: the render pass that writes it makes its writes visible to
//! compute shader reads through its outgoing dependency.

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::barriers::{uses, Access};
use crate::context::Context;
use crate::frame::{ComputePipeline, Frame};
use crate::frames::Descriptor;
use crate::memory::{Buffer, Released};
use crate::owned::Sampler;
use crate::passes::draw::create_sampler;
use crate::reference::depth_pyramid::{level_sizes, pyramid_len};
use crate::{shaders, Error};

/// Workgroups of a dispatch at most: enough to fill any GPU; threads
/// stride over larger levels.
const MAX_GROUPS: u32 = 16_384;

/// The pyramid's pipelines, its sampler and its buffer. Fields drop in
/// declaration order, the reverse of creation order.
pub struct DepthPyramidPass {
    /// Every level of the extent last recorded, at the start.
    pyramid: Buffer,
    /// The base level's size for that extent; [0, 0] before the first.
    base_size: [u32; 2],
    /// The base level from the depth image.
    base: ComputePipeline,
    /// One level from the level below.
    reduce: ComputePipeline,
    sampler: Sampler,
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
                &[sampled, storage],
                &[],
            )?
        } else {
            ComputePipeline::new(
                ctx,
                "depth pyramid base",
                &shaders::DEPTH_PYRAMID_BASE_MS_COMP,
                &[sampled, storage],
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
        Ok(DepthPyramidPass {
            pyramid,
            base_size: [0, 0],
            base,
            reduce,
            sampler,
        })
    }

    /// Records the build of the pyramid of `depth`, a view of the depth
    /// attachment of `extent` pixels in `SHADER_READ_ONLY_OPTIMAL`, whose
    /// writes the render pass before made visible to compute shaders. The
    /// buffer grows to the extent first.
    pub fn record(
        &mut self,
        frame: &mut Frame,
        depth: vk::ImageView,
        extent: vk::Extent2D,
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
        if bytes > self.pyramid.size {
            let grown = pyramid_buffer(frame.ctx, bytes)?;
            let old = std::mem::replace(&mut self.pyramid, grown);
            frame.forget(old.raw);
            // A pass recorded earlier in this frame may have bound it: it
            // goes once this frame, not just the last one, completes.
            frame.deferred.push(frame.number, Released::Buffer(old));
        }
        self.base_size = base_size;
        let pyramid = self.pyramid.raw;
        let (base, reduce, sampler) = (&self.base, &self.reduce, *self.sampler);
        frame.pass("depth pyramid", |frame| {
            frame.uses(&[uses(pyramid, Access::ComputeWrite)]);
            let push = [extent.width, extent.height];
            frame.dispatch(
                base,
                &[
                    Descriptor::Sampled(depth, sampler),
                    Descriptor::Storage(pyramid),
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

/// Threads of a dispatch over a level of `size` texels: one per texel, at
/// most `MAX_GROUPS` workgroups' worth (the shaders stride over the rest).
fn threads(pipeline: &ComputePipeline, [width, height]: [u32; 2]) -> u32 {
    (width * height).min(MAX_GROUPS * pipeline.workgroup_size)
}
