#version 450
// Debug view: each visible instance's conservative bounding sphere, as the
// cull pass tests it (model centre × scale, rotated by the heading, plus the
// position; radius × scale). The sphere mesh is quantized in [-1, 1]^3.
#include "types.glsl"
#include "common.glsl"
#include "mesh_inputs.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 1, std140) uniform Types { TypeInfo types[MAX_TYPES]; };
layout(set = 0, binding = 2, std430) readonly buffer Instances { Instance instances[]; };

layout(location = 0) out vec3 out_normal;
layout(location = 1) flat out uint out_lod;

void main() {
    Instance inst = instances[in_instance & INSTANCE_INDEX_MASK];
    vec4 sphere = types[inst.type_index].sphere;
    vec3 center = rotate_y(sphere.xyz * inst.scale, inst.heading) + inst.position;
    vec3 unit_sphere = vertex_position() * 2.0 - 1.0;
    out_normal = unit_sphere;
    out_lod = in_instance >> INSTANCE_INDEX_BITS;
    gl_Position = globals.view_proj * vec4(center + unit_sphere * sphere.w * inst.scale, 1.0);
}
