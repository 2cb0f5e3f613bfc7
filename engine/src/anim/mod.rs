//! Animation controllers: the data of the per-unit animation state machine.
//!
//! A [`Controller`] is a small Unity-Animator-like graph for one unit type:
//! states (a clip local to the type, a playback speed, flags) and transitions
//! (target state, condition, threshold, fade seconds). The rules are data; the
//! animate pass (`shaders/animate.comp`, `passes/animate.rs`) interprets them on
//! the GPU for every unit every frame. [`pack`] concatenates the controllers of
//! all types into the two GPU tables, and `reference::animate::step` is the CPU
//! twin of one frame of one unit: it repeats the shader's arithmetic in the
//! same order, so a test can compare the GPU with it bit for bit. This file
//! holds the
//! controllers, the clip roles that cast a type's clips in them ([`Role`],
//! [`clip_roles`], found by name keywords or named by `role=clip`
//! overrides), their packing and the state word's fields; `roles.rs` the clip
//! roles.
//!
//! One frame of a unit (`dt` seconds):
//! 1. Advance. The current clip's time grows by `dt × state speed × variety`,
//!    the previous clip's (fading out) by `dt` (1×: the previous state is not
//!    stored). A looping clip wraps modulo its duration; any other clip, and
//!    any clip of a state with [`STATE_PLAY_ONCE`], holds at its duration
//!    (death holds its last frame). The crossfade progress grows by
//!    `dt / fade` up to 1; a fade of 0 means 1 at once.
//! 2. Evaluate. The any-state transitions come first, unless the state has
//!    [`STATE_NO_ANY`], skipping those that target the current state; then the
//!    state's own transitions, in order. The first whose condition holds fires;
//!    at most one fires per frame.
//! 3. Fire. The current clip becomes the previous one (with its time and
//!    whether it loops), the target state's clip starts at time 0 (a looping
//!    clip at the unit's phase), the progress restarts at 0 (1 when the fade
//!    is 0), and the fade is stored in 1/50 s. `ATTACK` and `HIT` consume
//!    their command: the serial is remembered in the state, so the same
//!    command never fires twice. A command that cannot fire yet (a hit during
//!    a hit, an attack while dead) stays pending, like a Unity trigger.
//!
//! Locomotion ([`STATE_LOCOMOTION`], the humanoid's "move" state) is a 1D
//! blend of two clips by speed that keeps the feet planted. Clip A (`clip`,
//! the walk) sits in the current slot, clip B (`blend_clip`, the run) in the
//! previous slot, and the blend is A's weight, so the vertex shader's
//! two-clip crossfade draws the blend unchanged. Both clips play in step: B's
//! normalized time is A's plus `blend_phase_offset` (the difference of the
//! clips' baked foot phases, so the same foot is planted in both), at
//! the rate that makes the blended stride cover the unit's ground speed:
//! `rate = speed × cycle / stride`, with `cycle = mix(D_B, D_A, w)` and
//! `stride = mix(g_B D_B, g_A D_A, w) × scale` (`g` the clips' ground speeds
//! measured by the bake), clamped to `LOCOMOTION_MIN_RATE..=MAX_RATE`. A's
//! weight follows its target (1 at or below `blend_start_speed` × scale, 0
//! at or above `blend_end_speed` × scale, linear between, snapped to one
//! clip within `LOCOMOTION_SINGLE_CLIP_BELOW`/`_ABOVE` of the ends, so most
//! walking and running units skin one clip; the humanoid controller blends
//! from the walk's ground speed to the run's) by at most
//! `LOCOMOTION_BLEND_PER_SECOND`.
//! While a transition into the state crossfades (fade steps ≠ 0), A plays
//! alone against the clip fading out; when the fade completes the fade steps
//! drop to 0, which marks the blend. Leaving the blend, the clip with the
//! larger weight fades out.
//!
//! Variety: [`unit_hash`] of the unit's index gives a speed factor in
//! `VARIETY_SPEED_MIN + [0, VARIETY_SPEED_RANGE)` for every state but
//! locomotion (whose rate the ground fixes) and a phase in [0, 1) at which
//! looping states start, so a rank neither idles nor steps in lockstep.
//!
//! Bad data never reads out of bounds: a type index past
//! [`MAX_TYPES`](crate::gpu_types::MAX_TYPES) (despawned units), a state past
//! the type's states, or a type without clips leaves the unit unchanged; a
//! transition whose target does not exist never fires; a clip index past the
//! type's clips reads its last clip.

