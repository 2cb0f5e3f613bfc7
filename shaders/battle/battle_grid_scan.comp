#version 450
// The grid, 2-4 of 5: the prefix sum of the cells' counts, in three levels
// (LEVEL 0, 1, 2), one workgroup of GRID_SCAN_THREADS per chunk of
// GRID_CHUNK items. Level 0 scans the cells' counts into starts relative to
// their chunk and writes each chunk's total; level 1 scans the chunk totals
// in place into starts relative to their super-chunk and writes each
// super-chunk's total; level 2, one workgroup, scans the super-chunk totals
// in place and writes the grand total. When one super-chunk holds every
// chunk, level 1 ends the scan itself (its start 0, and the total) and
// level 2 is not dispatched. engine/battle/src/passes/grid.rs documents the
// layout.
#include "battle.glsl"

// The pass specializes the group size to GRID_SCAN_THREADS.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint LEVEL = 0u;

layout(set = 0, binding = 0, std430) buffer Grid { uint grid[]; };

const uint ITEMS = GRID_CHUNK / GRID_SCAN_THREADS;
shared uint sums[GRID_SCAN_THREADS];

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
    uint first = gl_WorkGroupID.x * GRID_CHUNK + ITEMS * lane;
    uint values[ITEMS];
    uint sum = 0u;
    for (uint i = 0u; i < ITEMS; ++i) {
        values[i] = first + i < items ? grid[source + first + i] : 0u;
        sum += values[i];
    }

    // Inclusive scan of the lanes' sums (Hillis-Steele, log2 of the lanes
    // rounds).
    sums[lane] = sum;
    barrier();
    for (uint offset = 1u; offset < GRID_SCAN_THREADS; offset *= 2u) {
        uint earlier = lane >= offset ? sums[lane - offset] : 0u;
        barrier();
        sums[lane] += earlier;
        barrier();
    }
    uint start = sums[lane] - sum;
    for (uint i = 0u; i < ITEMS; ++i) {
        if (first + i < items) {
            grid[target + first + i] = start;
        }
        start += values[i];
    }
    if (lane == GRID_SCAN_THREADS - 1u) {
        if (LEVEL == 1u && grid_supers() == 1u) {
            grid[grid_super_starts()] = 0u;
            grid[grid_total()] = sums[lane];
        } else {
            grid[totals + gl_WorkGroupID.x] = sums[lane];
        }
    }
}
