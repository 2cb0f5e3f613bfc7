//! The far field's resolve, the draw pass's last extra draw: each pixel's
//! far-field samples blended over what the raster drew (the parent module's
//! doc says how), drawn only over the tiles that hold a covered sample.
//!
//! # Tiles
//! `far field tiles` (`far_field_tiles.comp`), after the frame's last
//! far-field rasterization: one workgroup per `FAR_FIELD_TILE_PX`-square
//! tile of the target, a thread per pixel, finds whether any of the tile's
//! samples is covered and appends the tile to the list. The resolve is then
//! an indirect draw of two triangles per listed tile
//! (`far_field_resolve.vert`, `far_field_resolve.frag`). The tiles' edges
//! lie between pixels, so every pixel is shaded by one tile or none, as by
//! the full-screen triangle this replaced: the frames are the same. Why: on
//! an H100 the render pipeline is a small part of the chip, and a
//! full-screen resolve ran its fragment shader over every pixel, 0.41-0.55
//! ms, where at the 10k ground preset the far crowd is a band along the
//! horizon, an eighth of the frame (`benches/results/near_field/`, call
//! 28). The scan reads the visibility buffer once, at compute's bandwidth.
//!
//! # Data layout
//! The tile buffer: a `VkDrawIndirectCommand` (6 vertices, an instance per
//! listed tile; written by `vkCmdUpdateBuffer` each frame before the scan),
//! then the listed tiles' indices (row by row over the tile grid) in no
//! order, room for every tile of the target. It is re-created with the
//! visibility buffer.

use ash::vk;

use super::{replace_storage, FarFieldPass};
use crate::barriers::{uses, Access, BufferUse};
use crate::config::FAR_FIELD_TILE_PX;
use crate::context::Context;
use crate::frame::{ComputePipeline, Frame};
use crate::frames::Descriptor;
use crate::passes::draw::{ExtraDraw, MeshDescriptors};
use crate::passes::sky::bind_screen_pipeline;
use crate::pipeline::{binding, graphics_pipeline, GraphicsDesc, LayoutDesc, PassTarget, Pipeline};
use crate::world::World;
use crate::{shaders, Error};

/// Bytes of the tile buffer's draw command.
const COMMAND_BYTES: u64 = std::mem::size_of::<vk::DrawIndirectCommand>() as u64;

/// The most workgroups of the scan; each loops over tiles beyond them.
const MAX_SCAN_GROUPS: u32 = 65_535;

/// The resolve's pipelines for the main render pass `target`: the tile
/// scan and the tiles' draw.
pub(super) fn resolve_pipelines(
    ctx: &Context,
    target: PassTarget,
) -> Result<(ComputePipeline, Pipeline), Error> {
    let storage = vk::DescriptorType::STORAGE_BUFFER;
    let scan = ComputePipeline::new(
        ctx,
        "far field tiles",
        &shaders::FAR_FIELD_TILES_COMP,
        &[storage; 2],
        &[],
    )?;
    let set0 = [
        binding(0, storage, vk::ShaderStageFlags::FRAGMENT),
        binding(1, storage, vk::ShaderStageFlags::VERTEX),
    ];
    let draw = graphics_pipeline(
        ctx,
        "far field resolve",
        &shaders::FAR_FIELD_RESOLVE_VERT,
        &shaders::FAR_FIELD_RESOLVE_FRAG,
        &LayoutDesc {
            sets: &[&set0],
            push_constant_size: 12,
        },
        &GraphicsDesc {
            vertex_bindings: &[],
            vertex_attributes: &[],
            target,
            cull_mode: vk::CullModeFlags::NONE,
            depth_compare: vk::CompareOp::GREATER,
            depth_write: false,
            alpha_blend: true,
        },
        &[],
    )?;
    Ok((scan, draw))
}

/// The tiles of `extent`, along each axis.
fn tile_grid(extent: vk::Extent2D) -> (u32, u32) {
    (
        extent.width.div_ceil(FAR_FIELD_TILE_PX),
        extent.height.div_ceil(FAR_FIELD_TILE_PX),
    )
}

