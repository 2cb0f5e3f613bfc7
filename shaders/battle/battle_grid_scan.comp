#version 450
// The grid, 2-4 of 5: the prefix sum of the cells' counts, in three levels
// (LEVEL 0, 1, 2), one workgroup of GRID_CHUNK / 2 threads per chunk of
// GRID_CHUNK items, two items a thread. Level 0 scans the cells' counts
// into starts relative to their chunk and writes each chunk's total; level
// 1 scans the chunk totals in place into starts relative to their
// super-chunk and writes each super-chunk's total; level 2, one workgroup,
// scans the super-chunk totals in place and writes the grand total.
// engine/battle/src/passes/grid.rs documents the layout.
#include "battle.glsl"

// The pass specializes the group size to GRID_CHUNK / 2.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint LEVEL = 0u;

layout(set = 0, binding = 0, std430) buffer Grid { uint grid[]; };

const uint THREADS = GRID_CHUNK / 2u;
shared uint sums[THREADS];

void main() {
    uint items;
    uint source;
    uint target;
    uint totals;
    if (LEVEL == 0u) {
        items = push.cell_count;
        source = 0u;
        target = grid_starts();
        totals = grid_chunk_starts();
    } else if (LEVEL == 1u) {
        items = grid_chunks();
        source = grid_chunk_starts();
        target = source;
        totals = grid_super_starts();
    } else {
        items = grid_supers();
        source = grid_super_starts();
        target = source;
        totals = grid_total();
    }
    uint lane = gl_LocalInvocationID.x;
    uint first = gl_WorkGroupID.x * GRID_CHUNK + 2u * lane;
    uint a = first < items ? grid[source + first] : 0u;
    uint b = first + 1u < items ? grid[source + first + 1u] : 0u;

    // Inclusive scan of the lanes' pairs (Hillis-Steele, log2(THREADS)
    // rounds).
    sums[lane] = a + b;
    barrier();
    for (uint offset = 1u; offset < THREADS; offset *= 2u) {
        uint earlier = lane >= offset ? sums[lane - offset] : 0u;
        barrier();
        sums[lane] += earlier;
        barrier();
    }
    uint before = sums[lane] - (a + b);
    if (first < items) {
        grid[target + first] = before;
    }
    if (first + 1u < items) {
        grid[target + first + 1u] = before + a;
    }
    if (lane == THREADS - 1u) {
        grid[totals + gl_WorkGroupID.x] = sums[lane];
    }
}
