//! Animation clips, authored as stances and sampled into LINEAR keys.
//!
//! A `Stance` is a vector of named degrees of freedom (`Dof`: angles in
//! degrees, hip shifts in metres) that reads like a choreographer's note: "right
//! elbow 90, chest turned 25 to the right". Clips are functions from phase (0..1)
//! to a stance: the locomotion cycles are analytic (each foot on an explicit
//! path solved with two-bone IK, arms on sines), the actions interpolate
//! authored key stances with easing. Each clip is sampled at
//! `KEYS_PER_SECOND` into per-joint local rotations plus a hips translation,
//! which glTF LINEAR interpolation reproduces closely at any playback rate.
//!
//! Grounding: after a stance is turned into rotations, forward kinematics finds
//! the lowest contact point (foot soles; for the death fall, every joint padded by
//! the body's thickness) and the hips are raised or lowered so that point touches
//! y = 0. Hips bob, crouches and the final lying height therefore follow from the
//! pose instead of being authored, and feet never sink into the ground.
//!
//! Looping clips (idle, walk, run) have their last key set to a copy of the
//! first, so playback wraps without a jump.
//!
//! `clips/actions.rs` holds the keyframed actions.

use std::f32::consts::TAU;

use glam::{Quat, Vec3};

use super::rig::{Joint, Rig, JOINT_COUNT};

mod actions;
use actions::{die_keys, hit_keys, keyed, slash_keys, thrust_keys, victory_keys};

/// Keys sampled per second of clip.
const KEYS_PER_SECOND: f32 = 30.0;

/// One degree of freedom of a stance. Angles are degrees; `HipsForward` and
/// `HipsSide` are metres. L and R are the unit's left (+X) and right (-X).
#[derive(Debug, Clone, Copy)]
enum Dof {
    HipsYaw,
    HipsLean,
    HipsRoll,
    HipsForward,
    HipsSide,
    SpineLean,
    SpineYaw,
    SpineRoll,
    ChestLean,
    ChestYaw,
    NeckLean,
    HeadLean,
    HeadYaw,
    HeadRoll,
    ShrugL,
    ArmSwingL,
    ArmSpreadL,
    ArmTwistL,
    ElbowL,
    WristL,
    ShrugR,
    ArmSwingR,
    ArmSpreadR,
    ArmTwistR,
    ElbowR,
    WristR,
    LegSwingL,
    LegSpreadL,
    KneeL,
    AnkleL,
    LegSwingR,
    LegSpreadR,
    KneeR,
    AnkleR,
}

const DOF_COUNT: usize = Dof::AnkleR as usize + 1;

/// A body pose as degrees of freedom; see [`Dof`] for units and sign conventions:
/// positive swing moves a limb forward, positive lean bends forward, positive yaw
/// turns to the unit's left, positive spread moves a limb away from the body,
/// positive elbow and knee flex, positive wrist tilts a held weapon up, positive
/// ankle lifts the toes above level.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stance([f32; DOF_COUNT]);

impl Stance {
    fn with(mut self, values: &[(Dof, f32)]) -> Self {
        for &(dof, value) in values {
            self.0[dof as usize] = value;
        }
        self
    }

    fn add(mut self, values: &[(Dof, f32)]) -> Self {
        for &(dof, value) in values {
            self.0[dof as usize] += value;
        }
        self
    }

    fn get(&self, dof: Dof) -> f32 {
        self.0[dof as usize]
    }

    fn lerp(&self, other: &Stance, t: f32) -> Stance {
        let mut out = *self;
        for (value, target) in out.0.iter_mut().zip(other.0) {
            *value += (target - *value) * t;
        }
        out
    }