use crate::asset::Clip;
use crate::config::{
    ANIM_ATTACK_SEEN_SHIFT, ANIM_CURRENT_CLIP_SHIFT, ANIM_FADE_STEPS_SHIFT, ANIM_FADE_STEP_SECONDS,
    ANIM_HIT_SEEN_SHIFT, ANIM_PREVIOUS_CLIP_SHIFT, ANIM_PREVIOUS_LOOPS_BIT, ANIM_SERIAL_MASK,
};
use crate::gpu_types::{
    condition, AnimState, AnimStateDef, AnimTransitionDef, MAX_ANIM_STATES, MAX_ANIM_TRANSITIONS,
    STATE_LOCOMOTION, STATE_NO_ANY, STATE_PLAY_ONCE,
};
use crate::Error;

mod roles;
use roles::with_fallbacks;
pub use roles::{
    action_words, clip_roles, clip_roles_with_overrides, Casting, ClipRoles, Fallback, Role,
};

/// Most states one controller may have (8 bits in [`AnimState::clips`]).
pub const MAX_STATES_PER_CONTROLLER: usize = 256;
/// Most clips a controller may name (8 bits in [`AnimState::clips`]).
pub const MAX_CLIPS_PER_TYPE: usize = 256;

/// One unit type's state machine, with indices local to it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Controller {
    /// State 0 is the initial state. `transitions` holds the first transition
    /// (an index into [`Controller::transitions`]) | count << 16.
    pub states: Vec<AnimStateDef>,
    /// The states' own transitions, each state's run contiguous.
    pub transitions: Vec<AnimTransitionDef>,
    /// Transitions checked first from every state without [`STATE_NO_ANY`].
    pub any_state: Vec<AnimTransitionDef>,
    /// One name per state, for tools and tests.
    pub state_names: Vec<String>,
}

/// Speed above which a humanoid moves rather than stands (units/s).
pub const WALK_SPEED: f32 = 0.1;
/// Ground speed assumed for a walk clip the bake measured none for (model
/// units per second: a human's walk, for models in metres).
pub const FALLBACK_WALK_GROUND_SPEED: f32 = 1.4;
/// A run without a measured ground speed is assumed this much faster than
/// the walk.
pub const FALLBACK_RUN_SPEEDUP: f32 = 2.5;

