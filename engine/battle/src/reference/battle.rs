//! The CPU twin of the battle pass (`shaders/battle/*.comp`): the same step
//! in plain Rust over slices, for the tests, which compare the GPU with it
//! step by step, and for tuning the rules without a GPU.
//!
//! Exactness: every quantity is computed with the same f32 operations in the
//! same order as the shaders, where they are `precise` (no fused
//! multiply-adds). The rules divide and take square roots but never a
//! trigonometric function: a regiment's facing is a unit vector, wheeled by
//! the cosine and sine of the rules' turn step. IEEE 754 rounds division and
//! square root exactly, as the CPU and lavapipe do; Vulkan lets other GPUs
//! round them more loosely, so exact agreement is checked on lavapipe, and on
//! any one device the battle is deterministic all the same. The units'
//! headings come from `atan`, whose GPU precision is loose everywhere:
//! compare them with a tolerance. They are only written, never read back by
//! the rules.
//!
//! See [`crate::passes::battle`] for the rules and the data layout.
//!
//! One file per dispatch, as the shaders are: the regiments' step in
//! `battle/regiments.rs`, the units' in `battle/units.rs`, the grid's in
//! [`crate::reference::grid`]; here the state they share, the dice, the
//! slots of a formation, the grid's build from the units' counts, and
//! [`CpuBattle`].

use horde::config::ANIM_SERIAL_MASK;
use horde::gpu_types::{UnitMotion, UnitPlacement};

use crate::config::*;
use crate::gpu_types::{BattleCounts, BattleHeader, RegimentState, RegimentTally, UnitCombat};
use crate::reference::grid::{bucket, cell_coords, prefix_sum, GridEntry, GridLayout};
use crate::terrain::Terrain;

mod regiments;
mod units;
use regiments::regiment_step;
use units::unit_step;

/// Everything one battle step reads and writes: the `battle` buffer in
/// parts, the grid and the units' placements and motions.
#[derive(Debug)]
pub struct BattleState<'a> {
    pub header: &'a mut BattleHeader,
    /// Both tally copies, [`MAX_REGIMENTS`] records each.
    pub tallies: &'a mut [RegimentTally],
    /// Both regiment copies, [`MAX_REGIMENTS`] records each.
    pub regiments: &'a mut [RegimentState],
    pub regiment_count: u32,
    pub combat: &'a mut [UnitCombat],
    /// The `grid` buffer ([`GridLayout`]).
    pub grid: &'a mut [u32],
    pub placements: &'a mut [UnitPlacement],
    pub motions: &'a mut [UnitMotion],
    /// The ground units stand on.
    pub terrain: &'a Terrain,
}

const DICE_SCALE: f32 = 1.0 / 16_777_216.0;

/// `battle_hash` of `battle.glsl` (lowbias32).
pub fn battle_hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// `battle_dice`: the dice of `unit` at `step`.
pub fn battle_dice(unit: u32, step: u32) -> u32 {
    battle_hash(unit ^ battle_hash(step))
}

fn bump_serial(commands: u32, shift: u32) -> u32 {
    let serial = ((commands >> shift) + 1) & ANIM_SERIAL_MASK;
    (commands & !(ANIM_SERIAL_MASK << shift)) | (serial << shift)
}

