//! The battle pass: regiments that manoeuvre, charge, fight, rout and rally,
//! and their units on a spatial grid, in fixed steps over the GPU-owned unit
//! state, recorded in the frame's simulation slot (step 2).
//!
//! # Data
//! - `battle` (one buffer, `shaders/battle/battle.glsl`):
//!   [`BattleHeader`](crate::gpu_types::BattleHeader) (the rules, written
//!   once; the [`BattleCounts`] of this step and of the next, by parity;
//!   the totals since the start), then
//!   [`RegimentTally`](crate::gpu_types::RegimentTally) ×
//!   2 [`MAX_REGIMENTS`], then
//!   [`RegimentState`] × 2
//!   [`MAX_REGIMENTS`], then [`UnitCombat`](crate::gpu_types::UnitCombat)
//!   per unit. The regiment table and the tallies are held twice, by step
//!   parity: a step reads last step's regiments and writes the other copy;
//!   its units add to one tally copy while the next step's regiments read it.
//! - `grid`: the spatial grid, its layout and algorithm in
//!   [`crate::passes::grid`], then the terrain (`terrain.glsl`: its
//!   [`TerrainInfo`](crate::gpu_types::TerrainInfo), then the heights). One
//!   buffer, so that no dispatch binds more than four storage buffers, the
//!   mobile tier's limit (the unit step: battle, placements, motions,
//!   grid; it reads the terrain through a read-only view of the grid's
//!   binding, which nothing writes in the dispatch).
//! - `UnitPlacement` and `UnitMotion` (per unit, the core's): the battle
//!   moves units and writes the animation inputs the animate pass reads
//!   (ground speed, and the dead, victory, attack and hit commands).
//! - Marks (per unit, the core's `SimulationUnits::marks`): while the frame
//!   draws them (`SimulationUnits::marks_shown`), the grid's scatter writes
//!   each unit's regiment's state colour, as this step's regiment dispatch
//!   left it ([`MARK_HOLDING`](crate::config::MARK_HOLDING)
//!   and the rest; [`MARK_FALLEN`](crate::config::MARK_FALLEN) once it
//!   falls), which the core's `DEBUG_VIEW_MARKS` draws.
//! - Push constants: the step number, the unit, regiment and cell counts,
//!   whether the marks are shown.
//!
//! # A step (five or six dispatches, four barriers)
//! The counts are held twice, by step parity, and each step's regiment
//! dispatch clears the copy the next step adds to, so no clear stands
//! between steps. The regiments run beside the grid's first scan (neither
//! reads what the other writes): one barrier for both.
//! 1. `battle_regiments.comp`, one workgroup of [`REGIMENT_LANES`] threads
//!    per regiment: together they scan last step's regiment table (each
//!    lane every `REGIMENT_LANES`th record; sums, and minima with ties to
//!    the lower index, reduced in shared memory, so the result is the
//!    serial scan's), then its first thread does the rest: its units' tally of
//!    last step gives its living units, its centroid, its losses and the
//!    blows it took from front, flank and rear. Morale falls with losses,
//!    flank and (more) rear blows, melee and nearby routing friends, and
//!    recovers out of the fight. Then orders, from one scan of the table:
//!    hold (a reserve, until a regiment of the line breaks or its time is
//!    up: then it commits against that regiment's enemy); advance on the
//!    nearest standing enemy regiment, wheeling to face it (a wing marches
//!    first to a point beside the enemy's flank, then turns in); charge from
//!    `charge_distance`, speeding up over `charge_ramp_seconds`; engage
//!    while its units fight; pursue a routing enemy for `pursue_seconds`.
//!    At morale 0, or when its army breaks (`army_break_fraction` of its
//!    regiments broken), it routs: it runs from the nearest enemy, may rally
//!    once out of reach, and has fled once `flee_distance` away.
//! 2. The grid ([`crate::passes::grid`]): a prefix sum of the cells' counts
//!    in two or three levels, each unit scattered into its cell's entries
//!    (before the first step, living units first count themselves into
//!    hashed cells).
//! 3. `battle_units.comp`, one thread per unit: last step's damage lands;
//!    the dead lie for `corpse_seconds`, then sink (corpses are no
//!    obstacle); with no enemy standing the living cheer. A unit looks at the
//!    3×3 cells around it: living units closer than `separation` push it
//!    apart (half the overlap each; a routing unit slips through its own
//!    army), and it does not walk on into them (the part of its velocity
//!    against the push goes, so rear ranks stop at the backs of the front
//!    ones); the nearest enemy within `engage_radius` is its target.
//!    Routing, it runs with its regiment; with an enemy within reach it
//!    faces it and strikes on a jittered cadence (×3/2 from the flank of
//!    the target's formation or in a charge, ×2 from its rear); charging,
//!    engaged or pursuing it goes for the nearest enemy; otherwise it keeps
//!    its slot (line and column: files × ranks; wedge: rank r holds 2r + 1).
//!    Uphill it is slower: its speed is divided by 1 + `slope_slowing` ×
//!    the grade it climbs (`terrain_slope`, the height's derivative). The
//!    regiment's anchor marches on at its pace (waiting while its units lag
//!    by more than `anchor_lead`): on a climb the ranks fall behind their
//!    slots and run to catch up, so slopes stretch a formation and slow its
//!    charge without slowing the battle.
//!    It adds itself, its position and its blows to its regiment's tally,
//!    and counts itself into the next step's grid where it now stands.
//!
//! # Determinism
//! Chance comes only from a hash of (unit, step). Sums go through integer
//! atomics (damage, tallies, counts; separation and centroids in fixed
//! point), minima break ties by index, and every other read is of state no
//! thread of the same dispatch writes (regiment copies, tallies and damage
//! counters alternate by parity; neighbours are read from their grid
//! entries).
//! So the order of a cell's entries, which the scatter's atomics decide,
//! changes nothing, and a seed gives one outcome whatever the frame rate:
//! the steps are fixed (`Battle::advance` turns frame time into steps).
//! [`crate::reference::battle`] is the CPU twin, compared step by step in
//! the tests (`tests/tests/battle.rs`).
//!
//! # Cost
//! Linear in units: the unit dispatches read a bounded neighbourhood (the
//! separation keeps the density bounded), the grid's cells are about as
//! many as units. Each regiment scans the regiment table once; the plan
//! (`horde_tools::battle`) keeps regiments about √units, so that is linear
//! too. The frame's first step is timed part by part (the scopes `battle:
//! regiments and grid` and `battle: units` inside `battle`), so a run of
//! one step a frame shows where the step's time goes.

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

