#version 450
// Static instanced meshes (props): fetch the instance named by the instance
// list, dequantize the vertex, rotate about +Y, scale, translate.
#include "types.glsl"
#include "common.glsl"
#include "mesh_inputs.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 1, std140) uniform Types { TypeInfo types[MAX_TYPES]; };
layout(set = 0, binding = 2, std430) readonly buffer Instances { Instance instances[]; };

layout(location = 0) out vec3 out_world_position;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec2 out_uv;
layout(location = 3) out vec4 out_tint;
layout(location = 4) flat out uint out_material;
layout(location = 5) flat out uint out_lod;

void main() {
    Instance inst = instances[in_instance & INSTANCE_INDEX_MASK];
    TypeInfo type_info = types[inst.type_index];
    vec3 model_position = type_info.quant_min.xyz + vertex_position() * type_info.quant_extent.xyz;
    vec3 world = rotate_y(model_position * inst.scale, inst.heading) + inst.position;
    out_world_position = world;
    out_normal = rotate_y(octahedral_decode(vertex_normal()), inst.heading);
    out_uv = vertex_uv();
    out_tint = unpackUnorm4x8(inst.tint);
    out_material = type_info.materials.x + in_skin.w;
    out_lod = in_instance >> INSTANCE_INDEX_BITS;
    gl_Position = globals.view_proj * vec4(world, 1.0);
}