    /// Local joint rotations and the hips' horizontal shift for this stance.
    fn to_rotations(self) -> ([Quat; JOINT_COUNT], Vec3) {
        let angle = |dof: Dof| self.get(dof).to_radians();
        let x = Quat::from_rotation_x;
        let y = Quat::from_rotation_y;
        let z = Quat::from_rotation_z;
        let mut rotations = [Quat::IDENTITY; JOINT_COUNT];
        let mut set = |joint: Joint, rotation: Quat| rotations[joint.index()] = rotation;
        // Bones that point up (+Y) bend forward under +X rotation.
        set(
            Joint::Hips,
            y(angle(Dof::HipsYaw)) * x(angle(Dof::HipsLean)) * z(angle(Dof::HipsRoll)),
        );
        set(
            Joint::Spine,
            y(angle(Dof::SpineYaw)) * x(angle(Dof::SpineLean)) * z(angle(Dof::SpineRoll)),
        );
        set(
            Joint::Chest,
            y(angle(Dof::ChestYaw)) * x(angle(Dof::ChestLean)),
        );
        set(Joint::Neck, x(angle(Dof::NeckLean)));
        set(
            Joint::Head,
            y(angle(Dof::HeadYaw)) * x(angle(Dof::HeadLean)) * z(angle(Dof::HeadRoll)),
        );
        let arms = [
            (
                1.0,
                Joint::ShoulderL,
                Joint::UpperArmL,
                Joint::LowerArmL,
                Joint::HandL,
                [
                    Dof::ShrugL,
                    Dof::ArmSwingL,
                    Dof::ArmSpreadL,
                    Dof::ArmTwistL,
                    Dof::ElbowL,
                    Dof::WristL,
                ],
            ),
            (
                -1.0,
                Joint::ShoulderR,
                Joint::UpperArmR,
                Joint::LowerArmR,
                Joint::HandR,
                [
                    Dof::ShrugR,
                    Dof::ArmSwingR,
                    Dof::ArmSpreadR,
                    Dof::ArmTwistR,
                    Dof::ElbowR,
                    Dof::WristR,
                ],
            ),
        ];
        for (side, shoulder, upper, lower, hand, [shrug, swing, spread, twist, elbow, wrist]) in
            arms
        {
            // The collarbone points sideways (side * X); +Z rotation lifts +X.
            set(shoulder, z(side * angle(shrug)));
            // Bones that hang down (-Y) move forward under -X rotation, and
            // outward under a Z rotation signed by side.
            set(
                upper,
                z(side * angle(spread)) * x(-angle(swing)) * y(side * angle(twist)),
            );
            set(lower, x(-angle(elbow)));
            set(hand, x(-angle(wrist)));
        }
        let legs = [
            (
                1.0,
                Joint::UpperLegL,
                Joint::LowerLegL,
                Joint::FootL,
                [Dof::LegSwingL, Dof::LegSpreadL, Dof::KneeL, Dof::AnkleL],
            ),
            (
                -1.0,
                Joint::UpperLegR,
                Joint::LowerLegR,
                Joint::FootR,
                [Dof::LegSwingR, Dof::LegSpreadR, Dof::KneeR, Dof::AnkleR],
            ),
        ];
        for (side, upper, lower, foot, [swing, spread, knee, ankle]) in legs {
            set(upper, z(side * angle(spread)) * x(-angle(swing)));
            // A flexed knee sends the shin backwards.
            set(lower, x(angle(knee)));
            // The foot is levelled against thigh and shin, then tilted by `ankle`.
            set(foot, x(angle(swing) - angle(knee) - angle(ankle)));
        }
        let shift = Vec3::new(self.get(Dof::HipsSide), 0.0, self.get(Dof::HipsForward));
        (rotations, shift)
    }
}

/// Differences between unit types in how they carry themselves.
#[derive(Debug, Clone, Copy)]
pub struct Temperament {
    /// Forward bend of the upper body, degrees.
    pub hunch: f32,
    /// Multiplier on arm swing in locomotion.
    pub arm_swing: f32,
    /// Half the body's front-to-back thickness, metres; how high the spine lies
    /// off the ground at the end of the death fall.
    pub body_radius: f32,
}

/// A sampled clip: key times and, per key, local rotations and the hips' local
/// translation.
#[derive(Debug, Clone)]
pub struct Clip {
    pub name: &'static str,
    pub times: Vec<f32>,
    pub rotations: Vec<[Quat; JOINT_COUNT]>,
    pub hips_translations: Vec<Vec3>,
}

/// How a pose is set on the ground.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Grounding {
    /// The lowest point of either sole touches the ground.
    Feet,
    /// Soles and every body joint padded by the body radius: for falling down.
    Body,
}

