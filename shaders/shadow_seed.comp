#version 450
// One shadow cascade's receivers' depths seeded, on the desktop tier
// (engine/src/passes/shadow/mod.rs): each texel the far field's nearest
// caster (its visibility buffer), or 0 (nothing casts) without the far
// field. The mesh casters' fragments raise it after (`shadow_caster.frag`).
#include "types.glsl"

layout(local_size_x_id = 0) in;

// depth bits << 32 | payload per texel, as (payload, depth bits).
layout(set = 0, binding = 0, std430) readonly buffer Visibility { uvec2 visibility[]; };
layout(set = 0, binding = 1, std430) writeonly buffer ShadowDepths { uint shadow_depths[]; };

layout(push_constant) uniform Seed {
    // Texels along a side.
    uint size;
    uint cascade;
    // 1 where the far field drew into `visibility`.
    uint far_field;
} seed;

void main() {
    uint texel = gl_GlobalInvocationID.x;
    uint size = seed.size;
    if (texel >= size * size) {
        return;
    }
    uint depth = 0u;
    if (seed.far_field != 0u && texel < uint(visibility.length())) {
        depth = visibility[texel].y;
    }
    uint index = seed.cascade * size * size + texel;
    if (index < uint(shadow_depths.length())) {
        shadow_depths[index] = depth;
    }
}