use crate::config::{MAX_REGIMENTS, READ_AHEAD_BATCH, READ_AHEAD_UNITS, REGIMENT_LANES};
use crate::gpu_types::{BattleCounts, BattleTotals, RegimentState};
use crate::passes::grid::{GridBuffers, GridPass};
use crate::reference::grid::GridLayout;
use crate::shaders;
use crate::{COUNTS_OFFSET, REGIMENTS_OFFSET, TOTALS_OFFSET};

/// Push constants of every battle shader.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Push {
    step: u32,
    unit_count: u32,
    regiment_count: u32,
    cell_count: u32,
    /// 1 while the frame draws the marks.
    marks_shown: u32,
}
const _: () = assert!(size_of::<Push>() == 20);

/// The battle as the CPU last heard of it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BattleStats {
    /// Steps done when the counts were taken.
    pub step: u32,
    pub counts: BattleCounts,
    pub totals: BattleTotals,
    /// The regiment table after that step.
    pub regiments: Vec<RegimentState>,
}

/// The battle's buffers and sizes, for one frame's steps.
#[derive(Clone, Copy, Debug)]
pub struct BattleBuffers {
    /// Header, tallies, regiments and combat records.
    pub battle: vk::Buffer,
    /// The grid, then the terrain's info and heights.
    pub grid: vk::Buffer,
    pub regiment_count: u32,
    /// Unit slots the battle covers.
    pub unit_count: u32,
}

