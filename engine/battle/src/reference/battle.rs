//! The CPU twin of the battle pass (`shaders/battle/battle_lanes.comp` and
//! `shaders/battle/battle_units.comp`): the same step in plain Rust over slices, for
//! the tests, which compare the GPU with it step by step.
//!
//! Exactness: every quantity is computed with the same f32 operations in the
//! same order as the shaders, where they are `precise` (no fused
//! multiply-adds). Unlike the cull rules, the battle divides and takes square
//! roots (steering needs a direction): IEEE 754 rounds those exactly, as the
//! CPU and lavapipe do, but Vulkan lets other GPUs round them more loosely, so
//! exact agreement is checked on lavapipe; on any one device the battle is
//! deterministic all the same. The heading comes from `atan`, whose GPU
//! precision is loose everywhere: compare it with a tolerance. It is only
//! written, never read back by the rules.
//!
//! See [`crate::passes::battle`] for the rules and the data layout.

use horde::config::{
    ANIM_COMMAND_ATTACK_SHIFT, ANIM_COMMAND_DEAD, ANIM_COMMAND_HIT_SHIFT,
    ANIM_COMMAND_VARIANT_SHIFT, ANIM_COMMAND_VICTORY, ANIM_SERIAL_MASK,
};
use horde::gpu_types::{UnitMotion, UnitPlacement};

use crate::config::NO_LANE;
use crate::gpu_types::{BattleCounts, BattleRules, LaneState, UnitCombat};

/// Everything one battle step reads and writes.
#[derive(Debug)]
pub struct BattleState<'a> {
    pub combat: &'a mut [UnitCombat],
    pub placements: &'a mut [UnitPlacement],
    pub motions: &'a mut [UnitMotion],
    /// Both lane copies, one after the other.
    pub lanes: &'a mut [LaneState],
    pub counts: &'a mut BattleCounts,
}

const HALF_PI: f32 = std::f32::consts::FRAC_PI_2;
const DICE_SCALE: f32 = 1.0 / 16_777_216.0;

/// `battle_hash` of `shaders/battle.glsl` (lowbias32).
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

/// The ground vector from `from` to `to`.
fn towards(from: [f32; 2], to: [f32; 2]) -> [f32; 2] {
    [to[0] - from[0], to[1] - from[1]]
}

fn standing(lane: &LaneState) -> bool {
    lane.front < lane.unit_count
}

/// Step `step` of the battle, as the battle pass records it: the counts are
/// cleared, then the lane dispatch, then the unit dispatch.
pub fn step(rules: &BattleRules, step: u32, state: &mut BattleState) {
    let lane_count = (state.lanes.len() / 2) as u32;
    let unit_count = state.combat.len() as u32;
    *state.counts = BattleCounts::default();
    let previous = ((step & 1) * lane_count) as usize;
    let next = (((step + 1) & 1) * lane_count) as usize;
    for index in 0..lane_count as usize {
        let mut lane = state.lanes[previous + index];
        while lane.front < lane.unit_count
            && lane.first_unit + lane.front < unit_count
            && state.combat[(lane.first_unit + lane.front) as usize].health <= 0
        {
            lane.front += 1;
        }
        if standing(&lane) {
            let front = state.placements[(lane.first_unit + lane.front) as usize].position;
            lane.front_position = [front[0], front[2]];
            let target_standing =
                lane.target < lane_count && standing(&state.lanes[previous + lane.target as usize]);
            if !target_standing {
                lane.target = NO_LANE;
                let mut best = 0.0f32;
                for other in 0..lane_count {
                    let enemy = &state.lanes[previous + other as usize];
                    if enemy.army == lane.army || !standing(enemy) {
                        continue;
                    }
                    let distance = (enemy.home_z - lane.home_z).abs();
                    if lane.target == NO_LANE || distance < best {
                        lane.target = other;
                        best = distance;
                    }
                }
            }
            state.counts.alive[lane.army.min(1) as usize] += lane.unit_count - lane.front;
        }
        state.lanes[next + index] = lane;
    }
    for unit in 0..unit_count {
        unit_step(rules, step, unit, next, state);
    }
}

/// `strike` of `battle_units.comp`.
#[allow(clippy::too_many_arguments)]
fn strike(
    rules: &BattleRules,
    step: u32,
    unit: u32,
    enemy: &LaneState,
    parity: usize,
    commands: &mut u32,
    cooldown: &mut f32,
    state: &mut BattleState,
) {
    state.counts.fighting += 1;
    let target_unit = enemy.first_unit.wrapping_add(enemy.front);
    if *cooldown > 0.0
        || enemy.front >= enemy.unit_count
        || target_unit >= state.combat.len() as u32
    {
        return;
    }
    let dice = battle_dice(unit, step);
    *commands = bump_serial(*commands, ANIM_COMMAND_ATTACK_SHIFT);
    *commands = (*commands & !(ANIM_SERIAL_MASK << ANIM_COMMAND_VARIANT_SHIFT))
        | ((dice & 1) << ANIM_COMMAND_VARIANT_SHIFT);
    let jitter = (dice >> 8) as f32 * DICE_SCALE;
    let spread = 0.8 + 0.4 * jitter;
    *cooldown = rules.attack_seconds * spread;
    let damage = rules.damage_min + (dice >> 1) % rules.damage_range.max(1);
    let target = &mut state.combat[target_unit as usize].damage[parity];
    *target = target.wrapping_add(damage);
    state.counts.attacks += 1;
}

