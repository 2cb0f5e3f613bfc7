#version 450
// The battle's unit step: one thread per unit takes its damage, then dies,
// cheers, fights or keeps its place in its lane, and moves.
// engine/battle/src/passes/battle.rs documents the rules;
// engine/battle/src/reference/battle.rs is the CPU twin, written operation for
// operation (`precise` forbids fused multiply-adds so both round alike).
#include "battle.glsl"

layout(local_size_x_id = 0) in;

// Other units' threads add damage to a unit's counters by atomics while its
// own thread runs, so the thread writes its other fields one by one.
layout(set = 0, binding = 0, std430) buffer Combat { UnitCombat combat[]; };
layout(set = 0, binding = 1, std430) buffer Placements { UnitPlacement placements[]; };
layout(set = 0, binding = 2, std430) buffer Motions { UnitMotion motions[]; };
layout(set = 0, binding = 3, std430) buffer Lanes {
    BattleCounts counts;
    LaneState lanes[];
};

const float HALF_PI = 1.5707964;
const float DICE_SCALE = 1.0 / 16777216.0;

// The commands word with the 4-bit serial at `shift` advanced by one.
uint bump_serial(uint commands, uint shift) {
    uint serial = ((commands >> shift) + 1u) & ANIM_SERIAL_MASK;
    return (commands & ~(ANIM_SERIAL_MASK << shift)) | (serial << shift);
}

// Swings at the enemy lane's front unit when the cooldown allows: an attack
// command for the animation, a jittered cooldown, and the damage added to
// the target's counter for this step.
void strike(uint unit, LaneState enemy, uint parity, BattleRules rules, inout uint commands,
            inout float cooldown) {
    atomicAdd(counts.fighting, 1u);
    uint target_unit = enemy.first_unit + enemy.front;
    if (cooldown > 0.0 || enemy.front >= enemy.unit_count || target_unit >= push.unit_count) {
        return;
    }
    uint dice = battle_dice(unit, push.step);
    commands = bump_serial(commands, ANIM_COMMAND_ATTACK_SHIFT);
    commands = (commands & ~(ANIM_SERIAL_MASK << ANIM_COMMAND_VARIANT_SHIFT))
             | ((dice & 1u) << ANIM_COMMAND_VARIANT_SHIFT);
    precise float jitter = float(dice >> 8) * DICE_SCALE;
    precise float spread = 0.8 + 0.4 * jitter;
    cooldown = rules.attack_seconds * spread;
    uint damage = rules.damage_min + (dice >> 1) % max(rules.damage_range, 1u);
    atomicAdd(combat[target_unit].damage[parity], damage);
    atomicAdd(counts.attacks, 1u);
}

void main() {
    uint unit = gl_GlobalInvocationID.x;
    if (unit >= push.unit_count) {
        return;
    }
    UnitCombat fighter = combat[unit];
    if (fighter.lane >= push.lane_count) {
        return;
    }
    BattleRules rules = push.rules;
    float dt = rules.step_seconds;
    uint parity = push.step & 1u;
    uint incoming = fighter.damage[parity ^ 1u];
    if (incoming != 0u) {
        combat[unit].damage[parity ^ 1u] = 0u;
    }
    LaneState lane = lanes[next_lanes() + fighter.lane];
    UnitPlacement placement = placements[unit];
    uint commands = motions[unit].anim_commands;
    int health = fighter.health;
    float cooldown = fighter.cooldown;
    float dead_seconds = fighter.dead_seconds;
    vec2 velocity = vec2(0.0);
    float speed = 0.0;

    // 1. Last step's blows land.
    if (health > 0 && incoming > 0u) {
        health -= int(min(incoming, uint(health)));
        if (health > 0) {
            commands = bump_serial(commands, ANIM_COMMAND_HIT_SHIFT);
        }
    }

    if (health <= 0) {
        // 2a. The dead lie, then sink out of sight.
        commands |= ANIM_COMMAND_DEAD;
        precise float since = dead_seconds + dt;
        dead_seconds = since;
        precise float sunk = (dead_seconds - rules.corpse_seconds) * rules.sink_speed;
        placement.position.y = -clamp(sunk, 0.0, rules.sink_depth);
    } else if (lane.target == NO_LANE) {
        // 2b. No enemy stands: the survivors cheer where they are.
        commands |= ANIM_COMMAND_VICTORY;
    } else {
        precise vec2 position = placement.position.xz;
        precise float cooled = cooldown - dt;
        cooldown = max(cooled, 0.0);
        float heading = placement.heading;
        uint rank = unit - lane.first_unit;
        if (rank == lane.front) {
            // 2c. The front rank closes with the enemy lane's front and
            //     strikes on a cadence once within reach.
            LaneState enemy = lanes[next_lanes() + lane.target];
            precise vec2 to_target = enemy.front_position - position;
            precise float distance = sqrt(to_target.x * to_target.x + to_target.y * to_target.y);
            if (distance > rules.reach) {
                float limit = distance > rules.charge_distance ? rules.walk_speed : rules.run_speed;
                precise float slowing = (distance - 0.75 * rules.reach) * rules.steering_gain;
                speed = min(limit, slowing);
                precise float per_metre = speed / distance;
                velocity = to_target * per_metre;
            } else {
                heading = atan(to_target.x, to_target.y);
                strike(unit, enemy, parity, rules, commands, cooldown);
            }
        } else {
            // 2d. The ranks behind keep their place behind the front, so they
            //     step up as the front falls.
            precise float behind = float(rank - lane.front) * rules.spacing;
            float forward_x = lane.army == 0u ? 1.0 : -1.0;
            precise float slot_x = lane.front_position.x - forward_x * behind;
            precise vec2 to_slot = vec2(slot_x, lane.front_position.y) - position;
            precise float distance = sqrt(to_slot.x * to_slot.x + to_slot.y * to_slot.y);
            if (distance > 0.0) {
                float limit = distance > rules.catch_up_distance ? rules.run_speed : rules.walk_speed;
                precise float slowing = distance * rules.steering_gain;
                speed = min(limit, slowing);
                precise float per_metre = speed / distance;
                velocity = to_slot * per_metre;
            }
            if (speed <= 0.25 * rules.walk_speed) {
                heading = lane.army == 0u ? HALF_PI : -HALF_PI;
            }
            // 2e. The second rank strikes past the first at the enemy's front
            //     once it stands within reach of it, a rank's spacing further.
            if (rank == lane.front + 1u) {
                LaneState enemy = lanes[next_lanes() + lane.target];
                precise vec2 to_target = enemy.front_position - position;
                precise float reach = rules.reach + rules.spacing;
                precise float distance_squared = to_target.x * to_target.x + to_target.y * to_target.y;
                precise float reach_squared = reach * reach;
                if (distance_squared <= reach_squared) {
                    heading = atan(to_target.x, to_target.y);
                    strike(unit, enemy, parity, rules, commands, cooldown);
                }
            }
        }
        if (speed > 0.25 * rules.walk_speed) {
            heading = atan(velocity.x, velocity.y);
        }
        precise vec2 moved = position + velocity * dt;
        placement.position.xz = moved;
        placement.heading = heading;
    }

    combat[unit].health = health;
    combat[unit].cooldown = cooldown;
    combat[unit].dead_seconds = dead_seconds;
    placements[unit] = placement;
    motions[unit] = UnitMotion(velocity, speed, commands);
}
