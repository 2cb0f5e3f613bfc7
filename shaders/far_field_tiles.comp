#version 450
// The far field's resolve tiles (engine/src/passes/far_field/resolve.rs):
// one workgroup per FAR_FIELD_TILE_PX-square tile of the target, a thread
// per pixel. A tile where any sample of the visibility buffer is covered
// is appended to the resolve's instanced draw; the tiles without one cost
// the render pipeline nothing.

layout(local_size_x = FAR_FIELD_TILE_PX * FAR_FIELD_TILE_PX) in;

// The 64-bit keys as (low word: colour, high word: depth bits), row by row
// over the sample grid (width × samples_per_axis wide).
layout(set = 0, binding = 0, std430) readonly buffer Visibility { uvec2 visibility[]; };
// The resolve's draw (VkDrawIndirectCommand: 6 vertices, an instance per
// tile), then the tiles it draws.
layout(set = 0, binding = 1, std430) buffer Tiles {
    uint vertex_count;
    uint instance_count;
    uint first_vertex;
    uint first_instance;
    uint tiles[];
};

layout(push_constant) uniform Dispatch {
    // The target, in pixels.
    uint width;
    uint height;
    uint samples_per_axis;
} dispatch;

shared uint s_covered;

void main() {
    uint lane = gl_LocalInvocationIndex;
    uint size = FAR_FIELD_TILE_PX;
    uvec2 grid = (uvec2(dispatch.width, dispatch.height) + size - 1u) / size;
    uint n = max(dispatch.samples_per_axis, 1u);
    uint row = dispatch.width * n;
    // A grid-stride loop: a target of any size fits the dispatch's limit.
    for (uint tile = gl_WorkGroupID.x; tile < grid.x * grid.y; tile += gl_NumWorkGroups.x) {
        if (lane == 0u) {
            s_covered = 0u;
        }
        barrier();
        uvec2 pixel = uvec2(tile % grid.x, tile / grid.x) * size + uvec2(lane % size, lane / size);
        if (all(lessThan(pixel, uvec2(dispatch.width, dispatch.height)))) {
            bool covered = false;
            for (uint j = 0u; j < n; j++) {
                for (uint i = 0u; i < n; i++) {
                    uint index = (pixel.y * n + j) * row + pixel.x * n + i;
                    covered = covered || (index < uint(visibility.length())
                                          && visibility[index].y != 0u);
                }
            }
            if (covered) {
                atomicOr(s_covered, 1u);
            }
        }
        barrier();
        if (lane == 0u && s_covered != 0u) {
            uint slot = atomicAdd(instance_count, 1u);
            if (slot < uint(tiles.length())) {
                tiles[slot] = tile;
            }
        }
    }
}
