//! The battle demo's simulation: two armies of regiments drawn up in a
//! battle plan, that advance, wheel, charge, fight, flank, rout, rally and
//! pursue, their units on a spatial grid, stepped on the GPU in fixed
//! steps. An application of the `horde` renderer core: it runs in the
//! frame's simulation slot ([`horde::simulation`]) and depends on the core,
//! never the reverse.
//!
//! Layout, as the core's (one file per pass, its CPU twin under the same
//! name in `reference/`):
//! - this module: the battle's setup and state, and the clock that turns
//!   frame time into fixed steps; [`Battle`] is the [`Simulation`] the frame
//!   records;
//! - [`plan`]: the battle plan (centre, wings, reserve; formations and
//!   slots) drawn up from the seed;
//! - [`passes::battle`]: the pass, its rules and its data layout;
//! - [`reference::battle`] and [`reference::grid`]: its CPU twin, compared
//!   step by step in the tests, and [`reference::battle::CpuBattle`], a
//!   whole battle on the CPU for tuning;
//! - [`terrain`]: the ground's height field, which units stand on;
//! - [`fronts`]: what the report and HUD read from the regiment table;
//! - [`gpu_types`] and [`config`]: the structs and constants shared with
//!   `shaders/battle/`, compiled by this crate's `build.rs`.
//!
//! A battle is set up once, after its units have spawned: the application
//! groups units into regiments ([`BattleSetup`], usually from [`plan`]) and
//! gives each unit its hit points, and names [`start`] as its scene's
//! simulation. From then on the GPU owns the state; the CPU only counts
//! steps. Units outside every regiment take no part.
//!
//! Buffers (device-local; `passes/battle.rs` details them):
//! - `battle`: [`BattleHeader`] (rules, counts, totals), the tallies and
//!   the regiment table twice each, one [`UnitCombat`] per unit slot;
//! - `grid`: the spatial grid ([`reference::grid::GridLayout`]), then the
//!   ground's height field ([`terrain::Terrain`]), in one buffer so that
//!   no dispatch binds more than four storage buffers (the mobile tier's
//!   limit).

pub mod config;
pub mod fronts;
pub mod gpu_types;
pub mod plan;
mod rules;
pub mod terrain;

pub use rules::RULE_NAMES;

/// The battle's pass, one file as the core's passes.
pub mod passes {
    pub mod battle;
    pub mod grid;
}

/// The CPU twins of the battle pass and of its grid, named as their passes.
pub mod reference {
    pub mod battle;
    pub mod grid;
}

/// One embedded SPIR-V module of `shaders/battle/`, compiled by `build.rs`.
pub mod shaders {
    #[allow(unused_imports)]
    use horde::Spirv;
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
}

use std::mem::size_of;

use ash::vk;

use horde::context::Context;
use horde::frame::Frame;
use horde::memory::{read_buffers, upload_buffer, Buffer};
use horde::simulation::{Simulation, SimulationStart, SimulationUnits};
use horde::Error;

use crate::config::{
    FORMATION_WEDGE, MAX_REGIMENTS, NO_REGIMENT, ROLE_RESERVE, STATE_ADVANCING, STATE_HOLDING,
};
pub use crate::gpu_types::{
    BattleCounts, BattleHeader, BattleRules, BattleTotals, RegimentState, RegimentTally, UnitCombat,
};
use crate::passes::battle::BattlePass;
pub use crate::passes::battle::BattleStats;
use crate::reference::grid::{GridLayout, MAX_CELLS};
use crate::terrain::Terrain;

/// The most steps one frame records; frame time beyond them is dropped, so
/// a stalled frame never makes the next one slower still.
pub const MAX_STEPS_PER_FRAME: u32 = 8;

/// Byte offsets of the `battle` buffer's parts.
pub const COUNTS_OFFSET: u64 = size_of::<BattleRules>() as u64;
pub const TOTALS_OFFSET: u64 = COUNTS_OFFSET + 2 * size_of::<BattleCounts>() as u64;
pub const TALLIES_OFFSET: u64 = size_of::<BattleHeader>() as u64;
const _: () = assert!(TOTALS_OFFSET + size_of::<BattleTotals>() as u64 == TALLIES_OFFSET);
pub const REGIMENTS_OFFSET: u64 =
    TALLIES_OFFSET + 2 * MAX_REGIMENTS as u64 * size_of::<RegimentTally>() as u64;
pub const COMBAT_OFFSET: u64 =
    REGIMENTS_OFFSET + 2 * MAX_REGIMENTS as u64 * size_of::<RegimentState>() as u64;

