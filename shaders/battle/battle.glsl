// Shared by the battle shaders: the battle's structs (their Rust twins are in
// engine/battle/src/gpu_types.rs), its push constants, its dice, the
// formation slots and the grid's hashing. engine/battle/src/reference/ is the
// CPU twin, operation for operation; engine/battle/src/passes/battle.rs
// documents the rules and the data.
#ifndef HORDE_BATTLE_GLSL
#define HORDE_BATTLE_GLSL
#include "types.glsl"

struct UnitCombat {
    int health;
    float cooldown;
    float dead_seconds;
    uint regiment;
    vec2 grid_position;
    uint damage[2];
};

struct RegimentState {
    uint army;
    uint role;
    uint formation;
    uint state;
    uint first_unit;
    uint unit_count;
    uint files;
    uint target;
    vec2 anchor;
    vec2 facing;
    vec2 mean_position;
    float morale;
    float state_seconds;
    uint alive;
    uint rallies;
    float width;
    float depth;
};

struct RegimentTally {
    uint alive;
    uint fighting;
    uint front_hits;
    uint flank_hits;
    uint rear_hits;
    int offset_sum[2];
    uint attacks;
};

struct BattleRules {
    float step_seconds;
    float spacing;
    float separation;
    float walk_speed;
    float run_speed;
    float charge_speed;
    float charge_ramp_seconds;
    float reach;
    float engage_radius;
    float charge_distance;
    float steering_gain;
    float attack_seconds;
    uint damage_min;
    uint damage_range;
    float corpse_seconds;
    float sink_speed;
    float sink_depth;
    float turn_cos;
    float turn_sin;
    float morale_per_casualty;
    float morale_per_flank_hit;
    float morale_per_rear_hit;
    float morale_per_melee_second;
    float morale_per_panic_second;
    float panic_distance;
    float morale_recovery;
    float rally_distance;
    float rally_morale;
    float flee_distance;
    float army_break_fraction;
    float pursue_seconds;
    float flank_offset;
    float reserve_seconds;
    float anchor_lead;
    float slope_slowing;
    float pad;
};

struct BattleCounts {
    uint alive[2];
    uint fighting;
    uint attacks;
    uint standing[2];
    uint regiments[2][REGIMENT_STATES];
};

struct BattleTotals {
    uint flank_attacks;
    uint rear_attacks;
    uint routs;
    uint rallies;
};

struct BattleHeader {
    BattleRules rules;
    // By step parity: step s adds to counts[s & 1] (counts_written()).
    BattleCounts counts[2];
    BattleTotals totals;
};

// Every battle shader pushes the same block.
layout(push_constant) uniform Push {
    // Steps since the battle began: seeds the dice, and its parity picks the
    // regiment, tally and damage copies.
    uint step;
    uint unit_count;
    uint regiment_count;
    // Grid cells: a power of two, at least GRID_CHUNK.
    uint cell_count;
    // 1 while the frame draws the marks (the debug view): only then does
    // the scatter write them.
    uint marks_shown;
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

// The first record of the regiment copy this step reads (last step's), and
// of the copy it writes.
uint regiments_read() {
    return (push.step & 1u) * MAX_REGIMENTS;
}
uint regiments_written() {
    return ((push.step + 1u) & 1u) * MAX_REGIMENTS;
}
// The first record of the tally copy this step's units add to; the
// regiment step reads the other (last step's).
uint tallies_written() {
    return (push.step & 1u) * MAX_REGIMENTS;
}

// The counts copy this step adds to; the regiment step clears the other.
uint counts_written() {
    return push.step & 1u;
}

// Still fighting: not routing, fled or destroyed.
bool standing(uint state) {
    return state < STATE_ROUTING;
}

// Slot `slot` of a formation as (across, back) metres from the middle of
// its front rank. FORMATION_LINE and FORMATION_COLUMN are files × ranks;
// FORMATION_WEDGE holds 2r + 1 slots in rank r.
vec2 slot_offset(uint formation, uint files, uint slot, float spacing) {
    if (formation == FORMATION_WEDGE) {
        uint rank = uint(sqrt(float(slot)));
        while (rank * rank > slot) {
            rank -= 1u;
        }
        while ((rank + 1u) * (rank + 1u) <= slot) {
            rank += 1u;
        }
        precise float across = float(slot - rank * rank) - float(rank);
        precise vec2 offset = vec2(across * spacing, float(rank) * spacing);
        return offset;
    }
    uint file_count = max(files, 1u);
    uint rank = slot / file_count;
    uint file = slot % file_count;
    precise float across = float(file) - float(file_count - 1u) * 0.5;
    precise vec2 offset = vec2(across * spacing, float(rank) * spacing);
    return offset;
}

// Where slot `slot` of `regiment` stands: the side vector is the facing
// turned a quarter to the left.
vec2 slot_position(RegimentState regiment, uint slot, float spacing) {
    vec2 offset = slot_offset(regiment.formation, regiment.files, slot, spacing);
    vec2 f = regiment.facing;
    vec2 side = vec2(-f.y, f.x);
    precise float x = regiment.anchor.x + side.x * offset.x - f.x * offset.y;
    precise float z = regiment.anchor.y + side.y * offset.x - f.y * offset.y;
    return vec2(x, z);
}

// The mark of a living unit whose regiment is in `state` (MARK_* of
// config.rs, in STATE_* order).
uint state_mark(uint state) {
    const uint MARKS[REGIMENT_STATES] = uint[](MARK_HOLDING, MARK_ADVANCING, MARK_CHARGING,
                                               MARK_ENGAGED, MARK_PURSUING, MARK_ROUTING,
                                               MARK_FLED, MARK_DESTROYED);
    return MARKS[min(state, REGIMENT_STATES - 1u)];
}

// The grid cell coordinates of a ground position.
ivec2 grid_cell(vec2 position, float cell_size) {
    precise vec2 scaled = position / cell_size;
    return ivec2(floor(scaled));
}

// The hashed bucket of cell coordinates (the field is unbounded: routing
// units run off it).
uint grid_bucket(ivec2 cell) {
    return ((uint(cell.x) * 73856093u) ^ (uint(cell.y) * 19349663u)) & (push.cell_count - 1u);
}

// Sections of the `grid` buffer, in words (GridLayout in reference/grid.rs).
uint grid_starts() {
    return push.cell_count;
}
uint grid_chunk_starts() {
    return 2u * push.cell_count;
}
uint grid_chunks() {
    return push.cell_count / GRID_CHUNK;
}
uint grid_supers() {
    return (grid_chunks() + GRID_CHUNK - 1u) / GRID_CHUNK;
}
uint grid_super_starts() {
    return grid_chunk_starts() + grid_chunks();
}
uint grid_total() {
    return grid_super_starts() + grid_supers();
}
// GRID_ENTRY_WORDS words per entry: unit, regiment, position x and z bits.
uint grid_entries() {
    return grid_total() + 1u;
}

#endif