/// The integer hash of a unit index (Chris Wellons' lowbias32), the
/// source of per-unit variety: bits 0..16 pick the playback speed factor,
/// bits 16..32 the phase at which looping states start. `animate.comp`
/// computes the same.
pub fn unit_hash(unit: u32) -> u32 {
    let mut x = unit;
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

impl Controller {
    /// The humanoid controller over a type's clips, cast by [`clip_roles`]
    /// keywords but lenient: every missing role plays its fallback's clip
    /// (an attack the idle; clip 0 where no role of the chain has one), so
    /// any clip list gives a valid controller.
    pub fn humanoid(clips: &[Clip]) -> Controller {
        let mut roles = ClipRoles::new();
        for role in Role::ALL {
            if let Some(clip) = role.find(clips, None) {
                roles.insert(role, clip);
            }
        }
        Controller::humanoid_with_roles(clips, &with_fallbacks(roles).roles)
    }

    /// The humanoid controller with its clips cast by `roles` (from
    /// [`clip_roles`]). A second attack clip (another attack keyword match)
    /// becomes a second attack variant. Attack, hit and die play once
    /// whatever the clip's loop flag ([`STATE_PLAY_ONCE`]); die also ignores
    /// the any-state transitions ([`STATE_NO_ANY`]).
    ///
    /// States: idle, move (a [`STATE_LOCOMOTION`] blend of the walk and run
    /// clips by speed, with the clips' measured ground speeds, or
    /// [`FALLBACK_WALK_GROUND_SPEED`] and [`FALLBACK_RUN_SPEEDUP`] where the
    /// bake measured none), attack (and attack 2), hit, die, victory. Any
    /// state: DEAD → die (0.2 s), HIT → hit (0.1 s). Idle: VICTORY → victory
    /// (0.3 s), ATTACK → attack (0.15 s), speed > 0.1 → move (0.25 s). Move:
    /// VICTORY → victory, ATTACK → attack, speed ≤ 0.1 → idle (0.25 s).
    /// Attack and hit: clip end → idle (0.2 s). Die: ALIVE → idle (0.3 s).
    /// Victory: NO_VICTORY → idle (0.3 s).
    pub fn humanoid_with_roles(clips: &[Clip], roles: &ClipRoles) -> Controller {
        let role = |role: Role| roles.get(&role).copied().unwrap_or(0);
        let idle_clip = role(Role::Idle);
        let walk_clip = role(Role::Walk);
        let run_clip = role(Role::Run);
        let attack_clip = role(Role::Attack);
        let second_attack_clip = Role::Attack
            .find(clips, Some(attack_clip))
            .filter(|_| Role::Attack.rank(clip_name(clips, attack_clip)).is_some());

        let mut builder = Builder::default();
        let idle = builder.state("idle", idle_clip, 0);
        let (walk_speed, run_speed) = locomotion_speeds(clips, walk_clip, run_clip);
        let foot_phase = |index: usize| {
            clips
                .get(index)
                .map(|clip| clip.foot_phase)
                .filter(|phase| phase.is_finite())
                .unwrap_or(0.0)
        };
        let moving = builder.state("move", walk_clip, STATE_LOCOMOTION);
        if let Some(def) = builder.controller.states.get_mut(moving as usize) {
            def.blend_clip = run_clip as u32;
            def.clip_ground_speed = walk_speed;
            def.blend_clip_ground_speed = run_speed;
            def.blend_phase_offset = (foot_phase(run_clip) - foot_phase(walk_clip)).rem_euclid(1.0);
            def.blend_start_speed = walk_speed;
            def.blend_end_speed = run_speed;
        }
        let attack = builder.state("attack", attack_clip, STATE_PLAY_ONCE);
        let second_attack =
            second_attack_clip.map(|clip| builder.state("attack 2", clip, STATE_PLAY_ONCE));
        let hit = builder.state("hit", role(Role::Hit), STATE_PLAY_ONCE);
        let die = builder.state("die", role(Role::Die), STATE_PLAY_ONCE | STATE_NO_ANY);
        let victory = builder.state("victory", role(Role::Victory), 0);

        let attacks = match second_attack {
            Some(second) => vec![(attack, 0.0), (second, 1.0)],
            None => vec![(attack, -1.0)],
        };
        let actions =
            || {
                let mut list = vec![transition(victory, condition::VICTORY, 0.0, 0.3)];
                list.extend(attacks.iter().map(|&(target, variant)| {
                    transition(target, condition::ATTACK, variant, 0.15)
                }));
                list
            };
        builder.controller.any_state = vec![
            transition(die, condition::DEAD, 0.0, 0.2),
            transition(hit, condition::HIT, 0.0, 0.1),
        ];
        let mut from_idle = actions();
        from_idle.push(transition(moving, condition::SPEED_ABOVE, WALK_SPEED, 0.25));
        builder.transitions(idle, &from_idle);
        let mut from_moving = actions();
        from_moving.push(transition(idle, condition::SPEED_BELOW, WALK_SPEED, 0.25));
        builder.transitions(moving, &from_moving);
        let back_to_idle = [transition(idle, condition::CLIP_END, 0.0, 0.2)];
        for &(attack_state, _) in &attacks {
            builder.transitions(attack_state, &back_to_idle);
        }
        builder.transitions(hit, &back_to_idle);
        builder.transitions(die, &[transition(idle, condition::ALIVE, 0.0, 0.3)]);
        builder.transitions(
            victory,
            &[transition(idle, condition::NO_VICTORY, 0.0, 0.3)],
        );
        builder.controller
    }

    /// The index of the state called `name`.
    pub fn state_named(&self, name: &str) -> Option<u32> {
        self.state_names
            .iter()
            .position(|n| n == name)
            .map(|index| index as u32)
    }

    /// Checks every index, range and number [`pack`] and the shader rely on.
    pub fn validate(&self) -> Result<(), Error> {
        let fail = |what: String| Err(Error::Config(format!("animation controller: {what}")));
        if self.states.is_empty() || self.states.len() > MAX_STATES_PER_CONTROLLER {
            return fail(format!(
                "{} states, expected 1..={MAX_STATES_PER_CONTROLLER}",
                self.states.len()
            ));
        }
        let check_transition = |t: &AnimTransitionDef, owner: &str| {
            if t.target as usize >= self.states.len() {
                return fail(format!("{owner}: target state {} does not exist", t.target));
            }
            if t.condition > condition::NO_VICTORY {
                return fail(format!("{owner}: unknown condition {}", t.condition));
            }
            if !t.threshold.is_finite() {
                return fail(format!("{owner}: threshold {} is not finite", t.threshold));
            }
            if t.condition == condition::ATTACK && t.threshold >= 16.0 {
                return fail(format!(
                    "{owner}: attack variant {} is past 15",
                    t.threshold
                ));
            }
            let max_fade = 255.0 * ANIM_FADE_STEP_SECONDS;
            if !(0.0..=max_fade).contains(&t.fade) {
                return fail(format!(
                    "{owner}: fade {} is outside 0..={max_fade} s",
                    t.fade
                ));
            }
            Ok(())
        };
        for t in &self.any_state {
            check_transition(t, "any-state transition")?;
        }
        for (index, state) in self.states.iter().enumerate() {
            if state.clip as usize >= MAX_CLIPS_PER_TYPE {
                return fail(format!("state {index}: clip {} is past 255", state.clip));
            }
            if !(state.speed.is_finite() && state.speed >= 0.0) {
                return fail(format!("state {index}: speed {} is not ≥ 0", state.speed));
            }
            if state.blend_clip as usize >= MAX_CLIPS_PER_TYPE {
                return fail(format!(
                    "state {index}: blend clip {} is past 255",
                    state.blend_clip
                ));
            }
            if !(0.0..=1.0).contains(&state.blend_phase_offset) {
                return fail(format!(
                    "state {index}: blend phase offset {} is outside 0..=1",
                    state.blend_phase_offset
                ));
            }
            for ground_speed in [
                state.clip_ground_speed,
                state.blend_clip_ground_speed,
                state.blend_start_speed,
                state.blend_end_speed,
            ] {
                if !(ground_speed.is_finite() && ground_speed >= 0.0) {
                    return fail(format!(
                        "state {index}: ground speed {ground_speed} is not ≥ 0"
                    ));
                }
            }
            let range = local_range(state.transitions);
            let Some(own) = self.transitions.get(range) else {
                return fail(format!("state {index}: transitions out of range"));
            };
            for t in own {
                check_transition(t, &format!("state {index}"))?;
            }
        }
        Ok(())
    }
}

/// The name of clip `index` ("" past the end).
fn clip_name(clips: &[Clip], index: usize) -> &str {
    clips.get(index).map_or("", |clip| clip.name.as_str())
}

/// The ground speeds of the walk and run clips, with the fallbacks for
/// clips the bake measured none for (see [`Controller::humanoid_with_roles`]).
fn locomotion_speeds(clips: &[Clip], walk: usize, run: usize) -> (f32, f32) {
    let measured = |index: usize| {
        clips
            .get(index)
            .map(|clip| clip.ground_speed)
            .filter(|speed| speed.is_finite() && *speed > 0.0)
    };
    let walk_speed = measured(walk)
        .or_else(|| measured(run).map(|run| run / FALLBACK_RUN_SPEEDUP))
        .unwrap_or(FALLBACK_WALK_GROUND_SPEED);
    let run_speed = if run == walk {
        walk_speed
    } else {
        measured(run).unwrap_or(walk_speed * FALLBACK_RUN_SPEEDUP)
    };
    (walk_speed, run_speed)
}

/// Assembles a controller state by state.
#[derive(Default)]
struct Builder {
    controller: Controller,
}

impl Builder {
    fn state(&mut self, name: &str, clip: usize, flags: u32) -> u32 {
        self.controller.states.push(AnimStateDef {
            clip: clip as u32,
            speed: 1.0,
            flags,
            blend_clip: clip as u32,
            ..AnimStateDef::default()
        });
        self.controller.state_names.push(name.to_owned());
        self.controller.states.len() as u32 - 1
    }

    /// Appends the transitions of `state` (each state's are given once).
    fn transitions(&mut self, state: u32, list: &[AnimTransitionDef]) {
        let first = self.controller.transitions.len() as u32;
        self.controller.transitions.extend_from_slice(list);
        if let Some(def) = self.controller.states.get_mut(state as usize) {
            def.transitions = first | (list.len() as u32) << 16;
        }
    }
}

fn transition(target: u32, condition: u32, threshold: f32, fade: f32) -> AnimTransitionDef {
    AnimTransitionDef {
        target,
        condition,
        threshold,
        fade,
    }
}

/// The transition indices of a packed `first | count << 16` word.
fn local_range(word: u32) -> std::ops::Range<usize> {
    let first = (word & 0xffff) as usize;
    first..first + (word >> 16) as usize
}

/// Every type's controller concatenated, as the GPU reads them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackedControllers {
    /// Storage buffer `Controllers`: the states of every type, in type order,
    /// with global transition indices.
    pub states: Vec<AnimStateDef>,
    /// Storage buffer `Transitions`: per type, its any-state transitions, then
    /// its states' transitions.
    pub transitions: Vec<AnimTransitionDef>,
    /// Per controller, its four fields of
    /// [`TypeInfo`](crate::gpu_types::TypeInfo): first state, state count,
    /// first any-state transition, any-state count.
    pub ranges: Vec<[u32; 4]>,
}

