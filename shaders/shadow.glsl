// The sun's shadow map lookup (engine/src/shadow.rs fits the cascades,
// engine/src/passes/shadow.rs draws them). The includer declares the map,
// a sampler2DArrayShadow (one layer per cascade, reverse-Z: nearer the sun
// is larger, compared GREATER_OR_EQUAL with linear filtering).
#ifndef HORDE_SHADOW_GLSL
#define HORDE_SHADOW_GLSL

// The share of the sun reaching `world` (normal `normal`): 1 lit, 0 in
// shadow. The first cascade whose map holds the point (with a margin for
// the filter) answers: the point moved along its normal by about a texel,
// its depth biased sunward by about a texel, four bilinear comparisons half
// a texel apart (a 3x3-texel tent). Past the shadow distance every point is
// lit, faded in over its last tenth. Explicit gradients: the map has no mip
// levels, and compute shaders (the far field) have no implicit ones.
float sun_visibility(sampler2DArrayShadow map, vec3 world, vec3 normal, FrameGlobals g) {
    uint count = min(g.shadow_cascade_count, uint(MAX_SHADOW_CASCADES));
    float distance_to_camera = length(world - g.camera_position);
    if (count == 0u || !(distance_to_camera < g.shadow_distance)) {
        return 1.0;
    }
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
        float layer = float(c);
        float half_texel = 0.5 * g.shadow_inverse_size;
        float lit = 0.0;
        for (int i = 0; i < 4; i++) {
            vec2 offset = vec2((i & 1) == 0 ? -half_texel : half_texel,
                               (i & 2) == 0 ? -half_texel : half_texel);
            lit += textureGrad(map, vec4(uv + offset, layer, reference), vec2(0.0), vec2(0.0));
        }
        float fade = smoothstep(0.9 * g.shadow_distance, g.shadow_distance, distance_to_camera);
        return mix(lit * 0.25, 1.0, fade);
    }
    return 1.0;
}

#endif
