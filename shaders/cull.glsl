// Frustum culling and LOD selection, one thread per unit or prop; the module
// doc of engine/src/passes/cull.rs explains the algorithm, and
// engine/src/reference/cull.rs is its CPU twin. Every value that decides
// visibility or LOD is `precise` and built from additions, subtractions and
// multiplications only, which Vulkan rounds exactly as IEEE 754 does, so the
// CPU twin reproduces the decisions bit for bit. Two entry files include it:
// cull.comp, and cull_posed.comp, which defines CULL_POSED_SPHERES: the
// occlusion test then takes a unit's sphere from the clips it plays
// (binding 7, its animation state, a fifth storage buffer, which the
// mobile tier's four do not allow; binding 8, the clips' spheres).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "types.glsl"
#include "common.glsl"

layout(local_size_x_id = 0) in;
// Distance below which the projected error stops growing (avoids dividing by 0).
layout(constant_id = 1) const float MIN_LOD_DISTANCE = 0.0009765625;

layout(set = 0, binding = 0, std140) uniform Cull { CullGlobals cull; };
layout(set = 0, binding = 1, std140) uniform Types { TypeInfo types[MAX_TYPES]; };
layout(set = 0, binding = 2, std430) readonly buffer Infos { UnitInfo infos[]; };
layout(set = 0, binding = 3, std430) readonly buffer Placements { UnitPlacement placements[]; };
// The route each instance took last frame, for hysteresis; owned by this pass.
layout(set = 0, binding = 4, std430) buffer Routes { uint routes[]; };
// The draw commands of every (type, route), then every route's instance list.
layout(set = 0, binding = 5, std430) buffer DrawLists {
    DrawCommand commands[MAX_DRAW_COMMANDS];
    uint entries[];
};

// Occlusion culling's depth pyramid atlas (late phase; passes/depth_pyramid.rs).
#define DEPTH_PYRAMID_SET 0
#define DEPTH_PYRAMID_BINDING 6
#include "occlusion.glsl"
#ifdef CULL_POSED_SPHERES
layout(set = 0, binding = 7, std430) readonly buffer AnimStates { AnimState anim_states[]; };
// Per entry of the clip table, the sphere that holds the clip in the
// model's space: centre xyz, radius w (`horde_asset::clip_bounds`).
layout(set = 0, binding = 8, std140) uniform ClipSpheres { vec4 clip_spheres[MAX_CLIPS]; };
#include "clip_spheres.glsl"
#endif
layout(push_constant) uniform Dispatch {
    // Instances to cull; threads at or past it do nothing.
    uint instance_count;
    // CULL_PHASE_*: everything at once, or occlusion culling's early or
    // late phase.
    uint phase;
    // The command whose instance count the late phase adds the hidden
    // instances to (never drawn).
    uint occluded_command;
} dispatch;

// The projected error of a LOD with simplification error `lod_error` is at most
// `threshold` pixels, in squared form (both sides are non-negative):
//   lod_error * size_px / max(d, MIN) <= threshold
//   <=> (lod_error * size_px)^2 <= threshold^2 * max(d^2, MIN^2)
bool error_fits(float lod_error, float size_px, float distance_squared, float threshold) {
    precise float error_px = lod_error * size_px;
    precise float lhs = error_px * error_px;
    precise float rhs = (threshold * threshold) * distance_squared;
    return lhs <= rhs;
}

// The coarsest LOD above `floor` and below `lod_count` that fits
// `threshold`; `floor` when none does. Only the LODs that could win are
// read: a unit already at its coarsest LOD reads none.
uint coarsest_fitting(uint type_index, uint floor, uint lod_count, float size_px,
                      float distance_squared, float threshold) {
    for (uint lod = lod_count - 1u; lod > floor; lod--) {
        if (error_fits(types[type_index].routes[lod].error, size_px, distance_squared, threshold)) {
            return lod;
        }
    }
    return floor;
}

// The sphere projects within `limit` pixels, squared as above:
//   size_px / max(d, MIN) <= limit <=> size_px^2 <= limit^2 * max(d^2, MIN^2)
bool projects_within(float size_px, float distance_squared, float limit) {
    precise float lhs = size_px * size_px;
    precise float rhs = (limit * limit) * distance_squared;
    return lhs <= rhs;
}

