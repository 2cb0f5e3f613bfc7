//! What a bake is asked to do ([`BakeOptions`], the clips to keep, how four
//! influences become two), the checks those options must pass before any
//! work, and what a bake returns ([`Baked`]).

use std::path::Path;

use horde_asset::{Asset, BoneEncoding};

use crate::import::SourceModel;
use crate::two_bone::TwoBone;
use crate::BakeError;

/// How four influences become two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TwoBoneMethod {
    /// Top two renormalized.
    Naive,
    /// Least-squares pair and weight over all baked poses.
    Fitted,
}

/// A clip to keep, and the name to give it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClipSelection {
    /// Name in the source file.
    pub source: String,
    /// Name in the asset.
    pub name: String,
}

impl ClipSelection {
    /// Parses `Source=name` or `Source`.
    pub fn parse(text: &str) -> Self {
        match text.split_once('=') {
            Some((source, name)) => Self {
                source: source.into(),
                name: name.into(),
            },
            None => Self {
                source: text.into(),
                name: text.into(),
            },
        }
    }
}

/// Bake settings; [`BakeOptions::default`] is what the CLI uses without flags.
#[derive(Clone, Debug)]
pub struct BakeOptions {
    /// Asset name; the input file stem if `None`.
    pub name: Option<String>,
    /// Base frames per second of every clip.
    pub sample_rate: f32,
    /// Largest frame-interpolation error allowed, as a fraction of the model
    /// height: a clip that exceeds it at `sample_rate` is sampled faster.
    pub max_interp_error: f32,
    /// Highest rate a clip may be raised to.
    pub max_sample_rate: f32,
    /// Bone texture encoding.
    pub encoding: BoneEncoding,
    /// Triangle ratio of each LOD, LOD 0 (1.0) first. The default's half
    /// step after LOD 0 is for the raster, whose vertex rate bounds the
    /// frame where units stand near the camera: at the 10k ground preset
    /// most units drawn as meshes were too large for the 0.3 LOD's error
    /// and drew all of LOD 0 (the generated knight's 0.5 LOD has 2,407
    /// vertices against 4,111, its error 0.0035 of its size against
    /// 0.0087 at 0.3; `benches/results/near_field/`, section 15).
    pub lod_ratios: Vec<f32>,
    /// Triangle ratios of a unit's LODs for the raster only
    /// (`MeshLod::raster_only`), inserted into the chain of `lod_ratios`
    /// where they fall between two of its ratios (others are left out: they
    /// refine no step). With every unit a mesh, the raster's vertex rate
    /// bounds the frame, and the default chain's steps were long: the
    /// generated knight's units from 19 to 115 px across drew all of the
    /// 0.3 LOD (1,658 vertices; the 0.1 has 657 at six times the error),
    /// those from 10 to 18 px all of the 0.1 (the box proxy after it has
    /// 168). The default's 0.2 and 0.14 split the first step, its 0.07 the
    /// second. The far field draws their units with the next finer LOD, as
    /// it did without them: with the 0.2 and 0.14 its picture was worse
    /// and its 1M frames slower (`benches/results/near_field/`, sections 22,
    /// 23 and 26). Props take none: they are drawn by the raster at every
    /// size, and at the default demo's front preset their 0.2 and 0.14
    /// LODs cost 0.0002 of FLIP for 0.01 ms (section 26).
    pub raster_lod_ratios: Vec<f32>,
    /// Largest relative simplification error meshopt may introduce in LOD 1
    /// (ratio 0.5); a coarser LOD may double it once for each factor of 3,
    /// or part of one, by which its ratio falls below 0.5
    /// ([`lod::error_bound`](crate::lod::error_bound)), so a LOD inserted
    /// into the chain leaves the others' bounds as they were.
    /// The default, 0.025, gives the 0.3, 0.1 and 0.03 LODs the bounds
    /// 0.05, 0.1 and 0.2.
    pub lod_target_error: f32,
    /// Clips to keep (all if empty), with their new names.
    pub clips: Vec<ClipSelection>,
    /// Clips to mark looping regardless of the seam test.
    pub looping: Vec<String>,
    /// Clips to mark non-looping regardless of the seam test.
    pub not_looping: Vec<String>,
    /// Two-bone reduction stored in the vertices.
    pub two_bone: TwoBoneMethod,
    /// Bone texture width in texels.
    pub texture_width: u32,
    /// Largest bone texture height allowed.
    pub max_texture_height: u32,
}

