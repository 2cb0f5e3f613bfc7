// The battle's height field, for shaders that declare the grid's buffer
// and name its words TERRAIN_WORDS (a read-only view of `uint grid[]`),
// and include battle_grid.glsl before this: it lies after the grid's
// entries, a TerrainInfo (TERRAIN_INFO_WORDS words) then the heights row
// by row, as float bits. engine/battle/src/terrain.rs documents
// it; Terrain::height is the CPU twin, operation for operation.
#ifndef HORDE_TERRAIN_GLSL
#define HORDE_TERRAIN_GLSL

// The terrain's first word (GridLayout::words in reference/grid.rs).
uint terrain_start() {
    return grid_entries() + push.unit_count * GRID_ENTRY_WORDS;
}

// Sample (column, row) of the terrain starting at word `start` with
// `samples` samples along x and z.
float terrain_sample(uint start, uvec2 samples, uint column, uint row) {
    uint index = min(row * samples.x + column, samples.x * samples.y - 1u);
    uint at = min(start + TERRAIN_INFO_WORDS + index, uint(TERRAIN_WORDS.length()) - 1u);
    return uintBitsToFloat(TERRAIN_WORDS[at]);
}

// The cell under ground position (x, z): its four samples (h00, h10, h01,
// h11) and the position within it; beyond the grid, its edge's cell.
vec4 terrain_cell(vec2 position, out vec2 fraction) {
    uint at = terrain_start();
    vec2 origin = uintBitsToFloat(uvec2(TERRAIN_WORDS[at], TERRAIN_WORDS[at + 1u]));
    float inverse_spacing = uintBitsToFloat(TERRAIN_WORDS[at + TERRAIN_INVERSE_SPACING_WORD]);
    uvec2 samples = uvec2(TERRAIN_WORDS[at + TERRAIN_SAMPLES_WORD],
                          TERRAIN_WORDS[at + TERRAIN_SAMPLES_WORD + 1u]);
    uvec2 last = max(samples, uvec2(2u)) - 1u;
    precise vec2 g = (position - origin) * inverse_spacing;
    // max first: a NaN coordinate stands at the grid's edge.
    vec2 clamped = min(max(g, vec2(0.0)), vec2(last));
    uvec2 cell = min(uvec2(floor(clamped)), last - 1u);
    precise vec2 f = clamped - vec2(cell);
    fraction = f;
    return vec4(terrain_sample(at, samples, cell.x, cell.y),
                terrain_sample(at, samples, cell.x + 1u, cell.y),
                terrain_sample(at, samples, cell.x, cell.y + 1u),
                terrain_sample(at, samples, cell.x + 1u, cell.y + 1u));
}

// The height at ground position (x, z): the cell's four samples
// interpolated bilinearly.
float terrain_height(vec2 position) {
    vec2 f;
    vec4 h = terrain_cell(position, f);
    precise float near = h.x + (h.y - h.x) * f.x;
    precise float far = h.z + (h.w - h.z) * f.x;
    precise float height = near + (far - near) * f.y;
    return height;
}

// The slope at ground position (x, z), metres risen per metre along +X and
// along +Z: the derivative of terrain_height within the cell.
vec2 terrain_slope(vec2 position) {
    vec2 f;
    vec4 h = terrain_cell(position, f);
    precise float rise_near = h.y - h.x;
    precise float along_x = rise_near + (h.w - h.z - rise_near) * f.y;
    precise float near = h.x + rise_near * f.x;
    precise float far = h.z + (h.w - h.z) * f.x;
    precise float along_z = far - near;
    float inverse_spacing =
        uintBitsToFloat(TERRAIN_WORDS[terrain_start() + TERRAIN_INVERSE_SPACING_WORD]);
    precise vec2 slope = vec2(along_x, along_z) * inverse_spacing;
    return slope;
}

#endif
