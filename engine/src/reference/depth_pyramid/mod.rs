//! CPU twin of the depth pyramid (`passes/depth_pyramid.rs`,
//! `shaders/depth_pyramid*.comp`) and of the sphere-against-pyramid
//! occlusion test (`shaders/occlusion.glsl`), for two-phase Hi-Z culling.
//!
//! The pyramid is built with `min` only, which is exact, so the GPU's
//! pyramid equals [`DepthPyramid::build`]'s bit for bit, and so does the
//! atlas the pass copies it into ([`DepthPyramid::atlas`]) on every texel a
//! level claims. The occlusion test repeats the shader's `f32` operations
//! in its order, none fused; Vulkan leaves `sqrt` and division a few ULP
//! loose, so the two agree everywhere but within that much of a decision
//! (a pixel bound or the final depth comparison), which the GPU test's
//! spheres stay clear of.
//!
//! Depth is reverse-Z with an infinite far plane: a point `d` ahead of the
//! camera has depth `near / d`, the near plane 1, infinity 0. The farthest
//! depth is the smallest, so the pyramid keeps minima: a texel's value is
//! at most every depth under it, which is what makes the test conservative.

use glam::{UVec2, Vec2, Vec3};

use crate::config::OCCLUSION_FOOTPRINT_TEXELS;
use crate::Error;

/// How much nearer than computed a sphere is taken to be, relatively:
/// Vulkan's division is accurate to 2.5 ULP, not correctly rounded, so a
/// sphere just in front of the pyramid could come out a hair behind it on
/// the GPU. 2^-16 covers that many times over and hides nothing one could
/// see (1.5 mm at 100 m). `occlusion.glsl` has the same constant.
pub const OCCLUSION_DEPTH_MARGIN: f32 = 1.0 / 65536.0;

/// `ceil(n / 2)` without overflow, as the shaders write it.
fn half_up(n: u32) -> u32 {
    n / 2 + (n & 1)
}

/// The sizes (width, height) of the pyramid's levels for a depth image of
/// `width` x `height` pixels: the base `ceil(width / 2)` x
/// `ceil(height / 2)`, each further level half the one before (rounded up),
/// down to 1 x 1. Empty for an image without pixels.
pub fn level_sizes(width: u32, height: u32) -> Vec<[u32; 2]> {
    if width == 0 || height == 0 {
        return Vec::new();
    }
    let mut size = [half_up(width), half_up(height)];
    let mut sizes = vec![size];
    while size != [1, 1] {
        size = size.map(half_up);
        sizes.push(size);
    }
    sizes
}

/// Floats a pyramid of these level sizes holds.
pub fn pyramid_len(sizes: &[[u32; 2]]) -> u64 {
    sizes
        .iter()
        .map(|&[w, h]| u64::from(w) * u64::from(h))
        .sum()
}

/// The size (width, height) of the atlas of a pyramid of these level
/// sizes (`passes/depth_pyramid.rs`): the base's width, and the sum of
/// every level's height, the levels stacked one under another. [0, 0]
/// without levels.
pub fn atlas_size(sizes: &[[u32; 2]]) -> [u32; 2] {
    let width = sizes.first().map_or(0, |&[w, _]| w);
    [width, sizes.iter().map(|&[_, h]| h).sum()]
}

/// The depth of each pixel as the base level sees it with the far field
/// (`depth_pyramid.glsl` says why): the raster's farthest sample (`depth`,
/// `samples` per pixel, as [`DepthPyramid::build`] takes it) where the far
/// field's nearest sample in the pixel lies at or behind it, else the far
/// field's farthest sample (`far_keys`: its visibility buffer,
/// `samples_per_axis`² keys per pixel, row by row over the sample grid,
/// depth bits in the high word, 0 where nothing was drawn). The pyramid of
/// these, one sample per pixel, is the GPU's bit for bit.
pub fn with_far_field(
    depth: &[f32],
    width: u32,
    height: u32,
    samples: u32,
    far_keys: &[u64],
    samples_per_axis: u32,
) -> Result<Vec<f32>, Error> {
    let pixels = u64::from(width) * u64::from(height);
    let expected_keys = pixels * u64::from(samples_per_axis).pow(2);
    if samples_per_axis == 0
        || depth.len() as u64 != pixels * u64::from(samples)
        || far_keys.len() as u64 != expected_keys
    {
        return Err(Error::Config(format!(
            "depth pyramid: a {width}x{height} image of {samples} samples per pixel under a far \
             field of {samples_per_axis}² samples per pixel needs {} depths and {expected_keys} \
             keys, {} and {} were given",
            pixels * u64::from(samples),
            depth.len(),
            far_keys.len()
        )));
    }
    let (width, samples, n) = (width as usize, samples as usize, samples_per_axis as usize);
    let merged = (0..pixels as usize)
        .map(|pixel| {
            let (x, y) = (pixel % width, pixel / width);
            let raster = depth[pixel * samples..(pixel + 1) * samples]
                .iter()
                .copied()
                .fold(f32::INFINITY, f32::min);
            let far = (0..n * n).map(|s| {
                let key = far_keys[(y * n + s / n) * width * n + x * n + s % n];
                f32::from_bits((key >> 32) as u32)
            });
            let nearest = far.clone().fold(0.0, f32::max);
            if nearest <= raster {
                raster
            } else {
                far.fold(f32::INFINITY, f32::min)
            }
        })
        .collect();
    Ok(merged)
}

