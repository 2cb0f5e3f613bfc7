//! Clip ground speed: how fast a clip walks, measured from its baked poses, so
//! that the runtime can play a locomotion clip at the rate that keeps the
//! planted foot still on the ground (`Clip::ground_speed`).
//!
//! Input: one clip's skin matrices per frame (model space, evenly spaced over
//! the duration), each bone's bind position, and the mesh's soles. The model
//! faces +Z and stands on +Y.
//!
//! Algorithm:
//! 1. Feet: the soles are the mesh vertices within `SOLE_BAND` of the bind
//!    pose's lowest point ([`soles`]), left (+X) and right of their mean X.
//!    Each frame, each sole's centroid is skinned exactly (every influence).
//!    The sole, not a foot joint, is what touches the ground: rigs such as
//!    KayKit's animate IK control bones around the feet that roll with the
//!    heel and toe rather than stay on the ground.
//! 2. Plants: at every interior frame the lower sole is planted when it lies
//!    within `FOOT_BAND` of the ground (the lowest sole height over the
//!    clip); in a run's flight phase neither is.
//! 3. Speed sample: the planted sole's backward velocity (-dZ/dt, central
//!    difference) plus the root motion (the bones' mean net forward travel
//!    over the clip divided by the duration; about 0 for in-place clips), so
//!    clips with and without root motion measure alike.
//! 4. Foot phase: the circular mean of the normalized times at which the
//!    left (+X) foot is planted: its mid-stance, where blends align clips.
//! 5. A clip walks when both sides plant in at least `MIN_PLANTED_SHARE` of
//!    the frames and each side's mean sample moves the ground backwards.
//!    Its ground speed is the mean of the samples, the one speed at which
//!    the planted soles' drift over the plants sums to zero (a median or a
//!    single foot joint leaves several per cent of the stride: heel-to-toe
//!    roll makes the sole's speed uneven), if at least `MIN_SPEED` heights
//!    per second. Any other clip (idle, attacks, a death that slides) gets 0.

use crate::import::Influences;
use crate::two_bone::skin_exact;
use glam::{Mat4, Vec3};

/// Height of the bind-pose mesh above its lowest point that counts as sole,
/// as a fraction of the model height.
const SOLE_BAND: f32 = 0.04;
/// Height band above the ground that counts as "on the ground", as a
/// fraction of the model height: tight, because a foot that lifts off or
/// touches down moves fast while still barely above the ground.
const FOOT_BAND: f32 = 0.03;
/// Least share of the frames each foot must be planted in (a run's feet
/// touch the ground for about a third of each step).
const MIN_PLANTED_SHARE: f32 = 0.1;
/// Slowest ground speed that counts as walking, in heights per second.
const MIN_SPEED: f32 = 0.02;

/// Each bone's model-space bind position: the translation of its inverse
/// inverse-bind matrix (the origin when the matrix cannot be inverted).
pub fn bind_positions(inverse_bind: &[Mat4]) -> Vec<Vec3> {
    inverse_bind
        .iter()
        .map(|matrix| {
            let determinant = matrix.determinant();
            if determinant.is_finite() && determinant.abs() > f32::EPSILON {
                matrix.inverse().w_axis.truncate()
            } else {
                Vec3::ZERO
            }
        })
        .collect()
}

/// How a clip walks: both 0 for a clip that does not.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Gait {
    /// Ground speed, model units per second at 1x.
    pub speed: f32,
    /// Normalized time (0..1) of the left foot's mid-stance.
    pub foot_phase: f32,
}

/// The soles of a mesh: its vertices within `SOLE_BAND` of the bind
/// pose's lowest point, with their influences, left (+X of their mean) first.
#[derive(Clone, Debug, Default)]
pub struct Soles {
    pub sides: [Vec<(Vec3, Influences)>; 2],
}

/// The soles of the mesh with bind-pose `positions` and `influences`.
pub fn soles(positions: &[Vec3], influences: &[Influences], height: f32) -> Soles {
    let count = positions.len().min(influences.len());
    let floor = positions[..count]
        .iter()
        .map(|p| p.y)
        .fold(f32::INFINITY, f32::min);
    let low: Vec<usize> = (0..count)
        .filter(|&index| positions[index].y <= floor + SOLE_BAND * height)
        .collect();
    let centre = low.iter().map(|&index| positions[index].x).sum::<f32>() / low.len().max(1) as f32;
    let mut soles = Soles::default();
    for index in low {
        let side = usize::from(positions[index].x < centre);
        soles.sides[side].push((positions[index], influences[index]));
    }
    soles
}

