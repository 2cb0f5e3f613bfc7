//! The CPU twin of the animate pass (`passes/animate.rs`): one frame of one
//! unit, with the arithmetic of `shaders/animate.comp` in the same order, so
//! a test can compare the GPU with it bit for bit (Rust never fuses a
//! multiply and an add; the shader's `precise` forbids it there). The steps
//! (advance, evaluate, fire), the locomotion blend, the per-unit variety and
//! the rules for bad data are in the [`anim`](crate::anim) module doc.

use crate::anim::{unit_hash, AnimFields};
use crate::config::{
    ANIM_COMMAND_ATTACK_SHIFT, ANIM_COMMAND_DEAD, ANIM_COMMAND_HIT_SHIFT,
    ANIM_COMMAND_VARIANT_SHIFT, ANIM_COMMAND_VICTORY, ANIM_FADE_STEPS_PER_SECOND,
    ANIM_FADE_STEP_SECONDS, ANIM_SERIAL_MASK, LOCOMOTION_BLEND_PER_SECOND, LOCOMOTION_MAX_RATE,
    LOCOMOTION_MIN_RATE, LOCOMOTION_SINGLE_CLIP_ABOVE, LOCOMOTION_SINGLE_CLIP_BELOW,
    VARIETY_SPEED_MIN, VARIETY_SPEED_RANGE, VARIETY_UNIT_SCALE,
};
use crate::gpu_types::{
    condition, AnimState, AnimStateDef, AnimTransitionDef, ClipInfo, TypeInfo, UnitInfo,
    UnitMotion, MAX_ANIM_STATES, MAX_CLIPS, MAX_TYPES, STATE_LOCOMOTION, STATE_NO_ANY,
    STATE_PLAY_ONCE,
};

/// The GPU tables [`step`] reads, as uploaded.
#[derive(Clone, Copy, Debug)]
pub struct AnimTables<'a> {
    /// Uniform buffer `Types`.
    pub types: &'a [TypeInfo],
    /// Uniform buffer `Clips` (entries past the end read as zero, like the
    /// zero padding of the uniform buffer).
    pub clips: &'a [ClipInfo],
    /// The head of storage buffer `Controllers`
    /// ([`PackedControllers::states`](crate::anim::PackedControllers::states));
    /// entries past its end, up to `MAX_ANIM_STATES`, read as zero.
    pub states: &'a [AnimStateDef],
    /// The rest of `Controllers`
    /// ([`PackedControllers::transitions`](crate::anim::PackedControllers::transitions)).
    pub transitions: &'a [AnimTransitionDef],
}

/// One frame of unit `unit` (its index in the unit buffers, the seed of its
/// variety), exactly as `shaders/animate.comp` computes it: despawned units
/// and bad type indices are returned unchanged.
pub fn step_unit(
    unit: u32,
    info: &UnitInfo,
    motion: &UnitMotion,
    state: AnimState,
    dt: f32,
    tables: &AnimTables,
) -> AnimState {
    if info.type_index as usize >= MAX_TYPES {
        return state;
    }
    match tables.types.get(info.type_index as usize) {
        Some(type_info) => step(state, unit, info.scale, motion, dt, type_info, tables),
        None => state,
    }
}

/// The animation inputs of a [`UnitMotion`], as the shader unpacks them.
struct Params {
    speed: f32,
    dead: bool,
    victory: bool,
    attack_serial: u32,
    hit_serial: u32,
    attack_variant: u32,
}

/// The controller state `index` (global) as the GPU reads it: zero past the
/// packed states, nothing past `MAX_ANIM_STATES`.
fn state_def(index: u32, tables: &AnimTables) -> Option<AnimStateDef> {
    (index < MAX_ANIM_STATES).then(|| {
        tables
            .states
            .get(index as usize)
            .copied()
            .unwrap_or_default()
    })
}

