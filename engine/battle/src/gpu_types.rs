//! The battle's structs shared with `shaders/battle/battle.glsl`, under the
//! rules of every shared struct (`horde::gpu_types`): `#[repr(C)]` + `Pod`, a
//! `const` size assert, and offsets checked against SPIR-V reflection by
//! [`layouts`] (the battle's layout test). `passes/battle.rs` documents how
//! the battle pass uses them.

use bytemuck::{Pod, Zeroable};
use std::mem::size_of;

use horde::gpu_types::Layouts;
use horde::layout;

/// A unit's battle state (24 bytes, storage buffer `Combat`), owned by the
/// battle pass (`passes/battle.rs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct UnitCombat {
    /// Hit points left; the unit is dead once this is ≤ 0.
    pub health: i32,
    /// Seconds until the unit may swing again.
    pub cooldown: f32,
    /// Seconds since the unit died (0 while alive).
    pub dead_seconds: f32,
    /// Its lane in the lane table.
    pub lane: u32,
    /// Damage received, summed by atomics, one counter per step parity: a
    /// step adds to its own and reads and clears the other (last step's).
    pub damage: [u32; 2],
}
const _: () = assert!(size_of::<UnitCombat>() == 24);

/// A file of units, front to back, and whom it fights (32 bytes; the storage
/// buffer `Lanes` holds [`BattleCounts`], then every lane twice: the battle
/// pass reads last step's copy and writes the other).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct LaneState {
    /// Units `first_unit..first_unit + unit_count`, front rank first.
    pub first_unit: u32,
    pub unit_count: u32,
    /// Rank of the foremost living unit; `unit_count` once all have fallen.
    pub front: u32,
    /// The enemy lane this lane fights, or [`NO_LANE`](crate::config::NO_LANE) when none is left.
    pub target: u32,
    /// Ground position (x, z) of the foremost living unit.
    pub front_position: [f32; 2],
    /// Where the lane stood across the field (z) when the battle began.
    pub home_z: f32,
    /// The army it belongs to (0 or 1).
    pub army: u32,
}
const _: () = assert!(size_of::<LaneState>() == 32);

/// The battle's rules, pushed to both battle shaders (see `passes/battle.rs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct BattleRules {
    /// Seconds per simulation step.
    pub step_seconds: f32,
    /// Metres between ranks.
    pub spacing: f32,
    pub walk_speed: f32,
    pub run_speed: f32,
    /// A fighter strikes when its target is this close (metres).
    pub reach: f32,
    /// A fighter charges (runs) when its target is closer than this.
    pub charge_distance: f32,
    /// A follower runs when its place is farther than this.
    pub catch_up_distance: f32,
    /// Speed per metre of distance left (1/s): units slow down as they arrive.
    pub steering_gain: f32,
    /// Mean seconds between swings.
    pub attack_seconds: f32,
    /// A hit does `damage_min + hash % damage_range` damage.
    pub damage_min: u32,
    pub damage_range: u32,
    /// Corpses lie this long, then sink.
    pub corpse_seconds: f32,
    /// Metres per second a corpse sinks.
    pub sink_speed: f32,
    /// How deep a corpse sinks (below the bottom of every unit).
    pub sink_depth: f32,
}
const _: () = assert!(size_of::<BattleRules>() == 56);

/// What the battle pass counts each step (the head of storage buffer
/// `Lanes`), read back for the HUD and the report.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq, Eq)]
pub struct BattleCounts {
    /// Living units per army.
    pub alive: [u32; 2],
    /// Units standing within reach of their target.
    pub fighting: u32,
    /// Swings started.
    pub attacks: u32,
}
const _: () = assert!(size_of::<BattleCounts>() == 16);

/// Each shared struct's member offsets, for the layout test.
pub fn layouts() -> Layouts {
    vec![
        layout!(UnitCombat {
            health,
            cooldown,
            dead_seconds,
            lane,
            damage
        }),
        layout!(LaneState {
            first_unit,
            unit_count,
            front,
            target,
            front_position,
            home_z,
            army
        }),
        layout!(BattleRules {
            step_seconds,
            spacing,
            walk_speed,
            run_speed,
            reach,
            charge_distance,
            catch_up_distance,
            steering_gain,
            attack_seconds,
            damage_min,
            damage_range,
            corpse_seconds,
            sink_speed,
            sink_depth
        }),
        layout!(BattleCounts {
            alive,
            fighting,
            attacks
        }),
    ]
}
