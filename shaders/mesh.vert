#version 450
// Static instanced meshes (props): fetch the instance named by the instance
// list, dequantize the vertex, rotate about +Y, scale, translate.
#include "types.glsl"
#include "common.glsl"
#include "mesh_inputs.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 1, std140) uniform Types { TypeInfo types[MAX_TYPES]; };
layout(set = 0, binding = 2, std430) readonly buffer Infos { UnitInfo infos[]; };
layout(set = 0, binding = 3, std430) readonly buffer Placements { UnitPlacement placements[]; };

layout(location = 0) out vec3 out_world_position;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec2 out_uv;
layout(location = 3) out vec4 out_tint;
layout(location = 4) flat out uint out_material;
layout(location = 5) flat out uint out_route;
layout(location = 6) flat out float out_impostor_fade;

void main() {
    uint index = in_instance & ENTRY_INDEX_MASK;
    UnitInfo info = infos[index];
    UnitPlacement placement = placements[index];
    TypeInfo type_info = types[info.type_index];
    vec3 model_position = type_info.quant_min + vertex_position() * type_info.quant_extent;
    vec3 world = rotate_y(model_position * info.scale, placement.heading) + placement.position;
    out_world_position = world;
    out_normal = rotate_y(octahedral_decode(vertex_normal()), placement.heading);
    out_uv = vertex_uv();
    out_tint = unpackUnorm4x8(info.tint);
    out_material = type_info.first_material + in_skin.w;
    out_route = in_instance >> ENTRY_INDEX_BITS;
    out_impostor_fade = 0.0;
    gl_Position = globals.view_proj * vec4(world, 1.0);
}
