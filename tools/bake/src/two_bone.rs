//! Reduction of up to four influences per vertex to the two the runtime reads.
//!
//! - Naive: the two strongest influences, renormalized.
//! - Fitted: for each candidate pair (j, k) among the vertex's influences, and
//!   each single bone, the weight w minimizing
//!   `E(w) = sum_i |w * A_i p + (1 - w) * B_i p - T_i|^2` over every baked pose
//!   i, where `T_i` is the exact four-influence position. With
//!   `u_k = M_k p - T` and the Gram matrix `H[j][k] = sum_i u_j . u_k`,
//!   `E(w) = w^2 (H_jj - 2 H_jk + H_kk) - 2 w (H_kk - H_jk) + H_kk`, so the
//!   minimum is `w* = (H_kk - H_jk) / (H_jj - 2 H_jk + H_kk)`, clamped to [0, 1]
//!   and rounded to the 8 bits the vertex stores (E is a parabola, so the
//!   nearest step is the best one). The pair and weight of least E win.
//!
//! The Gram matrix is accumulated in f64 over displacements from the exact
//! position, which keeps the subtraction in E free of cancellation.
//!
//! - Fitted for dual quaternions ([`fit_dual_quat`]): the runtime blends the
//!   pair as dual quaternions, whose error is not quadratic in w, so w is
//!   searched numerically against the same exact targets.

use crate::import::Influences;
use glam::{Mat4, Vec3, Vec4};
use horde_asset::{skinning, BoneEncoding};

/// Two bones and the 8-bit weight of the first, as a vertex stores them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TwoBone {
    /// Bone indices.
    pub bones: [u16; 2],
    /// Weight of `bones[0]` in 0..=255; `bones[1]` gets the rest.
    pub weight: u8,
}

impl TwoBone {
    /// Skinned position under `pose`, with the 8-bit weight.
    pub fn skin(&self, pose: &[Mat4], position: Vec3) -> Vec3 {
        let weight = f32::from(self.weight) / 255.0;
        let blended =
            pose[self.bones[0] as usize] * weight + pose[self.bones[1] as usize] * (1.0 - weight);
        blended.transform_point3(position)
    }
}

/// Exact linear-blend skinning with all influences.
pub fn skin_exact(pose: &[Mat4], influences: &Influences, position: Vec3) -> Vec3 {
    let mut blended = Mat4::ZERO;
    for (&bone, &weight) in influences.bones.iter().zip(&influences.weights) {
        if weight > 0.0 {
            blended += pose[bone as usize] * weight;
        }
    }
    blended.transform_point3(position)
}