// Lists are appended per workgroup. The lanes of a subgroup that share a
// command agree on a leader, which adds their count to the workgroup's
// counter for that command: a small open-addressed table in shared memory.
// After a barrier, one invocation per counter reserves the workgroup's room
// with a single global atomicAdd; after a second, each lane writes its entry
// at that room's start plus its offset within the workgroup. The global
// counters see one atomic per workgroup and command instead of one per
// subgroup and command: atomics on one address serialize in the L2, and a
// visible crowd sends most of a frame's entries to a few commands. A
// command that finds the table full reserves from its global counter at once.
//
// An empty counter's command, and "no counter".
const uint NONE = 0xFFFFFFFFu;
// The counter of a lane whose subgroup reserved from the global counter.
const uint DIRECT = 0xFFFFFFFEu;
shared uint group_command[CULL_GROUP_COMMANDS];
shared uint group_count[CULL_GROUP_COMMANDS];
// The region capacity of the counter's command (every route that uses a
// command has one region; a lane still checks its own before writing).
shared uint group_capacity[CULL_GROUP_COMMANDS];
// The start of the workgroup's room in the command's region.
shared uint group_first[CULL_GROUP_COMMANDS];

// Reserves `count` entries of `command`'s region; the first one. Past the
// region's capacity the count is clamped back: every reservation that
// overflows clamps after its add, so the final count is min(total,
// capacity).
uint reserve(uint command, uint count, uint capacity) {
    uint first = atomicAdd(commands[command].instance_count, count);
    if (first + count > capacity) {
        atomicMin(commands[command].instance_count, capacity);
    }
    return first;
}

// The workgroup's counter of `command`, claimed if new; NONE when the table
// is full.
uint group_counter(uint command, uint capacity) {
    for (uint probe = 0u; probe < CULL_GROUP_COMMANDS; probe++) {
        uint counter = (command + probe) % CULL_GROUP_COMMANDS;
        uint seen = atomicCompSwap(group_command[counter], NONE, command);
        if (seen == NONE) {
            group_capacity[counter] = capacity;
            return counter;
        }
        if (seen == command) {
            return counter;
        }
    }
    return NONE;
}

// Appends `entry` to the region of `command` where `drawn`. Every invocation
// of the workgroup calls it: it holds barriers.
void append(bool drawn, uint command, uint list_base, uint capacity, uint entry) {
    for (uint c = gl_LocalInvocationIndex; c < CULL_GROUP_COMMANDS; c += gl_WorkGroupSize.x) {
        group_command[c] = NONE;
        group_count[c] = 0u;
    }
    barrier();

    uint counter = NONE;
    uint offset = 0u;
    if (drawn) {
        for (;;) {
            uint leader_command = subgroupBroadcastFirst(command);
            if (command == leader_command) {
                uvec4 same = subgroupBallot(true);
                uint count = subgroupBallotBitCount(same);
                uint leader_counter = NONE;
                uint first = 0u;
                if (subgroupElect()) {
                    leader_counter = group_counter(command, capacity);
                    first = leader_counter == NONE
                        ? reserve(command, count, capacity)
                        : atomicAdd(group_count[leader_counter], count);
                }
                counter = subgroupBroadcastFirst(leader_counter);
                counter = counter == NONE ? DIRECT : counter;
                offset = subgroupBroadcastFirst(first) + subgroupBallotExclusiveBitCount(same);
                break;
            }
        }
    }
    barrier();

    for (uint c = gl_LocalInvocationIndex; c < CULL_GROUP_COMMANDS; c += gl_WorkGroupSize.x) {
        if (group_command[c] != NONE) {
            group_first[c] = reserve(group_command[c], group_count[c], group_capacity[c]);
        }
    }
    barrier();

    if (drawn) {
        uint position = counter == DIRECT ? offset : group_first[counter] + offset;
        if (position < capacity) {
            entries[list_base + position] = entry;
        }
    }
}

// Where an instance is appended: a command, its list region and the entry.
struct Append {
    uint command;
    uint list_base;
    uint capacity;
    uint entry;
};

// The append of `entry` to `target`, its region clamped to the list buffer.
// A command or region outside its buffer takes nothing, so a bad type table
// can never write out of bounds.
Append append_to(RouteInfo target, uint entry) {
    uint list_length = uint(entries.length());
    Append result;
    result.command = target.command;
    result.list_base = min(target.list_base, list_length);
    result.capacity = min(target.capacity, list_length - result.list_base);
    result.entry = entry;
    return result;
}

// Whether the world sphere is certainly hidden behind the depth pyramid.
bool hidden(vec3 centre, float radius) {
    vec4 world = vec4(centre, 1.0);
    vec3 view = vec3(dot(cull.view_rows[0], world), dot(cull.view_rows[1], world),
                     dot(cull.view_rows[2], world));
    return sphere_occluded(view, radius, cull.projection_scale, cull.near, cull.viewport,
                           cull.pyramid_size);
}