/// Names and lengths of all clips, in file order.
pub const CLIP_NAMES: [&str; 8] = [
    "idle",
    "walk",
    "run",
    "attack_slash",
    "attack_thrust",
    "hit",
    "die",
    "victory",
];

/// All clips for a unit with this rig and temperament.
pub fn all_clips(rig: &Rig, temperament: &Temperament) -> Vec<Clip> {
    let guard = guard_stance(temperament);
    let sampler = Sampler { rig, temperament };
    let legs = Legs::of(rig);
    vec![
        sampler.sample("idle", 2.0, true, Grounding::Feet, |p| idle(&guard, p)),
        sampler.sample("walk", 1.0, true, Grounding::Feet, |p| {
            gait(&guard, temperament, &WALK, &legs, p)
        }),
        sampler.sample("run", 0.7, true, Grounding::Feet, |p| {
            gait(&guard, temperament, &RUN, &legs, p)
        }),
        sampler.sample("attack_slash", 1.0, false, Grounding::Feet, |p| {
            keyed(&slash_keys(&guard), p)
        }),
        sampler.sample("attack_thrust", 1.0, false, Grounding::Feet, |p| {
            keyed(&thrust_keys(&guard), p)
        }),
        sampler.sample("hit", 0.5, false, Grounding::Feet, |p| {
            keyed(&hit_keys(&guard), p)
        }),
        sampler.sample("die", 1.5, false, Grounding::Body, |p| {
            keyed(&die_keys(&guard), p)
        }),
        sampler.sample("victory", 2.0, false, Grounding::Feet, |p| {
            keyed(&victory_keys(&guard), p)
        }),
    ]
}

/// The ready stance every action starts and ends in: weapon raised in front,
/// shield arm across the body, knees soft.
fn guard_stance(temperament: &Temperament) -> Stance {
    Stance([0.0; DOF_COUNT]).with(&[
        (Dof::SpineLean, temperament.hunch * 0.6),
        (Dof::ChestLean, temperament.hunch * 0.4),
        (Dof::NeckLean, -temperament.hunch * 0.5),
        (Dof::HeadLean, -temperament.hunch * 0.5),
        (Dof::ArmSwingR, 15.0),
        (Dof::ArmSpreadR, 8.0),
        (Dof::ElbowR, 60.0),
        (Dof::WristR, -25.0),
        (Dof::ArmSwingL, 25.0),
        (Dof::ArmSpreadL, 5.0),
        (Dof::ArmTwistL, 25.0),
        (Dof::ElbowL, 75.0),
        (Dof::WristL, 0.0),
        (Dof::LegSpreadL, 4.0),
        (Dof::LegSpreadR, 4.0),
        (Dof::LegSwingL, 6.0),
        (Dof::LegSwingR, 6.0),
        (Dof::KneeL, 12.0),
        (Dof::KneeR, 12.0),
    ])
}

fn idle(guard: &Stance, phase: f32) -> Stance {
    let breath = (TAU * phase).sin();
    let sway = (TAU * phase).cos();
    guard.add(&[
        (Dof::ChestLean, -2.5 * breath),
        (Dof::ShrugL, 3.0 * breath),
        (Dof::ShrugR, 3.0 * breath),
        (Dof::HeadYaw, 12.0 * sway),
        (Dof::HeadLean, 2.0 * breath),
        (Dof::HipsSide, 0.015 * sway),
        (Dof::HipsRoll, -1.5 * sway),
        (Dof::ArmSwingR, 4.0 * breath),
        (Dof::ElbowR, 5.0 * breath),
        (Dof::KneeL, 4.0 * (1.0 + sway)),
        (Dof::KneeR, 4.0 * (1.0 - sway)),
    ])
}

/// Shape of a locomotion cycle.
struct GaitShape {
    /// Leg angle (degrees) at either end of the stance.
    hip_swing: f32,
    /// Highest lift of the swinging foot, as a fraction of the leg length.
    foot_lift: f32,
    /// Knee bend (degrees) through the stance.
    stance_knee: f32,
    lean: f32,
    arm_swing: f32,
    elbow: f32,
    pelvis_turn: f32,
}

