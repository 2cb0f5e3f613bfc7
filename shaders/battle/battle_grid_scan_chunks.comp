#version 450
// The grid, 3 of 5: one thread per super-chunk of GRID_CHUNK chunks. Each
// chunk's first entry relative to its super-chunk, and the super-chunk's
// total.
#include "battle.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) buffer Grid { uint grid[]; };

void main() {
    uint group = gl_GlobalInvocationID.x;
    if (group >= push.cell_count / (GRID_CHUNK * GRID_CHUNK)) {
        return;
    }
    uint sum = 0u;
    for (uint chunk = group * GRID_CHUNK; chunk < (group + 1u) * GRID_CHUNK; ++chunk) {
        uint total = grid[grid_chunk_starts() + chunk];
        grid[grid_chunk_starts() + chunk] = sum;
        sum += total;
    }
    grid[grid_super_starts() + group] = sum;
}
