#version 450
// The battle's regiment step: one workgroup of REGIMENT_LANES threads per
// regiment scans last step's regiment table together, then its first
// thread reads its units' tally, updates morale and gives orders (hold,
// advance, wheel, charge, engage, pursue, rout, rally).
// engine/battle/src/passes/battle.rs documents it; reference/battle.rs is
// the CPU twin, operation for operation.
#include "battle.glsl"

layout(local_size_x_id = 0) in;
// The pass specializes the group size to REGIMENT_LANES.

layout(set = 0, binding = 0, std430) buffer Battle {
    BattleHeader header;
    RegimentTally tallies[2 * MAX_REGIMENTS];
    RegimentState regiments[2 * MAX_REGIMENTS];
    UnitCombat combat[];
};

float length_squared(vec2 v) {
    precise float squared = v.x * v.x + v.y * v.y;
    return squared;
}

// Wheels the unit vector `facing` towards the unit vector `wanted` by at
// most the rules' turn step.
vec2 wheel(BattleRules rules, vec2 facing, vec2 wanted) {
    precise float dot_product = facing.x * wanted.x + facing.y * wanted.y;
    if (dot_product >= rules.turn_cos) {
        return wanted;
    }
    precise float cross_product = facing.x * wanted.y - facing.y * wanted.x;
    float sine = cross_product >= 0.0 ? rules.turn_sin : -rules.turn_sin;
    precise float x = facing.x * rules.turn_cos - facing.y * sine;
    precise float z = facing.x * sine + facing.y * rules.turn_cos;
    precise float len = sqrt(length_squared(vec2(x, z)));
    precise vec2 turned = vec2(x / len, z / len);
    return turned;
}

// Wheels towards `goal` and, once facing it with the units keeping up,
// moves the anchor there at `speed`.
void march(BattleRules rules, inout RegimentState regiment, vec2 goal, float speed) {
    precise vec2 to_goal = goal - regiment.anchor;
    precise float distance = sqrt(length_squared(to_goal));
    if (distance <= 0.01) {
        return;
    }
    precise vec2 wanted = vec2(to_goal.x / distance, to_goal.y / distance);
    regiment.facing = wheel(rules, regiment.facing, wanted);
    precise float half_depth = regiment.depth * 0.5;
    precise vec2 expected = vec2(regiment.anchor.x - regiment.facing.x * half_depth,
                                 regiment.anchor.y - regiment.facing.y * half_depth);
    precise float lag = sqrt(length_squared(regiment.mean_position - expected));
    precise float aligned = regiment.facing.x * wanted.x + regiment.facing.y * wanted.y;
    if (aligned > 0.85 && lag < rules.anchor_lead) {
        precise float stride = min(speed * rules.step_seconds, distance);
        precise vec2 moved = vec2(regiment.anchor.x + wanted.x * stride,
                                  regiment.anchor.y + wanted.y * stride);
        regiment.anchor = moved;
    }
}

bool target_standing(uint target) {
    return target < push.regiment_count && standing(regiments[regiments_read() + target].state);
}

bool target_routing(uint target) {
    return target < push.regiment_count &&
           regiments[regiments_read() + target].state == STATE_ROUTING;
}

// What the whole table (last step's copy) tells a regiment.
struct Scan {
    uint friends;
    uint broken;
    uint panicking;
    // The first broken regiment of its army other than itself and not a
    // reserve; NO_REGIMENT if none.
    uint faltering;
    // The nearest standing enemy regiment, and the nearest not gone from the
    // field; ties to the lower index.
    uint nearest_standing;
    float standing_distance;
    uint nearest_enemy;
    float enemy_distance;
};

shared Scan lanes[REGIMENT_LANES];

// Whether (distance, index) `b` is nearer than `a`: a found one beats none,
// a shorter distance a longer, the lower index an equal distance.
bool nearer(uint a, float a_distance, uint b, float b_distance) {
    return b != NO_REGIMENT &&
           (a == NO_REGIMENT || b_distance < a_distance || (b_distance == a_distance && b < a));
}

