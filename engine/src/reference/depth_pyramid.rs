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
/// (up to) four texels of the finest level where [`sphere_rect`] spans at
/// most two texels per axis. `occlusion.glsl`'s `sphere_occluded`.
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
    let spans_more_than_two =
        |level: usize| (at_level(high, level) - at_level(low, level)).max_element() > 1;
    let mut level = 0;
    while level + 1 < pyramid.levels.len() && spans_more_than_two(level) {
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
    let texel = |x: u32, y: u32| pyramid.texel(level, x, y);
    let corners = [
        texel(a.x, a.y),
        texel(b.x, a.y),
        texel(a.x, b.y),
        texel(b.x, b.y),
    ];
    let Some(farthest) = corners
        .into_iter()
        .try_fold(f32::INFINITY, |m, t| t.map(|t| m.min(t)))
    else {
        return false;
    };
    let sphere_depth = near / (-centre_view.z - radius);
    sphere_depth * (1.0 + OCCLUSION_DEPTH_MARGIN) < farthest
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic generator of values in [0, 1).
    struct Lcg(u32);

    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (self.0 >> 8) as f32 / (1u32 << 24) as f32
        }
    }

    /// The min of every depth of the pixels `[x * 2^(k+1), (x + 1) *
    /// 2^(k+1))` x (the same in y) inside the image: texel (x, y) of level
    /// k by definition.
    fn footprint_min(
        depth: &[f32],
        (width, height, samples): (u32, u32, u32),
        k: usize,
        (x, y): (u32, u32),
    ) -> f32 {
        let side = 2u32 << k;
        let mut farthest = f32::INFINITY;
        for py in y * side..((y + 1) * side).min(height) {
            for px in x * side..((x + 1) * side).min(width) {
                for s in 0..samples {
                    farthest = farthest.min(depth[((py * width + px) * samples + s) as usize]);
                }
            }
        }
        farthest
    }

    #[test]
    fn texels_are_the_minima_of_their_footprints() {
        let mut random = Lcg(7);
        for (width, height) in [(1, 1), (2, 2), (3, 5), (17, 9), (64, 48), (1, 37), (33, 1)] {
            for samples in [1, 4] {
                let depth: Vec<f32> = (0..width * height * samples)
                    .map(|_| random.next())
                    .collect();
                let pyramid = DepthPyramid::build(&depth, width, height, samples).unwrap();
                let sizes = pyramid.level_sizes();
                assert_eq!(sizes[0], [width.div_ceil(2), height.div_ceil(2)]);
                assert_eq!(*sizes.last().unwrap(), [1, 1]);
                assert_eq!(pyramid.data().len() as u64, pyramid_len(sizes));
                for (k, &[w, h]) in sizes.iter().enumerate() {
                    for y in 0..h {
                        for x in 0..w {
                            let expected =
                                footprint_min(&depth, (width, height, samples), k, (x, y));
                            assert_eq!(
                                pyramid.texel(k, x, y),
                                Some(expected),
                                "{width}x{height}x{samples} level {k} texel ({x}, {y})"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn level_sizes_halve_rounding_up_down_to_one_texel() {
        assert_eq!(level_sizes(1, 1), vec![[1, 1]]);
        assert_eq!(level_sizes(2, 2), vec![[1, 1]]);
        assert_eq!(
            level_sizes(37, 23),
            vec![[19, 12], [10, 6], [5, 3], [3, 2], [2, 1], [1, 1]]
        );
        assert_eq!(level_sizes(1, 9).len(), 4);
        assert!(level_sizes(0, 5).is_empty());
    }

    #[test]
    fn the_atlas_stacks_the_levels() {
        let mut random = Lcg(11);
        for (width, height) in [(1, 1), (2, 2), (37, 23), (1, 37), (33, 1)] {
            let depth: Vec<f32> = (0..width * height).map(|_| 0.5 + random.next()).collect();
            let pyramid = DepthPyramid::build(&depth, width, height, 1).unwrap();
            let ([w, h], texels) = pyramid.atlas();
            assert_eq!([w, h], atlas_size(pyramid.level_sizes()));
            assert_eq!(texels.len(), (w * h) as usize);
            // Every depth is at least 0.5: a 0 is a texel no level claims.
            let mut claimed = 0;
            for (k, &[lw, lh]) in pyramid.level_sizes().iter().enumerate() {
                let row = pyramid.level_row(k).unwrap();
                for y in 0..lh {
                    for x in 0..lw {
                        let at = ((row + y) * w + x) as usize;
                        assert_eq!(Some(texels[at]), pyramid.texel(k, x, y), "{k} ({x}, {y})");
                        claimed += 1;
                    }
                }
            }
            let zeros = texels.iter().filter(|&&t| t == 0.0).count();
            assert_eq!(claimed + zeros, texels.len(), "{width}x{height}");
        }
        let one = DepthPyramid::build(&[0.25], 1, 1, 1).unwrap();
        assert_eq!(one.atlas(), ([1, 1], vec![0.25]));
        assert_eq!(atlas_size(&level_sizes(37, 23)), [19, 25]);
        assert_eq!(one.level_row(1), None);
        assert_eq!(atlas_size(&[]), [0, 0]);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(DepthPyramid::build(&[0.5; 6], 3, 2, 2).is_err());
        assert!(DepthPyramid::build(&[], 0, 0, 1).is_err());
        assert!(DepthPyramid::build(&[0.5; 4], 2, 2, 0).is_err());
        let pyramid = DepthPyramid::build(&[0.5; 4], 2, 2, 1).unwrap();
        assert_eq!(pyramid.texel(0, 1, 0), None);
        assert_eq!(pyramid.texel(1, 0, 0), None);
        assert_eq!(pyramid.level_offset(1), None);
    }

    const WIDTH: u32 = 64;
    const HEIGHT: u32 = 48;
    const NEAR: f32 = 0.5;

    /// (P\[0\]\[0\], P\[1\]\[1\]) of the engine's projection for the test image.
    fn scale() -> Vec2 {
        let camera = crate::camera::Camera::look_at(Vec3::ZERO, Vec3::NEG_Z);
        let camera = crate::camera::Camera {
            near: NEAR,
            ..camera
        };
        let p = camera.projection(WIDTH as f32 / HEIGHT as f32);
        Vec2::new(p.x_axis.x, p.y_axis.y)
    }

    fn viewport() -> UVec2 {
        UVec2::new(WIDTH, HEIGHT)
    }

    /// Pixels whose area the sphere covers, found by casting rays through a
    /// 9 x 9 grid of points over each pixel (its edges and corners
    /// included), and the sphere's nearest depth.
    fn covered_pixels(centre: Vec3, radius: f32, scale: Vec2) -> Vec<(u32, u32)> {
        let mut covered = Vec::new();
        for py in 0..HEIGHT {
            for px in 0..WIDTH {
                let hit = (0..81).any(|i| {
                    let x = px as f32 + (i % 9) as f32 / 8.0;
                    let y = py as f32 + (i / 9) as f32 / 8.0;
                    let ndc = Vec2::new(x / WIDTH as f32, y / HEIGHT as f32) * 2.0 - 1.0;
                    let slope = ndc / scale;
                    let ray = Vec3::new(slope.x, slope.y, -1.0).normalize();
                    let along = centre.dot(ray);
                    along > 0.0 && (centre - ray * along).length_squared() <= radius * radius
                });
                if hit {
                    covered.push((px, py));
                }
            }
        }
        covered
    }

    /// A wall at `wall` depth over the whole image, with `holes` (pixel
    /// rectangles, corners included) at depth `hole`.
    fn wall(wall: f32, holes: &[(UVec2, UVec2)], hole: f32) -> Vec<f32> {
        let mut depth = vec![wall; (WIDTH * HEIGHT) as usize];
        for &(min, max) in holes {
            for y in min.y..=max.y {
                for x in min.x..=max.x {
                    depth[(y * WIDTH + x) as usize] = hole;
                }
            }
        }
        depth
    }

    #[test]
    fn occlusion_is_conservative_on_random_scenes() {
        let mut random = Lcg(99);
        let scale = scale();
        let mut answers = [0usize; 2];
        for scene in 0..24 {
            // Blocks of random depths, some of them sky (0).
            let block = 1 + scene % 8;
            let blocks: Vec<f32> = (0..64 * 64)
                .map(|_| {
                    if random.next() < 0.1 {
                        0.0
                    } else {
                        0.02 + 0.2 * random.next()
                    }
                })
                .collect();
            let depth: Vec<f32> = (0..WIDTH * HEIGHT)
                .map(|i| blocks[((i / WIDTH / block) * 64 + i % WIDTH / block) as usize])
                .collect();
            let pyramid = DepthPyramid::build(&depth, WIDTH, HEIGHT, 1).unwrap();
            for _ in 0..40 {
                let z = 1.0 + 60.0 * random.next();
                let centre = Vec3::new((random.next() - 0.5) * z, (random.next() - 0.5) * z, -z);
                let radius = random.next() * 0.1 * z;
                let occluded = sphere_occluded(&pyramid, centre, radius, scale, NEAR, viewport());
                answers[occluded as usize] += 1;
                if !occluded {
                    continue;
                }
                let nearest = NEAR / (z - radius);
                for (x, y) in covered_pixels(centre, radius, scale) {
                    let pixel = depth[(y * WIDTH + x) as usize];
                    assert!(
                        pixel > nearest,
                        "sphere {centre} r {radius} said occluded, but pixel ({x}, {y}) at \
                         depth {pixel} is not in front of its nearest depth {nearest}"
                    );
                }
            }
        }
        assert!(
            answers.iter().all(|&n| n > 50),
            "both answers are exercised: {answers:?}"
        );
    }

    #[test]
    fn crafted_walls_hide_what_is_behind_them() {
        let scale = scale();
        let occluded = |depth: &[f32], centre: Vec3, radius: f32| {
            let pyramid = DepthPyramid::build(depth, WIDTH, HEIGHT, 1).unwrap();
            sphere_occluded(&pyramid, centre, radius, scale, NEAR, viewport())
        };
        // The wall is at distance 1 (depth 0.5).
        let solid = wall(0.5, &[], 0.0);
        assert!(
            occluded(&solid, Vec3::new(0.0, 0.0, -10.0), 1.0),
            "behind the wall"
        );
        assert!(
            occluded(&solid, Vec3::new(3.0, -2.0, -10.0), 4.0),
            "large, behind"
        );
        assert!(
            !occluded(&solid, Vec3::new(0.0, 0.0, -0.8), 0.1),
            "in front of the wall"
        );
        assert!(
            !occluded(&solid, Vec3::new(0.0, 0.0, -1.5), 0.6),
            "through the wall"
        );
        assert!(
            !occluded(&solid, Vec3::new(0.0, 0.0, -0.7), 0.3),
            "reaching the near plane"
        );
        assert!(
            !occluded(&solid, Vec3::new(0.0, 0.0, 10.0), 1.0),
            "behind the camera"
        );
        assert!(
            !occluded(&solid, Vec3::new(100.0, 0.0, -10.0), 1.0),
            "off screen"
        );
        // A hole in the middle of the wall, where the sphere is, and one
        // away from it.
        let centre_hole = (UVec2::new(30, 22), UVec2::new(33, 25));
        let corner_hole = (UVec2::new(0, 0), UVec2::new(5, 5));
        let sphere = (Vec3::new(0.0, 0.0, -10.0), 0.5);
        assert!(!occluded(
            &wall(0.5, &[centre_hole], 0.0),
            sphere.0,
            sphere.1
        ));
        assert!(occluded(
            &wall(0.5, &[corner_hole], 0.0),
            sphere.0,
            sphere.1
        ));
        // One sky pixel under a large sphere's footprint shows through.
        let pixel = (UVec2::new(40, 30), UVec2::new(40, 30));
        assert!(!occluded(
            &wall(0.5, &[pixel], 0.0),
            Vec3::new(1.0, -1.0, -10.0),
            3.0
        ));
        // A hole only a little nearer than the sphere still hides it; one
        // just behind the sphere's nearest point does not.
        assert!(occluded(
            &wall(0.5, &[centre_hole], 0.06),
            sphere.0,
            sphere.1
        ));
        assert!(!occluded(
            &wall(0.5, &[centre_hole], 0.05),
            sphere.0,
            sphere.1
        ));
    }

    #[test]
    fn the_rect_holds_the_projected_sphere() {
        let scale = scale();
        let mut random = Lcg(3);
        for _ in 0..200 {
            let z = 1.0 + 30.0 * random.next();
            let centre = Vec3::new((random.next() - 0.5) * z, (random.next() - 0.5) * z, -z);
            let radius = random.next() * 0.3 * z;
            let covered = covered_pixels(centre, radius, scale);
            match sphere_rect(centre, radius, scale, NEAR, viewport()) {
                Some(rect) => {
                    for (x, y) in covered {
                        let inside = UVec2::new(x, y).cmpge(rect.min).all()
                            && UVec2::new(x, y).cmple(rect.max).all();
                        assert!(
                            inside,
                            "pixel ({x}, {y}) outside {rect:?} of {centre} r {radius}"
                        );
                    }
                }
                None => assert!(
                    covered.is_empty() || z - radius <= NEAR,
                    "{centre} r {radius} covers pixels but has no rect"
                ),
            }
        }
    }
}
