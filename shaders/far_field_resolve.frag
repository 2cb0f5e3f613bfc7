#version 450
// The far field's resolve, the last draw of the main render pass. Each pixel
// reads its samples_per_axis² samples of the visibility buffer (a 2×2 grid
// when the far field supersamples): the covered ones' colours (shaded by
// far_field.comp with mesh.frag's lighting, tint and fog) are averaged and
// blended over what the raster drew with alpha = the covered fraction, so a
// unit's edges and its sub-pixel parts show as partial coverage instead of
// all-or-nothing pixels. Depth is the nearest covered sample's (reverse-Z,
// tested GREATER against the raster's depth, so near meshes hide far units
// and far units hide what lies behind them). Pixels with no covered sample
// are discarded.
#include "types.glsl"
#include "common.glsl"

// The 64-bit keys as (low word: colour, high word: depth bits), row by row
// over the sample grid (width × samples_per_axis wide).
layout(set = 0, binding = 0, std430) readonly buffer Visibility { uvec2 visibility[]; };

layout(push_constant) uniform Resolve {
    // The target, in pixels.
    uint width;
    uint height;
    uint samples_per_axis;
} resolve;

layout(location = 0) out vec4 out_color;

void main() {
    uvec2 pixel = min(uvec2(gl_FragCoord.xy), uvec2(resolve.width, resolve.height) - 1u);
    uint n = max(resolve.samples_per_axis, 1u);
    uint row = resolve.width * n;
    vec3 color = vec3(0.0);
    uint covered = 0u;
    uint nearest = 0u;
    for (uint j = 0u; j < n; j++) {
        for (uint i = 0u; i < n; i++) {
            uvec2 key = visibility[(pixel.y * n + j) * row + pixel.x * n + i];
            if (key.y != 0u) {
                color += far_unpack_color(key.x);
                covered++;
                nearest = max(nearest, key.y);
            }
        }
    }
    if (covered == 0u) {
        discard;
    }
    gl_FragDepth = uintBitsToFloat(nearest);
    out_color = vec4(color / float(covered), float(covered) / float(n * n));
}