/// The regiments' and the units' pipelines, the grid's, and a readback
/// buffer per frame slot (counts, totals and the regiment table).
pub struct BattlePass {
    regiments: ComputePipeline,
    grid: GridPass,
    units: ComputePipeline,
    readback: Vec<Buffer>,
    /// The step each slot's readback was taken at.
    steps: Vec<Option<u32>>,
    regiment_count: u32,
}

/// Bytes of the readback: counts, totals, then the regiment table.
fn readback_size(regiment_count: u32) -> u64 {
    (size_of::<BattleCounts>()
        + size_of::<BattleTotals>()
        + regiment_count as usize * size_of::<RegimentState>()) as u64
}

impl BattlePass {
    /// The pass for a battle of `regiment_count` regiments and
    /// `unit_count` units.
    pub fn new(ctx: &Context, regiment_count: u32, unit_count: u32) -> Result<BattlePass, Error> {
        let storage = vk::DescriptorType::STORAGE_BUFFER;
        let group = ctx.unit_workgroup_size();
        let readback = (0..FRAMES_IN_FLIGHT)
            .map(|slot| {
                Buffer::new(
                    ctx,
                    &format!("frame {slot} battle counts"),
                    readback_size(regiment_count),
                    vk::BufferUsageFlags::TRANSFER_DST,
                    MemoryLocation::GpuToCpu,
                )
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(BattlePass {
            regiments: ComputePipeline::new(
                ctx,
                "battle regiments",
                &shaders::BATTLE_REGIMENTS_COMP,
                &[storage],
                &[REGIMENT_LANES],
            )?,
            grid: GridPass::new(ctx)?,
            units: ComputePipeline::new(
                ctx,
                "battle units",
                &shaders::BATTLE_UNITS_COMP,
                &[storage; 4],
                &[group, entry_batch(unit_count)],
            )?,
            readback,
            steps: vec![None; FRAMES_IN_FLIGHT as usize],
            regiment_count,
        })
    }

    /// The counts the slot holds from its last frame, if any; call after the
    /// slot's fence has signalled.
    pub fn take(&mut self, slot: usize) -> Option<BattleStats> {
        let step = self.steps.get_mut(slot)?.take()?;
        let bytes = self.readback[slot].mapped()?;
        let counts_end = size_of::<BattleCounts>();
        let totals_end = counts_end + size_of::<BattleTotals>();
        let table_end = readback_size(self.regiment_count) as usize;
        Some(BattleStats {
            step,
            counts: bytemuck::pod_read_unaligned(bytes.get(..counts_end)?),
            totals: bytemuck::pod_read_unaligned(bytes.get(counts_end..totals_end)?),
            regiments: bytemuck::pod_collect_to_vec(bytes.get(totals_end..table_end)?),
        })
    }

    /// Records `steps` (step numbers), then copies the counts and the
    /// regiment table for the CPU.
    pub fn record(
        &mut self,
        frame: &mut Frame,
        units: &SimulationUnits,
        state: &BattleBuffers,
        steps: std::ops::Range<u32>,
    ) -> Result<(), Error> {
        let (placements, motions) = (units.placements, units.motions);
        let (battle, grid) = (state.battle, state.grid);
        let readback = self.readback[frame.slot].raw;
        let layout = GridLayout::new(state.unit_count);
        let mut push = Push {
            step: 0,
            unit_count: state.unit_count,
            regiment_count: state.regiment_count,
            cell_count: layout.cells,
            marks_shown: u32::from(units.marks_shown),
        };
        let counts_bytes = size_of::<BattleCounts>() as u64;
        frame.pass("battle", |frame| {
            // Every step binds the same buffers: one set per pipeline serves
            // them all, however many steps a frame records.
            let regiment_set = frame.bind_set(&self.regiments, &[Descriptor::Storage(battle)])?;
            let grid_buffers = GridBuffers {
                battle,
                placements,
                grid,
                marks: units.marks,
            };
            let grid_sets = self.grid.bind(frame, &grid_buffers)?;
            let unit_set = frame.bind_set(
                &self.units,
                &[
                    Descriptor::Storage(battle),
                    Descriptor::Storage(placements),
                    Descriptor::Storage(motions),
                    Descriptor::Storage(grid),
                ],
            )?;
            for step in steps.clone() {
                push.step = step;
                let bytes = bytemuck::bytes_of(&push);
                // The frame's first step is timed part by part.
                let first = step == steps.start;
                part(frame, first, "battle: regiments and grid", |frame| {
                    // The regiments neither read nor write the cells' counts
                    // and starts: they run beside the grid's first scan.
                    let regiment_uses = [uses(battle, Access::ComputeWrite)];
                    let lanes = push.regiment_count * REGIMENT_LANES;
                    let mut regiments = |frame: &mut Frame| {
                        frame.dispatch_with(&self.regiments, regiment_set, bytes, lanes)
                    };
                    self.grid.record(
                        frame,
                        &grid_sets,
                        &grid_buffers,
                        bytes,
                        push.unit_count,
                        step > 0,
                        (&regiment_uses, &mut regiments),
                    )
                })?;
                frame.uses(&[
                    uses(battle, Access::ComputeWrite),
                    uses(placements, Access::ComputeWrite),
                    uses(motions, Access::ComputeWrite),
                    uses(grid, Access::ComputeWrite),
                ]);
                part(frame, first, "battle: units", |frame| {
                    frame.dispatch_with(&self.units, unit_set, bytes, push.unit_count)
                })?;
            }
            frame.uses(&[
                uses(battle, Access::TransferRead),
                uses(readback, Access::TransferWrite),
            ]);
            // The copies the last step wrote: its counts, copy s & 1, and
            // its regiment table, copy (s + 1) & 1.
            let last = steps.end.wrapping_sub(1);
            let counts = COUNTS_OFFSET + u64::from(last & 1) * counts_bytes;
            let copy = u64::from(steps.end & 1) * u64::from(MAX_REGIMENTS);
            let table_bytes = u64::from(state.regiment_count) * size_of::<RegimentState>() as u64;
            let totals_bytes = size_of::<BattleTotals>() as u64;
            let regions = [
                vk::BufferCopy::default()
                    .src_offset(counts)
                    .size(counts_bytes),
                vk::BufferCopy::default()
                    .src_offset(TOTALS_OFFSET)
                    .dst_offset(counts_bytes)
                    .size(totals_bytes),
                vk::BufferCopy::default()
                    .src_offset(REGIMENTS_OFFSET + copy * size_of::<RegimentState>() as u64)
                    .dst_offset(counts_bytes + totals_bytes)
                    .size(table_bytes),
            ];
            let regions = if table_bytes == 0 {
                &regions[..2]
            } else {
                &regions[..]
            };
            // SAFETY: both regions lie within both buffers (sizes above).
            unsafe {
                frame
                    .ctx
                    .device
                    .cmd_copy_buffer(frame.cmd, battle, readback, regions)
            };
            frame.uses(&[uses(readback, Access::HostRead)]);
            Ok(())
        })?;
        self.steps[frame.slot] = Some(steps.end);
        Ok(())
    }
}

/// How many grid entries the unit step reads at a time in a battle of
/// `unit_count` units ([`READ_AHEAD_BATCH`] up to [`READ_AHEAD_UNITS`]).
pub fn entry_batch(unit_count: u32) -> u32 {
    if unit_count <= READ_AHEAD_UNITS {
        READ_AHEAD_BATCH
    } else {
        1
    }
}

/// Records `record`, timed as `name` when `timed`.
fn part(
    frame: &mut Frame,
    timed: bool,
    name: &'static str,
    record: impl FnOnce(&mut Frame) -> Result<(), Error>,
) -> Result<(), Error> {
    if timed {
        frame.timed(name, record)
    } else {
        record(frame)
    }
}
