//! Clip ground speed: how fast a clip walks, measured from its baked poses, so
//! that the runtime can play a locomotion clip at the rate that keeps the
//! planted foot still on the ground (`Clip::ground_speed`).
//!
//! Input: one clip's skin matrices per frame (model space, evenly spaced over
//! the duration) and each bone's bind position. A bone's model position at a
//! frame is its skin matrix applied to its bind position (the joint global
//! matrix applied to the origin). The model faces +Z and stands on +Y.
//!
//! Algorithm:
//! 1. Feet: bones that swing along Z (range at least [`MIN_SWING`] of the
//!    height; this drops the root and other bones that stay put) and come
//!    within [`FOOT_BAND`] of the height of the lowest such bone at some frame.
//!    Each is a left or a right foot bone by the sign of its mean X against the
//!    feet's centre.
//! 2. Plants: at every interior frame the lowest foot bone is the planted one
//!    when it lies within [`FOOT_BAND`] of the ground (the lowest height over
//!    the clip); in a run's flight phase no bone is planted.
//! 3. Speed sample: the planted bone's backward velocity (-dZ/dt, central
//!    difference) plus the root motion (the mean bone's net forward travel
//!    over the clip divided by the duration; about 0 for in-place clips), so
//!    clips with and without root motion measure alike.
//! 4. Foot phase: the circular mean of the normalized times at which the
//!    left (+X) foot is planted: its mid-stance, where blends align clips.
//! 5. A clip walks when both sides plant in at least [`MIN_PLANTED_SHARE`] of
//!    the frames and each side's mean sample moves the ground backwards.
//!    Its ground speed is the median of the samples (robust against the
//!    touch-down and lift-off frames, where a foot still near the ground
//!    swings fast), if at least [`MIN_SPEED`] heights per second. Any other
//!    clip (idle, attacks, a death that slides) gets 0.

use glam::{Mat4, Vec3};

/// Least Z range of a foot bone over the clip, as a fraction of the height.
const MIN_SWING: f32 = 0.05;
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

/// How one clip walks; `frames[f][b]` is bone b's skin matrix at frame f.
pub fn measure(frames: &[Vec<Mat4>], bind: &[Vec3], duration: f32, height: f32) -> Gait {
    let still = Gait::default();
    let frame_count = frames.len();
    // NaN durations and heights fail `is_finite`.
    if frame_count < 3
        || !duration.is_finite()
        || duration <= 0.0
        || !height.is_finite()
        || height <= 0.0
    {
        return still;
    }
    let positions: Vec<Vec<Vec3>> = frames
        .iter()
        .map(|skins| {
            skins
                .iter()
                .zip(bind)
                .map(|(skin, &point)| skin.transform_point3(point))
                .collect()
        })
        .collect();
    let bone_count = positions.iter().map(Vec::len).min().unwrap_or(0);
    if bone_count == 0 || positions.iter().flatten().any(|p| !p.is_finite()) {
        return still;
    }
    let column = |bone: usize| positions.iter().map(move |frame| frame[bone]);

    // 1. Feet.
    let swinging: Vec<usize> = (0..bone_count)
        .filter(|&bone| {
            let (low, high) = column(bone).fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), p| {
                (l.min(p.z), h.max(p.z))
            });
            high - low >= MIN_SWING * height
        })
        .collect();
    let lowest = |bone: usize| column(bone).map(|p| p.y).fold(f32::INFINITY, f32::min);
    let ground = swinging
        .iter()
        .map(|&bone| lowest(bone))
        .fold(f32::INFINITY, f32::min);
    let band = FOOT_BAND * height;
    let feet: Vec<usize> = swinging
        .into_iter()
        .filter(|&bone| lowest(bone) <= ground + band)
        .collect();
    if feet.is_empty() {
        return still;
    }
    let mean_x = |bone: usize| column(bone).map(|p| p.x).sum::<f32>() / frame_count as f32;
    let centre = feet.iter().map(|&bone| mean_x(bone)).sum::<f32>() / feet.len() as f32;

    // 2 and 3. Plants and their speed samples, per side (left: +X).
    let step = duration / (frame_count - 1) as f32;
    let root_motion = (0..bone_count)
        .map(|bone| positions[frame_count - 1][bone].z - positions[0][bone].z)
        .sum::<f32>()
        / bone_count as f32
        / duration;
    let mut samples: [Vec<f32>; 2] = [Vec::new(), Vec::new()];
    // The left foot's plant times as points on the unit circle.
    let mut left_plant = glam::Vec2::ZERO;
    for frame in 1..frame_count - 1 {
        let Some(&planted) = feet
            .iter()
            .min_by(|&&a, &&b| positions[frame][a].y.total_cmp(&positions[frame][b].y))
        else {
            continue;
        };
        if positions[frame][planted].y > ground + band {
            continue;
        }
        let forward =
            (positions[frame + 1][planted].z - positions[frame - 1][planted].z) / (2.0 * step);
        let side = usize::from(mean_x(planted) < centre);
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
    let mut all: Vec<f32> = samples.concat();
    all.sort_by(f32::total_cmp);
    let middle = all.len() / 2;
    let speed = if all.len() % 2 == 0 {
        0.5 * (all[middle - 1] + all[middle])
    } else {
        all[middle]
    };
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
