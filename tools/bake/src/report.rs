//! The error report and the conservative bounding sphere.
//!
//! Reference: exact four-influence linear blend skinning of the source vertices
//! with poses evaluated from the glTF channels at the exact time. Times: every
//! stored frame and every mid-point between frames (the worst case for frame
//! interpolation), for every clip; a looping clip skips its last frame time,
//! which the runtime wraps to frame 0. Each approximation is measured alone
//! (the rest exact) and then all together, exactly as the runtime reads the file
//! (`horde_asset::skinning`), on the LOD 0 vertices. The dual-quaternion
//! statistic blends the exact influences as dual quaternions; with that
//! encoding stored, the two-bone statistics blend their pair the same way.
//!
//! The sphere holds every exact and every runtime position at every sampled
//! time: it circumscribes their bounding box, grown by 0.5% for the curvature of
//! normalized quaternion blends between samples (mat3x4 blends are linear, so
//! their positions stay inside the hull of the sampled ones).

use crate::encode::encode_bone;
use crate::import::{SourceClip, SourceModel};
use crate::lod::BuiltLod;
use crate::sample::{frame_time, skin_matrices};
use crate::two_bone::TwoBone;
use glam::{Mat4, Vec3, Vec4};
use horde_asset::{skinning, Animation, BoneEncoding, Bounds, ErrorStat};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Statistics in report order.
const NAIVE: usize = 0;
const FITTED: usize = 1;
const ENCODING: usize = 2; // + index in BoneEncoding::ALL
const FRAME_RATE: usize = ENCODING + BoneEncoding::ALL.len();
const TOTAL: usize = FRAME_RATE + 1;
const STAT_COUNT: usize = TOTAL + 1;

/// Running sum of squares and maximum of one statistic.
#[derive(Clone, Copy, Default)]
struct Accumulator {
    sum_squares: f64,
    max: f32,
    count: u64,
}

impl Accumulator {
    fn add(&mut self, error: f32) {
        self.sum_squares += f64::from(error) * f64::from(error);
        self.max = self.max.max(error);
        self.count += 1;
    }

    fn merge(&mut self, other: &Accumulator) {
        self.sum_squares += other.sum_squares;
        self.max = self.max.max(other.max);
        self.count += other.count;
    }

    fn stat(&self) -> ErrorStat {
        let rms = if self.count == 0 {
            0.0
        } else {
            (self.sum_squares / self.count as f64).sqrt()
        };
        ErrorStat {
            max: self.max,
            rms: rms as f32,
        }
    }
}

/// Accumulators of one worker.
#[derive(Clone)]
struct Partial {
    stats: [Accumulator; STAT_COUNT],
    min: Vec3,
    max: Vec3,
    time_samples: u32,
}

impl Partial {
    fn new() -> Self {
        Self {
            stats: [Accumulator::default(); STAT_COUNT],
            min: Vec3::splat(f32::INFINITY),
            max: Vec3::splat(f32::NEG_INFINITY),
            time_samples: 0,
        }
    }

    fn include(&mut self, point: Vec3) {
        self.min = self.min.min(point);
        self.max = self.max.max(point);
    }
}

/// What the report measures.
pub struct ReportInput<'a> {
    /// Source mesh and skeleton.
    pub model: &'a SourceModel,
    /// Selected clips, in texture order.
    pub clips: &'a [SourceClip],
    /// Exact skin matrices of every stored frame of every clip.
    pub frames: &'a [Vec<Vec<Mat4>>],
    /// Naive two-bone reduction per source vertex.
    pub naive: &'a [TwoBone],
    /// Fitted two-bone reduction per source vertex.
    pub fitted: &'a [TwoBone],
    /// The baked animation as it will be written.
    pub animation: &'a Animation,
    /// LOD 0 and its source vertex map.
    pub lod0: &'a BuiltLod,
    /// Quantization bounds of LOD 0.
    pub bounds: &'a Bounds,
}

/// The measured statistics, in report order, and the bounding sphere.
pub struct Measured {
    /// naive, fitted, mat3x4, quat32, quat16, dual quaternion, frame rate,
    /// total.
    pub stats: [ErrorStat; STAT_COUNT],
    /// Time samples covered.
    pub time_samples: u32,
    /// Sphere centre.
    pub sphere_center: Vec3,
    /// Sphere radius.
    pub sphere_radius: f32,
}

fn decode_through(encoding: BoneEncoding, pose: &[Mat4]) -> Vec<Mat4> {
    pose.iter()
        .map(|matrix| skinning::decode_bone(encoding, &encode_bone(encoding, matrix, &mut None)))
        .collect()
}

