#version 450
// A shadow cascade's smallest far casters, one thread each (the module doc
// of engine/src/passes/shadow.rs; CPU twin engine/src/reference/shadow.rs):
// a unit whose bounding sphere spans at most `splat_texels` texels casts
// the line from its feet to the top of its sphere (a standing unit seen
// from the sun), one texel a step, depth interpolated, `width_per_span` of
// its span wide (at least one texel; the width runs across the line's
// major axis), into the cascade's
// visibility buffer; its entry in the far-field list is then struck out
// (ENTRY_INDEX_MASK), so the far field's rasterizer skins only the larger
// ones. At a few texels a unit's shadow is that line, softened by the
// receivers' filter.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#include "types.glsl"
#include "common.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 1, std140) uniform Types { TypeInfo types[MAX_TYPES]; };
layout(set = 0, binding = 2, std430) readonly buffer Infos { UnitInfo infos[]; };
layout(set = 0, binding = 3, std430) readonly buffer Placements { UnitPlacement placements[]; };
layout(set = 0, binding = 4, std430) buffer DrawLists {
    DrawCommand commands[MAX_DRAW_COMMANDS];
    uint entries[];
};
layout(set = 0, binding = 5, std430) buffer Visibility { uint64_t visibility[]; };

layout(push_constant) uniform Dispatch {
    // Texels along a side of the map.
    uint size;
    uint unit_type_count;
    // Units spanning at most this many texels are splatted.
    float splat_texels;
    // Texels per metre of the cascade.
    float texels_per_metre;
    // A splat's width in texels per texel of its sphere's span, rounded.
    float width_per_span;
} dispatch;

// The most texels a splatted line takes (its length, in steps).
const uint MAX_STEPS = 16u;

// The texel (x, y) and reverse-Z depth of a world point.
vec3 to_texel(vec3 world) {
    precise vec4 clip = globals.view_proj * vec4(world, 1.0);
    precise vec2 texel = (clip.xy * 0.5 + 0.5) * float(dispatch.size);
    return vec3(texel, max(clip.z, 0.0));
}

void main() {
    uint item = gl_GlobalInvocationID.x;
    uint type_count = min(dispatch.unit_type_count, uint(MAX_TYPES));
    uint type_index = 0u;
    uint first = 0u;
    for (; type_index < type_count; type_index++) {
        RouteInfo route = types[type_index].routes[ROUTE_FAR_FIELD];
        uint count = route.capacity > 0u && route.command < uint(MAX_DRAW_COMMANDS)
            ? min(commands[route.command].instance_count, route.capacity) : 0u;
        if (item < first + count) {
            break;
        }
        first += count;
    }
    if (type_index >= type_count) {
        return;
    }
    uint slot = types[type_index].routes[ROUTE_FAR_FIELD].list_base + item - first;
    if (slot >= uint(entries.length())) {
        return;
    }
    uint unit = entries[slot] & ENTRY_INDEX_MASK;
    if (unit >= uint(infos.length()) || unit >= uint(placements.length())) {
        return;
    }
    UnitInfo info = infos[unit];
    UnitPlacement placement = placements[unit];
    float radius = types[type_index].sphere_radius * info.scale;
    precise float span = (2.0 * radius) * dispatch.texels_per_metre;
    if (span > dispatch.splat_texels) {
        return;
    }
    int width = max(1, int(floor(span * dispatch.width_per_span + 0.5)));
    float top = 2.0 * types[type_index].sphere_center.y * info.scale;
    vec3 feet = to_texel(placement.position);
    vec3 head = to_texel(placement.position + vec3(0.0, top, 0.0));
    precise vec2 along = head.xy - feet.xy;
    ivec2 across = abs(along.x) > abs(along.y) ? ivec2(0, 1) : ivec2(1, 0);
    uint steps = min(uint(ceil(sqrt(along.x * along.x + along.y * along.y))), MAX_STEPS);
    for (uint k = 0u; k <= steps; k++) {
        precise vec3 at = feet + (head - feet) * (float(k) / float(max(steps, 1u)));
        uint64_t key = uint64_t(max(floatBitsToUint(at.z), 1u)) << 32;
        for (int column = 0; column < width; column++) {
            ivec2 texel = ivec2(floor(at.xy)) + across * (column - (width - 1) / 2);
            if (any(lessThan(texel, ivec2(0)))
                || any(greaterThanEqual(texel, ivec2(dispatch.size)))) {
                continue;
            }
            uint index = uint(texel.y) * dispatch.size + uint(texel.x);
            if (index < uint(visibility.length()) && visibility[index] < key) {
                atomicMax(visibility[index], key);
            }
        }
    }
    entries[slot] = ENTRY_INDEX_MASK;
}
