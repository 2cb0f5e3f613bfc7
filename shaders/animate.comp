#version 450
// The animate pass: one thread per unit advances the unit's animation state
// machine by one frame. engine/src/passes/animate.rs documents the data layout
// and engine/src/anim/mod.rs the rules (locomotion blend, per-unit variety);
// engine/src/anim/reference.rs `step` is the CPU reference, written operation
// for operation like this file (`precise` forbids fused multiply-adds so both
// round the same way).
#include "types.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) readonly buffer Infos { UnitInfo infos[]; };
layout(set = 0, binding = 1, std430) readonly buffer Motions { UnitMotion motions[]; };
layout(set = 0, binding = 2, std430) buffer AnimStates { AnimState anim_states[]; };
layout(set = 0, binding = 3, std140) uniform Types { TypeInfo types[MAX_TYPES]; };
layout(set = 0, binding = 4, std140) uniform Clips { ClipInfo clips[MAX_CLIPS]; };
// Every type's controller states, then every type's transitions.
layout(set = 0, binding = 5, std430) readonly buffer Controllers {
    AnimStateDef controller_states[MAX_ANIM_STATES];
    AnimTransitionDef transitions[];
};

layout(push_constant) uniform Push {
    float dt;
    uint unit_count;
} push;

#define NO_TRANSITION 0xffffffffu

// The clip `local` of a type; an index past the type's clips reads its last.
ClipInfo clip_of(TypeInfo type_info, uint local) {
    uint global_index = type_info.first_clip + min(local, type_info.clip_count - 1u);
    return clips[min(global_index, uint(MAX_CLIPS) - 1u)];
}

// Keeps a clip time within [0, duration]: looping clips wrap, others hold.
float wrap_or_hold(float time, float duration, bool loops) {
    if (!(duration > 0.0)) {
        return 0.0;
    }
    if (!loops) {
        return min(time, duration);
    }
    precise float wrapped = time;
    if (wrapped >= duration) {
        wrapped = wrapped - duration;
    }
    if (wrapped >= duration) {
        wrapped = wrapped - duration * floor(wrapped / duration);
    }
    return wrapped;
}

// The animation inputs of UnitMotion, unpacked (AnimParams in gpu_types.rs).
struct Params {
    float speed;
    bool dead;
    bool victory;
    uint attack_serial;
    uint hit_serial;
    uint attack_variant;
};

// Whether `transition` may fire now (its target exists and its condition holds).
bool can_fire(AnimTransitionDef transition, TypeInfo type_info, Params params, bool clip_ended,
              uint attack_seen, uint hit_seen) {
    if (transition.target >= type_info.controller_state_count ||
        type_info.first_controller_state + transition.target >= uint(MAX_ANIM_STATES)) {
        return false;
    }
    switch (transition.condition) {
    case CONDITION_CLIP_END:
        return clip_ended;
    case CONDITION_SPEED_ABOVE:
        return params.speed > transition.threshold;
    case CONDITION_SPEED_BELOW:
        return params.speed <= transition.threshold;
    case CONDITION_DEAD:
        return params.dead;
    case CONDITION_ALIVE:
        return !params.dead;
    case CONDITION_ATTACK:
        return params.attack_serial != attack_seen &&
               (transition.threshold < 0.0 || uint(transition.threshold) == params.attack_variant);
    case CONDITION_HIT:
        return params.hit_serial != hit_seen;
    case CONDITION_VICTORY:
        return params.victory;
    case CONDITION_NO_VICTORY:
        return !params.victory;
    default:
        return false;
    }
}

// The first of `count` transitions from `first` that can fire, or
// NO_TRANSITION; the end of the table ends the search. `skip_current` skips
// transitions into the current state (for the any-state list).
uint first_firing(uint first, uint count, bool skip_current, uint state, TypeInfo type_info,
                  Params params, bool clip_ended, uint attack_seen, uint hit_seen) {
    for (uint i = 0u; i < count; ++i) {
        uint index = first + i;
        if (index >= uint(transitions.length())) {
            break;
        }
        AnimTransitionDef transition = transitions[index];
        if (!(skip_current && transition.target == state) &&
            can_fire(transition, type_info, params, clip_ended, attack_seen, hit_seen)) {
            return index;
        }
    }
    return NO_TRANSITION;
}

