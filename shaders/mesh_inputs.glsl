// Vertex inputs of every mesh pipeline; formats and offsets come from
// gpu_types::mesh_vertex_attributes.
#ifndef HORDE_MESH_INPUTS_GLSL
#define HORDE_MESH_INPUTS_GLSL

layout(location = 0) in vec4 in_position;  // unorm16 inside the type's box
layout(location = 1) in vec2 in_normal;    // octahedral, snorm16
layout(location = 2) in vec2 in_uv;
// Two bone indices, the first bone's weight in 1/255, and the material local
// to the type: one 4-byte attribute, because vertex attribute fetch, not
// shading, bounds the draw of small skinned meshes.
layout(location = 3) in uvec4 in_skin;
layout(location = 4) in uint in_instance;  // instance-list entry: index | lod << 30

#endif
