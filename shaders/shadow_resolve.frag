#version 450
// The far field's shadow casters into a cascade's map, first in its render
// pass: each texel takes the nearest depth the far field's compute
// rasterizer left in the cascade's visibility buffer (reverse-Z: the
// largest), tested GREATER and written, so the meshes drawn after it test
// against it. Texels the far field left empty are discarded.
layout(set = 0, binding = 0, std430) readonly buffer Visibility { uvec2 visibility[]; };

layout(push_constant) uniform Resolve {
    // The map's side, in texels.
    uint size;
} resolve;

void main() {
    uvec2 texel = min(uvec2(gl_FragCoord.xy), uvec2(resolve.size - 1u));
    uint depth_bits = visibility[texel.y * resolve.size + texel.x].y;
    if (depth_bits == 0u) {
        discard;
    }
    gl_FragDepth = uintBitsToFloat(depth_bits);
}
