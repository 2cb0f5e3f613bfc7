// GLSL twins of engine/src/gpu_types.rs. The layout test checks every member
// offset against the Rust structs; the comments there document the fields.
#ifndef HORDE_TYPES_GLSL
#define HORDE_TYPES_GLSL

#define MAX_TYPES 64
#define MAX_CLIPS 1024
#define MAX_MATERIALS 256
#define INACTIVE_TYPE 0xffffu
#define INSTANCE_INDEX_BITS 30u
#define INSTANCE_INDEX_MASK 0x3fffffffu

#define CONDITION_CLIP_END 0u
#define CONDITION_SPEED_ABOVE 1u
#define CONDITION_SPEED_BELOW 2u
#define CONDITION_DEAD 3u
#define CONDITION_ALIVE 4u
#define CONDITION_ATTACK 5u
#define CONDITION_HIT 6u
#define STATE_NO_ANY 1u
#define STATE_PLAY_ONCE 2u

struct FrameGlobals {
    mat4 view_proj;
    vec4 camera_position;
    vec4 light_direction; // xyz towards the light, w ambient
    vec4 light_color;
    vec4 fog_color;       // w density
    vec4 viewport;        // w, h, 1/w, 1/h
    uvec4 debug;          // x: 1 = colour by LOD
};

struct Instance {
    vec3 position;
    float heading;
    float scale;
    uint type_index;
    uint tint;
    uint params;
};

struct AnimState {
    uint clips;
    float time_current;
    float time_previous;
    uint blend;
};

struct TypeInfo {
    vec4 quant_min;
    vec4 quant_extent;
    vec4 sphere;
    vec4 lod_error;
    uvec4 instance_base;
    uvec4 command;
    uvec4 skeleton;
    uvec4 controller;
    uvec4 materials;
};

struct ClipInfo {
    uint first_texel;
    uint frame_count;
    float duration;
    uint looping;
};

struct MaterialInfo {
    vec4 base_color;
    vec4 atlas_rect;
};

struct AnimStateDef {
    uint clip;
    float speed;
    uint flags;
    uint transitions;
};

struct AnimTransitionDef {
    uint target;
    uint condition;
    float threshold;
    float fade;
};

struct CullGlobals {
    vec4 planes[6];
    vec4 camera;
    vec4 lod;
    uvec4 counts;
};

#endif
