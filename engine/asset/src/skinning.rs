//! CPU twin of the vertex shader's bone fetch and skinning, for tests and for
//! the bake's error report. It reads the asset exactly as the GPU does:
//!
//! 1. Clip time: looping clips wrap modulo the duration, others clamp to it.
//! 2. Frame lookup: `f = t / D * (N - 1)`, `i0 = floor(f)`, `i1 = min(i0 + 1, N - 1)`,
//!    blend `fract(f)`.
//! 3. Per bone, each texel of frame i0 is mixed with the same texel of frame i1;
//!    a quaternion is normalized after the mix.
//! 4. The two bone matrices of a vertex are blended linearly by `weight / 255`.
//! 5. Positions decode as `quant_min + unorm16 * (quant_max - quant_min)`.

use super::{Animation, BoneEncoding, Bounds, Clip, PackedVertex};
use glam::{Mat4, Quat, Vec3, Vec4};

/// Every texel of the bone texture as four f32 values.
pub fn texels_f32(animation: &Animation) -> Vec<Vec4> {
    match animation.encoding {
        BoneEncoding::Mat3x4F32 | BoneEncoding::QuatF32 => animation
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

/// Skinned position of a quantized vertex under `pose`.
pub fn skin_position(bounds: &Bounds, vertex: &PackedVertex, pose: &[Mat4]) -> Vec3 {
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
    (first * weight + second * (1.0 - weight)).transform_point3(position)
}
