//! The battle demo's simulation: two armies in lanes that march, charge,
//! fight, fall and cheer, stepped on the GPU in fixed steps. An application
//! of the `horde` renderer core: it runs in the frame's simulation slot
//! ([`horde::simulation`]) and depends on the core, never the reverse.
//!
//! Layout, as the core's (one file per pass, its CPU twin under the same
//! name in `reference/`):
//! - this module: the battle's state, who stands in which lane, and the
//!   clock that turns frame time into fixed steps; [`Battle`] is the
//!   [`Simulation`] the frame records;
//! - [`passes::battle`]: the pass, its rules and its data layout;
//! - [`reference::battle`]: its CPU twin, compared step by step in the tests;
//! - [`gpu_types`] and [`config`]: the structs and constants shared with
//!   `shaders/battle/`, compiled by this crate's `build.rs`.
//!
//! A battle is set up once, after its units have spawned: the application
//! groups every fighting unit into lanes (files of units, front rank first,
//! each with an army and a place across the field) and gives each unit its
//! hit points ([`BattleSetup`]), and names [`start`] as its scene's
//! simulation. From then on the GPU owns the state; the CPU only counts
//! steps. Units outside every lane take no part.
//!
//! Buffers (device-local):
//! - `combat`: one [`UnitCombat`] per unit slot (24 bytes);
//! - `lanes`: [`BattleCounts`] (16 bytes), then two copies of the lane table
//!   ([`LaneState`], 32 bytes each): a step reads the copy its parity names
//!   and writes the other, so no lane reads a record being written.

pub mod config;
pub mod gpu_types;

/// The battle's pass, one file as the core's passes.
pub mod passes {
    pub mod battle;
}

/// The battle pass's CPU twin, named as its pass.
pub mod reference {
    pub mod battle;
}

/// One embedded SPIR-V module of `shaders/battle/`, compiled by `build.rs`.
pub mod shaders {
    #[allow(unused_imports)]
    use horde::Spirv;
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
}

use ash::vk;

use horde::context::Context;
use horde::frame::Frame;
use horde::memory::{read_buffers, upload_buffer, Buffer};
use horde::simulation::{Simulation, SimulationStart, SimulationUnits};
use horde::Error;

use crate::config::NO_LANE;
pub use crate::gpu_types::{BattleCounts, BattleRules, LaneState, UnitCombat};
use crate::passes::battle::{BattlePass, BattleStats};

/// The most steps one frame records; frame time beyond them is dropped, so
/// a stalled frame never makes the next one slower still.
pub const MAX_STEPS_PER_FRAME: u32 = 8;

/// Bytes before the first lane record in the `lanes` buffer.
pub const LANES_OFFSET: u64 = std::mem::size_of::<BattleCounts>() as u64;

impl Default for BattleRules {
    /// Rules for units about 1.8 m tall standing 1.6 m apart, at 30 steps
    /// per second.
    fn default() -> Self {
        BattleRules {
            step_seconds: 1.0 / 30.0,
            spacing: 1.6,
            walk_speed: 1.4,
            run_speed: 3.6,
            reach: 1.3,
            charge_distance: 9.0,
            catch_up_distance: 2.5,
            steering_gain: 3.0,
            attack_seconds: 1.6,
            damage_min: 15,
            damage_range: 30,
            corpse_seconds: 8.0,
            sink_speed: 0.25,
            sink_depth: 2.5,
        }
    }
}

impl BattleRules {
    /// Refuses rules the step cannot follow stably.
    pub fn validate(&self) -> Result<(), Error> {
        let positive = [
            ("step_seconds", self.step_seconds),
            ("spacing", self.spacing),
            ("walk_speed", self.walk_speed),
            ("run_speed", self.run_speed),
            ("reach", self.reach),
            ("steering_gain", self.steering_gain),
            ("attack_seconds", self.attack_seconds),
            ("sink_speed", self.sink_speed),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(Error::Config(format!(
                    "battle rule {name} = {value} must be a finite number > 0"
                )));
            }
        }
        let not_negative = [
            ("charge_distance", self.charge_distance),
            ("catch_up_distance", self.catch_up_distance),
            ("corpse_seconds", self.corpse_seconds),
            ("sink_depth", self.sink_depth),
        ];
        for (name, value) in not_negative {
            if !(value.is_finite() && value >= 0.0) {
                return Err(Error::Config(format!(
                    "battle rule {name} = {value} must be a finite number ≥ 0"
                )));
            }
        }
        if self.step_seconds > 0.1 {
            return Err(Error::Config(format!(
                "battle step of {} s is too long (at most 0.1 s)",
                self.step_seconds
            )));
        }
        // Proportional steering overshoots when one step covers more than
        // the distance left.
        if self.steering_gain * self.step_seconds >= 1.0 {
            return Err(Error::Config(format!(
                "steering gain {} × step {} s must stay below 1",
                self.steering_gain, self.step_seconds
            )));
        }
        if self.damage_min == 0 && self.damage_range <= 1 {
            return Err(Error::Config(
                "battle damage must be able to exceed 0".into(),
            ));
        }
        if self.damage_range == 0 {
            return Err(Error::Config("battle damage_range must be ≥ 1".into()));
        }
        Ok(())
    }
}

