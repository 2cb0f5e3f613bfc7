//! Exact pose evaluation: glTF channel interpolation, node hierarchy, skin
//! matrices. This is the reference every approximation is measured against.
//!
//! - Before its first key a channel holds the first value, after its last key the
//!   last one (glTF leaves this to the implementation; clamping is the common
//!   choice). Nodes without a channel keep their rest transform.
//! - LINEAR rotations use slerp along the shorter arc, as the spec asks; STEP
//!   holds the earlier key; CUBICSPLINE is the spec's Hermite form with tangents
//!   scaled by the key interval, rotations normalized afterwards.
//! - Skin matrix of bone j = global(joint j) * `inverseBind[j]`; the skinned mesh
//!   node's transform plays no part.
//! - Sample rate per clip ([`choose_rate`]): the base rate, raised for a clip
//!   whose fast motion would make blending between stored frames cost more
//!   than the bound (a 124 degree swing between two 24 fps keys does).

use crate::import::{Channel, Influences, Interp, Skeleton, SourceClip, Target};
use crate::two_bone::skin_exact;
use glam::{Mat4, Quat, Vec3, Vec4};

/// Value of `channel` at absolute time `time` (xyz or xyzw).
pub fn channel_value(channel: &Channel, time: f32) -> Vec4 {
    let times = &channel.times;
    let key_value = |key: usize| match channel.interpolation {
        Interp::CubicSpline => channel.values[key * 3 + 1],
        Interp::Linear | Interp::Step => channel.values[key],
    };
    let last = times.len() - 1;
    if time <= times[0] {
        return key_value(0);
    }
    if time >= times[last] {
        return key_value(last);
    }
    // First key strictly after `time`; keys before it are <= time.
    let next = times.partition_point(|&key_time| key_time <= time);
    let previous = next - 1;
    let interval = times[next] - times[previous];
    if interval <= 0.0 {
        return key_value(next);
    }
    let s = (time - times[previous]) / interval;
    let is_rotation = channel.target == Target::Rotation;
    match channel.interpolation {
        Interp::Step => key_value(previous),
        Interp::Linear if is_rotation => {
            let a = Quat::from_vec4(key_value(previous));
            let b = Quat::from_vec4(key_value(next));
            Vec4::from(slerp_short(a, b, s))
        }
        Interp::Linear => key_value(previous).lerp(key_value(next), s),
        Interp::CubicSpline => {
            let p0 = channel.values[previous * 3 + 1];
            let m0 = channel.values[previous * 3 + 2] * interval;
            let p1 = channel.values[next * 3 + 1];
            let m1 = channel.values[next * 3] * interval;
            let (s2, s3) = (s * s, s * s * s);
            let value = (2.0 * s3 - 3.0 * s2 + 1.0) * p0
                + (s3 - 2.0 * s2 + s) * m0
                + (-2.0 * s3 + 3.0 * s2) * p1
                + (s3 - s2) * m1;
            if is_rotation {
                value.normalize_or(Vec4::W)
            } else {
                value
            }
        }
    }
}

/// Spherical interpolation along the shorter arc, falling back to normalized
/// lerp when the rotations are nearly equal (where slerp divides by ~0).
pub fn slerp_short(a: Quat, b: Quat, s: f32) -> Quat {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    let cos = a.dot(b).min(1.0);
    if cos > 0.9995 {
        return Quat::from_vec4(Vec4::from(a).lerp(Vec4::from(b), s)).normalize();
    }
    let angle = cos.acos();
    let sin = angle.sin();
    let wa = ((1.0 - s) * angle).sin() / sin;
    let wb = (s * angle).sin() / sin;
    Quat::from_vec4(Vec4::from(a) * wa + Vec4::from(b) * wb).normalize()
}

