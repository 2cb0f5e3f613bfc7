//! Skin weights from distances to bone segments.
//!
//! Algorithm: a vertex bound `Smooth(joint)` considers that joint and its
//! neighbours in the hierarchy (parent and children; held props excluded). For
//! each candidate it measures the distance `d` from the vertex to the candidate's
//! bone segment (joint to tail, see [`Rig`]). With `d_min` the smallest of these,
//! a candidate's raw weight is `smoothstep(1 - (d - d_min) / blend_radius)`: a
//! vertex deep inside one limb sees every other bone more than `blend_radius`
//! further away and stays rigid, while a vertex near a joint sees both bones at
//! about the same distance and blends evenly. The four largest weights are kept,
//! weights under `MIN_WEIGHT` dropped, and the rest normalised so they sum to 1.
//!
//! Layout: per vertex four joint indices (u8, unused slots 0) and four f32
//! weights, sorted by decreasing weight (unused slots 0.0).

use glam::Vec3;

use super::rig::{Joint, Rig};
use super::shapes::{Binding, MeshData};

/// Influences smaller than this are dropped: they cost bandwidth and move nothing.
const MIN_WEIGHT: f32 = 0.02;

/// Per-vertex joint indices and weights, parallel to the mesh's vertices.
#[derive(Debug, Clone, Default)]
pub struct SkinWeights {
    pub joints: Vec<[u8; 4]>,
    pub weights: Vec<[f32; 4]>,
}

/// Computes weights for every vertex of `mesh` against `rig`'s bind pose.
pub fn skin_weights(rig: &Rig, mesh: &MeshData, blend_radius: f32) -> SkinWeights {
    let mut skin = SkinWeights::default();
    for (position, binding) in mesh.positions.iter().zip(&mesh.bindings) {
        let (joints, weights) = match *binding {
            Binding::Static => ([0; 4], [1.0, 0.0, 0.0, 0.0]),
            Binding::Rigid(joint) => ([joint.index() as u8, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            Binding::Smooth(joint) => blended(rig, *position, joint, blend_radius),
        };
        skin.joints.push(joints);
        skin.weights.push(weights);
    }
    skin
}

fn blended(rig: &Rig, position: Vec3, joint: Joint, blend_radius: f32) -> ([u8; 4], [f32; 4]) {
    let candidates: Vec<Joint> = std::iter::once(joint)
        .chain(joint.parent())
        .chain(joint.children())
        .filter(|candidate| !candidate.is_held_prop())
        .collect();
    let distances: Vec<f32> = candidates
        .iter()
        .map(|&candidate| {
            segment_distance(
                position,
                rig.positions[candidate.index()],
                rig.tails[candidate.index()],
            )
        })
        .collect();
    let nearest = distances.iter().copied().fold(f32::INFINITY, f32::min);
    let mut influences: Vec<(Joint, f32)> = candidates
        .iter()
        .zip(&distances)
        .map(|(&candidate, &distance)| {
            let closeness = (1.0 - (distance - nearest) / blend_radius).clamp(0.0, 1.0);
            (candidate, closeness * closeness * (3.0 - 2.0 * closeness))
        })
        .collect();
    // Heaviest first; ties broken by joint order so the result never depends on
    // the order candidates were listed in.
    influences.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    influences.truncate(4);
    let total: f32 = influences.iter().map(|influence| influence.1).sum();
    influences.retain(|influence| influence.1 / total >= MIN_WEIGHT);
    normalised(&influences)
}

/// Packs up to four influences, scaled to sum to 1. The first weight absorbs the
/// rounding so the f32 sum is 1 to within one ulp.
fn normalised(influences: &[(Joint, f32)]) -> ([u8; 4], [f32; 4]) {
    let total: f32 = influences.iter().map(|influence| influence.1).sum();
    let mut joints = [0u8; 4];
    let mut weights = [0f32; 4];
    for (slot, (joint, weight)) in influences.iter().enumerate() {
        joints[slot] = joint.index() as u8;
        weights[slot] = weight / total;
    }
    weights[0] = 1.0 - weights[1..].iter().sum::<f32>();
    (joints, weights)
}

/// Distance from `point` to the segment from `head` to `tail`.
fn segment_distance(point: Vec3, head: Vec3, tail: Vec3) -> f32 {
    let along = tail - head;
    let length_squared = along.length_squared();
    if length_squared < 1e-12 {
        return point.distance(head);
    }
    let t = ((point - head).dot(along) / length_squared).clamp(0.0, 1.0);
    point.distance(head + along * t)
}
