#version 450
// One shadow cascade's depths for the receivers (engine/src/passes/shadow.rs):
// each texel the nearest caster of the raster's (the cascade's depth layer)
// and of the far field's (its visibility buffer, desktop tier), as float
// bits of reverse-Z depth: the larger, nearer the sun.
#include "types.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) uniform sampler2DArray casters_depth;
// depth bits << 32 | payload per texel, as (payload, depth bits).
layout(set = 0, binding = 1, std430) readonly buffer Visibility { uvec2 visibility[]; };
layout(set = 0, binding = 2, std430) writeonly buffer ShadowDepths { uint shadow_depths[]; };

layout(push_constant) uniform Merge {
    // Texels along a side.
    uint size;
    uint cascade;
    // 1 where the far field drew into `visibility`.
    uint far_field;
} merge;

void main() {
    uint texel = gl_GlobalInvocationID.x;
    uint size = merge.size;
    if (texel >= size * size) {
        return;
    }
    ivec3 at = ivec3(int(texel % size), int(texel / size), int(merge.cascade));
    uint depth = floatBitsToUint(max(texelFetch(casters_depth, at, 0).r, 0.0));
    if (merge.far_field != 0u && texel < uint(visibility.length())) {
        depth = max(depth, visibility[texel].y);
    }
    uint index = merge.cascade * size * size + texel;
    if (index < uint(shadow_depths.length())) {
        shadow_depths[index] = depth;
    }
}