/// World matrices of every node at clip time `time` (seconds from clip start).
pub fn node_globals(skeleton: &Skeleton, clip: Option<&SourceClip>, time: f32) -> Vec<Mat4> {
    let mut translations: Vec<Vec3> = skeleton.nodes.iter().map(|n| n.translation).collect();
    let mut rotations: Vec<Quat> = skeleton.nodes.iter().map(|n| n.rotation).collect();
    let mut scales: Vec<Vec3> = skeleton.nodes.iter().map(|n| n.scale).collect();
    if let Some(clip) = clip {
        let absolute = clip.start + time;
        for channel in &clip.channels {
            let value = channel_value(channel, absolute);
            match channel.target {
                Target::Translation => translations[channel.node] = value.truncate(),
                Target::Rotation => rotations[channel.node] = Quat::from_vec4(value).normalize(),
                Target::Scale => scales[channel.node] = value.truncate(),
            }
        }
    }
    let mut globals = vec![Mat4::IDENTITY; skeleton.nodes.len()];
    for &index in &skeleton.order {
        let local = Mat4::from_scale_rotation_translation(
            scales[index],
            rotations[index],
            translations[index],
        );
        let parent = skeleton.nodes[index]
            .parent
            .map_or(Mat4::IDENTITY, |p| globals[p]);
        globals[index] = parent * local;
    }
    globals
}

/// Skin matrices (joint global * inverse bind) of every bone at clip time `time`.
pub fn skin_matrices(skeleton: &Skeleton, clip: Option<&SourceClip>, time: f32) -> Vec<Mat4> {
    let globals = node_globals(skeleton, clip, time);
    skeleton
        .joints
        .iter()
        .zip(&skeleton.inverse_bind)
        .map(|(&joint, inverse_bind)| globals[joint] * *inverse_bind)
        .collect()
}

/// Stored frames of a clip of `duration` seconds at `rate` frames per second:
/// `ceil(duration * rate) + 1`, or 1 for a pose. The small tolerance keeps a
/// duration that is a whole number of frames (30/30 s) from gaining a frame to
/// rounding.
pub fn frame_count(duration: f32, rate: f32) -> u32 {
    if duration <= 0.0 {
        1
    } else {
        ((duration * rate - 1e-3).ceil().max(1.0) as u32).saturating_add(1)
    }
}

/// Clip time of stored frame `frame` of `frame_count`.
pub fn frame_time(duration: f32, frame_count: u32, frame: f32) -> f32 {
    if frame_count <= 1 {
        0.0
    } else {
        frame * duration / (frame_count - 1) as f32
    }
}

/// Exact skin matrices of every stored frame of `clip` at `rate`.
pub fn sample_clip(skeleton: &Skeleton, clip: &SourceClip, rate: f32) -> Vec<Vec<Mat4>> {
    let count = frame_count(clip.duration, rate);
    (0..count)
        .map(|frame| {
            let time = frame_time(clip.duration, count, frame as f32);
            skin_matrices(skeleton, Some(clip), time)
        })
        .collect()
}

/// Most vertices the rate search skins per time; a spread subset bounds its
/// cost on dense meshes, and the final report measures every vertex.
const RATE_SEARCH_VERTICES: usize = 4096;

/// Largest distance, over a spread subset of the vertices and every
/// mid-point between stored frames (where it peaks), between exact
/// four-influence skinning and skinning with the two neighbouring frames'
/// matrices blended linearly, as the runtime blends them.
pub fn interpolation_error(
    skeleton: &Skeleton,
    clip: &SourceClip,
    frames: &[Vec<Mat4>],
    positions: &[Vec3],
    influences: &[Influences],
) -> f32 {
    let stride = positions.len().div_ceil(RATE_SEARCH_VERTICES).max(1);
    let count = frames.len() as u32;
    let mut worst = 0.0f32;
    for (index, pair) in frames.windows(2).enumerate() {
        let time = frame_time(clip.duration, count, index as f32 + 0.5);
        let exact = skin_matrices(skeleton, Some(clip), time);
        let blended: Vec<Mat4> = pair[0]
            .iter()
            .zip(&pair[1])
            .map(|(a, b)| (*a + *b) * 0.5)
            .collect();
        for (position, influence) in positions.iter().zip(influences).step_by(stride) {
            let reference = skin_exact(&exact, influence, *position);
            let approximate = skin_exact(&blended, influence, *position);
            worst = worst.max(reference.distance(approximate));
        }
    }
    worst
}