/// A regiment as the battle plan draws it up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegimentSetup {
    /// 0 or 1.
    pub army: u32,
    /// `ROLE_*` of [`config`].
    pub role: u32,
    /// `FORMATION_*` of [`config`].
    pub formation: u32,
    /// Slots side by side (line and column).
    pub files: u32,
    /// Units `first_unit..first_unit + unit_count`, slot by slot.
    pub first_unit: u32,
    pub unit_count: u32,
    /// The middle of its front rank, and the unit vector it faces (x, z).
    pub anchor: [f32; 2],
    pub facing: [f32; 2],
    /// Its morale at the start (1 is steady).
    pub morale: f32,
}

impl RegimentSetup {
    /// Its formation's width and depth in metres at `spacing`.
    pub fn extent(&self, spacing: f32) -> [f32; 2] {
        let count = self.unit_count.max(1);
        if self.formation == FORMATION_WEDGE {
            let ranks = (count as f32).sqrt().ceil();
            [(2.0 * ranks - 1.0) * spacing, ranks * spacing]
        } else {
            let files = self.files.clamp(1, count);
            [
                files as f32 * spacing,
                count.div_ceil(files) as f32 * spacing,
            ]
        }
    }

    /// Its record in the regiment table at the start.
    pub fn state(&self, spacing: f32) -> RegimentState {
        let [width, depth] = self.extent(spacing);
        RegimentState {
            army: self.army,
            role: self.role,
            formation: self.formation,
            state: if self.role == ROLE_RESERVE {
                STATE_HOLDING
            } else {
                STATE_ADVANCING
            },
            first_unit: self.first_unit,
            unit_count: self.unit_count,
            files: self.files.max(1),
            target: NO_REGIMENT,
            anchor: self.anchor,
            facing: self.facing,
            mean_position: [
                self.anchor[0] - self.facing[0] * depth * 0.5,
                self.anchor[1] - self.facing[1] * depth * 0.5,
            ],
            morale: self.morale,
            state_seconds: 0.0,
            alive: self.unit_count,
            rallies: 0,
            width,
            depth,
        }
    }
}

/// Everything that starts a battle.
#[derive(Clone, Debug, PartialEq)]
pub struct BattleSetup {
    pub rules: BattleRules,
    /// The ground the battle is fought on.
    pub terrain: Terrain,
    pub regiments: Vec<RegimentSetup>,
    /// Hit points of each unit slot, by unit id (slots outside every
    /// regiment are ignored).
    pub health: Vec<i32>,
}

/// The `battle` buffer's contents at the start, in parts.
#[derive(Clone, Debug, PartialEq)]
pub struct InitialState {
    pub header: BattleHeader,
    /// Both copies, [`MAX_REGIMENTS`] records each.
    pub tallies: Vec<RegimentTally>,
    pub regiments: Vec<RegimentState>,
    pub combat: Vec<UnitCombat>,
}

impl InitialState {
    /// The buffer's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let mut bytes = bytemuck::bytes_of(&self.header).to_vec();
        bytes.extend_from_slice(bytemuck::cast_slice(&self.tallies));
        bytes.extend_from_slice(bytemuck::cast_slice(&self.regiments));
        bytes.extend_from_slice(bytemuck::cast_slice(&self.combat));
        bytes
    }
}

