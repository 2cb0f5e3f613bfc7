//! Image quality, measured like speed (DESIGN.md, "Image quality"): a
//! frame against a reference of the same GPU state, by FLIP, by the units'
//! pixel coverage, and by the shimmer of a still camera.
//!
//! # The reference
//! The renderer replays the frame's state (`horde::renderer::Replay`: the
//! same positions, poses and crossfades, without a simulation step or an
//! animation update) with every unit a mesh at LOD 0, the far field off and
//! no budget, into a target of twice the frame's width and height. The
//! 2×2 box filter ([`box_downsample_2x2`]) averages each block in linear
//! light, as a 4× supersampled resolve does (averaging the sRGB bytes would
//! darken every edge), and rounds back to sRGB bytes.
//!
//! # FLIP
//! [`flip`] runs NVIDIA's LDR ꟻLIP (the `nv-flip` crate, as wgpu's image
//! tests use it) on the two sRGB images at the crate's default
//! `DEFAULT_PIXELS_PER_DEGREE` (67: a 0.7 m viewing distance from a 24"
//! 4K monitor). Each pixel's error is in [0, 1]; the figures are their
//! mean and 95th percentile (nearest rank), and the error map is drawn
//! with FLIP's magma colour map.
//!
//! # Coverage
//! The frame and the reference are replayed once more in the unit mask
//! view (units white, everything else and the sky black, unlit).
//! [`unit_pixels`] sums a mask's pixels in linear light, so a pixel the
//! supersampled far field covers in part counts in part; the reference's
//! sum over 4 is its coverage at the frame's resolution (the sum of its
//! box-filtered mask).
//! The ratio is below 1 where distant crowds thin out, above 1 where they
//! fatten.
//!
//! # Still-camera stability
//! [`measure_still`] renders `frames` consecutive frames of a still camera
//! over a paused world (the caller queues no simulation steps), advancing
//! animation time only, 1/60 s a frame; each frame's reference is replayed
//! after it. The mean FLIP between consecutive frames measures how much the
//! picture changes; the same figure of the references measures how much
//! the motion itself changes it. Their ratio is the shimmer the frame's
//! shortcuts add (1: none).

use anyhow::{bail, ensure, Context as _, Result};
use ash::vk;
use horde::camera::Camera;
use horde::context::Context;
use horde::profiler::percentile;
use horde::renderer::{Renderer, Replay, ReplayPath, ReplayView};
use horde::srgb::srgb_to_linear;
use horde::target::Offscreen;
use image::{RgbImage, RgbaImage};

/// Animation time between the frames of the still-camera sequence.
pub const STILL_DT: f32 = 1.0 / 60.0;
/// Frames of the still-camera sequence (so 7 consecutive pairs).
pub const STILL_FRAMES: u32 = 8;

/// A FLIP comparison.
#[derive(Clone, Debug)]
pub struct FlipResult {
    /// Mean of the per-pixel errors, in [0, 1].
    pub mean: f64,
    /// 95th percentile of the per-pixel errors.
    pub p95: f64,
    /// The per-pixel errors through FLIP's magma colour map.
    pub error_map: RgbImage,
}

/// A frame's quality figures, as the reports carry them.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Quality {
    /// FLIP of the frame against its reference: mean and 95th percentile.
    pub flip_mean: f64,
    pub flip_p95: f64,
    /// The frame's unit pixels over the reference's (none when the
    /// reference shows no unit).
    pub coverage_ratio: Option<f64>,
    /// Mean FLIP between consecutive frames of a still camera over the
    /// paused world, the frame's and the reference's.
    pub still_flip_mean: f64,
    pub still_flip_reference_mean: f64,
    /// `still_flip_mean / still_flip_reference_mean` (none when the
    /// references do not change at all).
    pub still_flip_ratio: Option<f64>,
}