/// Validates and concatenates `controllers` for the GPU.
pub fn pack(controllers: &[&Controller]) -> Result<PackedControllers, Error> {
    let mut packed = PackedControllers::default();
    for controller in controllers {
        controller.validate()?;
        let first_state = packed.states.len() as u32;
        let first_any = packed.transitions.len() as u32;
        packed.transitions.extend_from_slice(&controller.any_state);
        let first_own = packed.transitions.len() as u32;
        packed
            .transitions
            .extend_from_slice(&controller.transitions);
        packed
            .states
            .extend(controller.states.iter().map(|state| AnimStateDef {
                transitions: state.transitions + first_own,
                ..*state
            }));
        packed.ranges.push([
            first_state,
            controller.states.len() as u32,
            first_any,
            controller.any_state.len() as u32,
        ]);
        if packed.states.len() > MAX_ANIM_STATES as usize
            || packed.transitions.len() > MAX_ANIM_TRANSITIONS as usize
        {
            return Err(Error::Config(format!(
                "animation controllers need {} states and {} transitions; the renderer holds \
                 {MAX_ANIM_STATES} and {MAX_ANIM_TRANSITIONS}",
                packed.states.len(),
                packed.transitions.len()
            )));
        }
    }
    Ok(packed)
}

/// The state of a unit that just spawned: state 0 (idle) on its clip, no fade.
pub fn initial_state(controller: &Controller, clips: &[Clip]) -> AnimState {
    let def = controller.states.first().copied().unwrap_or_default();
    let looping = clips
        .get(def.clip as usize)
        .is_some_and(|clip| clip.looping)
        && def.flags & STATE_PLAY_ONCE == 0;
    AnimFields {
        state: 0,
        current_clip: def.clip & 0xff,
        previous_clip: def.clip & 0xff,
        attack_seen: 0,
        hit_seen: 0,
        time_current: 0.0,
        time_previous: 0.0,
        blend: 1.0,
        fade_steps: 0,
        previous_loops: looping,
    }
    .encode()
}

