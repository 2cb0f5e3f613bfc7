//! The units' step, the CPU twin of `battle_units.comp`: one call of
//! [`unit_step`] per unit, as one thread of the shader, after the grid is
//! built: its neighbourhood from the grid, then its move, its swing and its
//! animation commands.

use horde::config::{
    ANIM_COMMAND_ATTACK_SHIFT, ANIM_COMMAND_DEAD, ANIM_COMMAND_HIT_SHIFT,
    ANIM_COMMAND_VARIANT_SHIFT, ANIM_COMMAND_VICTORY, ANIM_SERIAL_MASK,
};
use horde::gpu_types::UnitMotion;

use crate::config::{
    CENTROID_SCALE, GRID_ENTRY_BROKEN, MAX_REGIMENTS, NO_REGIMENT, SEPARATION_SCALE,
    STATE_CHARGING, STATE_PURSUING,
};
use crate::gpu_types::{BattleRules, RegimentState};
use crate::reference::grid::{neighbour_buckets, GridLayout};

use super::{
    battle_dice, bump_serial, copies, count_into_grid, length_squared, slot_position, standing,
    sub, BattleState, DICE_SCALE,
};

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
pub(super) fn unit_step(step: u32, unit: u32, state: &mut BattleState) {
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
