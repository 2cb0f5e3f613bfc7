// Vertex inputs of every mesh pipeline; formats and offsets come from
// gpu_types::mesh_vertex_attributes.
#ifndef HORDE_MESH_INPUTS_GLSL
#define HORDE_MESH_INPUTS_GLSL

// Vertex attribute fetch, not shading, bounds the draw of many small
// instanced meshes, so the 20-byte vertex is read as two attributes and
// unpacked here: position (unorm16 x3 inside the type's box, then a zero),
// octahedral normal (snorm16 x2) and UV (half x2) in the first; two bone
// indices, the first bone's weight in 1/255, and the material local to the
// type in the second.
layout(location = 0) in uvec4 in_vertex;
layout(location = 1) in uvec4 in_skin;
layout(location = 2) in uint in_instance;  // instance-list entry: index | route << ENTRY_INDEX_BITS

vec3 vertex_position() {
    return vec3(unpackUnorm2x16(in_vertex.x), unpackUnorm2x16(in_vertex.y).x);
}

vec2 vertex_normal() {
    return unpackSnorm2x16(in_vertex.z);
}

vec2 vertex_uv() {
    return unpackHalf2x16(in_vertex.w);
}

#endif
