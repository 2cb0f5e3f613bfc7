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

use horde::config::{
    ANIM_COMMAND_ATTACK_SHIFT, ANIM_COMMAND_DEAD, ANIM_COMMAND_HIT_SHIFT,
    ANIM_COMMAND_VARIANT_SHIFT, ANIM_COMMAND_VICTORY, ANIM_SERIAL_MASK,
};
use horde::gpu_types::{UnitMotion, UnitPlacement};

use crate::config::*;
use crate::gpu_types::{
    BattleCounts, BattleHeader, BattleRules, RegimentState, RegimentTally, UnitCombat,
};
use crate::reference::grid::{
    bucket, cell_coords, neighbour_buckets, prefix_sum, GridEntry, GridLayout,
};
use crate::terrain::Terrain;

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

/// Wheels the unit vector `facing` towards the unit vector `wanted` by at
/// most the rules' turn step (`wheel` of `battle_regiments.comp`).
fn wheel(rules: &BattleRules, facing: [f32; 2], wanted: [f32; 2]) -> [f32; 2] {
    let dot = facing[0] * wanted[0] + facing[1] * wanted[1];
    if dot >= rules.turn_cos {
        return wanted;
    }
    let cross = facing[0] * wanted[1] - facing[1] * wanted[0];
    let sine = if cross >= 0.0 {
        rules.turn_sin
    } else {
        -rules.turn_sin
    };
    let turned = [
        facing[0] * rules.turn_cos - facing[1] * sine,
        facing[0] * sine + facing[1] * rules.turn_cos,
    ];
    let length = length_squared(turned).sqrt();
    [turned[0] / length, turned[1] / length]
}

/// Wheels the regiment towards `goal` and, once it faces it and its units
/// keep up, moves its anchor there at `speed` (`march` of
/// `battle_regiments.comp`).
fn march(rules: &BattleRules, regiment: &mut RegimentState, goal: [f32; 2], speed: f32) {
    let to_goal = sub(goal, regiment.anchor);
    let distance = length_squared(to_goal).sqrt();
    if distance <= 0.01 {
        return;
    }
    let wanted = [to_goal[0] / distance, to_goal[1] / distance];
    regiment.facing = wheel(rules, regiment.facing, wanted);
    let half_depth = regiment.depth * 0.5;
    let expected = [
        regiment.anchor[0] - regiment.facing[0] * half_depth,
        regiment.anchor[1] - regiment.facing[1] * half_depth,
    ];
    let lag = length_squared(sub(regiment.mean_position, expected)).sqrt();
    let aligned = regiment.facing[0] * wanted[0] + regiment.facing[1] * wanted[1];
    if aligned > 0.85 && lag < rules.anchor_lead {
        let stride = (speed * rules.step_seconds).min(distance);
        regiment.anchor = [
            regiment.anchor[0] + wanted[0] * stride,
            regiment.anchor[1] + wanted[1] * stride,
        ];
    }
}

/// One thread of `battle_regiments.comp`.
fn regiment_step(step: u32, index: u32, state: &mut BattleState) {
    let rules = state.header.rules;
    let (read, write) = copies(step);
    // Units of step s tally into copy s & 1; this step reads last step's.
    let tally_read = (((step & 1) ^ 1) * MAX_REGIMENTS) as usize;
    let tally_write = ((step & 1) * MAX_REGIMENTS) as usize;
    let mut regiment = state.regiments[read + index as usize];
    let tally = state.tallies[tally_read + index as usize];
    state.tallies[tally_write + index as usize] = RegimentTally::default();
    if index == 0 {
        // The next step's counts start from zero.
        state.header.counts[((step & 1) ^ 1) as usize] = BattleCounts::default();
    }

    if regiment.state != STATE_DESTROYED {
        let lost = regiment.alive.saturating_sub(tally.alive);
        regiment.alive = tally.alive;
        if tally.alive == 0 {
            regiment.state = STATE_DESTROYED;
            regiment.target = NO_REGIMENT;
        } else {
            let scale = tally.alive as f32 * CENTROID_SCALE as f32;
            regiment.mean_position = [
                regiment.anchor[0] + tally.offset_sum[0] as f32 / scale,
                regiment.anchor[1] + tally.offset_sum[1] as f32 / scale,
            ];
            let blows = lost as f32 * rules.morale_per_casualty
                + tally.flank_hits as f32 * rules.morale_per_flank_hit
                + tally.rear_hits as f32 * rules.morale_per_rear_hit;
            regiment.morale -= blows / regiment.unit_count.max(1) as f32;
            orders(&rules, index, &mut regiment, &tally, state, read);
        }
    }
    let army = regiment.army.min(1) as usize;
    state.header.counts[(step & 1) as usize].regiments[army]
        [regiment.state.min(REGIMENT_STATES - 1) as usize] += 1;
    if standing(regiment.state) {
        state.header.counts[(step & 1) as usize].standing[army] += 1;
    }
    state.regiments[write + index as usize] = regiment;
}