const WALK: GaitShape = GaitShape {
    hip_swing: 25.0,
    foot_lift: 0.12,
    stance_knee: 6.0,
    lean: 4.0,
    arm_swing: 30.0,
    elbow: 25.0,
    pelvis_turn: 8.0,
};

const RUN: GaitShape = GaitShape {
    hip_swing: 42.0,
    foot_lift: 0.3,
    stance_knee: 22.0,
    lean: 14.0,
    arm_swing: 50.0,
    elbow: 70.0,
    pelvis_turn: 12.0,
};

/// Thigh and shin lengths of a rig (the legs are alike).
struct Legs {
    thigh: f32,
    shin: f32,
}

impl Legs {
    fn of(rig: &Rig) -> Legs {
        let hip = rig.position(Joint::UpperLegL);
        let knee = rig.position(Joint::LowerLegL);
        let ankle = rig.position(Joint::FootL);
        Legs {
            thigh: hip.distance(knee),
            shin: knee.distance(ankle),
        }
    }

    /// Hip-to-ankle distance with the knee bent by `knee` degrees.
    fn extension(&self, knee: f32) -> f32 {
        let (a, b) = (self.thigh, self.shin);
        (a * a + b * b + 2.0 * a * b * knee.to_radians().cos()).sqrt()
    }

    /// Two-bone IK in the leg's sagittal plane: the thigh swing and knee bend
    /// (degrees) that put the ankle `forward` ahead of and `down` below the
    /// hip joint. Out-of-reach targets are pulled within reach.
    fn solve(&self, forward: f32, down: f32) -> (f32, f32) {
        let (a, b) = (self.thigh, self.shin);
        let distance = forward
            .hypot(down)
            .clamp((a - b).abs() + 1e-4, a + b - 1e-4);
        let knee_inner = ((a * a + b * b - distance * distance) / (2.0 * a * b))
            .clamp(-1.0, 1.0)
            .acos();
        let to_ankle = forward.atan2(down);
        let thigh_ahead = ((a * a + distance * distance - b * b) / (2.0 * a * distance))
            .clamp(-1.0, 1.0)
            .acos();
        (
            (to_ankle + thigh_ahead).to_degrees(),
            (std::f32::consts::PI - knee_inner).to_degrees(),
        )
    }
}

/// A walk or run cycle. Each ankle follows a path in its hip's frame: for
/// the stance half of the cycle it moves straight back at a constant speed
/// on an arc at the stance knee's extension (so a planted foot never slides
/// against the ground that passes under it at that speed, and the hips bob
/// as the leg passes under them); for the swing half it returns forward on
/// an eased path, lifted by up to `foot_lift` of the leg. Two-bone IK turns
/// the path into thigh and knee angles. Arms swing against the opposite leg.
fn gait(
    guard: &Stance,
    temperament: &Temperament,
    shape: &GaitShape,
    legs: &Legs,
    phase: f32,
) -> Stance {
    let extension = legs.extension(shape.stance_knee);
    let reach = extension * shape.hip_swing.to_radians().sin();
    let leg = |offset: f32| {
        // 0 with the foot furthest back, the swing first, then the stance.
        let step = (phase + offset + 0.25).rem_euclid(1.0);
        let (forward, lift) = if step < 0.5 {
            let u = step / 0.5;
            (
                -reach * (std::f32::consts::PI * u).cos(),
                shape.foot_lift * (legs.thigh + legs.shin) * (std::f32::consts::PI * u).sin(),
            )
        } else {
            (reach * (1.0 - 4.0 * (step - 0.5)), 0.0)
        };
        let down = (extension * extension - forward * forward).max(0.0).sqrt() - lift;
        let (swing, knee) = legs.solve(forward, down);
        (swing, knee, (TAU * (phase + offset)).sin())
    };
    let (swing_l, knee_l, cycle_l) = leg(0.0);
    let (swing_r, knee_r, cycle_r) = leg(0.5);
    let arm = shape.arm_swing * temperament.arm_swing;
    // The legs hang from the hips, so the forward lean is added back to their
    // swing to keep the stride centred under the body.
    guard.with(&[
        (Dof::LegSwingL, swing_l + shape.lean),
        (Dof::KneeL, knee_l),
        (Dof::LegSwingR, swing_r + shape.lean),
        (Dof::KneeR, knee_r),
        (Dof::LegSpreadL, 2.0),
        (Dof::LegSpreadR, 2.0),
        (Dof::HipsYaw, shape.pelvis_turn * cycle_l),
        (Dof::SpineYaw, -shape.pelvis_turn * 0.6 * cycle_l),
        (Dof::ChestYaw, -shape.pelvis_turn * 0.6 * cycle_l),
        (Dof::HipsLean, shape.lean),
        (Dof::HeadLean, -shape.lean - temperament.hunch * 0.5),
        // The weapon arm swings with the left leg's opposite, the shield arm
        // with the right leg's opposite, at reduced reach because it is loaded.
        (Dof::ArmSwingR, 10.0 + arm * cycle_l),
        (Dof::ElbowR, shape.elbow + 15.0 * cycle_l.max(0.0)),
        (Dof::ArmSwingL, 20.0 + 0.6 * arm * cycle_r),
        (Dof::ElbowL, shape.elbow + 30.0),
    ])
}

