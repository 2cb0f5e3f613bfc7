// GLSL twins of engine/src/gpu_types.rs. The gpu_layout test checks every
// member offset against the Rust structs.
#ifndef HORDE_TYPES_GLSL
#define HORDE_TYPES_GLSL

struct FrameGlobals {
    mat4 view_proj;
    vec4 camera_position;
    vec4 light_direction; // xyz towards the light, w ambient
    vec4 light_color;
    vec4 fog_color;       // w density
    vec4 viewport;        // w, h, 1/w, 1/h
};

struct MeshInfo {
    vec4 quant_min;
    vec4 quant_extent;
};

#endif
