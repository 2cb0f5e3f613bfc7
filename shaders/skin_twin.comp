#version 450
// Compute twin of unit.vert's skinning, for tests: skins every vertex of a
// mesh with skinning.glsl (the same code the vertex shader runs) and writes
// model-space positions.
#include "types.glsl"

layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer Vertices { uint vertex_words[]; };
layout(set = 0, binding = 1, std140) uniform Clips { ClipInfo clips[MAX_CLIPS]; };
layout(set = 0, binding = 2) uniform sampler2D bone_texture;
layout(set = 0, binding = 3, std430) writeonly buffer Skinned { vec4 skinned[]; };

layout(push_constant) uniform Push {
    vec4 quant_min;
    vec4 quant_extent;
    uint vertex_count;
    uint bone_count;
    uint clip;
    float time;
    uint output_offset;
} push;

#include "skinning.glsl"

void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= push.vertex_count) {
        return;
    }
    // PackedVertex is five words: position xy, position zw, normal, uv,
    // bones + weight + material.
    uint base = index * 5u;
    vec2 xy = unpackUnorm2x16(vertex_words[base]);
    vec2 zw = unpackUnorm2x16(vertex_words[base + 1u]);
    uint packed_bones = vertex_words[base + 4u];
    uvec2 bones = uvec2(packed_bones & 0xffu, (packed_bones >> 8u) & 0xffu);
    float weight = float((packed_bones >> 16u) & 0xffu) / 255.0;
    vec3 model_position = push.quant_min.xyz + vec3(xy, zw.x) * push.quant_extent.xyz;
    vec3 normal;
    vec3 position = skin(clips[push.clip], push.bone_count, push.time, bones, weight,
                         model_position, vec3(0.0, 1.0, 0.0), normal);
    skinned[push.output_offset + index] = vec4(position, 1.0);
}