/// The fields of an [`AnimState`], unpacked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnimFields {
    /// Controller state, local to the type.
    pub state: u32,
    /// Clip of the state, local to the type.
    pub current_clip: u32,
    /// Clip fading out, local to the type.
    pub previous_clip: u32,
    /// Attack command serial last consumed.
    pub attack_seen: u32,
    /// Hit command serial last consumed.
    pub hit_seen: u32,
    /// Seconds into the current clip.
    pub time_current: f32,
    /// Seconds into the previous clip.
    pub time_previous: f32,
    /// Crossfade progress: 0 only the previous clip, 1 only the current one.
    pub blend: f32,
    /// Fade duration in steps of [`ANIM_FADE_STEP_SECONDS`] seconds.
    pub fade_steps: u32,
    /// The previous clip wraps rather than holds.
    pub previous_loops: bool,
}

impl AnimFields {
    /// Unpacks `state`.
    pub fn decode(state: AnimState) -> AnimFields {
        let byte = |shift: u32| (state.clips >> shift) & 0xff;
        let serial = |shift: u32| (state.clips >> shift) & ANIM_SERIAL_MASK;
        AnimFields {
            state: state.clips & 0xff,
            current_clip: byte(ANIM_CURRENT_CLIP_SHIFT),
            previous_clip: byte(ANIM_PREVIOUS_CLIP_SHIFT),
            attack_seen: serial(ANIM_ATTACK_SEEN_SHIFT),
            hit_seen: serial(ANIM_HIT_SEEN_SHIFT),
            time_current: state.time_current,
            time_previous: state.time_previous,
            blend: half::f16::from_bits(state.blend as u16).to_f32(),
            fade_steps: (state.blend >> ANIM_FADE_STEPS_SHIFT) & 0xff,
            previous_loops: state.blend & ANIM_PREVIOUS_LOOPS_BIT != 0,
        }
    }

    /// Packs the fields; each is masked to its bits.
    pub fn encode(self) -> AnimState {
        AnimState {
            clips: (self.state & 0xff)
                | (self.current_clip & 0xff) << ANIM_CURRENT_CLIP_SHIFT
                | (self.previous_clip & 0xff) << ANIM_PREVIOUS_CLIP_SHIFT
                | (self.attack_seen & ANIM_SERIAL_MASK) << ANIM_ATTACK_SEEN_SHIFT
                | (self.hit_seen & ANIM_SERIAL_MASK) << ANIM_HIT_SEEN_SHIFT,
            time_current: self.time_current,
            time_previous: self.time_previous,
            blend: u32::from(half::f16::from_f32(self.blend).to_bits())
                | (self.fade_steps & 0xff) << ANIM_FADE_STEPS_SHIFT
                | if self.previous_loops {
                    ANIM_PREVIOUS_LOOPS_BIT
                } else {
                    0
                },
        }
    }

    /// The fade duration in seconds.
    pub fn fade_seconds(&self) -> f32 {
        self.fade_steps as f32 * ANIM_FADE_STEP_SECONDS
    }
}
