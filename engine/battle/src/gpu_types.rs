//! The battle's structs shared with `shaders/battle/battle.glsl`, under the
//! rules of every shared struct (`horde::gpu_types`): `#[repr(C)]` + `Pod`, a
//! `const` size assert, and offsets checked against SPIR-V reflection by
//! [`layouts`] (the battle's layout test). `passes/battle.rs` documents how
//! the battle pass uses them.

use bytemuck::{Pod, Zeroable};
use std::mem::size_of;

use horde::gpu_types::Layouts;
use horde::layout;

/// A unit's battle state (32 bytes, in the `battle` buffer after the
/// regiment table), owned by the battle pass (`passes/battle.rs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct UnitCombat {
    /// Hit points left; the unit is dead once this is ≤ 0.
    pub health: i32,
    /// Seconds until the unit may swing again.
    pub cooldown: f32,
    /// Seconds since the unit died (0 while alive).
    pub dead_seconds: f32,
    /// Its regiment, or [`NO_REGIMENT`](crate::config::NO_REGIMENT).
    pub regiment: u32,
    /// Where it stood (x, z) when the grid was built this step: what its
    /// neighbours read, as its placement is being rewritten.
    pub grid_position: [f32; 2],
    /// Damage received, summed by atomics, one counter per step parity: a
    /// step adds to its own and reads and clears the other (last step's).
    pub damage: [u32; 2],
}
const _: () = assert!(size_of::<UnitCombat>() == 32);

/// The header of the terrain (32 bytes), before the heights
/// (`terrain.rs`). The grid's buffer holds it after the entries, and
/// `terrain.glsl` reads it as words: the word offsets below are its
/// source of truth, checked against the fields here.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct TerrainInfo {
    /// World x, z of sample (0, 0).
    pub origin: [f32; 2],
    /// Metres between samples, and its inverse.
    pub spacing: f32,
    pub inverse_spacing: f32,
    /// Samples along x and z (at least 2 each).
    pub samples: [u32; 2],
    pub pad: [u32; 2],
}
const _: () = assert!(size_of::<TerrainInfo>() == 32);
const _: () = assert!(crate::config::TERRAIN_INFO_WORDS as usize * 4 == size_of::<TerrainInfo>());
const _: () = assert!(std::mem::offset_of!(TerrainInfo, origin) == 0);
const _: () = assert!(
    std::mem::offset_of!(TerrainInfo, inverse_spacing)
        == crate::config::TERRAIN_INVERSE_SPACING_WORD as usize * 4
);
const _: () = assert!(
    std::mem::offset_of!(TerrainInfo, samples) == crate::config::TERRAIN_SAMPLES_WORD as usize * 4
);

/// A regiment: its place in the plan, its formation, its orders and
/// morale (80 bytes; the table is held twice: a step reads last step's copy
/// and writes the other).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct RegimentState {
    /// 0 or 1.
    pub army: u32,
    /// `ROLE_*` of `config.rs`.
    pub role: u32,
    /// `FORMATION_*` of `config.rs`.
    pub formation: u32,
    /// `STATE_*` of `config.rs`.
    pub state: u32,
    /// Units `first_unit..first_unit + unit_count`; unit `first_unit + i`
    /// keeps slot `i`.
    pub first_unit: u32,
    pub unit_count: u32,
    /// Slots side by side in a rank (line and column).
    pub files: u32,
    /// The enemy regiment it marches on, fights or pursues;
    /// [`NO_REGIMENT`](crate::config::NO_REGIMENT) once no enemy stands.
    pub target: u32,
    /// The middle of its front rank (x, z): the formation's origin.
    pub anchor: [f32; 2],
    /// The unit vector it faces (x, z).
    pub facing: [f32; 2],
    /// The mean position of its living units, as of last step.
    pub mean_position: [f32; 2],
    /// 1 is steady; at ≤ 0 it routs.
    pub morale: f32,
    /// Seconds since its state changed (engaged: since it last fought).
    pub state_seconds: f32,
    /// Living units, as of last step.
    pub alive: u32,
    /// Times it rallied (once at most).
    pub rallies: u32,
    /// Its formation's width and depth in metres.
    pub width: f32,
    pub depth: f32,
}
const _: () = assert!(size_of::<RegimentState>() == 80);

