#version 450
// The battle's unit step: one thread per unit takes its damage, then dies,
// cheers, flees, fights or keeps its slot, looking at its neighbours through
// the grid, and moves; a living unit then counts itself into the next
// step's grid. engine/battle/src/passes/battle.rs documents the
// rules; engine/battle/src/reference/battle.rs is the CPU twin, written
// operation for operation (`precise` forbids fused multiply-adds so both
// round alike).
#include "battle.glsl"

layout(local_size_x_id = 0) in;

// Other units' threads add damage to a unit's counters by atomics while its
// own thread runs, so the thread writes its other fields one by one.
layout(set = 0, binding = 0, std430) buffer Battle {
    BattleHeader header;
    RegimentTally tallies[2 * MAX_REGIMENTS];
    RegimentState regiments[2 * MAX_REGIMENTS];
    UnitCombat combat[];
};
layout(set = 0, binding = 1, std430) buffer Placements { UnitPlacement placements[]; };
layout(set = 0, binding = 2, std430) buffer Motions { UnitMotion motions[]; };
// Read: this step's starts and entries; written: the next step's counts.
layout(set = 0, binding = 3, std430) buffer Grid { uint grid[]; };
// The same binding, read-only, for the terrain after the grid's entries,
// which nothing writes: its loads may take the read-only cache path.
layout(set = 0, binding = 3, std430) readonly buffer GridTerrain { uint grid_terrain[]; };
#define TERRAIN_WORDS grid_terrain

#include "battle_grid.glsl"
#include "terrain.glsl"

const float DICE_SCALE = 1.0 / 16777216.0;

// The commands word with the 4-bit serial at `shift` advanced by one.
uint bump_serial(uint commands, uint shift) {
    uint serial = ((commands >> shift) + 1u) & ANIM_SERIAL_MASK;
    return (commands & ~(ANIM_SERIAL_MASK << shift)) | (serial << shift);
}

float length_squared(vec2 v) {
    precise float squared = v.x * v.x + v.y * v.y;
    return squared;
}

// What the unit sees through the grid: the nearest enemy within the engage
// radius (the lower unit index on a tie) and where it stands, and the
// separation push, summed as integers so the order of the cell's entries
// does not matter.
uint nearest = NO_REGIMENT;
float nearest_distance_squared = 0.0;
vec2 nearest_position = vec2(0.0);
ivec2 push_sum = ivec2(0);

// How far a unit of a regiment in `state` looks: always as far as its
// separation; while it stands, as far as its reach (an enemy within reach
// is struck); while it charges, fights or pursues, as far as the engage
// radius (it goes for the nearest enemy within it). What lies farther
// changes nothing it does.
float look_radius(BattleRules rules, uint state) {
    if (state >= STATE_CHARGING && state <= STATE_PURSUING) {
        return rules.engage_radius;
    }
    return standing(state) ? max(rules.reach, rules.separation) : rules.separation;
}

// One neighbour, as its grid entry (unit, side, x, z) tells it: a push if
// it stands too close, the nearest enemy within the engage radius.
void see(BattleRules rules, uint unit, RegimentState regiment, vec2 position, uvec4 entry) {
    uint other = entry.x;
    if (other == unit) {
        return;
    }
    bool routing = !standing(regiment.state);
    precise float separation_squared = rules.separation * rules.separation;
    precise float engage_squared = rules.engage_radius * rules.engage_radius;
    vec2 their_position = uintBitsToFloat(entry.zw);
    uint side = entry.y;
    precise vec2 to = their_position - position;
    float distance_squared = length_squared(to);
    bool ally = (side & 1u) == min(regiment.army, 1u);
    // Routing units slip through their own army's ranks.
    bool passes = ally && (routing || (side & GRID_ENTRY_BROKEN) != 0u);
    if (distance_squared < separation_squared && !passes) {
        vec2 push_apart;
        if (distance_squared > 0.0) {
            precise float distance = sqrt(distance_squared);
            precise float share = (rules.separation - distance) * 0.5 / distance;
            precise vec2 pushed = vec2(-to.x * share, -to.y * share);
            push_apart = pushed;
        } else {
            push_apart = vec2(unit < other ? rules.separation * 0.5
                                           : -rules.separation * 0.5, 0.0);
        }
        precise vec2 scaled = push_apart * float(SEPARATION_SCALE) + 0.5;
        push_sum += ivec2(floor(scaled));
    }
    if (!ally && distance_squared < engage_squared &&
        (nearest == NO_REGIMENT || distance_squared < nearest_distance_squared ||
         (distance_squared == nearest_distance_squared && other < nearest))) {
        nearest = other;
        nearest_distance_squared = distance_squared;
        nearest_position = their_position;
    }
}