/// FLIP of `test` against `reference` (both sRGB; alpha is ignored).
pub fn flip(reference: &RgbaImage, test: &RgbaImage) -> Result<FlipResult> {
    ensure!(
        reference.dimensions() == test.dimensions(),
        "FLIP compares images of one size, not {:?} and {:?}",
        reference.dimensions(),
        test.dimensions()
    );
    let (width, height) = reference.dimensions();
    ensure!(width > 0 && height > 0, "FLIP of an empty image");
    let rgb = |image: &RgbaImage| {
        let bytes: Vec<u8> = image.pixels().flat_map(|p| [p[0], p[1], p[2]]).collect();
        nv_flip::FlipImageRgb8::with_data(width, height, &bytes)
    };
    let errors = nv_flip::flip(
        rgb(reference),
        rgb(test),
        nv_flip::DEFAULT_PIXELS_PER_DEGREE,
    );
    let error_map = RgbImage::from_raw(
        width,
        height,
        errors.apply_color_lut(&nv_flip::magma_lut()).to_vec(),
    )
    .context("FLIP's error map has the wrong size")?;
    let mut values: Vec<f64> = errors.to_vec().into_iter().map(f64::from).collect();
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    values.sort_by(f64::total_cmp);
    Ok(FlipResult {
        mean,
        p95: percentile(&values, 0.95),
        error_map,
    })
}

/// Halves both sides: each output pixel is the mean of a 2×2 block in
/// linear light (alpha averaged as is). The size must be even.
pub fn box_downsample_2x2(image: &RgbaImage) -> Result<RgbaImage> {
    let (width, height) = image.dimensions();
    if width % 2 != 0 || height % 2 != 0 || width == 0 || height == 0 {
        bail!("a 2×2 box filter needs an even, non-zero size, not {width}x{height}");
    }
    let halved = horde::srgb::halve_rgba8(image.as_raw(), width, height);
    RgbaImage::from_raw(width / 2, height / 2, halved).context("a halved image's size")
}

/// The unit pixels of a unit mask: the mask draws units white over black
/// (sky included), so a pixel's linear value is the fraction of it that
/// units cover, whole for the raster's pixels and partial where the
/// supersampled far field resolves a unit's edge. The sum of those fractions.
pub fn unit_pixels(mask: &RgbaImage) -> f64 {
    let linear: Vec<f64> = (0..=255u8).map(|b| f64::from(srgb_to_linear(b))).collect();
    mask.pixels()
        .map(|p| linear[usize::from(p[0].min(p[1]).min(p[2]))])
        .sum()
}

/// The frame's unit pixels over the reference's at the frame's resolution:
/// `reference_mask` is the 2×2 supersampled reference's mask, whose sum
/// over 4 is its box-filtered coverage. None when the reference shows no
/// unit.
pub fn coverage_ratio(frame_mask: &RgbaImage, reference_mask: &RgbaImage) -> Option<f64> {
    let reference = unit_pixels(reference_mask) / 4.0;
    (reference > 0.0).then(|| unit_pixels(frame_mask) / reference)
}

/// The mean of consecutive pairs' FLIP means; 0 for fewer than two images.
pub fn consecutive_flip_mean(images: &[RgbaImage]) -> Result<f64> {
    let pairs = images
        .windows(2)
        .map(|pair| flip(&pair[0], &pair[1]).map(|result| result.mean))
        .collect::<Result<Vec<f64>>>()?;
    Ok(pairs.iter().sum::<f64>() / pairs.len().max(1) as f64)
}

/// Replays the last frame's state into `target` and reads it back.
fn replay(
    ctx: &Context,
    renderer: &mut Renderer,
    target: &Offscreen,
    camera: &Camera,
    path: ReplayPath,
    view: ReplayView,
) -> Result<RgbaImage> {
    renderer.replay_offscreen(ctx, target, camera, Replay { path, view })?;
    Ok(target.read_rgba()?)
}

