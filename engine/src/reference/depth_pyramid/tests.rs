//! The twin's own tests (no GPU): the pyramid's levels and atlas, the far
//! field's depth over the raster's, and the occlusion test against brute
//! force on random scenes.

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
                        let expected = footprint_min(&depth, (width, height, samples), k, (x, y));
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

/// A key of the far field's visibility buffer at `depth`.
fn key(depth: f32) -> u64 {
    u64::from(depth.to_bits()) << 32 | 0x155
}

#[test]
fn the_far_field_counts_as_its_resolve_shows_it() {
    // One row of four pixels, one raster sample each at 0.25, 2x2 far
    // samples each: behind the raster (the raster stands), all in front
    // (their farthest), in front but one empty (nothing hides: 0), all
    // empty (the raster).
    let raster = [0.25; 4];
    let pixels: [[f32; 4]; 4] = [
        [0.1, 0.2, 0.0, 0.2],
        [0.5, 0.4, 0.6, 0.45],
        [0.5, 0.4, 0.0, 0.45],
        [0.0; 4],
    ];
    // Row by row over the 8 x 2 sample grid.
    let keys: Vec<u64> = (0..2)
        .flat_map(|row| {
            pixels
                .iter()
                .flat_map(move |p| [key(p[2 * row]), key(p[2 * row + 1])])
        })
        .collect();
    let merged = with_far_field(&raster, 4, 1, 1, &keys, 2).expect("merged");
    assert_eq!(merged, [0.25, 0.4, 0.0, 0.25]);
    // One sample a pixel: the nearer of the two.
    let one: Vec<u64> = [0.1, 0.5, 0.0, 0.3].map(key).to_vec();
    let merged = with_far_field(&raster, 4, 1, 1, &one, 1).expect("merged");
    assert_eq!(merged, [0.25, 0.5, 0.25, 0.3]);
    // Sizes that do not match are errors, as is no far field.
    assert!(with_far_field(&raster, 4, 1, 1, &one, 2).is_err());
    assert!(with_far_field(&raster, 2, 1, 1, &one, 1).is_err());
    assert!(with_far_field(&raster, 4, 1, 1, &[], 0).is_err());
}