// A bucket's entries are read ENTRY_BATCH at a time, their loads issued
// together: one after another, each would wait on the last. The pass
// specializes it (config.rs, READ_AHEAD_BATCH): batches in a battle of
// about one wave, which is latency-bound; 1 beyond, where occupancy counts.
layout(constant_id = 1) const uint ENTRY_BATCH = 1u;

void look_around(BattleRules rules, uint unit, RegimentState regiment, vec2 position) {
    // The cells the square of the look radius overlaps: at most the 3×3
    // around the unit's (the radius is at most a cell), often 2×2 or fewer.
    float radius = look_radius(rules, regiment.state);
    ivec2 centre = grid_cell(position, rules.engage_radius);
    precise vec2 low_corner = position - radius;
    precise vec2 high_corner = position + radius;
    ivec2 low = max(grid_cell(low_corner, rules.engage_radius), centre - 1);
    ivec2 high = min(grid_cell(high_corner, rules.engage_radius), centre + 1);
    uint buckets[9];
    uint count = 0u;
    for (int z = low.y; z <= high.y; ++z) {
        for (int x = low.x; x <= high.x; ++x) {
            uint b = grid_bucket(ivec2(x, z));
            bool seen = false;
            for (uint i = 0u; i < count; ++i) {
                seen = seen || buckets[i] == b;
            }
            if (!seen) {
                buckets[count] = b;
                count += 1u;
            }
        }
    }
    // Every bucket's range first: the loads overlap, where one bucket
    // after another would wait on each in turn.
    uint starts[9];
    uint ends[9];
    for (uint i = 0u; i < count; ++i) {
        starts[i] = grid_cell_start(buckets[i]);
        ends[i] = grid_cell_start(buckets[i] + 1u);
    }
    for (uint i = 0u; i < count; ++i) {
        for (uint first = starts[i]; first < ends[i]; first += ENTRY_BATCH) {
            // The entry holds what is read of the neighbour, so a cell's
            // neighbours are read from one place. Past the bucket's end
            // the last entry is read again and not looked at.
            uvec4 batch[ENTRY_BATCH];
            for (uint j = 0u; j < ENTRY_BATCH; ++j) {
                uint at = grid_entries() + min(first + j, ends[i] - 1u) * GRID_ENTRY_WORDS;
                batch[j] = uvec4(grid[at], grid[at + 1u], grid[at + 2u], grid[at + 3u]);
            }
            for (uint j = 0u; j < ENTRY_BATCH && first + j < ends[i]; ++j) {
                see(rules, unit, regiment, position, batch[j]);
            }
        }
    }
}

