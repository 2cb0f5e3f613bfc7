#version 450
// Base colour (atlas texture × factor × instance tint), directional + ambient
// light, fog. The LOD debug view replaces the base colour by the route's colour.
#include "types.glsl"
#include "common.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 4, std140) uniform Materials { MaterialInfo materials[MAX_MATERIALS]; };
layout(set = 0, binding = 5) uniform sampler2D atlas;

layout(location = 0) in vec3 in_world_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) in vec4 in_tint;
layout(location = 4) flat in uint in_material;
layout(location = 5) flat in uint in_route;

layout(location = 0) out vec4 out_color;

void main() {
    MaterialInfo material = materials[in_material];
    vec3 albedo = material.base_color.rgb * in_tint.rgb;
    if (material.atlas_rect.z > 0.0) {
        vec2 uv = material.atlas_rect.xy + fract(in_uv) * material.atlas_rect.zw;
        albedo *= texture(atlas, uv).rgb;
    }
    if (globals.debug_view == DEBUG_VIEW_LOD) {
        albedo = route_color(in_route);
    }
    out_color = vec4(shade(albedo, in_normal, in_world_position, globals), 1.0);
}
