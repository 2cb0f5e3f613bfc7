// Shared by the two battle shaders; engine/src/battle/reference.rs is the CPU
// twin, operation for operation. engine/src/passes/battle.rs documents the
// rules and the data.
#ifndef HORDE_BATTLE_GLSL
#define HORDE_BATTLE_GLSL
#include "types.glsl"

// Both battle shaders push the same block.
layout(push_constant) uniform Push {
    BattleRules rules;
    // Steps since the battle began: seeds the dice, and its parity picks the
    // lane and damage copies.
    uint step;
    uint unit_count;
    uint lane_count;
} push;

// A 32-bit integer hash (lowbias32): the battle's only source of chance, so
// a seed and a step number decide everything.
uint battle_hash(uint x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// The dice of `unit` at `step`.
uint battle_dice(uint unit, uint step) {
    return battle_hash(unit ^ battle_hash(step));
}

// The first record of the lane copy written by this step.
uint next_lanes() {
    return ((push.step + 1u) & 1u) * push.lane_count;
}

#endif