/// The clip `local` of a type; an index past the type's clips reads its last.
fn clip_of(type_info: &TypeInfo, local: u32, tables: &AnimTables) -> ClipInfo {
    let global = type_info
        .first_clip
        .wrapping_add(local.min(type_info.clip_count.wrapping_sub(1)));
    let global = global.min(MAX_CLIPS as u32 - 1);
    tables
        .clips
        .get(global as usize)
        .copied()
        .unwrap_or_default()
}

/// Keeps a clip time within [0, duration]: looping clips wrap, others hold.
fn wrap_or_hold(time: f32, duration: f32, loops: bool) -> f32 {
    // Written as `!(d > 0)` so that a NaN duration holds at 0, as in GLSL.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(duration > 0.0) {
        return 0.0;
    }
    if !loops {
        return time.min(duration);
    }
    let mut wrapped = time;
    if wrapped >= duration {
        wrapped -= duration;
    }
    if wrapped >= duration {
        wrapped -= duration * (wrapped / duration).floor();
    }
    wrapped
}

/// Whether `transition` may fire now (its target exists and its condition holds).
fn can_fire(
    transition: &AnimTransitionDef,
    type_info: &TypeInfo,
    params: &Params,
    clip_ended: bool,
    fields: &AnimFields,
) -> bool {
    let target_exists = transition.target < type_info.controller_state_count
        && type_info
            .first_controller_state
            .wrapping_add(transition.target)
            < MAX_ANIM_STATES;
    if !target_exists {
        return false;
    }
    match transition.condition {
        condition::CLIP_END => clip_ended,
        condition::SPEED_ABOVE => params.speed > transition.threshold,
        condition::SPEED_BELOW => params.speed <= transition.threshold,
        condition::DEAD => params.dead,
        condition::ALIVE => !params.dead,
        condition::ATTACK => {
            params.attack_serial != fields.attack_seen
                && (transition.threshold < 0.0
                    || transition.threshold as u32 == params.attack_variant)
        }
        condition::HIT => params.hit_serial != fields.hit_seen,
        condition::VICTORY => params.victory,
        condition::NO_VICTORY => !params.victory,
        _ => false,
    }
}

/// What a locomotion state plays this frame (see [`locomotion`]).
struct Locomotion {
    /// Seconds the state's own clip advances.
    advance: f32,
    /// Weight of the state's own clip the speed asks for.
    target_weight: f32,
}

/// The locomotion blend of state `def` (clip A = `def.clip`, clip B =
/// `def.blend_clip`) for a unit of scale `scale` at `speed`, with A's weight
/// `weight` now: the blended cycle lasts `mix(D_B, D_A, w)` and covers
/// `mix(g_B D_B, g_A D_A, w) × scale` of ground, so the rate that matches the
/// speed is `speed × cycle / stride`, clamped to the locomotion range (the
/// state's speed when the stride is unknown). A advances that many cycles
/// times its duration. The target weight falls from 1 at the blend's start
/// speed to 0 at its end speed (both times the scale).
#[allow(clippy::too_many_arguments)]
fn locomotion(
    def: &AnimStateDef,
    clip_a: &ClipInfo,
    clip_b: &ClipInfo,
    weight: f32,
    scale: f32,
    speed: f32,
    dt: f32,
) -> Locomotion {
    let other = 1.0 - weight;
    let cycle = clip_b.duration * other + clip_a.duration * weight;
    let stride = (def.blend_clip_ground_speed * clip_b.duration * other
        + def.clip_ground_speed * clip_a.duration * weight)
        * scale;
    let mut rate = def.speed;
    if stride > 0.0 && cycle > 0.0 {
        rate = speed * cycle / stride;
        // Written as `!(r >= min)` so that a NaN rate takes the minimum, as in GLSL.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !(rate >= LOCOMOTION_MIN_RATE) {
            rate = LOCOMOTION_MIN_RATE;
        }
        rate = rate.min(LOCOMOTION_MAX_RATE);
    }
    let mut advance = dt * rate;
    if cycle > 0.0 {
        advance = advance / cycle * clip_a.duration;
    }
    let start = def.blend_start_speed * scale;
    let end = def.blend_end_speed * scale;
    let mut target_weight = 1.0;
    if end > start {
        let mut toward_b = (speed - start) / (end - start);
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !(toward_b > LOCOMOTION_SINGLE_CLIP_BELOW) {
            toward_b = 0.0;
        } else if toward_b >= LOCOMOTION_SINGLE_CLIP_ABOVE {
            toward_b = 1.0;
        }
        target_weight = 1.0 - toward_b.min(1.0);
    }
    Locomotion {
        advance,
        target_weight,
    }
}

