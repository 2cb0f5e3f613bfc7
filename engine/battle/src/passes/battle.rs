//! The battle pass: the battle demo's simulation, in fixed steps over the
//! GPU-owned unit state, recorded in the frame's simulation slot (step 2).
//!
//! # Data
//! - `Combat` ([`UnitCombat`](crate::gpu_types::UnitCombat), per unit): hit
//!   points, swing cooldown, time dead, lane, and two damage counters that
//!   other units add to by atomics.
//! - `Lanes`: [`BattleCounts`], then the lane table
//!   ([`LaneState`](crate::gpu_types::LaneState)) twice.
//! - `UnitPlacement` and `UnitMotion` (per unit): the battle moves units and
//!   writes the animation inputs the animate pass reads (ground speed, and the
//!   dead, victory, attack and hit commands).
//! - Push constants: [`BattleRules`], the step number, the unit and lane
//!   counts (`shaders/battle/battle.glsl`).
//!
//! # A step (two dispatches, after the counts are cleared)
//! 1. `shaders/battle/battle_lanes.comp`, one thread per lane, reading last step's lane copy:
//!    the front moves past fallen units (only the front rank fights, so the
//!    fallen are always a prefix of the lane); its position is published;
//!    a lane keeps its enemy lane while that stands, else takes the standing
//!    enemy lane nearest across the field. No enemy left: `NO_LANE`.
//! 2. `shaders/battle/battle_units.comp`, one thread per unit, reading this step's lanes:
//!    - last step's damage lands (a hit reaction, or death at 0 hit points);
//!    - the dead lie for `corpse_seconds`, then sink out of sight;
//!    - with no enemy lane left the living cheer (victory);
//!    - the lane's front unit walks, then charges, at the enemy lane's front;
//!      within reach it faces it and swings on a jittered cadence; each swing
//!      adds its damage to the target's counter for this step's parity;
//!    - the ranks behind keep `spacing` apart behind the front, so they step
//!      up as the front falls, and run to catch up when far behind;
//!    - the second rank strikes past the first at the enemy's front once
//!      that stands within reach plus one rank's spacing;
//!    - movement is proportional steering capped at walk or run speed; a
//!      fighter steers for three quarters of its reach, so it arrives within
//!      reach in finite time rather than approaching it forever.
//!
//! # Determinism
//! Chance comes only from a hash of (unit, step); damage sums by integer
//! atomics, whose order does not matter; every other read is of state no
//! thread of the same dispatch writes (the lane copies and damage counters
//! alternate by parity). So a seed gives one outcome whatever the frame rate:
//! the steps are fixed (`Battle::advance` turns frame time into steps).
//! [`crate::reference::battle`] is the CPU twin, compared step by step in the
//! tests (`tests/tests/battle.rs`).
//!
//! Its cost is linear in units plus lanes; a lane that lost its enemy scans
//! every lane once (lanes ≈ 2√units).

use std::mem::size_of;

use ash::vk;
use gpu_allocator::MemoryLocation;

use horde::barriers::{uses, Access};
use horde::config::FRAMES_IN_FLIGHT;
use horde::context::Context;
use horde::frame::{ComputePipeline, Frame};
use horde::frames::Descriptor;
use horde::memory::Buffer;
use horde::simulation::SimulationUnits;
use horde::Error;

use crate::gpu_types::{BattleCounts, BattleRules};
use crate::shaders;

/// Push constants of both battle shaders.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Push {
    rules: BattleRules,
    step: u32,
    unit_count: u32,
    lane_count: u32,
}
const _: () = assert!(size_of::<Push>() == 68);

/// The battle as the CPU last heard of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BattleStats {
    /// Steps done when the counts were taken.
    pub step: u32,
    pub counts: BattleCounts,
}

/// The battle's buffers and sizes, for one frame's steps.
#[derive(Clone, Copy, Debug)]
pub struct BattleBuffers {
    pub rules: BattleRules,
    pub combat: vk::Buffer,
    /// Counts, then the lane table twice.
    pub lanes: vk::Buffer,
    pub lane_count: u32,
    /// Unit slots the battle covers.
    pub unit_count: u32,
}

/// The two pipelines, and a readback buffer of the counts per frame slot.
pub struct BattlePass {
    lanes: ComputePipeline,
    units: ComputePipeline,
    readback: Vec<Buffer>,
    /// The step each slot's readback was taken at.
    steps: Vec<Option<u32>>,
}

