//! Replays: the last frame's GPU state drawn a second time with other
//! rendering settings, for the quality measurement (DESIGN.md, "Image
//! quality").
//!
//! A reference must show exactly what the frame showed (the same positions,
//! poses and crossfades), drawn without the frame's shortcuts. Two runs
//! cannot give that: rendering every 4th step and every 600th step reach
//! different poses, since animation advances per rendered frame. So a
//! replay is a frame of its own, recorded by [`Renderer::replay_offscreen`]
//! right after the frame it replays, from the state that frame left:
//! - no `upload`, no simulation step, no `animate`: the GPU-owned unit
//!   state is only read, so the poses are the frame's, and the frame after
//!   the replay finds the state as the frame left it;
//! - `cull` runs again with the replay's settings, so the instance lists are
//!   the replay's, but the per-instance routes (`unit_routes` and
//!   `prop_routes`, the LOD and far-field hysteresis) are copied into a
//!   scratch buffer before it and back after it, declared like every use;
//!   the next frame's hysteresis starts from the frame's routes;
//! - no `statistics` pass: [`Renderer::stats`] keeps describing real frames;
//!   no budget controller update; no HUD; the profiler labels the replay's
//!   passes for captures but times none of them
//!   ([`Profiler::begin_unmeasured_frame`](crate::profiler::Profiler::begin_unmeasured_frame));
//! - the camera, the environment and the animation clock are the frame's.
//!
//! [`ReplayPath::Reference`] draws with the GPU-driven strategy, the far
//! field off, no budget and an LOD threshold of 0 pixels: only a LOD of no
//! simplification error fits a threshold of 0, which is LOD 0 (the source
//! mesh; a coarser LOD whose error is 0 would be the same surface), so every
//! visible unit is a mesh at LOD 0. Drawn into a target of twice the width
//! and height and box-filtered down (the caller's part), it is a 4×
//! supersampled picture of the same state. [`ReplayPath::Frame`] draws with
//! the frame's own settings, the budget's last far-field size and LOD
//! threshold included, which the cull reproduces exactly: re-culling the
//! same state from the routes it just wrote picks the same routes. With
//! occlusion culling it starts from the visible bits the frame left, so
//! what the frame drew in its late phase the replay draws in its early
//! one; the picture is the same, as the occlusion test hides only what
//! the pyramid proves hidden.
//!
//! [`ReplayView::UnitMask`] draws every unit pixel white and everything
//! else (props, the ground) black, unlit (`DEBUG_VIEW_UNIT_MASK`, read by
//! `mesh.frag` through its `DRAWS_UNITS` constant and by the far field), for
//! the units' pixel coverage. Units drawn unskinned (`skinning` off) go
//! through the prop pipelines and count as props in the mask.
//!
//! A replay of the `naive` baseline is refused: it animates on the CPU, so
//! the GPU's animation state is not the frame's.

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::barriers::{uses, Access};
use crate::frame::Frame;
use crate::memory::Buffer;
use crate::world::World;
use crate::Error;

#[cfg(doc)]
use super::Renderer;
use super::{RenderSettings, Strategy};

/// Which settings a replay draws with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayPath {
    /// The frame's own settings: the frame again, in another view.
    Frame,
    /// Every unit a mesh at LOD 0, every shadow caster a mesh, no budget.
    Reference,
}

/// What a replay shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayView {
    /// Shaded as the frame is.
    Shaded,
    /// Units white, everything else black, unlit.
    UnitMask,
}

/// One replay of the last frame's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replay {
    pub path: ReplayPath,
    pub view: ReplayView,
}

/// The settings the reference draws with, from the frame's: the same view
/// options (skinning, debug colours) but the GPU-driven strategy, no far
/// field (on screen or in the shadows), every shadow cascade drawn, no
/// budget, no frozen cull camera, no occlusion culling (every unit in the
/// frustum is drawn) and no LOD error allowed.
pub(super) fn reference_settings(frame: &RenderSettings) -> RenderSettings {
    RenderSettings {
        lod_threshold_px: 0.0,
        lod_bias: 1.0,
        far_field_px: 0.0,
        shadow_far_field: false,
        shadow_cascades_in_turn: false,
        impostors: false,
        cull_camera: None,
        show_bounds: false,
        strategy: Strategy::GpuDriven,
        budget_ms: None,
        occlusion: false,
        ..*frame
    }
}

/// A scratch copy of the cull's per-instance routes, unit routes first,
/// then prop routes, kept across replays and grown with the world.
#[derive(Default)]
pub(super) struct RouteSnapshot {
    scratch: Option<Buffer>,
}

/// The bytes of the live routes: units' then props'.
fn route_bytes(world: &World) -> (u64, u64) {
    (
        u64::from(world.unit_count()) * 4,
        u64::from(world.prop_count()) * 4,
    )
}

impl RouteSnapshot {
    /// Records the copy of the world's routes into the scratch buffer
    /// (grown first where the world outgrew it; the old one is released
    /// once the frames using it are done).
    pub(super) fn save(&mut self, frame: &mut Frame, world: &World) -> Result<(), Error> {
        let (units, props) = route_bytes(world);
        if units + props == 0 {
            return Ok(());
        }
        let scratch = match &self.scratch {
            Some(scratch) if scratch.size >= units + props => scratch.raw,
            _ => {
                if let Some(old) = self.scratch.take() {
                    frame.retire_replaced(old);
                }
                let grown = Buffer::new(
                    frame.ctx,
                    "replay route snapshot",
                    (units + props).next_power_of_two(),
                    vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
                    MemoryLocation::GpuOnly,
                )?;
                self.scratch.insert(grown).raw
            }
        };
        self.copy(frame, world, scratch, true);
        Ok(())
    }

    /// Records the copy of the saved routes back into the world's.
    pub(super) fn restore(&self, frame: &mut Frame, world: &World) {
        if let Some(scratch) = &self.scratch {
            self.copy(frame, world, scratch.raw, false);
        }
    }

    /// Copies between the world's routes and `scratch`: into the scratch
    /// when `save`, back otherwise.
    fn copy(&self, frame: &mut Frame, world: &World, scratch: vk::Buffer, save: bool) {
        let (units, props) = route_bytes(world);
        let b = &world.buffers;
        let parts = [
            (b.unit_routes.buffer.raw, 0, units),
            (b.prop_routes.buffer.raw, units, props),
        ];
        let (world_access, scratch_access) = if save {
            (Access::TransferRead, Access::TransferWrite)
        } else {
            (Access::TransferWrite, Access::TransferRead)
        };
        let mut declared = vec![uses(scratch, scratch_access)];
        declared.extend(
            parts
                .iter()
                .filter(|part| part.2 > 0)
                .map(|part| uses(part.0, world_access)),
        );
        frame.uses(&declared);
        for (routes, offset, size) in parts.into_iter().filter(|part| part.2 > 0) {
            let (src, dst, region) = if save {
                let region = vk::BufferCopy::default().dst_offset(offset).size(size);
                (routes, scratch, region)
            } else {
                let region = vk::BufferCopy::default().src_offset(offset).size(size);
                (scratch, routes, region)
            };
            // SAFETY: the scratch holds both parts (sized in `save`), each
            // routes buffer holds its live instances' routes, and the
            // tracker ordered the copy after their last uses.
            unsafe {
                frame
                    .ctx
                    .device
                    .cmd_copy_buffer(frame.cmd, src, dst, &[region])
            };
        }
    }
}