impl BattleSetup {
    /// The initial `battle` buffer, or why the setup is wrong.
    pub fn initial_state(&self, unit_count: u32) -> Result<InitialState, Error> {
        self.rules.validate()?;
        self.terrain.validate()?;
        if self.regiments.len() > MAX_REGIMENTS as usize {
            return Err(Error::Config(format!(
                "{} regiments are too many (at most {MAX_REGIMENTS})",
                self.regiments.len()
            )));
        }
        if self.health.len() != unit_count as usize {
            return Err(Error::Config(format!(
                "battle setup gives hit points for {} units, the world has {unit_count}",
                self.health.len()
            )));
        }
        let mut combat = vec![
            UnitCombat {
                regiment: NO_REGIMENT,
                ..UnitCombat::default()
            };
            unit_count as usize
        ];
        let mut table = vec![RegimentState::default(); MAX_REGIMENTS as usize];
        let mut tally = vec![RegimentTally::default(); MAX_REGIMENTS as usize];
        for (index, regiment) in self.regiments.iter().enumerate() {
            let finite = regiment
                .anchor
                .iter()
                .chain(&regiment.facing)
                .all(|v| v.is_finite());
            let facing = regiment.facing[0].hypot(regiment.facing[1]);
            if regiment.army > 1
                || regiment.role > ROLE_RESERVE
                || regiment.formation > FORMATION_WEDGE
                || !finite
                || (facing - 1.0).abs() > 1e-3
                || !regiment.morale.is_finite()
            {
                return Err(Error::Config(format!(
                    "regiment {index}: army {} (0 or 1), role {}, formation {}, anchor {:?}, \
                     facing {:?} (a unit vector), morale {}",
                    regiment.army,
                    regiment.role,
                    regiment.formation,
                    regiment.anchor,
                    regiment.facing,
                    regiment.morale
                )));
            }
            let end = regiment.first_unit.checked_add(regiment.unit_count);
            let Some(end) = end.filter(|&end| end <= unit_count) else {
                return Err(Error::Config(format!(
                    "regiment {index}: units {}+{} lie outside the world's {unit_count}",
                    regiment.first_unit, regiment.unit_count
                )));
            };
            for unit in regiment.first_unit..end {
                let record = &mut combat[unit as usize];
                if record.regiment != NO_REGIMENT {
                    return Err(Error::Config(format!(
                        "unit {unit} stands in regiments {} and {index}",
                        record.regiment
                    )));
                }
                record.regiment = index as u32;
                record.health = self.health[unit as usize];
            }
            table[index] = regiment.state(self.rules.spacing);
            // Last step's tally as the first step reads it: all alive, at
            // the formation's middle.
            let state = &table[index];
            let scale = crate::config::CENTROID_SCALE as f32 * regiment.unit_count as f32;
            tally[index] = RegimentTally {
                alive: regiment.unit_count,
                offset_sum: [
                    ((state.mean_position[0] - state.anchor[0]) * scale).round() as i32,
                    ((state.mean_position[1] - state.anchor[1]) * scale).round() as i32,
                ],
                ..RegimentTally::default()
            };
        }
        let header = BattleHeader {
            rules: self.rules,
            counts: [BattleCounts::default(); 2],
            totals: BattleTotals::default(),
        };
        Ok(InitialState {
            header,
            tallies: [tally.clone(), tally].concat(),
            regiments: [table.clone(), table].concat(),
            combat,
        })
    }
}

/// A battle under way: its GPU state and its clock.
pub struct Battle {
    pub rules: BattleRules,
    /// Header, tallies, regiment table and combat records.
    pub battle: Buffer,
    /// The spatial grid, then the ground's height field ([`terrain`]):
    /// one buffer, so the unit step binds four storage buffers, the mobile
    /// tier's limit.
    pub grid: Buffer,
    pub regiment_count: u32,
    /// Unit slots the battle covers (the world's, when it began).
    pub unit_count: u32,
    /// Steps recorded so far.
    pub step: u32,
    /// Steps the next frame records.
    pending: u32,
    /// Frame time not yet turned into a step, in seconds.
    carried: f32,
    /// The latest counts and regiment table read back, a frame or two late.
    pub stats: Option<BattleStats>,
    pass: BattlePass,
}

/// The battle's GPU state, read back for tools and tests.
#[derive(Clone, Debug, PartialEq)]
pub struct BattleReadback {
    pub header: BattleHeader,
    /// Both tally copies, [`MAX_REGIMENTS`] records each.
    pub tallies: Vec<RegimentTally>,
    /// Both regiment copies, [`MAX_REGIMENTS`] records each.
    pub regiments: Vec<RegimentState>,
    pub combat: Vec<UnitCombat>,
    /// The `grid` buffer's words ([`GridLayout`]).
    pub grid: Vec<u32>,
}

/// The simulation a battle scene names: starts `setup` over the world's
/// units once they have spawned.
pub fn start(setup: BattleSetup) -> SimulationStart {
    SimulationStart::new(move |ctx: &Context, units: &SimulationUnits| {
        Ok(Box::new(Battle::new(ctx, &setup, units.count)?) as Box<dyn Simulation>)
    })
}