// This lane's part of the table (every REGIMENT_LANES'th record from
// `lane`), as seen from regiment `index` of `army` at `position`.
Scan scan_part(BattleRules rules, uint index, uint army, vec2 position, uint lane) {
    uint read = regiments_read();
    Scan found = Scan(0u, 0u, 0u, NO_REGIMENT, NO_REGIMENT, 0.0, NO_REGIMENT, 0.0);
    precise float panic_squared = rules.panic_distance * rules.panic_distance;
    for (uint other = lane; other < push.regiment_count; other += REGIMENT_LANES) {
        RegimentState them = regiments[read + other];
        float distance = length_squared(them.mean_position - position);
        if (them.army == army) {
            found.friends += 1u;
            if (!standing(them.state)) {
                found.broken += 1u;
                if (found.faltering == NO_REGIMENT && other != index && them.role != ROLE_RESERVE) {
                    found.faltering = other;
                }
            }
            if (them.state == STATE_ROUTING && other != index && distance < panic_squared) {
                found.panicking += 1u;
            }
        } else {
            if (standing(them.state) &&
                nearer(found.nearest_standing, found.standing_distance, other, distance)) {
                found.nearest_standing = other;
                found.standing_distance = distance;
            }
            if (them.state != STATE_FLED && them.state != STATE_DESTROYED &&
                nearer(found.nearest_enemy, found.enemy_distance, other, distance)) {
                found.nearest_enemy = other;
                found.enemy_distance = distance;
            }
        }
    }
    return found;
}

// The lanes' parts combined: sums, and minima with ties to the lower index,
// so the result is the serial scan's whatever the order.
Scan combine(Scan a, Scan b) {
    Scan c = a;
    c.friends += b.friends;
    c.broken += b.broken;
    c.panicking += b.panicking;
    c.faltering = min(a.faltering, b.faltering);
    if (nearer(a.nearest_standing, a.standing_distance, b.nearest_standing, b.standing_distance)) {
        c.nearest_standing = b.nearest_standing;
        c.standing_distance = b.standing_distance;
    }
    if (nearer(a.nearest_enemy, a.enemy_distance, b.nearest_enemy, b.enemy_distance)) {
        c.nearest_enemy = b.nearest_enemy;
        c.enemy_distance = b.enemy_distance;
    }
    return c;
}

