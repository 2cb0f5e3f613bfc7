#version 450
// Test kernel of the far field's exact division (far_divide in
// far_field_raster.glsl): one thread per (dividend, divisor) pair, writing
// the quotient for tests/tests/far_field_divide.rs to hold against the
// CPU's integer division.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64) in;

// The dividend's low and high words, the divisor, and a word unused.
layout(set = 0, binding = 0, std430) readonly buffer Pairs { uvec4 pairs[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Quotients { uint64_t quotients[]; };

layout(push_constant) uniform Dispatch {
    uint pair_count;
} dispatch;

#define FAR_FIELD_WRITE(x, y, key)
#include "far_field_raster.glsl"

void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= dispatch.pair_count) {
        return;
    }
    uvec4 pair = pairs[index];
    uint64_t dividend = uint64_t(pair.x) | (uint64_t(pair.y) << 32);
    quotients[index] = far_divide(dividend, int(pair.z));
}
