// The battle's height field: for shaders that declare the terrain buffer
// as `TerrainInfo terrain; float heights[];` before including this.
// engine/battle/src/terrain.rs documents it; Terrain::height is the CPU
// twin, operation for operation.
#ifndef HORDE_TERRAIN_GLSL
#define HORDE_TERRAIN_GLSL

float terrain_sample(uint column, uint row) {
    uint index = row * terrain.samples.x + column;
    return heights[min(index, uint(heights.length()) - 1u)];
}

// The height at ground position (x, z): the cell's four samples
// interpolated bilinearly; beyond the grid, its edge's.
float terrain_height(vec2 position) {
    uvec2 last = max(terrain.samples, uvec2(2u)) - 1u;
    precise vec2 g = (position - terrain.origin) * terrain.inverse_spacing;
    // max first: a NaN coordinate stands at the grid's edge.
    vec2 clamped = min(max(g, vec2(0.0)), vec2(last));
    uvec2 cell = min(uvec2(floor(clamped)), last - 1u);
    precise vec2 f = clamped - vec2(cell);
    float h00 = terrain_sample(cell.x, cell.y);
    float h10 = terrain_sample(cell.x + 1u, cell.y);
    float h01 = terrain_sample(cell.x, cell.y + 1u);
    float h11 = terrain_sample(cell.x + 1u, cell.y + 1u);
    precise float near = h00 + (h10 - h00) * f.x;
    precise float far = h01 + (h11 - h01) * f.x;
    precise float height = near + (far - near) * f.y;
    return height;
}

#endif
