#version 450
// The simulate pass: one thread per unit moves it by its velocity and turns
// it to face where it goes. engine/src/passes/simulate.rs documents the rules.
#include "types.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) readonly buffer Infos { UnitInfo infos[]; };
layout(set = 0, binding = 1, std430) readonly buffer Motions { UnitMotion motions[]; };
layout(set = 0, binding = 2, std430) buffer Placements { UnitPlacement placements[]; };

layout(push_constant) uniform Push {
    float dt;
    uint unit_count;
} push;

void main() {
    uint unit = gl_GlobalInvocationID.x;
    if (unit >= push.unit_count || infos[unit].type_index >= uint(MAX_TYPES)) {
        return;
    }
    vec2 velocity = motions[unit].velocity;
    if (velocity == vec2(0.0)) {
        return;
    }
    UnitPlacement placement = placements[unit];
    precise vec2 moved = placement.position.xz + velocity * push.dt;
    placement.position.xz = moved;
    placement.heading = atan(velocity.x, velocity.y);
    placements[unit] = placement;
}
