#version 450
// The grid, 2 of 5: one thread per chunk of GRID_CHUNK cells. Each cell's
// first entry relative to its chunk, and the chunk's total.
#include "battle.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) buffer Grid { uint grid[]; };

void main() {
    uint chunk = gl_GlobalInvocationID.x;
    if (chunk >= push.cell_count / GRID_CHUNK) {
        return;
    }
    uint sum = 0u;
    for (uint cell = chunk * GRID_CHUNK; cell < (chunk + 1u) * GRID_CHUNK; ++cell) {
        grid[grid_starts() + cell] = sum;
        sum += grid[cell];
    }
    grid[grid_chunk_starts() + chunk] = sum;
}