/// A depth pyramid as the GPU builds it: every level row by row, one after
/// another, level 0 (the base, half the image's resolution) first.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthPyramid {
    levels: Vec<[u32; 2]>,
    data: Vec<f32>,
}

impl DepthPyramid {
    /// The pyramid of a depth image of `width` x `height` pixels with
    /// `samples` samples each: `depth[(y * width + x) * samples + s]`. Base
    /// texel (x, y) is the min over the pixels (2x..2x+1, 2y..2y+1) inside
    /// the image and all their samples; a texel of level k is the min over
    /// the (up to) 2 x 2 texels of level k - 1 it covers.
    pub fn build(
        depth: &[f32],
        width: u32,
        height: u32,
        samples: u32,
    ) -> Result<DepthPyramid, Error> {
        let expected = u64::from(width) * u64::from(height) * u64::from(samples);
        if expected == 0 || depth.len() as u64 != expected {
            return Err(Error::Config(format!(
                "depth pyramid: a {width}x{height} image of {samples} samples per pixel needs \
                 {expected} depths (and at least one), {} were given",
                depth.len()
            )));
        }
        let levels = level_sizes(width, height);
        let mut data = Vec::with_capacity(pyramid_len(&levels) as usize);
        let (width, samples) = (width as usize, samples as usize);
        let pixel_farthest = |x: usize, y: usize| {
            let at = (y * width + x) * samples;
            depth[at..at + samples]
                .iter()
                .copied()
                .fold(f32::INFINITY, f32::min)
        };
        let [w0, h0] = levels[0];
        for y in 0..h0 as usize {
            for x in 0..w0 as usize {
                let x1 = (2 * x + 1).min(width - 1);
                let y1 = (2 * y + 1).min(height as usize - 1);
                let texel = pixel_farthest(2 * x, 2 * y)
                    .min(pixel_farthest(x1, 2 * y))
                    .min(pixel_farthest(2 * x, y1))
                    .min(pixel_farthest(x1, y1));
                data.push(texel);
            }
        }
        let mut source_offset = 0;
        for pair in levels.windows(2) {
            let ([sw, sh], [w, h]) = (pair[0].map(|n| n as usize), pair[1]);
            for y in 0..h as usize {
                for x in 0..w as usize {
                    let (x1, y1) = ((2 * x + 1).min(sw - 1), (2 * y + 1).min(sh - 1));
                    let at = |tx: usize, ty: usize| data[source_offset + ty * sw + tx];
                    let texel = at(2 * x, 2 * y)
                        .min(at(x1, 2 * y))
                        .min(at(2 * x, y1))
                        .min(at(x1, y1));
                    data.push(texel);
                }
            }
            source_offset += sw * sh;
        }
        Ok(DepthPyramid { levels, data })
    }

    /// The size (width, height) of every level, the base first.
    pub fn level_sizes(&self) -> &[[u32; 2]] {
        &self.levels
    }

    /// Every level, row by row, one after another: the GPU buffer's layout.
    pub fn data(&self) -> &[f32] {
        &self.data
    }

    /// Where `level` starts in [`DepthPyramid::data`], in floats.
    pub fn level_offset(&self, level: usize) -> Option<usize> {
        (level < self.levels.len()).then(|| pyramid_len(&self.levels[..level]) as usize)
    }

    /// The atlas row where `level` starts: the sum of the heights of the
    /// levels before it.
    pub fn level_row(&self, level: usize) -> Option<u32> {
        (level < self.levels.len()).then(|| atlas_size(&self.levels[..level])[1])
    }

    /// The atlas the cull samples, as the pass copies it: its size
    /// ([`atlas_size`]) and its texels row by row, level k's texel (x, y) at
    /// (x, [`DepthPyramid::level_row`] + y); texels right of a level, never
    /// read, are 0.
    pub fn atlas(&self) -> ([u32; 2], Vec<f32>) {
        let [width, height] = atlas_size(&self.levels);
        let mut texels = vec![0.0; width as usize * height as usize];
        let mut from = self.data.as_slice();
        let mut rows = texels.chunks_exact_mut(width as usize);
        for &[w, h] in &self.levels {
            for row in rows.by_ref().take(h as usize) {
                let (level_row, rest) = from.split_at(w as usize);
                row[..w as usize].copy_from_slice(level_row);
                from = rest;
            }
        }
        ([width, height], texels)
    }

    /// Texel (`x`, `y`) of `level`; `None` outside the pyramid.
    pub fn texel(&self, level: usize, x: u32, y: u32) -> Option<f32> {
        let [w, h] = *self.levels.get(level)?;
        if x >= w || y >= h {
            return None;
        }
        let at = self.level_offset(level)? + y as usize * w as usize + x as usize;
        self.data.get(at).copied()
    }
}

