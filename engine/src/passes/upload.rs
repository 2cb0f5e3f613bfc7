//! The upload scatter: sparse changes to per-unit records in one dispatch.
//!
//! A frame's orders touch scattered units. Copying each changed record with
//! its own `VkBufferCopy` region costs about a microsecond per region on the
//! GPU, so thousands of orders cost milliseconds. Instead the world stages each
//! short run's records as `[destination index, record words...]` in the frame
//! slot's host-visible staging buffer, and `scatter.comp` writes them, one
//! thread per record. Long contiguous runs (a spawn) still go by copy.
//!
//! Synchronization is the caller's: the world's upload barrier covers both the
//! copies and this pass's shader writes.

use std::mem::size_of;

use ash::vk;
use bytemuck::{Pod, Zeroable};

use crate::context::Context;
use crate::frames::{allocate_set, write_set, Descriptor, FrameStart};
use crate::memory::Buffer;
use crate::pipeline::{binding, compute_pipeline, LayoutDesc, Pipeline};
use crate::{shaders, Error};

/// Push constants of `scatter.comp`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Push {
    count: u32,
    words: u32,
    first_word: u32,
    destination_words: u32,
}

/// One scatter: `count` staged records of `words` words each, starting at
/// byte `offset` of the staging buffer, into `destination`.
#[derive(Clone, Copy, Debug)]
pub struct Scatter {
    pub offset: u64,
    pub count: u32,
    pub words: u32,
    pub destination: vk::Buffer,
    pub destination_bytes: u64,
}

/// The scatter pipeline.
pub struct UploadPass {
    pipeline: Pipeline,
    workgroup_size: u32,
}

impl UploadPass {
    /// Creates the pipeline with the tier's workgroup size.
    pub fn new(ctx: &Context) -> Result<UploadPass, Error> {
        let workgroup_size = ctx.unit_workgroup_size();
        let compute = vk::ShaderStageFlags::COMPUTE;
        let set0 = [
            binding(0, vk::DescriptorType::STORAGE_BUFFER, compute),
            binding(1, vk::DescriptorType::STORAGE_BUFFER, compute),
        ];
        let pipeline = compute_pipeline(
            ctx,
            "upload scatter",
            &shaders::SCATTER_COMP,
            &LayoutDesc {
                sets: &[&set0],
                push_constant_size: size_of::<Push>() as u32,
            },
            &[workgroup_size],
        )?;
        Ok(UploadPass {
            pipeline,
            workgroup_size,
        })
    }

    /// Records one dispatch per scatter, reading `staging`.
    pub fn record(
        &self,
        ctx: &Context,
        start: &FrameStart,
        staging: &Buffer,
        scatters: &[Scatter],
    ) -> Result<(), Error> {
        for scatter in scatters.iter().filter(|s| s.count > 0) {
            let groups = scatter.count.div_ceil(self.workgroup_size);
            if groups > 65_535 {
                return Err(Error::Config(format!(
                    "{} scattered records exceed one dispatch",
                    scatter.count
                )));
            }
            let set = allocate_set(ctx, start, self.pipeline.set_layouts[0])?;
            write_set(
                ctx,
                set,
                &[
                    Descriptor::Storage(staging.raw),
                    Descriptor::Storage(scatter.destination),
                ],
            );
            let push = Push {
                count: scatter.count,
                words: scatter.words,
                first_word: (scatter.offset / 4) as u32,
                destination_words: u32::try_from(scatter.destination_bytes / 4).unwrap_or(u32::MAX),
            };
            // SAFETY: the set names live buffers; the staged words lie inside
            // the staging buffer and the shader bounds-checks destinations.
            unsafe {
                let device = &ctx.device;
                device.cmd_bind_pipeline(
                    start.cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    self.pipeline.raw,
                );
                device.cmd_bind_descriptor_sets(
                    start.cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    self.pipeline.layout,
                    0,
                    &[set],
                    &[],
                );
                device.cmd_push_constants(
                    start.cmd,
                    self.pipeline.layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    bytemuck::bytes_of(&push),
                );
                device.cmd_dispatch(start.cmd, groups, 1, 1);
            }
        }
        Ok(())
    }

    /// Drops the pass. Kept until callers drop the value directly.
    pub fn destroy(self, _ctx: &Context) {
        drop(self)
    }
}
