#version 450
// Test kernel of posed_sphere (clip_spheres.glsl): one thread per case,
// each writing the sphere the posed cull's occlusion test would take, for
// the CPU twin (engine/src/reference/cull.rs, `occlusion_sphere`) to
// reproduce.
#include "types.glsl"

layout(local_size_x = 64) in;

// A case: the type's sphere, its clips, and the unit's animation state.
struct SphereCase {
    vec4 whole;
    uint first_clip;
    uint clip_count;
    uint pad0;
    uint pad1;
    AnimState anim;
};

layout(set = 0, binding = 0, std430) readonly buffer Cases { SphereCase cases[]; };
layout(set = 0, binding = 1, std430) readonly buffer ClipSpheres { vec4 clip_spheres[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Spheres { vec4 spheres[]; };

layout(push_constant) uniform Dispatch {
    uint case_count;
} dispatch;

#include "clip_spheres.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= dispatch.case_count || i >= uint(cases.length()) || i >= uint(spheres.length())) {
        return;
    }
    SphereCase c = cases[i];
    spheres[i] = posed_sphere(c.whole, c.first_clip, c.clip_count, c.anim);
}