/// What a regiment learns from the whole table (last step's copy).
struct Surroundings {
    /// The nearest standing enemy regiment and its squared distance.
    nearest_standing: u32,
    /// The nearest enemy regiment still on the field and its squared distance.
    nearest_enemy: u32,
    enemy_distance_squared: f32,
    /// Its army's regiments and how many of them are broken.
    friends: u32,
    broken: u32,
    /// Routing friends within `panic_distance`.
    panicking: u32,
    /// The first broken friend of the line (not a reserve), if any.
    faltering: u32,
}

fn surroundings(
    rules: &BattleRules,
    index: u32,
    regiment: &RegimentState,
    state: &BattleState,
    read: usize,
) -> Surroundings {
    let mut seen = Surroundings {
        nearest_standing: NO_REGIMENT,
        nearest_enemy: NO_REGIMENT,
        enemy_distance_squared: 0.0,
        friends: 0,
        broken: 0,
        panicking: 0,
        faltering: NO_REGIMENT,
    };
    let mut standing_distance = 0.0f32;
    let panic_squared = rules.panic_distance * rules.panic_distance;
    for other in 0..state.regiment_count {
        let them = &state.regiments[read + other as usize];
        let distance = length_squared(sub(them.mean_position, regiment.mean_position));
        if them.army == regiment.army {
            seen.friends += 1;
            if !standing(them.state) {
                seen.broken += 1;
                if seen.faltering == NO_REGIMENT && other != index && them.role != ROLE_RESERVE {
                    seen.faltering = other;
                }
            }
            if them.state == STATE_ROUTING && other != index && distance < panic_squared {
                seen.panicking += 1;
            }
        } else {
            if standing(them.state)
                && (seen.nearest_standing == NO_REGIMENT || distance < standing_distance)
            {
                seen.nearest_standing = other;
                standing_distance = distance;
            }
            if them.state != STATE_FLED
                && them.state != STATE_DESTROYED
                && (seen.nearest_enemy == NO_REGIMENT || distance < seen.enemy_distance_squared)
            {
                seen.nearest_enemy = other;
                seen.enemy_distance_squared = distance;
            }
        }
    }
    seen
}