impl BattlePass {
    pub fn new(ctx: &Context) -> Result<BattlePass, Error> {
        let storage = vk::DescriptorType::STORAGE_BUFFER;
        let group = [ctx.unit_workgroup_size()];
        let readback = (0..FRAMES_IN_FLIGHT)
            .map(|slot| {
                Buffer::new(
                    ctx,
                    &format!("frame {slot} battle counts"),
                    size_of::<BattleCounts>() as u64,
                    vk::BufferUsageFlags::TRANSFER_DST,
                    MemoryLocation::GpuToCpu,
                )
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(BattlePass {
            lanes: ComputePipeline::new(
                ctx,
                "battle lanes",
                &shaders::BATTLE_LANES_COMP,
                &[storage; 3],
                &group,
            )?,
            units: ComputePipeline::new(
                ctx,
                "battle units",
                &shaders::BATTLE_UNITS_COMP,
                &[storage; 4],
                &group,
            )?,
            readback,
            steps: vec![None; FRAMES_IN_FLIGHT as usize],
        })
    }

    /// The counts the slot holds from its last frame, if any; call after the
    /// slot's fence has signalled.
    pub fn take(&mut self, slot: usize) -> Option<BattleStats> {
        let step = self.steps.get_mut(slot)?.take()?;
        let bytes = self.readback[slot].mapped()?;
        let counts = bytemuck::pod_read_unaligned(bytes.get(..size_of::<BattleCounts>())?);
        Some(BattleStats { step, counts })
    }

    /// Records `steps` (step numbers), then copies the counts for the CPU.
    pub fn record(
        &mut self,
        frame: &mut Frame,
        units: &SimulationUnits,
        state: &BattleBuffers,
        steps: std::ops::Range<u32>,
    ) -> Result<(), Error> {
        let (placements, motions) = (units.placements, units.motions);
        let (combat, lanes) = (state.combat, state.lanes);
        let readback = self.readback[frame.slot].raw;
        let mut push = Push {
            rules: state.rules,
            step: 0,
            unit_count: state.unit_count,
            lane_count: state.lane_count,
        };
        frame.pass("battle", |frame| {
            // Every step binds the same buffers: one set per pipeline serves
            // them all, however many steps a frame records.
            let lane_set = frame.bind_set(
                &self.lanes,
                &[
                    Descriptor::Storage(combat),
                    Descriptor::Storage(placements),
                    Descriptor::Storage(lanes),
                ],
            )?;
            let unit_set = frame.bind_set(
                &self.units,
                &[
                    Descriptor::Storage(combat),
                    Descriptor::Storage(placements),
                    Descriptor::Storage(motions),
                    Descriptor::Storage(lanes),
                ],
            )?;
            for step in steps.clone() {
                push.step = step;
                frame.uses(&[uses(lanes, Access::TransferWrite)]);
                // SAFETY: the counts head the lanes buffer.
                unsafe {
                    frame.ctx.device.cmd_fill_buffer(
                        frame.cmd,
                        lanes,
                        0,
                        size_of::<BattleCounts>() as u64,
                        0,
                    )
                };
                frame.uses(&[
                    uses(combat, Access::ComputeRead),
                    uses(placements, Access::ComputeRead),
                    uses(lanes, Access::ComputeWrite),
                ]);
                frame.dispatch_with(
                    &self.lanes,
                    lane_set,
                    bytemuck::bytes_of(&push),
                    push.lane_count,
                )?;
                frame.uses(&[
                    uses(combat, Access::ComputeWrite),
                    uses(placements, Access::ComputeWrite),
                    uses(motions, Access::ComputeWrite),
                    uses(lanes, Access::ComputeWrite),
                ]);
                frame.dispatch_with(
                    &self.units,
                    unit_set,
                    bytemuck::bytes_of(&push),
                    push.unit_count,
                )?;
            }
            frame.uses(&[
                uses(lanes, Access::TransferRead),
                uses(readback, Access::TransferWrite),
            ]);
            let region = vk::BufferCopy::default().size(size_of::<BattleCounts>() as u64);
            // SAFETY: both buffers hold the counts at offset 0.
            unsafe {
                frame
                    .ctx
                    .device
                    .cmd_copy_buffer(frame.cmd, lanes, readback, &[region])
            };
            frame.uses(&[uses(readback, Access::HostRead)]);
            Ok(())
        })?;
        self.steps[frame.slot] = Some(steps.end);
        Ok(())
    }
}