/// One thread of `battle_units.comp`.
fn unit_step(rules: &BattleRules, step: u32, unit: u32, next: usize, state: &mut BattleState) {
    let lane_count = (state.lanes.len() / 2) as u32;
    let fighter = state.combat[unit as usize];
    if fighter.lane >= lane_count {
        return;
    }
    let dt = rules.step_seconds;
    let parity = (step & 1) as usize;
    let incoming = fighter.damage[parity ^ 1];
    state.combat[unit as usize].damage[parity ^ 1] = 0;
    let lane = state.lanes[next + fighter.lane as usize];
    let mut placement = state.placements[unit as usize];
    let mut commands = state.motions[unit as usize].anim_commands;
    let mut health = fighter.health;
    let mut cooldown = fighter.cooldown;
    let mut dead_seconds = fighter.dead_seconds;
    let mut velocity = [0.0f32; 2];
    let mut speed = 0.0f32;

    if health > 0 && incoming > 0 {
        health -= incoming.min(health as u32) as i32;
        if health > 0 {
            commands = bump_serial(commands, ANIM_COMMAND_HIT_SHIFT);
        }
    }

    if health <= 0 {
        commands |= ANIM_COMMAND_DEAD;
        dead_seconds += dt;
        let sunk = (dead_seconds - rules.corpse_seconds) * rules.sink_speed;
        placement.position[1] = -sunk.clamp(0.0, rules.sink_depth);
    } else if lane.target == NO_LANE {
        commands |= ANIM_COMMAND_VICTORY;
    } else {
        let position = [placement.position[0], placement.position[2]];
        cooldown = (cooldown - dt).max(0.0);
        let mut heading = placement.heading;
        let rank = unit - lane.first_unit;
        if rank == lane.front {
            let enemy = state.lanes[next + lane.target as usize];
            let to_target = towards(position, enemy.front_position);
            let distance = (to_target[0] * to_target[0] + to_target[1] * to_target[1]).sqrt();
            if distance > rules.reach {
                let limit = if distance > rules.charge_distance {
                    rules.walk_speed
                } else {
                    rules.run_speed
                };
                speed = limit.min((distance - 0.75 * rules.reach) * rules.steering_gain);
                let per_metre = speed / distance;
                velocity = [to_target[0] * per_metre, to_target[1] * per_metre];
            } else {
                heading = to_target[0].atan2(to_target[1]);
                strike(
                    rules,
                    step,
                    unit,
                    &enemy,
                    parity,
                    &mut commands,
                    &mut cooldown,
                    state,
                );
            }
        } else {
            let behind = (rank - lane.front) as f32 * rules.spacing;
            let forward_x = if lane.army == 0 { 1.0 } else { -1.0 };
            let slot_x = lane.front_position[0] - forward_x * behind;
            let to_slot = [slot_x - position[0], lane.front_position[1] - position[1]];
            let distance = (to_slot[0] * to_slot[0] + to_slot[1] * to_slot[1]).sqrt();
            if distance > 0.0 {
                let limit = if distance > rules.catch_up_distance {
                    rules.run_speed
                } else {
                    rules.walk_speed
                };
                speed = limit.min(distance * rules.steering_gain);
                let per_metre = speed / distance;
                velocity = [to_slot[0] * per_metre, to_slot[1] * per_metre];
            }
            if speed <= 0.25 * rules.walk_speed {
                heading = if lane.army == 0 { HALF_PI } else { -HALF_PI };
            }
            if rank == lane.front + 1 {
                let enemy = state.lanes[next + lane.target as usize];
                let to_target = towards(position, enemy.front_position);
                let reach = rules.reach + rules.spacing;
                if to_target[0] * to_target[0] + to_target[1] * to_target[1] <= reach * reach {
                    heading = to_target[0].atan2(to_target[1]);
                    strike(
                        rules,
                        step,
                        unit,
                        &enemy,
                        parity,
                        &mut commands,
                        &mut cooldown,
                        state,
                    );
                }
            }
        }
        if speed > 0.25 * rules.walk_speed {
            heading = velocity[0].atan2(velocity[1]);
        }
        placement.position[0] = position[0] + velocity[0] * dt;
        placement.position[2] = position[1] + velocity[1] * dt;
        placement.heading = heading;
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
