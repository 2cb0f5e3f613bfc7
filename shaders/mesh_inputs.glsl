// Vertex inputs of every mesh pipeline; formats and offsets come from
// gpu_types::mesh_vertex_attributes.
#ifndef HORDE_MESH_INPUTS_GLSL
#define HORDE_MESH_INPUTS_GLSL

layout(location = 0) in vec4 in_position;  // unorm16 inside the type's box
layout(location = 1) in vec2 in_normal;    // octahedral, snorm16
layout(location = 2) in vec2 in_uv;
layout(location = 3) in uvec2 in_bones;
layout(location = 4) in float in_weight;   // weight of in_bones.x
layout(location = 5) in uint in_material;  // material local to the type
layout(location = 6) in uint in_instance;  // instance-list entry: index | lod << 30

#endif
