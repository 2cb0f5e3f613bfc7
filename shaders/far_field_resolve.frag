#version 450
// The far field's resolve, the last draw of the main render pass: each
// pixel the far field covered writes its depth (reverse-Z, tested GREATER
// against the raster's depth, so near meshes hide far units and far units
// hide what lies behind them) and its colour, shaded by far_field.comp with
// mesh.frag's lighting, tint and fog. Empty pixels (key 0) are discarded.
#include "types.glsl"
#include "common.glsl"

// The 64-bit keys as (low word: colour, high word: depth bits).
layout(set = 0, binding = 0, std430) readonly buffer Visibility { uvec2 visibility[]; };

layout(push_constant) uniform Resolve {
    uint width;
    uint height;
} resolve;

layout(location = 0) out vec4 out_color;

void main() {
    uvec2 pixel = min(uvec2(gl_FragCoord.xy), uvec2(resolve.width, resolve.height) - 1u);
    uvec2 key = visibility[pixel.y * resolve.width + pixel.x];
    if (key.y == 0u) {
        discard;
    }
    gl_FragDepth = uintBitsToFloat(key.y);
    out_color = vec4(far_unpack_color(key.x), 1.0);
}