fn sub(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

fn length_squared(v: [f32; 2]) -> f32 {
    v[0] * v[0] + v[1] * v[1]
}

/// A regiment that still fights: not routing, fled or destroyed.
pub fn standing(state: u32) -> bool {
    state < STATE_ROUTING
}

/// `slot_offset` of `battle.glsl`: slot `slot` of a formation as (across,
/// back) metres from the middle of its front rank.
pub fn slot_offset(formation: u32, files: u32, slot: u32, spacing: f32) -> [f32; 2] {
    if formation == FORMATION_WEDGE {
        // Rank r holds 2r + 1 slots; r² slots stand before it.
        let mut rank = (slot as f32).sqrt() as u32;
        while rank * rank > slot {
            rank -= 1;
        }
        while (rank + 1) * (rank + 1) <= slot {
            rank += 1;
        }
        let across = (slot - rank * rank) as f32 - rank as f32;
        [across * spacing, rank as f32 * spacing]
    } else {
        let files = files.max(1);
        let rank = slot / files;
        let file = slot % files;
        let across = file as f32 - (files - 1) as f32 * 0.5;
        [across * spacing, rank as f32 * spacing]
    }
}

/// `slot_position` of `battle.glsl`: where slot `slot` of `regiment` stands.
pub fn slot_position(regiment: &RegimentState, slot: u32, spacing: f32) -> [f32; 2] {
    let offset = slot_offset(regiment.formation, regiment.files, slot, spacing);
    let f = regiment.facing;
    // The side vector is the facing turned a quarter to the left.
    let side = [-f[1], f[0]];
    [
        regiment.anchor[0] + side[0] * offset[0] - f[0] * offset[1],
        regiment.anchor[1] + side[1] * offset[0] - f[1] * offset[1],
    ]
}

/// Step `step` of the battle, as the battle pass records it: the regiment
/// dispatch, the grid's and the unit dispatch.
pub fn step(step: u32, state: &mut BattleState) {
    for regiment in 0..state.regiment_count {
        regiment_step(step, regiment, state);
    }
    if step == 0 {
        count_grid(state);
    }
    build_grid(step, state);
    for unit in 0..state.combat.len() as u32 {
        unit_step(step, unit, state);
    }
}

/// The first record of the copy step `step` reads (`regiments_read` of
/// `battle.glsl`), and of the copy it writes.
fn copies(step: u32) -> (usize, usize) {
    let read = (step & 1) * MAX_REGIMENTS;
    let write = ((step + 1) & 1) * MAX_REGIMENTS;
    (read as usize, write as usize)
}

/// Counts `unit`, living and standing at `position`, into its grid cell
/// and notes the position as its `grid_position`.
fn count_into_grid(state: &mut BattleState, unit: usize, position: [f32; 2]) {
    let layout = GridLayout::new(state.combat.len() as u32);
    let engage_radius = state.header.rules.engage_radius;
    state.combat[unit].grid_position = position;
    let cell = bucket(cell_coords(position, engage_radius), layout.cells);
    state.grid[layout.counts() + cell as usize] += 1;
}

/// `battle_grid_count.comp`, before the battle's first step (later steps'
/// units count themselves in): every living unit of a regiment counted
/// into its cell where it stands.
pub fn count_grid(state: &mut BattleState) {
    for unit in 0..state.combat.len() {
        let fighter = state.combat[unit];
        if fighter.regiment >= state.regiment_count || fighter.health <= 0 {
            continue;
        }
        let p = state.placements[unit].position;
        count_into_grid(state, unit, [p[0], p[2]]);
    }
}

/// The grid's dispatches of step `step` after the counts: the scans, then
/// the scatter (which reads the regiments the step's regiment dispatch
/// wrote).
pub fn build_grid(step: u32, state: &mut BattleState) {
    let rules = state.header.rules;
    let (_, write) = copies(step);
    let layout = GridLayout::new(state.combat.len() as u32);
    prefix_sum(&layout, state.grid);
    for unit in 0..state.combat.len() {
        let fighter = state.combat[unit];
        if fighter.regiment >= state.regiment_count || fighter.health <= 0 {
            continue;
        }
        let cell = bucket(
            cell_coords(fighter.grid_position, rules.engage_radius),
            layout.cells,
        );
        let count = &mut state.grid[layout.counts() + cell as usize];
        *count -= 1;
        let slot =
            layout.cell_start(state.grid, cell) + state.grid[layout.counts() + cell as usize];
        let regiment = &state.regiments[write + fighter.regiment as usize];
        let broken = if standing(regiment.state) {
            0
        } else {
            GRID_ENTRY_BROKEN
        };
        let entry = GridEntry {
            unit: unit as u32,
            side: regiment.army.min(1) | broken,
            position: fighter.grid_position,
        };
        layout.set_entry(state.grid, slot, &entry);
    }
}

/// A whole battle on the CPU: the twin stepped over its own buffers, for
/// tuning the rules and for tests of battles too long for lavapipe.
#[derive(Clone, Debug)]
pub struct CpuBattle {
    pub header: BattleHeader,
    pub tallies: Vec<RegimentTally>,
    pub regiments: Vec<RegimentState>,
    pub regiment_count: u32,
    pub combat: Vec<UnitCombat>,
    pub grid: Vec<u32>,
    pub placements: Vec<UnitPlacement>,
    pub motions: Vec<UnitMotion>,
    pub terrain: Terrain,
    /// Steps done.
    pub step: u32,
}

impl CpuBattle {
    /// The battle of `setup`, its units standing at `placements`
    /// (`plan::BattlePlan::placements`).
    pub fn new(
        setup: &crate::BattleSetup,
        placements: Vec<UnitPlacement>,
    ) -> Result<CpuBattle, horde::Error> {
        let units = placements.len() as u32;
        let initial = setup.initial_state(units)?;
        Ok(CpuBattle {
            header: initial.header,
            tallies: initial.tallies,
            regiments: initial.regiments,
            regiment_count: setup.regiments.len() as u32,
            combat: initial.combat,
            grid: vec![0; GridLayout::new(units).words()],
            placements,
            motions: vec![UnitMotion::default(); units as usize],
            terrain: setup.terrain.clone(),
            step: 0,
        })
    }

    /// Runs one step.
    pub fn step(&mut self) {
        step(self.step, &mut self.state());
        self.step += 1;
    }

    /// Its state, as the step functions take it.
    pub fn state(&mut self) -> BattleState<'_> {
        BattleState {
            header: &mut self.header,
            tallies: &mut self.tallies,
            regiments: &mut self.regiments,
            regiment_count: self.regiment_count,
            combat: &mut self.combat,
            grid: &mut self.grid,
            placements: &mut self.placements,
            motions: &mut self.motions,
            terrain: &self.terrain,
        }
    }

    /// The regiment table the last step wrote.
    pub fn regiment_table(&self) -> &[RegimentState] {
        let copy = (self.step & 1) * MAX_REGIMENTS;
        &self.regiments[copy as usize..(copy + self.regiment_count) as usize]
    }

    /// What the last step counted (zeros before the first).
    pub fn counts(&self) -> &BattleCounts {
        self.header.counts_of(self.step.wrapping_sub(1))
    }

    /// Seconds of battle so far.
    pub fn seconds(&self) -> f32 {
        self.step as f32 * self.header.rules.step_seconds
    }
}
