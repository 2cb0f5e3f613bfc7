//! horde-bake: skinned or static glTF 2.0 to a `.horde` crowd asset, and the
//! procedural content generator ([`gen`]) that writes the default armies as glTF.
//! Pure CPU: this crate links no Vulkan and no window system, so the offline
//! tools build and test without a GPU stack.
//!
//! Pipeline of a unit ([`bake_unit`]):
//! 1. [`import`]: the character's skin, meshes, rigid parts, materials and
//!    clips, plus the clips of animation libraries bound by node name.
//! 2. Clip selection and renaming, then [`sample`]: exact skin matrices at
//!    `ceil(D * rate) + 1` evenly spaced frames per clip, both ends included,
//!    each clip's rate raised from the base until frame interpolation costs
//!    at most `max_interp_error` of the rest-pose height.
//! 3. [`two_bone`]: naive and least-squares two-bone reductions over every
//!    baked frame; the chosen one goes into the vertices.
//! 4. [`lod`]: meshopt LODs, optimized and quantized.
//! 5. [`encode`]: the bone texture in the chosen encoding (quaternion encodings
//!    fall back to mat3x4 when a pose has non-uniform scale).
//! 6. [`report`]: error statistics against exact skinning and the conservative
//!    bounding sphere.
//! 7. [`ground_speed`]: each clip's walking speed from its baked poses, so the
//!    runtime can match playback to the unit's velocity.
//! 8. [`impostor`]: the animated impostor, the unit's last LOD, rendered on
//!    the CPU from 64 views at 8 frames of each clip a distant crowd plays.
//!
//! A prop ([`bake_prop`]) skips 2, 3 and 5 to 8: one implicit bone,
//! world-space vertices, a bounding sphere over the mesh; its LODs end with
//! a box per horizontal slab ([`silhouette`]).
//!
//! Every file the tools write goes through [`output`], which never damages
//! what is at the path and never leaves a temporary file behind.

pub mod cache;
pub mod encode;
#[doc(hidden)]
pub mod fuzzing;
pub mod gen;
pub mod ground_speed;
pub mod import;
pub mod impostor;
pub mod inspect;
pub mod lod;
mod options;
pub mod output;
pub mod proxy;
pub mod report;
pub mod sample;
pub mod silhouette;
pub mod source;
pub mod two_bone;

use glam::{Mat4, Vec3};
use horde_asset::{
    Animation, Asset, AssetKind, BoneEncoding, Bounds, Clip, ErrorReport, ErrorStat,
};
use import::{SourceClip, SourceModel};
use std::path::Path;
use two_bone::TwoBone;

use options::{asset_name, check_options};
pub use options::{BakeOptions, Baked, ClipSelection, Progress, TwoBoneMethod};