// A swing at `enemy`: an attack command for the animation, a jittered
// cooldown, and the damage added to the target's counter for this step;
// times 3/2 from a flank or in a charge, times 2 from the rear of the
// target's formation.
void strike(BattleRules rules, uint unit, uint own, RegimentState regiment, uint enemy,
            vec2 to_enemy, float distance, inout uint commands, inout float cooldown) {
    uint dice = battle_dice(unit, push.step);
    commands = bump_serial(commands, ANIM_COMMAND_ATTACK_SHIFT);
    commands = (commands & ~(ANIM_SERIAL_MASK << ANIM_COMMAND_VARIANT_SHIFT))
             | ((dice & 1u) << ANIM_COMMAND_VARIANT_SHIFT);
    precise float jitter = float(dice >> 8) * DICE_SCALE;
    precise float spread = 0.8 + 0.4 * jitter;
    cooldown = rules.attack_seconds * spread;
    uint damage = rules.damage_min + (dice >> 1) % max(rules.damage_range, 1u);
    uint target_regiment = combat[enemy].regiment;
    vec2 facing = regiments[regiments_written() + target_regiment].facing;
    // Where the blow comes from, seen from the target's formation. Front:
    // within 70° of its facing; rear: beyond 135°.
    precise float along = -(to_enemy.x * facing.x + to_enemy.y * facing.y);
    precise float front = 0.34 * distance;
    precise float rear = -0.7 * distance;
    uint tally = tallies_written() + target_regiment;
    if (along <= rear) {
        damage *= 2u;
        atomicAdd(tallies[tally].rear_hits, 1u);
        atomicAdd(header.totals.rear_attacks, 1u);
    } else if (along < front) {
        damage += damage / 2u;
        atomicAdd(tallies[tally].flank_hits, 1u);
        atomicAdd(header.totals.flank_attacks, 1u);
    } else {
        if (regiment.state == STATE_CHARGING) {
            damage += damage / 2u;
        }
        atomicAdd(tallies[tally].front_hits, 1u);
    }
    atomicAdd(combat[enemy].damage[push.step & 1u], damage);
    atomicAdd(tallies[tallies_written() + own].attacks, 1u);
    atomicAdd(header.counts[counts_written()].attacks, 1u);
}

