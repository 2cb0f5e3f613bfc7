#version 450
// One shadow cascade's receivers' depths, on the mobile tier
// (engine/src/passes/shadow/mod.rs): each texel the nearest mesh caster's,
// from the cascade's depth layer, as float bits of reverse-Z depth (0 where
// nothing casts).
#include "types.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) uniform sampler2DArray casters_depth;
layout(set = 0, binding = 1, std430) writeonly buffer ShadowDepths { uint shadow_depths[]; };

layout(push_constant) uniform Merge {
    // Texels along a side.
    uint size;
    uint cascade;
} merge;

void main() {
    uint texel = gl_GlobalInvocationID.x;
    uint size = merge.size;
    if (texel >= size * size) {
        return;
    }
    ivec3 at = ivec3(int(texel % size), int(texel / size), int(merge.cascade));
    uint index = merge.cascade * size * size + texel;
    if (index < uint(shadow_depths.length())) {
        shadow_depths[index] = floatBitsToUint(max(texelFetch(casters_depth, at, 0).r, 0.0));
    }
}
