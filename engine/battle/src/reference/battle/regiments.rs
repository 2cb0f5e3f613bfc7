//! The regiments' step, the CPU twin of `battle_regiments.comp`: one call
//! of [`regiment_step`] per regiment, as one thread of the shader, reading
//! the last step's copy of the regiments and tallies and writing the next.

use crate::config::{
    CENTROID_SCALE, MAX_REGIMENTS, NO_REGIMENT, REGIMENT_STATES, ROLE_CENTRE, ROLE_RESERVE,
    ROLE_WING, STATE_ADVANCING, STATE_CHARGING, STATE_DESTROYED, STATE_ENGAGED, STATE_FLED,
    STATE_HOLDING, STATE_PURSUING, STATE_ROUTING,
};
use crate::gpu_types::{BattleCounts, BattleRules, RegimentState, RegimentTally};

use super::{copies, length_squared, standing, sub, BattleState};

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
pub(super) fn regiment_step(step: u32, index: u32, state: &mut BattleState) {
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
