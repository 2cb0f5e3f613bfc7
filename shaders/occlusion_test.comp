#version 450
// Test kernel of the sphere-against-pyramid occlusion test (occlusion.glsl):
// one thread per sphere, each writing 1 where sphere_occluded says so and 0
// elsewhere, for the CPU twin (engine/src/reference/depth_pyramid.rs) to
// reproduce. Binding 0 is the pyramid's atlas, as the cull binds it.

layout(local_size_x = 64) in;

#define DEPTH_PYRAMID_SET 0
#define DEPTH_PYRAMID_BINDING 0
#include "occlusion.glsl"

// The centre in view space (xyz) and the radius (w).
layout(set = 0, binding = 1, std430) readonly buffer Spheres { vec4 spheres[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Occluded { uint occluded[]; };

layout(push_constant) uniform Dispatch {
    vec2 projection_scale;
    float near;
    uint sphere_count;
    uvec2 viewport;
    uvec2 pyramid_size;
} dispatch;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= dispatch.sphere_count || i >= uint(spheres.length())
        || i >= uint(occluded.length())) {
        return;
    }
    vec4 sphere = spheres[i];
    bool hidden = sphere_occluded(sphere.xyz, sphere.w, dispatch.projection_scale,
                                  dispatch.near, dispatch.viewport, dispatch.pyramid_size);
    occluded[i] = hidden ? 1u : 0u;
}