/// Why a bake failed. Every variant names the file or option at fault.
#[derive(Debug, thiserror::Error)]
pub enum BakeError {
    /// An input file is unreadable or invalid.
    #[error("{path}: {message}")]
    Input {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The options cannot be satisfied.
    #[error("{0}")]
    Options(String),
    /// A `.horde` file could not be read or written.
    #[error(transparent)]
    Asset(#[from] horde_asset::AssetError),
}

/// Keeps and renames the selected clips; every name must exist.
fn select_clips(
    clips: Vec<SourceClip>,
    selection: &[ClipSelection],
) -> Result<Vec<SourceClip>, BakeError> {
    if selection.is_empty() {
        return Ok(clips);
    }
    selection
        .iter()
        .map(|wanted| {
            let mut clip = clips
                .iter()
                .find(|clip| clip.name == wanted.source)
                .cloned()
                .ok_or_else(|| {
                    let names: Vec<&str> = clips.iter().map(|clip| clip.name.as_str()).collect();
                    BakeError::Options(format!(
                        "--clip {:?}: no such clip (available: {})",
                        wanted.source,
                        names.join(", ")
                    ))
                })?;
            clip.name.clone_from(&wanted.name);
            Ok(clip)
        })
        .collect()
}

/// Gives later clips of an already used name a numeric suffix.
fn deduplicate_names(clips: &mut [SourceClip], warnings: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    for clip in clips {
        if !seen.insert(clip.name.clone()) {
            let original = clip.name.clone();
            let mut suffix = 2;
            while !seen.insert(format!("{original}_{suffix}")) {
                suffix += 1;
            }
            clip.name = format!("{original}_{suffix}");
            warnings.push(format!(
                "clip {original:?} appears twice; the second is {:?}",
                clip.name
            ));
        }
    }
}

/// Height (y extent) of the mesh as the runtime draws it in the rest pose:
/// every vertex skinned with its four influences by `jointGlobal *
/// inverseBind`. Bind-space positions can be in other units or axes than the
/// drawn model (an FBX armature scaled x100 and turned Z-up), so they do not
/// measure it.
fn rest_pose_height(model: &SourceModel) -> f32 {
    let rest = sample::skin_matrices(&model.skeleton, None, 0.0);
    let (low, high) = model
        .positions
        .iter()
        .zip(&model.influences)
        .map(|(&position, influences)| two_bone::skin_exact(&rest, influences, position).y)
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(low, high), y| {
            (low.min(y), high.max(y))
        });
    high - low
}

/// Bind-pose box of the vertices (the quantization box) and its height.
fn bind_bounds(positions: &[Vec3]) -> Bounds {
    let min = positions
        .iter()
        .fold(Vec3::splat(f32::INFINITY), |a, &p| a.min(p));
    let max = positions
        .iter()
        .fold(Vec3::splat(f32::NEG_INFINITY), |a, &p| a.max(p));
    Bounds {
        quant_min: min.to_array(),
        quant_max: max.to_array(),
        sphere_center: ((min + max) * 0.5).to_array(),
        sphere_radius: (max - min).length() * 0.5,
        height: max.y - min.y,
    }
}

/// Whether the last frame of a clip matches its first: rotation/scale parts
/// within 1e-3 and translations within 1e-3 of the model height.
fn seamless(frames: &[Vec<Mat4>], height: f32) -> bool {
    let (Some(first), Some(last)) = (frames.first(), frames.last()) else {
        return false;
    };
    frames.len() > 1
        && first.iter().zip(last).all(|(a, b)| {
            let linear = (0..3).all(|c| (a.col(c) - b.col(c)).abs().max_element() < 1e-3);
            linear && (a.w_axis - b.w_axis).abs().max_element() < 1e-3 * height.max(1e-3)
        })
}

/// Up to two baked poses that move the mesh furthest from its bind pose, as
/// per-vertex displacements (the LOD simplifier's skin attributes).
fn extreme_displacements(
    model: &SourceModel,
    skin: &[TwoBone],
    frames: &[Vec<Vec<Mat4>>],
) -> Vec<Vec<Vec3>> {
    let all: Vec<&Vec<Mat4>> = frames.iter().flatten().collect();
    let step = (all.len() / 32).max(1);
    let displacement = |pose: &[Mat4]| -> Vec<Vec3> {
        model
            .positions
            .iter()
            .zip(skin)
            .map(|(&position, two_bone)| two_bone.skin(pose, position) - position)
            .collect()
    };
    let mut scored: Vec<(f32, usize)> = all
        .iter()
        .enumerate()
        .step_by(step)
        .map(|(index, pose)| {
            (
                displacement(pose).iter().map(|d| d.length_squared()).sum(),
                index,
            )
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored
        .iter()
        .take(2)
        .map(|&(_, index)| displacement(all[index]))
        .collect()
}

/// How a caught panic is reported (the fuzzers look for it).
pub(crate) const INTERNAL_ERROR: &str = "internal error while baking this file (please report it)";

/// Runs `work`, turning a panic (a bug here or in a dependency) into an error
/// naming the file: the last guard, behind the checks of [`source`].
fn guarded<T>(path: &Path, work: impl FnOnce() -> Result<T, BakeError>) -> Result<T, BakeError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|text| (*text).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(BakeError::Input {
            path: path.display().to_string(),
            message: format!("{INTERNAL_ERROR}: {what}"),
        })
    })
}

/// Bakes a skinned character with the clips of its own file and of `libraries`.
pub fn bake_unit(
    character: &Path,
    libraries: &[&Path],
    options: &BakeOptions,
    progress: Progress<'_>,
) -> Result<Baked, BakeError> {
    guarded(character, || {
        bake_unit_unguarded(character, libraries, options, progress)
    })
}

