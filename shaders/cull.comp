#version 450
// Frustum culling and LOD selection, one thread per unit or prop; the module
// doc of engine/src/passes/cull.rs explains the algorithm, and
// engine/src/cull_reference.rs is its CPU twin. Every value that decides
// visibility or LOD is `precise` and built from additions, subtractions and
// multiplications only, which Vulkan rounds exactly as IEEE 754 does, so the
// CPU twin reproduces the decisions bit for bit.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "types.glsl"
#include "common.glsl"

layout(local_size_x_id = 0) in;
// Distance below which the projected error stops growing (avoids dividing by 0).
layout(constant_id = 1) const float MIN_LOD_DISTANCE = 0.0009765625;

layout(set = 0, binding = 0, std140) uniform Cull { CullGlobals cull; };
layout(set = 0, binding = 1, std140) uniform Types { TypeInfo types[MAX_TYPES]; };
layout(set = 0, binding = 2, std430) buffer Instances { Instance instances[]; };
layout(set = 0, binding = 3, std430) buffer AnimStates { AnimState anim_states[]; };

struct DrawCommand {
    uint index_count;
    uint instance_count;
    uint first_index;
    int vertex_offset;
    uint first_instance;
};
layout(set = 0, binding = 4, std430) buffer Commands { DrawCommand commands[]; };
layout(set = 0, binding = 5, std430) writeonly buffer InstanceLists { uint instance_lists[]; };

layout(push_constant) uniform Dispatch {
    // Instances to cull; threads at or past it do nothing.
    uint instance_count;
    // 1: units (LOD state in AnimState.blend bits 24..26);
    // 0: props (LOD state in Instance.params bits 0..2).
    uint units;
} dispatch;

#define UNIT_LOD_SHIFT 24u
#define LOD_STATE_MASK 3u

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

// The coarsest LOD below `lod_count` that fits `threshold`; LOD 0 when none does.
uint coarsest_fitting(TypeInfo type_info, uint lod_count, float size_px, float distance_squared,
                      float threshold) {
    for (uint lod = lod_count - 1u; lod > 0u; lod--) {
        if (error_fits(type_info.lod_error[lod], size_px, distance_squared, threshold)) {
            return lod;
        }
    }
    return 0u;
}

// Appends `entry` to the region of `command`, one atomic per subgroup and
// command: lanes with the same command agree on a leader, the leader reserves
// room for all of them, and each lane takes the slot of its rank.
void append(uint command, uint list_base, uint capacity, uint entry) {
    for (;;) {
        uint leader_command = subgroupBroadcastFirst(command);
        if (command == leader_command) {
            uvec4 same = subgroupBallot(true);
            uint count = subgroupBallotBitCount(same);
            uint rank = subgroupBallotExclusiveBitCount(same);
            uint first_slot = 0u;
            if (subgroupElect()) {
                first_slot = atomicAdd(commands[command].instance_count, count);
                // Past the region's capacity: clamp the count back. Every
                // subgroup that overflows clamps after its add, so the final
                // count is min(total, capacity).
                if (first_slot + count > capacity) {
                    atomicMin(commands[command].instance_count, capacity);
                }
            }
            uint slot = subgroupBroadcastFirst(first_slot) + rank;
            if (slot < capacity) {
                instance_lists[list_base + slot] = entry;
            }
            return;
        }
    }
}

void main() {
    uint index = gl_GlobalInvocationID.x;
    bool units = dispatch.units != 0u;
    if (index >= dispatch.instance_count || index >= uint(instances.length())
        || (units && index >= uint(anim_states.length()))) {
        return;
    }
    Instance inst = instances[index];
    if (inst.type_index >= uint(MAX_TYPES)) {
        return; // INACTIVE_TYPE, or an index past the type table
    }
    TypeInfo type_info = types[inst.type_index];

    // World bounding sphere.
    precise vec3 model_centre = type_info.sphere.xyz * inst.scale;
    precise vec3 centre = rotate_y(model_centre, inst.heading) + inst.position;
    precise float radius = type_info.sphere.w * inst.scale;

    // Frustum: inside every plane, or less than `radius` outside it.
    for (uint p = 0u; p < 6u; p++) {
        vec4 plane = cull.planes[p];
        precise float signed_distance =
            ((plane.x * centre.x + plane.y * centre.y) + plane.z * centre.z) + plane.w;
        if (signed_distance < -radius) {
            return;
        }
    }

    // LOD from the projected error, with hysteresis against last frame's LOD.
    uint lod_count = clamp(type_info.skeleton.w, 1u, uint(LOD_COUNT));
    precise vec3 offset = centre - cull.camera.xyz;
    precise float distance_squared = max(
        (offset.x * offset.x + offset.y * offset.y) + offset.z * offset.z,
        MIN_LOD_DISTANCE * MIN_LOD_DISTANCE);
    precise float size_px = (radius * 2.0) * cull.camera.w;
    float threshold = cull.lod.x;
    precise float tight_threshold = threshold * (1.0 - cull.lod.y);

    uint state = inst.params;
    if (units) {
        state = anim_states[index].blend >> UNIT_LOD_SHIFT;
    }
    uint previous = min(state & LOD_STATE_MASK, lod_count - 1u);
    uint lod;
    if (!error_fits(type_info.lod_error[previous], size_px, distance_squared, threshold)) {
        lod = coarsest_fitting(type_info, lod_count, size_px, distance_squared, threshold);
    } else {
        lod = max(previous, coarsest_fitting(type_info, lod_count, size_px, distance_squared,
                                             tight_threshold));
    }
    if (lod != (state & LOD_STATE_MASK)) {
        if (units) {
            uint blend = anim_states[index].blend;
            anim_states[index].blend =
                (blend & ~(LOD_STATE_MASK << UNIT_LOD_SHIFT)) | (lod << UNIT_LOD_SHIFT);
        } else {
            instances[index].params = (inst.params & ~LOD_STATE_MASK) | lod;
        }
    }

    // Append to the (type, LOD) region. A command or region outside its buffer
    // takes nothing, so a bad type table can never write out of bounds.
    uint command = type_info.command[lod];
    uint list_length = uint(instance_lists.length());
    uint list_base = min(type_info.instance_base[lod], list_length);
    uint capacity = min(type_info.materials.y, list_length - list_base);
    if (command >= uint(commands.length())) {
        return;
    }
    append(command, list_base, capacity, index | (lod << INSTANCE_INDEX_BITS));
}
