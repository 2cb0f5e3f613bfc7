#version 450
// The battle's lane step: one thread per lane finds its foremost living unit
// and the enemy lane it fights. engine/battle/src/passes/battle.rs documents it.
#include "battle.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) readonly buffer Combat { UnitCombat combat[]; };
layout(set = 0, binding = 1, std430) readonly buffer Placements { UnitPlacement placements[]; };
// The counts, then two copies of the lanes: last step's (read) and this
// step's (written), by step parity.
layout(set = 0, binding = 2, std430) buffer Lanes {
    BattleCounts counts;
    LaneState lanes[];
};

bool lane_standing(LaneState lane) {
    return lane.front < lane.unit_count;
}

void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= push.lane_count) {
        return;
    }
    uint previous = (push.step & 1u) * push.lane_count;
    LaneState lane = lanes[previous + index];
    // Only the front rank fights, so the fallen are always a prefix.
    while (lane.front < lane.unit_count &&
           lane.first_unit + lane.front < push.unit_count &&
           combat[lane.first_unit + lane.front].health <= 0) {
        lane.front += 1u;
    }
    if (lane_standing(lane)) {
        lane.front_position = placements[lane.first_unit + lane.front].position.xz;
        // Keep the enemy lane while it stands (as of last step); else take the
        // standing enemy lane nearest across the field, the lower index on a tie.
        bool target_standing = lane.target < push.lane_count &&
                               lane_standing(lanes[previous + lane.target]);
        if (!target_standing) {
            lane.target = NO_LANE;
            precise float best = 0.0;
            for (uint other = 0u; other < push.lane_count; ++other) {
                LaneState enemy = lanes[previous + other];
                if (enemy.army == lane.army || !lane_standing(enemy)) {
                    continue;
                }
                precise float distance = abs(enemy.home_z - lane.home_z);
                if (lane.target == NO_LANE || distance < best) {
                    lane.target = other;
                    best = distance;
                }
            }
        }
        atomicAdd(counts.alive[min(lane.army, 1u)], lane.unit_count - lane.front);
    }
    lanes[next_lanes() + index] = lane;
}
