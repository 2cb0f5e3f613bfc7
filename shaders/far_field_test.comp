#version 450
// Test kernel of the far field's rasterizer (far_field_raster.glsl): one
// thread per triangle given in clip space; every covered pixel gets the
// largest key (nearest depth bits << 32 | triangle + 1) and a coverage
// count, and every triangle its outcome, for the CPU reference to reproduce
// exactly.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require

layout(local_size_x = 64) in;

// Three clip-space vertices per triangle.
layout(set = 0, binding = 0, std430) readonly buffer Triangles { vec4 clip[]; };
layout(set = 0, binding = 1, std430) buffer Visibility { uint64_t visibility[]; };
layout(set = 0, binding = 2, std430) buffer Coverage { uint coverage[]; };
// Per triangle: its setup outcome, and its doubled signed area (0 unless
// rasterized).
layout(set = 0, binding = 3, std430) buffer Outcomes { ivec2 outcomes[]; };

layout(push_constant) uniform Dispatch {
    uint width;
    uint height;
    uint triangle_count;
} dispatch;

void write_pixel(int x, int y, uint64_t key) {
    atomicMax(visibility[uint(y) * dispatch.width + uint(x)], key);
}
bool count_and_test(int x, int y, uint64_t weighted, int area);
#define FAR_FIELD_MAY_WIN(x, y, weighted, area) count_and_test(x, y, weighted, area)
#define FAR_FIELD_WRITE(x, y, key) write_pixel(x, y, key)
#include "far_field_raster.glsl"

// Every covered sample is counted here, before the far field's own test of
// whether it may still win its pixel, so that the counts stay the CPU
// reference's and the test runs as the far field runs it.
bool count_and_test(int x, int y, uint64_t weighted, int area) {
    uint index = uint(y) * dispatch.width + uint(x);
    atomicAdd(coverage[index], 1u);
    return far_may_win(weighted, area, visibility[index]);
}

void main() {
    uint t = gl_GlobalInvocationID.x;
    if (t >= dispatch.triangle_count || t * 3u + 2u >= uint(clip.length())
        || t >= uint(outcomes.length())) {
        return;
    }
    vec2 viewport = vec2(dispatch.width, dispatch.height);
    FarVertex a = far_project(clip[t * 3u], viewport);
    FarVertex b = far_project(clip[t * 3u + 1u], viewport);
    FarVertex c = far_project(clip[t * 3u + 2u], viewport);
    ivec4 pixels;
    uint outcome = far_triangle_setup(a, b, c, ivec2(dispatch.width, dispatch.height), pixels);
    int area = 0;
    if (outcome == FAR_TRIANGLE_RASTER) {
        area = far_triangle_area(a, b, c);
        far_rasterize(a, b, c, pixels, t + 1u);
    }
    outcomes[t] = ivec2(int(outcome), area);
}