fn bake_unit_unguarded(
    character: &Path,
    libraries: &[&Path],
    options: &BakeOptions,
    progress: Progress<'_>,
) -> Result<Baked, BakeError> {
    check_options(options)?;
    progress("importing glTF");
    let mut model = import::import_character(character)?;
    for library in libraries {
        let clips = import::import_library(library, &model.skeleton, &mut model.warnings)?;
        model.clips.extend(clips);
    }
    deduplicate_names(&mut model.clips, &mut model.warnings);
    model.clips = select_clips(std::mem::take(&mut model.clips), &options.clips)?;
    if model.clips.is_empty() {
        return Err(BakeError::Input {
            path: character.display().to_string(),
            message: "no animation clips: pass an animation library with --animations".into(),
        });
    }
    let mut warnings = std::mem::take(&mut model.warnings);
    let mut bounds = bind_bounds(&model.positions);
    bounds.height = rest_pose_height(&model);
    if !(bounds.height.is_finite() && bounds.height > 0.0) {
        return Err(BakeError::Input {
            path: character.display().to_string(),
            message: format!(
                "rest pose has height {} (flat or degenerate skin)",
                bounds.height
            ),
        });
    }

    // Frames the bone texture can hold (at mat3x4's three texels per bone,
    // the fallback encoding), checked before sampling so that a hostile clip
    // length cannot make the bake allocate without bound; each clip's raised
    // rate stays within it too.
    let bone_texels = u64::from(BoneEncoding::Mat3x4F32.texels_per_bone())
        * model.skeleton.joints.len().max(1) as u64;
    let frame_budget =
        u64::from(options.max_texture_height) * u64::from(options.texture_width) / bone_texels;
    let base_frames: u64 = model
        .clips
        .iter()
        .map(|clip| u64::from(sample::frame_count(clip.duration, options.sample_rate)))
        .sum();
    if base_frames > frame_budget {
        return Err(BakeError::Options(format!(
            "{}: the clips need {base_frames} frames at {} fps, more than the {}x{} bone \
             texture holds ({frame_budget}); pass fewer clips (--clip), a lower --rate or a \
             wider --texture-width",
            character.display(),
            options.sample_rate,
            options.texture_width,
            options.max_texture_height
        )));
    }

    progress("sampling poses");
    let bound = options.max_interp_error * bounds.height;
    let samplings: Vec<sample::ClipSampling> = model
        .clips
        .iter()
        .map(|clip| {
            sample::choose_rate(
                &model.skeleton,
                clip,
                &model.positions,
                &model.influences,
                options.sample_rate,
                options
                    .max_sample_rate
                    .min(frame_budget as f32 / clip.duration.max(f32::MIN_POSITIVE))
                    .max(options.sample_rate),
                bound,
            )
        })
        .collect();
    for (clip, sampling) in model.clips.iter().zip(&samplings) {
        if sampling.interpolation_error > bound {
            warnings.push(format!(
                "clip {:?}: frame interpolation still costs {:.2} % of the height at the {} Hz \
                 limit (bound {:.2} %)",
                clip.name,
                100.0 * sampling.interpolation_error / bounds.height,
                options.max_sample_rate,
                100.0 * options.max_interp_error
            ));
        }
    }
    let frames: Vec<Vec<Vec<Mat4>>> = samplings.into_iter().map(|s| s.frames).collect();
    if let Some(clip) = frames
        .iter()
        .position(|clip| clip.iter().flatten().any(|m| !m.is_finite()))
    {
        return Err(BakeError::Input {
            path: character.display().to_string(),
            message: format!(
                "clip {:?} produces a NaN or infinite pose",
                model.clips[clip].name
            ),
        });
    }

    let mut encoding = options.encoding;
    let skew = frames
        .iter()
        .flatten()
        .flatten()
        .map(encode::max_scale_skew)
        .fold(0.0, f32::max);
    if encoding != BoneEncoding::Mat3x4F32 && skew > 1e-3 {
        warnings.push(format!(
            "poses have non-uniform scale (axis ratio up to {:.4}); {} cannot store it, using mat3x4",
            1.0 + skew,
            encoding.name()
        ));
        encoding = BoneEncoding::Mat3x4F32;
    }

    let scale = frames
        .iter()
        .flatten()
        .flatten()
        .map(encode::scale_deviation)
        .fold(0.0, f32::max);
    if encoding == BoneEncoding::DualQuatF32 && scale > 1e-3 {
        warnings.push(format!(
            "poses are scaled (up to {:.4} off 1); dual quaternions store rigid poses only, \
             using mat3x4",
            scale
        ));
        encoding = BoneEncoding::Mat3x4F32;
    }

    progress("fitting two-bone weights");
    let naive: Vec<TwoBone> = model.influences.iter().map(two_bone::naive).collect();
    let poses: Vec<Vec<Mat4>> = frames.iter().flatten().cloned().collect();
    let fitted = two_bone::fit_all(&model.positions, &model.influences, &poses, encoding);
    let stored = match options.two_bone {
        TwoBoneMethod::Naive => &naive,
        TwoBoneMethod::Fitted => &fitted,
    };

    progress("building LODs");
    let displacements = extreme_displacements(&model, stored, &frames);
    let mut lods = lod::build(
        &model,
        stored,
        &bounds,
        lod::LodChain {
            ratios: &options.lod_ratios,
            raster_ratios: &options.raster_lod_ratios,
            target_error: options.lod_target_error,
        },
        &displacements,
        true,
    );
    progress("fitting the coarsest LOD to the silhouette");
    let silhouette = silhouette::Silhouette::of_model(&model, &bounds);
    if let Some(coverage) =
        lod::fit_coarsest_to_silhouette(&mut lods, &model, stored, &bounds, &silhouette)
    {
        log::info!("coarsest LOD: {coverage:.3} of the source's silhouette");
    }
    lod::drop_unpicked_raster_lods(&mut lods);
    lod::inflate_to_silhouette(&mut lods, &model, &bounds, &silhouette);

    progress("encoding bone texture");
    let bone_count = model.skeleton.joints.len() as u32;
    let texels_per_frame = bone_count * encoding.texels_per_bone();
    let mut texels = Vec::new();
    let mut clips = Vec::with_capacity(model.clips.len());
    let bind = ground_speed::bind_positions(&model.skeleton.inverse_bind);
    let soles = ground_speed::soles(&model.positions, &model.influences, bounds.height);
    for (clip, clip_frames) in model.clips.iter().zip(&frames) {
        let looping = if options.looping.contains(&clip.name) {
            true
        } else if options.not_looping.contains(&clip.name) {
            false
        } else {
            seamless(clip_frames, bounds.height)
        };
        let first_texel = u32::try_from(texels.len())
            .map_err(|_| BakeError::Options("bone texture exceeds 2^32 texels".into()))?;
        texels.extend(encode::encode_clip(encoding, clip_frames));
        let gait = ground_speed::measure(clip_frames, &bind, &soles, clip.duration, bounds.height);
        clips.push(Clip {
            name: clip.name.clone(),
            first_texel,
            frame_count: clip_frames.len() as u32,
            duration: if clip_frames.len() > 1 {
                clip.duration
            } else {
                0.0
            },
            looping,
            ground_speed: gait.speed,
            foot_phase: gait.foot_phase,
        });
    }
    debug_assert_eq!(
        texels.len(),
        clips
            .iter()
            .map(|c| (c.frame_count * texels_per_frame) as usize)
            .sum::<usize>()
    );
    let texture_height = encode::texture_height(
        texels.len(),
        options.texture_width,
        options.max_texture_height,
    )?;
    let animation = Animation {
        encoding,
        bone_count,
        texture_width: options.texture_width,
        texture_height,
        texels: encode::texture_bytes(encoding, &texels, options.texture_width, texture_height),
        clips,
    };

    progress("measuring errors");
    let Some(lod0) = lods.first() else {
        return Err(BakeError::Options(
            "meshopt rejected the vertex layout".into(),
        ));
    };
    let measured = report::measure(&report::ReportInput {
        model: &model,
        clips: &model.clips,
        frames: &frames,
        naive: &naive,
        fitted: &fitted,
        animation: &animation,
        lod0,
        bounds: &bounds,
    });
    let [two_bone_naive, two_bone_fitted, mat3x4, quat32, quat16, dual_quat, frame_rate, total] =
        measured.stats;
    if two_bone_fitted.rms > two_bone_naive.rms {
        warnings.push(format!(
            "fitted two-bone RMS {:.6} exceeds naive {:.6}: the fit minimizes error at stored \
             frames, the report also samples mid-frame times",
            two_bone_fitted.rms, two_bone_naive.rms
        ));
    }
    bounds.sphere_center = measured.sphere_center.to_array();
    bounds.sphere_radius = measured.sphere_radius;
    let report = ErrorReport {
        model_height: bounds.height,
        sample_rate: options.sample_rate,
        time_samples: measured.time_samples,
        two_bone_naive,
        two_bone_fitted,
        mat3x4,
        quat32,
        quat16,
        dual_quat,
        frame_rate,
        total,
        warnings: capped(warnings),
    };
    let source_vertex = lods
        .iter()
        .map(|built| built.source_vertex.clone())
        .collect();
    let asset = Asset {
        name: asset_name(options, character),
        kind: AssetKind::Unit,
        bone_names: model
            .skeleton
            .joints
            .iter()
            .map(|&joint| model.skeleton.nodes[joint].name.clone())
            .collect(),
        animation: Some(animation),
        lods: lods.into_iter().map(|built| built.lod).collect(),
        materials: model.materials.clone(),
        textures: model.textures.clone(),
        bounds,
        report,
        impostor: None,
    };
    progress("rendering impostor");
    let asset = Asset {
        impostor: impostor::bake(&asset),
        ..asset
    };
    Ok(Baked {
        asset,
        source: model,
        source_vertex,
        naive,
        fitted,
    })
}