/// What a regiment's units report in one step, summed by integer atomics
/// (32 bytes, two copies by step parity): the regiment pass reads last
/// step's.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq, Eq)]
pub struct RegimentTally {
    pub alive: u32,
    /// Units within reach of an enemy.
    pub fighting: u32,
    /// Blows taken from the front, the flanks and the rear of the formation.
    pub front_hits: u32,
    pub flank_hits: u32,
    pub rear_hits: u32,
    /// The living units' offsets from the anchor, summed in
    /// 1/[`CENTROID_SCALE`](crate::config::CENTROID_SCALE) metres.
    pub offset_sum: [i32; 2],
    /// Blows struck.
    pub attacks: u32,
}
const _: () = assert!(size_of::<RegimentTally>() == 32);

/// The battle's rules (at the head of the `battle` buffer, written once).
/// Speeds in m/s, distances in metres, times in seconds; morale losses are
/// per unit of the regiment's strength (a regiment that loses a tenth of
/// its units loses `morale_per_casualty / 10` morale).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct BattleRules {
    pub step_seconds: f32,
    /// Metres between slots of a formation.
    pub spacing: f32,
    /// Living units closer than this push apart (each half the overlap).
    pub separation: f32,
    pub walk_speed: f32,
    pub run_speed: f32,
    /// Top speed of a charge, reached `charge_ramp_seconds` into it.
    pub charge_speed: f32,
    pub charge_ramp_seconds: f32,
    /// A fighter strikes an enemy this close.
    pub reach: f32,
    /// A unit goes for enemies this close (and the grid's cell size).
    pub engage_radius: f32,
    /// A regiment charges when its target is this close.
    pub charge_distance: f32,
    /// Speed per metre of distance left (1/s): units slow as they arrive.
    pub steering_gain: f32,
    /// Mean seconds between swings.
    pub attack_seconds: f32,
    /// A hit does `damage_min + hash % damage_range` damage, times 3/2 from
    /// a flank or in a charge, times 2 from the rear.
    pub damage_min: u32,
    pub damage_range: u32,
    /// Corpses lie this long, then sink. Corpses are no obstacle.
    pub corpse_seconds: f32,
    pub sink_speed: f32,
    pub sink_depth: f32,
    /// Cosine and sine of the most a regiment wheels in one step.
    pub turn_cos: f32,
    pub turn_sin: f32,
    /// Morale lost per casualty, per blow from a flank and from the rear
    /// (each per unit of strength), per second of melee, per second per
    /// routing friend within `panic_distance`.
    pub morale_per_casualty: f32,
    pub morale_per_flank_hit: f32,
    pub morale_per_rear_hit: f32,
    pub morale_per_melee_second: f32,
    pub morale_per_panic_second: f32,
    pub panic_distance: f32,
    /// Morale regained per second out of the fight (up to 1).
    pub morale_recovery: f32,
    /// A routing regiment this far from every enemy rallies at this morale
    /// (once); farther than `flee_distance` it has fled the field.
    pub rally_distance: f32,
    pub rally_morale: f32,
    pub flee_distance: f32,
    /// An army whose broken regiments (routing, fled, destroyed) reach this
    /// fraction of it breaks: every regiment routs.
    pub army_break_fraction: f32,
    /// Seconds a regiment pursues a routing one.
    pub pursue_seconds: f32,
    /// Metres beside the enemy's flank a wing marches to before it charges.
    pub flank_offset: f32,
    /// Seconds a reserve waits before it commits if the line never falters.
    pub reserve_seconds: f32,
    /// The anchor waits while it is this far ahead of its units.
    pub anchor_lead: f32,
    /// Uphill, a unit's speed is divided by 1 + this × the grade it climbs
    /// (metres risen per metre walked); downhill is no faster.
    pub slope_slowing: f32,
    /// Keeps the header a multiple of 8 bytes, the regiment table's
    /// alignment (it holds `vec2`s).
    pub pad: f32,
}
const _: () = assert!(size_of::<BattleRules>() == 144);