void main() {
    uint unit = gl_GlobalInvocationID.x;
    if (unit >= push.unit_count) {
        return;
    }
    UnitCombat fighter = combat[unit];
    if (fighter.regiment >= push.regiment_count) {
        return;
    }
    BattleRules rules = header.rules;
    float dt = rules.step_seconds;
    uint parity = push.step & 1u;
    uint incoming = fighter.damage[parity ^ 1u];
    if (incoming != 0u) {
        combat[unit].damage[parity ^ 1u] = 0u;
    }
    RegimentState regiment = regiments[regiments_written() + fighter.regiment];
    uint tally = tallies_written() + fighter.regiment;
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
        precise float lying = terrain_height(placement.position.xz) - clamp(sunk, 0.0, rules.sink_depth);
        placement.position.y = lying;
    } else if (regiment.target == NO_REGIMENT && standing(regiment.state)) {
        // 2b. No enemy stands: the survivors cheer where they are.
        commands |= ANIM_COMMAND_VICTORY;
    } else {
        vec2 position = placement.position.xz;
        precise float cooled = cooldown - dt;
        cooldown = max(cooled, 0.0);
        float heading = placement.heading;
        // Read ahead, before the neighbours, its loads overlap theirs.
        vec2 slope = vec2(0.0);
        if (ENTRY_BATCH > 1u) {
            slope = terrain_slope(position);
        }
        look_around(rules, unit, regiment, position);
        precise float reach_squared = rules.reach * rules.reach;
        if (!standing(regiment.state)) {
            // 2c. Routing: run with the regiment, away from the enemy.
            speed = rules.run_speed;
            precise vec2 fleeing = regiment.facing * speed;
            velocity = fleeing;
        } else if (nearest != NO_REGIMENT && nearest_distance_squared <= reach_squared) {
            // 2d. An enemy within reach: face it and strike on a cadence.
            precise vec2 to_enemy = nearest_position - position;
            heading = atan(to_enemy.x, to_enemy.y);
            atomicAdd(header.counts[counts_written()].fighting, 1u);
            atomicAdd(tallies[tally].fighting, 1u);
            if (cooldown <= 0.0) {
                precise float distance = sqrt(nearest_distance_squared);
                strike(rules, unit, fighter.regiment, regiment, nearest, to_enemy, distance,
                       commands, cooldown);
            }
        } else if (nearest != NO_REGIMENT && regiment.state >= STATE_CHARGING &&
                   regiment.state <= STATE_PURSUING) {
            // 2e. Charging, engaged or pursuing: go for the nearest enemy.
            precise vec2 to_enemy = nearest_position - position;
            precise float distance = sqrt(nearest_distance_squared);
            precise float slowing = (distance - 0.75 * rules.reach) * rules.steering_gain;
            speed = min(rules.run_speed, slowing);
            precise float per_metre = speed / distance;
            velocity = to_enemy * per_metre;
        } else {
            // 2f. Keep the slot in the formation.
            vec2 slot = slot_position(regiment, unit - regiment.first_unit, rules.spacing);
            precise vec2 to_slot = slot - position;
            precise float distance = sqrt(length_squared(to_slot));
            if (distance > 0.0) {
                float limit = rules.walk_speed;
                if (regiment.state == STATE_CHARGING || regiment.state == STATE_PURSUING) {
                    limit = rules.charge_speed;
                } else if (distance > 2.0 * rules.spacing) {
                    limit = rules.run_speed;
                }
                precise float slowing = distance * rules.steering_gain;
                speed = min(limit, slowing);
                precise float per_metre = speed / distance;
                velocity = to_slot * per_metre;
            }
            if (speed <= 0.25 * rules.walk_speed) {
                heading = atan(regiment.facing.x, regiment.facing.y);
            }
        }
        if (speed > 0.25 * rules.walk_speed) {
            heading = atan(velocity.x, velocity.y);
        }
        if (speed != 0.0) {
            // Uphill slows a unit: its speed over the ground is divided by
            // 1 + slope_slowing × the grade it climbs; downhill is no faster.
            if (ENTRY_BATCH == 1u) {
                slope = terrain_slope(position);
            }
            precise float climb = velocity.x * slope.x + velocity.y * slope.y;
            if (climb > 0.0) {
                precise float pace = abs(speed);
                precise float slowed = pace / (pace + rules.slope_slowing * climb);
                velocity = vec2(velocity.x * slowed, velocity.y * slowed);
                speed = speed * slowed;
            }
        }
        precise vec2 pushed = vec2(push_sum) / float(SEPARATION_SCALE);
        // Pressed by its neighbours, a unit does not walk on into them: the
        // part of its velocity against the push goes, so ranks marching
        // into the backs of others stop rather than squeeze through.
        precise float against = velocity.x * pushed.x + velocity.y * pushed.y;
        precise float pushed_squared = pushed.x * pushed.x + pushed.y * pushed.y;
        if (against < 0.0 && pushed_squared > 0.0) {
            precise float share = against / pushed_squared;
            velocity = vec2(velocity.x - share * pushed.x, velocity.y - share * pushed.y);
        }
        precise vec2 moved = position + velocity * dt + pushed;
        placement.position.xz = moved;
        // Standing on the ground, over hill and valley.
        placement.position.y = terrain_height(moved);
        placement.heading = heading;
        // 3. Report to the regiment where it stands (for its mean_position).
        precise vec2 offset = (moved - regiment.anchor) * float(CENTROID_SCALE) + 0.5;
        ivec2 offset_units = ivec2(floor(offset));
        atomicAdd(tallies[tally].offset_sum[0], offset_units.x);
        atomicAdd(tallies[tally].offset_sum[1], offset_units.y);
    }
    if (health > 0) {
        atomicAdd(tallies[tally].alive, 1u);
        atomicAdd(header.counts[counts_written()].alive[min(regiment.army, 1u)], 1u);
    }

    if (health > 0) {
        // 4. Count itself into the next step's grid where it now stands
        // (the grid's count dispatch, which runs only before the first
        // step). Neighbours read positions from the grid's entries, not
        // from `grid_position`.
        combat[unit].grid_position = placement.position.xz;
        atomicAdd(grid[grid_bucket(grid_cell(placement.position.xz, rules.engage_radius))], 1u);
    }
    combat[unit].health = health;
    combat[unit].cooldown = cooldown;
    combat[unit].dead_seconds = dead_seconds;
    placements[unit] = placement;
    motions[unit] = UnitMotion(velocity, speed, commands);
}
