//! Exact pose evaluation: glTF channel interpolation, node hierarchy, skin
//! matrices. This is the reference every approximation is measured against.
//!
//! - Before its first key a channel holds the first value, after its last key the
//!   last one (glTF leaves this to the implementation; clamping is the common
//!   choice). Nodes without a channel keep their rest transform.
//! - LINEAR rotations use slerp along the shorter arc, as the spec asks; STEP
//!   holds the earlier key; CUBICSPLINE is the spec's Hermite form with tangents
//!   scaled by the key interval, rotations normalized afterwards.
//! - Skin matrix of bone j = global(joint j) * inverseBind[j]; the skinned mesh
//!   node's transform plays no part.

use crate::import::{Channel, Interp, Skeleton, SourceClip, Target};
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
        ((duration * rate - 1e-3).ceil().max(1.0) as u32) + 1
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