/// What the battle counts in one step, read back for the HUD and the
/// report. The header holds two, by step parity: step s adds to copy
/// s & 1 while its regiment step clears the other for step s + 1, so no
/// clear of its own stands between steps.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq, Eq)]
pub struct BattleCounts {
    /// Living units per army.
    pub alive: [u32; 2],
    /// Units within reach of an enemy.
    pub fighting: u32,
    /// Swings started.
    pub attacks: u32,
    /// Regiments per army not routing, fled or destroyed.
    pub standing: [u32; 2],
    /// Regiments per army by state (`STATE_*`).
    pub regiments: [[u32; 8]; 2],
}
const _: () = assert!(size_of::<BattleCounts>() == 88);

/// What the battle counts from its start (never cleared).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq, Eq)]
pub struct BattleTotals {
    /// Blows struck into a formation's flank, and into its rear.
    pub flank_attacks: u32,
    pub rear_attacks: u32,
    /// Regiments that routed, and that rallied.
    pub routs: u32,
    pub rallies: u32,
}
const _: () = assert!(size_of::<BattleTotals>() == 16);

/// The head of the `battle` buffer: the rules, then this step's counts and
/// the totals.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct BattleHeader {
    pub rules: BattleRules,
    /// Step s's counts in copy s & 1 ([`BattleHeader::counts_of`]).
    pub counts: [BattleCounts; 2],
    pub totals: BattleTotals,
}
const _: () = assert!(size_of::<BattleHeader>() == 336);

impl BattleHeader {
    /// The counts of step `step`, once it is done (until step + 2 starts).
    pub fn counts_of(&self, step: u32) -> &BattleCounts {
        &self.counts[(step & 1) as usize]
    }
}

/// Each shared struct's member offsets, for the layout test.
pub fn layouts() -> Layouts {
    vec![
        layout!(UnitCombat {
            health,
            cooldown,
            dead_seconds,
            regiment,
            grid_position,
            damage
        }),
        layout!(RegimentState {
            army,
            role,
            formation,
            state,
            first_unit,
            unit_count,
            files,
            target,
            anchor,
            facing,
            mean_position,
            morale,
            state_seconds,
            alive,
            rallies,
            width,
            depth
        }),
        layout!(RegimentTally {
            alive,
            fighting,
            front_hits,
            flank_hits,
            rear_hits,
            offset_sum,
            attacks
        }),
        layout!(BattleRules {
            step_seconds,
            spacing,
            separation,
            walk_speed,
            run_speed,
            charge_speed,
            charge_ramp_seconds,
            reach,
            engage_radius,
            charge_distance,
            steering_gain,
            attack_seconds,
            damage_min,
            damage_range,
            corpse_seconds,
            sink_speed,
            sink_depth,
            turn_cos,
            turn_sin,
            morale_per_casualty,
            morale_per_flank_hit,
            morale_per_rear_hit,
            morale_per_melee_second,
            morale_per_panic_second,
            panic_distance,
            morale_recovery,
            rally_distance,
            rally_morale,
            flee_distance,
            army_break_fraction,
            pursue_seconds,
            flank_offset,
            reserve_seconds,
            anchor_lead,
            slope_slowing,
            pad
        }),
        layout!(BattleCounts {
            alive,
            fighting,
            attacks,
            standing,
            regiments
        }),
        layout!(BattleTotals {
            flank_attacks,
            rear_attacks,
            routs,
            rallies
        }),
        layout!(BattleHeader {
            rules,
            counts,
            totals
        }),
    ]
}
