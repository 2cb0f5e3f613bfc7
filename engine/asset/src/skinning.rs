//! CPU twin of the vertex shader's bone fetch and skinning, for tests and for
//! the bake's error report. It reads the asset exactly as the GPU does:
//!
//! 1. Clip time: looping clips wrap modulo the duration, others clamp to it.
//! 2. Frame lookup: `f = t / D * (N - 1)`, `i0 = floor(f)`, `i1 = min(i0 + 1, N - 1)`,
//!    blend `fract(f)`.
//! 3. Per bone, each texel of frame i0 is mixed with the same texel of frame i1;
//!    a quaternion is normalized after the mix.
//! 4. The two bone matrices of a vertex are blended linearly by `weight / 255`;
//!    the dual-quaternion encoding blends the two poses as dual quaternions
//!    (each normalized after the frame blend, the second taken in the first's
//!    hemisphere) and normalizes the result.
//! 5. Positions decode as `quant_min + unorm16 * (quant_max - quant_min)`.
//! 6. Normals: each bone's inverse-transpose direction, normalized, blended
//!    by the weight and normalized again ([`skin_normal`]).

use super::{Animation, BoneEncoding, Bounds, Clip, PackedVertex};
use glam::{Mat4, Quat, Vec3, Vec4};

/// Every texel of the bone texture as four f32 values.
pub fn texels_f32(animation: &Animation) -> Vec<Vec4> {
    match animation.encoding {
        BoneEncoding::Mat3x4F32 | BoneEncoding::QuatF32 | BoneEncoding::DualQuatF32 => animation
            .texels
            .chunks_exact(16)
            .map(|texel| {
                Vec4::from_array(std::array::from_fn(|c| {
                    let word = [
                        texel[c * 4],
                        texel[c * 4 + 1],
                        texel[c * 4 + 2],
                        texel[c * 4 + 3],
                    ];
                    f32::from_le_bytes(word)
                }))
            })
            .collect(),
        BoneEncoding::QuatF16 => animation
            .texels
            .chunks_exact(8)
            .map(|texel| {
                Vec4::from_array(std::array::from_fn(|c| {
                    half::f16::from_le_bytes([texel[c * 2], texel[c * 2 + 1]]).to_f32()
                }))
            })
            .collect(),
    }
}

/// Linear texel index of (frame, bone, row) of `clip`.
pub fn texel_index(animation: &Animation, clip: &Clip, frame: u32, bone: u32, row: u32) -> usize {
    let texels_per_bone = animation.encoding.texels_per_bone();
    clip.first_texel as usize
        + ((frame * animation.bone_count + bone) * texels_per_bone + row) as usize
}

/// Frames to blend and the blend factor at clip time `time`.
pub fn frame_lookup(clip: &Clip, time: f32) -> (u32, u32, f32) {
    if clip.frame_count <= 1 || clip.duration <= 0.0 {
        return (0, 0, 0.0);
    }
    let time = if clip.looping {
        time.rem_euclid(clip.duration)
    } else {
        time.clamp(0.0, clip.duration)
    };
    let last = clip.frame_count - 1;
    let frame = time / clip.duration * last as f32;
    let first = (frame.floor() as u32).min(last);
    let second = (first + 1).min(last);
    (first, second, frame - first as f32)
}

/// The 4x4 skin matrix one bone's texels encode.
pub fn decode_bone(encoding: BoneEncoding, texels: &[Vec4]) -> Mat4 {
    match encoding {
        BoneEncoding::Mat3x4F32 => Mat4::from_cols_array_2d(&[
            texels[0].into(),
            texels[1].into(),
            texels[2].into(),
            [0.0, 0.0, 0.0, 1.0],
        ])
        .transpose(),
        BoneEncoding::QuatF32 | BoneEncoding::QuatF16 => {
            let rotation = Quat::from_vec4(texels[0].normalize_or(Vec4::W));
            Mat4::from_scale_rotation_translation(
                Vec3::splat(texels[1].w),
                rotation,
                texels[1].truncate(),
            )
        }
        BoneEncoding::DualQuatF32 => matrix_of_dual_quat(texels[0], texels[1]),
    }
}

/// Unit dual quaternion (real, dual) of a rigid matrix; any scale is dropped.
pub fn dual_quat_of(matrix: &Mat4) -> (Vec4, Vec4) {
    let (_, rotation, translation) = matrix.to_scale_rotation_translation();
    let real = rotation.normalize();
    let dual = Quat::from_xyzw(translation.x, translation.y, translation.z, 0.0) * real * 0.5;
    (Vec4::from(real), Vec4::from(dual))
}

/// Rigid matrix of a dual quaternion, normalized by its real part's length
/// (blends of unit dual quaternions are not unit): rotation `r`, translation
/// `2 d r*`.
pub fn matrix_of_dual_quat(real: Vec4, dual: Vec4) -> Mat4 {
    let length = real.length();
    if length <= 0.0 || !length.is_finite() {
        return Mat4::IDENTITY;
    }
    let (r, d) = (real / length, dual / length);
    let (rv, dv) = (r.truncate(), d.truncate());
    let translation = 2.0 * (r.w * dv - d.w * rv + rv.cross(dv));
    Mat4::from_rotation_translation(Quat::from_vec4(r), translation)
}