fn measure_clip(
    input: &ReportInput<'_>,
    texels: &[Vec4],
    clip_index: usize,
    partial: &mut Partial,
) {
    let clip = &input.clips[clip_index];
    let frames = &input.frames[clip_index];
    let stored = &input.animation.clips[clip_index];
    let frame_count = frames.len();
    let last_frame = if stored.looping && frame_count > 1 {
        frame_count - 1
    } else {
        frame_count
    };
    let mut times: Vec<(f32, Option<usize>)> = (0..last_frame)
        .map(|frame| {
            (
                frame_time(clip.duration, frame_count as u32, frame as f32),
                Some(frame),
            )
        })
        .collect();
    times.extend((0..frame_count.saturating_sub(1)).map(|frame| {
        (
            frame_time(clip.duration, frame_count as u32, frame as f32 + 0.5),
            None,
        )
    }));
    let model = input.model;
    let encoding = input.animation.encoding;
    let mut transformed = [Vec3::ZERO; 4];
    for (time, frame) in times {
        partial.time_samples += 1;
        let exact = match frame {
            Some(frame) => frames[frame].clone(),
            None => skin_matrices(&model.skeleton, Some(clip), time),
        };
        let interpolated: Vec<Mat4> = match frame {
            Some(_) => exact.clone(),
            None => {
                let (first, _, blend) = skinning::frame_lookup(stored, time);
                let next = (first as usize + 1).min(frame_count - 1);
                frames[first as usize]
                    .iter()
                    .zip(&frames[next])
                    .map(|(a, b)| *a * (1.0 - blend) + *b * blend)
                    .collect()
            }
        };
        let encoded = BoneEncoding::ALL.map(|encoding| decode_through(encoding, &exact));
        let runtime = skinning::sample_pose(input.animation, texels, stored, time);
        for (lod_vertex, &source) in input.lod0.source_vertex.iter().enumerate() {
            let source = source as usize;
            let position = model.positions[source];
            let influences = &model.influences[source];
            let count = influences.count().max(1);
            for slot in 0..count {
                transformed[slot] =
                    exact[influences.bones[slot] as usize].transform_point3(position);
            }
            let blend = |points: &[Vec3; 4]| {
                (0..count).fold(Vec3::ZERO, |sum, slot| {
                    sum + points[slot] * influences.weights[slot]
                })
            };
            let reference = blend(&transformed);
            partial.include(reference);
            let two_bone = |reduction: &TwoBone| {
                let weight = f32::from(reduction.weight) / 255.0;
                if encoding == BoneEncoding::DualQuatF32 {
                    let [first, second] = reduction.bones.map(|bone| exact[bone as usize]);
                    return skinning::blend_two(encoding, &first, &second, weight)
                        .transform_point3(position);
                }
                let point = |bone: u16| {
                    let slot = influences.bones[..count].iter().position(|&b| b == bone);
                    slot.map_or_else(
                        || exact[bone as usize].transform_point3(position),
                        |s| transformed[s],
                    )
                };
                point(reduction.bones[0]) * weight + point(reduction.bones[1]) * (1.0 - weight)
            };
            partial.stats[NAIVE].add(two_bone(&input.naive[source]).distance(reference));
            partial.stats[FITTED].add(two_bone(&input.fitted[source]).distance(reference));
            let skin_with = |pose: &[Mat4]| {
                let mut points = [Vec3::ZERO; 4];
                for slot in 0..count {
                    points[slot] = pose[influences.bones[slot] as usize].transform_point3(position);
                }
                blend(&points)
            };
            for (offset, (pose, stored_as)) in encoded.iter().zip(BoneEncoding::ALL).enumerate() {
                let skinned = if stored_as == BoneEncoding::DualQuatF32 {
                    let weighted: Vec<(Mat4, f32)> = (0..count)
                        .map(|slot| {
                            (
                                pose[influences.bones[slot] as usize],
                                influences.weights[slot],
                            )
                        })
                        .collect();
                    skinning::blend_dual_quat(&weighted).transform_point3(position)
                } else {
                    skin_with(pose)
                };
                partial.stats[ENCODING + offset].add(skinned.distance(reference));
            }
            partial.stats[FRAME_RATE].add(skin_with(&interpolated).distance(reference));
            let vertex = &input.lod0.lod.vertices[lod_vertex];
            let actual = skinning::skin_position(encoding, input.bounds, vertex, &runtime);
            partial.include(actual);
            partial.stats[TOTAL].add(actual.distance(reference));
        }
    }
}

/// Measures every statistic over every clip, spread over the machine's cores.
pub fn measure(input: &ReportInput<'_>) -> Measured {
    let texels = skinning::texels_f32(input.animation);
    let next_clip = AtomicUsize::new(0);
    let merged = Mutex::new(Partial::new());
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(input.clips.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut partial = Partial::new();
                loop {
                    let clip = next_clip.fetch_add(1, Ordering::Relaxed);
                    if clip >= input.clips.len() {
                        break;
                    }
                    measure_clip(input, &texels, clip, &mut partial);
                }
                let mut total = merged
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                for (sum, part) in total.stats.iter_mut().zip(&partial.stats) {
                    sum.merge(part);
                }
                total.min = total.min.min(partial.min);
                total.max = total.max.max(partial.max);
                total.time_samples += partial.time_samples;
            });
        }
    });
    let total = merged
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let center = (total.min + total.max) * 0.5;
    let radius = (total.max - total.min).length() * 0.5 * 1.005;
    Measured {
        stats: total.stats.map(|accumulator| accumulator.stat()),
        time_samples: total.time_samples,
        sphere_center: if center.is_finite() {
            center
        } else {
            Vec3::ZERO
        },
        sphere_radius: if radius.is_finite() { radius } else { 0.0 },
    }
}
