#version 450
// Base colour (atlas texture × factor × instance tint; on the ground, times
// the ground texture tiled in world X and Z), directional light
// through the sun's shadow map + ambient light, emission (atlas texture ×
// factor), fog. The LOD debug view replaces
// the base colour by the route's colour; the unit mask view draws units white
// and props black, unlit; the marks view replaces a unit's base colour by its
// mark's. In the pipelines that rasterize back
// faces (types with a double-sided material), single-sided materials discard
// theirs and double-sided ones are lit with the flipped normal. In the
// impostor crossfade band a unit gives the impostor the pixels its dither
// assigns it.
#include "types.glsl"
#include "common.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 4, std140) uniform Materials { MaterialInfo materials[MAX_MATERIALS]; };
layout(set = 0, binding = 5) uniform sampler2D atlas;
layout(set = 0, binding = 6, std430) readonly buffer ShadowDepths { uint shadow_depths[]; };
layout(set = 0, binding = 7) uniform sampler2D ground_texture;
#include "shadow.glsl"

layout(location = 0) in vec3 in_world_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) in vec4 in_tint;
layout(location = 4) flat in uint in_material;
layout(location = 5) flat in uint in_route;
// The impostor's share in the crossfade band (0 outside it).
layout(location = 6) flat in float in_impostor_fade;

layout(location = 0) out vec4 out_color;

// 1 in the pipelines without back-face culling.
layout(constant_id = 1) const uint BACK_FACES_RASTERIZED = 0u;
// 1 in the pipelines that draw units (skinned), 0 in those that draw props.
layout(constant_id = 3) const uint DRAWS_UNITS = 0u;

vec3 atlas_texel(vec4 rect) {
    return texture(atlas, rect.xy + fract(in_uv) * rect.zw).rgb;
}

// The ground texture at tile coordinates `tile`, averaged with itself
// turned and 3.4 times larger: the two repeat at incommensurate periods, so
// the tiling does not show as a grid across the field (CPU twin:
// `ground_detail_samples` of engine/src/world/ground.rs).
vec3 ground_detail(vec2 tile) {
    // Columns: (0.8, -0.6) and (0.6, 0.8), so TURN * t = (0.8 t.x + 0.6 t.y,
    // -0.6 t.x + 0.8 t.y).
    const mat2 TURN = mat2(0.8, -0.6, 0.6, 0.8);
    vec2 large = TURN * tile * 0.29 + vec2(0.37, 0.61);
    return 0.5 * (texture(ground_texture, tile).rgb + texture(ground_texture, large).rgb);
}

void main() {
    if (dither_threshold(gl_FragCoord.xy) < in_impostor_fade) {
        discard;
    }
    MaterialInfo material = materials[in_material];
    bool back_face = BACK_FACES_RASTERIZED == 1u && !gl_FrontFacing;
    if (back_face && (material.flags & MATERIAL_DOUBLE_SIDED) == 0u) {
        discard;
    }
    if (globals.debug_view == DEBUG_VIEW_UNIT_MASK) {
        out_color = DRAWS_UNITS == 1u ? vec4(1.0) : vec4(0.0, 0.0, 0.0, 1.0);
        return;
    }
    vec3 normal = back_face ? -in_normal : in_normal;
    vec3 albedo = material.base_color.rgb * in_tint.rgb;
    if (material.atlas_rect.z > 0.0) {
        albedo *= atlas_texel(material.atlas_rect);
    }
    if ((material.flags & MATERIAL_GROUND_TEXTURE) != 0u) {
        albedo *= ground_detail(in_world_position.xz * globals.ground_texture_scale);
    }
    vec3 emitted = material.emissive;
    if (material.emissive_rect.z > 0.0) {
        emitted *= atlas_texel(material.emissive_rect);
    }
    if (globals.debug_view == DEBUG_VIEW_LOD) {
        albedo = route_color(in_route);
        emitted = vec3(0.0);
    }
    if (globals.debug_view == DEBUG_VIEW_MARKS && DRAWS_UNITS == 1u) {
        // The unit vertex shader hands the mark over as the tint.
        albedo = in_tint.rgb;
        emitted = vec3(0.0);
    }
    float sun = sun_visibility(in_world_position, normal, globals);
    out_color = vec4(shade(albedo, emitted, normal, in_world_position, sun, globals), 1.0);
}