/// One frame of unit `unit` (its index: the seed of its variety) of scale
/// `scale` and type `type_info`, moving as `motion`: the CPU reference of
/// `shaders/animate.comp`.
pub fn step(
    state: AnimState,
    unit: u32,
    scale: f32,
    motion: &UnitMotion,
    dt: f32,
    type_info: &TypeInfo,
    tables: &AnimTables,
) -> AnimState {
    let mut fields = AnimFields::decode(state);
    let state_index = type_info.first_controller_state.wrapping_add(fields.state);
    let current_def = match state_def(state_index, tables) {
        Some(def)
            if fields.state < type_info.controller_state_count && type_info.clip_count != 0 =>
        {
            def
        }
        _ => return state,
    };
    let current = clip_of(type_info, fields.current_clip, tables);
    let previous = clip_of(type_info, fields.previous_clip, tables);
    let current_loops = current.looping != 0 && current_def.flags & STATE_PLAY_ONCE == 0;
    let hash = unit_hash(unit);
    let variety =
        VARIETY_SPEED_MIN + VARIETY_SPEED_RANGE * ((hash & 0xffff) as f32 * VARIETY_UNIT_SCALE);
    let phase = (hash >> 16) as f32 * VARIETY_UNIT_SCALE;
    let is_locomotion = current_def.flags & STATE_LOCOMOTION != 0;
    let blend_clip_index = current_def.blend_clip & 0xff;
    let blend_clip = clip_of(type_info, blend_clip_index, tables);

    // 1. Advance.
    let mut target_weight = 1.0;
    let time_current = if is_locomotion {
        // Crossfading in (fade steps set), the state's own clip plays alone.
        let weight = if fields.fade_steps == 0 {
            fields.blend
        } else {
            1.0
        };
        let gait = locomotion(
            &current_def,
            &current,
            &blend_clip,
            weight,
            scale,
            motion.speed,
            dt,
        );
        target_weight = gait.target_weight;
        fields.time_current + gait.advance
    } else {
        fields.time_current + dt * current_def.speed * variety
    };
    fields.time_current = wrap_or_hold(time_current, current.duration, current_loops);
    let time_previous = fields.time_previous + dt;
    fields.time_previous = wrap_or_hold(time_previous, previous.duration, fields.previous_loops);
    if fields.fade_steps != 0 {
        let fade_seconds = fields.fade_steps as f32 * ANIM_FADE_STEP_SECONDS;
        fields.blend = (fields.blend + dt / fade_seconds).min(1.0);
        if is_locomotion && fields.blend >= 1.0 {
            fields.fade_steps = 0;
        }
    } else if is_locomotion {
        let max_change = dt * LOCOMOTION_BLEND_PER_SECOND;
        fields.blend = if target_weight > fields.blend {
            target_weight.min(fields.blend + max_change)
        } else {
            target_weight.max(fields.blend - max_change)
        };
    } else {
        fields.blend = 1.0;
    }
    if is_locomotion && fields.fade_steps == 0 {
        // The blend clip fills the previous slot, at the same phase.
        fields.previous_clip = blend_clip_index;
        fields.previous_loops = blend_clip.looping != 0 && current_def.flags & STATE_PLAY_ONCE == 0;
        fields.time_previous = if current.duration > 0.0 {
            let blend_phase =
                fields.time_current / current.duration + current_def.blend_phase_offset;
            (blend_phase - blend_phase.floor()) * blend_clip.duration
        } else {
            0.0
        };
    }

    // 2. Evaluate.
    let commands = motion.anim_commands;
    let params = Params {
        speed: motion.speed,
        dead: commands & ANIM_COMMAND_DEAD != 0,
        victory: commands & ANIM_COMMAND_VICTORY != 0,
        attack_serial: (commands >> ANIM_COMMAND_ATTACK_SHIFT) & ANIM_SERIAL_MASK,
        hit_serial: (commands >> ANIM_COMMAND_HIT_SHIFT) & ANIM_SERIAL_MASK,
        attack_variant: (commands >> ANIM_COMMAND_VARIANT_SHIFT) & ANIM_SERIAL_MASK,
    };
    let clip_ended = !current_loops && fields.time_current >= current.duration;
    // The first of `count` transitions from `first` that can fire; the end of
    // the table ends the search.
    let first_firing = |first: u32, count: u32, skip_current: bool| {
        for i in 0..count {
            let index = first.wrapping_add(i);
            let transition = tables.transitions.get(index as usize)?;
            if !(skip_current && transition.target == fields.state)
                && can_fire(transition, type_info, &params, clip_ended, &fields)
            {
                return Some(index);
            }
        }
        None
    };
    let mut fired = None;
    if current_def.flags & STATE_NO_ANY == 0 {
        fired = first_firing(
            type_info.first_any_transition,
            type_info.any_transition_count,
            true,
        );
    }
    if fired.is_none() {
        let own = current_def.transitions;
        fired = first_firing(own & 0xffff, own >> 16, false);
    }

    // 3. Fire.
    if let Some(transition) = fired.and_then(|index| tables.transitions.get(index as usize)) {
        if transition.condition == condition::ATTACK {
            fields.attack_seen = params.attack_serial;
        }
        if transition.condition == condition::HIT {
            fields.hit_seen = params.hit_serial;
        }
        // A locomotion blend fades out from whichever clip outweighs the
        // other: the blend clip already sits in the previous slot.
        let blend_clip_dominates = is_locomotion && fields.fade_steps == 0 && fields.blend < 0.5;
        if !blend_clip_dominates {
            fields.previous_clip = fields.current_clip;
            fields.time_previous = fields.time_current;
            fields.previous_loops = current_loops;
        }
        fields.state = transition.target;
        let target_index = type_info.first_controller_state.wrapping_add(fields.state);
        let target_def = state_def(target_index, tables).unwrap_or_default();
        fields.current_clip = target_def.clip & 0xff;
        let target_clip = clip_of(type_info, fields.current_clip, tables);
        let target_loops = target_clip.looping != 0 && target_def.flags & STATE_PLAY_ONCE == 0;
        // Looping states start at the unit's own phase, so a rank that
        // starts walking together does not step together.
        fields.time_current = if target_loops {
            phase * target_clip.duration
        } else {
            0.0
        };
        let steps = transition.fade * ANIM_FADE_STEPS_PER_SECOND + 0.5;
        fields.fade_steps = steps.clamp(0.0, 255.0) as u32;
        fields.blend = if fields.fade_steps == 0 { 1.0 } else { 0.0 };
    }
    fields.encode()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk/run target weight: linear between the blend's speeds, one
    /// clip alone near either end.
    #[test]
    fn the_locomotion_weight_snaps_to_one_clip_near_the_ends() {
        let def = AnimStateDef {
            blend_start_speed: 1.0,
            blend_end_speed: 3.0,
            clip_ground_speed: 1.0,
            blend_clip_ground_speed: 3.0,
            speed: 1.0,
            ..AnimStateDef::default()
        };
        let clip = ClipInfo {
            duration: 1.0,
            ..ClipInfo::default()
        };
        let weight =
            |speed: f32| locomotion(&def, &clip, &clip, 1.0, 1.0, speed, 0.1).target_weight;
        assert_eq!(weight(0.5), 1.0);
        assert_eq!(weight(1.2), 1.0, "10 % towards the run: the walk alone");
        assert_eq!(weight(2.0), 0.5);
        assert_eq!(weight(2.8), 0.0, "90 % towards the run: the run alone");
        assert_eq!(weight(4.0), 0.0);
    }
}
