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
layout(set = 0, binding = 2, std430) readonly buffer Instances { Instance instances[]; };
layout(set = 0, binding = 5, std430) readonly buffer AnimStates { AnimState anim_states[]; };
layout(set = 0, binding = 6, std140) uniform Clips { ClipInfo clips[MAX_CLIPS]; };
layout(set = 0, binding = 7) uniform sampler2D bone_texture;

#include "skinning.glsl"

layout(location = 0) out vec3 out_world_position;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec2 out_uv;
layout(location = 3) out vec4 out_tint;
layout(location = 4) flat out uint out_material;
layout(location = 5) flat out uint out_lod;

void main() {
    uint index = in_instance & INSTANCE_INDEX_MASK;
    Instance inst = instances[index];
    AnimState anim = anim_states[index];
    TypeInfo type_info = types[inst.type_index];
    vec3 model_position = type_info.quant_min.xyz + vertex_position() * type_info.quant_extent.xyz;
    vec3 model_normal = octahedral_decode(vertex_normal());
    uint bone_count = type_info.skeleton.x;
    uint first_clip = type_info.skeleton.y;

    ClipInfo current = clips[first_clip + ((anim.clips >> 8u) & 0xffu)];
    vec3 normal;
    vec3 position = skin(current, bone_count, anim.time_current, in_skin.xy, float(in_skin.z) / 255.0,
                         model_position, model_normal, normal);
    float blend = unpackHalf2x16(anim.blend).x;
    if (blend < 1.0) {
        ClipInfo previous = clips[first_clip + ((anim.clips >> 16u) & 0xffu)];
        vec3 previous_normal;
        vec3 previous_position = skin(previous, bone_count, anim.time_previous, in_skin.xy, float(in_skin.z) / 255.0,
                                      model_position, model_normal, previous_normal);
        position = mix(previous_position, position, blend);
        normal = mix(previous_normal, normal, blend);
    }

    vec3 world = rotate_y(position * inst.scale, inst.heading) + inst.position;
    out_world_position = world;
    out_normal = rotate_y(normal, inst.heading);
    out_uv = vertex_uv();
    out_tint = unpackUnorm4x8(inst.tint);
    out_material = type_info.materials.x + in_skin.w;
    out_lod = in_instance >> INSTANCE_INDEX_BITS;
    gl_Position = globals.view_proj * vec4(world, 1.0);
}
