#version 450
// The naive baseline's units (passes/naive.rs): the CPU has skinned each
// vertex into world space, so this only projects it. The UV and material
// come from the baked vertex as a second stream; the unit's tint and its
// type's first material are push constants, set per draw.
#include "types.glsl"
#include "common.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };

// Stream 0: the CPU-skinned world position and octahedral unit normal.
layout(location = 0) in vec3 in_position;
layout(location = 1) in vec2 in_normal;
// Stream 1: the baked vertex (mesh_inputs.glsl): UV in .w of the first
// attribute, the material local to the type in .w of the second.
layout(location = 2) in uvec4 in_vertex;
layout(location = 3) in uvec4 in_skin;

layout(push_constant) uniform Draw {
    uint tint;
    uint first_material;
} draw;

layout(location = 0) out vec3 out_world_position;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec2 out_uv;
layout(location = 3) out vec4 out_tint;
layout(location = 4) flat out uint out_material;
layout(location = 5) flat out uint out_route;
layout(location = 6) flat out float out_impostor_fade;

void main() {
    out_world_position = in_position;
    out_normal = octahedral_decode(in_normal);
    out_uv = unpackHalf2x16(in_vertex.w);
    out_tint = unpackUnorm4x8(draw.tint);
    out_material = draw.first_material + in_skin.w;
    // Every unit is drawn at LOD 0.
    out_route = 0u;
    out_impostor_fade = 0.0;
    gl_Position = globals.view_proj * vec4(in_position, 1.0);
}