/// Keeps the report within the format's warning limit.
fn capped(mut warnings: Vec<String>) -> Vec<String> {
    if warnings.len() > horde_asset::MAX_WARNINGS {
        let dropped = warnings.len() - (horde_asset::MAX_WARNINGS - 1);
        warnings.truncate(horde_asset::MAX_WARNINGS - 1);
        warnings.push(format!("{dropped} more warnings dropped"));
    }
    warnings
        .into_iter()
        .map(|mut warning| {
            if warning.len() > horde_asset::MAX_STRING_LEN {
                let mut end = horde_asset::MAX_STRING_LEN;
                while !warning.is_char_boundary(end) {
                    end -= 1;
                }
                warning.truncate(end);
            }
            warning
        })
        .collect()
}

/// Bakes a static prop: one implicit bone, world-space vertices.
pub fn bake_prop(
    path: &Path,
    options: &BakeOptions,
    progress: Progress<'_>,
) -> Result<Baked, BakeError> {
    guarded(path, || bake_prop_unguarded(path, options, progress))
}

fn bake_prop_unguarded(
    path: &Path,
    options: &BakeOptions,
    progress: Progress<'_>,
) -> Result<Baked, BakeError> {
    check_options(options)?;
    progress("importing glTF");
    let model = import::import_prop(path)?;
    let mut bounds = bind_bounds(&model.positions);
    let single = vec![
        TwoBone {
            bones: [0, 0],
            weight: 255
        };
        model.positions.len()
    ];
    let center = Vec3::from(bounds.sphere_center);
    bounds.sphere_radius = model
        .positions
        .iter()
        .map(|p| p.distance(center))
        .fold(0.0, f32::max);
    progress("building LODs");
    let mut lods = lod::build(
        &model,
        &single,
        &bounds,
        lod::LodChain {
            ratios: &options.lod_ratios,
            raster_ratios: &[],
            target_error: options.lod_target_error,
        },
        &[],
        false,
    );
    progress("fitting the slab proxy to the silhouette");
    let silhouette = silhouette::Silhouette::of_model(&model, &bounds);
    if let Some((coverage, error)) = lod::fit_prop_proxy(&mut lods, &model, &bounds, &silhouette) {
        log::info!("slab proxy: {coverage:.3} of the source's silhouette, error {error:.4}");
    }
    lod::inflate_to_silhouette(&mut lods, &model, &bounds, &silhouette);
    let report = ErrorReport {
        model_height: bounds.height,
        sample_rate: 0.0,
        time_samples: 0,
        total: ErrorStat::default(),
        warnings: capped(model.warnings.clone()),
        ..ErrorReport::default()
    };
    let source_vertex = lods
        .iter()
        .map(|built| built.source_vertex.clone())
        .collect();
    let asset = Asset {
        name: asset_name(options, path),
        kind: AssetKind::Prop,
        bone_names: Vec::new(),
        animation: None,
        lods: lods.into_iter().map(|built| built.lod).collect(),
        materials: model.materials.clone(),
        textures: model.textures.clone(),
        bounds,
        report,
        impostor: None,
    };
    Ok(Baked {
        asset,
        source: model,
        source_vertex,
        naive: single.clone(),
        fitted: single,
    })
}
