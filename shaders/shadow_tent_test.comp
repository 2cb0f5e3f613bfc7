#version 450
// Test kernel of the receivers' shadow filter (shadow.glsl): one thread per
// lookup, writing `shadow_tent` beside its definition, the mean of four
// bilinear comparisons half a texel apart (tests/tests/shadow_filter.rs).
#include "types.glsl"

layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer ShadowDepths { uint shadow_depths[]; };
// The lookup's uv (xy), the receiver's reference depth (z) and its cascade (w).
layout(set = 0, binding = 1, std430) readonly buffer Lookups { vec4 lookups[]; };
// The tent (x) and the four lookups' mean (y).
layout(set = 0, binding = 2, std430) writeonly buffer Lit { vec2 lit[]; };

layout(push_constant) uniform Dispatch {
    uint lookup_count;
    // Texels along a side of each cascade's map.
    int size;
} dispatch;

#include "shadow.glsl"

void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= dispatch.lookup_count) {
        return;
    }
    vec4 lookup = lookups[index];
    uint cascade = uint(lookup.w);
    float half_texel = 0.5 / float(dispatch.size);
    float mean = 0.0;
    for (int i = 0; i < 4; i++) {
        vec2 offset = vec2((i & 1) == 0 ? -half_texel : half_texel,
                           (i & 2) == 0 ? -half_texel : half_texel);
        mean += 0.25 * shadow_bilinear(cascade, lookup.xy + offset, dispatch.size, lookup.z);
    }
    lit[index] = vec2(shadow_tent(cascade, lookup.xy, dispatch.size, lookup.z), mean);
}
