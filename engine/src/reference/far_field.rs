//! CPU twin of the far field's rasterizer (`shaders/far_field_raster.glsl`):
//! the same projection (`f32` operations in the same order, none fused),
//! snapping, setup and integer edge-function rasterization, so the coverage
//! test can require the GPU's result pixel for pixel and bit for bit.
//!
//! Projection divides by `w`; Vulkan does not promise a correctly rounded
//! division, so exact agreement is promised only where the division is
//! exact (w = 1, or a power of two), which the test's triangles use. The
//! setup and the rasterization are integer arithmetic and agree everywhere.

use glam::{IVec2, Vec2, Vec4};

use crate::config::{FAR_FIELD_GUARD_PX, FAR_FIELD_MAX_TRIANGLE_PX, FAR_FIELD_SUBPIXEL_BITS};

/// Sub-pixels per pixel.
pub const SUBPIXEL: i32 = 1 << FAR_FIELD_SUBPIXEL_BITS;

/// A vertex snapped for the far field: position in sub-pixels and the
/// reverse-Z depth as `f32` bits (0: before the near plane).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FarVertex {
    pub position: IVec2,
    pub depth_bits: u32,
}

/// What the setup decides for a triangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setup {
    /// Nothing to draw: behind the near plane, off the target, or between
    /// pixel centres.
    Reject,
    /// Pixels `first..=last` (x, y) are to be tested.
    Raster { first: IVec2, last: IVec2 },
    /// The raster must draw the unit: the triangle crosses the near plane or
    /// is too large.
    Fallback,
}

impl Setup {
    /// The code the GPU reports (`FAR_TRIANGLE_*`).
    pub fn code(self) -> i32 {
        match self {
            Setup::Reject => 0,
            Setup::Raster { .. } => 1,
            Setup::Fallback => 2,
        }
    }
}

/// `far_project`.
pub fn project(clip: Vec4, viewport: Vec2) -> FarVertex {
    let mut v = FarVertex {
        position: IVec2::ZERO,
        depth_bits: 0,
    };
    // Written as the shader's negations, so NaN goes the same way.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(clip.w > 0.0) || !(clip.z <= clip.w) {
        return v;
    }
    let ndc = Vec2::new(clip.x / clip.w, clip.y / clip.w);
    let pixel = (ndc * 0.5 + 0.5) * viewport;
    let guard = FAR_FIELD_GUARD_PX as f32;
    let pixel = pixel.clamp(Vec2::splat(-guard), viewport + guard);
    let scaled = pixel * SUBPIXEL as f32 + 0.5;
    v.position = IVec2::new(scaled.x.floor() as i32, scaled.y.floor() as i32);
    // Past the far plane (a shadow cascade's; the camera's is at infinity)
    // depth would be negative, whose bits order above every positive one.
    let depth = (clip.z / clip.w).max(0.0);
    v.depth_bits = depth.to_bits().max(1);
    v
}

/// `far_triangle_setup` for a target of `target` pixels.
pub fn setup(a: FarVertex, b: FarVertex, c: FarVertex, target: IVec2) -> Setup {
    let before_near = [a, b, c].iter().filter(|v| v.depth_bits == 0).count();
    if before_near == 3 {
        return Setup::Reject;
    }
    if before_near > 0 {
        return Setup::Fallback;
    }
    let lo = a.position.min(b.position).min(c.position);
    let hi = a.position.max(b.position).max(c.position);
    let shift = FAR_FIELD_SUBPIXEL_BITS as i32;
    let first = ((lo - SUBPIXEL / 2 + (SUBPIXEL - 1)) >> shift).max(IVec2::ZERO);
    let last = ((hi - SUBPIXEL / 2) >> shift).min(target - 1);
    if first.x > last.x || first.y > last.y {
        return Setup::Reject;
    }
    let largest = FAR_FIELD_MAX_TRIANGLE_PX as i32 * SUBPIXEL;
    if hi.x - lo.x > largest || hi.y - lo.y > largest {
        return Setup::Fallback;
    }
    Setup::Raster { first, last }
}

/// `far_edge`: twice the signed area of `p` against `from` -> `to`.
pub fn edge(from: IVec2, to: IVec2, p: IVec2) -> i32 {
    (to.x - from.x) * (p.y - from.y) - (to.y - from.y) * (p.x - from.x)
}

/// `far_triangle_area`: negative is front-facing (counter-clockwise on
/// screen, y down).
pub fn triangle_area(a: FarVertex, b: FarVertex, c: FarVertex) -> i32 {
    let origin = a.position.min(b.position).min(c.position);
    edge(
        a.position - origin,
        b.position - origin,
        c.position - origin,
    )
}

fn top_left(from: IVec2, to: IVec2) -> bool {
    let d = to - from;
    d.y < 0 || (d.y == 0 && d.x > 0)
}