/// Morale, then the regiment's state machine (`orders` of
/// `battle_regiments.comp`).
fn orders(
    rules: &BattleRules,
    index: u32,
    regiment: &mut RegimentState,
    tally: &RegimentTally,
    state: &mut BattleState,
    read: usize,
) {
    let dt = rules.step_seconds;
    let seen = surroundings(rules, index, regiment, state, read);
    let in_melee = tally.fighting > 0;
    let struck = tally.front_hits + tally.flank_hits + tally.rear_hits > 0;
    regiment.state_seconds += dt;
    if in_melee {
        regiment.morale -= rules.morale_per_melee_second * dt;
    }
    regiment.morale -= seen.panicking.min(3) as f32 * rules.morale_per_panic_second * dt;
    if !in_melee && !struck && standing(regiment.state) {
        regiment.morale = (regiment.morale + rules.morale_recovery * dt).min(1.0);
    }
    let army_broken = seen.broken as f32 >= rules.army_break_fraction * seen.friends as f32;

    if !standing(regiment.state) {
        // Routing or fled: run from the nearest enemy.
        if seen.nearest_enemy != NO_REGIMENT {
            let enemy = state.regiments[read + seen.nearest_enemy as usize].mean_position;
            let away = sub(regiment.mean_position, enemy);
            let distance = length_squared(away).sqrt();
            if distance > 0.01 {
                regiment.facing = [away[0] / distance, away[1] / distance];
            }
        }
        regiment.anchor = regiment.mean_position;
        if regiment.state == STATE_ROUTING {
            let far = seen.nearest_enemy == NO_REGIMENT
                || seen.enemy_distance_squared > rules.flee_distance * rules.flee_distance;
            let calm = seen.enemy_distance_squared > rules.rally_distance * rules.rally_distance;
            if far {
                regiment.state = STATE_FLED;
                regiment.state_seconds = 0.0;
            } else if calm {
                regiment.morale += rules.morale_recovery * dt;
                if regiment.morale >= rules.rally_morale && regiment.rallies == 0 && !army_broken {
                    regiment.state = STATE_HOLDING;
                    regiment.state_seconds = 0.0;
                    regiment.rallies += 1;
                    state.header.totals.rallies += 1;
                }
            }
        }
        return;
    }
    if regiment.morale <= 0.0 || army_broken {
        regiment.state = STATE_ROUTING;
        regiment.state_seconds = 0.0;
        regiment.morale = regiment.morale.min(0.0);
        regiment.anchor = regiment.mean_position;
        state.header.totals.routs += 1;
        return;
    }
    if seen.nearest_standing == NO_REGIMENT {
        // No enemy stands: the battle is won.
        regiment.state = STATE_HOLDING;
        regiment.target = NO_REGIMENT;
        return;
    }
    let target_standing = |target: u32| {
        target < state.regiment_count && standing(state.regiments[read + target as usize].state)
    };
    let mut next = regiment.state;
    match regiment.state {
        STATE_HOLDING => {
            regiment.target = seen.nearest_standing;
            let commit = if regiment.role == ROLE_RESERVE {
                seen.faltering != NO_REGIMENT || regiment.state_seconds > rules.reserve_seconds
            } else {
                regiment.state_seconds > 3.0
            };
            if commit {
                if seen.faltering != NO_REGIMENT {
                    // Commit where the line falters: against its enemy.
                    let friend = state.regiments[read + seen.faltering as usize];
                    if target_standing(friend.target) {
                        regiment.target = friend.target;
                    }
                }
                if regiment.role == ROLE_RESERVE {
                    regiment.role = ROLE_CENTRE;
                }
                next = STATE_ADVANCING;
            }
        }
        STATE_ADVANCING => {
            if !target_standing(regiment.target) {
                regiment.target = seen.nearest_standing;
            }
            let target = state.regiments[read + regiment.target as usize];
            let mut goal = target.mean_position;
            if regiment.role == ROLE_WING {
                // March to a point beside the target's flank, on our side.
                let side = [-target.facing[1], target.facing[0]];
                let from = sub(regiment.mean_position, target.mean_position);
                let sign = if from[0] * side[0] + from[1] * side[1] >= 0.0 {
                    1.0
                } else {
                    -1.0
                };
                let out = target.width * 0.5 + rules.flank_offset;
                goal = [
                    target.mean_position[0] + side[0] * sign * out,
                    target.mean_position[1] + side[1] * sign * out,
                ];
                let left = length_squared(sub(goal, regiment.mean_position));
                if left < rules.flank_offset * rules.flank_offset {
                    // Beside the flank: turn in and charge it.
                    regiment.role = ROLE_CENTRE;
                    next = STATE_CHARGING;
                }
            } else {
                let reach = rules.charge_distance + (regiment.depth + target.depth) * 0.5;
                if length_squared(sub(target.mean_position, regiment.mean_position)) < reach * reach
                {
                    next = STATE_CHARGING;
                }
            }
            march(rules, regiment, goal, rules.walk_speed);
            if in_melee {
                next = STATE_ENGAGED;
            }
        }
        STATE_CHARGING => {
            if !target_standing(regiment.target) {
                regiment.target = seen.nearest_standing;
            }
            let target = state.regiments[read + regiment.target as usize];
            let ramp = (regiment.state_seconds / rules.charge_ramp_seconds).min(1.0);
            let speed = rules.walk_speed + (rules.charge_speed - rules.walk_speed) * ramp;
            march(rules, regiment, target.mean_position, speed);
            if in_melee {
                next = STATE_ENGAGED;
            }
        }
        STATE_ENGAGED => {
            let target = regiment.target;
            let routing = target < state.regiment_count
                && state.regiments[read + target as usize].state == STATE_ROUTING;
            if routing {
                next = STATE_PURSUING;
            } else {
                if !target_standing(target) {
                    regiment.target = seen.nearest_standing;
                }
                if in_melee {
                    regiment.state_seconds = 0.0;
                } else if regiment.state_seconds > 3.0 {
                    next = STATE_ADVANCING;
                }
                // Press on while few of its units reach the enemy; else hold
                // the formation where the fight is.
                if tally.fighting * 4 < tally.alive {
                    let goal = state.regiments[read + regiment.target as usize].mean_position;
                    march(rules, regiment, goal, rules.walk_speed * 0.5);
                }
            }
        }
        _ => {
            // Pursuing: chase the routing target for a while.
            let target = regiment.target;
            let routing = target < state.regiment_count
                && state.regiments[read + target as usize].state == STATE_ROUTING;
            if !routing || regiment.state_seconds > rules.pursue_seconds {
                regiment.target = seen.nearest_standing;
                next = STATE_ADVANCING;
            } else {
                let goal = state.regiments[read + target as usize].mean_position;
                march(rules, regiment, goal, rules.run_speed);
            }
        }
    }
    if next != regiment.state {
        regiment.state = next;
        regiment.state_seconds = 0.0;
    }
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

/// `look_radius` of `battle_units.comp`: how far a unit of a regiment in
/// `state` looks (separation; reach while standing; the engage radius while
/// charging, engaged or pursuing).
fn look_radius(rules: &BattleRules, state: u32) -> f32 {
    if (STATE_CHARGING..=STATE_PURSUING).contains(&state) {
        rules.engage_radius
    } else if standing(state) {
        rules.reach.max(rules.separation)
    } else {
        rules.separation
    }
}

/// The nearest enemy within the engage radius and the separation push, from
/// the grid (`neighbourhood` of `battle_units.comp`).
struct Neighbourhood {
    nearest: u32,
    nearest_distance_squared: f32,
    /// Where the nearest enemy stood when binned.
    nearest_position: [f32; 2],
    push: [i32; 2],
}

fn neighbourhood(
    rules: &BattleRules,
    unit: u32,
    regiment: &RegimentState,
    position: [f32; 2],
    state: &BattleState,
) -> Neighbourhood {
    let layout = GridLayout::new(state.combat.len() as u32);
    let routing = !standing(regiment.state);
    let separation_squared = rules.separation * rules.separation;
    let engage_squared = rules.engage_radius * rules.engage_radius;
    let mut found = Neighbourhood {
        nearest: NO_REGIMENT,
        nearest_distance_squared: 0.0,
        nearest_position: [0.0; 2],
        push: [0; 2],
    };
    let radius = look_radius(rules, regiment.state);
    let (buckets, count) = neighbour_buckets(position, radius, rules.engage_radius, layout.cells);
    for &b in &buckets[..count] {
        let start = layout.cell_start(state.grid, b);
        let end = layout.cell_start(state.grid, b + 1);
        for index in start..end {
            let them = layout.entry(state.grid, index);
            let other = them.unit;
            if other == unit {
                continue;
            }
            let to = sub(them.position, position);
            let distance_squared = length_squared(to);
            let friend = them.side & 1 == regiment.army.min(1);
            // Routing units slip through their own army's ranks.
            let passes = friend && (routing || them.side & GRID_ENTRY_BROKEN != 0);
            if distance_squared < separation_squared && !passes {
                let push = if distance_squared > 0.0 {
                    let distance = distance_squared.sqrt();
                    let share = (rules.separation - distance) * 0.5 / distance;
                    [-to[0] * share, -to[1] * share]
                } else if unit < other {
                    [rules.separation * 0.5, 0.0]
                } else {
                    [-rules.separation * 0.5, 0.0]
                };
                let scale = SEPARATION_SCALE as f32;
                found.push[0] += (push[0] * scale + 0.5).floor() as i32;
                found.push[1] += (push[1] * scale + 0.5).floor() as i32;
            }
            if !friend
                && distance_squared < engage_squared
                && (found.nearest == NO_REGIMENT
                    || distance_squared < found.nearest_distance_squared
                    || (distance_squared == found.nearest_distance_squared
                        && other < found.nearest))
            {
                found.nearest = other;
                found.nearest_distance_squared = distance_squared;
                found.nearest_position = them.position;
            }
        }
    }
    found
}

/// One thread of `battle_units.comp`.
fn unit_step(step: u32, unit: u32, state: &mut BattleState) {
    let rules = state.header.rules;
    let fighter = state.combat[unit as usize];
    if fighter.regiment >= state.regiment_count {
        return;
    }
    let (_, write) = copies(step);
    let tally_write = ((step & 1) * MAX_REGIMENTS) as usize;
    let dt = rules.step_seconds;
    let parity = (step & 1) as usize;
    let incoming = fighter.damage[parity ^ 1];
    state.combat[unit as usize].damage[parity ^ 1] = 0;
    let regiment = state.regiments[write + fighter.regiment as usize];
    let mut placement = state.placements[unit as usize];
    let mut commands = state.motions[unit as usize].anim_commands;
    let mut health = fighter.health;
    let mut cooldown = fighter.cooldown;
    let mut dead_seconds = fighter.dead_seconds;
    let mut velocity = [0.0f32; 2];
    let mut speed = 0.0f32;

    // 1. Last step's blows land.
    if health > 0 && incoming > 0 {
        health -= incoming.min(health as u32) as i32;
        if health > 0 {
            commands = bump_serial(commands, ANIM_COMMAND_HIT_SHIFT);
        }
    }

    if health <= 0 {
        // 2a. The dead lie, then sink out of sight.
        commands |= ANIM_COMMAND_DEAD;
        dead_seconds += dt;
        let sunk = (dead_seconds - rules.corpse_seconds) * rules.sink_speed;
        let ground = state
            .terrain
            .height([placement.position[0], placement.position[2]]);
        placement.position[1] = ground - sunk.clamp(0.0, rules.sink_depth);
    } else if regiment.target == NO_REGIMENT && standing(regiment.state) {
        // 2b. No enemy stands: the survivors cheer where they are.
        commands |= ANIM_COMMAND_VICTORY;
    } else {
        let position = [placement.position[0], placement.position[2]];
        cooldown = (cooldown - dt).max(0.0);
        let mut heading = placement.heading;
        let near = neighbourhood(&rules, unit, &regiment, position, state);
        let reach_squared = rules.reach * rules.reach;
        let routing = !standing(regiment.state);
        if routing {
            // 2c. Routing: run with the regiment, away from the enemy.
            speed = rules.run_speed;
            velocity = [regiment.facing[0] * speed, regiment.facing[1] * speed];
        } else if near.nearest != NO_REGIMENT && near.nearest_distance_squared <= reach_squared {
            // 2d. An enemy within reach: face it and strike on a cadence.
            let to_enemy = sub(near.nearest_position, position);
            heading = to_enemy[0].atan2(to_enemy[1]);
            state.header.counts[(step & 1) as usize].fighting += 1;
            state.tallies[tally_write + fighter.regiment as usize].fighting += 1;
            if cooldown <= 0.0 {
                let distance = near.nearest_distance_squared.sqrt();
                strike(
                    &rules,
                    step,
                    unit,
                    fighter.regiment,
                    &regiment,
                    near.nearest,
                    to_enemy,
                    distance,
                    &mut commands,
                    &mut cooldown,
                    state,
                );
            }
        } else if near.nearest != NO_REGIMENT
            && (STATE_CHARGING..=STATE_PURSUING).contains(&regiment.state)
        {
            // 2e. Charging, engaged or pursuing: go for the nearest enemy.
            let to_enemy = sub(near.nearest_position, position);
            let distance = near.nearest_distance_squared.sqrt();
            speed = rules
                .run_speed
                .min((distance - 0.75 * rules.reach) * rules.steering_gain);
            let per_metre = speed / distance;
            velocity = [to_enemy[0] * per_metre, to_enemy[1] * per_metre];
        } else {
            // 2f. Keep the slot in the formation.
            let slot = slot_position(&regiment, unit - regiment.first_unit, rules.spacing);
            let to_slot = sub(slot, position);
            let distance = length_squared(to_slot).sqrt();
            if distance > 0.0 {
                let limit = if regiment.state == STATE_CHARGING || regiment.state == STATE_PURSUING
                {
                    rules.charge_speed
                } else if distance > 2.0 * rules.spacing {
                    rules.run_speed
                } else {
                    rules.walk_speed
                };
                speed = limit.min(distance * rules.steering_gain);
                let per_metre = speed / distance;
                velocity = [to_slot[0] * per_metre, to_slot[1] * per_metre];
            }
            if speed <= 0.25 * rules.walk_speed {
                heading = regiment.facing[0].atan2(regiment.facing[1]);
            }
        }
        if speed > 0.25 * rules.walk_speed {
            heading = velocity[0].atan2(velocity[1]);
        }
        if speed != 0.0 {
            // Uphill slows a unit; downhill is no faster.
            let slope = state.terrain.slope(position);
            let climb = velocity[0] * slope[0] + velocity[1] * slope[1];
            if climb > 0.0 {
                let pace = speed.abs();
                let slowed = pace / (pace + rules.slope_slowing * climb);
                velocity = [velocity[0] * slowed, velocity[1] * slowed];
                speed *= slowed;
            }
        }
        let scale = SEPARATION_SCALE as f32;
        let pushed = [near.push[0] as f32 / scale, near.push[1] as f32 / scale];
        // Pressed by its neighbours, a unit does not walk on into them.
        let against = velocity[0] * pushed[0] + velocity[1] * pushed[1];
        let pushed_squared = pushed[0] * pushed[0] + pushed[1] * pushed[1];
        if against < 0.0 && pushed_squared > 0.0 {
            let share = against / pushed_squared;
            velocity = [
                velocity[0] - share * pushed[0],
                velocity[1] - share * pushed[1],
            ];
        }
        let moved = [
            position[0] + velocity[0] * dt + pushed[0],
            position[1] + velocity[1] * dt + pushed[1],
        ];
        placement.position[0] = moved[0];
        placement.position[2] = moved[1];
        // Standing on the ground, over hill and valley.
        placement.position[1] = state.terrain.height(moved);
        placement.heading = heading;
        // 3. Report to the regiment: alive, and where (for its centroid).
        let tally = &mut state.tallies[tally_write + fighter.regiment as usize];
        let offset = sub(moved, regiment.anchor);
        let centroid_scale = CENTROID_SCALE as f32;
        tally.offset_sum[0] =
            tally.offset_sum[0].wrapping_add((offset[0] * centroid_scale + 0.5).floor() as i32);
        tally.offset_sum[1] =
            tally.offset_sum[1].wrapping_add((offset[1] * centroid_scale + 0.5).floor() as i32);
    }
    if health > 0 {
        state.tallies[tally_write + fighter.regiment as usize].alive += 1;
        state.header.counts[(step & 1) as usize].alive[regiment.army.min(1) as usize] += 1;
        // 4. Counted into the next step's grid where it now stands.
        let at = [placement.position[0], placement.position[2]];
        count_into_grid(state, unit as usize, at);
    }

    let record = &mut state.combat[unit as usize];
    record.health = health;
    record.cooldown = cooldown;
    record.dead_seconds = dead_seconds;
    state.placements[unit as usize] = placement;
    state.motions[unit as usize] = UnitMotion {
        velocity,
        speed,
        anim_commands: commands,
    };
}

/// `strike` of `battle_units.comp`: a swing at `enemy`, harder from a flank
/// or in a charge and hardest from the rear of its formation.
#[allow(clippy::too_many_arguments)]
fn strike(
    rules: &BattleRules,
    step: u32,
    unit: u32,
    own: u32,
    regiment: &RegimentState,
    enemy: u32,
    to_enemy: [f32; 2],
    distance: f32,
    commands: &mut u32,
    cooldown: &mut f32,
    state: &mut BattleState,
) {
    let (_, write) = copies(step);
    let tally_write = ((step & 1) * MAX_REGIMENTS) as usize;
    let dice = battle_dice(unit, step);
    *commands = bump_serial(*commands, ANIM_COMMAND_ATTACK_SHIFT);
    *commands = (*commands & !(ANIM_SERIAL_MASK << ANIM_COMMAND_VARIANT_SHIFT))
        | ((dice & 1) << ANIM_COMMAND_VARIANT_SHIFT);
    let jitter = (dice >> 8) as f32 * DICE_SCALE;
    let spread = 0.8 + 0.4 * jitter;
    *cooldown = rules.attack_seconds * spread;
    let mut damage = rules.damage_min + (dice >> 1) % rules.damage_range.max(1);
    let target_regiment = state.combat[enemy as usize].regiment;
    let facing = state.regiments[write + target_regiment as usize].facing;
    // Where the blow comes from, seen from the target's formation.
    // Front: within 70° of its facing; rear: beyond 135°.
    let along = -(to_enemy[0] * facing[0] + to_enemy[1] * facing[1]);
    let front = 0.34 * distance;
    let rear = -0.7 * distance;
    let tally = &mut state.tallies[tally_write + target_regiment as usize];
    if along <= rear {
        damage *= 2;
        tally.rear_hits += 1;
        state.header.totals.rear_attacks += 1;
    } else if along < front {
        damage += damage / 2;
        tally.flank_hits += 1;
        state.header.totals.flank_attacks += 1;
    } else {
        if regiment.state == STATE_CHARGING {
            damage += damage / 2;
        }
        tally.front_hits += 1;
    }
    let target = &mut state.combat[enemy as usize].damage[step as usize & 1];
    *target = target.wrapping_add(damage);
    state.tallies[tally_write + own as usize].attacks += 1;
    state.header.counts[(step & 1) as usize].attacks += 1;
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
