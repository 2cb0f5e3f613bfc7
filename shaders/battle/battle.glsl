// Shared by the two battle shaders: the battle's structs (their Rust twins are
// in engine/battle/src/gpu_types.rs), its push constants and its dice.
// engine/battle/src/reference/battle.rs is the CPU twin, operation for
// operation; engine/battle/src/passes/battle.rs documents the rules and the
// data.
#ifndef HORDE_BATTLE_GLSL
#define HORDE_BATTLE_GLSL
#include "types.glsl"

struct UnitCombat {
    int health;
    float cooldown;
    float dead_seconds;
    uint lane;
    uint damage[2];
};

struct LaneState {
    uint first_unit;
    uint unit_count;
    uint front;
    uint target;
    vec2 front_position;
    float home_z;
    uint army;
};

struct BattleRules {
    float step_seconds;
    float spacing;
    float walk_speed;
    float run_speed;
    float reach;
    float charge_distance;
    float catch_up_distance;
    float steering_gain;
    float attack_seconds;
    uint damage_min;
    uint damage_range;
    float corpse_seconds;
    float sink_speed;
    float sink_depth;
};

struct BattleCounts {
    uint alive[2];
    uint fighting;
    uint attacks;
};

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
