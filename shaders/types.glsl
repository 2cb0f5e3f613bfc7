// GLSL twins of engine/src/gpu_types.rs. The layout test checks every member
// offset against the Rust structs; the comments there document the fields.
// Constants (MAX_TYPES, ROUTE_FAR_FIELD, ...) arrive as macro definitions from
// engine/src/config.rs.
#ifndef HORDE_TYPES_GLSL
#define HORDE_TYPES_GLSL

struct FrameGlobals {
    mat4 view_proj;
    vec3 camera_position;
    uint debug_view;
    vec3 light_direction;
    float ambient;
    vec3 light_color;
    float fog_density;
    vec3 fog_color;
    float time;
    vec2 viewport_size;
    vec2 inverse_viewport_size;
    float pixels_per_unit;
    float impostor_threshold_px;
    float impostor_band;
    uint shadow_cascade_count;
    vec4 shadow_cascade_bias[MAX_SHADOW_CASCADES];
    mat4 shadow_view_proj[MAX_SHADOW_CASCADES];
    float shadow_inverse_size;
    float shadow_distance;
    float ground_texture_scale;
    float pad;
};

struct UnitInfo {
    uint type_index;
    uint team;
    uint tint;
    float scale;
};

struct UnitPlacement {
    vec3 position;
    float heading;
};

struct UnitMotion {
    vec2 velocity;
    float speed;
    uint anim_commands;
};

struct AnimState {
    uint clips;
    float time_current;
    float time_previous;
    uint blend;
};

struct RouteInfo {
    float error;
    uint command;
    uint list_base;
    uint capacity;
};

struct TypeInfo {
    vec3 quant_min;
    uint bone_count;
    vec3 quant_extent;
    uint lod_count;
    vec3 sphere_center;
    float sphere_radius;
    uint first_clip;
    uint clip_count;
    uint first_material;
    uint capacity;
    uint first_controller_state;
    uint controller_state_count;
    uint first_any_transition;
    uint any_transition_count;
    RouteInfo routes[MAX_ROUTES];
};

struct DrawCommand {
    uint index_count;
    uint instance_count;
    uint first_index;
    int vertex_offset;
    uint first_instance;
};

struct FarFieldMesh {
    uint first_index;
    uint index_count;
    uint first_vertex;
    uint vertex_count_flags;
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
    vec3 emissive;
    uint flags;
    vec4 emissive_rect;
};

struct AnimStateDef {
    uint clip;
    float speed;
    uint flags;
    uint transitions;
    uint blend_clip;
    float clip_ground_speed;
    float blend_clip_ground_speed;
    float blend_phase_offset;
    float blend_start_speed;
    float blend_end_speed;
};

struct AnimTransitionDef {
    uint target;
    uint condition;
    float threshold;
    float fade;
};

struct CullGlobals {
    vec4 planes[6];
    vec3 camera_position;
    float pixels_per_unit;
    float lod_threshold_px;
    float lod_hysteresis;
    float max_draw_distance;
    float far_field_px;
    float impostor_threshold_px;
    float impostor_band;
    uint orthographic;
    float min_size_px;
    vec4 view_rows[3];
    vec2 projection_scale;
    float near;
    uint pad;
    uvec2 viewport;
    uvec2 pyramid_size;
};

struct ImpostorBox {
    vec3 center;
    uint first_cell;
    vec3 half_extent;
    uint cell_count;
};

struct ImpostorClip {
    uint first_cell;
    uint frame_count;
    float duration;
    uint looping;
};

#endif
