// The sun's shadow lookup (engine/src/shadow.rs fits the cascades,
// engine/src/passes/shadow.rs draws them). The includer declares, before
// including this file, the cascades' depths as
//   readonly buffer ShadowDepths { uint shadow_depths[]; };
// cascade after cascade, row after row, float bits of reverse-Z depth
// (nearer the sun is larger; 0 where nothing casts).
#ifndef HORDE_SHADOW_GLSL
#define HORDE_SHADOW_GLSL

// Texel (x, y) of cascade `c` lights a receiver at reverse-Z depth
// `reference`: nothing nearer the sun is there.
float shadow_texel_lit(uint c, ivec2 texel, int size, float reference) {
    texel = clamp(texel, ivec2(0), ivec2(size - 1));
    uint index = (c * uint(size) + uint(texel.y)) * uint(size) + uint(texel.x);
    return reference >= uintBitsToFloat(shadow_depths[index]) ? 1.0 : 0.0;
}

// Percentage-closer filtering at `uv` of cascade `c`: the four texels
// around it compared and weighted bilinearly (what a comparison sampler's
// linear filter does).
float shadow_bilinear(uint c, vec2 uv, int size, float reference) {
    vec2 position = uv * float(size) - 0.5;
    ivec2 base = ivec2(floor(position));
    vec2 f = position - vec2(base);
    float a = shadow_texel_lit(c, base, size, reference);
    float b = shadow_texel_lit(c, base + ivec2(1, 0), size, reference);
    float d = shadow_texel_lit(c, base + ivec2(0, 1), size, reference);
    float e = shadow_texel_lit(c, base + ivec2(1, 1), size, reference);
    return mix(mix(a, b, f.x), mix(d, e, f.x), f.y);
}

// The 3x3-texel tent at `uv` of cascade `c`: the mean of four bilinear
// comparisons half a texel apart. They share one fraction and one 3x3 block
// of texels, so the mean is separable, weights (1 - f, 1, f) / 2 along each
// axis, and reads each of the 9 texels once (16 reads as four lookups).
float shadow_tent(uint c, vec2 uv, int size, float reference) {
    vec2 position = uv * float(size) - 1.0;
    ivec2 base = ivec2(floor(position));
    vec2 f = position - vec2(base);
    vec3 wx = 0.5 * vec3(1.0 - f.x, 1.0, f.x);
    vec3 wy = 0.5 * vec3(1.0 - f.y, 1.0, f.y);
    float lit = 0.0;
    for (int y = 0; y < 3; y++) {
        float row = 0.0;
        for (int x = 0; x < 3; x++) {
            row += wx[x] * shadow_texel_lit(c, base + ivec2(x, y), size, reference);
        }
        lit += wy[y] * row;
    }
    return lit;
}

// The share of the sun reaching `world` (normal `normal`): 1 lit, 0 in
// shadow. The first cascade whose map holds the point (with a margin for
// the filter) answers: the point moved along its normal by about a texel,
// its depth biased sunward by about a texel, then with `tent` the 3x3-texel
// tent (9 reads), without it one bilinear comparison (2x2 texels, 4 reads).
// Past the shadow distance every point is lit, faded in over its last tenth.
float sun_visibility_filtered(vec3 world, vec3 normal, FrameGlobals g, bool tent) {
    uint count = min(g.shadow_cascade_count, uint(MAX_SHADOW_CASCADES));
    float distance_to_camera = length(world - g.camera_position);
    if (count == 0u || !(distance_to_camera < g.shadow_distance)) {
        return 1.0;
    }
    int size = int(round(1.0 / g.shadow_inverse_size));
    vec3 n = normalize(normal);
    float margin = 2.0 * g.shadow_inverse_size;
    for (uint c = 0u; c < count; c++) {
        vec4 bias = g.shadow_cascade_bias[c];
        vec4 clip = g.shadow_view_proj[c] * vec4(world + n * bias.x, 1.0);
        vec2 uv = clip.xy * 0.5 + 0.5;
        if (any(lessThan(uv, vec2(margin))) || any(greaterThan(uv, vec2(1.0 - margin)))
            || clip.z < 0.0 || clip.z > 1.0) {
            continue;
        }
        float reference = clip.z + bias.y;
        float lit = tent ? shadow_tent(c, uv, size, reference)
                         : shadow_bilinear(c, uv, size, reference);
        float fade = smoothstep(0.9 * g.shadow_distance, g.shadow_distance, distance_to_camera);
        return mix(lit, 1.0, fade);
    }
    return 1.0;
}

// The meshes' lookup: the tent.
float sun_visibility(vec3 world, vec3 normal, FrameGlobals g) {
    return sun_visibility_filtered(world, normal, g, true);
}

#endif