/// Dual-quaternion linear blend of weighted rigid poses, each taken in the
/// hemisphere of the first so the blend turns the short way.
pub fn blend_dual_quat(bones: &[(Mat4, f32)]) -> Mat4 {
    let Some(first) = bones.first() else {
        return Mat4::IDENTITY;
    };
    let (pivot, _) = dual_quat_of(&first.0);
    let (real, dual) = bones.iter().fold(
        (Vec4::ZERO, Vec4::ZERO),
        |(real, dual), (matrix, weight)| {
            let (r, d) = dual_quat_of(matrix);
            let signed = if r.dot(pivot) < 0.0 { -weight } else { *weight };
            (real + r * signed, dual + d * signed)
        },
    );
    matrix_of_dual_quat(real, dual)
}

/// The matrix a vertex's two bones blend to: linearly for the matrix and
/// quaternion encodings, as dual quaternions for [`BoneEncoding::DualQuatF32`].
pub fn blend_two(encoding: BoneEncoding, first: &Mat4, second: &Mat4, weight: f32) -> Mat4 {
    match encoding {
        BoneEncoding::DualQuatF32 => blend_dual_quat(&[(*first, weight), (*second, 1.0 - weight)]),
        BoneEncoding::Mat3x4F32 | BoneEncoding::QuatF32 | BoneEncoding::QuatF16 => {
            *first * weight + *second * (1.0 - weight)
        }
    }
}

/// Skin matrices of every bone of `clip` at `time`, blended between frames the
/// way the shader does.
pub fn sample_pose(animation: &Animation, texels: &[Vec4], clip: &Clip, time: f32) -> Vec<Mat4> {
    let (first, second, blend) = frame_lookup(clip, time);
    let rows = animation.encoding.texels_per_bone();
    (0..animation.bone_count)
        .map(|bone| {
            let mixed: Vec<Vec4> = (0..rows)
                .map(|row| {
                    let a = texels[texel_index(animation, clip, first, bone, row)];
                    let b = texels[texel_index(animation, clip, second, bone, row)];
                    a.lerp(b, blend)
                })
                .collect();
            decode_bone(animation.encoding, &mixed)
        })
        .collect()
}

/// Model-space position of a quantized vertex before skinning.
pub fn decode_position(bounds: &Bounds, vertex: &PackedVertex) -> Vec3 {
    let min = Vec3::from(bounds.quant_min);
    let extent = Vec3::from(bounds.quant_max) - min;
    let unorm = Vec3::new(
        f32::from(vertex.position[0]),
        f32::from(vertex.position[1]),
        f32::from(vertex.position[2]),
    ) / 65535.0;
    min + unorm * extent
}

/// Skinned position of a quantized vertex under `pose`, its two bones blended
/// as `encoding` blends them.
pub fn skin_position(
    encoding: BoneEncoding,
    bounds: &Bounds,
    vertex: &PackedVertex,
    pose: &[Mat4],
) -> Vec3 {
    let position = decode_position(bounds, vertex);
    let weight = f32::from(vertex.weight) / 255.0;
    let first = pose
        .get(vertex.bones[0] as usize)
        .copied()
        .unwrap_or(Mat4::IDENTITY);
    let second = pose
        .get(vertex.bones[1] as usize)
        .copied()
        .unwrap_or(Mat4::IDENTITY);
    blend_two(encoding, &first, &second, weight).transform_point3(position)
}

/// Direction of a normal under one skin matrix: the inverse transpose of its
/// linear part (right under non-uniform scale, flipped by a mirror), unit
/// length. Built from the rows' cross products, as the shader does, so it
/// needs no matrix inverse.
pub fn bone_normal(matrix: &Mat4, normal: Vec3) -> Vec3 {
    let rows = matrix.transpose();
    let [r0, r1, r2] = [rows.x_axis, rows.y_axis, rows.z_axis].map(Vec4::truncate);
    let c0 = r1.cross(r2);
    let n = Vec3::new(
        c0.dot(normal),
        r2.cross(r0).dot(normal),
        r0.cross(r1).dot(normal),
    );
    let oriented = if r0.dot(c0) < 0.0 { -n } else { n };
    oriented.normalize_or(Vec3::Y)
}

/// Skinned unit normal of a vertex under `pose`, as the shader shades it for
/// the matrix and quaternion encodings: each bone's [`bone_normal`], blended
/// by the 8-bit weight, normalized (by the fragment shader: the vertex shader
/// leaves the blend as it is). Dual quaternions rotate the normal by the
/// blended rotation: `bone_normal` of [`blend_two`]'s matrix.
pub fn skin_normal(vertex: &PackedVertex, normal: Vec3, pose: &[Mat4]) -> Vec3 {
    let weight = f32::from(vertex.weight) / 255.0;
    let bone = |index: u8| pose.get(index as usize).copied().unwrap_or(Mat4::IDENTITY);
    let first = bone_normal(&bone(vertex.bones[0]), normal);
    if vertex.weight == 255 {
        return first;
    }
    let second = bone_normal(&bone(vertex.bones[1]), normal);
    (first * weight + second * (1.0 - weight)).normalize_or(Vec3::Y)
}