// Morale, then the state machine, for a regiment with living units.
void orders(BattleRules rules, inout RegimentState regiment, RegimentTally tally, Scan scan) {
    float dt = rules.step_seconds;
    uint read = regiments_read();
    uint nearest_standing = scan.nearest_standing;
    uint nearest_enemy = scan.nearest_enemy;
    float enemy_distance = scan.enemy_distance;
    uint friends = scan.friends;
    uint broken = scan.broken;
    uint panicking = scan.panicking;
    uint faltering = scan.faltering;
    bool in_melee = tally.fighting > 0u;
    bool struck = tally.front_hits + tally.flank_hits + tally.rear_hits > 0u;
    precise float seconds = regiment.state_seconds + dt;
    regiment.state_seconds = seconds;
    if (in_melee) {
        precise float tired = regiment.morale - rules.morale_per_melee_second * dt;
        regiment.morale = tired;
    }
    precise float panic = float(min(panicking, 3u)) * rules.morale_per_panic_second * dt;
    precise float shaken = regiment.morale - panic;
    regiment.morale = shaken;
    if (!in_melee && !struck && standing(regiment.state)) {
        precise float recovered = regiment.morale + rules.morale_recovery * dt;
        regiment.morale = min(recovered, 1.0);
    }
    precise float break_point = rules.army_break_fraction * float(friends);
    bool army_broken = float(broken) >= break_point;

    if (!standing(regiment.state)) {
        // Routing or fled: run from the nearest enemy.
        if (nearest_enemy != NO_REGIMENT) {
            precise vec2 away = regiment.mean_position - regiments[read + nearest_enemy].mean_position;
            precise float distance = sqrt(length_squared(away));
            if (distance > 0.01) {
                precise vec2 direction = vec2(away.x / distance, away.y / distance);
                regiment.facing = direction;
            }
        }
        regiment.anchor = regiment.mean_position;
        if (regiment.state == STATE_ROUTING) {
            precise float flee_squared = rules.flee_distance * rules.flee_distance;
            precise float rally_squared = rules.rally_distance * rules.rally_distance;
            bool far_off = nearest_enemy == NO_REGIMENT || enemy_distance > flee_squared;
            bool calm = enemy_distance > rally_squared;
            if (far_off) {
                regiment.state = STATE_FLED;
                regiment.state_seconds = 0.0;
            } else if (calm) {
                precise float recovered = regiment.morale + rules.morale_recovery * dt;
                regiment.morale = recovered;
                if (regiment.morale >= rules.rally_morale && regiment.rallies == 0u && !army_broken) {
                    regiment.state = STATE_HOLDING;
                    regiment.state_seconds = 0.0;
                    regiment.rallies += 1u;
                    atomicAdd(header.totals.rallies, 1u);
                }
            }
        }
        return;
    }
    if (regiment.morale <= 0.0 || army_broken) {
        regiment.state = STATE_ROUTING;
        regiment.state_seconds = 0.0;
        regiment.morale = min(regiment.morale, 0.0);
        regiment.anchor = regiment.mean_position;
        atomicAdd(header.totals.routs, 1u);
        return;
    }
    if (nearest_standing == NO_REGIMENT) {
        // No enemy stands: the battle is won.
        regiment.state = STATE_HOLDING;
        regiment.target = NO_REGIMENT;
        return;
    }
    uint next = regiment.state;
    if (regiment.state == STATE_HOLDING) {
        regiment.target = nearest_standing;
        bool commit = regiment.role == ROLE_RESERVE
            ? (faltering != NO_REGIMENT || regiment.state_seconds > rules.reserve_seconds)
            : regiment.state_seconds > 3.0;
        if (commit) {
            if (faltering != NO_REGIMENT) {
                // Commit where the line falters: against its enemy.
                uint their_enemy = regiments[read + faltering].target;
                if (target_standing(their_enemy)) {
                    regiment.target = their_enemy;
                }
            }
            if (regiment.role == ROLE_RESERVE) {
                regiment.role = ROLE_CENTRE;
            }
            next = STATE_ADVANCING;
        }
    } else if (regiment.state == STATE_ADVANCING) {
        if (!target_standing(regiment.target)) {
            regiment.target = nearest_standing;
        }
        RegimentState target = regiments[read + regiment.target];
        vec2 goal = target.mean_position;
        if (regiment.role == ROLE_WING) {
            // March to a point beside the target's flank, on our side.
            vec2 side = vec2(-target.facing.y, target.facing.x);
            precise vec2 from = regiment.mean_position - target.mean_position;
            precise float along = from.x * side.x + from.y * side.y;
            float sign_side = along >= 0.0 ? 1.0 : -1.0;
            precise float out_distance = target.width * 0.5 + rules.flank_offset;
            precise vec2 beside = vec2(target.mean_position.x + side.x * sign_side * out_distance,
                                       target.mean_position.y + side.y * sign_side * out_distance);
            goal = beside;
            precise float flank_squared = rules.flank_offset * rules.flank_offset;
            if (length_squared(goal - regiment.mean_position) < flank_squared) {
                // Beside the flank: turn in and charge it.
                regiment.role = ROLE_CENTRE;
                next = STATE_CHARGING;
            }
        } else {
            precise float reach = rules.charge_distance + (regiment.depth + target.depth) * 0.5;
            precise float reach_squared = reach * reach;
            if (length_squared(target.mean_position - regiment.mean_position) < reach_squared) {
                next = STATE_CHARGING;
            }
        }
        march(rules, regiment, goal, rules.walk_speed);
        if (in_melee) {
            next = STATE_ENGAGED;
        }
    } else if (regiment.state == STATE_CHARGING) {
        if (!target_standing(regiment.target)) {
            regiment.target = nearest_standing;
        }
        vec2 goal = regiments[read + regiment.target].mean_position;
        precise float ramp = min(regiment.state_seconds / rules.charge_ramp_seconds, 1.0);
        precise float speed = rules.walk_speed + (rules.charge_speed - rules.walk_speed) * ramp;
        march(rules, regiment, goal, speed);
        if (in_melee) {
            next = STATE_ENGAGED;
        }
    } else if (regiment.state == STATE_ENGAGED) {
        if (target_routing(regiment.target)) {
            next = STATE_PURSUING;
        } else {
            if (!target_standing(regiment.target)) {
                regiment.target = nearest_standing;
            }
            if (in_melee) {
                regiment.state_seconds = 0.0;
            } else if (regiment.state_seconds > 3.0) {
                next = STATE_ADVANCING;
            }
            // Press on while few of its units reach the enemy; else hold
            // the formation where the fight is.
            if (tally.fighting * 4u < tally.alive) {
                vec2 goal = regiments[read + regiment.target].mean_position;
                precise float press = rules.walk_speed * 0.5;
                march(rules, regiment, goal, press);
            }
        }
    } else {
        // Pursuing: chase the routing target for a while.
        if (!target_routing(regiment.target) || regiment.state_seconds > rules.pursue_seconds) {
            regiment.target = nearest_standing;
            next = STATE_ADVANCING;
        } else {
            march(rules, regiment, regiments[read + regiment.target].mean_position, rules.run_speed);
        }
    }
    if (next != regiment.state) {
        regiment.state = next;
        regiment.state_seconds = 0.0;
    }
}