impl Default for BakeOptions {
    fn default() -> Self {
        Self {
            name: None,
            sample_rate: 30.0,
            max_interp_error: 0.01,
            max_sample_rate: 240.0,
            encoding: BoneEncoding::Mat3x4F32,
            lod_ratios: vec![1.0, 0.5, 0.3, 0.1, 0.03],
            raster_lod_ratios: vec![0.2, 0.14, 0.07],
            lod_target_error: 0.025,
            clips: Vec::new(),
            looping: Vec::new(),
            not_looping: Vec::new(),
            two_bone: TwoBoneMethod::Fitted,
            texture_width: horde_asset::DEFAULT_BONE_TEXTURE_WIDTH,
            max_texture_height: 4096,
        }
    }
}

/// A baked asset with what tests need to check it against its source.
#[derive(Debug)]
pub struct Baked {
    /// The asset, as it will be written.
    pub asset: Asset,
    /// The imported source (mesh, skeleton, selected and renamed clips).
    pub source: SourceModel,
    /// Source vertex of every vertex of every LOD.
    pub source_vertex: Vec<Vec<u32>>,
    /// Naive two-bone reduction per source vertex.
    pub naive: Vec<TwoBone>,
    /// Fitted two-bone reduction per source vertex.
    pub fitted: Vec<TwoBone>,
}

/// Stage names reported to the progress callback.
pub type Progress<'a> = &'a (dyn Fn(&str) + Sync);

pub(crate) fn check_options(options: &BakeOptions) -> Result<(), BakeError> {
    if !(options.sample_rate.is_finite()
        && options.sample_rate > 0.0
        && options.sample_rate <= 1000.0)
    {
        return Err(BakeError::Options(format!(
            "sample rate {} (expected 0 < rate <= 1000)",
            options.sample_rate
        )));
    }
    if !(options.max_interp_error.is_finite() && options.max_interp_error > 0.0) {
        return Err(BakeError::Options(format!(
            "max interpolation error {} (expected a fraction of the height > 0)",
            options.max_interp_error
        )));
    }
    if !(options.max_sample_rate.is_finite()
        && options.max_sample_rate >= options.sample_rate
        && options.max_sample_rate <= 1000.0)
    {
        return Err(BakeError::Options(format!(
            "max sample rate {} (expected sample rate <= max <= 1000)",
            options.max_sample_rate
        )));
    }
    let ratios = &options.lod_ratios;
    if ratios.is_empty()
        || ratios.len() > horde_asset::MAX_LODS
        || ratios
            .iter()
            .any(|r| !(r.is_finite() && *r > 0.0 && *r <= 1.0))
    {
        return Err(BakeError::Options(format!(
            "LOD ratios {ratios:?} (expected 1..={} values in (0, 1])",
            horde_asset::MAX_LODS
        )));
    }
    let raster = &options.raster_lod_ratios;
    if ratios.len() + raster.len() > horde_asset::MAX_LODS
        || raster
            .iter()
            .any(|r| !(r.is_finite() && *r > 0.0 && *r < 1.0))
    {
        return Err(BakeError::Options(format!(
            "raster LOD ratios {raster:?} (expected values in (0, 1), at most {} LODs in all)",
            horde_asset::MAX_LODS
        )));
    }
    if !(options.lod_target_error.is_finite() && options.lod_target_error >= 0.0) {
        return Err(BakeError::Options(format!(
            "LOD error {} (expected a number >= 0)",
            options.lod_target_error
        )));
    }
    if options.texture_width == 0 || options.texture_width > horde_asset::MAX_TEXTURE_SIDE {
        return Err(BakeError::Options(format!(
            "texture width {} (expected 1..={})",
            options.texture_width,
            horde_asset::MAX_TEXTURE_SIDE
        )));
    }
    Ok(())
}

pub(crate) fn asset_name(options: &BakeOptions, path: &Path) -> String {
    options.name.clone().unwrap_or_else(|| {
        path.file_stem().map_or_else(
            || "asset".into(),
            |stem| stem.to_string_lossy().into_owned(),
        )
    })
}