impl Battle {
    /// Uploads the battle's initial state and builds its pass.
    pub fn new(ctx: &Context, setup: &BattleSetup, unit_count: u32) -> Result<Battle, Error> {
        let initial = setup.initial_state(unit_count)?;
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let bytes = initial.bytes();
        let grid_layout = GridLayout::new(unit_count);
        if grid_layout.cells > MAX_CELLS {
            return Err(Error::Config(format!(
                "a battle of {unit_count} units needs a grid of {} cells; its prefix sum \
                 scans at most {MAX_CELLS}",
                grid_layout.cells
            )));
        }
        let mut grid_bytes = vec![0u8; grid_layout.words() * 4];
        grid_bytes.extend_from_slice(&setup.terrain.bytes());
        let range = u64::from(ctx.limits.max_storage_buffer_range);
        let largest = (bytes.len() as u64).max(grid_bytes.len() as u64);
        if largest > range {
            let fits = (range - COMBAT_OFFSET) / size_of::<UnitCombat>() as u64;
            return Err(Error::Config(format!(
                "a battle of {unit_count} units needs a {largest}-byte storage buffer; {} binds \
                 at most {range} (about {fits} units)",
                ctx.device_name
            )));
        }
        let regiment_count = setup.regiments.len() as u32;
        Ok(Battle {
            rules: setup.rules,
            battle: upload_buffer(ctx, "battle state", usage, &bytes)?,
            grid: upload_buffer(ctx, "battle grid and terrain", usage, &grid_bytes)?,
            regiment_count,
            unit_count,
            step: 0,
            pending: 0,
            carried: 0.0,
            stats: None,
            pass: BattlePass::new(ctx, regiment_count, unit_count)?,
        })
    }

    /// Reads the battle's GPU state back. Waits for the GPU: for tools and
    /// tests, never per frame.
    pub fn read_state(&self, ctx: &Context) -> Result<BattleReadback, Error> {
        let [battle, grid] = read_buffers(
            ctx,
            [
                (&self.battle, self.battle.size),
                (&self.grid, self.grid.size),
            ],
        )?;
        let part = |from: u64, to: u64| &battle[from as usize..to as usize];
        let combat_end =
            COMBAT_OFFSET + u64::from(self.unit_count) * size_of::<UnitCombat>() as u64;
        let grid_bytes = GridLayout::new(self.unit_count).words() * 4;
        Ok(BattleReadback {
            header: bytemuck::pod_read_unaligned(part(0, TALLIES_OFFSET)),
            tallies: bytemuck::pod_collect_to_vec(part(TALLIES_OFFSET, REGIMENTS_OFFSET)),
            regiments: bytemuck::pod_collect_to_vec(part(REGIMENTS_OFFSET, COMBAT_OFFSET)),
            combat: bytemuck::pod_collect_to_vec(part(COMBAT_OFFSET, combat_end)),
            grid: bytemuck::pod_collect_to_vec(&grid[..grid_bytes]),
        })
    }

    /// Turns `seconds` of frame time into whole steps for the next frame
    /// (at most [`MAX_STEPS_PER_FRAME`]); the remainder carries over.
    pub fn advance(&mut self, seconds: f32) {
        if !(seconds.is_finite() && seconds > 0.0) {
            return;
        }
        self.carried += seconds;
        let steps = (self.carried / self.rules.step_seconds).floor();
        self.carried -= steps * self.rules.step_seconds;
        let limit = MAX_STEPS_PER_FRAME.saturating_sub(self.pending);
        if steps > limit as f32 {
            self.carried = 0.0;
        }
        self.pending += (steps as u32).min(limit);
    }

    /// Makes the next frame record exactly `steps` more steps (headless runs
    /// and tests), beyond the per-frame limit.
    pub fn queue_steps(&mut self, steps: u32) {
        self.pending = self.pending.saturating_add(steps);
    }

    /// The steps the next frame records; they count as done from here.
    pub fn take_pending(&mut self) -> std::ops::Range<u32> {
        let first = self.step;
        self.step = self.step.saturating_add(self.pending);
        self.pending = 0;
        first..self.step
    }

    /// Seconds of battle simulated so far.
    pub fn seconds(&self) -> f32 {
        self.step as f32 * self.rules.step_seconds
    }
}

impl Simulation for Battle {
    /// Records the steps the clock has pending, then copies the counts for
    /// the CPU.
    fn record(&mut self, frame: &mut Frame, units: &SimulationUnits) -> Result<(), Error> {
        let steps = self.take_pending();
        let state = passes::battle::BattleBuffers {
            battle: self.battle.raw,
            grid: self.grid.raw,
            regiment_count: self.regiment_count,
            unit_count: self.unit_count,
        };
        self.pass.record(frame, units, &state, steps)
    }

    /// Takes the counts the slot's frame copied; a newer step's counts are
    /// never replaced by an older one's.
    fn frame_completed(&mut self, slot: usize) {
        if let Some(stats) = self.pass.take(slot) {
            if self
                .stats
                .as_ref()
                .is_none_or(|last| stats.step >= last.step)
            {
                self.stats = Some(stats);
            }
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
