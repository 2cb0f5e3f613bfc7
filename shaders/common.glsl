// Shared GLSL helpers. Config constants (MAX_LODS, ...) arrive as macro
// definitions from engine/src/config.rs.
#ifndef HORDE_COMMON_GLSL
#define HORDE_COMMON_GLSL

// A push constant or uniform-buffer value that decides a branch or ends a
// loop in a compute shader, read through a subgroup broadcast, which hands
// it on unchanged (it is the same in every invocation). Lavapipe (Mesa
// 22.3) folds such values into the shader and compiles the result with
// LLVM again at every dispatch that binds new ones, keeping no variant: the
// cull's five dispatches a frame cost ten compiles, 60 of a 545 ms frame.
// A broadcast is not a uniform load to it. Needs
// GL_KHR_shader_subgroup_ballot.
#define HIDDEN_FROM_INLINING(value) subgroupBroadcastFirst(value)

// Octahedral normal decoding (Cigolle et al. 2014): the unit sphere folded onto
// the [-1, 1]^2 square. Unit length, so that every vertex of a triangle
// hands the rasterizer a normal of one length to interpolate.
vec3 octahedral_decode(vec2 e) {
    vec3 n = vec3(e, 1.0 - abs(e.x) - abs(e.y));
    float t = max(-n.z, 0.0);
    n.x += n.x >= 0.0 ? -t : t;
    n.y += n.y >= 0.0 ? -t : t;
    return normalize(n);
}

// Rotation about +Y by `angle` radians applied to `v`.
vec3 rotate_y(vec3 v, float angle) {
    float c = cos(angle);
    float s = sin(angle);
    return vec3(c * v.x + s * v.z, v.y, -s * v.x + c * v.z);
}

// Directional + ambient lighting plus emitted light, with exponential fog,
// in linear colour; `sun`: the share of the sun that reaches the point
// (1 lit, 0 in shadow: `sun_visibility` in shadow.glsl).
vec3 shade(vec3 albedo, vec3 emitted, vec3 normal, vec3 world_position, float sun,
           FrameGlobals g) {
    vec3 n = normalize(normal);
    float diffuse = max(dot(n, g.light_direction), 0.0) * sun;
    float hemisphere = 0.5 + 0.5 * n.y;
    vec3 lit = albedo * (g.light_color * diffuse + g.ambient * mix(0.6, 1.0, hemisphere))
             + emitted;
    float distance_to_camera = length(world_position - g.camera_position);
    float fog = 1.0 - exp(-g.fog_density * distance_to_camera);
    return mix(lit, g.fog_color, clamp(fog, 0.0, 1.0));
}

// The debug colour of a route: LOD 0 green, 1 yellow, 2 red, 3 and finer
// LODs purple, the far field cyan, the impostor pink.
vec3 route_color(uint route) {
    const vec3 LOD_COLORS[4] = vec3[4](vec3(0.1, 0.8, 0.2), vec3(0.95, 0.8, 0.1),
                                       vec3(0.9, 0.2, 0.1), vec3(0.6, 0.2, 0.9));
    if (route == ROUTE_IMPOSTOR) {
        return vec3(1.0, 0.4, 0.7);
    }
    return route == ROUTE_FAR_FIELD ? vec3(0.1, 0.8, 0.9) : LOD_COLORS[min(route, 3u)];
}

// The debug colour of a unit's mark (`SimulationUnits::marks`): RGBA8,
// linear; grey where the simulation marks nothing.
vec4 mark_color(uint mark) {
    return mark == 0u ? vec4(0.5, 0.5, 0.5, 1.0) : unpackUnorm4x8(mark);
}

// A 4x4 ordered dither threshold in (0, 1) for a pixel.
float dither_threshold(vec2 pixel) {
    const uint BAYER[16] = uint[16](0u, 8u, 2u, 10u, 12u, 4u, 14u, 6u,
                                    3u, 11u, 1u, 9u, 15u, 7u, 13u, 5u);
    uvec2 p = uvec2(pixel) & 3u;
    return (float(BAYER[p.y * 4u + p.x]) + 0.5) / 16.0;
}

// The impostor's share of a unit in the crossfade band: 0 where the mesh
// alone is drawn, 1 where the impostor alone is, linear in the impostor's
// projected error between `impostor_threshold_px * (1 + band)` and
// `impostor_threshold_px` (the cull's band, `passes/impostor.rs`). The mesh
// keeps the pixels whose dither threshold is at least the share, the
// impostor the others, so the two never both cover a pixel.
float impostor_fade(vec3 centre, float radius, float impostor_error, FrameGlobals g) {
    if (g.impostor_threshold_px <= 0.0 || impostor_error <= 0.0) {
        return 0.0;
    }
    float distance_to_camera = max(length(centre - g.camera_position), 1.0 / 1024.0);
    float ratio = impostor_error * (2.0 * radius * g.pixels_per_unit)
                / (distance_to_camera * g.impostor_threshold_px);
    return clamp((1.0 + g.impostor_band - ratio) / max(g.impostor_band, 1e-6), 0.0, 1.0);
}

// The far field's colour payload: sqrt of linear colour (more steps in the
// darks) in 10 bits a channel; the top two bits stay 0.
uint far_pack_color(vec3 linear) {
    uvec3 q = uvec3(round(sqrt(clamp(linear, 0.0, 1.0)) * 1023.0));
    return q.r | (q.g << 10) | (q.b << 20);
}

vec3 far_unpack_color(uint packed) {
    vec3 g = vec3(uvec3(packed, packed >> 10, packed >> 20) & 1023u) / 1023.0;
    return g * g;
}

#endif
