#version 450
// A mesh caster's depth, on the desktop tier: the fragment's reverse-Z
// depth raises the receivers' depth of its texel (engine/src/passes/shadow/
// casters.rs). The render pass has no attachment: an atomic max is the
// depth test and the depth write at once, and the buffer needs no clear
// (`shadow seed` wrote the far field's depths, or 0, before).
#include "types.glsl"

layout(set = 0, binding = 6, std430) buffer ShadowDepths { uint shadow_depths[]; };

layout(push_constant) uniform Caster {
    // The cascade's first texel in `shadow_depths`.
    uint first_texel;
    // Texels along a side.
    uint size;
} caster;

// It reads none of the mesh vertex shaders' outputs (the device enables
// VK_KHR_maintenance4 for that, `context/mod.rs`).
void main() {
    uvec2 texel = uvec2(gl_FragCoord.xy);
    uint index = caster.first_texel + texel.y * caster.size + texel.x;
    // Non-negative floats order as their bits do.
    atomicMax(shadow_depths[index], floatBitsToUint(max(gl_FragCoord.z, 0.0)));
}
