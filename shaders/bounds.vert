#version 450
// Debug view: each visible instance's conservative bounding sphere, as the
// cull pass tests it (model centre × scale, rotated by the heading, plus the
// position; radius × scale). The sphere mesh is quantized in [-1, 1]^3.
#include "types.glsl"
#include "common.glsl"
#include "mesh_inputs.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 1, std140) uniform Types { TypeInfo types[MAX_TYPES]; };
layout(set = 0, binding = 2, std430) readonly buffer Infos { UnitInfo infos[]; };
layout(set = 0, binding = 3, std430) readonly buffer Placements { UnitPlacement placements[]; };

layout(location = 0) out vec3 out_normal;
layout(location = 1) flat out uint out_route;

void main() {
    uint index = in_instance & ENTRY_INDEX_MASK;
    UnitInfo info = infos[index];
    UnitPlacement placement = placements[index];
    TypeInfo type_info = types[info.type_index];
    vec3 center = rotate_y(type_info.sphere_center * info.scale, placement.heading) + placement.position;
    vec3 unit_sphere = vertex_position() * 2.0 - 1.0;
    out_normal = unit_sphere;
    // Far-field entries carry ROUTE_FAR_FIELD + their LOD: one colour.
    out_route = min(in_instance >> ENTRY_INDEX_BITS, uint(ROUTE_FAR_FIELD));
    gl_Position = globals.view_proj
                * vec4(center + unit_sphere * type_info.sphere_radius * info.scale, 1.0);
}