/// A lane as the application lays it out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaneSetup {
    /// 0 or 1.
    pub army: u32,
    /// Its place across the field (z); lanes that lose their enemy turn to
    /// the nearest enemy lane by this.
    pub home_z: f32,
    /// Units `first_unit..first_unit + unit_count`, front rank first.
    pub first_unit: u32,
    pub unit_count: u32,
}

/// Everything that starts a battle.
#[derive(Clone, Debug, PartialEq)]
pub struct BattleSetup {
    pub rules: BattleRules,
    pub lanes: Vec<LaneSetup>,
    /// Hit points of each unit slot, by unit id (slots outside every lane are
    /// ignored).
    pub health: Vec<i32>,
}

impl BattleSetup {
    /// The initial combat records and lane table, or why the setup is wrong.
    pub fn initial_state(
        &self,
        unit_count: u32,
    ) -> Result<(Vec<UnitCombat>, Vec<LaneState>), Error> {
        self.rules.validate()?;
        if self.lanes.len() >= NO_LANE as usize {
            return Err(Error::Config(format!(
                "{} lanes are too many",
                self.lanes.len()
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
                lane: NO_LANE,
                ..UnitCombat::default()
            };
            unit_count as usize
        ];
        let mut lanes = Vec::with_capacity(self.lanes.len());
        for (index, lane) in self.lanes.iter().enumerate() {
            if lane.army > 1 || !lane.home_z.is_finite() {
                return Err(Error::Config(format!(
                    "lane {index}: army {} (must be 0 or 1), home z {}",
                    lane.army, lane.home_z
                )));
            }
            let end = lane.first_unit.checked_add(lane.unit_count);
            let Some(end) = end.filter(|&end| end <= unit_count) else {
                return Err(Error::Config(format!(
                    "lane {index}: units {}+{} lie outside the world's {unit_count}",
                    lane.first_unit, lane.unit_count
                )));
            };
            for unit in lane.first_unit..end {
                let record = &mut combat[unit as usize];
                if record.lane != NO_LANE {
                    return Err(Error::Config(format!(
                        "unit {unit} stands in lanes {} and {index}",
                        record.lane
                    )));
                }
                record.lane = index as u32;
                record.health = self.health[unit as usize];
            }
            lanes.push(LaneState {
                first_unit: lane.first_unit,
                unit_count: lane.unit_count,
                front: 0,
                target: NO_LANE,
                front_position: [0.0; 2],
                home_z: lane.home_z,
                army: lane.army,
            });
        }
        Ok((combat, lanes))
    }
}

/// A battle under way: its GPU state and its clock.
pub struct Battle {
    pub rules: BattleRules,
    pub combat: Buffer,
    /// Counts, then the lane table twice.
    pub lanes: Buffer,
    pub lane_count: u32,
    /// Unit slots the battle covers (the world's, when it began).
    pub unit_count: u32,
    /// Steps recorded so far.
    pub step: u32,
    /// Steps the next frame records.
    pending: u32,
    /// Frame time not yet turned into a step, in seconds.
    carried: f32,
    /// The latest counts read back, a frame or two late.
    pub stats: Option<BattleStats>,
    pass: BattlePass,
}

/// The battle's GPU state, read back for tools and tests.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BattleReadback {
    pub combat: Vec<UnitCombat>,
    pub counts: BattleCounts,
    /// Both copies of the lane table, one after the other.
    pub lanes: Vec<LaneState>,
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
        let (combat, lanes) = setup.initial_state(unit_count)?;
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let mut lane_bytes = bytemuck::bytes_of(&BattleCounts::default()).to_vec();
        for _copy in 0..2 {
            lane_bytes.extend_from_slice(bytemuck::cast_slice(&lanes));
        }
        Ok(Battle {
            rules: setup.rules,
            combat: upload_buffer(ctx, "battle combat", usage, bytemuck::cast_slice(&combat))?,
            lanes: upload_buffer(ctx, "battle lanes", usage, &lane_bytes)?,
            lane_count: lanes.len() as u32,
            unit_count,
            step: 0,
            pending: 0,
            carried: 0.0,
            stats: None,
            pass: BattlePass::new(ctx)?,
        })
    }

    /// Reads the battle's GPU state back. Waits for the GPU: for tools and
    /// tests, never per frame.
    pub fn read_state(&self, ctx: &Context) -> Result<BattleReadback, Error> {
        let [combat, lanes] = read_buffers(
            ctx,
            [
                (&self.combat, self.combat.size),
                (&self.lanes, self.lanes.size),
            ],
        )?;
        let head = LANES_OFFSET as usize;
        let lane_bytes = 2 * self.lane_count as usize * std::mem::size_of::<LaneState>();
        let combat_bytes = self.unit_count as usize * std::mem::size_of::<UnitCombat>();
        Ok(BattleReadback {
            combat: bytemuck::pod_collect_to_vec(&combat[..combat_bytes]),
            counts: bytemuck::pod_read_unaligned(&lanes[..head]),
            lanes: bytemuck::pod_collect_to_vec(&lanes[head..head + lane_bytes]),
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
            rules: self.rules,
            combat: self.combat.raw,
            lanes: self.lanes.raw,
            lane_count: self.lane_count,
            unit_count: self.unit_count,
        };
        self.pass.record(frame, units, &state, steps)
    }

    /// Takes the counts the slot's frame copied; a newer step's counts are
    /// never replaced by an older one's.
    fn frame_completed(&mut self, slot: usize) {
        if let Some(stats) = self.pass.take(slot) {
            if self.stats.is_none_or(|last| stats.step >= last.step) {
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
