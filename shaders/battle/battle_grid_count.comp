#version 450
// The grid, 1 of 5, before the battle's first step only (the unit step
// counts its units into the next step's grid): one thread per unit. A
// living unit of a regiment notes where it stands (`grid_position`, which
// the scatter bins) and counts itself into its cell. engine/battle/src/passes/battle.rs ("The
// grid") documents the buffer.
#include "battle.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) buffer Battle {
    BattleHeader header;
    RegimentTally tallies[2 * MAX_REGIMENTS];
    RegimentState regiments[2 * MAX_REGIMENTS];
    UnitCombat combat[];
};
layout(set = 0, binding = 1, std430) readonly buffer Placements { UnitPlacement placements[]; };
layout(set = 0, binding = 2, std430) buffer Grid { uint grid[]; };

void main() {
    uint unit = gl_GlobalInvocationID.x;
    if (unit >= push.unit_count) {
        return;
    }
    if (combat[unit].regiment >= push.regiment_count || combat[unit].health <= 0) {
        return;
    }
    vec2 position = placements[unit].position.xz;
    combat[unit].grid_position = position;
    uint cell = grid_bucket(grid_cell(position, header.rules.engage_radius));
    atomicAdd(grid[cell], 1u);
}
