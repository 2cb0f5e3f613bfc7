#version 450
// Base colour (atlas texture × factor × instance tint), directional + ambient
// light, fog. The LOD debug view replaces the base colour by a LOD colour.
#include "types.glsl"
#include "common.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 3, std140) uniform Materials { MaterialInfo materials[MAX_MATERIALS]; };
layout(set = 0, binding = 4) uniform sampler2D atlas;

layout(location = 0) in vec3 in_world_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) in vec4 in_tint;
layout(location = 4) flat in uint in_material;
layout(location = 5) flat in uint in_lod;

layout(location = 0) out vec4 out_color;

const vec3 LOD_COLORS[4] = vec3[4](vec3(0.1, 0.8, 0.2), vec3(0.95, 0.8, 0.1), vec3(0.9, 0.2, 0.1), vec3(0.6, 0.2, 0.9));

void main() {
    MaterialInfo material = materials[in_material];
    vec3 albedo = material.base_color.rgb * in_tint.rgb;
    if (material.atlas_rect.z > 0.0) {
        vec2 uv = material.atlas_rect.xy + fract(in_uv) * material.atlas_rect.zw;
        albedo *= texture(atlas, uv).rgb;
    }
    if (globals.debug.x == 1u) {
        albedo = LOD_COLORS[min(in_lod, 3u)];
    }
    out_color = vec4(shade(albedo, in_normal, in_world_position, globals), 1.0);
}