/// `far_rasterize`: calls `write(x, y, depth_bits)` for every covered pixel
/// of `pixels` (from [`setup`]).
pub fn rasterize(
    a: FarVertex,
    b: FarVertex,
    c: FarVertex,
    (first, last): (IVec2, IVec2),
    mut write: impl FnMut(i32, i32, u32),
) {
    let origin = a.position.min(b.position).min(c.position);
    let pa = a.position - origin;
    let (mut pb, mut pc) = (b.position - origin, c.position - origin);
    let za = a.depth_bits;
    let (mut zb, mut zc) = (b.depth_bits, c.depth_bits);
    let mut area = edge(pa, pb, pc);
    if area < 0 {
        std::mem::swap(&mut pb, &mut pc);
        std::mem::swap(&mut zb, &mut zc);
        area = -area;
    }
    if area == 0 {
        return;
    }
    let bias = |from, to| if top_left(from, to) { 0 } else { -1 };
    let (bias_a, bias_b, bias_c) = (bias(pb, pc), bias(pc, pa), bias(pa, pb));
    for y in first.y..=last.y {
        for x in first.x..=last.x {
            let p = IVec2::new(x, y) * SUBPIXEL + SUBPIXEL / 2 - origin;
            let wa = edge(pb, pc, p);
            let wb = edge(pc, pa, p);
            let wc = edge(pa, pb, p);
            if wa + bias_a >= 0 && wb + bias_b >= 0 && wc + bias_c >= 0 {
                let sum = wa as u64 * u64::from(za)
                    + wb as u64 * u64::from(zb)
                    + wc as u64 * u64::from(zc);
                write(x, y, (sum / area as u64) as u32);
            }
        }
    }
}

/// What the test kernel (`far_field_test.comp`) computes for `triangles`
/// (three clip-space vertices each) on a `width` x `height` target: per
/// pixel the largest key (depth bits << 32 | triangle + 1) and the number of
/// triangles covering it, and per triangle its setup code and doubled area.
pub struct Coverage {
    pub keys: Vec<u64>,
    pub counts: Vec<u32>,
    pub outcomes: Vec<[i32; 2]>,
}

/// Runs the reference over `triangles`.
pub fn coverage(triangles: &[[Vec4; 3]], width: u32, height: u32) -> Coverage {
    let pixels = (width * height) as usize;
    let mut result = Coverage {
        keys: vec![0; pixels],
        counts: vec![0; pixels],
        outcomes: Vec::with_capacity(triangles.len()),
    };
    let viewport = Vec2::new(width as f32, height as f32);
    let target = IVec2::new(width as i32, height as i32);
    for (index, triangle) in triangles.iter().enumerate() {
        let [a, b, c] = triangle.map(|clip| project(clip, viewport));
        let outcome = setup(a, b, c, target);
        let mut area = 0;
        if let Setup::Raster { first, last } = outcome {
            area = triangle_area(a, b, c);
            rasterize(a, b, c, (first, last), |x, y, depth| {
                let pixel = (y as u32 * width + x as u32) as usize;
                let key = (u64::from(depth) << 32) | (index as u64 + 1);
                result.keys[pixel] = result.keys[pixel].max(key);
                result.counts[pixel] += 1;
            });
        }
        result.outcomes.push([outcome.code(), area]);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vertex(x: i32, y: i32) -> FarVertex {
        FarVertex {
            position: IVec2::new(x, y),
            depth_bits: 0.5f32.to_bits(),
        }
    }

    /// Two triangles of a quad cover each pixel centre inside it once.
    #[test]
    fn a_split_quad_covers_each_pixel_once() {
        let s = SUBPIXEL;
        let quad = [
            vertex(0, 0),
            vertex(8 * s, 0),
            vertex(8 * s, 8 * s),
            vertex(0, 8 * s),
        ];
        let mut counts = [[0u32; 8]; 8];
        for [a, b, c] in [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]] {
            let Setup::Raster { first, last } = setup(a, b, c, IVec2::splat(64)) else {
                panic!("the quad's triangles are on screen");
            };
            rasterize(a, b, c, (first, last), |x, y, _| {
                counts[y as usize][x as usize] += 1
            });
        }
        assert!(counts.iter().flatten().all(|&n| n == 1), "{counts:?}");
    }

    #[test]
    fn depth_is_interpolated_between_the_corners() {
        let s = SUBPIXEL;
        let mut a = vertex(0, 0);
        let mut b = vertex(16 * s, 0);
        let c = vertex(0, 16 * s);
        a.depth_bits = 0.25f32.to_bits();
        b.depth_bits = 0.5f32.to_bits() - 1;
        let Setup::Raster { first, last } = setup(a, b, c, IVec2::splat(64)) else {
            panic!("on screen");
        };
        let (lo, hi) = (
            a.depth_bits.min(c.depth_bits),
            a.depth_bits.max(b.depth_bits),
        );
        let mut seen = 0;
        rasterize(a, b, c, (first, last), |_, _, depth| {
            assert!((lo..=hi).contains(&depth));
            seen += 1;
        });
        assert!(seen > 100);
    }
}
