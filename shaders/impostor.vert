#version 450
// Animated impostors: one camera-facing quad per unit, placed over the box
// the type's cells frame. Picks the four baked views nearest to the camera
// direction (hemi-octahedral grid, bilinear weights) and the frames around
// the unit's clip time (two clips while crossfading); the fragment shader
// blends them. engine/src/passes/impostor.rs explains the data layout.
#include "types.glsl"
#include "common.glsl"
#include "mesh_inputs.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 1, std140) uniform Types { TypeInfo types[MAX_TYPES]; };
layout(set = 0, binding = 2, std430) readonly buffer Infos { UnitInfo infos[]; };
layout(set = 0, binding = 3, std430) readonly buffer Placements { UnitPlacement placements[]; };
layout(set = 0, binding = 4, std140) uniform ImpostorClips {
    ImpostorClip impostor_clips[MAX_CLIPS];
};
layout(set = 0, binding = 6, std430) readonly buffer AnimStates { AnimState anim_states[]; };
layout(set = 0, binding = 9, std430) readonly buffer Marks { uint marks[]; };
layout(set = 0, binding = 8, std140) uniform ImpostorBoxes {
    ImpostorBox impostor_boxes[MAX_TYPES];
};

layout(location = 0) out vec3 out_world_position;
// The quad point in the cells of the four views: (u, v) of views 0 and 1,
// then of views 2 and 3 (interpolated: each view's own projection).
layout(location = 1) out vec4 out_view_uv01;
layout(location = 2) out vec4 out_view_uv23;
// The four views (row * IMPOSTOR_VIEWS_PER_SIDE + column) and their weights.
layout(location = 3) flat out uvec4 out_views;
layout(location = 4) flat out vec4 out_view_weights;
// First cells of the current clip's two frames, then the previous clip's.
layout(location = 5) flat out uvec4 out_frames;
// Blend between the current clip's frames, the previous clip's, and the
// current clip's weight in the crossfade.
layout(location = 6) flat out vec3 out_blends;
layout(location = 7) flat out vec4 out_tint;
layout(location = 8) flat out float out_heading;
layout(location = 9) flat out float out_impostor_fade;
// The atlas mip level: texels of a cell per pixel of the quad, on the
// denser axis.
layout(location = 10) flat out float out_lod;

const uint VIEWS = IMPOSTOR_VIEWS_PER_SIDE * IMPOSTOR_VIEWS_PER_SIDE;

// The view direction of grid point `grid` (column, row), as the bake's
// `view_direction`.
vec3 view_direction(uvec2 grid) {
    vec2 uv = vec2(grid) / float(IMPOSTOR_VIEWS_PER_SIDE - 1u) * 2.0 - 1.0;
    float x = (uv.x + uv.y) * 0.5;
    float z = (uv.x - uv.y) * 0.5;
    return normalize(vec3(x, max(1.0 - abs(x) - abs(z), 0.0), z));
}

// Screen right and up of a view along `direction`, as the bake's `view_basis`.
void view_basis(vec3 direction, out vec3 right, out vec3 up) {
    vec3 r = cross(vec3(0.0, 1.0, 0.0), direction);
    right = dot(r, r) > 1e-8 ? normalize(r) : vec3(1.0, 0.0, 0.0);
    up = cross(direction, right);
}

// The half extents of the cell of a view with `right` and `up`: the box's
// projection, as the bake's `cell_half_extent`.
vec2 cell_half_extent(vec3 half_extent, vec3 right, vec3 up) {
    return max(vec2(dot(abs(right), half_extent), dot(abs(up), half_extent)), vec2(1e-6));
}

// Where `point` (model space, from the box's centre) falls in the cell of
// grid view `grid`.
vec2 cell_uv(uvec2 grid, vec3 point, vec3 half_extent) {
    vec3 right;
    vec3 up;
    view_basis(view_direction(grid), right, up);
    vec2 extent = cell_half_extent(half_extent, right, up);
    return vec2(dot(point, right) / extent.x * 0.5 + 0.5, 0.5 - dot(point, up) / extent.y * 0.5);
}

// The first cells of the frames around `time` and the blend between them.
uvec2 frames_at(ImpostorClip clip, float time, out float blend) {
    uint count = max(clip.frame_count, 1u);
    float frame = 0.0;
    if (clip.duration > 0.0 && count > 1u) {
        float phase = time / clip.duration;
        frame = clip.looping != 0u ? fract(phase) * float(count)
                                   : clamp(phase, 0.0, 1.0) * float(count - 1u);
    }
    uint first = min(uint(frame), count - 1u);
    uint second = clip.looping != 0u ? (first + 1u) % count : min(first + 1u, count - 1u);
    blend = clamp(frame - float(first), 0.0, 1.0);
    return uvec2(clip.first_cell + first * VIEWS, clip.first_cell + second * VIEWS);
}