/// The 2×2 supersampled reference's target for frames of `extent`.
fn reference_target(ctx: &Context, renderer: &Renderer, extent: vk::Extent2D) -> Result<Offscreen> {
    let doubled = vk::Extent2D {
        width: extent.width * 2,
        height: extent.height * 2,
    };
    Offscreen::new(ctx, &renderer.reference_passes(), doubled).with_context(|| {
        format!(
            "a {}x{} target for the 2×2 supersampled reference",
            doubled.width, doubled.height
        )
    })
}

/// What [`measure_frame`] found.
#[derive(Clone, Debug)]
pub struct FrameQuality {
    pub flip: FlipResult,
    /// The reference, box-filtered to the frame's size.
    pub reference: RgbaImage,
    pub coverage_ratio: Option<f64>,
}

/// Measures the last frame rendered into `target` (whose pixels are
/// `frame`) against its reference. Replays into `target` too, so read the
/// frame first.
pub fn measure_frame(
    ctx: &Context,
    renderer: &mut Renderer,
    target: &Offscreen,
    camera: &Camera,
    frame: &RgbaImage,
) -> Result<FrameQuality> {
    let supersampled = reference_target(ctx, renderer, target.extent)?;
    measure_frame_in(ctx, renderer, target, &supersampled, camera, frame)
}

/// [`measure_frame`] with the reference's target given (twice `target`'s
/// size, made for [`Renderer::readback_passes`]).
fn measure_frame_in(
    ctx: &Context,
    renderer: &mut Renderer,
    target: &Offscreen,
    supersampled: &Offscreen,
    camera: &Camera,
    frame: &RgbaImage,
) -> Result<FrameQuality> {
    let reference = box_downsample_2x2(&replay(
        ctx,
        renderer,
        supersampled,
        camera,
        ReplayPath::Reference,
        ReplayView::Shaded,
    )?)?;
    let flip = flip(&reference, frame)?;
    let frame_mask = replay(
        ctx,
        renderer,
        target,
        camera,
        ReplayPath::Frame,
        ReplayView::UnitMask,
    )?;
    let reference_mask = replay(
        ctx,
        renderer,
        supersampled,
        camera,
        ReplayPath::Reference,
        ReplayView::UnitMask,
    )?;
    Ok(FrameQuality {
        flip,
        reference,
        coverage_ratio: coverage_ratio(&frame_mask, &reference_mask),
    })
}

/// Measures the frame a window renderer just presented, whose image cannot
/// be read back: its replay with the frame's own settings (which draws it
/// again exactly, [`ReplayPath::Frame`]) into an offscreen target of
/// `extent`, against its reference. The targets are `targets`, made (again)
/// when there are none or they are of another size.
pub fn measure_presented(
    ctx: &Context,
    renderer: &mut Renderer,
    camera: &Camera,
    targets: &mut Option<QualityTargets>,
    extent: vk::Extent2D,
) -> Result<FrameQuality> {
    let targets = match targets.take() {
        Some(kept) if kept.frame.extent == extent => targets.insert(kept),
        stale => {
            // The old pair goes first: two pairs of 4K targets need not fit.
            drop(stale);
            targets.insert(QualityTargets::new(ctx, renderer, extent)?)
        }
    };
    let frame = replay(
        ctx,
        renderer,
        &targets.frame,
        camera,
        ReplayPath::Frame,
        ReplayView::Shaded,
    )?;
    measure_frame_in(
        ctx,
        renderer,
        &targets.frame,
        &targets.reference,
        camera,
        &frame,
    )
}

/// The offscreen targets a window's quality measurement replays into: the
/// frame's size and twice it. Kept between measurements, made again when
/// the window's size changes.
pub struct QualityTargets {
    frame: Offscreen,
    reference: Offscreen,
}