void main() {
    uint index = gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationID.x;
    BattleRules rules = header.rules;
    // This step's units tally into a cleared copy; the other is last step's.
    uint tally_write = tallies_written();
    uint tally_read = (tally_write == 0u ? MAX_REGIMENTS : 0u);
    RegimentState regiment = regiments[regiments_read() + index];
    RegimentTally tally = tallies[tally_read + index];
    bool alive = regiment.state != STATE_DESTROYED && tally.alive > 0u;
    if (alive) {
        precise float scale = float(tally.alive) * float(CENTROID_SCALE);
        precise vec2 mean_position = vec2(regiment.anchor.x + float(tally.offset_sum[0]) / scale,
                                     regiment.anchor.y + float(tally.offset_sum[1]) / scale);
        regiment.mean_position = mean_position;
    }
    // Every lane of the group takes the same branch: the scan and its
    // reduction run for the whole group.
    lanes[lane] = scan_part(rules, index, regiment.army, regiment.mean_position, lane);
    barrier();
    for (uint stride = REGIMENT_LANES / 2u; stride > 0u; stride /= 2u) {
        if (lane < stride) {
            lanes[lane] = combine(lanes[lane], lanes[lane + stride]);
        }
        barrier();
    }
    if (lane != 0u) {
        return;
    }
    tallies[tally_write + index] = RegimentTally(0u, 0u, 0u, 0u, 0u, int[2](0, 0), 0u);
    if (index == 0u) {
        // The next step's counts start from zero: nothing of this step
        // touches them, so no clear of their own stands between steps.
        uint next = counts_written() ^ 1u;
        header.counts[next].alive = uint[2](0u, 0u);
        header.counts[next].fighting = 0u;
        header.counts[next].attacks = 0u;
        header.counts[next].standing = uint[2](0u, 0u);
        for (uint army = 0u; army < 2u; ++army) {
            for (uint state = 0u; state < REGIMENT_STATES; ++state) {
                header.counts[next].regiments[army][state] = 0u;
            }
        }
    }

    if (regiment.state != STATE_DESTROYED) {
        uint lost = regiment.alive - min(tally.alive, regiment.alive);
        regiment.alive = tally.alive;
        if (!alive) {
            regiment.state = STATE_DESTROYED;
            regiment.target = NO_REGIMENT;
        } else {
            precise float blows = float(lost) * rules.morale_per_casualty
                                + float(tally.flank_hits) * rules.morale_per_flank_hit
                                + float(tally.rear_hits) * rules.morale_per_rear_hit;
            precise float morale = regiment.morale - blows / float(max(regiment.unit_count, 1u));
            regiment.morale = morale;
            orders(rules, regiment, tally, lanes[0]);
        }
    }
    uint army = min(regiment.army, 1u);
    atomicAdd(header.counts[counts_written()].regiments[army][min(regiment.state, REGIMENT_STATES - 1u)], 1u);
    if (standing(regiment.state)) {
        atomicAdd(header.counts[counts_written()].standing[army], 1u);
    }
    regiments[regiments_written() + index] = regiment;
}