// Per-unit variety seed: Chris Wellons' lowbias32 (anim::unit_hash).
uint unit_hash(uint unit) {
    uint x = unit;
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// What a locomotion state plays this frame (anim::reference::locomotion):
// the seconds clip A advances and the weight of A that the speed asks for.
struct Locomotion {
    float advance;
    float target_weight;
};

// The walk/run blend of `def` at A's weight `weight`: the rate that makes the
// blended stride cover `speed`, clamped; the target weight from the speed.
Locomotion locomotion(AnimStateDef def, ClipInfo clip_a, ClipInfo clip_b, float weight,
                      float scale, float speed, float dt) {
    precise float other = 1.0 - weight;
    precise float cycle = clip_b.duration * other + clip_a.duration * weight;
    precise float stride = (def.blend_clip_ground_speed * clip_b.duration * other
                            + def.clip_ground_speed * clip_a.duration * weight) * scale;
    precise float rate = def.speed;
    if (stride > 0.0 && cycle > 0.0) {
        rate = speed * cycle / stride;
        if (!(rate >= LOCOMOTION_MIN_RATE)) {
            rate = LOCOMOTION_MIN_RATE;
        }
        rate = min(rate, LOCOMOTION_MAX_RATE);
    }
    precise float advance = dt * rate;
    if (cycle > 0.0) {
        advance = advance / cycle * clip_a.duration;
    }
    precise float start = def.blend_start_speed * scale;
    precise float end = def.blend_end_speed * scale;
    precise float target_weight = 1.0;
    if (end > start) {
        precise float toward_b = (speed - start) / (end - start);
        if (!(toward_b > LOCOMOTION_SINGLE_CLIP_BELOW)) {
            toward_b = 0.0;
        } else if (toward_b >= LOCOMOTION_SINGLE_CLIP_ABOVE) {
            toward_b = 1.0;
        }
        target_weight = 1.0 - min(toward_b, 1.0);
    }
    return Locomotion(advance, target_weight);
}

void main() {
    uint unit = gl_GlobalInvocationID.x;
    if (unit >= push.unit_count) {
        return;
    }
    // The unit's three records are loaded before any of them is looked at,
    // so that their memory latencies overlap instead of adding up.
    UnitInfo info = infos[unit];
    AnimState anim = anim_states[unit];
    UnitMotion motion = motions[unit];
    uint type_index = info.type_index;
    // Despawned units (INACTIVE_TYPE) and bad type indices are left alone.
    if (type_index >= uint(MAX_TYPES)) {
        return;
    }
    TypeInfo type_info = types[type_index];
    uint state = anim.clips & 0xffu;
    uint state_index = type_info.first_controller_state + state;
    if (state >= type_info.controller_state_count || type_info.clip_count == 0u ||
        state_index >= uint(MAX_ANIM_STATES)) {
        return;
    }
    AnimStateDef state_def = controller_states[state_index];
    uint current_clip = (anim.clips >> ANIM_CURRENT_CLIP_SHIFT) & 0xffu;
    uint previous_clip = (anim.clips >> ANIM_PREVIOUS_CLIP_SHIFT) & 0xffu;
    uint attack_seen = (anim.clips >> ANIM_ATTACK_SEEN_SHIFT) & ANIM_SERIAL_MASK;
    uint hit_seen = (anim.clips >> ANIM_HIT_SEEN_SHIFT) & ANIM_SERIAL_MASK;
    uint fade_steps = (anim.blend >> ANIM_FADE_STEPS_SHIFT) & 0xffu;
    bool previous_loops = (anim.blend & ANIM_PREVIOUS_LOOPS_BIT) != 0u;

    ClipInfo current = clip_of(type_info, current_clip);
    ClipInfo previous = clip_of(type_info, previous_clip);
    bool current_loops = current.looping != 0u && (state_def.flags & STATE_PLAY_ONCE) == 0u;

    uint hash = unit_hash(unit);
    precise float variety = VARIETY_SPEED_MIN
                          + VARIETY_SPEED_RANGE * (float(hash & 0xffffu) * VARIETY_UNIT_SCALE);
    precise float phase = float(hash >> 16) * VARIETY_UNIT_SCALE;
    bool is_locomotion = (state_def.flags & STATE_LOCOMOTION) != 0u;
    uint blend_clip_index = state_def.blend_clip & 0xffu;
    ClipInfo blend_clip = clip_of(type_info, blend_clip_index);
    precise float stored_blend = unpackHalf2x16(anim.blend).x;

    // 1. Advance: the current clip at the state's speed times the unit's
    //    variety (a locomotion state: at the rate its ground speed asks for),
    //    the previous clip at 1x, the crossfade by dt / fade; a locomotion
    //    blend eases its weight and keeps its second clip in phase.
    precise float target_weight = 1.0;
    precise float time_current;
    if (is_locomotion) {
        float weight = fade_steps == 0u ? stored_blend : 1.0;
        Locomotion gait = locomotion(state_def, current, blend_clip, weight, info.scale,
                                     motion.speed, push.dt);
        target_weight = gait.target_weight;
        time_current = anim.time_current + gait.advance;
    } else {
        time_current = anim.time_current + push.dt * state_def.speed * variety;
    }
    time_current = wrap_or_hold(time_current, current.duration, current_loops);
    precise float time_previous = anim.time_previous + push.dt;
    time_previous = wrap_or_hold(time_previous, previous.duration, previous_loops);
    precise float blend = 1.0;
    if (fade_steps != 0u) {
        precise float fade_seconds = float(fade_steps) * ANIM_FADE_STEP_SECONDS;
        blend = min(stored_blend + push.dt / fade_seconds, 1.0);
        if (is_locomotion && blend >= 1.0) {
            fade_steps = 0u;
        }
    } else if (is_locomotion) {
        precise float max_change = push.dt * LOCOMOTION_BLEND_PER_SECOND;
        blend = target_weight > stored_blend ? min(target_weight, stored_blend + max_change)
                                             : max(target_weight, stored_blend - max_change);
    }
    if (is_locomotion && fade_steps == 0u) {
        // The blend clip fills the previous slot, at the same phase.
        previous_clip = blend_clip_index;
        previous_loops = blend_clip.looping != 0u && (state_def.flags & STATE_PLAY_ONCE) == 0u;
        time_previous = 0.0;
        if (current.duration > 0.0) {
            precise float blend_phase = time_current / current.duration
                                      + state_def.blend_phase_offset;
            time_previous = (blend_phase - floor(blend_phase)) * blend_clip.duration;
        }
    }

    // 2. Evaluate: any-state transitions first, then the state's own, in
    //    order; the first that can fire does.
    uint commands = motion.anim_commands;
    Params params = Params(motion.speed, (commands & ANIM_COMMAND_DEAD) != 0u,
                           (commands & ANIM_COMMAND_VICTORY) != 0u,
                           (commands >> ANIM_COMMAND_ATTACK_SHIFT) & ANIM_SERIAL_MASK,
                           (commands >> ANIM_COMMAND_HIT_SHIFT) & ANIM_SERIAL_MASK,
                           (commands >> ANIM_COMMAND_VARIANT_SHIFT) & ANIM_SERIAL_MASK);
    bool clip_ended = !current_loops && time_current >= current.duration;
    uint fired = NO_TRANSITION;
    if ((state_def.flags & STATE_NO_ANY) == 0u) {
        fired = first_firing(type_info.first_any_transition, type_info.any_transition_count, true,
                             state, type_info, params, clip_ended, attack_seen, hit_seen);
    }
    if (fired == NO_TRANSITION) {
        fired = first_firing(state_def.transitions & 0xffffu, state_def.transitions >> 16, false,
                             state, type_info, params, clip_ended, attack_seen, hit_seen);
    }

    // 3. Fire: the current clip becomes the previous one and the target's clip
    //    starts from 0; a command condition remembers the serial it consumed.
    if (fired != NO_TRANSITION) {
        AnimTransitionDef transition = transitions[fired];
        if (transition.condition == CONDITION_ATTACK) {
            attack_seen = params.attack_serial;
        }
        if (transition.condition == CONDITION_HIT) {
            hit_seen = params.hit_serial;
        }
        // A locomotion blend fades out from whichever clip outweighs the
        // other: the blend clip already sits in the previous slot.
        bool blend_clip_dominates = is_locomotion && fade_steps == 0u && blend < 0.5;
        if (!blend_clip_dominates) {
            previous_clip = current_clip;
            time_previous = time_current;
            previous_loops = current_loops;
        }
        state = transition.target;
        AnimStateDef target_def = controller_states[type_info.first_controller_state + state];
        current_clip = target_def.clip & 0xffu;
        ClipInfo target_clip = clip_of(type_info, current_clip);
        bool target_loops = target_clip.looping != 0u && (target_def.flags & STATE_PLAY_ONCE) == 0u;
        // Looping states start at the unit's own phase, so a rank that starts
        // walking together does not step together.
        time_current = target_loops ? phase * target_clip.duration : 0.0;
        precise float steps = transition.fade * ANIM_FADE_STEPS_PER_SECOND + 0.5;
        fade_steps = uint(clamp(steps, 0.0, 255.0));
        blend = fade_steps == 0u ? 1.0 : 0.0;
    }

    anim.clips = state | (current_clip << ANIM_CURRENT_CLIP_SHIFT)
               | (previous_clip << ANIM_PREVIOUS_CLIP_SHIFT)
               | (attack_seen << ANIM_ATTACK_SEEN_SHIFT) | (hit_seen << ANIM_HIT_SEEN_SHIFT);
    anim.time_current = time_current;
    anim.time_previous = time_previous;
    anim.blend = (packHalf2x16(vec2(blend, 0.0)) & 0xffffu) | (fade_steps << ANIM_FADE_STEPS_SHIFT)
               | (previous_loops ? ANIM_PREVIOUS_LOOPS_BIT : 0u);
    anim_states[unit] = anim;
}
