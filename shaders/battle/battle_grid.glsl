// The grid's lookups, for shaders that declare the `grid` buffer as
// `uint grid[]` before including this. battle.glsl has the layout.
#ifndef HORDE_BATTLE_GRID_GLSL
#define HORDE_BATTLE_GRID_GLSL

// The first entry of `cell`; of cell `push.cell_count`, the total.
uint grid_cell_start(uint cell) {
    if (cell >= push.cell_count) {
        return grid[grid_total()];
    }
    return grid[grid_starts() + cell] + grid[grid_chunk_starts() + cell / GRID_CHUNK]
         + grid[grid_super_starts() + cell / (GRID_CHUNK * GRID_CHUNK)];
}

#endif
