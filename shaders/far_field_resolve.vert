#version 450
// The far field's resolve over the tiles far_field_tiles.comp listed:
// instance i covers tile tiles[i] (FAR_FIELD_TILE_PX pixels square, cut at
// the target's edge) with two triangles. The edges lie between pixels, so
// each pixel (all its samples) belongs to one tile, as to the full-screen
// triangle this replaces.

// The draw's command (read by the draw), then the tiles.
layout(set = 0, binding = 1, std430) readonly buffer Tiles {
    uvec4 command;
    uint tiles[];
};

layout(push_constant) uniform Resolve {
    // The target, in pixels.
    uint width;
    uint height;
    uint samples_per_axis;
} resolve;

void main() {
    uint size = FAR_FIELD_TILE_PX;
    uvec2 target = uvec2(resolve.width, resolve.height);
    uint columns = (target.x + size - 1u) / size;
    uint instance = uint(gl_InstanceIndex);
    uint tile = instance < uint(tiles.length()) ? tiles[instance] : 0u;
    // Vertices 0-5: (0, 0) (1, 0) (0, 1) and (0, 1) (1, 0) (1, 1).
    uint vertex = uint(gl_VertexIndex);
    uvec2 corner = uvec2((0x32u >> vertex) & 1u, (0x2Cu >> vertex) & 1u);
    uvec2 pixel = min((uvec2(tile % columns, tile / columns) + corner) * size, target);
    gl_Position = vec4(vec2(pixel) / vec2(target) * 2.0 - 1.0, 0.0, 1.0);
}