void main() {
    uint index = in_instance & ENTRY_INDEX_MASK;
    UnitInfo info = infos[index];
    UnitPlacement placement = placements[index];
    AnimState anim = anim_states[index];
    uint type_index = min(info.type_index, uint(MAX_TYPES) - 1u);
    float heading = placement.heading;

    // The quad faces the camera through the box's centre and spans the
    // box's projection (rotation about +Y turns the view's basis with it).
    ImpostorBox box = impostor_boxes[type_index];
    vec3 centre = rotate_y(box.center * info.scale, heading) + placement.position;
    vec3 to_eye = globals.camera_position - centre;
    vec3 direction = dot(to_eye, to_eye) > 0.0 ? normalize(to_eye) : vec3(0.0, 0.0, 1.0);
    vec3 right;
    vec3 up;
    view_basis(direction, right, up);
    vec3 model_direction = rotate_y(direction, -heading);
    vec3 model_right;
    vec3 model_up;
    view_basis(model_direction, model_right, model_up);
    vec2 extent = cell_half_extent(box.half_extent, model_right, model_up);
    vec2 corner = vertex_uv() * 2.0 - 1.0;
    vec2 offset = vec2(corner.x, -corner.y) * extent;
    vec3 world = centre + (offset.x * right + offset.y * up) * info.scale;
    // The quad point in model space, from the box's centre.
    vec3 point = offset.x * model_right + offset.y * model_up;
    // Below the horizon the horizon's views stand in.
    vec3 above = vec3(model_direction.x, max(model_direction.y, 0.0), model_direction.z);
    above /= max(abs(above.x) + above.y + abs(above.z), 1e-6);
    vec2 square = vec2(above.x + above.z, above.x - above.z);
    float last = float(IMPOSTOR_VIEWS_PER_SIDE - 1u);
    vec2 grid = clamp((square * 0.5 + 0.5) * last, 0.0, last);
    uvec2 low = uvec2(min(floor(grid), vec2(last - 1.0)));
    vec2 f = clamp(grid - vec2(low), 0.0, 1.0);
    uvec2 g00 = low;
    uvec2 g10 = low + uvec2(1u, 0u);
    uvec2 g01 = low + uvec2(0u, 1u);
    uvec2 g11 = low + uvec2(1u, 1u);
    uint side = IMPOSTOR_VIEWS_PER_SIDE;
    out_views = uvec4(g00.y * side + g00.x, g10.y * side + g10.x, g01.y * side + g01.x,
                      g11.y * side + g11.x);
    out_view_weights = vec4((1.0 - f.x) * (1.0 - f.y), f.x * (1.0 - f.y),
                            (1.0 - f.x) * f.y, f.x * f.y);
    out_view_uv01 = vec4(cell_uv(g00, point, box.half_extent), cell_uv(g10, point, box.half_extent));
    out_view_uv23 = vec4(cell_uv(g01, point, box.half_extent), cell_uv(g11, point, box.half_extent));

    // Frames of the current and the previous clip.
    uint first_clip = types[type_index].first_clip;
    uint current = min(first_clip + ((anim.clips >> ANIM_CURRENT_CLIP_SHIFT) & 0xffu),
                       uint(MAX_CLIPS) - 1u);
    uint previous = min(first_clip + ((anim.clips >> ANIM_PREVIOUS_CLIP_SHIFT) & 0xffu),
                        uint(MAX_CLIPS) - 1u);
    float current_blend;
    float previous_blend;
    uvec2 current_frames = frames_at(impostor_clips[current], anim.time_current, current_blend);
    uvec2 previous_frames =
        frames_at(impostor_clips[previous], anim.time_previous, previous_blend);
    // A bad clip table samples the type's own cells, never another's.
    uint last_frame = box.first_cell + max(box.cell_count, VIEWS) - VIEWS;
    out_frames = clamp(uvec4(current_frames, previous_frames), uvec4(box.first_cell),
                       uvec4(last_frame));
    out_blends = vec3(current_blend, previous_blend,
                      clamp(unpackHalf2x16(anim.blend).x, 0.0, 1.0));

    float distance_to_eye = max(length(to_eye), 1e-3);
    vec2 quad_px = 2.0 * extent * info.scale * globals.pixels_per_unit / distance_to_eye;
    float texels_per_pixel = float(IMPOSTOR_CELL_PX) / max(min(quad_px.x, quad_px.y), 1e-3);
    out_lod = clamp(log2(texels_per_pixel), 0.0, float(IMPOSTOR_MIP_LEVELS - 1u));
    out_world_position = world;
    // A select, not a branch: lavapipe compiles a shader variant for each
    // value of a uniform a branch depends on (tests/tests/soak.rs).
    vec4 mark = mark_color(marks[index]);
    out_tint = globals.debug_view == DEBUG_VIEW_MARKS ? mark : unpackUnorm4x8(info.tint);
    out_heading = heading;
    // The band follows the cull's sphere.
    vec3 sphere_centre = rotate_y(types[type_index].sphere_center * info.scale, heading)
                       + placement.position;
    out_impostor_fade = impostor_fade(sphere_centre, types[type_index].sphere_radius * info.scale,
                                      types[type_index].routes[ROUTE_IMPOSTOR].error, globals);
    gl_Position = globals.view_proj * vec4(world, 1.0);
}