/// A rectangle of pixels, both corners included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelRect {
    pub min: UVec2,
    pub max: UVec2,
}

/// `occlusion_tangent_slopes`: the slopes X/Z of the two tangents from the
/// eye to the circle of centre (`c`, `z`) and radius `r` in the plane of
/// one screen axis and the forward axis; `denominator` = (z - r)(z + r).
fn tangent_slopes(c: f32, z: f32, r: f32, denominator: f32) -> [f32; 2] {
    let root = r * (c * c + denominator).sqrt();
    let cz = c * z;
    [(cz - root) / denominator, (cz + root) / denominator]
}

/// `occlusion_pixel_range`: the pixels `(first, last)` of a viewport `size`
/// pixels across that the slopes span projected with `scale`, widened by
/// one each side and clamped; `None` when none is on screen.
fn pixel_range(slopes: [f32; 2], scale: f32, size: u32) -> Option<(u32, u32)> {
    let [a, b] = slopes.map(|t| (scale * t * 0.5 + 0.5) * size as f32);
    let low = a.min(b).floor() - 1.0;
    let high = a.max(b).floor() + 1.0;
    let limit = size as f32 - 1.0;
    // Written as the shader's negations, so NaN goes the same way.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(high >= 0.0) || !(low <= limit) {
        return None;
    }
    Some((low.max(0.0) as u32, high.min(limit) as u32))
}

/// The pixels a sphere may cover, widened by a pixel each side and clamped
/// to the viewport, as `occlusion.glsl` finds them: from the exact tangents
/// to the sphere along each screen axis. `None` where the sphere reaches
/// the near plane (`z - radius <= near`, `z = -centre_view.z`), lies off
/// screen, or the input is not a sphere (negative or NaN radius, `near <=
/// 0`, an empty viewport). `centre_view` is in view space (right-handed,
/// looking down -Z, +Y up); `projection_scale` is (P\[0\]\[0\], P\[1\]\[1\])
/// of the projection, of either sign.
pub fn sphere_rect(
    centre_view: Vec3,
    radius: f32,
    projection_scale: Vec2,
    near: f32,
    viewport: UVec2,
) -> Option<PixelRect> {
    let z = -centre_view.z;
    let nearest = z - radius;
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(radius >= 0.0) || !(near > 0.0) || !(nearest > near) || viewport.min_element() == 0 {
        return None;
    }
    let denominator = nearest * (z + radius);
    let (x0, x1) = pixel_range(
        tangent_slopes(centre_view.x, z, radius, denominator),
        projection_scale.x,
        viewport.x,
    )?;
    let (y0, y1) = pixel_range(
        tangent_slopes(centre_view.y, z, radius, denominator),
        projection_scale.y,
        viewport.y,
    )?;
    Some(PixelRect {
        min: UVec2::new(x0, y0),
        max: UVec2::new(x1, y1),
    })
}

/// True only where the sphere is certainly hidden behind `pyramid`, built
/// from the `viewport`-sized depth image: its nearest depth, `near / (z -
/// radius)`, raised by [`OCCLUSION_DEPTH_MARGIN`], is below the min of the
/// texels of the finest level where [`sphere_rect`] spans at most
/// [`OCCLUSION_FOOTPRINT_TEXELS`] texels per axis. `occlusion.glsl`'s
/// `sphere_occluded`, which says why that many.
pub fn sphere_occluded(
    pyramid: &DepthPyramid,
    centre_view: Vec3,
    radius: f32,
    projection_scale: Vec2,
    near: f32,
    viewport: UVec2,
) -> bool {
    let Some(rect) = sphere_rect(centre_view, radius, projection_scale, near, viewport) else {
        return false;
    };
    // Base texels, then level `level`'s.
    let (low, high) = (rect.min >> UVec2::ONE, rect.max >> UVec2::ONE);
    let at_level = |texel: UVec2, level: usize| texel >> UVec2::splat(level as u32);
    let spans_too_many = |level: usize| {
        (at_level(high, level) - at_level(low, level)).max_element()
            > OCCLUSION_FOOTPRINT_TEXELS - 1
    };
    let mut level = 0;
    while level + 1 < pyramid.levels.len() && spans_too_many(level) {
        level += 1;
    }
    let Some(&[w, h]) = pyramid.levels.get(level) else {
        return false;
    };
    let last = UVec2::new(w, h) - 1;
    let (a, b) = (
        at_level(low, level).min(last),
        at_level(high, level).min(last),
    );
    let footprint = (a.y..=b.y).flat_map(|y| (a.x..=b.x).map(move |x| (x, y)));
    let Some(farthest) = footprint
        .map(|(x, y)| pyramid.texel(level, x, y))
        .try_fold(f32::INFINITY, |m, t| t.map(|t| m.min(t)))
    else {
        return false;
    };
    let sphere_depth = near / (-centre_view.z - radius);
    sphere_depth * (1.0 + OCCLUSION_DEPTH_MARGIN) < farthest
}

#[cfg(test)]
mod tests;