impl QualityTargets {
    /// Targets for frames of `extent` drawn by `renderer`.
    pub fn new(ctx: &Context, renderer: &Renderer, extent: vk::Extent2D) -> Result<QualityTargets> {
        let frame =
            Offscreen::new(ctx, &renderer.readback_passes(), extent).with_context(|| {
                format!(
                    "a {}x{} target for the frame's replay",
                    extent.width, extent.height
                )
            })?;
        let reference = reference_target(ctx, renderer, extent)?;
        Ok(QualityTargets { frame, reference })
    }
}

/// The still-camera figures: the mean FLIP between consecutive frames and
/// between their references.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StillQuality {
    pub frame_mean: f64,
    pub reference_mean: f64,
}

/// Renders `frames` frames from `camera`, [`STILL_DT`] apart, each followed
/// by its reference (see the module doc). The caller pauses its simulation
/// first.
pub fn measure_still(
    ctx: &Context,
    renderer: &mut Renderer,
    target: &Offscreen,
    camera: &Camera,
    frames: u32,
) -> Result<StillQuality> {
    let supersampled = reference_target(ctx, renderer, target.extent)?;
    let mut shown = Vec::new();
    let mut references = Vec::new();
    for _ in 0..frames {
        renderer.render_offscreen(ctx, target, camera, STILL_DT, true)?;
        shown.push(target.read_rgba()?);
        references.push(box_downsample_2x2(&replay(
            ctx,
            renderer,
            &supersampled,
            camera,
            ReplayPath::Reference,
            ReplayView::Shaded,
        )?)?);
    }
    Ok(StillQuality {
        frame_mean: consecutive_flip_mean(&shown)?,
        reference_mean: consecutive_flip_mean(&references)?,
    })
}

/// The report's figures from a frame's and a still sequence's measurements.
pub fn quality(frame: &FrameQuality, still: StillQuality) -> Quality {
    Quality {
        flip_mean: frame.flip.mean,
        flip_p95: frame.flip.p95,
        coverage_ratio: frame.coverage_ratio,
        still_flip_mean: still.frame_mean,
        still_flip_reference_mean: still.reference_mean,
        still_flip_ratio: (still.reference_mean > 0.0)
            .then(|| still.frame_mean / still.reference_mean),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uniform(width: u32, height: u32, rgb: [u8; 3]) -> RgbaImage {
        RgbaImage::from_pixel(width, height, image::Rgba([rgb[0], rgb[1], rgb[2], 255]))
    }

    #[test]
    fn box_filter_averages_in_linear_light() {
        let mut image = uniform(2, 2, [0, 0, 0]);
        image.put_pixel(0, 0, image::Rgba([255, 255, 255, 255]));
        image.put_pixel(1, 1, image::Rgba([255, 255, 255, 255]));
        let half = box_downsample_2x2(&image).expect("even size");
        // Half the light: linear 0.5 is sRGB 188, not the bytes' mean 128.
        assert_eq!(half.dimensions(), (1, 1));
        assert_eq!(half.get_pixel(0, 0).0, [188, 188, 188, 255]);
        assert!(box_downsample_2x2(&uniform(3, 2, [0, 0, 0])).is_err());
    }

    #[test]
    fn unit_coverage_counts_the_reference_at_the_frame_resolution() {
        let mut frame = uniform(2, 2, [0, 0, 0]);
        frame.put_pixel(0, 0, image::Rgba([255, 255, 255, 255]));
        // Half covered: linear 0.5 is sRGB 188.
        frame.put_pixel(1, 1, image::Rgba([188, 188, 188, 255]));
        let mut reference = uniform(4, 4, [0, 0, 0]);
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1), (2, 2), (3, 3)] {
            reference.put_pixel(x, y, image::Rgba([255, 255, 255, 255]));
        }
        assert_eq!(unit_pixels(&reference), 6.0);
        let ratio = coverage_ratio(&frame, &reference).expect("the reference shows units");
        assert!((ratio - 1.5 / 1.5).abs() < 0.01, "{ratio}");
        assert_eq!(coverage_ratio(&frame, &uniform(4, 4, [0, 0, 0])), None);
    }
}
