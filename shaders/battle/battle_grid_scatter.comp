#version 450
// The grid, 5 of 5: one thread per unit. A binned unit takes an entry of its
// cell by counting the cell's count down again, so the counts are zero when
// the next step counts, and writes there what its neighbours read of it:
// its index, its side (its army, and whether its regiment, as this step's
// regiment dispatch left it, stands) and where it stands. The order within a cell
// follows the atomics: what reads the grid does not depend on it. While the
// frame shows the marks (the debug view), every unit of a regiment also
// writes its mark (here rather than in the unit step, which binds four
// storage buffers already).
#include "battle.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) readonly buffer Battle {
    BattleHeader header;
    RegimentTally tallies[2 * MAX_REGIMENTS];
    RegimentState regiments[2 * MAX_REGIMENTS];
    UnitCombat combat[];
};
layout(set = 0, binding = 1, std430) buffer Grid { uint grid[]; };
// The debug view's colour per unit: its regiment's state, as this step's
// regiment dispatch left it, or fallen.
layout(set = 0, binding = 2, std430) writeonly buffer Marks { uint marks[]; };

#include "battle_grid.glsl"

void main() {
    uint unit = gl_GlobalInvocationID.x;
    if (unit >= push.unit_count) {
        return;
    }
    UnitCombat fighter = combat[unit];
    if (fighter.regiment >= push.regiment_count) {
        return;
    }
    bool marked = push.marks_shown != 0u;
    if (fighter.health <= 0) {
        if (marked) {
            marks[unit] = MARK_FALLEN;
        }
        return;
    }
    RegimentState regiment = regiments[regiments_written() + fighter.regiment];
    if (marked) {
        marks[unit] = state_mark(regiment.state);
    }
    uint cell = grid_bucket(grid_cell(fighter.grid_position, header.rules.engage_radius));
    uint left = atomicAdd(grid[cell], 0xffffffffu) - 1u;
    uint entry = grid_entries() + (grid_cell_start(cell) + left) * GRID_ENTRY_WORDS;
    grid[entry] = unit;
    grid[entry + 1u] = min(regiment.army, 1u) | (standing(regiment.state) ? 0u : GRID_ENTRY_BROKEN);
    grid[entry + 2u] = floatBitsToUint(fighter.grid_position.x);
    grid[entry + 3u] = floatBitsToUint(fighter.grid_position.y);
}
