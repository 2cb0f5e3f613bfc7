#version 450
// Static instanced meshes (props, the first scene): dequantize, rotate about +Y,
// scale, translate.
#include "types.glsl"
#include "common.glsl"
#include "mesh_inputs.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 1, std430) readonly buffer Meshes { MeshInfo meshes[]; };

layout(location = 0) out vec3 out_world_position;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec4 out_tint;

void main() {
    MeshInfo mesh = meshes[inst_mesh];
    vec3 model_position = mesh.quant_min.xyz + in_position.xyz * mesh.quant_extent.xyz;
    vec3 world = rotate_y(model_position * inst_scale, inst_position_heading.w) + inst_position_heading.xyz;
    out_world_position = world;
    out_normal = rotate_y(octahedral_decode(in_normal), inst_position_heading.w);
    out_tint = inst_tint;
    gl_Position = globals.view_proj * vec4(world, 1.0);
}