fn quantize(weight: f32) -> u8 {
    (weight.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// The two strongest influences, renormalized.
pub fn naive(influences: &Influences) -> TwoBone {
    let [w0, w1, ..] = influences.weights;
    let [b0, b1, ..] = influences.bones;
    if w1 <= 0.0 {
        return TwoBone {
            bones: [b0, b0],
            weight: 255,
        };
    }
    TwoBone {
        bones: [b0, b1],
        weight: quantize(w0 / (w0 + w1)),
    }
}

/// Least-squares bone pair and weight of one vertex over `poses`.
pub fn fit(influences: &Influences, position: Vec3, poses: &[Vec<Mat4>]) -> TwoBone {
    let count = influences.count();
    if count < 2 || poses.is_empty() {
        return naive(influences);
    }
    let mut gram = [[0.0f64; 4]; 4];
    let mut displacement = [Vec3::ZERO; 4];
    for pose in poses {
        let exact = skin_exact(pose, influences, position);
        for k in 0..count {
            displacement[k] = pose[influences.bones[k] as usize].transform_point3(position) - exact;
        }
        for j in 0..count {
            for k in j..count {
                gram[j][k] += f64::from(displacement[j].dot(displacement[k]));
            }
        }
    }
    let h = |j: usize, k: usize| if j <= k { gram[j][k] } else { gram[k][j] };
    let error = |j: usize, k: usize, w: f64| {
        let dd = h(j, j) - 2.0 * h(j, k) + h(k, k);
        let de = h(k, k) - h(j, k);
        w * w * dd - 2.0 * w * de + h(k, k)
    };
    let bone = |slot: usize| influences.bones[slot];
    let mut best = (
        error(0, 0, 1.0),
        TwoBone {
            bones: [bone(0), bone(0)],
            weight: 255,
        },
    );
    for j in 0..count {
        let single = error(j, j, 1.0);
        if single < best.0 {
            best = (
                single,
                TwoBone {
                    bones: [bone(j), bone(j)],
                    weight: 255,
                },
            );
        }
        for k in j + 1..count {
            let dd = h(j, j) - 2.0 * h(j, k) + h(k, k);
            let optimum = if dd > 0.0 {
                (h(k, k) - h(j, k)) / dd
            } else {
                1.0
            };
            let weight = quantize(optimum as f32);
            let candidate = error(j, k, f64::from(weight) / 255.0);
            if candidate < best.0 {
                best = (
                    candidate,
                    TwoBone {
                        bones: [bone(j), bone(k)],
                        weight,
                    },
                );
            }
        }
    }
    best.1
}

/// Most poses the dual-quaternion fit evaluates per vertex: its error is not
/// a parabola in w, so each candidate weight costs a pass over the poses.
const DUAL_QUAT_FIT_POSES: usize = 64;

/// Squared error of `w * A + (1 - w) * B` blended as dual quaternions
/// (pre-converted, B already in A's hemisphere) against `targets`.
fn dual_quat_error(
    a: &[(Vec4, Vec4)],
    b: &[(Vec4, Vec4)],
    position: Vec3,
    targets: &[Vec3],
    w: f32,
) -> f64 {
    a.iter()
        .zip(b)
        .zip(targets)
        .map(|((&(ar, ad), &(br, bd)), &target)| {
            let blended =
                skinning::matrix_of_dual_quat(ar * w + br * (1.0 - w), ad * w + bd * (1.0 - w));
            f64::from(blended.transform_point3(position).distance_squared(target))
        })
        .sum()
}

/// Least-squares bone pair and weight of one vertex when the runtime blends
/// the pair as dual quaternions: for each pair, a golden-section search of w
/// in [0, 1] over up to `DUAL_QUAT_FIT_POSES` evenly spread poses, then the
/// nearest 8-bit steps; single bones are candidates too.
pub fn fit_dual_quat(influences: &Influences, position: Vec3, poses: &[Vec<Mat4>]) -> TwoBone {
    let count = influences.count();
    if count < 2 || poses.is_empty() {
        return naive(influences);
    }
    let stride = poses.len().div_ceil(DUAL_QUAT_FIT_POSES).max(1);
    let sampled: Vec<&Vec<Mat4>> = poses.iter().step_by(stride).collect();
    let targets: Vec<Vec3> = sampled
        .iter()
        .map(|pose| skin_exact(pose, influences, position))
        .collect();
    let quats: Vec<Vec<(Vec4, Vec4)>> = (0..count)
        .map(|slot| {
            sampled
                .iter()
                .map(|pose| skinning::dual_quat_of(&pose[influences.bones[slot] as usize]))
                .collect()
        })
        .collect();
    let bone = |slot: usize| influences.bones[slot];
    let mut best = (f64::INFINITY, naive(influences));
    for j in 0..count {
        let single = dual_quat_error(&quats[j], &quats[j], position, &targets, 1.0);
        if single < best.0 {
            best = (
                single,
                TwoBone {
                    bones: [bone(j), bone(j)],
                    weight: 255,
                },
            );
        }
        for k in j + 1..count {
            let aligned: Vec<(Vec4, Vec4)> = quats[j]
                .iter()
                .zip(&quats[k])
                .map(|(&(ar, _), &(br, bd))| {
                    if ar.dot(br) < 0.0 {
                        (-br, -bd)
                    } else {
                        (br, bd)
                    }
                })
                .collect();
            let error = |w: f32| dual_quat_error(&quats[j], &aligned, position, &targets, w);
            let ratio = 0.5 * (5f32.sqrt() - 1.0);
            let (mut low, mut high) = (0.0f32, 1.0f32);
            for _ in 0..16 {
                let left = high - ratio * (high - low);
                let right = low + ratio * (high - low);
                if error(left) <= error(right) {
                    high = right;
                } else {
                    low = left;
                }
            }
            let centre = quantize(0.5 * (low + high));
            for weight in [centre.saturating_sub(1), centre, centre.saturating_add(1)] {
                let candidate = error(f32::from(weight) / 255.0);
                if candidate < best.0 {
                    best = (
                        candidate,
                        TwoBone {
                            bones: [bone(j), bone(k)],
                            weight,
                        },
                    );
                }
            }
        }
    }
    best.1
}

/// [`fit`] (or [`fit_dual_quat`] for the dual-quaternion encoding, whose
/// runtime blends the pair differently) for every vertex, spread over the
/// machine's cores.
pub fn fit_all(
    positions: &[Vec3],
    influences: &[Influences],
    poses: &[Vec<Mat4>],
    encoding: BoneEncoding,
) -> Vec<TwoBone> {
    let fit_one = match encoding {
        BoneEncoding::DualQuatF32 => fit_dual_quat,
        BoneEncoding::Mat3x4F32 | BoneEncoding::QuatF32 | BoneEncoding::QuatF16 => fit,
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let chunk = positions.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = positions
            .chunks(chunk)
            .zip(influences.chunks(chunk))
            .map(|(positions, influences)| {
                scope.spawn(move || {
                    positions
                        .iter()
                        .zip(influences)
                        .map(|(&position, influences)| fit_one(influences, position, poses))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}