impl FarFieldPass {
    /// A tile buffer for a target of `extent` (the one it replaces is
    /// released once the frames using it are done).
    pub(super) fn replace_tiles(
        &mut self,
        frame: &mut Frame,
        extent: vk::Extent2D,
    ) -> Result<(), Error> {
        let (columns, rows) = tile_grid(extent);
        let bytes = COMMAND_BYTES + 4 * u64::from(columns.max(1)) * u64::from(rows.max(1));
        replace_storage(
            frame,
            &mut self.tiles,
            ("far field tiles", bytes),
            vk::BufferUsageFlags::INDIRECT_BUFFER,
        )?;
        Ok(())
    }

    /// Records the tile scan over the visibility buffer: after the frame's
    /// last far-field rasterization, before the render pass (part) whose
    /// resolve draws the tiles.
    pub fn record_tiles(&self, frame: &mut Frame) -> Result<(), Error> {
        let (Some(visibility), Some(tiles)) = (&self.visibility, &self.tiles) else {
            return Err(Error::Config(
                "far field: the tiles recorded before the far field".to_owned(),
            ));
        };
        let (columns, rows) = tile_grid(self.extent);
        let groups = (columns * rows).min(MAX_SCAN_GROUPS);
        let push = [self.extent.width, self.extent.height, self.samples_per_axis];
        frame.pass("far field tiles", |frame| {
            frame.uses(&[uses(tiles.raw, Access::TransferWrite)]);
            // VkDrawIndirectCommand: 6 vertices, no instance yet, from 0.
            let command: [u32; 4] = [6, 0, 0, 0];
            // SAFETY: the buffer lives until the frames using it complete;
            // the command is its first 16 bytes.
            unsafe {
                frame.ctx.device.cmd_update_buffer(
                    frame.cmd,
                    tiles.raw,
                    0,
                    bytemuck::cast_slice(&command),
                )
            };
            frame.uses(&[
                uses(visibility.raw, Access::ComputeRead),
                uses(tiles.raw, Access::ComputeWrite),
            ]);
            frame.dispatch(
                &self.tile_scan,
                &[
                    Descriptor::Storage(visibility.raw),
                    Descriptor::Storage(tiles.raw),
                ],
                bytemuck::cast_slice(&push),
                groups * self.tile_scan.workgroup_size,
            )
        })
    }
}

/// The resolve: the draw pass's last extra draw, after the raster's depth.
impl ExtraDraw for FarFieldPass {
    fn draw_uses(&self, _frame: &Frame, _world: &World) -> Result<Vec<BufferUse>, Error> {
        let mut declared: Vec<BufferUse> = self
            .visibility
            .iter()
            .map(|buffer| uses(buffer.raw, Access::FragmentRead))
            .collect();
        if let Some(tiles) = &self.tiles {
            declared.push(uses(tiles.raw, Access::IndirectRead));
            declared.push(uses(tiles.raw, Access::VertexRead));
        }
        Ok(declared)
    }

    /// Records the resolve inside the main render pass.
    fn draw(
        &self,
        frame: &mut Frame,
        _world: &World,
        _mesh: &MeshDescriptors,
    ) -> Result<(), Error> {
        let (Some(visibility), Some(tiles)) = (&self.visibility, &self.tiles) else {
            return Ok(());
        };
        let set = frame.descriptor_set(
            self.resolve.set_layouts[0],
            &[
                Descriptor::Storage(visibility.raw),
                Descriptor::Storage(tiles.raw),
            ],
        )?;
        let push = [self.extent.width, self.extent.height, self.samples_per_axis];
        // The visibility buffer and the tiles were made for the target the
        // pass covers.
        bind_screen_pipeline(frame, &self.resolve, Some(set), bytemuck::cast_slice(&push));
        // SAFETY: inside the main render pass, the pipeline bound; the
        // command is the tile buffer's first 16 bytes.
        unsafe {
            frame
                .ctx
                .device
                .cmd_draw_indirect(frame.cmd, tiles.raw, 0, 1, COMMAND_BYTES as u32)
        };
        Ok(())
    }
}