// The model-space sphere the occlusion test takes for unit `index` of type
// `type_index`: with CULL_POSED_SPHERES, posed_sphere (clip_spheres.glsl);
// else, or for an `impostor`, whose frames may be a stand-in clip's, the
// type's.
vec4 occlusion_sphere(uint index, uint type_index, bool impostor) {
    vec4 whole = vec4(types[type_index].sphere_center, types[type_index].sphere_radius);
#ifdef CULL_POSED_SPHERES
    if (!impostor && index < uint(anim_states.length())) {
        return posed_sphere(whole, types[type_index].first_clip, types[type_index].clip_count,
                            anim_states[index]);
    }
#endif
    return whole;
}

// Whether unit `index` is certainly hidden behind the depth pyramid, tested
// by its occlusion_sphere (`impostor`: it is drawn as an impostor).
bool unit_hidden(uint index, uint type_index, float scale, UnitPlacement placement,
                 bool impostor) {
    vec4 sphere = occlusion_sphere(index, type_index, impostor);
    vec3 centre = rotate_y(sphere.xyz * scale, placement.heading) + placement.position;
    return hidden(centre, sphere.w * scale);
}

// Culls and routes instance `index`: false when it is not drawn (past the
// count, inactive, outside the frustum, routed to no command, or left to
// the other phase); else where it goes. `banded`: it is also drawn as an
// impostor (`band`), in the crossfade band. `occluded`: the late phase
// found it hidden.
bool route_instance(uint index, out Append primary, out bool banded, out Append band,
                    out bool occluded) {
    primary = Append(0u, 0u, 0u, 0u);
    band = primary;
    banded = false;
    occluded = false;
    if (index >= dispatch.instance_count || index >= uint(infos.length())
        || index >= uint(placements.length()) || index >= uint(routes.length())) {
        return false;
    }
    UnitInfo info = infos[index];
    if (info.type_index >= uint(MAX_TYPES)) {
        return false; // INACTIVE_TYPE, or an index past the type table
    }
    // Fields are read from the uniform buffer where they are used: a local
    // copy of the whole TypeInfo, whose routes are indexed dynamically, would
    // go to local memory.
    uint type_index = info.type_index;
    UnitPlacement placement = placements[index];

    // World bounding sphere.
    precise vec3 model_centre = types[type_index].sphere_center * info.scale;
    precise vec3 centre = rotate_y(model_centre, placement.heading) + placement.position;
    precise float radius = types[type_index].sphere_radius * info.scale;

    // Last frame's route, and whether it ended the frame visible.
    uint stored = routes[index];
    bool was_visible = (stored & ROUTE_VISIBLE) != 0u;
    uint previous_code = stored & ~ROUTE_VISIBLE;
    uint phase = HIDDEN_FROM_INLINING(dispatch.phase);
    bool late = phase == CULL_PHASE_LATE;

    // Frustum: inside every plane, or less than `radius` outside it.
    for (uint p = 0u; p < 6u; p++) {
        vec4 plane = cull.planes[p];
        precise float signed_distance =
            ((plane.x * centre.x + plane.y * centre.y) + plane.z * centre.z) + plane.w;
        if (signed_distance < -radius) {
            if (late && was_visible) {
                routes[index] = previous_code;
            }
            return false;
        }
    }

    // The early phase drew it (its route is this frame's): the late phase
    // only decides whether it is still visible, for the next frame's early
    // phase.
    if (late && was_visible) {
        bool was_impostor = previous_code == ROUTE_CODE_IMPOSTOR;
        if (unit_hidden(index, type_index, info.scale, placement, was_impostor)) {
            routes[index] = previous_code;
        }
        return false;
    }

    // Route from the projected size and error, with hysteresis against last
    // frame's route.
    uint lod_count = clamp(types[type_index].lod_count, 1u, uint(MAX_LODS));
    precise vec3 offset = centre - cull.camera_position;
    // An orthographic view (a shadow cascade) projects at one scale
    // whatever the distance: every comparison then runs at distance 1.
    precise float distance_squared = cull.orthographic != 0u ? 1.0 : max(
        (offset.x * offset.x + offset.y * offset.y) + offset.z * offset.z,
        MIN_LOD_DISTANCE * MIN_LOD_DISTANCE);
    precise float size_px = (radius * 2.0) * cull.pixels_per_unit;
    float threshold = cull.lod_threshold_px;
    precise float tight_threshold = threshold * (1.0 - cull.lod_hysteresis);

    // One LOD rule for both paths, with hysteresis against last frame's LOD.
    // The far field then takes units whose sphere projects within
    // `far_field_px` (entering within the tighter
    // `far_field_px * (1 - hysteresis)`) and draws that LOD; the rest are
    // drawn as meshes. The code stored back is the LOD, plus ROUTE_FAR_FIELD
    // in the far field.
    bool previous_far = previous_code >= ROUTE_FAR_FIELD;
    uint previous = min(previous_far ? previous_code - ROUTE_FAR_FIELD : previous_code,
                        lod_count - 1u);
    uint lod;
    if (!error_fits(types[type_index].routes[previous].error, size_px, distance_squared, threshold)) {
        lod = coarsest_fitting(type_index, 0u, lod_count, size_px, distance_squared, threshold);
    } else {
        lod = coarsest_fitting(type_index, previous, lod_count, size_px, distance_squared,
                               tight_threshold);
    }
    bool far = false;
    if (HIDDEN_FROM_INLINING(cull.far_field_px) > 0.0
        && types[type_index].routes[ROUTE_FAR_FIELD].capacity > 0u) {
        precise float far_limit = previous_far
            ? cull.far_field_px : cull.far_field_px * (1.0 - cull.lod_hysteresis);
        far = projects_within(size_px, distance_squared, far_limit);
    }
    // The impostor, the type's last LOD, outside the far field: taken where
    // its projected error fits `impostor_threshold_px` (no hysteresis: the
    // band dithers the switch); within `impostor_threshold_px * (1 + band)`
    // a mesh-drawn unit is drawn as an impostor too, and both dither by
    // distance (`impostor_fade` in common.glsl), so the switch does not pop.
    RouteInfo impostor_route = types[type_index].routes[ROUTE_IMPOSTOR];
    bool impostor = false;
    if (!far && HIDDEN_FROM_INLINING(cull.impostor_threshold_px) > 0.0
        && impostor_route.capacity > 0u) {
        impostor = error_fits(impostor_route.error, size_px, distance_squared,
                              cull.impostor_threshold_px);
        precise float band_threshold = cull.impostor_threshold_px * (1.0 + cull.impostor_band);
        banded = !impostor && error_fits(impostor_route.error, size_px, distance_squared,
                                         band_threshold);
    }
    // A mesh too small to matter (`min_size_px`: a shadow cascade's tiny
    // casters) is not drawn, and keeps last frame's route.
    if (!far && HIDDEN_FROM_INLINING(cull.min_size_px) > 0.0
        && projects_within(size_px, distance_squared, cull.min_size_px)) {
        return false;
    }
    uint code = far ? ROUTE_FAR_FIELD + lod : (impostor ? ROUTE_CODE_IMPOSTOR : lod);
    // Two-phase occlusion culling: the early phase draws what was visible
    // last frame, meshes and far field alike (the far field runs after each
    // phase); the late phase draws the rest that the pyramid of the early
    // phase's depth, far field included, does not hide. Both mark what
    // they draw visible.
    if (phase == CULL_PHASE_EARLY && !was_visible) {
        return false;
    }
    if (late && unit_hidden(index, type_index, info.scale, placement, impostor || banded)) {
        // A hidden instance's route still moves, so its LOD hysteresis
        // follows the same path as without occlusion culling.
        if (code != stored) {
            routes[index] = code;
        }
        occluded = true;
        return false;
    }
    uint stored_code = phase == CULL_PHASE_ALL ? code : code | ROUTE_VISIBLE;
    if (stored_code != stored) {
        routes[index] = stored_code;
    }
    uint route = far ? ROUTE_FAR_FIELD : (impostor ? ROUTE_IMPOSTOR : lod);

    // Impostor entries carry the mesh LOD the unit would take.
    uint lod_entry = index | (lod << ENTRY_INDEX_BITS);
    uint entry = impostor ? lod_entry : index | (code << ENTRY_INDEX_BITS);
    primary = append_to(types[type_index].routes[route], entry);
    band = append_to(impostor_route, lod_entry);
    banded = banded && band.command < uint(MAX_DRAW_COMMANDS);
    return primary.command < uint(MAX_DRAW_COMMANDS);
}

void main() {
    Append primary;
    Append band;
    bool banded = false;
    bool occluded = false;
    bool drawn = route_instance(gl_GlobalInvocationID.x, primary, banded, band, occluded);
    // The condition is uniform: one atomic per subgroup that found any.
    if (HIDDEN_FROM_INLINING(dispatch.phase) == CULL_PHASE_LATE) {
        uint hidden_count = subgroupBallotBitCount(subgroupBallot(occluded));
        if (subgroupElect() && hidden_count > 0u
            && dispatch.occluded_command < uint(MAX_DRAW_COMMANDS)) {
            atomicAdd(commands[dispatch.occluded_command].instance_count, hidden_count);
        }
    }
    append(drawn, primary.command, primary.list_base, primary.capacity, primary.entry);
    // The condition is uniform, as the barriers in append() need.
    if (HIDDEN_FROM_INLINING(cull.impostor_threshold_px) > 0.0) {
        append(banded, band.command, band.list_base, band.capacity, band.entry);
    }
}
