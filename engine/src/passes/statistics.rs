//! The statistics pass: each frame's draw commands, copied to a host-visible
//! buffer of the frame slot and read when the slot comes round again, so the
//! CPU learns the visible units per route without ever waiting for the GPU.
//!
//! The copy takes the head of the draw-list buffer (`MAX_DRAW_COMMANDS`
//! [`DrawCommand`]s). A command's route is its index modulo `MAX_ROUTES`; unit
//! types' commands come first ([`World::unit_commands`]); the two after the
//! impostors' count the units and props occlusion culling hid
//! ([`World::occluded_commands`]). With occlusion culling the cull fills
//! the lists twice a frame (`passes/cull.rs`): each phase's commands are
//! copied after it, to their own half of the readback buffer, and the
//! halves summed.

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::barriers::{uses, Access};
use crate::config::{FRAMES_IN_FLIGHT, MAX_DRAW_COMMANDS, MAX_ROUTES, ROUTE_FAR_FIELD};
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
    /// Units and props in the frustum that occlusion culling did not draw
    /// (0 with it off).
    #[serde(default)]
    pub units_occluded: u32,
    #[serde(default)]
    pub props_occluded: u32,
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

/// What a frame slot's readback holds.
#[derive(Clone, Copy, Debug)]
struct Held {
    frame: u64,
    /// Whether the late phase's commands were copied.
    late: bool,
}

/// The bytes of a readback buffer: the whole frame's or the early phase's
/// commands, then the late phase's.
const READBACK_BYTES: u64 = 2 * DRAW_COMMANDS_BYTES;

/// One readback buffer per frame slot, and which frame each holds.
pub struct StatisticsPass {
    readback: Vec<Buffer>,
    frames: Vec<Option<Held>>,
}

impl StatisticsPass {
    pub fn new(ctx: &Context) -> Result<StatisticsPass, Error> {
        let readback = (0..FRAMES_IN_FLIGHT)
            .map(|slot| {
                Buffer::new(
                    ctx,
                    &format!("frame {slot} draw statistics"),
                    READBACK_BYTES,
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
        let held = self.frames.get_mut(slot)?.take()?;
        let bytes = self.readback[slot].mapped()?;
        let part = DRAW_COMMANDS_BYTES as usize;
        let mut parts = vec![&bytes[..part]];
        let frame = held.frame;
        let max_lods = world.types.iter().map(|t| t.lods.len()).max().unwrap_or(0);
        let mut stats = DrawStats {
            frame,
            units_per_lod: vec![0; max_lods],
            props_per_lod: vec![0; max_lods],
            ..DrawStats::default()
        };
        if held.late {
            parts.push(&bytes[part..2 * part]);
        }
        let impostor_command = world.impostor_command();
        let [units_occluded, props_occluded] = world.occluded_commands();
        let commands = parts.into_iter().flat_map(|part| {
            bytemuck::cast_slice::<u8, DrawCommand>(&part[..part.len() / 20 * 20])
        });
        for (index, command) in commands.enumerate() {
            let index = index as u32 % MAX_DRAW_COMMANDS;
            if index == impostor_command {
                stats.units_impostor += command.instance_count;
                continue;
            }
            if index == units_occluded {
                stats.units_occluded += command.instance_count;
                continue;
            }
            if index == props_occluded {
                stats.props_occluded += command.instance_count;
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
    /// or a baseline's own), to the slot's readback buffer: the whole
    /// frame's or the early phase's (`late` false), or the late phase's.
    pub fn record(
        &mut self,
        frame: &mut Frame,
        draw_lists: vk::Buffer,
        late: bool,
    ) -> Result<(), Error> {
        let readback = &self.readback[frame.slot];
        let name = if late {
            "statistics late"
        } else {
            "statistics"
        };
        frame.pass(name, |frame| {
            frame.uses(&[
                uses(draw_lists, Access::TransferRead),
                uses(readback.raw, Access::TransferWrite),
            ]);
            let offset = if late { DRAW_COMMANDS_BYTES } else { 0 };
            let region = vk::BufferCopy::default()
                .dst_offset(offset)
                .size(DRAW_COMMANDS_BYTES);
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
        self.frames[frame.slot] = Some(Held {
            frame: frame.number,
            late,
        });
        Ok(())
    }
}