struct Sampler<'a> {
    rig: &'a Rig,
    temperament: &'a Temperament,
}

impl Sampler<'_> {
    fn sample(
        &self,
        name: &'static str,
        duration: f32,
        looping: bool,
        grounding: Grounding,
        stance_at: impl Fn(f32) -> Stance,
    ) -> Clip {
        let intervals = (duration * KEYS_PER_SECOND).round() as usize;
        let mut clip = Clip {
            name,
            times: Vec::with_capacity(intervals + 1),
            rotations: Vec::with_capacity(intervals + 1),
            hips_translations: Vec::with_capacity(intervals + 1),
        };
        for key in 0..=intervals {
            let phase = key as f32 / intervals as f32;
            let (mut rotations, shift) = stance_at(phase).to_rotations();
            if let Some(previous) = clip.rotations.last() {
                keep_shortest_path(previous, &mut rotations);
            }
            let lift = self.ground_lift(&rotations, shift, grounding);
            clip.times.push(duration * phase);
            clip.rotations.push(rotations);
            clip.hips_translations
                .push(self.rig.local_translation(Joint::Hips) + shift + Vec3::Y * lift);
        }
        if looping {
            clip.rotations[intervals] = clip.rotations[0];
            clip.hips_translations[intervals] = clip.hips_translations[0];
        }
        clip
    }

    /// How far the hips must move up (negative: down) for the pose to touch the ground.
    fn ground_lift(
        &self,
        rotations: &[Quat; JOINT_COUNT],
        shift: Vec3,
        grounding: Grounding,
    ) -> f32 {
        let globals = self.rig.global_transforms(rotations, shift);
        let mut lowest = f32::INFINITY;
        for foot in [Joint::FootL, Joint::FootR] {
            let ankle_height = self.rig.position(foot).y;
            // Sole points relative to the ankle in the bind pose: heel and toe.
            for sole in [
                Vec3::new(0.0, -ankle_height, -0.05),
                Vec3::new(0.0, -ankle_height, 0.16),
            ] {
                lowest = lowest.min(globals[foot.index()].transform_point3(sole).y);
            }
        }
        if grounding == Grounding::Body {
            for joint in Joint::ALL {
                if !joint.is_held_prop() && !matches!(joint, Joint::FootL | Joint::FootR) {
                    let height = globals[joint.index()].w_axis.y - self.temperament.body_radius;
                    lowest = lowest.min(height);
                }
            }
            let head_top = globals[Joint::Head.index()].transform_point3(
                self.rig.tails[Joint::Head.index()] - self.rig.position(Joint::Head),
            );
            lowest = lowest.min(head_top.y - self.temperament.body_radius);
        }
        -lowest
    }
}

/// Flips quaternions whose sign differs from the previous key's, so LINEAR
/// interpolation between keys takes the short way round.
fn keep_shortest_path(previous: &[Quat; JOINT_COUNT], rotations: &mut [Quat; JOINT_COUNT]) {
    for (rotation, previous) in rotations.iter_mut().zip(previous) {
        if rotation.dot(*previous) < 0.0 {
            *rotation = -*rotation;
        }
    }
}
