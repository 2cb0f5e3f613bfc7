//! Bone pose encodings and the bone texture.
//!
//! - `mat3x4`: the first three rows of the skin matrix, exact in f32.
//! - `quat32` / `quat16`: the matrix split into rotation, uniform scale and
//!   translation. The uniform scale is the signed cube root of the 3x3
//!   determinant (a mirror becomes a negative scale with a proper rotation).
//!   Non-uniform scale cannot be represented: [`max_scale_skew`] measures it so
//!   the bake can fall back to mat3x4.
//! - `dualquat`: the unit dual quaternion of a rigid pose; poses with scale
//!   fall back to mat3x4 ([`scale_deviation`] measures it).
//! - Neighbouring frames of a clip keep their quaternions in one hemisphere
//!   (q and -q are the same rotation), so the shader's per-texel mix between
//!   frames takes the short way round.
//! - The texture packs clips one after another, frame by frame, bone by bone;
//!   its height is the texel count divided by the width, rounded up.

use crate::BakeError;
use glam::{Mat3, Mat4, Quat, Vec4};
use horde_asset::BoneEncoding;

/// Rotation and uniform scale of a skin matrix.
fn rotation_and_scale(matrix: &Mat4) -> (Quat, f32) {
    let linear = Mat3::from_mat4(*matrix);
    let scale = linear.determinant().cbrt();
    if scale == 0.0 || !scale.is_finite() {
        return (Quat::IDENTITY, 0.0);
    }
    (
        Quat::from_mat3(&orthonormalize(linear * (1.0 / scale))),
        scale,
    )
}

/// Nearest rotation to an almost-orthonormal matrix (Gram-Schmidt), so that
/// small shears do not produce a non-unit quaternion.
fn orthonormalize(matrix: Mat3) -> Mat3 {
    let x = matrix.x_axis.normalize_or(glam::Vec3::X);
    let y = (matrix.y_axis - x * x.dot(matrix.y_axis)).normalize_or(glam::Vec3::Y);
    Mat3::from_cols(x, y, x.cross(y))
}

/// Largest ratio, minus one, between the column lengths of a skin matrix's 3x3
/// part: 0 for uniform scale.
pub fn max_scale_skew(matrix: &Mat4) -> f32 {
    let lengths =
        [matrix.x_axis, matrix.y_axis, matrix.z_axis].map(|axis| axis.truncate().length());
    let max = lengths.iter().copied().fold(0.0, f32::max);
    let min = lengths.iter().copied().fold(f32::INFINITY, f32::min);
    if min <= 0.0 {
        f32::INFINITY
    } else {
        max / min - 1.0
    }
}

/// Rounds every component through f16, as the RGBA16F texture stores it.
fn through_f16(texel: Vec4) -> Vec4 {
    Vec4::from_array(texel.to_array().map(|c| half::f16::from_f32(c).to_f32()))
}

/// The texels of one bone pose. `previous` is the same bone's quaternion in the
/// previous frame of the clip, for hemisphere continuity; it is updated.
pub fn encode_bone(
    encoding: BoneEncoding,
    matrix: &Mat4,
    previous: &mut Option<Quat>,
) -> Vec<Vec4> {
    match encoding {
        BoneEncoding::Mat3x4F32 => {
            let rows = matrix.transpose();
            vec![rows.x_axis, rows.y_axis, rows.z_axis]
        }
        BoneEncoding::QuatF32 | BoneEncoding::QuatF16 => {
            let (mut rotation, scale) = rotation_and_scale(matrix);
            if previous.is_some_and(|previous| previous.dot(rotation) < 0.0) {
                rotation = -rotation;
            }
            *previous = Some(rotation);
            let texels = vec![Vec4::from(rotation), matrix.w_axis.truncate().extend(scale)];
            if encoding == BoneEncoding::QuatF16 {
                texels.into_iter().map(through_f16).collect()
            } else {
                texels
            }
        }
        BoneEncoding::DualQuatF32 => {
            let (mut real, mut dual) = horde_asset::skinning::dual_quat_of(matrix);
            if previous.is_some_and(|previous| Vec4::from(previous).dot(real) < 0.0) {
                real = -real;
                dual = -dual;
            }
            *previous = Some(Quat::from_vec4(real));
            vec![real, dual]
        }
    }
}

/// Largest deviation of a skin matrix's uniform scale (cube root of the 3x3
/// determinant) from 1: dual quaternions store rigid poses only.
pub fn scale_deviation(matrix: &Mat4) -> f32 {
    (Mat3::from_mat4(*matrix).determinant().cbrt() - 1.0).abs()
}

/// Texels of every frame of one clip: frame by frame, bone by bone.
pub fn encode_clip(encoding: BoneEncoding, frames: &[Vec<Mat4>]) -> Vec<Vec4> {
    let bone_count = frames.first().map_or(0, Vec::len);
    let mut previous = vec![None; bone_count];
    let mut texels = Vec::with_capacity(frames.len() * bone_count * 3);
    for frame in frames {
        for (matrix, previous) in frame.iter().zip(&mut previous) {
            texels.extend(encode_bone(encoding, matrix, previous));
        }
    }
    texels
}

/// Texture height for `texel_count` texels at `width`, refused above `max_height`.
pub fn texture_height(texel_count: usize, width: u32, max_height: u32) -> Result<u32, BakeError> {
    let height = texel_count.div_ceil(width as usize).max(1);
    if height > max_height as usize {
        return Err(BakeError::Options(format!(
            "bone texture needs {height} rows of {width} texels, more than the {max_height} \
             the mobile tier allows; pass a wider --texture-width, a lower --rate or fewer clips"
        )));
    }
    Ok(height as u32)
}

/// Raw texture bytes: RGBA32F or RGBA16F, zero-padded to `width * height`.
pub fn texture_bytes(encoding: BoneEncoding, texels: &[Vec4], width: u32, height: u32) -> Vec<u8> {
    let total = width as usize * height as usize;
    let mut bytes = Vec::with_capacity(total * encoding.texel_size());
    for texel in texels
        .iter()
        .chain(std::iter::repeat_n(&Vec4::ZERO, total - texels.len()))
    {
        for component in texel.to_array() {
            match encoding {
                BoneEncoding::Mat3x4F32 | BoneEncoding::QuatF32 | BoneEncoding::DualQuatF32 => {
                    bytes.extend_from_slice(&component.to_le_bytes());
                }
                BoneEncoding::QuatF16 => {
                    bytes.extend_from_slice(&half::f16::from_f32(component).to_le_bytes());
                }
            }
        }
    }
    bytes
}
