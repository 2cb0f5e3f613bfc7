#version 450
// Skinned units: fetch the unit and its animation state named by the
// instance list, skin the vertex with two bones from the baked bone texture
// (crossfading two clips when a transition is in progress), then rotate about
// +Y, scale and translate.
#include "types.glsl"
#include "common.glsl"
#include "mesh_inputs.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 1, std140) uniform Types { TypeInfo types[MAX_TYPES]; };
layout(set = 0, binding = 2, std430) readonly buffer Infos { UnitInfo infos[]; };
layout(set = 0, binding = 3, std430) readonly buffer Placements { UnitPlacement placements[]; };
layout(set = 0, binding = 8, std430) readonly buffer AnimStates { AnimState anim_states[]; };
layout(set = 0, binding = 9, std140) uniform Clips { ClipInfo clips[MAX_CLIPS]; };
layout(set = 0, binding = 10) uniform sampler2D bone_texture;
layout(set = 0, binding = 11, std430) readonly buffer Marks { uint marks[]; };

#include "skinning.glsl"

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
    AnimState anim = anim_states[index];
    TypeInfo type_info = types[info.type_index];
    vec3 model_position = type_info.quant_min + vertex_position() * type_info.quant_extent;
    vec3 model_normal = octahedral_decode(vertex_normal());
    uint bone_count = type_info.bone_count;
    uint first_clip = type_info.first_clip;

    ClipInfo current = clips[first_clip + ((anim.clips >> ANIM_CURRENT_CLIP_SHIFT) & 0xffu)];
    ClipInfo previous = clips[first_clip + ((anim.clips >> ANIM_PREVIOUS_CLIP_SHIFT) & 0xffu)];
    vec3 normal;
    vec3 position = skin_crossfade(current, anim.time_current, previous, anim.time_previous,
                                   unpackHalf2x16(anim.blend).x, bone_count, in_skin.xy,
                                   float(in_skin.z) / 255.0, model_position, model_normal,
                                   normal);

    vec3 world = rotate_y(position * info.scale, placement.heading) + placement.position;
    out_world_position = world;
    out_normal = rotate_y(normal, placement.heading);
    out_uv = vertex_uv();
    // A select, not a branch: lavapipe compiles a shader variant for each
    // value of a uniform a branch depends on (tests/tests/soak.rs).
    vec4 mark = mark_color(marks[index]);
    out_tint = globals.debug_view == DEBUG_VIEW_MARKS ? mark : unpackUnorm4x8(info.tint);
    out_material = type_info.first_material + in_skin.w;
    out_route = in_instance >> ENTRY_INDEX_BITS;
    // The far field's hand-backs are never banded.
    vec3 centre = rotate_y(type_info.sphere_center * info.scale, placement.heading)
                + placement.position;
    out_impostor_fade = out_route >= ROUTE_FAR_FIELD
        ? 0.0
        : impostor_fade(centre, type_info.sphere_radius * info.scale,
                        type_info.routes[ROUTE_IMPOSTOR].error, globals);
    gl_Position = globals.view_proj * vec4(world, 1.0);
}