/// How one clip walks; `frames[f][b]` is bone b's skin matrix at frame f,
/// `bind` the bones' bind positions, `soles` the mesh's feet.
pub fn measure(
    frames: &[Vec<Mat4>],
    bind: &[Vec3],
    soles: &Soles,
    duration: f32,
    height: f32,
) -> Gait {
    let still = Gait::default();
    let frame_count = frames.len();
    // NaN durations and heights fail `is_finite`.
    if frame_count < 3
        || !duration.is_finite()
        || duration <= 0.0
        || !height.is_finite()
        || height <= 0.0
        || soles.sides.iter().any(Vec::is_empty)
    {
        return still;
    }
    let bone_count = frames
        .iter()
        .map(Vec::len)
        .min()
        .unwrap_or(0)
        .min(bind.len());
    let bones_valid = soles.sides.iter().flatten().all(|(_, influences)| {
        influences
            .bones
            .iter()
            .all(|&bone| (bone as usize) < bone_count)
    });
    if bone_count == 0 || !bones_valid {
        return still;
    }

    // 1. Feet: each sole's centroid, per frame.
    let feet: Vec<[Vec3; 2]> = frames
        .iter()
        .map(|pose| {
            soles.sides.clone().map(|side| {
                side.iter()
                    .map(|(position, influences)| skin_exact(pose, influences, *position))
                    .sum::<Vec3>()
                    / side.len() as f32
            })
        })
        .collect();
    if feet.iter().flatten().any(|p| !p.is_finite()) {
        return still;
    }
    let ground = feet
        .iter()
        .flatten()
        .map(|p| p.y)
        .fold(f32::INFINITY, f32::min);
    let band = FOOT_BAND * height;

    // 2 and 3. Plants and their speed samples, per side (left: +X).
    let step = duration / (frame_count - 1) as f32;
    let root_motion = (0..bone_count)
        .map(|bone| {
            let point = bind[bone];
            frames[frame_count - 1][bone].transform_point3(point).z
                - frames[0][bone].transform_point3(point).z
        })
        .sum::<f32>()
        / bone_count as f32
        / duration;
    let mut samples: [Vec<f32>; 2] = [Vec::new(), Vec::new()];
    // The left foot's plant times as points on the unit circle.
    let mut left_plant = glam::Vec2::ZERO;
    for frame in 1..frame_count - 1 {
        let side = usize::from(feet[frame][1].y < feet[frame][0].y);
        if feet[frame][side].y > ground + band {
            continue;
        }
        let forward = (feet[frame + 1][side].z - feet[frame - 1][side].z) / (2.0 * step);
        samples[side].push(root_motion - forward);
        if side == 0 {
            let angle = std::f32::consts::TAU * frame as f32 / (frame_count - 1) as f32;
            left_plant += glam::Vec2::new(angle.cos(), angle.sin());
        }
    }

    // 4. Does it walk, and how fast.
    let interior = (frame_count - 2) as f32;
    let walks = samples.iter().all(|side| {
        side.len() as f32 >= MIN_PLANTED_SHARE * interior
            && side.iter().sum::<f32>() / side.len().max(1) as f32 > 0.0
    });
    if !walks {
        return still;
    }
    let all: Vec<f32> = samples.concat();
    let speed = all.iter().sum::<f32>() / all.len() as f32;
    if !(speed.is_finite() && speed >= MIN_SPEED * height) {
        return still;
    }
    let turn = left_plant.y.atan2(left_plant.x) / std::f32::consts::TAU;
    // rem_euclid can round up to exactly 1.0 for a tiny negative turn.
    let foot_phase = turn.rem_euclid(1.0);
    Gait {
        speed: speed.min(horde_asset::MAX_GROUND_SPEED_PER_HEIGHT * height),
        foot_phase: if foot_phase < 1.0 { foot_phase } else { 0.0 },
    }
}
