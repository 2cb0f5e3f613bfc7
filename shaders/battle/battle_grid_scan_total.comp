#version 450
// The grid, 4 of 5: one thread. Each super-chunk's first entry, and the
// total (at most 4096 super-chunks at 16M units).
#include "battle.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) buffer Grid { uint grid[]; };

void main() {
    if (gl_GlobalInvocationID.x != 0u) {
        return;
    }
    uint sum = 0u;
    uint groups = push.cell_count / (GRID_CHUNK * GRID_CHUNK);
    for (uint group = 0u; group < groups; ++group) {
        uint total = grid[grid_super_starts() + group];
        grid[grid_super_starts() + group] = sum;
        sum += total;
    }
    grid[grid_total()] = sum;
}
