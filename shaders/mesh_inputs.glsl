// Vertex inputs of every mesh pipeline; formats and offsets come from
// gpu_types::mesh_vertex_attributes.
#ifndef HORDE_MESH_INPUTS_GLSL
#define HORDE_MESH_INPUTS_GLSL

// Vertex attribute fetch, not shading, bounds the draw of many small
// instanced meshes, so vertices are pulled from a storage buffer instead:
// five words per PackedVertex (position xy, position z and a zero, octahedral
// normal snorm16 x2, UV half x2, then bones, weight and material bytes). Only
// the instance-list entry stays a (per-instance) attribute.
layout(location = 0) in uint in_instance;  // instance-list entry: index | lod << 30
layout(set = 0, binding = 3, std430) readonly buffer Vertices { uint vertex_words[]; };

uint vertex_word(uint word) {
    return vertex_words[uint(gl_VertexIndex) * 5u + word];
}

vec3 vertex_position() {
    return vec3(unpackUnorm2x16(vertex_word(0u)), unpackUnorm2x16(vertex_word(1u)).x);
}

vec2 vertex_normal() {
    return unpackSnorm2x16(vertex_word(2u));
}

vec2 vertex_uv() {
    return unpackHalf2x16(vertex_word(3u));
}

// Bone indices, the first bone's weight in 1/255, and the material.
uvec4 vertex_skin() {
    uint word = vertex_word(4u);
    return uvec4(word & 0xffu, (word >> 8u) & 0xffu, (word >> 16u) & 0xffu, word >> 24u);
}

#endif