/// The chosen rate of one clip and its frames.
pub struct ClipSampling {
    /// Frames per second actually stored.
    pub rate: f32,
    /// Exact skin matrices of every stored frame.
    pub frames: Vec<Vec<Mat4>>,
    /// [`interpolation_error`] at that rate.
    pub interpolation_error: f32,
}

/// The clip's key rate when every key time lies on one grid (exporters bake
/// clips at 24 or 30 keys per second): the inverse of the grid step.
fn key_rate(clip: &SourceClip) -> Option<f32> {
    let mut times: Vec<f32> = clip
        .channels
        .iter()
        .flat_map(|channel| channel.times.iter().map(|&time| time - clip.start))
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup_by(|a, b| (*a - *b).abs() < 1e-5);
    let step = times
        .windows(2)
        .map(|pair| pair[1] - pair[0])
        .fold(f32::INFINITY, f32::min);
    let on_grid = |time: f32| ((time / step) - (time / step).round()).abs() < 1e-2;
    (step.is_finite() && step > 0.0 && times.iter().all(|&time| on_grid(time))).then(|| 1.0 / step)
}

/// Samples `clip` at `base_rate`, raising the rate until frame interpolation
/// costs at most `bound` (model units) or the rate reaches `max_rate`.
///
/// Between keys a LINEAR clip moves smoothly, but at each key its motion
/// kinks; frames that miss the keys cut the corners, an error that falls only
/// linearly with the rate. So when the keys lie on a grid, the candidates are
/// the multiples of the key rate (frames land on every key), tried in order;
/// otherwise the rate grows geometrically, aiming at the bound by the
/// square law. If no candidate meets the bound, the one with the least error
/// is kept (the caller warns).
pub fn choose_rate(
    skeleton: &Skeleton,
    clip: &SourceClip,
    positions: &[Vec3],
    influences: &[Influences],
    base_rate: f32,
    max_rate: f32,
    bound: f32,
) -> ClipSampling {
    let measure = |rate: f32| {
        let frames = sample_clip(skeleton, clip, rate);
        let error = interpolation_error(skeleton, clip, &frames, positions, influences);
        log::debug!(
            "clip {:?}: {rate:.1} fps, frame interpolation error {error:.6}",
            clip.name
        );
        ClipSampling {
            rate,
            frames,
            interpolation_error: error,
        }
    };
    let first = measure(base_rate);
    if first.interpolation_error <= bound
        || clip.duration <= 0.0
        || !first.interpolation_error.is_finite()
    {
        return first;
    }
    let mut best = first;
    let consider = |candidate: ClipSampling, best: &mut ClipSampling| {
        let met = candidate.interpolation_error <= bound;
        if met || candidate.interpolation_error < best.interpolation_error {
            *best = candidate;
        }
        met
    };
    if let Some(keys) = key_rate(clip) {
        let multiples = (1..)
            .map(|k| keys * k as f32)
            .take_while(|&rate| rate <= max_rate)
            .filter(|&rate| (rate - base_rate).abs() > 1e-3 * base_rate);
        for rate in multiples {
            if consider(measure(rate), &mut best) {
                return best;
            }
        }
        return best;
    }
    let mut rate = base_rate;
    let mut error = best.interpolation_error;
    while rate < max_rate {
        rate = (rate * ((error / bound).sqrt() * 1.1).max(1.25)).min(max_rate);
        let candidate = measure(rate);
        error = candidate.interpolation_error;
        if consider(candidate, &mut best) {
            break;
        }
    }
    best
}
