//! The statistics pass: each frame's draw commands, copied to a host-visible
//! buffer of the frame slot and read when the slot comes round again, so the
//! CPU learns the visible units per route without ever waiting for the GPU.
//!
//! The copy takes the head of the draw-list buffer (`MAX_DRAW_COMMANDS`
//! [`DrawCommand`]s). A command's route is its index modulo `MAX_ROUTES`; unit
//! types' commands come first ([`World::unit_commands`]).

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::barriers::{uses, Access};
use crate::config::{FRAMES_IN_FLIGHT, MAX_ROUTES, ROUTE_FAR_FIELD};
use crate::context::Context;
use crate::frame::Frame;
use crate::gpu_types::DrawCommand;
use crate::memory::Buffer;
use crate::world::buffers::DRAW_COMMANDS_BYTES;
use crate::world::World;
use crate::Error;

/// Units and props the GPU drew in one frame, read back a few frames late.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DrawStats {
    /// Frame number the counts belong to.
    pub frame: u64,
    /// Visible units per mesh LOD (as long as the most LODs a type has).
    pub units_per_lod: Vec<u32>,
    /// Visible units routed to the far field by the cull. A unit the far
    /// field hands back to the raster (a triangle across the near plane or
    /// too large) is counted here and in the LOD that draws it.
    pub units_far_field: u32,
    /// Impostors drawn: units routed to their impostor, and mesh-drawn
    /// units in the crossfade band (counted in their LOD too).
    #[serde(default)]
    pub units_impostor: u32,
    pub props_per_lod: Vec<u32>,
}

impl DrawStats {
    /// Units drawn one way or another (a unit in the impostor crossfade
    /// band counts twice).
    pub fn units_visible(&self) -> u32 {
        self.units_per_lod.iter().sum::<u32>() + self.units_far_field + self.units_impostor
    }
    pub fn props_visible(&self) -> u32 {
        self.props_per_lod.iter().sum()
    }
}

/// One readback buffer per frame slot, and which frame each holds.
pub struct StatisticsPass {
    readback: Vec<Buffer>,
    frames: Vec<Option<u64>>,
}

impl StatisticsPass {
    pub fn new(ctx: &Context) -> Result<StatisticsPass, Error> {
        let readback = (0..FRAMES_IN_FLIGHT)
            .map(|slot| {
                Buffer::new(
                    ctx,
                    &format!("frame {slot} draw statistics"),
                    DRAW_COMMANDS_BYTES,
                    vk::BufferUsageFlags::TRANSFER_DST,
                    MemoryLocation::GpuToCpu,
                )
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(StatisticsPass {
            readback,
            frames: vec![None; FRAMES_IN_FLIGHT as usize],
        })
    }

    /// The statistics the slot holds from its last frame, if any; call after
    /// the slot's fence has signalled.
    pub fn take(&mut self, slot: usize, world: &World) -> Option<DrawStats> {
        let frame = self.frames.get_mut(slot)?.take()?;
        let bytes = self.readback[slot].mapped()?;
        let commands: &[DrawCommand] = bytemuck::cast_slice(&bytes[..bytes.len() / 20 * 20]);
        let max_lods = world.types.iter().map(|t| t.lods.len()).max().unwrap_or(0);
        let mut stats = DrawStats {
            frame,
            units_per_lod: vec![0; max_lods],
            props_per_lod: vec![0; max_lods],
            ..DrawStats::default()
        };
        let impostor_command = world.impostor_command();
        for (index, command) in commands.iter().enumerate() {
            let index = index as u32;
            if index == impostor_command {
                stats.units_impostor = command.instance_count;
                continue;
            }
            let route = index % MAX_ROUTES;
            let count = command.instance_count;
            if world.unit_commands().contains(&index) {
                match stats.units_per_lod.get_mut(route as usize) {
                    Some(slot) => *slot += count,
                    None if route == ROUTE_FAR_FIELD => stats.units_far_field += count,
                    None => {}
                }
            } else if world.prop_commands().contains(&index) {
                if let Some(slot) = stats.props_per_lod.get_mut(route as usize) {
                    *slot += count;
                }
            }
        }
        Some(stats)
    }

    /// Copies this frame's commands, the head of `draw_lists` (the world's,
    /// or a baseline's own), to the slot's readback buffer.
    pub fn record(&mut self, frame: &mut Frame, draw_lists: vk::Buffer) -> Result<(), Error> {
        let readback = &self.readback[frame.slot];
        frame.pass("statistics", |frame| {
            frame.uses(&[
                uses(draw_lists, Access::TransferRead),
                uses(readback.raw, Access::TransferWrite),
            ]);
            let region = vk::BufferCopy::default().size(DRAW_COMMANDS_BYTES);
            // SAFETY: both buffers hold the command head.
            unsafe {
                frame
                    .ctx
                    .device
                    .cmd_copy_buffer(frame.cmd, draw_lists, readback.raw, &[region])
            };
            frame.uses(&[uses(readback.raw, Access::HostRead)]);
            Ok(())
        })?;
        self.frames[frame.slot] = Some(frame.number);
        Ok(())
    }
}
