//! A bounding sphere per clip, computed from the asset at load: what
//! occlusion culling tests a unit by. The asset's own sphere holds every
//! frame of every clip, a dying unit lying flat and a sword swung overhead
//! included: 2.48 m around a 1.85 m knight. Seen from the ground, such a
//! sphere reaches over the ranks in front of it, and its nearest point
//! lies a radius nearer than the unit's centre, so the depth pyramid hides
//! few units behind others. A unit plays one clip, or crossfades two; the
//! spheres of the clips it plays are half to two-thirds as wide.
//!
//! # Algorithm
//! 1. Per bone, the box (in bind space) of every LOD vertex that the bone
//!    moves (weight above 0), at the positions the GPU decodes.
//! 2. Per clip, the pose at every stored frame and halfway between
//!    frames, as the GPU samples it ([`sample_pose`]); each bone's box's
//!    eight corners through its skin matrix.
//! 3. The clip's sphere: the middle of the box of those corners, and the
//!    farthest of them from it, plus [`MARGIN`].
//!
//! Why it holds the unit: a skin matrix is affine, so it maps a bone's box
//! onto the hull of its transformed corners; a vertex is `w A v + (1 - w)
//! B v` for its two bones' matrices, so it lies in the hull of both bones'
//! corners. The matrix and quaternion encodings blend two frames' texels;
//! the matrices blend linearly, so a pose between two frames is a blend of
//! theirs; the quaternions are normalized after the blend, which bows the
//! path outwards by far less than [`MARGIN`] between the halfway samples.
//! A crossfade blends two clips' skinned positions linearly, so it lies in
//! the hull of both clips' spheres (the cull takes the sphere around
//! both). The dual quaternion encoding blends two bones as a screw motion,
//! outside that hull at a bent joint: its clips keep the asset's sphere, as
//! does a clip whose sphere would not be smaller.
//!
//! On the generated knight (asset sphere 2.48 m) the clips' radii are 1.23
//! (idle) to 1.73 m (die), 4-6 % over the sphere around the skinned
//! vertices themselves (`tests/tests/clip_bounds.rs` prints them), at a
//! cost of frames × bones × 8 points, not frames × vertices.

use super::skinning::{decode_position, sample_pose, texels_f32};
use super::{Asset, BoneEncoding, Clip};
use glam::{BVec3, Mat4, Vec3};

/// How much each clip's radius grows beyond the sampled poses', relative:
/// the normalized quaternion blend between samples and float rounding.
pub const MARGIN: f32 = 0.02;

/// A sphere in the model's space: `[x, y, z, radius]`.
pub type SphereXyzr = [f32; 4];

/// One sphere per clip of `asset`'s animation, in ANIM order; each is the
/// asset's sphere where no smaller one holds the clip (see the module doc).
/// Empty for a prop.
pub fn clip_spheres(asset: &Asset) -> Vec<SphereXyzr> {
    let Some(animation) = &asset.animation else {
        return Vec::new();
    };
    let bounds = &asset.bounds;
    let whole = [
        bounds.sphere_center[0],
        bounds.sphere_center[1],
        bounds.sphere_center[2],
        bounds.sphere_radius,
    ];
    if animation.encoding == BoneEncoding::DualQuatF32 {
        return vec![whole; animation.clips.len()];
    }
    let bones = bone_boxes(asset, animation.bone_count as usize);
    let texels = texels_f32(animation);
    animation
        .clips
        .iter()
        .map(|clip| {
            let poses = sample_times(clip).map(|time| sample_pose(animation, &texels, clip, time));
            match clip_sphere(&bones, poses) {
                Some(sphere) if sphere[3] < whole[3] => sphere,
                _ => whole,
            }
        })
        .collect()
}

/// Per bone, the corners of the box (in bind space) of the vertices it
/// moves; `None` for a bone that moves none.
fn bone_boxes(asset: &Asset, bone_count: usize) -> Vec<Option<[Vec3; 8]>> {
    let empty = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    let mut boxes = vec![empty; bone_count];
    for vertex in asset.lods.iter().flat_map(|lod| &lod.vertices) {
        let position = decode_position(&asset.bounds, vertex);
        let moved_by = [
            (vertex.bones[0], vertex.weight > 0),
            (vertex.bones[1], vertex.weight < 255),
        ];
        for (bone, moves) in moved_by {
            if let (true, Some((low, high))) = (moves, boxes.get_mut(usize::from(bone))) {
                *low = low.min(position);
                *high = high.max(position);
            }
        }
    }
    boxes
        .into_iter()
        .map(|(low, high)| {
            let corner =
                |i: usize| Vec3::select(BVec3::new(i & 1 != 0, i & 2 != 0, i & 4 != 0), high, low);
            low.cmple(high).all().then(|| std::array::from_fn(corner))
        })
        .collect()
}

/// The clip times sampled: every stored frame and halfway between each
/// two.
fn sample_times(clip: &Clip) -> impl Iterator<Item = f32> + '_ {
    let steps = 2 * clip.frame_count.max(1) - 1;
    (0..steps).map(move |step| {
        if steps == 1 {
            0.0
        } else {
            clip.duration * step as f32 / (steps - 1) as f32
        }
    })
}

/// The sphere around every bone's box in every pose, [`MARGIN`]
/// included; `None` when nothing is finite.
fn clip_sphere(
    bones: &[Option<[Vec3; 8]>],
    poses: impl Iterator<Item = Vec<Mat4>>,
) -> Option<SphereXyzr> {
    let mut corners: Vec<Vec3> = Vec::new();
    for pose in poses {
        for (corners_of, matrix) in bones.iter().zip(&pose) {
            if let Some(bind) = corners_of {
                corners.extend(bind.iter().map(|&corner| matrix.transform_point3(corner)));
            }
        }
    }
    let (low, high) = corners.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(low, high), &corner| (low.min(corner), high.max(corner)),
    );
    let centre = (low + high) * 0.5;
    let reach = corners
        .iter()
        .map(|c| c.distance(centre))
        .fold(0.0, f32::max);
    let radius = reach * (1.0 + MARGIN);
    (centre.is_finite() && radius.is_finite() && !corners.is_empty())
        .then_some([centre.x, centre.y, centre.z, radius])
}
