#version 450
// Animated impostors: blends the four nearest views of the two frames around
// the clip time (a dithered choice between two clips while crossfading),
// alpha-tests the coverage, lights the stored normal, tints and fogs as
// mesh.frag does. In the crossfade band it keeps the pixels the mesh gives
// up (`impostor_fade`). engine/src/passes/impostor.rs explains the layout.
#include "types.glsl"
#include "common.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 5) uniform sampler2D impostor_albedo;
layout(set = 0, binding = 7) uniform sampler2D impostor_normal;
layout(set = 0, binding = 10, std430) readonly buffer ShadowDepths { uint shadow_depths[]; };
#include "shadow.glsl"

layout(location = 0) in vec3 in_world_position;
layout(location = 1) in vec4 in_view_uv01;
layout(location = 2) in vec4 in_view_uv23;
layout(location = 3) flat in uvec4 in_views;
layout(location = 4) flat in vec4 in_view_weights;
layout(location = 5) flat in uvec4 in_frames;
layout(location = 6) flat in vec3 in_blends;
layout(location = 7) flat in vec4 in_tint;
layout(location = 8) flat in float in_heading;
layout(location = 9) flat in float in_impostor_fade;
layout(location = 10) flat in float in_lod;

layout(location = 0) out vec4 out_color;

const uint CELLS_PER_ROW = IMPOSTOR_ATLAS_WIDTH / IMPOSTOR_CELL_PX;
// Coverage below this is outside the silhouette (half a texel's samples).
const float ALPHA_CUTOFF = 0.5;

// The atlas coordinate of `uv` in cell `cell`, kept half a texel of the
// coarser level sampled inside it, so that filtering never reads a
// neighbour.
vec2 atlas_uv(uint cell, vec2 uv) {
    float side = float(IMPOSTOR_CELL_PX);
    float margin = 0.5 * exp2(ceil(in_lod));
    vec2 origin = vec2(cell % CELLS_PER_ROW, cell / CELLS_PER_ROW) * side;
    vec2 texel = origin + clamp(uv * side, vec2(margin), vec2(side - margin));
    return texel / vec2(textureSize(impostor_albedo, 0));
}

void main() {
    float threshold = dither_threshold(gl_FragCoord.xy);
    if (threshold >= in_impostor_fade) {
        discard;
    }
    // The crossfade between clips: this pixel shows one of them, in
    // proportion (a second dither pattern, offset from the band's).
    bool current = dither_threshold(gl_FragCoord.xy + vec2(2.0, 1.0)) < in_blends.z;
    uvec2 frames = current ? in_frames.xy : in_frames.zw;
    float frame_blend = current ? in_blends.x : in_blends.y;

    vec2 uvs[4] = vec2[4](in_view_uv01.xy, in_view_uv01.zw, in_view_uv23.xy, in_view_uv23.zw);
    vec3 colour = vec3(0.0);
    vec3 normal = vec3(0.0);
    float coverage = 0.0;
    for (uint view = 0u; view < 4u; view++) {
        float weight = in_view_weights[view];
        if (weight <= 0.0) {
            continue;
        }
        vec2 first = atlas_uv(frames.x + in_views[view], uvs[view]);
        vec2 second = atlas_uv(frames.y + in_views[view], uvs[view]);
        vec4 albedo = mix(textureLod(impostor_albedo, first, in_lod),
                          textureLod(impostor_albedo, second, in_lod), frame_blend);
        vec3 n = mix(textureLod(impostor_normal, first, in_lod).rgb,
                     textureLod(impostor_normal, second, in_lod).rgb, frame_blend);
        // Colour and normal weighted by coverage, so edges do not darken.
        colour += albedo.rgb * albedo.a * weight;
        normal += (n * 2.0 - 1.0) * albedo.a * weight;
        coverage += albedo.a * weight;
    }
    if (coverage < ALPHA_CUTOFF) {
        discard;
    }
    if (globals.debug_view == DEBUG_VIEW_UNIT_MASK) {
        out_color = vec4(1.0);
        return;
    }
    vec3 albedo = colour / coverage * in_tint.rgb;
    if (globals.debug_view == DEBUG_VIEW_LOD) {
        albedo = route_color(ROUTE_IMPOSTOR);
    }
    if (globals.debug_view == DEBUG_VIEW_MARKS) {
        // The vertex shader hands the mark over as the tint.
        albedo = in_tint.rgb;
    }
    vec3 world_normal = rotate_y(normal, in_heading);
    float sun = sun_visibility(in_world_position, world_normal, globals);
    out_color = vec4(shade(albedo, vec3(0.0), world_normal, in_world_position, sun, globals), 1.0);
}
